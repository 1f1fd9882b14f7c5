//! The database report checked against replaying every generated game: totals, years, ratings,
//! players, named openings, the most common positions by ply, and the endgame frequency table
//! (which the report computes from key ranges and posting lists, not from games).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use shakmaty::{Chess, Color, EnPassantMode, Position as _, Role, fen::Epd};

use common::{
    games::{build, generate, movetext, players, ratings, year},
    tabiya,
};

fn u(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

fn epd(position: &Chess) -> String {
    Epd::from_position(position, EnPassantMode::Legal).to_string()
}

/// The endgame class of a position, computed apart from the library: each side's pieces in
/// K Q R B N P order, the side with more material (9, 5, 3, 3, 1) first, ties by the text.
fn class(position: &Chess) -> Option<String> {
    let board = position.board();
    if board.occupied().count() > 7 {
        return None;
    }
    let side = |color: Color| -> (u32, String) {
        let roles = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
        let count = |role: Role| (board.by_color(color) & board.by_role(role)).count();
        let value = [0, 9, 5, 3, 3, 1].iter().zip(roles).map(|(v, r)| v * count(r) as u32).sum();
        (value, roles.iter().map(|&r| r.upper_char().to_string().repeat(count(r))).collect())
    };
    let (w, b) = (side(Color::White), side(Color::Black));
    let (a, m) = (format!("{}v{}", w.1, b.1), format!("{}v{}", b.1, w.1));
    Some(if w.0 > b.0 || (w.0 == b.0 && a >= m) { a } else { m })
}

#[test]
fn database_reports_equal_replaying_every_game() {
    let games = generate(500);
    let (dir, store) = build(&games);
    drop(store);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // An opening table naming positions of the generated games.
    let named = [(0, 2, "Test Two"), (1, 4, "Test Four"), (5, 3, "Test Three")];
    let mut tsv = String::from("eco\tname\tpgn\n");
    let mut names: BTreeMap<String, &str> = BTreeMap::new();
    for (i, (game, plies, name)) in named.iter().enumerate() {
        let moves = &games[*game].moves[..*plies];
        tsv += &format!("A{i:02}\t{name}\t{}\n", movetext(moves).trim());
        let mut position = Chess::default();
        for m in moves {
            position.play_unchecked(*m);
        }
        names.insert(epd(&position), name);
    }
    let table = dir.path().join("openings.tsv");
    std::fs::write(&table, tsv).unwrap();
    let out = tabiya(&["openings", "import", "--db", db, table.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = tabiya(&["report", "database", "--db", db, "--format", "json", "--plies", "6", "--top", "100"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();

    let mut results = [0u64; 3];
    let mut years: BTreeMap<u64, u64> = BTreeMap::new();
    let mut bands: BTreeMap<Option<u64>, u64> = BTreeMap::new();
    let mut people: BTreeMap<String, u64> = BTreeMap::new();
    let mut openings: BTreeMap<String, u64> = BTreeMap::new();
    let mut endgames: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_ply: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); 6];
    for (i, game) in games.iter().enumerate() {
        match game.result {
            "1-0" => results[0] += 1,
            "1/2-1/2" => results[1] += 1,
            "0-1" => results[2] += 1,
            _ => {}
        }
        *years.entry(year(i) as u64).or_default() += 1;
        let average = match ratings(i) {
            [Some(w), Some(b)] => Some((u64::from(w) + u64::from(b)).div_ceil(2)),
            [Some(r), None] | [None, Some(r)] => Some(u64::from(r)),
            [None, None] => None,
        };
        *bands.entry(average.map(|a| a / 100 * 100)).or_default() += 1;
        for name in players(i) {
            *people.entry(name).or_default() += 1;
        }
        let mut position = Chess::default();
        let mut classes = BTreeSet::new();
        let mut opening = None;
        for (ply, m) in game.moves.iter().enumerate() {
            position.play_unchecked(*m);
            if ply < 6 {
                *by_ply[ply].entry(epd(&position)).or_default() += 1;
            }
            if ply < 40
                && let Some(name) = names.get(&epd(&position))
            {
                opening = Some(*name);
            }
            classes.extend(class(&position));
        }
        *openings.entry(opening.unwrap_or("").to_owned()).or_default() += 1;
        for class in classes {
            *endgames.entry(class).or_default() += 1;
        }
    }
    assert_eq!(u(&json["totals"]["games"]), games.len() as u64);
    assert_eq!([u(&json["results"]["white"]), u(&json["results"]["draws"]), u(&json["results"]["black"])], results);
    let got: BTreeMap<u64, u64> =
        json["years"].as_array().unwrap().iter().map(|y| (u(&y["year"]), u(&y["games"]))).collect();
    assert_eq!(got, years);
    let got: BTreeMap<Option<u64>, u64> =
        json["ratings"].as_array().unwrap().iter().map(|b| (b["floor"].as_u64(), u(&b["games"]))).collect();
    assert_eq!(got, bands);
    // 12 players, all listed with --top 100.
    let got: BTreeMap<String, u64> = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_owned(), u(&p["games"])))
        .collect();
    assert_eq!(got, people);
    let mut got: BTreeMap<String, u64> = json["openings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap().to_owned(), u(&o["games"])))
        .collect();
    got.insert(String::new(), u(&json["unnamed"]));
    assert_eq!(got, openings);
    assert_eq!(json["openingTable"], true);
    let got: BTreeMap<String, u64> = json["endgames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["class"].as_str().unwrap().to_owned(), u(&e["games"])))
        .collect();
    assert!(endgames.len() > 10, "the generated games reach endgames: {endgames:?}");
    assert_eq!(got, endgames);
    // The most common positions at each ply, with their counts.
    for (ply, naive) in by_ply.iter().enumerate() {
        let listed = &json["positionsByPly"][ply];
        assert_eq!(u(&listed["ply"]), ply as u64 + 1);
        assert_eq!(u(&listed["games"]), naive.values().sum::<u64>());
        let top = naive.values().max().copied();
        assert_eq!(listed["positions"][0]["games"].as_u64(), top, "ply {}", ply + 1);
        for p in listed["positions"].as_array().unwrap() {
            let fen = p["fen"].as_str().unwrap();
            assert_eq!(naive.get(fen).copied(), Some(u(&p["games"])), "ply {}: {fen}", ply + 1);
        }
    }

    let csv = dir.path().join("csv");
    let out = tabiya(&["report", "database", "--db", db, "--format", "csv", "-o", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(csv.join("endgames.csv")).unwrap();
    assert_eq!(text.split("\r\n").count() - 2, endgames.len());
    let out = tabiya(&["report", "database", "--db", db, "--plies", "21"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("20 plies"));
}

/// A report spread over processes (each computing some parts, shipped as bytes, merged in
/// another order) is the one-process report, byte for byte as JSON.
#[test]
fn a_database_report_spread_over_processes_is_the_whole_report() {
    use std::time::Instant;

    use tabiya::{
        explore::{DistributedScan, distributed::from_bytes},
        report::database::{DatabaseOptions, DatabasePartial, DatabaseReport},
    };

    // More games than one part of the pass over games reads (4,096), so that tallies, players
    // and positions by ply are merged across parts, and endgame classes across scan parts.
    let games = generate(9_000);
    let (_dir, store) = build(&games);
    let options = DatabaseOptions { plies: 8, positions_per_ply: 7, top: 50, ..DatabaseOptions::default() };
    let whole = serde_json::to_value(DatabaseReport::build(&store, &options).unwrap()).unwrap();
    let spread = serde_json::to_value(common::spread(&options, &store)).unwrap();
    assert_eq!(spread, whole);
    assert_eq!(u(&whole["totals"]["games"]), 9_000);
    assert!(whole["endgames"].as_array().unwrap().len() > 10);
    let view = store.scan_snapshot();
    let count = options.part_count(&view).unwrap();
    assert!(count > 4, "{count} parts");
    // A part missing shows; a part named twice counts once; a part beyond the count is refused.
    let some = options.partial(&view, &[0], &Default::default()).unwrap();
    let twice = options.partial(&view, &[0, 0], &Default::default()).unwrap();
    drop(view);
    let answer = |partial| {
        serde_json::to_value(options.answer(&store.snapshot(), vec![partial], Instant::now()).unwrap()).unwrap()
    };
    let (fewer, again) = (answer(some), answer(twice));
    assert_ne!(fewer["results"], whole["results"]);
    assert_eq!(fewer, again);
    assert!(options.partial(&store.scan_snapshot(), &[count], &Default::default()).is_err());
    assert!(from_bytes::<DatabasePartial>(b"not a partial").is_none());
}
