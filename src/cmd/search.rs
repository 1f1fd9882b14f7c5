//! `tabiya search --material SIGNATURE`: the positions with a given material.

use std::process::ExitCode;

use tabiya::{
    explore::{MaterialQuery, Signature, parse_color},
    output::table,
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Material signature, White v Black: KRPPvKR; `P*` means any number of pawns, `P3` three.
    #[arg(long)]
    material: String,
    /// Only positions with this side to move (w or b).
    #[arg(long)]
    side: Option<String>,
    /// Only positions with exactly these castling rights (FEN field: KQkq, Kq, -).
    #[arg(long)]
    castling: Option<String>,
    /// Positions listed, most frequent first.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let query = MaterialQuery {
        signature: args.material.parse::<Signature>()?,
        side: args.side.as_deref().map(parse_color).transpose()?,
        castling: args.castling.as_deref().map(MaterialQuery::parse_castling).transpose()?,
        limit: args.limit,
    };
    let store = Store::open_read_only(&args.db.db)?;
    let found = query.run(&store)?;
    if args.json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        print!("{}", table::material(&found));
    }
    Ok(ExitCode::SUCCESS)
}
