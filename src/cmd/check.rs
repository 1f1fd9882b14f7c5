//! `tabiya codec check PATH...`.

use std::{path::PathBuf, process::ExitCode};

use tabiya::codec::check_paths;

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
        println!(
            "{}",
            serde_json::json!({
                "positions": report.positions,
                "failed": report.failed,
                "key_bytes": report.key_bytes,
                "huffman_bits_mean": report.huffman_bits_mean(),
                "huffman_bits_max": report.huffman_bits_max,
                "rejected": report.rejected,
            })
        );
    } else {
        for (reason, count) in &report.rejected {
            println!("{count} inputs skipped: {reason}");
        }
        println!(
            "key {} bytes; huffman {:.1} bits mean, {} max",
            report.key_bytes,
            report.huffman_bits_mean(),
            report.huffman_bits_max
        );
        println!("{} positions, {} failed", report.positions, report.failed);
    }
    Ok(if report.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
