//! Input built to hurt: what ingest accepts must be readable, what it cannot store is skipped
//! with its reason while the games around it are indexed, and inputs that are not files are
//! passed over instead of hanging or looping.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, server, tabiya};
use tabiya::input::MAX_GAME_PLIES;

/// A legal game of `plies` plies: the knights go out and back.
fn knight_shuffle(plies: usize, event: &str) -> String {
    const MOVES: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut text = format!(
        "[Event \"{event}\"]\n[White \"Shuffler, A\"]\n[Black \"Shuffler, B\"]\n[Result \"1-0\"]\n\
         [WhiteElo \"2850\"]\n[BlackElo \"2850\"]\n\n"
    );
    for ply in 0..plies {
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(MOVES[ply % 4]);
        text.push(if ply % 16 == 15 { '\n' } else { ' ' });
    }
    text.push_str("1-0\n\n");
    text
}

fn ingest_json(db: &Path, pgn: &Path) -> (Value, String) {
    let out = tabiya(&["ingest", "--json", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

#[test]
fn games_too_long_to_store_are_skipped_and_the_longest_allowed_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("long.pgn");
    let long_tag = format!("[Event \"tag\"]\n[Annotator \"{}\"]\n\n1. e4 e5 1-0\n\n", "x".repeat(1 << 20));
    let text = [
        "[Event \"before\"]\n\n1. e4 c5 1/2-1/2\n\n".to_owned(),
        knight_shuffle(MAX_GAME_PLIES + 1, "too long"),
        knight_shuffle(MAX_GAME_PLIES, "longest"),
        long_tag,
        "[Event \"after\"]\n\n1. d4 d5 0-1\n\n".to_owned(),
    ]
    .concat();
    std::fs::write(&pgn, text).unwrap();
    let db = dir.path().join("db");
    let (summary, stderr) = ingest_json(&db, &pgn);
    assert_eq!(summary["indexed"], 3, "{summary}");
    assert_eq!(summary["skipped"]["too_long"], 2, "{summary}");
    // The lines of the move past the limit (16 plies a line from line 12) and of the long tag.
    assert!(stderr.contains("game 2 (line 1118): more than 17697 plies"), "{stderr}");
    assert!(stderr.contains("game 4 (line 2236): a tag line of 1048590 bytes"), "{stderr}");
    // The longest game is among the start position's top games (its ratings are the highest):
    // every way of reading it works.
    let server = server::start(&db);
    for path in ["/masters", "/lichess", "/masters?play=g1f3"] {
        let (status, answer) = server::json(&server, path);
        assert_eq!(status, 200, "{path}: {answer}");
        assert_eq!(answer["topGames"][0]["white"]["name"], "Shuffler, A", "{path}: {answer}");
    }
    let id = server::json(&server, "/masters").1["topGames"][0]["id"].as_str().unwrap().to_owned();
    let (status, _, pgn_text) = server::get(&server, &format!("/masters/pgn/{id}"));
    assert_eq!(status, 200);
    assert_eq!(pgn_text.matches("Nf3").count(), MAX_GAME_PLIES.div_ceil(4), "the whole game");
    let (status, game) = server::json(&server, &format!("/game/{id}"));
    assert_eq!(status, 200, "{game}");
    let out = tabiya(&["query", "--db", db.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["white"].as_u64().unwrap() + answer["draws"].as_u64().unwrap(), 2, "{answer}");
}

#[test]
fn fifos_loops_and_dangling_links_in_a_directory_are_passed_over_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::write(input.join("a.pgn"), include_str!("../datasets/sample.pgn")).unwrap();
    std::fs::write(input.join("sub/b.pgn"), "[Event \"b\"]\n\n1. c4 e5 1-0\n").unwrap();
    let fifo = std::ffi::CString::new(input.join("pipe.pgn").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("..", input.join("sub/up")).unwrap();
    std::os::unix::fs::symlink("nowhere.pgn", input.join("broken.pgn")).unwrap();
    let db = dir.path().join("db");
    // No pipe writer exists: an ingest that opened the FIFO would wait forever.
    let mut child = common::command()
        .args(["ingest", "--json", "--strict", "--db", db.to_str().unwrap(), input.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("ingest hangs on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Every game read once (the loop would read sub/b.pgn again and again), the rest said.
    assert_eq!(out.status.code(), Some(2), "--strict: something was passed over; {stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((summary["indexed"].as_u64(), summary["readErrors"].as_u64()), (Some(6), Some(0)), "{summary}");
    let said = |name: &str, reason: &str| {
        let line = format!("tabiya: passed over {}: {reason}", input.join(name).display());
        assert!(stderr.lines().any(|l| l.starts_with(&line)), "{line:?} not in {stderr}");
    };
    said("pipe.pgn", "not a regular file");
    said("sub/up", &format!("a symbolic link back to {}, a loop", input.display()));
    said("broken.pgn", "a symbolic link to nothing");
    assert_eq!(stderr.lines().count(), 3, "{stderr}");
}

#[test]
fn tags_that_a_spreadsheet_would_run_are_defused_in_report_csv() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("formulas.pgn");
    let game = |white: &str, black: &str, moves: &str| {
        format!("[Event \"=1+1\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[WhiteElo \"2500\"]\n\n{moves} 1-0\n\n")
    };
    let text = [
        game("Formula, Eve", "=HYPERLINK(\\\"http://evil.example\\\")", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"),
        game("Formula, Eve", "@SUM(A1:A9)", "1. d4 d5"),
        game("Formula, Eve", "+cmd|' /C calc'!A0", "1. c4 e5"),
    ]
    .concat();
    std::fs::write(&pgn, text).unwrap();
    let db = dir.path().join("db");
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = dir.path().join("csv");
    let out = tabiya(&[
        "report",
        "player",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "csv",
        "-o",
        csv.to_str().unwrap(),
        "formula",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut cells = 0;
    for file in std::fs::read_dir(&csv).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for cell in text.split([',', '\r', '\n']).map(|cell| cell.trim_start_matches('"')) {
            assert!(!cell.starts_with(['=', '@', '+']), "a formula reaches the spreadsheet: {cell:?}");
            cells += usize::from(cell.starts_with("'=") || cell.starts_with("'@") || cell.starts_with("'+"));
        }
    }
    assert!(cells >= 3, "the opponents' names are in the report, defused: {cells}");
}

#[test]
fn compressed_standard_input_is_told_by_its_first_bytes() {
    use std::io::Write as _;
    let text = include_bytes!("../datasets/sample.pgn");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(text).unwrap();
    let mut bzip = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bzip.write_all(text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("zstd", zstd::encode_all(&text[..], 3).unwrap()),
        ("gzip", gzip.finish().unwrap()),
        ("bzip2", bzip.finish().unwrap()),
        ("plain", text.to_vec()),
    ] {
        let db = dir.path().join(name);
        let mut child = common::command()
            .args(["ingest", "--json", "--strict", "--db", db.to_str().unwrap(), "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["indexed"], 5, "{name}: {summary}");
    }
}
