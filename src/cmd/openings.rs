//! `tabiya openings import FILE.tsv...`: loads an opening-name table (lichess chess-openings
//! format) into the database, replacing the previous one.

use std::{fs::File, io::BufReader, path::PathBuf, process::ExitCode};

use anyhow::Context as _;
use tabiya::{explore::parse_openings, store::Store};

use super::args::DbArgs;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Import TSV files with columns eco, name, pgn (one header line).
    Import {
        #[command(flatten)]
        db: DbArgs,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    let Command::Import { db, files } = command;
    let mut all = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut skipped = 0;
    for path in &files {
        let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        let (openings, errors) =
            parse_openings(BufReader::new(file)).with_context(|| format!("{}: cannot read", path.display()))?;
        for error in &errors {
            eprintln!("{}: {error}", path.display());
        }
        skipped += errors.len();
        all.extend(openings.into_iter().filter(|o| seen.insert(o.key)).map(|o| (o.key, o.eco, o.name)));
    }
    // A table of nothing (a wrong file) leaves the database as it was, and makes none.
    anyhow::ensure!(!all.is_empty(), "no opening read from {} file(s): nothing imported", files.len());
    let store = Store::open(&db.db)?;
    store.writer()?.put_openings(&all)?;
    println!("{} openings imported, {skipped} lines skipped", all.len());
    Ok(if skipped == 0 { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
