//! The player report checked against a naive count over the generated games: results overall,
//! by year and by opponent rating, the repertoire tree with its threshold, best wins and worst
//! losses; its CSV files against its JSON.

use crate::common;

use std::collections::BTreeMap;

use serde_json::Value;
use shakmaty::CastlingMode;

use common::{
    games::{Game, build, generate, players, ratings, year},
    tabiya,
};

fn report(db: &str, args: &[&str]) -> Value {
    let mut all = vec!["report", "player", "--db", db, "--format", "json"];
    all.extend_from_slice(args);
    let out = tabiya(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn u(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

/// (wins, draws, losses, games) from the player's side.
fn outcome(game: &Game, white: bool) -> [u64; 4] {
    match (game.result, white) {
        ("1-0", true) | ("0-1", false) => [1, 0, 0, 1],
        ("0-1", true) | ("1-0", false) => [0, 0, 1, 1],
        ("1/2-1/2", _) => [0, 1, 0, 1],
        _ => [0, 0, 0, 1],
    }
}

fn add(into: &mut [u64; 4], other: [u64; 4]) {
    for (a, b) in into.iter_mut().zip(other) {
        *a += b;
    }
}

fn counts(r: &Value) -> [u64; 4] {
    [u(&r["wins"]), u(&r["draws"]), u(&r["losses"]), u(&r["games"])]
}

/// Checks the report of the player of the games `mine` (all with colour `white`).
fn check(games: &[Game], json: &Value, mine: &[usize], white: bool, min_share: f64) {
    let mut total = [0; 4];
    let mut years: BTreeMap<u64, [u64; 4]> = BTreeMap::new();
    let mut bands: BTreeMap<Option<u64>, [u64; 4]> = BTreeMap::new();
    let mut lines: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    let (mut best_win, mut worst_loss): (Option<Option<u16>>, Option<Option<u16>>) = (None, None);
    for &i in mine {
        let o = outcome(&games[i], white);
        add(&mut total, o);
        add(years.entry(year(i) as u64).or_default(), o);
        let opponent = ratings(i)[usize::from(white)];
        add(bands.entry(opponent.map(|r| u64::from(r) / 100 * 100)).or_default(), o);
        let uci: Vec<String> =
            games[i].moves.iter().take(8).map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        for n in 1..=uci.len() {
            *lines.entry(uci[..n].to_vec()).or_default() += 1;
        }
        if o[0] == 1 {
            best_win = Some(best_win.map_or(opponent, |b| b.max(opponent)));
        }
        if o[2] == 1 {
            // Unrated opponents sort after every rated one.
            let key = |r: Option<u16>| (r.is_none(), r);
            worst_loss = Some(worst_loss.map_or(opponent, |w| if key(opponent) < key(w) { opponent } else { w }));
        }
    }
    assert_eq!(counts(&json["overview"]), total);
    let side = if white { "asWhite" } else { "asBlack" };
    assert_eq!(counts(&json[side]), total);
    let got: BTreeMap<u64, [u64; 4]> =
        json["years"].as_array().unwrap().iter().map(|y| (u(&y["year"]), counts(y))).collect();
    assert_eq!(got, years);
    let got: BTreeMap<Option<u64>, [u64; 4]> =
        json["opponents"].as_array().unwrap().iter().map(|b| (b["floor"].as_u64(), counts(b))).collect();
    assert_eq!(got, bands);
    // The tree: lines with enough games whose every prefix has enough games.
    let kept = (total[3] as f64 * min_share / 100.0).max(2.0);
    let expected: BTreeMap<Vec<String>, u64> = lines
        .iter()
        .filter(|(line, _)| (1..=line.len()).all(|n| lines[&line[..n]] as f64 >= kept))
        .map(|(line, &n)| (line.clone(), n))
        .collect();
    let colour = if white { "white" } else { "black" };
    let nodes: Vec<&Value> = json["repertoire"].as_array().unwrap().iter().filter(|n| n["color"] == colour).collect();
    let got: BTreeMap<Vec<String>, u64> = nodes
        .iter()
        .map(|n| {
            (n["uci"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect(), u(&n["games"]))
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), nodes.len(), "each line once");
    // Depth first: every node comes after its parent.
    for (i, node) in nodes.iter().enumerate() {
        let line = node["uci"].as_array().unwrap();
        if line.len() > 1 {
            let parent = &line[..line.len() - 1];
            assert!(nodes[..i].iter().any(|n| n["uci"].as_array().unwrap() == parent), "{node}");
        }
    }
    let rating = |g: &Value| g["opponentRating"].as_u64().map(|r| r as u16);
    assert_eq!(json["bestWins"].get(0).map(rating), best_win);
    assert_eq!(json["worstLosses"].get(0).map(rating), worst_loss);
}

#[test]
fn player_reports_equal_a_naive_count() {
    let games = generate(600);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // "Doe, Player 3" has White in games 3, 10, 17, ...; "Roe, Player 2" Black in 2, 7, 12, ...
    let json = report(db, &["Doe, Player 3"]);
    assert_eq!(json["names"][0]["name"], players(3)[0]);
    let mine: Vec<usize> = (0..games.len()).filter(|i| i % 7 == 3).collect();
    check(&games, &json, &mine, true, 2.0);
    let json = report(db, &["roe, player 2", "--color", "black", "--since", "2003", "--min-share", "5"]);
    let mine: Vec<usize> = (0..games.len()).filter(|&i| i % 5 == 2 && year(i) >= 2003).collect();
    check(&games, &json, &mine, false, 5.0);
    assert_eq!(json["label"], "since 2003");
    // A colour the player never had: no games, and an empty report rather than an error.
    let json = report(db, &["doe, player 3", "--color", "black"]);
    assert_eq!(json["overview"]["games"], 0);

    let csv = dir.path().join("csv");
    let out =
        tabiya(&["report", "player", "--db", db, "Doe, Player 3", "--format", "csv", "-o", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json = report(db, &["Doe, Player 3"]);
    for (file, rows) in [
        ("repertoire.csv", json["repertoire"].as_array().unwrap().len()),
        ("years.csv", json["years"].as_array().unwrap().len()),
        ("names.csv", 1),
        ("overview.csv", 3),
    ] {
        let text = std::fs::read_to_string(csv.join(file)).unwrap();
        assert_eq!(text.split("\r\n").count() - 2, rows, "{file}");
    }
    let names = std::fs::read_to_string(csv.join("names.csv")).unwrap();
    assert_eq!(names, format!("name,games\r\n\"Doe, Player 3\",{}\r\n", json["overview"]["games"]));

    for (args, expected) in [
        (vec!["  "], "empty player name"),
        (vec!["doe", "--color", "green"], "bad colour"),
        (vec!["doe", "--depth", "31"], "30 plies"),
        (vec!["doe", "--min-share", "101"], "percent"),
    ] {
        let mut all = vec!["report", "player", "--db", db];
        all.extend(args.iter());
        let out = tabiya(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expected), "{args:?}: {stderr}");
    }
}
