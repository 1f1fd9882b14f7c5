//! The in-memory part of ingest on real games (the first games of the players collection, or
//! the file named by `TABIYA_BENCH_PGN`): splitting raw text into games, preparing a game
//! (parse + replay + canonicalise + key every position), sorting a batch's position
//! occurrences (what the writer stages); and the two ways of writing a batch's positions to
//! RocksDB, merge operands in a `WriteBatch` (what formats 1–3 did) against a sorted SST file
//! ingested with `ingest_external_file` (what the bulk path's commit does). Also prints the
//! value bytes per position.
//! `tools/bench/ingest.sh` measures the whole command.
//!
//! `cargo bench --bench ingest`

mod common;

use std::{io::Read as _, time::Duration};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rocksdb::{DB, MemtableFactory, Options, SstFileWriter, WriteBatch, WriteOptions};
use tabiya::{
    indexer::{Prepared, PreparedGame, SortedOccurrences, prepare},
    input::GameSplitter,
    model::{GameFacts, GameId},
    store::layout,
};

/// Games taken from the collection (about 1M position entries: one ingest batch).
const GAMES: usize = 12_000;

fn raw_text() -> Vec<u8> {
    let source = common::games_source();
    let mut text = Vec::new();
    source.reader.take(64 << 20).read_to_end(&mut text).expect("readable input");
    let games: Vec<_> = GameSplitter::new(&text[..]).take(GAMES).map(|g| g.expect("split")).collect();
    games.iter().flat_map(|g| g.text.iter().copied()).collect()
}

fn positions_options() -> Options {
    let mut options = Options::default();
    options.create_if_missing(true);
    options.set_allow_concurrent_memtable_write(false);
    options.set_memtable_factory(MemtableFactory::Vector);
    // Format 3's path wrote merge operands. Each position here gets one operand in a fresh
    // database, so the operator only passes it on (summing stored values would need the games'
    // facts): what is measured is the write path, not the sum.
    options.set_merge_operator_associative("tabiya.position_stats.v3", |_key, existing, operands| {
        match (existing, operands.iter().next(), operands.len()) {
            (None, Some(only), 1) => Some(only.to_vec()),
            _ => None,
        }
    });
    options
}

/// Each position of `games` with its stored value, in key order: a one-game value, or the
/// general layout summed from the games' facts.
fn summed_values(games: &[PreparedGame]) -> Vec<(tabiya::Key, Vec<u8>)> {
    let mut sorted = SortedOccurrences::default();
    sorted.sort(games);
    let facts: std::collections::HashMap<GameId, GameFacts> = games.iter().map(|g| (g.facts.id, g.facts)).collect();
    let occurrences: Vec<_> = sorted.iter(games).collect();
    occurrences
        .chunk_by(|a, b| a.0 == b.0)
        .map(|group| {
            let mut value = Vec::new();
            let plays = group.iter().map(|(_, o)| (o.game, o.next));
            layout::encode_new(plays, |id| facts.get(&id).copied(), &mut value).expect("facts of every game");
            (group[0].0, value)
        })
        .collect()
}

fn ingest(c: &mut Criterion) {
    let text = raw_text();
    let raw: Vec<_> = GameSplitter::new(&text[..]).map(|g| g.expect("split")).collect();
    let mut prepared: Vec<_> = raw
        .iter()
        .cloned()
        .filter_map(|g| match prepare(g, |_| false) {
            Prepared::Game(game) => Some(*game),
            Prepared::Rejected { .. } | Prepared::Stored => None,
        })
        .collect();
    for (index, game) in prepared.iter_mut().enumerate() {
        game.facts.id = GameId(index as u64 + 1);
    }
    let occurrences: usize = prepared.iter().map(|g| g.positions.len()).sum();
    let summed = summed_values(&prepared);
    let hand: usize = summed.iter().map(|(_, value)| value.len()).sum();
    println!(
        "{} games, {} bytes, {occurrences} position entries, {} distinct; value bytes per position: {:.2}",
        raw.len(),
        text.len(),
        summed.len(),
        hand as f64 / summed.len() as f64
    );

    let mut group = c.benchmark_group("ingest");
    group.measurement_time(Duration::from_secs(10)).sample_size(10);
    group.throughput(Throughput::Elements(raw.len() as u64));
    group.bench_function("split", |b| b.iter(|| GameSplitter::new(&text[..]).count()));
    group.bench_function("prepare", |b| {
        b.iter_batched(
            || raw.clone(),
            |raw| raw.into_iter().map(|g| prepare(g, |_| false)).collect::<Vec<_>>(),
            BatchSize::LargeInput,
        )
    });
    let mut sorted = SortedOccurrences::default();
    group.bench_function("sort_occurrences", |b| {
        b.iter(|| {
            sorted.sort(&prepared);
            sorted.len()
        })
    });
    group.finish();

    // Writing one summed batch (and flushing it to an SST file) both ways, into a fresh database.
    let mut group = c.benchmark_group("write_batch");
    group.measurement_time(Duration::from_secs(15)).sample_size(10);
    group.throughput(Throughput::Elements(summed.len() as u64));
    group.bench_function("merge_operands_then_flush", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let db = DB::open(&positions_options(), dir.path()).expect("open");
                let mut batch = WriteBatch::default();
                for (key, value) in &summed {
                    batch.merge(key.as_bytes(), value);
                }
                let mut write = WriteOptions::default();
                write.disable_wal(true);
                db.write_opt(batch, &write).expect("write");
                db.flush().expect("flush");
                dir
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("sst_file_then_ingest", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let options = positions_options();
                let db = DB::open(&options, dir.path().join("db")).expect("open");
                let sst = dir.path().join("batch.sst");
                let mut writer = SstFileWriter::create(&options);
                writer.open(&sst).expect("sst open");
                for (key, value) in &summed {
                    writer.merge(key.as_bytes(), value).expect("sst merge");
                }
                writer.finish().expect("sst finish");
                db.ingest_external_file(vec![&sst]).expect("ingest");
                dir
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
