//! Encode/decode speed of the key and the Huffman code on real positions: every position of the
//! first games of the players collection (`../shared/datasets/players.pgn.zst`, or the file named
//! by `TABIYA_BENCH_PGN`). Also prints the Huffman bits/position mean and max over them. The
//! same positions as Chess960's (the games played from start position 518) and as Antichess's
//! (the same boards without castling rights, under Antichess's own code) are keyed and decoded
//! beside them, for the cost of those key spaces. The annotations code encodes and decodes the
//! games of `tests/data/annotated-*.pgn` (Stockfish's evaluations with lichess's clocks, Arena's
//! and TCEC's comments), and games of random evaluations and clocks (`annotations_noisy`: most
//! bits at even odds, as in the comment-heavy benchmark file).
//!
//! `cargo bench --bench codec`

mod common;

use std::{hint::black_box, time::Duration};

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime};
use tabiya::{
    Key, Position,
    codec::{KeyEncoder, huffman},
    model::{Eval, GameAnnotations, MoveAnnotation},
    position::Variant,
};

/// Games read for the benchmark positions (about 80 positions each).
const GAMES: usize = 2_000;

fn codec(c: &mut Criterion) {
    let positions = common::first_positions(GAMES);
    let keys: Vec<Key> = positions.iter().map(|p| Key::encode(p).expect("real positions encode")).collect();
    let packed: Vec<Vec<u8>> = positions.iter().map(|p| huffman::encode(p).bytes).collect();
    let bits: Vec<usize> = positions.iter().map(|p| huffman::encode(p).bits).collect();
    println!(
        "{} positions from {GAMES} games; huffman bits/position mean {:.1}, max {}",
        positions.len(),
        bits.iter().sum::<usize>() as f64 / bits.len() as f64,
        bits.iter().max().unwrap_or(&0)
    );

    let mut group = c.benchmark_group("codec");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    group.sample_size(20);
    // Through the thread's encoder, which keeps the frames of the blocks it met.
    group.bench_function("key_encode", |b| {
        b.iter(|| positions.iter().map(|p| Key::encode(black_box(p)).is_ok() as u32).sum::<u32>())
    });
    // Each position by a fresh encoder: what keying costs with no frame kept.
    group.bench_function("key_encode_alone", |b| {
        b.iter(|| positions.iter().map(|p| KeyEncoder::default().encode(black_box(p)).is_ok() as u32).sum::<u32>())
    });
    // In game order, as ingest keys them: one encoder keeps the material block between positions.
    group.bench_function("key_encode_in_game_order", |b| {
        b.iter(|| {
            let mut encoder = KeyEncoder::default();
            positions.iter().map(|p| encoder.encode(black_box(p)).is_ok() as u32).sum::<u32>()
        })
    });
    group.bench_function("key_decode", |b| {
        b.iter(|| keys.iter().map(|k| black_box(k).decode().is_ok() as u32).sum::<u32>())
    });
    // The same boards in Chess960's space (castling rights on the corners, kings on e1/e8), and
    // in Antichess's, its own code (no castling rights).
    bench_variant(&mut group, &positions, Variant::Chess960, "chess960");
    bench_variant(&mut group, &positions, Variant::Antichess, "antichess");
    group.bench_function("huffman_encode", |b| {
        b.iter(|| positions.iter().map(|p| huffman::encode(black_box(p)).bits).sum::<usize>())
    });
    group.bench_function("huffman_decode", |b| {
        b.iter(|| packed.iter().map(|p| huffman::decode(black_box(p)).is_ok() as u32).sum::<u32>())
    });
    group.finish();
}

/// `positions`' boards as `variant`'s positions, keyed in game order and decoded
/// (`key_encode_in_game_order_NAME`, `key_decode_NAME`): the cost of the variant's key space.
fn bench_variant(group: &mut BenchmarkGroup<'_, WallTime>, positions: &[Position], variant: Variant, name: &str) {
    let boards: Vec<Position> = positions
        .iter()
        .map(|p| {
            let setup = shakmaty::Position::to_setup(p.shakmaty(), shakmaty::EnPassantMode::Legal);
            Position::from_setup_in(variant, setup, "bench").expect("a standard position is one of the variant's")
        })
        .collect();
    let keys: Vec<Key> = boards.iter().map(|p| Key::encode(p).expect("the variant's positions encode")).collect();
    group.bench_function(format!("key_encode_in_game_order_{name}"), |b| {
        b.iter(|| {
            let mut encoder = KeyEncoder::default();
            boards.iter().map(|p| encoder.encode(black_box(p)).is_ok() as u32).sum::<u32>()
        })
    });
    group.bench_function(format!("key_decode_{name}"), |b| {
        b.iter(|| keys.iter().map(|k| black_box(k).decode().is_ok() as u32).sum::<u32>())
    });
}

fn annotations(c: &mut Criterion) {
    let mut games = Vec::new();
    for shape in ["lichess", "arena", "tcec"] {
        let path = format!("{}/tests/data/annotated-{shape}.pgn", env!("CARGO_MANIFEST_DIR"));
        let file = std::fs::File::open(&path).expect("the annotated test games");
        tabiya::input::read_games(file, |game| games.extend(game.ok().and_then(|game| game.annotations)))
            .expect("readable");
    }
    annotations_group(c, "annotations", &games);
    annotations_group(c, "annotations_noisy", &noisy_games(64, 80));
}

/// Games whose evaluations and clocks are random, as `tools/data/commented-pgn.py` writes them:
/// columns much noisier than real games', most of their bits at even odds.
fn noisy_games(games: usize, plies: usize) -> Vec<GameAnnotations> {
    // A fixed xorshift sequence: the same games every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    (0..games)
        .map(|_| GameAnnotations {
            moves: (0..plies)
                .map(|_| MoveAnnotation {
                    eval: Some(Eval::Centipawns(random(601) as i32 - 300)),
                    clock_centis: Some(random(3600) as u32 * 100),
                    elapsed_centis: None,
                })
                .collect(),
        })
        .collect()
}

fn annotations_group(c: &mut Criterion, name: &str, games: &[GameAnnotations]) {
    let codes: Vec<Vec<u8>> = games.iter().map(|game| game.encode().expect("annotated")).collect();
    let plies: usize = games.iter().map(|game| game.moves.len()).sum();
    let bytes: usize = codes.iter().map(Vec::len).sum();
    println!("{name}: {} annotated games, {plies} plies, {bytes} bytes coded", games.len());
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(plies as u64));
    group.sample_size(20);
    group.bench_function("encode", |b| {
        b.iter(|| games.iter().map(|game| game.encode().map_or(0, |c| c.len())).sum::<usize>())
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            codes
                .iter()
                .zip(games)
                .filter(|(code, game)| GameAnnotations::decode(code, game.moves.len()).is_some())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, codec, annotations);
criterion_main!(benches);
