//! `tabiya codec check PATH...`.

use std::{path::PathBuf, process::ExitCode};

use tabiya::{
    input::codec_check::check_paths,
    render::{json, table},
};

#[derive(clap::Args)]
pub struct Args {
    /// EPD/FEN lists or PGN collections (.pgn, .pgn.zst); directories are searched.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print the totals as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = check_paths(&args.paths, |skipped| eprintln!("skipped {skipped}"))?;
    for failure in &report.failures {
        eprintln!("FAILED {failure}");
    }
    if args.json {
        println!("{}", serde_json::to_string(&json::Check::new(&report))?);
    } else {
        print!("{}", table::check(&report));
    }
    Ok(if report.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
