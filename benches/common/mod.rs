//! What the benchmarks share: the collection they read.
#![allow(dead_code)]

use std::path::PathBuf;

use tabiya::ingest::Source;

/// The benchmark games' file: `TABIYA_BENCH_PGN`, else the shared players collection beside the
/// checkout.
pub fn games_path() -> PathBuf {
    std::env::var_os("TABIYA_BENCH_PGN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets/players.pgn.zst"))
}

/// The benchmark games, opened.
pub fn games_source() -> Source {
    Source::open(&games_path(), None).unwrap_or_else(|e| panic!("benchmark games: {e:#}"))
}
