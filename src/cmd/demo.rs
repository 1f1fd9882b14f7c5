//! `tabiya demo`: the embedded sample positions, encoded, decoded and printed.

use std::process::ExitCode;

use serde_json::json;
use tabiya::{
    Category, Key,
    codec::{CheckReport, huffman},
    ingest::read_position_lines,
};

/// Positions the project wrote to exercise the key (datasets/sample.epd).
const SAMPLE: &str = include_str!("../../datasets/sample.epd");

#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object per position.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut report = CheckReport::default();
    let mut problems = Vec::new();
    read_position_lines(SAMPLE.as_bytes(), "sample.epd", |item| match item {
        Ok(line) => {
            let position = line.position;
            report.check(&position);
            let key = Key::encode(&position).map(|k| k.to_string()).unwrap_or_else(|e| e.to_string());
            let bits = huffman::encode(&position).bits;
            let category = Category::of(&position).index();
            if args.json {
                println!(
                    "{}",
                    json!({ "fen": position.to_string(), "category": category, "key": key, "huffman_bits": bits })
                );
            } else {
                println!("{category:>2}  {key}  {bits:>3} bits  {position}");
            }
        }
        Err(err) => problems.push(err.to_string()),
    })?;
    for problem in &problems {
        eprintln!("{problem}");
    }
    for failure in &report.failures {
        eprintln!("round trip failed: {failure}");
    }
    if !args.json {
        println!("{} positions, {} failed", report.positions, report.failed);
    }
    Ok(if report.failed == 0 && problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
