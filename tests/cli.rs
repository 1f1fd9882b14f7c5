//! The command line as a user runs it.

use crate::common;

use std::process::Output;

use common::tabiya;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn key_json_and_decode_round_trip() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let out = tabiya(&["key", fen, "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["fen"], "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -");
    assert_eq!(json["category"], 0);
    let key = json["key"].as_str().unwrap();
    assert_eq!(key.len(), 42);
    assert!(json["huffmanBits"].as_u64().unwrap() > 0);

    let out = tabiya(&["key", "--decode", key, "--json"]);
    assert!(out.status.success());
    let back: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(back["fen"], json["fen"]);
    assert_eq!(back["category"], 0);
    let out = tabiya(&["key", "--decode", key]);
    assert_eq!(stdout(&out).trim(), json["fen"]);
}

#[test]
fn chess960_keys_through_the_command_line() {
    let shredder = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
    let out = tabiya(&["key", "--variant", "chess960", shredder, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["fen"], "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -");
    assert_eq!(json["variant"], "chess960");
    assert!(json["category"].as_u64().is_some_and(|byte| (81..=196).contains(&byte)), "{json}");
    assert!(json["huffmanBits"].is_null(), "the Huffman code is standard chess's");
    let key = json["key"].as_str().unwrap();
    let out = tabiya(&["key", "--decode", key]);
    assert_eq!(stdout(&out).trim(), "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - (chess960)");
    // The standard start in each space: two keys.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let key_in = |variant: &str| {
        let out = tabiya(&["key", "--variant", variant, start, "--json"]);
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["key"].clone()
    };
    assert_ne!(key_in("standard"), key_in("chess960"));
    let out = tabiya(&["key", "--variant", "crazyhouse", start]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a variant tabiya reads"));
}

#[test]
fn bad_input_is_a_message_and_exit_1() {
    for args in [
        &["key", "not a fen"][..],
        &["key", "8/8/8/8/8/8/8/8 w - - 0 1"],
        &["key", "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"],
        &["key", "--decode", "zz"],
        &["key", "--decode", "00"],
        &["key", "--decode", "ff0000000000000000000000000000000000000000"],
        &["key", "--decode", "50ffffffffffffffffffffffffffffffffffffffff"],
    ] {
        let out = tabiya(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("tabiya: ") && err.len() > 12, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn codec_check_reports_totals() {
    let dir = std::env::temp_dir().join(format!("tabiya-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let epd = dir.join("suite.epd");
    std::fs::write(&epd, "4k3/8/8/8/8/8/8/4K2R w K - bm O-O;\n8/8/8/8/8/8/8/8 w - -\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n").unwrap();
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 e5 2. Nf3 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Qh5 Qxe1 *\n").unwrap();
    let out = tabiya(&["codec", "check", epd.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().last(), Some("6 positions, 0 failed"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("suite.epd:2: illegal position"), "{err}");
    assert!(err.contains("games.pgn: game 2 (line 7): illegal move 2... Qxe1"), "{err}");

    let out = tabiya(&["codec", "check", "--json", epd.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["positions"], 2);
    assert_eq!(json["failed"], 0);
    assert_eq!(json["keyBytes"], 21);
    assert!(json["huffmanBitsMax"].as_u64().unwrap() >= json["huffmanBitsMean"].as_f64().unwrap() as u64);

    let missing = tabiya(&["codec", "check", dir.join("missing.pgn").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_sample_positions_round_trip() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample.epd");
    let out = tabiya(&["codec", "check", sample]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).lines().last(), Some("17 positions, 0 failed"));
}

#[test]
fn demo_ingests_the_embedded_sample_and_queries_it() {
    let out = tabiya(&["demo"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains("ingested the embedded sample: 5 games"), "{text}");
    assert!(text.contains("2 games: white 50.0%, draws 50.0%, black 0.0%"), "{text}");
    assert!(text.contains("b4 ") && text.contains("Nc3 "), "{text}");
    // The three classics end in mate by White.
    assert!(text.contains("3 positions (3 occurrences) in 3 games: White won 3, drawn 0, Black won 0"), "{text}");
    let out = tabiya(&["demo", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["games"], 2);
    assert_eq!(json["moves"].as_array().map(Vec::len), Some(2));
}

#[test]
fn ingest_query_stats_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(
        &pgn,
        "[White \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[White \"b\"]\n\n1. e4 f6 2. d4 g5 3. Qh5# 1-0\n\n\
         [White \"c\"]\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n\n[White \"d\"]\n\n1. e4 e5 2. Ke3 *\n",
    )
    .unwrap();
    let db = dir.path().join("db");
    let rejects = dir.path().join("rejects.pgn");
    let run = |args: &[&str]| common::command().args(args).env("TABIYA_DB", &db).output().expect("binary runs");
    let out = run(&["ingest", "--json", "--rejects", rejects.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["gamesRead"], 4);
    assert_eq!(summary["indexed"], 3);
    assert_eq!(summary["skipped"]["illegal_move"], 1);
    assert_eq!(summary["database"]["games"], 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("games.pgn: game 4 (line 17): illegal move 2. Ke3"), "{err}");
    assert!(!err.contains("games/s"), "no progress bar when stderr is not a terminal: {err}");
    assert_eq!(std::fs::read_to_string(&rejects).unwrap(), "[White \"d\"]\n\n1. e4 e5 2. Ke3 *\n\n\n");

    // --strict: the same skip now fails the run; the database (via --db) changes nothing.
    let out = run(&["ingest", "--strict", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.starts_with("duplicates") && l.ends_with(" 3")), "{text}");

    let out = run(&["query", "--fen", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((json["games"].as_u64(), json["white"].as_u64(), json["black"].as_u64()), (Some(3), Some(2), Some(1)));
    let sans: Vec<_> =
        json["moves"].as_array().unwrap().iter().map(|m| m["san"].as_str().unwrap().to_owned()).collect();
    assert_eq!(sans, ["c5", "e5", "f6"]);

    let out = run(&["stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(stats["games"], 3);
    assert_eq!(stats["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(stats["runs"][1]["duplicates"], 3);
    assert!(stats["bytes"]["positions"].as_u64().unwrap() > 0);
    // Positions one game reaches are in the tier (all here: no game repeats one).
    assert!(stats["tierPositions"].as_u64().unwrap() > 0);
    assert!(stats["tierPositions"].as_u64() <= stats["singleGamePositions"].as_u64());
    // The per-item sizes are the family bytes divided by the counts.
    let bytes = |family: &str| stats["bytes"][family].as_u64().unwrap() as f64;
    // The positions family as its full-key positions and the single-game tier's records.
    let positions = ["positions", "tier marks", "tier maps"];
    let total: f64 = positions
        .iter()
        .chain(&[
            "games",
            "mainlines",
            "facts",
            "headers",
            "labels",
            "fingerprints",
            "players",
            "names",
            "twins",
            "openings",
            "meta",
        ])
        .map(|f| bytes(f))
        .sum();
    assert_eq!(stats["sizes"]["total"].as_u64().unwrap() as f64, total);
    let distinct = stats["distinctPositions"].as_u64().unwrap() as f64;
    let positions: f64 = positions.iter().map(|f| bytes(f)).sum();
    // Equal but for the order of the additions (a last bit).
    let close = |got: f64, want: f64| assert!((got - want).abs() <= want.abs() * 1e-12, "{got} against {want}");
    close(stats["sizes"]["positionsPerPosition"].as_f64().unwrap(), positions / distinct);
    close(stats["sizes"]["gamesPerGame"].as_f64().unwrap(), (bytes("games") + bytes("mainlines")) / 3.0);
    close(stats["sizes"]["totalPerGame"].as_f64().unwrap(), total / 3.0);

    for args in [
        &["query", "--fen", "not a fen"][..],
        &["query", "--db", dir.path().join("nothing").to_str().unwrap(), "--fen", "8/8/8/8/8/8/8/K6k w - -"],
        &["stats", "--db", dir.path().join("nothing").to_str().unwrap()],
        &["ingest", dir.path().join("missing.pgn").to_str().unwrap()],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("tabiya: ") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn query_search_and_openings_commands() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("sample.pgn");
    std::fs::write(&pgn, include_str!("../datasets/sample.pgn")).unwrap();
    let db = dir.path().join("db");
    let run = |args: &[&str]| common::command().args(args).env("TABIYA_DB", &db).output().expect("binary runs");
    assert!(run(&["ingest", pgn.to_str().unwrap()]).status.success());

    // Openings: good lines imported, a bad one reported with its line number (exit 2).
    let tsv = dir.path().join("openings.tsv");
    std::fs::write(&tsv, "eco\tname\tpgn\nC50\tItalian Game\t1. e4 e5 2. Nf3 Nc6 3. Bc4\nX00\tBroken\t1. e4 e4\n")
        .unwrap();
    let out = run(&["openings", "import", tsv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("openings.tsv: line 3: move 2 (e4)"));
    assert!(stdout(&out).starts_with("1 openings imported, 1 lines skipped"));

    // The same position by SAN, UCI and FEN; the opening is the deepest named one of the line.
    let by_san = run(&["query", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5", "--json"]);
    let by_uci = run(&["query", "--uci", "e2e4,e7e5,g1f3,b8c6,f1c4,f8c5", "--json"]);
    let by_fen =
        run(&["query", "--fen", "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&by_san)).unwrap();
    assert_eq!(stdout(&by_san), stdout(&by_uci));
    let fen_json: serde_json::Value = serde_json::from_str(&stdout(&by_fen)).unwrap();
    assert_eq!(fen_json["games"], json["games"]);
    assert_eq!(fen_json["opening"], serde_json::Value::Null, "a bare FEN has no line to walk back");
    assert_eq!(json["opening"]["name"], "Italian Game");
    for field in ["games", "white", "draws", "black", "averageRating", "moves", "topGames", "recentGames", "opening"] {
        assert!(json.get(field).is_some(), "{field}");
    }
    for field in ["uci", "san", "games", "white", "draws", "black", "averageRating", "performance"] {
        assert!(json["moves"][0].get(field).is_some(), "{field}");
    }
    assert_eq!(json["moves"][0]["performance"], 2300, "a draw against 2300");

    // Filters, and the table.
    let out = run(&["query", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5", "--until", "1900", "--json"]);
    let old: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((old["games"].as_u64(), old["white"].as_u64()), (Some(1), Some(1)));
    let out = run(&["query", "--uci", "e2e4", "--player", "anderssen", "--color", "white", "--json"]);
    let anderssen: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(anderssen["games"], 2, "the Immortal and the Evergreen");
    let out = run(&["query", "--moves", "1. e4"]);
    let table = stdout(&out);
    assert!(table.contains("top games:") && table.contains("Anderssen"), "{table}");

    // Games: listed, combined, paged, as JSON and PGN.
    let italian = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let out = run(&["games", "--uci", "e2e4", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(all["total"], 3);
    for field in ["id", "white", "black", "whiteElo", "blackElo", "date", "event", "site", "round", "result"] {
        assert!(all["games"][0].get(field).is_some(), "{field}");
    }
    let out = run(&["games", "--uci", "e2e4", "--and", italian, "--json"]);
    let and: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(and["total"], 1, "the Evergreen");
    assert_eq!(and["games"][0]["black"], "Dufresne, Jean");
    let out = run(&["games", "--uci", "e2e4", "--not", italian, "--offset", "1", "--limit", "1", "--json"]);
    let page: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((page["total"].as_u64(), page["games"].as_array().map(Vec::len)), (Some(2), Some(1)));
    let out = run(&["games", "--fen", italian, "--pgn"]);
    let pgn = stdout(&out);
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    let reread = dir.path().join("reread.pgn");
    std::fs::write(&reread, &pgn).unwrap();
    let out = run(&["ingest", "--json", "--db", dir.path().join("reread").to_str().unwrap(), reread.to_str().unwrap()]);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["indexed"], 2, "the PGN output reads back");
    let out = run(&["games", "--uci", "e2e4", "--sort", "date"]);
    assert!(stdout(&out).starts_with("3 games\n#"), "{}", stdout(&out));

    // Material search.
    let out = run(&["search", "--material", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP", "--limit", "2", "--json"]);
    let found: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(found["hits"][0]["games"], 4);
    assert_eq!(found["hits"][0]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    let out = run(&["search", "--material", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP", "--side", "b", "--json"]);
    let black: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(black["positions"].as_u64() < found["positions"].as_u64());

    // Pattern search: the JSON document, the same games through `games --pattern`, as PGN.
    let out = run(&["search", "--pattern", "mate", "--json"]);
    let mates: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for field in ["positions", "occurrences", "games", "white", "draws", "black", "scanned", "elapsedMs", "hits"] {
        assert!(mates.get(field).is_some(), "{field}");
    }
    for field in ["fen", "games", "white", "draws", "black"] {
        assert!(mates["hits"][0].get(field).is_some(), "{field}");
    }
    assert!(mates["games"].as_u64() >= Some(1), "{mates}");
    assert_eq!(mates["white"].as_u64().unwrap() + mates["black"].as_u64().unwrap(), mates["games"].as_u64().unwrap());
    let out = run(&["games", "--pattern", "mate", "--json"]);
    let mated: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(mated["total"], mates["games"]);
    let out = run(&["games", "--pattern", "mate", "--pgn"]);
    assert_eq!(stdout(&out).matches("[Event ").count() as u64, mates["games"].as_u64().unwrap());
    let out = run(&["search", "--pattern", "pin(B, n, k) or pin(b, N, K)", "--flip-colours", "--limit", "3"]);
    let table = stdout(&out);
    assert!(table.contains("distinct positions examined") && table.contains(" position"), "{table}");
    let out = run(&["search", "--pattern", "wtm", "--material", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP", "--json"]);
    let opening: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(opening["hits"][0]["games"], 4, "the initial position");
    let out = run(&["search", "--pattern", "attacks(Q, k"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("column 13") && err.lines().count() == 1, "{err}");

    for args in [
        &["query", "--moves", "1. e4 e5 2. Ke3"][..],
        &["query", "--uci", "e2e5"],
        &["query", "--moves", "1. e4", "--min-rating", "2450"],
        &["query", "--moves", "1. e4", "--speed", "lightning"],
        &["query", "--moves", "1. e4", "--since", "May"],
        &["search", "--material", "KQQQQQQQQQQvK"],
        &["search", "--material", "QvK"],
        &["openings", "import", dir.path().join("missing.tsv").to_str().unwrap()],
        &["games", "--uci", "e2e4", "--sort", "oldest"],
        &["games", "--uci", "e2e4", "--and", "not a fen"],
        &["search", "--pattern", "Ke9"],
        &["search", "--pattern", "count(P) > 99"],
        &["search", "--pattern", ""],
        &["games", "--pattern", "pin(B, n"],
        &["search", "--pattern", "K", "--material", "KvQ"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("tabiya: ") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn psqt_commands_round_trip_and_refuse_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    // Twelve tables with a rank bonus each: factorised, printed as CSV, read back.
    let mut csv = String::from("phase,piece,value");
    for rank in 1..=8 {
        for file in "abcdefgh".chars() {
            csv += &format!(",{file}{rank}");
        }
    }
    csv.push('\n');
    for (i, piece) in ["pawn", "knight", "bishop", "rook", "queen", "king"].iter().enumerate() {
        for phase in ["mg", "eg"] {
            csv += &format!("{phase},{piece},{}", 100 * i);
            for square in 0..64 {
                csv += &format!(",{}", if square / 8 == 3 { 10 * i as i32 } else { 0 });
            }
            csv.push('\n');
        }
    }
    let tables = dir.path().join("tables.csv");
    std::fs::write(&tables, &csv).unwrap();
    let path = tables.to_str().unwrap();
    let out = tabiya(&["psqt", "factorise", "--input", path, "--components", "2", "--generations", "500", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let iterations = json["iterations"].as_array().unwrap();
    assert_eq!(iterations.len(), 2);
    // One component (the 4th rank) reproduces these tables exactly.
    assert_eq!(iterations[1]["maskedRms"], 0.0);
    assert_eq!(json["packed"]["components"].as_array().unwrap().len(), 2);
    let out = tabiya(&["psqt", "factorise", "--input", path, "--components", "1", "--csv"]);
    assert_eq!(stdout(&out).lines().count(), 13);
    let text = stdout(&tabiya(&["psqt", "factorise", "--input", path, "--components", "1"]));
    assert!(text.contains("masked RMS") && text.contains("literals"), "{text}");

    let report_dir = dir.path().join("report");
    let out = tabiya(&[
        "report",
        "psqt",
        "--input",
        path,
        "--components",
        "1",
        "--format",
        "csv",
        "-o",
        report_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["tables.csv", "approximation.csv", "iterations.csv", "components.csv"] {
        assert!(report_dir.join(name).is_file(), "{name}");
    }
    let out = tabiya(&["report", "psqt", "--input", path, "--components", "1", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["tables"]["values"][2], 100);

    let broken = dir.path().join("broken.csv");
    std::fs::write(&broken, csv.replacen(",10,", ",ten,", 1)).unwrap();
    let missing = dir.path().join("missing.csv");
    std::fs::write(&missing, csv.lines().take(5).collect::<Vec<_>>().join("\n")).unwrap();
    let db = dir.path().join("db");
    for (args, message) in [
        (vec!["psqt", "factorise", "--input", broken.to_str().unwrap()], "line 4: a4: expected an integer"),
        (vec!["psqt", "factorise", "--input", missing.to_str().unwrap()], "no row for mg bishop"),
        (vec!["psqt", "factorise", "--input", path, "--components", "17"], "the largest is 16"),
        (vec!["report", "psqt", "--input", path, "--format", "csv"], "give it with -o DIR"),
        (vec!["report", "psqt", "--input", path, "--format", "pdf"], "html, json or csv"),
        (vec!["psqt", "derive", "--db", db.to_str().unwrap(), "--player", "carlsen"], "not a player"),
    ] {
        let out = tabiya(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(err.contains(message) && !err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A number on the command line is digits alone, as the HTTP API takes it: a sign, a space or
/// a fraction is refused with the option's name before any work (clap's exit status 2).
#[test]
fn numbers_are_digits_alone() {
    for (args, message) in [
        (&["games", "--moves", "e4", "--limit", "+5"][..], "'+5' for '--limit"),
        (&["query", "--min-elo", " 2500"], "' 2500' for '--min-elo"),
        (&["query", "--min-elo", "70000"], "the largest is 65535"),
        (&["export", "positions", "--min-games", "+2"], "'+2' for '--min-games"),
        (&["export", "positions", "--min-games", "2.0"], "'2.0' for '--min-games"),
        (&["report", "opening", "--depth", "+3"], "'+3' for '--depth"),
        (&["stats", "--threads", "0"], "the smallest is 1"),
        (&["ingest", "--skip-twins", "--min-prefix", "9", "x.pgn"], "the smallest is 10"),
        (&["stats", "--memory", "+512M"], "is not a size"),
    ] {
        let out = tabiya(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

/// Every command's error paths a user reaches by mistake: a database path that holds none, an
/// output that cannot be written, a table of nothing. Each is told as the user's to fix (exit
/// 1 or 2 with `tabiya: ` and the path), never as an internal error or a panic, and no command
/// but `ingest` makes a database where none was.
#[test]
fn a_users_mistakes_are_never_internal_errors() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none");
    let none = none.to_str().unwrap();
    let text = dir.path().join("table.txt");
    std::fs::write(&text, "not a table\n").unwrap();
    let text = text.to_str().unwrap();
    let reads: [&[&str]; 16] = [
        &["query"],
        &["games", "--uci", "e2e4"],
        &["search", "--material", "KvK"],
        &["search", "--pattern", "mate"],
        &["export", "book", "--output", "book.bin"],
        &["export", "positions", "--format", "csv", "--output", "p.csv"],
        &["players", "search", "x"],
        &["psqt", "derive"],
        &["report", "database"],
        &["report", "opening"],
        &["report", "psqt"],
        &["twins"],
        &["verify"],
        &["stats"],
        &["checkpoint", "copy"],
        &["openings", "import", text],
    ];
    for args in reads {
        let out = common::command().args(args).args(["--db", none]).current_dir(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("tabiya: ") && !err.contains("internal error") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert!(!std::path::Path::new(none).exists(), "{args:?} made a database at {none}");
    }
    // A database, then outputs that cannot be written and a file where a database should be.
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, "1. e4 e5 2. Nf3 Nc6 1-0\n").unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    assert!(tabiya(&["ingest", "--db", db, pgn.to_str().unwrap()]).status.success());
    let folder = dir.path().to_str().unwrap();
    let inside_a_file = format!("{text}/x");
    let written: [&[&str]; 6] = [
        &["export", "book", "--db", db, "--output", folder],
        &["export", "positions", "--db", db, "--format", "csv", "--output", folder],
        &["report", "database", "--db", db, "--output", &inside_a_file],
        &["psqt", "derive", "--db", db, "--output", &inside_a_file],
        &["checkpoint", "--db", db, folder],
        &["ingest", "--db", text, pgn.to_str().unwrap()],
    ];
    for args in written {
        let out = tabiya(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("tabiya: ") && !err.contains("internal error") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("Os {"), "{args:?}: a message for a person, not a debug dump: {err}");
    }
}
