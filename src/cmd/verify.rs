//! `tabiya verify`: checksums and invariants, each problem with where it is.

use std::{process::ExitCode, time::Instant};

use tabiya::store::Store;

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Checksums only: read every entry of every table file, not the games.
    #[arg(long)]
    quick: bool,
    /// Print what was checked and found as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    // A table file missing or damaged where RocksDB opens it: the first problem found.
    let store = match Store::open_read_only(&args.db.db) {
        Ok(store) => store,
        Err(err) if err.is_corruption() => {
            eprintln!("tabiya: {}: cannot be opened: {err}", args.db.db.display());
            return Ok(ExitCode::FAILURE);
        }
        Err(err) => return Err(err.into()),
    };
    let found = tabiya::store::verify(&store, args.quick);
    if args.json {
        let mut document = serde_json::to_value(&found)?;
        document["sound"] = found.is_sound().into();
        document["seconds"] = started.elapsed().as_secs_f64().into();
        println!("{document}");
    } else {
        for problem in &found.problems {
            println!("{}: {}", problem.place, problem.what);
        }
        if found.more_problems > 0 {
            println!("... and {} more problems", found.more_problems);
        }
        let entries: u64 = found.entries.iter().map(|(_, count)| count).sum();
        let checked = match args.quick {
            true => format!("{entries} entries' checksums"),
            false => {
                format!("{entries} entries' checksums, {} games, {} positions of theirs", found.games, found.positions)
            }
        };
        let verdict = match found.is_sound() {
            true => "sound".to_owned(),
            false => format!("{} problems", found.problems.len() as u64 + found.more_problems),
        };
        println!("{}: {verdict} ({checked}; {:.1} s)", args.db.db.display(), started.elapsed().as_secs_f64());
    }
    Ok(if found.is_sound() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
