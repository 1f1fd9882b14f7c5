//! `tabiya stats [--db DIR] [--json]`: the database totals, its size and its ingest runs.

use std::process::ExitCode;

use tabiya::{
    render::{
        json::{DatabaseTotals, Run, Sizes},
        table,
    },
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
    let totals = store.totals()?;
    let families = store.family_bytes()?;
    let runs = store.runs()?;
    let tier = store.tier_positions()?;
    if args.json {
        let document = DatabaseTotals {
            tier_positions: Some(tier),
            bytes: Some(families.iter().map(|(name, bytes)| (name.to_string(), *bytes)).collect()),
            sizes: Some(Sizes::of(&totals, &families)),
            runs: Some(runs.iter().map(Run::new).collect()),
            ..DatabaseTotals::new(&totals)
        };
        println!("{}", serde_json::to_string(&document)?);
    } else {
        print!("{}", table::database(store.path(), &totals, tier, &families, &runs));
    }
    Ok(ExitCode::SUCCESS)
}
