//! `tabiya demo`: ingests the embedded sample games into a temporary database and shows what
//! the database answers for a position they share.

use std::process::ExitCode;

use anyhow::Context as _;
use tabiya::{Key, Position, indexer, store::Store};

use super::query;

/// Games the project typed in (datasets/sample.pgn): three 19th-century classics and two made up
/// to show a transposition, a repetition, a set-up position and a promotion.
const SAMPLE: &[u8] = include_bytes!("../../datasets/sample.pgn");

/// The Italian Game after 3...Bc5, which the Evergreen game and the transposition sample share.
const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

#[derive(clap::Args)]
pub struct Args {
    /// Print the position's statistics as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("tabiya-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = demo(&dir, args.json);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn demo(dir: &std::path::Path, json: bool) -> anyhow::Result<ExitCode> {
    let pgn = dir.join("sample.pgn");
    std::fs::write(&pgn, SAMPLE).with_context(|| format!("cannot write {}", pgn.display()))?;
    let store = Store::open(&dir.join("db"))?;
    let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver)?;
    let position: Position = ITALIAN.parse()?;
    let stats = store.position(&Key::encode(&position)?)?.unwrap_or_default();
    if !json {
        println!(
            "ingested the embedded sample: {} games, {} distinct positions",
            summary.totals.games,
            summary.totals.distinct_positions.unwrap_or(0)
        );
        println!("tabiya query --fen \"{ITALIAN}\"");
    }
    query::print(&position, &stats, json);
    Ok(if stats.total.games == 2 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
