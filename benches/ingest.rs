//! The in-memory part of ingest on real games (the first games of the players collection, or
//! the file named by `TABIYA_BENCH_PGN`): splitting raw text into games, preparing a game
//! (parse + replay + canonicalise + key every position), and summing a batch's positions.
//! `tools/ingest-bench.sh` measures the whole command, RocksDB included.
//!
//! `cargo bench --bench ingest`

use std::{io::Read as _, path::PathBuf, time::Duration};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use tabiya::{
    indexer::{Prepared, prepare, sum_positions},
    ingest::{GameSplitter, Source},
};

/// Games taken from the collection.
const GAMES: usize = 4_000;

fn raw_text() -> Vec<u8> {
    let path = std::env::var_os("TABIYA_BENCH_PGN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets/players.pgn.zst"));
    let source = Source::open(&path, None).unwrap_or_else(|e| panic!("benchmark games: {e:#}"));
    let mut text = Vec::new();
    source.reader.take(64 << 20).read_to_end(&mut text).expect("readable input");
    let games: Vec<_> = GameSplitter::new(&text[..]).take(GAMES).map(|g| g.expect("split")).collect();
    games.iter().flat_map(|g| g.text.iter().copied()).collect()
}

fn ingest(c: &mut Criterion) {
    let text = raw_text();
    let raw: Vec<_> = GameSplitter::new(&text[..]).map(|g| g.expect("split")).collect();
    let prepared: Vec<_> = raw
        .iter()
        .cloned()
        .filter_map(|g| match prepare(g) {
            Prepared::Game(game) => Some(*game),
            Prepared::Rejected { .. } => None,
        })
        .collect();
    let positions: usize = prepared.iter().map(|g| g.positions.len()).sum();
    println!("{} games, {} bytes, {positions} position entries", raw.len(), text.len());

    let mut group = c.benchmark_group("ingest");
    group.measurement_time(Duration::from_secs(10)).sample_size(10);
    group.throughput(Throughput::Elements(raw.len() as u64));
    group.bench_function("split", |b| b.iter(|| GameSplitter::new(&text[..]).count()));
    group.bench_function("prepare", |b| {
        b.iter_batched(|| raw.clone(), |raw| raw.into_iter().map(prepare).count(), BatchSize::LargeInput)
    });
    group.bench_function("sum_positions", |b| b.iter(|| sum_positions(&prepared).len()));
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
