//! `tabiya stats [--db DIR] [--json]`: the database totals, its size and its ingest runs.

use std::process::ExitCode;

use tabiya::{
    render::{json::DatabaseTotals, table},
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&args.db.db)?;
    if args.json {
        println!("{}", serde_json::to_string(&DatabaseTotals::of_store(&store)?)?);
    } else {
        let view = store.snapshot();
        let totals = view.totals()?;
        let families = store.family_bytes()?;
        let runs = store.runs()?;
        let tier = view.positions().in_tier()?;
        print!("{}", table::database(store.path(), &totals, tier, &families, &runs));
    }
    Ok(ExitCode::SUCCESS)
}
