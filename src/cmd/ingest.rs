//! `tabiya ingest [--db DIR] PATH...`: PGN collections into the database, with a progress bar,
//! skipped games reported on stderr, and a summary.

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::PathBuf,
    process::ExitCode,
    time::Duration,
};

use anyhow::Context as _;
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use tabiya::{
    indexer::{self, Observer, Progress, Summary},
    input::{self, InputError, Rejection, Wanted},
    render::{json::IngestSummary, table},
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// PGN files (.pgn, .pgn.zst, .pgn.bz2, .pgn.gz), directories (searched for them), or - for
    /// standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Write the text of every skipped game to FILE.
    #[arg(long, value_name = "FILE")]
    rejects: Option<PathBuf>,
    /// Exit with status 2 if any game was skipped or any input could not be read to its end.
    #[arg(long)]
    strict: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Skip the twins of stored games (and of games read before them): the same players,
    /// however spelled, and date, with the same moves, or one's moves the start of the other's
    /// (at least --min-prefix plies). The stored game stays; the summary counts the twins.
    #[arg(long)]
    skip_twins: bool,
    /// With --skip-twins: fewest plies of a game whose moves start its twin's.
    #[arg(long, default_value_t = tabiya::model::twins::MIN_PREFIX_PLIES as u16, requires = "skip_twins",
        value_parser = crate::cmd::args::digits_in::<u16, 10, { u16::MAX as u64 }>)]
    min_prefix: u16,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let expansion = input::expand(&args.paths, Wanted::Pgn)?;
    for line in expansion.passed_over_lines() {
        eprintln!("tabiya: {line}");
    }
    let files = expansion.files;
    let store = Store::open(&args.db.db)?;
    let rejects = match &args.rejects {
        Some(path) => {
            Some(BufWriter::new(File::create(path).with_context(|| format!("cannot create {}", path.display()))?))
        }
        None => None,
    };
    let mut observer = CliObserver { bar: None, rejects };
    let options = indexer::IngestOptions { skip_twins: args.skip_twins.then_some(usize::from(args.min_prefix)) };
    let summary = indexer::ingest_with(&store, &files, &options, &mut observer)?;
    if let Some(bar) = &observer.bar {
        bar.finish_and_clear();
    }
    if let Some(rejects) = &mut observer.rejects {
        rejects.flush().context("cannot write the rejects file")?;
    }
    print_summary(&summary, &store, args.json)?;
    let clean = summary.run.counts.skipped_total() == 0 && summary.read_errors == 0 && expansion.passed_over.is_empty();
    Ok(if args.strict && !clean { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// Progress on stderr (hidden when stderr is not a terminal), skipped games, rejects file.
struct CliObserver {
    bar: Option<ProgressBar>,
    rejects: Option<BufWriter<File>>,
}

impl CliObserver {
    fn bar(&mut self, total: Option<u64>) -> &ProgressBar {
        self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
            let template = if total.is_some() {
                "{elapsed_precise} [{bar:25}] {binary_bytes}/{binary_total_bytes} {msg}"
            } else {
                "{elapsed_precise} {binary_bytes} {msg}"
            };
            bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        })
    }

    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

impl Observer for CliObserver {
    fn rejected(&mut self, file: &str, rejection: &Rejection, raw: &[u8]) {
        self.say(&format!("tabiya: skipped {file}: {rejection}"));
        if let Some(out) = &mut self.rejects {
            // A write error here surfaces at the final flush.
            let _ = out.write_all(raw).and_then(|()| out.write_all(b"\n\n"));
        }
    }

    fn read_error(&mut self, file: &str, error: &InputError) {
        self.say(&format!("tabiya: cannot read all of {file}: {error}"));
    }

    fn progress(&mut self, progress: &Progress) {
        let bar = self.bar(progress.bytes_total).clone();
        bar.set_position(progress.bytes_read);
        let seconds = bar.elapsed().as_secs_f64().max(1e-3);
        let per_second = |n: u64| HumanCount((n as f64 / seconds) as u64);
        bar.set_message(format!(
            "{} games ({}/s), {} positions ({}/s)",
            HumanCount(progress.games_read),
            per_second(progress.games_read),
            HumanCount(progress.positions_written),
            per_second(progress.positions_written)
        ));
    }
}

fn print_summary(summary: &Summary, store: &Store, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        println!("{}", serde_json::to_string(&IngestSummary::new(summary, store.path()))?);
    } else {
        let bytes: u64 = store.family_bytes()?.iter().map(|(_, b)| b).sum();
        print!("{}", table::ingest(summary, store.path(), bytes));
    }
    Ok(())
}
