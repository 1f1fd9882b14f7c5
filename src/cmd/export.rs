//! `tabiya export`: a Polyglot opening book (`book`), distinct positions with their statistics
//! as EPD or CSV (`positions`).

use std::{
    fs::File,
    io::{BufWriter, IsTerminal as _, Write},
    path::PathBuf,
    process::ExitCode,
    sync::atomic::{AtomicU64, Ordering},
    time::Instant,
};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget};
use tabiya::{
    explore::{PositionRows, Signature, parse_color},
    export::{BookOptions, BookWeight, PositionExport, PositionFormat},
    pattern::Pattern,
    store::{ScanProgress, Store},
};

use super::args::{DbArgs, FilterArgs, TargetArgs};

#[derive(clap::Subcommand)]
pub enum Command {
    /// A Polyglot opening book (.bin) of the moves played from a position (the initial one by
    /// default), as engines and GUIs read it.
    Book(Box<BookArgs>),
    /// Distinct positions with their games and results, as EPD (c0: counts, c9: White's score),
    /// CSV or Parquet, filtered by material, pattern or side to move.
    Positions(PositionArgs),
}

#[derive(clap::Args)]
pub struct BookArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Where the book starts: the initial position unless given.
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    filter: FilterArgs,
    /// The book file to write.
    #[arg(long, short)]
    output: PathBuf,
    /// Fewest games that played a move for it to go in the book (and be followed).
    #[arg(value_parser = crate::cmd::args::digits::<u64>, long, default_value_t = 3)]
    min_games: u64,
    /// Deepest position whose moves go in, in plies from the start.
    #[arg(value_parser = crate::cmd::args::digits::<u32>, long, value_name = "PLY")]
    max_ply: Option<u32>,
    /// Only this side's moves (white or black); the other side's moves are still followed.
    #[arg(long, value_name = "COLOR")]
    only: Option<String>,
    /// Lowest score of the side to move with a move, in percent (win 100, draw 50).
    #[arg(long, value_name = "PERCENT")]
    min_score: Option<f64>,
    /// How moves are weighed: score (2 a win, 1 a draw, as Polyglot), games, or uniform.
    #[arg(long, default_value = "score", value_parser = ["score", "games", "uniform"])]
    weight: String,
}

#[derive(clap::Args)]
pub struct PositionArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Only positions with this material signature (KRPPvKR, KRP*vKRP*).
    #[arg(long)]
    material: Option<String>,
    /// Only positions matching this pattern (grammar in docs/GUIDE.md).
    #[arg(long)]
    pattern: Option<String>,
    /// Only positions with this side to move (w or b).
    #[arg(long)]
    side: Option<String>,
    /// The positions exported: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess (Chess960's FENs in X-FEN).
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    variant: tabiya::position::Variant,
    /// Fewest games a position needs.
    #[arg(value_parser = crate::cmd::args::digits::<u64>, long, default_value_t = 1)]
    min_games: u64,
    /// epd, csv or parquet (parquet needs -o).
    #[arg(long, default_value = "epd", value_parser = ["epd", "csv", "parquet"])]
    format: String,
    /// The file to write (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Book(args) => book(*args),
        Command::Positions(args) => positions(args),
    }
}

fn book(args: BookArgs) -> anyhow::Result<ExitCode> {
    let options = BookOptions {
        root: args.target.resolve()?.position,
        filter: args.filter.filter()?,
        min_games: args.min_games,
        max_ply: args.max_ply,
        only: args.only.as_deref().map(parse_color).transpose()?,
        min_score: args.min_score,
        weight: match args.weight.as_str() {
            "games" => BookWeight::Games,
            "uniform" => BookWeight::Uniform,
            _ => BookWeight::Score,
        },
    };
    let store = Store::open_read_only(&args.db.db)?;
    let started = Instant::now();
    let progress = ScanProgress::default();
    let book = with_spinner("positions", &progress.passed, || options.make(&store, &progress))?;
    std::fs::write(&args.output, book.to_bytes()).with_context(|| format!("writing {}", args.output.display()))?;
    eprintln!(
        "tabiya: wrote {}: {} entries for {} positions ({} visited) in {:.1} s",
        args.output.display(),
        book.entries.len(),
        book.positions_with_moves,
        book.positions,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

fn positions(args: PositionArgs) -> anyhow::Result<ExitCode> {
    let export = PositionExport {
        rows: PositionRows {
            pattern: args.pattern.as_deref().map(str::parse::<Pattern>).transpose()?,
            material: args.material.as_deref().map(str::parse::<Signature>).transpose()?,
            side: args.side.as_deref().map(parse_color).transpose()?,
            variant: args.variant,
        },
        min_games: args.min_games,
        format: match args.format.as_str() {
            "csv" => PositionFormat::Csv,
            "parquet" => PositionFormat::Parquet,
            _ => PositionFormat::Epd,
        },
    };
    if export.format == PositionFormat::Parquet && args.output.is_none() {
        anyhow::bail!("--format parquet writes a file: give -o FILE");
    }
    let store = Store::open_read_only(&args.db.db)?;
    let out: Box<dyn Write + Send> = match &args.output {
        Some(path) => {
            Box::new(File::create(path).with_context(|| format!("creating {}", path.display())).map(BufWriter::new)?)
        }
        None => Box::new(BufWriter::new(std::io::stdout())),
    };
    let parts_done = AtomicU64::new(0);
    let written = with_spinner("parts", &parts_done, || {
        export.write(&store, out, |done, _| parts_done.store(done as u64, Ordering::Relaxed))
    });
    let summary = match written {
        Err(tabiya::export::ExportError::Write(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => {
            return Ok(ExitCode::SUCCESS);
        }
        written => written?,
    };
    if let Some(path) = &args.output {
        eprintln!(
            "tabiya: wrote {}: {} positions ({} games over them)",
            path.display(),
            summary.positions,
            summary.occurrences
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `work` with a spinner counting `count` on a terminal.
fn with_spinner<T>(what: &str, count: &AtomicU64, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    super::progress::while_counting(bar, &format!("{{elapsed_precise}} {{spinner}} {{human_pos}} {what}"), count, work)
}
