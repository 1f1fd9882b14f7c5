//! The `tabiya` command line: a thin layer over the library.

mod allocator;
mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc, or glibc's malloc under a memory budget ([`allocator`]).
#[global_allocator]
static ALLOCATOR: allocator::Heap = allocator::Heap;

/// tabiya: a chess position database indexing engine.
#[derive(Parser)]
#[command(version, about, propagate_version = true)]
struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Bound the memory of RocksDB's block cache and memtables and of the games an ingest keeps
    /// in flight (e.g. 512M, 2G; at least 160M); without it they take about 1G at most.
    #[arg(long, global = true, value_name = "SIZE", env = "TABIYA_MEMORY", value_parser = tabiya::store::parse_size)]
    memory: Option<u64>,
    /// Worker threads for ingest, scans and reports, a server's scans included (default: one a
    /// core); RocksDB's flushes and compactions take half as many, at least 2 and at most 16.
    #[arg(long, global = true, value_name = "N", env = "TABIYA_THREADS", value_parser = cmd::args::digits_in::<u16, 1, 1024>)]
    threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ingest the embedded sample games into a temporary database and query a position.
    Demo(cmd::demo::Args),
    /// Index PGN collections into the database.
    Ingest(cmd::ingest::Args),
    /// What an opening explorer shows for a position: results, next moves, games; filters.
    Query(cmd::query::Args),
    /// The games that reached a position or any position matching a pattern: listed, paged, combined, as JSON or PGN.
    Games(cmd::games::Args),
    /// Positions with a given material or matching a pattern, most frequent first, with their games.
    Search(cmd::search::Args),
    /// Exports: a Polyglot opening book, positions with their statistics as EPD, CSV or Parquet.
    #[command(subcommand)]
    Export(cmd::export::Command),
    /// Players by any spelling: the names a player filter matches.
    #[command(subcommand)]
    Players(cmd::players::Command),
    /// Opening names: import a table.
    #[command(subcommand)]
    Openings(cmd::openings::Command),
    /// Piece-square tables: derive them from the database, factorise them into bitboard components.
    #[command(subcommand)]
    Psqt(cmd::psqt::Command),
    /// Reports as HTML, JSON or CSV: an opening, a player, the database, piece-square tables.
    #[command(subcommand)]
    Report(cmd::report::Command),
    /// Serve the explorer page (open http://ADDR/ in a browser) and the HTTP API (lichess opening
    /// explorer compatible).
    Serve(cmd::serve::Args),
    /// The games stored more than once (players spelled otherwise, another round, a copy cut
    /// short), in groups with the reason for each pair.
    Twins(cmd::twins::Args),
    /// Copy the database consistently (for a replica), while it may be ingesting.
    Checkpoint(cmd::checkpoint::Args),
    /// Check every table file's checksums and the database's invariants against its games;
    /// exits 1 when anything is wrong.
    Verify(cmd::verify::Args),
    /// Show what the database holds: games, positions, bytes per column family and per
    /// position and game, ingest runs.
    Stats(cmd::stats::Args),
    /// Print the key of a position (FEN), or decode a key (--decode HEX).
    Key(cmd::key::Args),
    /// Codec tools.
    #[command(subcommand)]
    Codec(CodecCommand),
}

#[derive(Subcommand)]
enum CodecCommand {
    /// Round-trip every position of EPD/FEN lists or PGN collections through both codecs.
    Check(cmd::check::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    if let Some(bytes) = cli.memory {
        if let Err(err) = tabiya::store::set_memory_budget(bytes) {
            eprintln!("tabiya: --memory: {err}");
            return ExitCode::FAILURE;
        }
        allocator::bound_to_budget();
    } else if matches!(cli.command, Command::Ingest(_)) {
        allocator::keep_freed_pages();
    }
    // Named threads, for top and profilers; only fails if a pool was built already.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(cli.threads.map_or(0, usize::from))
        .thread_name(|i| format!("tabiya-work-{i}"))
        .build_global();
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args),
        Command::Ingest(args) => cmd::ingest::run(args),
        Command::Query(args) => cmd::query::run(args),
        Command::Games(args) => cmd::games::run(args),
        Command::Search(args) => cmd::search::run(args),
        Command::Export(command) => cmd::export::run(command),
        Command::Openings(command) => cmd::openings::run(command),
        Command::Players(command) => cmd::players::run(command),
        Command::Psqt(command) => cmd::psqt::run(command),
        Command::Report(command) => cmd::report::run(command),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Twins(args) => cmd::twins::run(args),
        Command::Checkpoint(args) => cmd::checkpoint::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Key(args) => cmd::key::run(args),
        Command::Codec(CodecCommand::Check(args)) => cmd::check::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tabiya: {}", cmd::message(&err));
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr: warnings by default, more with -v, or as RUST_LOG says.
fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}
