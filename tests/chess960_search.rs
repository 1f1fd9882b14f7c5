//! Chess960's scans against a naive replay of generated games: material search (with castling
//! rights in Shredder-FEN), pattern search, a pattern's game list and the positions export
//! under `--variant chess960` find exactly the Chess960 positions the replay says, with their
//! games, and their FENs (X-FEN) read back to the same keys.

use std::collections::BTreeMap;

use shakmaty::{CastlingMode, Chess, Color, Position as _, Square, fen::Epd};
use tabiya::{
    explore::{
        Target,
        psqt::{DeriveOptions, ENDGAME_PHASE},
    },
    indexer,
    position::Variant,
    psqt::{GamePhase, TABLES, tables::table_index},
    store::Store,
};

use crate::chess960_games::{generate, naive};

/// A Chess960 position of the replay: its board and the games reaching it, by result.
struct Seen {
    chess: Chess,
    games: u64,
    /// White wins, draws, Black wins.
    results: [u64; 3],
}

/// The key (hexadecimal) of a Chess960 position given as EPD or FEN.
fn key_of(fen: &str) -> String {
    Target::fen(fen).resolve_in(Variant::Chess960).unwrap_or_else(|err| panic!("{fen}: {err}")).key.to_string()
}

/// `tabiya ARGS --db DB --json` (a report's `--format json` in its ARGS instead).
fn json(db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.extend(["--db", db.to_str().unwrap()]);
    if args[0] != "report" {
        args.push("--json");
    }
    let out = crate::common::tabiya(&args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A search's hits by key, each hit's FEN checked to read back to its key.
fn hits_by_key(answer: &serde_json::Value) -> BTreeMap<String, u64> {
    let hits = answer["hits"].as_array().unwrap();
    assert_eq!(answer["positions"].as_u64(), Some(hits.len() as u64), "every position listed");
    hits.iter()
        .map(|hit| {
            let (fen, key) = (hit["fen"].as_str().unwrap(), hit["key"].as_str().unwrap());
            assert_eq!(key_of(fen), key, "{fen} reads back to its key");
            (key.to_owned(), hit["games"].as_u64().unwrap())
        })
        .collect()
}

/// The replay's positions `wanted` admits, by key.
fn expected(seen: &BTreeMap<String, Seen>, wanted: impl Fn(&Chess) -> bool) -> BTreeMap<String, u64> {
    seen.iter().filter(|(_, s)| wanted(&s.chess)).map(|(key, s)| (key.clone(), s.games)).collect()
}

#[test]
fn chess960_searches_and_exports_find_the_positions_of_a_naive_replay() {
    let games = generate(300);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let pgn = dir.path().join("games.pgn");
    // Dated, so that the opening report's years have games: game i in year 2000 + i % 3.
    let year = |i: usize| 2000 + (i % 3) as u64;
    let text: String = games
        .iter()
        .enumerate()
        .map(|(i, game)| game.pgn(i + 1).replacen("[Round", &format!("[Date \"{}.01.01\"]\n[Round", year(i)), 1))
        .collect();
    std::fs::write(&pgn, text).unwrap();
    let store = Store::open(&db).unwrap();
    let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
    assert_eq!(summary.run.counts.indexed, games.len() as u64);
    drop(store);
    let seen: BTreeMap<String, Seen> = naive(&games)
        .into_iter()
        .filter(|((chess960, _), _)| *chess960)
        .map(|((_, epd), (counts, _))| {
            let chess = Epd::from_ascii(epd.as_bytes()).unwrap().into_position(CastlingMode::Chess960).unwrap();
            (key_of(&epd), Seen { chess, games: counts[0], results: [counts[1], counts[2], counts[3]] })
        })
        .collect();
    assert!(seen.len() > 5_000, "{} Chess960 positions", seen.len());
    let material = |chess: &Chess| tabiya::Material(chess.board().material());

    // Material search: a full army with any pawns, an exact material, and castling rights.
    let full_armies: tabiya::explore::Signature = "KQRRBBNNP*vKQRRBBNNP*".parse().unwrap();
    let answer =
        json(&db, &["search", "--variant", "chess960", "--material", "KQRRBBNNP*vKQRRBBNNP*", "--limit", "10000"]);
    let want = expected(&seen, |chess| full_armies.admits(&material(chess)));
    assert!(want.len() > 1_000, "{}", want.len());
    assert_eq!(hits_by_key(&answer), want);
    let start = "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP";
    let rights = "HAha";
    let answer =
        json(&db, &["search", "--variant", "chess960", "--material", start, "--castling", rights, "--limit", "10000"]);
    let all_rights = [Square::A1, Square::H1, Square::A8, Square::H8].into_iter().collect::<shakmaty::Bitboard>();
    let want = expected(&seen, |chess| {
        material(chess) == start.parse().unwrap() && chess.castles().castling_rights() == all_rights
    });
    assert!(want.len() > 10, "{}", want.len());
    assert_eq!(hits_by_key(&answer), want);

    // Pattern search, alone and within a material; a standard search finds none of these.
    for (pattern, test) in [
        ("check", &(|chess: &Chess| chess.is_check()) as &dyn Fn(&Chess) -> bool),
        ("Kg1 and Rf1", &|chess: &Chess| {
            chess.board().king_of(Color::White) == Some(Square::G1)
                && (chess.board().rooks() & chess.board().white()).contains(Square::F1)
        }),
    ] {
        let answer = json(&db, &["search", "--variant", "chess960", "--pattern", pattern, "--limit", "10000"]);
        let want = expected(&seen, test);
        assert!(want.len() > 50, "{pattern}: {}", want.len());
        assert_eq!(hits_by_key(&answer), want, "{pattern}");
        let within = json(
            &db,
            &["search", "--variant", "chess960", "--pattern", pattern, "--material", "KQRRBBNNP*vKQRRBBNNP*"],
        );
        let want_within = expected(&seen, |chess| test(chess) && full_armies.admits(&material(chess)));
        assert_eq!(within["positions"].as_u64(), Some(want_within.len() as u64), "{pattern} within a material");
        // The games of the pattern: those of the Chess960 games that reach a matching position.
        let listed = json(&db, &["games", "--variant", "chess960", "--pattern", pattern, "--limit", "1"]);
        let reaching = games.iter().filter(|game| game.chess960 && reaches(game, &want)).count() as u64;
        assert_eq!(listed["total"].as_u64(), Some(reaching), "{pattern}: games");
    }

    // The opening report of Chess960's start 518: its games and moves are the replay's, each
    // year's share counted among the year's Chess960 games (not the standard ones).
    let report = json(&db, &["report", "opening", "--variant", "chess960", "--format", "json"]);
    let start = seen.get(&key_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")).unwrap();
    let subset = &report["subsets"][0];
    assert_eq!(subset["overview"]["games"].as_u64(), Some(start.games), "{report}");
    let from_518 = |i: &usize| games[*i].chess960 && games[*i].start == Chess::default();
    for row in subset["years"].as_array().unwrap() {
        let y = row["year"].as_u64().unwrap();
        let of_year = (0..games.len()).filter(|i| year(*i) == y);
        assert_eq!(row["yearGames"].as_u64(), Some(of_year.clone().filter(|i| games[*i].chess960).count() as u64));
        assert_eq!(row["games"].as_u64(), Some(of_year.filter(from_518).count() as u64), "{row}");
    }
    assert_eq!(subset["years"].as_array().map(Vec::len), Some(3));

    // The database report of the Chess960 games: their results and years alone.
    let report = json(&db, &["report", "database", "--variant", "chess960", "--format", "json"]);
    let chess960: Vec<usize> = (0..games.len()).filter(|i| games[*i].chess960).collect();
    let results = &report["results"];
    let counted = [&results["white"], &results["draws"], &results["black"]].map(|n| n.as_u64().unwrap_or(0));
    let mut expected_results = [0u64; 3];
    for &i in &chess960 {
        expected_results[games[i].result_index()] += 1;
    }
    assert_eq!(counted, expected_results, "{report}");
    assert_eq!(report["otherVariantGames"].as_u64(), Some((games.len() - chess960.len()) as u64));
    for row in report["years"].as_array().unwrap() {
        let y = row["year"].as_u64().unwrap();
        assert_eq!(row["games"].as_u64(), Some(chess960.iter().filter(|i| year(**i) == y).count() as u64), "{row}");
    }

    // Piece-square statistics of the Chess960 positions: every one once, weighted by its games.
    let store = Store::open_read_only(&db).unwrap();
    let options = DeriveOptions { sample: 0, seed: 3, variant: Variant::Chess960, ..DeriveOptions::default() };
    let derived = tabiya::explore::psqt::derive(&store, &options).unwrap();
    drop(store);
    let (mut occurrences, mut half_points) = ([[0u64; 64]; TABLES], [[0u64; 64]; TABLES]);
    for s in seen.values() {
        let [white, draws, black] = s.results;
        let phase = GamePhase::ALL[usize::from(crate::psqt::naive_phase(&s.chess) <= ENDGAME_PHASE)];
        for (square, piece) in s.chess.board() {
            let (own, points) = match piece.color {
                Color::White => (square, 2 * white + draws),
                Color::Black => (square.flip_vertical(), 2 * black + draws),
            };
            occurrences[table_index(piece.role, phase)][own as usize] += white + draws + black;
            half_points[table_index(piece.role, phase)][own as usize] += points;
        }
    }
    assert_eq!(derived.positions, seen.len() as u64);
    assert_eq!(derived.occupancy.occurrences, occurrences);
    assert_eq!(derived.occupancy.half_points, half_points);

    // The positions export: every Chess960 position once, its FEN in X-FEN.
    let out = crate::common::tabiya(&[
        "export",
        "positions",
        "--variant",
        "chess960",
        "--format",
        "csv",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut exported = BTreeMap::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(key_of(fields[1]), fields[0], "{line}");
        exported.insert(fields[0].to_owned(), fields[3].parse::<u64>().unwrap());
    }
    assert_eq!(exported, expected(&seen, |_| true));
}

/// Whether `game` reaches a position of `matching` (keys).
fn reaches(game: &crate::chess960_games::Game, matching: &BTreeMap<String, u64>) -> bool {
    let mut position = game.start.clone();
    let reached = |chess: &Chess| {
        matching.contains_key(&key_of(&Epd::from_position(chess, shakmaty::EnPassantMode::Legal).to_string()))
    };
    if reached(&position) {
        return true;
    }
    game.moves.iter().any(|m| {
        position.play_unchecked(*m);
        reached(&position)
    })
}

/// A player report is one variant's: the other's games counted apart, and the repertoire grown
/// from the variant's standard setup (Chess960's start 518, where castling is the king taking
/// its rook).
#[test]
fn a_player_report_reports_on_one_variant() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("carol.pgn");
    let game = |round: u32, variant: &str, result: &str| {
        format!(
            "[White \"Castler, Carol\"]\n[Black \"Opponent, Olga\"]\n[Round \"{round}\"]\n{variant}[Result \"{result}\"]\n\n\
             1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O {result}\n\n"
        )
    };
    let chess960 = "[Variant \"Chess960\"]\n";
    let text = [game(1, chess960, "1-0"), game(2, chess960, "1/2-1/2"), game(3, "", "0-1")].concat();
    std::fs::write(&pgn, text).unwrap();
    let db = dir.path().join("db");
    let out = crate::common::tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (variant, counted, other, castling) in [("chess960", 2, 1, "e1h1"), ("standard", 1, 2, "e1g1")] {
        let report = json(
            &db,
            &["report", "player", "Castler, Carol", "--variant", variant, "--format", "json", "--depth", "8"],
        );
        let counts = (report["overview"]["games"].as_u64(), report["otherVariantGames"].as_u64());
        assert_eq!(counts, (Some(counted), Some(other)), "{variant}: {report}");
        assert_eq!(report["variant"], variant);
        // The two Chess960 games keep their line; the one standard game keeps none (2 needed).
        let nodes = report["repertoire"].as_array().unwrap();
        if counted == 2 {
            let deepest = nodes.iter().max_by_key(|node| node["line"].as_array().map_or(0, Vec::len)).unwrap();
            let line: Vec<&str> = deepest["line"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
            assert_eq!(line, ["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "O-O", "O-O"], "{report}");
            assert_eq!(deepest["uci"][6].as_str(), Some(castling), "{report}");
        } else {
            assert!(nodes.is_empty(), "one game keeps no line: {report}");
        }
    }
}
