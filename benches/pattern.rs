//! Pattern search per position: decoding a stored key into bitboards (against the validating
//! decode; alone and through the scan's decoder in key order), building the vector-attack board, the attack predicates (attackers of every square,
//! checkers, pins) next to shakmaty's equivalents, and whole patterns. Positions: every position
//! of the first games of the players collection (`../shared/datasets/players.pgn.zst`, or the
//! file named by `TABIYA_BENCH_PGN`).
//!
//! `cargo bench --bench pattern`

mod common;

use std::{hint::black_box, time::Duration};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Color, Position as _, Square};
use tabiya::{
    Key,
    codec::{KeyBoard, KeyDecoder},
    pattern::{Pattern, Scene, attacks::VectorBoard},
};

/// Games read for the benchmark positions (about 80 positions each).
const GAMES: usize = 2_000;

/// The distinct keys of those games' positions, in key order (as a scan meets them).
fn keys() -> Vec<Key> {
    let mut keys: Vec<Key> = common::first_positions(GAMES).iter().filter_map(|p| Key::encode(p).ok()).collect();
    keys.sort();
    keys.dedup();
    keys
}

fn pattern(c: &mut Criterion) {
    let keys = keys();
    let boards: Vec<KeyBoard> = keys.iter().filter_map(|k| k.decode_board(|_, _| true).ok().flatten()).collect();
    let chess: Vec<_> = keys.iter().filter_map(|k| k.decode().ok()?.as_chess().cloned()).collect();
    let vectors: Vec<VectorBoard> =
        boards.iter().map(|b| VectorBoard::from_bitboards(&b.by_role, &b.by_color)).collect();
    println!("{} distinct positions from {GAMES} games", keys.len());

    let mut group = c.benchmark_group("pattern");
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.measurement_time(Duration::from_secs(6));
    group.sample_size(20);
    group.bench_function("key_decode_validated", |b| {
        b.iter(|| keys.iter().map(|k| black_box(k).decode().is_ok() as u32).sum::<u32>())
    });
    group.bench_function("key_decode_board", |b| {
        b.iter(|| keys.iter().map(|k| black_box(k).decode_board(|_, _| true).is_ok() as u32).sum::<u32>())
    });
    group.bench_function("key_decoder_in_key_order", |b| {
        b.iter(|| {
            let mut decoder = KeyDecoder::default();
            keys.iter().map(|k| decoder.decode(black_box(k), |_, _| true).is_ok() as u32).sum::<u32>()
        })
    });
    group.bench_function("vector_board_build", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|k| {
                    black_box(VectorBoard::from_bitboards(&k.by_role, &k.by_color)).king(Color::White).is_some() as u32
                })
                .sum::<u32>()
        })
    });
    group.bench_function("vector_attackers_all_squares", |b| {
        b.iter(|| {
            vectors
                .iter()
                .map(|v| {
                    Square::ALL
                        .iter()
                        .map(|&sq| v.attackers(sq, Color::White).count() + v.attackers(sq, Color::Black).count())
                        .sum::<usize>()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("shakmaty_attackers_all_squares", |b| {
        b.iter(|| {
            chess
                .iter()
                .map(|p| {
                    let board = p.board();
                    Square::ALL
                        .iter()
                        .map(|&sq| {
                            board.attacks_to(sq, Color::White, board.occupied()).count()
                                + board.attacks_to(sq, Color::Black, board.occupied()).count()
                        })
                        .sum::<usize>()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("vector_checkers_and_pinned", |b| {
        b.iter(|| {
            vectors.iter().map(|v| v.checkers(Color::White).count() + v.pinned(Color::White).count()).sum::<usize>()
        })
    });
    group.bench_function("shakmaty_checkers", |b| b.iter(|| chess.iter().map(|p| p.checkers().count()).sum::<usize>()));
    group.bench_function("vector_pins", |b| b.iter(|| vectors.iter().map(|v| v.pins().len()).sum::<usize>()));
    for text in
        ["wtm", "pin(B, n, k)", "check", "attacks(N, q) or attacks(n, Q)", "passed(P) and count(p) <= 4", "mate"]
    {
        let pattern: Pattern = text.parse().expect("pattern");
        // As a scan meets them: keys in order through one decoder.
        group.bench_function(format!("decode_and_match {text}"), |b| {
            b.iter(|| {
                let mut decoder = KeyDecoder::default();
                keys.iter()
                    .filter_map(|k| decoder.decode(k, |_, _| true).ok().flatten())
                    .filter(|board| pattern.matches(&mut Scene::of_key_board(board)))
                    .count()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, pattern);
criterion_main!(benches);
