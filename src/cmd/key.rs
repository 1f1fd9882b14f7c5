//! `tabiya key FEN` and `tabiya key --decode HEX`.

use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use tabiya::{Category, Key, Position, codec::huffman};

#[derive(clap::Args)]
pub struct Args {
    /// The position, as FEN or EPD.
    #[arg(required_unless_present = "decode", conflicts_with = "decode")]
    fen: Option<String>,
    /// Decode this key (42 hexadecimal digits) instead.
    #[arg(long, value_name = "HEX")]
    decode: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(hex) = args.decode {
        let key: Key = hex.parse().with_context(|| format!("cannot decode {hex:?}"))?;
        let position = key.decode().with_context(|| format!("cannot decode {hex:?}"))?;
        if args.json {
            println!("{}", json!({ "fen": position.to_string(), "category": Category::of(&position).index() }));
        } else {
            println!("{position}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let fen = args.fen.unwrap_or_default();
    let position: Position = fen.parse()?;
    let key = Key::encode(&position).with_context(|| format!("no key for {fen:?}"))?;
    let bits = huffman::encode(&position).bits;
    let category = Category::of(&position).index();
    if args.json {
        println!(
            "{}",
            json!({ "fen": position.to_string(), "category": category, "key": key.to_string(), "huffmanBits": bits })
        );
    } else {
        println!("fen       {position}\ncategory  {category}\nkey       {key}\nhuffman   {bits} bits");
    }
    Ok(ExitCode::SUCCESS)
}
