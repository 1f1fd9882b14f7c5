//! What the benchmarks share: the collection they read.
#![allow(dead_code)]

use std::path::PathBuf;

use tabiya::{
    Key, Position,
    explore::ResolvedTarget,
    indexer,
    input::{Source, read_games},
    store::{Store, meta::FORMAT_VERSION},
};

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

/// Every mainline position of the first `games` benchmark games (about 80 a game).
pub fn first_positions(games: usize) -> Vec<Position> {
    let mut positions = Vec::new();
    let mut read = 0;
    read_games(games_source().reader, |game| {
        if read < games {
            read += 1;
            if let Ok(game) = game {
                positions.extend(game.mainline().map(|(position, _)| position));
            }
        }
    })
    .expect("readable PGN");
    positions
}

/// A database of the benchmark games, read-only: `TABIYA_BENCH_DB`, else one built once under
/// target/ (about a minute). Under `TABIYA_MEMORY`'s budget when it names one, as the command
/// line's.
pub fn players_db() -> Store {
    Store::open_read_only(&players_db_path()).expect("benchmark database")
}

/// Where [`players_db`] is, built when it is missing; the budget set.
pub fn players_db_path() -> PathBuf {
    if let Some(size) = std::env::var_os("TABIYA_MEMORY").filter(|size| !size.is_empty()) {
        let size = size.to_str().map(tabiya::store::parse_size).unwrap_or_else(|| Err("not text".to_owned()));
        size.and_then(tabiya::store::set_memory_budget).unwrap_or_else(|err| panic!("TABIYA_MEMORY: {err}"));
    }
    let path = std::env::var_os("TABIYA_BENCH_DB").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/bench-db-players-v{FORMAT_VERSION}"))
    });
    if !path.join("CURRENT").exists() {
        eprintln!("building the benchmark database at {}", path.display());
        let store = Store::open(&path).expect("benchmark database");
        indexer::ingest(&store, &[games_path()], &mut indexer::SilentObserver).expect("ingest");
    }
    path
}

/// (class, target) pairs of the lookups' mix: one position per class (an opening's, plies 2–8;
/// a middlegame's, plies 20–40; a rare one, ply 60) from every 100th of the first 100k games.
pub fn mix() -> Vec<(&'static str, ResolvedTarget)> {
    let mut targets = Vec::new();
    let mut number = 0;
    let source = games_source();
    let _ = read_games(source.reader, |game| {
        number += 1;
        let Ok(game) = game else { return };
        if number % 100 != 0 || number > 100_000 {
            return;
        }
        let positions: Vec<_> = game.mainline().map(|(position, _)| position).collect();
        for (class, ply) in [("opening", 2 + number / 100 % 7), ("middlegame", 20 + number / 100 % 21), ("rare", 60)] {
            if let Some(position) = positions.get(ply) {
                let key = Key::encode(position).expect("keyable");
                targets.push((class, ResolvedTarget { position: position.clone(), key, line: Vec::new() }));
            }
        }
    });
    targets
}
