//! The command line as a user runs it.

use std::process::{Command, Output};

fn tabiya(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabiya")).args(args).output().expect("binary runs")
}

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
    assert!(json["huffman_bits"].as_u64().unwrap() > 0);

    let out = tabiya(&["key", "--decode", key, "--json"]);
    assert!(out.status.success());
    let back: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(back["fen"], json["fen"]);
    assert_eq!(back["category"], 0);
    let out = tabiya(&["key", "--decode", key]);
    assert_eq!(stdout(&out).trim(), json["fen"]);
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
    assert!(err.contains("games.pgn: game 2: illegal move Qxe1"), "{err}");

    let out = tabiya(&["codec", "check", "--json", epd.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["positions"], 2);
    assert_eq!(json["failed"], 0);
    assert_eq!(json["key_bytes"], 21);
    assert!(json["huffman_bits_max"].as_u64().unwrap() >= json["huffman_bits_mean"].as_f64().unwrap() as u64);

    let missing = tabiya(&["codec", "check", dir.join("missing.pgn").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_encodes_the_embedded_sample() {
    let out = tabiya(&["demo"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert_eq!(text.lines().last(), Some("17 positions, 0 failed"));
    assert!(text.contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"));
}
