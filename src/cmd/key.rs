//! `tabiya key FEN` and `tabiya key --decode HEX`.

use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use tabiya::{Category, Key, Position, codec::huffman, position::Variant};

#[derive(clap::Args)]
pub struct Args {
    /// The position, as FEN or EPD (X-FEN or Shredder-FEN with --variant chess960).
    #[arg(required_unless_present = "decode", conflicts_with = "decode")]
    fen: Option<String>,
    /// Decode this key (42 hexadecimal digits) instead.
    #[arg(long, value_name = "HEX")]
    decode: Option<String>,
    /// The rules of the FEN: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess (each has its own keys).
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    variant: Variant,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(hex) = args.decode {
        let key: Key = hex.parse().with_context(|| format!("cannot decode {hex:?}"))?;
        let position = key.decode().with_context(|| format!("cannot decode {hex:?}"))?;
        let variant = Variant::of(&position);
        if args.json {
            println!(
                "{}",
                json!({ "fen": position.to_string(), "variant": variant.name(), "category": key.as_bytes()[0] })
            );
        } else if variant == Variant::Standard {
            println!("{position}");
        } else {
            println!("{position} ({variant})");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let fen = args.fen.unwrap_or_default();
    let position: Position = args.variant.parse_fen(&fen)?;
    let key = Key::encode(&position).with_context(|| format!("no key for {fen:?}"))?;
    let category = key.as_bytes()[0];
    // The Huffman code is standard chess's export format.
    let bits = (position.variant() == Variant::Standard).then(|| huffman::encode(&position).bits);
    debug_assert!(bits.is_none() || Category::new(category).is_some());
    if args.json {
        let fields = json!({
            "fen": position.to_string(),
            "variant": args.variant.name(),
            "category": category,
            "key": key.to_string(),
            "huffmanBits": bits,
        });
        println!("{fields}");
    } else {
        println!("fen       {position}\nvariant   {}\ncategory  {category}\nkey       {key}", args.variant);
        if let Some(bits) = bits {
            println!("huffman   {bits} bits");
        }
    }
    Ok(ExitCode::SUCCESS)
}
