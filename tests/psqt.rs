//! Piece-square tables checked against independent computations: derived occupancy, scores and
//! the fit's loss against a naive replay of generated games; factorisations against planted
//! solutions, their own packed form, the real-valued floor, and PeSTO's published tables.

use crate::common;

use std::collections::BTreeSet;

use common::{
    Lcg, datasets,
    games::{Game, build, generate, positions, year},
};
use shakmaty::{Chess, Color, Position as _};
use tabiya::{
    explore::{
        Filter,
        psqt::{DeriveOptions, ENDGAME_PHASE},
    },
    psqt::{FactoriseOptions, GamePhase, PieceTables, TABLES, factorise, is_masked, tables::table_index},
};

/// White wins, draws, Black wins of a set of games (unknown results left out).
fn results(games: &[Game], set: &BTreeSet<usize>) -> [u64; 3] {
    let mut counts = [0; 3];
    for &i in set {
        match games[i].result {
            "1-0" => counts[0] += 1,
            "1/2-1/2" => counts[1] += 1,
            "0-1" => counts[2] += 1,
            _ => {}
        }
    }
    counts
}

pub(crate) fn naive_phase(chess: &Chess) -> u32 {
    let board = chess.board();
    let minor = (board.knights() | board.bishops()).count() as u32;
    (minor + 2 * board.rooks().count() as u32 + 4 * board.queens().count() as u32).min(24)
}

/// White's tapered evaluation under `tables`.
fn naive_eval(tables: &PieceTables, chess: &Chess) -> f64 {
    let phase = f64::from(naive_phase(chess));
    chess
        .board()
        .iter()
        .map(|(square, piece)| {
            let own = if piece.color == Color::White { square } else { square.flip_vertical() } as usize;
            let worth = |p: GamePhase| {
                let t = table_index(piece.role, p);
                f64::from(tables.values[t] + tables.squares[t][own])
            };
            let value = (phase * worth(GamePhase::Middlegame) + (24.0 - phase) * worth(GamePhase::Endgame)) / 24.0;
            if piece.color == Color::White { value } else { -value }
        })
        .sum()
}

#[test]
fn derived_statistics_match_a_naive_replay() {
    let games = generate(240);
    let (_dir, store) = build(&games);
    for since in [None, Some(2005)] {
        let counted = |i: &usize| since.is_none_or(|year_from| year(*i) >= year_from);
        let filter = Filter::default().with_dates(since.map(|y| y.to_string()).as_deref(), None).unwrap();
        let derived = tabiya::explore::psqt::derive(
            &store,
            &DeriveOptions { filter, sample: 0, seed: 3, ..DeriveOptions::default() },
        )
        .unwrap();
        let mut occurrences = [[0u64; 64]; TABLES];
        let mut half_points = [[0u64; 64]; TABLES];
        let (mut positions_used, mut total, mut squared) = (0u64, 0u64, 0.0f64);
        for (chess, set) in positions(&games).values() {
            let set: BTreeSet<usize> = set.iter().copied().filter(counted).collect();
            let [white, draws, black] = results(&games, &set);
            let n = white + draws + black;
            if n == 0 {
                continue;
            }
            positions_used += 1;
            total += n;
            let phase = GamePhase::ALL[usize::from(naive_phase(chess) <= ENDGAME_PHASE)];
            for (square, piece) in chess.board() {
                let (own, points) = match piece.color {
                    Color::White => (square, 2 * white + draws),
                    Color::Black => (square.flip_vertical(), 2 * black + draws),
                };
                occurrences[table_index(piece.role, phase)][own as usize] += n;
                half_points[table_index(piece.role, phase)][own as usize] += points;
            }
            let p = 1.0 / (1.0 + 10f64.powf(-naive_eval(&derived.fit.tables, chess) / 400.0));
            squared += white as f64 * (1.0 - p).powi(2) + draws as f64 * (0.5 - p).powi(2) + black as f64 * p * p;
        }
        assert!(positions_used > 1000, "{positions_used}");
        assert_eq!(derived.occupancy.occurrences, occurrences, "since {since:?}");
        assert_eq!(derived.occupancy.half_points, half_points, "since {since:?}");
        assert_eq!((derived.positions, derived.occurrences), (positions_used, total));
        assert_eq!((derived.fit.positions, derived.fit.occurrences), (positions_used, total));
        let loss = squared / total as f64;
        assert!((derived.fit.loss - loss).abs() < 1e-9, "{} vs {loss}", derived.fit.loss);
        // Fitted in sample, the tables must beat material alone.
        assert!(derived.fit.loss < derived.fit.material_loss, "{} vs {}", derived.fit.loss, derived.fit.material_loss);
    }
}

#[test]
fn the_fit_sample_is_fixed_by_the_seed() {
    let games = generate(120);
    let (_dir, store) = build(&games);
    let derive = |sample, seed| {
        tabiya::explore::psqt::derive(&store, &DeriveOptions { sample, seed, ..DeriveOptions::default() }).unwrap()
    };
    let a = derive(500, 7);
    assert_eq!(a.fit.positions, 500);
    let b = derive(500, 7);
    assert_eq!(a.fit.tables, b.fit.tables);
    assert_eq!(a.fit.loss, b.fit.loss);
    let c = derive(500, 8);
    assert!(a.fit.occurrences != c.fit.occurrences || a.fit.tables != c.fit.tables);
    // The statistics count every position whatever the sample.
    assert_eq!(a.occupancy.occurrences, c.occupancy.occurrences);
}

