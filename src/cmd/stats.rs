//! `tabiya stats [--db DIR] [--json]`: what the database holds and how it got there.

use std::process::ExitCode;

use indicatif::HumanBytes;
use serde_json::json;
use tabiya::store::Store;

use super::DbArgs;

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
    if args.json {
        let runs: Vec<_> = runs
            .iter()
            .map(|run| {
                let skipped: serde_json::Map<_, _> =
                    run.counts.skipped.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                json!({
                    "id": run.id,
                    "started": run.started,
                    "finished": run.finished,
                    "status": run.status.name(),
                    "inputs": run.inputs,
                    "games_read": run.counts.games_read,
                    "indexed": run.counts.indexed,
                    "duplicates": run.counts.duplicates,
                    "skipped": skipped,
                    "positions_written": run.counts.positions_written,
                })
            })
            .collect();
        let bytes: serde_json::Map<_, _> = families.iter().map(|(name, b)| (name.to_string(), json!(b))).collect();
        println!(
            "{}",
            json!({
                "games": totals.games,
                "plies": totals.plies,
                "distinct_positions": totals.distinct_positions,
                "single_game_positions": totals.single_game_positions,
                "position_occurrences": totals.position_occurrences,
                "bytes": bytes,
                "runs": runs,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("database            {}", store.path().display());
    println!("games               {:>12}", totals.games);
    println!("plies               {:>12}", totals.plies);
    match (totals.distinct_positions, totals.single_game_positions) {
        (Some(n), Some(single)) => {
            println!("distinct positions  {n:>12}");
            println!("  in one game only  {single:>12}  ({:.1}%)", 100.0 * single as f64 / n.max(1) as f64);
        }
        _ => println!("distinct positions  (not counted: no ingest has completed)"),
    }
    println!("position occurrences{:>12}", totals.position_occurrences);
    for (name, bytes) in &families {
        println!("{:<20}{:>12}", format!("{name} bytes"), HumanBytes(*bytes).to_string());
    }
    for run in &runs {
        println!(
            "run {} ({}, started {} unix): {} read, {} indexed, {} duplicates, {} skipped; {}",
            run.id,
            run.status.name(),
            run.started,
            run.counts.games_read,
            run.counts.indexed,
            run.counts.duplicates,
            run.counts.skipped_total(),
            run.inputs.join(" ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
