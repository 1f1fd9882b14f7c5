//! What the benchmarks share: the collection they read.

use tabiya::ingest::Source;

/// The benchmark games: `TABIYA_BENCH_PGN`, else the shared players collection beside the checkout.
pub fn games_source() -> Source {
    let path = std::env::var_os("TABIYA_BENCH_PGN").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets/players.pgn.zst")
    });
    Source::open(&path, None).unwrap_or_else(|e| panic!("benchmark games: {e:#}"))
}
