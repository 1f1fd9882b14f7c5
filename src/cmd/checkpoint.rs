//! `tabiya checkpoint`: a consistent copy of a database for a replica, taken while it may be
//! ingesting.

use std::{path::PathBuf, process::ExitCode};

use tabiya::store;

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// The copy's directory (new; on the database's file system, the copy is made of hard links).
    dest: PathBuf,
    /// Print the copy's totals as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let totals = store::checkpoint(&args.db.db, &args.dest)?;
    if args.json {
        println!("{}", serde_json::json!({ "path": args.dest.display().to_string(), "games": totals.games }));
    } else {
        println!("checkpoint {}: {} games", args.dest.display(), totals.games);
    }
    Ok(ExitCode::SUCCESS)
}
