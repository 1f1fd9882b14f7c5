//! Round trips over the shared real-data sets (`../shared/datasets`, present in CI): the EPD and
//! perft suites, the promoted-piece positions of real games, and every position of every game
//! of the players collection.
//!
//! Outside CI the tests say so and pass when the directory is absent; in CI (`CI` set) a missing
//! directory fails them.

use std::path::PathBuf;

use tabiya::{
    Category, Key, Material,
    codec::{check_paths, material_range},
    ingest::read_position_lines,
};

fn datasets() -> Option<PathBuf> {
    let dir = std::env::var_os("TABIYA_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(std::env::var_os("CI").is_none(), "CI needs the shared datasets at {}", dir.display());
    eprintln!("shared datasets not found at {}: skipped", dir.display());
    None
}

#[test]
fn position_suites_round_trip() {
    let Some(dir) = datasets() else { return };
    let report = check_paths(&[dir.join("positions")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert!(report.positions > 100_000, "{} positions", report.positions);
    // What the suites hold that is not a keyable standard position, by reason.
    assert_eq!(report.rejected.get("Chess960 castling rights"), Some(&1865));
    assert_eq!(report.rejected.get("illegal position"), Some(&4));
    // shakmaty's tricky.perft has a deliberately impossible position (3 promotions by Black,
    // who lost nothing that a white pawn could have captured): Tomic's bound rejects it.
    let impossible: u64 =
        report.rejected.iter().filter(|(r, _)| r.contains("impossible material")).map(|(_, n)| n).sum();
    assert_eq!(impossible, 2);
}

#[test]
fn promoted_positions_from_real_games_round_trip() {
    let Some(dir) = datasets() else { return };
    let report = check_paths(&[dir.join("positions/players-promoted.epd")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    assert_eq!(report.positions, 89_717);
}

/// Ranges of distinct (category, material) pairs found in real games never overlap, and each
/// position's key lies in its own range.
#[test]
fn real_material_ranges_are_disjoint() {
    let Some(dir) = datasets() else { return };
    let file = std::fs::File::open(dir.join("positions/players-promoted.epd")).unwrap();
    let mut pairs = std::collections::HashSet::new();
    read_position_lines(file, "players-promoted.epd", |line| {
        let position = line.expect("real positions parse").position;
        let (category, material) = (Category::of(&position), Material::of(&position));
        let range = material_range(category, &material).unwrap();
        assert!(range.contains(&Key::encode(&position).unwrap()));
        pairs.insert((category, material.to_string()));
    })
    .unwrap();
    let mut ranges: Vec<_> = pairs
        .iter()
        .map(|(category, material)| material_range(*category, &material.parse().unwrap()).unwrap())
        .collect();
    assert!(ranges.len() > 1000, "{} ranges", ranges.len());
    ranges.sort_by_key(|r| r.first);
    for pair in ranges.windows(2) {
        assert!(pair[0].last < pair[1].first, "{:?} overlaps {:?}", pair[0], pair[1]);
    }
}

#[test]
fn every_players_position_round_trips() {
    let Some(dir) = datasets() else { return };
    let report = check_paths(&[dir.join("players.pgn.zst")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert_eq!(report.positions, 33_424_331);
    // The two games with an illegal move in the source (Gelfand-Gareev, Schleining-Paehtz).
    assert_eq!(report.rejected.get("game not replayable"), Some(&2));
}
