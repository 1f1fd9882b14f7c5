//! `tabiya demo`: ingests the embedded sample games into a temporary database and shows the
//! explorer answer for a position they share, then the mates a pattern search finds.

use std::process::ExitCode;

use anyhow::Context as _;
use tabiya::{
    explore::{Filter, Limits, Lookup, PatternQuery, Target, parse_openings},
    indexer,
    position::Variant,
    render::table,
    store::Store,
};

/// Games the project typed in (datasets/sample.pgn): three 19th-century classics and two made up
/// to show a transposition, a repetition, a set-up position and a promotion.
const SAMPLE: &[u8] = include_bytes!("../../datasets/sample.pgn");

/// A few opening names the project typed in, in the lichess chess-openings TSV format.
const OPENINGS: &[u8] = include_bytes!("../../datasets/openings-sample.tsv");

/// The pattern the demo searches for: the games that end in mate.
const MATE: &str = "mate";

/// The Giuoco Piano, which the Evergreen game and the transposition sample share.
const LINE: &str = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5";

#[derive(clap::Args)]
pub struct Args {
    /// Print the answer as JSON.
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
    let (openings, _) = parse_openings(OPENINGS)?;
    store.writer()?.put_openings(&openings.into_iter().map(|o| (o.key, o.eco, o.name)).collect::<Vec<_>>())?;
    let lookup = Lookup { target: Target::san(LINE).resolve()?, filter: Filter::default(), limits: Limits::default() };
    let answer = lookup.run(&store)?;
    if json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!(
            "ingested the embedded sample: {} games, {} distinct positions",
            summary.totals.games,
            summary.totals.distinct_positions.unwrap_or(0)
        );
        println!("tabiya query --moves \"{LINE}\"\n");
        print!("{}", table::answer(&answer));
        let mates = PatternQuery {
            pattern: MATE.parse()?,
            material: None,
            side: None,
            limit: 3,
            filter: Filter::default(),
            variant: Variant::Standard,
        }
        .run(&store)?;
        println!("\ntabiya search --pattern '{MATE}'\n");
        print!("{}", table::pattern(&mates));
    }
    Ok(if answer.games == 2 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
