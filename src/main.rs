//! The `tabiya` command line: a thin layer over the library.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc instead of the system allocator: ingest allocates per game and per position across
/// threads, where glibc's malloc cost a measurable share of the CPU (docs/DECISIONS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tabiya: a chess position database indexing engine.
#[derive(Parser)]
#[command(version, about, propagate_version = true)]
struct Cli {
    /// More log output on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Bound the memory of RocksDB's block cache and memtables and of the games an ingest keeps
    /// in flight (e.g. 512M, 2G; at least 160M); without it they take about 1G at most.
    #[arg(long, global = true, value_name = "SIZE", env = "TABIYA_MEMORY", value_parser = cmd::args::parse_size)]
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
    limit_allocator_reservations();
    let cli = Cli::parse();
    init_logging(cli.verbose);
    if let Some(bytes) = cli.memory {
        if let Err(err) = tabiya::store::set_memory_budget(bytes) {
            eprintln!("tabiya: --memory: {err}");
            return ExitCode::FAILURE;
        }
        purge_freed_memory_at_once();
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

/// mimalloc's `mi_option_arena_reserve` (include/mimalloc.h; the crate names no constant), in
/// KiB.
const MI_OPTION_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// mimalloc's `mi_option_purge_delay`, in milliseconds.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the allocators' reservations of address space near what they use, so that a command
/// runs under an address-space limit (a container's, `ulimit -v`, `prlimit --as`):
/// - RocksDB's C++ allocates with glibc's malloc, which gives each thread that allocates an
///   arena of its own, reserving 64 MiB apiece: two arenas suffice.
/// - mimalloc reserves its arenas 1 GiB at a time; at 32 MiB, a large block that cannot be
///   placed in the arenas reserved takes an arena of its size, not a gigabyte that the limit
///   refuses (an ingest aborted under 800 MB with a budget of 256M).
fn limit_allocator_reservations() {
    // SAFETY: both are called before any thread is started; mimalloc's options are plain
    // numbers read when it next reserves.
    unsafe {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_RESERVE, 32 << 10);
    }
}

/// Under a memory budget, mimalloc gives freed pages back to the system at once instead of a
/// second later: an ingest's commits free and take hundreds of megabytes within that second
/// (players with `--memory 256M`: 337 MB at the peak instead of 445, 1.09 times the time).
fn purge_freed_memory_at_once() {
    // SAFETY: a plain number mimalloc reads when it next frees.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
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

#[cfg(test)]
mod tests {
    /// The option set is the arenas' reservation: its default is 1 GiB, in KiB (the index is
    /// an enum's place in mimalloc's header, which a new version could move).
    #[test]
    fn the_option_set_is_mimallocs_arena_reservation() {
        // SAFETY: reads an option.
        let reserve = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_ARENA_RESERVE) };
        assert_eq!(reserve, 1 << 20);
        // SAFETY: reads an option.
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000, "mimalloc's purge delay, 1 s by default");
    }
}