/// Tables that are exactly `n` random components times weights in ±20 (piece values 0).
fn planted(rng: &mut Lcg, n: usize) -> PieceTables {
    let components: Vec<u64> = (0..n).map(|_| rng.next(1 << 32) << 32 | rng.next(1 << 32)).collect();
    let mut tables = PieceTables::default();
    for t in 0..TABLES {
        let weights: Vec<i32> = (0..n).map(|_| rng.next(41) as i32 - 20).collect();
        for s in 0..64 {
            tables.squares[t][s] = (0..n).map(|j| weights[j] * ((components[j] >> s) & 1) as i32).sum();
        }
    }
    tables
}

/// Masked RMS and max error of `unpacked` against `tables`, computed here.
fn errors(tables: &PieceTables, unpacked: &[i32]) -> (f64, i32) {
    let full = tables.full_values();
    let (mut squares, mut kept, mut max) = (0i64, 0, 0);
    for i in 0..TABLES * 64 {
        if !is_masked(i / 64, i % 64) {
            let e = unpacked[i] - full[i];
            squares += i64::from(e * e);
            kept += 1;
            max = max.max(e.abs());
        }
    }
    ((squares as f64 / kept as f64).sqrt(), max)
}

#[test]
fn planted_components_are_recovered_exactly() {
    let mut rng = Lcg(17);
    for n in [1, 2, 3] {
        for _ in 0..3 {
            let tables = planted(&mut rng, n);
            let options = FactoriseOptions {
                components: n,
                generations: 20_000,
                mean_adjust: false,
                ..FactoriseOptions::default()
            };
            let found = factorise(&tables, &options);
            let last = found.iterations.last().unwrap();
            assert_eq!(
                (last.max_error, last.masked_rms),
                (0, 0.0),
                "n = {n}: {:?} {:?}",
                found.iterations,
                found.packed
            );
            assert_eq!(errors(&tables, &found.packed.unpack()), (0.0, 0));
        }
    }
}

fn pesto() -> PieceTables {
    let text = std::fs::read_to_string(datasets().join("psqt/pesto.csv")).expect("pesto.csv");
    PieceTables::from_csv(&text).expect("pesto.csv parses")
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn pesto_factorisation_keeps_its_promises() {
    let tables = pesto();
    assert_eq!((tables.values[0], tables.squares[0][8], tables.values[11]), (82, -35, 0));
    let options = FactoriseOptions { components: 6, generations: 4_000, ..FactoriseOptions::default() };
    let found = factorise(&tables, &options);
    // The packed form is the approximation the figures describe.
    let unpacked = found.packed.unpack();
    assert_eq!(unpacked, found.approximation().full_values());
    let last = found.iterations.last().unwrap();
    let (rms, max) = errors(&tables, &unpacked);
    assert!((rms - last.masked_rms).abs() < 1e-9 && max == last.max_error, "{rms} {max} vs {last:?}");
    assert_eq!(found.packed.components.len(), 6);
    assert_eq!(found.packed.weights.len(), 7);
    // Iterations never lose ground, and never beat the real-valued floor.
    for pair in found.iterations.windows(2) {
        assert!(pair[1].masked_rms <= pair[0].masked_rms, "{pair:?}");
        assert!(pair[1].rank_bound_rms <= pair[0].rank_bound_rms + 1e-9, "{pair:?}");
    }
    for it in &found.iterations {
        assert!(it.masked_rms >= it.rank_bound_rms - 1e-9, "{it:?}");
    }
    // Same seed, same result; the CSV of the approximation reads back.
    let again = factorise(&tables, &options);
    assert_eq!(again.packed, found.packed);
    assert_eq!(PieceTables::from_csv(&found.approximation().to_csv()).unwrap(), found.approximation());
    // Without mean adjustment the piece values are the tables' own (divided by d).
    let plain =
        factorise(&tables, &FactoriseOptions { mean_adjust: false, components: 2, generations: 500, ..options });
    let d = plain.packed.divisor;
    for t in 0..TABLES {
        assert_eq!(i32::from(plain.packed.weights[2][t]), (f64::from(tables.values[t]) / f64::from(d)).round() as i32);
    }
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn the_mask_is_honoured() {
    let tables = pesto();
    let mut scribbled = tables.clone();
    for t in [0, 1] {
        for s in (0..8).chain(56..64) {
            scribbled.squares[t][s] = 999 - 37 * s as i32;
        }
    }
    let options = FactoriseOptions { components: 3, generations: 2_000, ..FactoriseOptions::default() };
    let (a, b) = (factorise(&tables, &options), factorise(&scribbled, &options));
    assert_eq!(a.packed, b.packed);
    assert_eq!(a.iterations.last().unwrap().masked_rms, b.iterations.last().unwrap().masked_rms);
}

#[test]
fn a_derivation_spread_over_parts_is_the_one_derivation() {
    use tabiya::explore::{
        distributed::from_bytes,
        psqt::{PsqtPartial, derive},
    };

    let (_dir, store) = build(&generate(200));
    let options = DeriveOptions { sample: 700, seed: 5, ..DeriveOptions::default() };
    let whole = derive(&store, &options).unwrap();
    let spread = common::spread(&options, &store);
    let json = |derived: &tabiya::explore::psqt::Derived| {
        let mut value = serde_json::to_value(derived).unwrap();
        value.as_object_mut().unwrap().remove("elapsedMs");
        value
    };
    assert_eq!(json(&spread), json(&whole));
    assert_eq!(whole.fit.positions, 700);
    assert!(from_bytes::<PsqtPartial>(b"not a partial").is_none());
}
