//! The opening report checked figure by figure against a naive replay of the generated games:
//! overview, years, rating bands, next moves, move orders, a theme, endings, lengths, players and
//! notable games, with and without filters and a `--versus` subset; its overview also against
//! the stored statistics `tabiya query` answers from; and its CSV files against its JSON.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position as _, Role, fen::Epd};

use common::{
    games::{Game, build, generate, players, ratings, year},
    tabiya,
};

fn epd(position: &Chess) -> String {
    Epd::from_position(position, EnPassantMode::Legal).to_string()
}

/// Final material, White first, written independently of the library: `KRPvKR`.
fn signature(position: &Chess) -> String {
    let board = position.board();
    let side = |color: Color| -> String {
        [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn]
            .iter()
            .map(|&role| role.upper_char().to_string().repeat((board.by_color(color) & board.by_role(role)).count()))
            .collect()
    };
    format!("{}v{}", side(Color::White), side(Color::Black))
}

/// What a naive replay says about the games (indices `keep`) reaching `target`.
#[derive(Default, Debug)]
struct Naive {
    games: u64,
    results: [u64; 3],
    years: BTreeMap<u64, u64>,
    bands: BTreeMap<Option<u16>, u64>,
    moves: BTreeMap<String, u64>,
    orders: BTreeMap<(String, String), u64>,
    /// Games reaching, within 40 plies: queens off, a white pawn on ranks 5-7, a check.
    themes: [u64; 3],
    endings: BTreeMap<String, u64>,
    plies: u64,
    players: BTreeMap<(String, &'static str), u64>,
    highest_rating: Option<u16>,
    shortest_white_win: Option<usize>,
    shortest_black_win: Option<usize>,
}

fn naive(games: &[Game], target: &str, keep: impl Fn(usize) -> bool) -> Naive {
    let mut out = Naive::default();
    for (index, game) in games.iter().enumerate().filter(|(i, _)| keep(*i)) {
        let mut positions = vec![Chess::default()];
        for m in &game.moves {
            let mut next = positions.last().unwrap().clone();
            next.play_unchecked(*m);
            positions.push(next);
        }
        let arrivals: Vec<usize> = (0..positions.len()).filter(|&p| epd(&positions[p]) == target).collect();
        let Some(&first) = arrivals.first() else { continue };
        out.games += 1;
        match game.result {
            "1-0" => out.results[0] += 1,
            "1/2-1/2" => out.results[1] += 1,
            "0-1" => out.results[2] += 1,
            _ => {}
        }
        *out.years.entry(year(index) as u64).or_default() += 1;
        let [w, b] = ratings(index);
        let average = match (w, b) {
            (Some(w), Some(b)) => Some((u32::from(w) + u32::from(b)).div_ceil(2) as u16),
            (Some(r), None) | (None, Some(r)) => Some(r),
            (None, None) => None,
        };
        *out.bands.entry(average.map(|a| a / 100 * 100)).or_default() += 1;
        out.highest_rating = out.highest_rating.max(average);
        let next: BTreeSet<String> = arrivals
            .iter()
            .filter_map(|&p| game.moves.get(p))
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        for m in next {
            *out.moves.entry(m).or_default() += 1;
        }
        let orders: BTreeSet<(String, String)> = arrivals
            .iter()
            .filter(|&&p| p > 0)
            .map(|&p| (epd(&positions[p - 1]), game.moves[p - 1].to_uci(CastlingMode::Standard).to_string()))
            .collect();
        for order in orders {
            *out.orders.entry(order).or_default() += 1;
        }
        let last = (first + 40).min(positions.len() - 1);
        let window = &positions[first..=last];
        let ranks_5_to_7 = shakmaty::Bitboard::from_rank(shakmaty::Rank::Fifth)
            | shakmaty::Bitboard::from_rank(shakmaty::Rank::Sixth)
            | shakmaty::Bitboard::from_rank(shakmaty::Rank::Seventh);
        let reached = [
            window.iter().any(|p| p.board().queens().is_empty()),
            window.iter().any(|p| !(p.board().pawns() & p.board().white() & ranks_5_to_7).is_empty()),
            window.iter().any(|p| p.is_check()),
        ];
        for (count, reached) in out.themes.iter_mut().zip(reached) {
            *count += u64::from(reached);
        }
        *out.endings.entry(signature(positions.last().unwrap())).or_default() += 1;
        out.plies += game.moves.len() as u64;
        let [white, black] = players(index);
        *out.players.entry((white, "white")).or_default() += 1;
        *out.players.entry((black, "black")).or_default() += 1;
        let shortest = match game.result {
            "1-0" => Some(&mut out.shortest_white_win),
            "0-1" => Some(&mut out.shortest_black_win),
            _ => None,
        };
        if let Some(shortest) = shortest {
            *shortest = Some(shortest.map_or(game.moves.len(), |s| s.min(game.moves.len())));
        }
    }
    out
}

fn report(db: &str, uci: &str, extra: &[&str]) -> Value {
    let mut args = vec!["report", "opening", "--db", db, "--uci", uci, "--format", "json"];
    args.extend_from_slice(extra);
    let out = tabiya(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn u(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

/// Every figure of one subset against the naive replay.
fn check_subset(subset: &Value, naive: &Naive, what: &str) {
    let o = &subset["overview"];
    assert_eq!(u(&o["games"]), naive.games, "{what}: games");
    assert_eq!([u(&o["white"]), u(&o["draws"]), u(&o["black"])], naive.results, "{what}: results");
    let years: BTreeMap<u64, u64> =
        subset["years"].as_array().unwrap().iter().map(|y| (u(&y["year"]), u(&y["games"]))).collect();
    assert_eq!(years, naive.years, "{what}: years");
    let bands: BTreeMap<Option<u16>, u64> = subset["bands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["floor"].as_u64().map(|f| f as u16), u(&b["games"])))
        .collect();
    assert_eq!(bands, naive.bands, "{what}: rating bands");
    let moves: BTreeMap<String, u64> = subset["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["uci"].as_str().unwrap().to_owned(), u(&m["games"])))
        .collect();
    assert_eq!(moves, naive.moves, "{what}: moves");
    let orders: BTreeMap<(String, String), u64> = subset["moveOrders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| ((m["fen"].as_str().unwrap().to_owned(), m["uci"].as_str().unwrap().to_owned()), u(&m["games"])))
        .collect();
    assert_eq!(orders, naive.orders, "{what}: move orders");
    let themes: Vec<u64> = subset["themes"].as_array().unwrap().iter().map(|t| u(&t["games"])).collect();
    assert_eq!(themes, naive.themes, "{what}: themes");
    let endings: BTreeMap<String, u64> = subset["endings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["material"].as_str().unwrap().to_owned(), u(&e["games"])))
        .collect();
    assert_eq!(endings, naive.endings, "{what}: endings");
    let lengths: u64 = subset["lengths"].as_array().unwrap().iter().map(|l| u(&l["games"])).sum();
    assert_eq!(lengths, naive.games, "{what}: lengths");
    if naive.games > 0 {
        let average = subset["averagePlies"].as_f64().unwrap();
        assert!((average - naive.plies as f64 / naive.games as f64).abs() < 1e-9, "{what}: average length");
    }
    let players: BTreeMap<(String, &'static str), u64> = subset["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let color = if p["color"] == "white" { "white" } else { "black" };
            ((p["name"].as_str().unwrap().to_owned(), color), u(&p["games"]))
        })
        .collect();
    assert_eq!(players, naive.players, "{what}: players");
    let notable = &subset["notable"];
    let first_rating = |g: &Value| {
        let (w, b) = (g["white"]["rating"].as_u64(), g["black"]["rating"].as_u64());
        match (w, b) {
            (Some(w), Some(b)) => Some((w + b).div_ceil(2) as u16),
            (r, None) | (None, r) => r.map(|r| r as u16),
        }
    };
    assert_eq!(notable["highestRated"].get(0).and_then(first_rating), naive.highest_rating, "{what}");
    let plies = |list: &str| notable[list].get(0).map(|g| u(&g["plies"]) as usize);
    assert_eq!(plies("shortestWhiteWins"), naive.shortest_white_win, "{what}");
    assert_eq!(plies("shortestBlackWins"), naive.shortest_black_win, "{what}");
}

#[test]
fn opening_reports_equal_a_naive_replay() {
    let games = generate(700);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // Positions after 2 and 4 plies of the shared openings, and one deeper with few games.
    let mut targets = Vec::new();
    for (game, plies) in [(0, 2), (1, 4), (2, 4), (0, 7)] {
        let moves = &games[game].moves[..plies];
        let mut position = Chess::default();
        for m in moves {
            position.play_unchecked(*m);
        }
        let uci: Vec<String> = moves.iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
        targets.push((uci.join(","), epd(&position)));
    }
    let theme = ["--no-default-themes", "--theme", "count([Qq]) = 0", "--theme", "Pa-h5-7", "--theme", "check"];
    for (uci, target) in &targets {
        let all = naive(&games, target, |_| true);
        assert!(all.games > 0);
        let json = report(db, uci, &theme);
        check_subset(&json["subsets"][0], &all, &format!("{uci}: all games"));

        // A filter, and a second subset beside it.
        let mut args = theme.to_vec();
        args.extend(["--since", "2004", "--versus", "--min-rating 2300 --until 2006"]);
        let json = report(db, uci, &args);
        check_subset(&json["subsets"][0], &naive(&games, target, |i| year(i) >= 2004), &format!("{uci}: since 2004"));
        let rated = |i: usize| {
            let average = match ratings(i) {
                [Some(w), Some(b)] => Some((u32::from(w) + u32::from(b)).div_ceil(2)),
                [Some(r), None] | [None, Some(r)] => Some(u32::from(r)),
                [None, None] => None,
            };
            average.is_some_and(|a| a >= 2300) && year(i) <= 2006
        };
        check_subset(&json["subsets"][1], &naive(&games, target, rated), &format!("{uci}: versus"));
        assert_eq!(json["subsets"][1]["label"], "until 2006, rating 2300+");

        // A player filter (names are prefixes: "Doe, Player 3").
        let mut args = theme.to_vec();
        args.extend(["--player", "doe, player 3", "--color", "white"]);
        let json = report(db, uci, &args);
        check_subset(&json["subsets"][0], &naive(&games, target, |i| i % 7 == 3), &format!("{uci}: player"));
    }

    // The overview equals what the stored statistics say (another path: slices, not replays).
    let (uci, _) = &targets[1];
    let json = report(db, uci, &[]);
    let out = tabiya(&["query", "--db", db, "--uci", uci, "--json", "--max-moves", "100"]);
    let stored: Value = serde_json::from_slice(&out.stdout).unwrap();
    let overview = &json["subsets"][0]["overview"];
    for field in ["games", "white", "draws", "black"] {
        assert_eq!(overview[field], stored[field], "{field}");
    }
    assert_eq!(json["subsets"][0]["moves"].as_array().unwrap().len(), stored["moves"].as_array().unwrap().len());
    // The default themes, and theory lines that start with the most played move.
    assert_eq!(json["themes"].as_array().unwrap().len(), 10);
    assert_eq!(json["theory"][0]["nodes"][0]["uci"], json["subsets"][0]["moves"][0]["uci"]);
    assert!(json["theory"][0]["nodes"].as_array().unwrap().len() <= 8);
    for theme in json["subsets"][0]["themes"].as_array().unwrap() {
        assert!(u(&theme["games"]) <= u(&overview["games"]));
    }
}

#[test]
fn csv_files_hold_the_json_figures() {
    let games = generate(200);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let uci = games[0].moves[..2].iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect::<Vec<_>>();
    let uci = uci.join(",");
    let json = report(db, &uci, &[]);
    let csv = dir.path().join("csv");
    let out = tabiya(&["report", "opening", "--db", db, "--uci", &uci, "--format", "csv", "-o", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let subset = &json["subsets"][0];
    for (file, rows) in [
        ("moves.csv", subset["moves"].as_array().unwrap().len()),
        ("players.csv", subset["players"].as_array().unwrap().len()),
        ("endings.csv", subset["endings"].as_array().unwrap().len()),
        ("move-orders.csv", subset["moveOrders"].as_array().unwrap().len()),
        ("themes.csv", 10),
        ("overview.csv", 1),
    ] {
        let text = std::fs::read_to_string(csv.join(file)).unwrap();
        assert!(text.ends_with("\r\n"), "{file}: CRLF line ends");
        // Player names hold a comma, so they are quoted; no field holds a line break.
        assert_eq!(text.split("\r\n").count() - 2, rows, "{file}");
    }
    let players = std::fs::read_to_string(csv.join("players.csv")).unwrap();
    let first = &subset["players"][0];
    assert!(
        players.contains(&format!("all games,\"{}\",white,{},", first["name"].as_str().unwrap(), first["games"])),
        "{players}"
    );
    // csv needs a directory.
    let out = tabiya(&["report", "opening", "--db", db, "--uci", &uci, "--format", "csv"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o DIR"));
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let games = generate(20);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    for (args, expected) in [
        (vec!["--uci", "e2e5"], "e2e5"),
        (vec!["--theme", "count(Q"], "--theme"),
        (vec!["--versus", "--min-rating 2450"], "multiple of 100"),
        (vec!["--versus", "--bogus"], "--bogus"),
        (vec!["--versus", "--player 'unbalanced"], "quotes"),
        (vec!["--depth", "99"], "40 plies"),
    ] {
        let mut all = vec!["report", "opening", "--db", db, "--format", "json"];
        all.extend(args.iter());
        let out = tabiya(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // A theme window past every game's end is the whole game.
    let out = tabiya(&["report", "opening", "--db", db, "--format", "json", "--theme-plies", &usize::MAX.to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
