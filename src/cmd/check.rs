//! `tabiya codec check PATH...`.

use std::{path::PathBuf, process::ExitCode};

use rayon::prelude::*;
use tabiya::{
    Position,
    codec::CheckReport,
    ingest::{InputKind, Source, read_games, read_position_lines},
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

/// Positions checked per parallel batch.
const BATCH: usize = 1 << 16;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut report = CheckReport::default();
    let mut batch: Vec<Position> = Vec::with_capacity(BATCH);
    let flush = |batch: &mut Vec<Position>, report: &mut CheckReport| {
        let partial = batch
            .par_chunks(1024)
            .map(|chunk| {
                let mut r = CheckReport::default();
                chunk.iter().for_each(|p| r.check(p));
                r
            })
            .reduce(CheckReport::default, |mut a, b| {
                a.merge(b);
                a
            });
        report.merge(partial);
        batch.clear();
    };
    for path in &args.paths {
        for file in Source::expand(path)? {
            let source = Source::open(&file, None)?;
            match source.kind {
                InputKind::Pgn => read_games(source.reader, &source.name, |game| match game {
                    Ok(positions) => {
                        batch.extend(positions);
                        if batch.len() >= BATCH {
                            flush(&mut batch, &mut report);
                        }
                    }
                    Err(err) => {
                        eprintln!("skipped {err}");
                        report.reject("game not replayable".to_owned());
                    }
                })?,
                InputKind::PositionLines => {
                    read_position_lines(source.reader, &source.name, |line| match line {
                        Ok(line) => batch.push(line.position),
                        Err(err) => {
                            eprintln!("skipped {err}");
                            report.reject(err.error.kind().to_owned());
                        }
                    })?
                }
            }
        }
    }
    flush(&mut batch, &mut report);
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
                "huffman_bits_mean": report.huffman_bits_mean,
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
            report.key_bytes, report.huffman_bits_mean, report.huffman_bits_max
        );
        println!("{} positions, {} failed", report.positions, report.failed);
    }
    Ok(if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
