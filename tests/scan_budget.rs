//! The server's budget for whole-database scans: a bounded number at once, a bounded queue
//! (503 with Retry-After beyond it), a time limit, and lookups that never wait behind scans.

use std::{
    io::{Read as _, Write as _},
    net::TcpStream,
    sync::mpsc,
    time::Instant,
};

use crate::common::{
    games,
    server::{request, start_with},
};

/// A pattern that asks 124 times a position whether a white piece attacks the black king, each
/// answered afresh (1,982 characters; `check` is computed once a position, however often
/// asked): seconds over a few thousand games.
fn slow_pattern() -> String {
    ["attacks(A,k)"; 124].join("%20or%20")
}

/// Status and whole head (lower case) of a GET.
fn get_head(addr: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let head = answer.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
    (head.split(' ').nth(1).unwrap().parse().unwrap(), head)
}

#[test]
fn scans_beyond_the_queue_are_refused_lookups_do_not_wait_and_slow_scans_stop() {
    let (dir, store) = games::build(&games::generate(4000));
    drop(store);
    let db = dir.path().join("db");
    let temp = std::env::temp_dir();
    let server = start_with(&db, &temp, &["--max-scans", "1", "--scan-queue", "1", "--scan-timeout", "120"]);
    let slow = format!("/pattern?q={}", slow_pattern());
    // One scan runs, one waits, the others are refused at once.
    let (done, finished) = mpsc::channel();
    let started = Instant::now();
    for _ in 0..4 {
        let (addr, path, done) = (server.addr.clone(), slow.clone(), done.clone());
        std::thread::spawn(move || done.send((get_head(&addr, &path), started.elapsed())).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // While they run, lookups, totals and a material search answer (their answers come before
    // the running scan's).
    for path in ["/masters", "/lichess?play=e2e4", "/stats", "/material?material=KRvKR", "/health"] {
        let (status, _, body) = request(&server.addr, path).unwrap();
        assert_eq!(status, 200, "{path}: {body}");
    }
    // Bad parameters of scans are refused before any wait for a place (the queue is full: a
    // wait would have been a 503).
    let too_long = format!("/pattern?q={}", "K".repeat(2001));
    for path in [
        "/book.bin?minGames=0",
        "/book.bin?minScore=101",
        "/pattern?q=Kz9",
        &too_long,
        "/pattern?q=mate&limit=x",
        "/report/database?format=xml",
        "/games?pattern=Kz9",
        "/games?pattern=mate&page=0",
        "/games?pattern=seq(check%2C%20mate)&material=KvK",
    ] {
        let (status, _, body) = request(&server.addr, path).unwrap();
        assert_eq!(status, 400, "{path}: {body}");
    }
    let lookups_done = started.elapsed();
    let mut answers: Vec<((u16, String), std::time::Duration)> = finished.iter().take(4).collect();
    answers.sort_by_key(|((status, _), _)| *status);
    let statuses: Vec<u16> = answers.iter().map(|((status, _), _)| *status).collect();
    assert_eq!(statuses, [200, 200, 503, 503], "{answers:?}");
    let first_scan = answers[..2].iter().map(|(_, at)| *at).min().unwrap();
    assert!(lookups_done < first_scan, "lookups took {lookups_done:?}, the first scan {first_scan:?}");
    for ((_, head), at) in &answers[2..] {
        assert!(head.contains("retry-after: 5"), "{head}");
        assert!(*at < first_scan, "refused at {at:?}, not at once");
    }
    drop(server);
    // A scan past the time limit is stopped and answered 503; the place it held is free again.
    let server = start_with(&db, &temp, &["--max-scans", "1", "--scan-timeout", "0.5"]);
    let clock = Instant::now();
    let (status, _, body) = request(&server.addr, &slow).unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("took longer than this server allows (0.5 s)"), "{body}");
    let refused_after = clock.elapsed();
    let (status, _, body) = request(&server.addr, "/pattern?q=mate").unwrap();
    assert_eq!(status, 200, "after a stopped scan (refused after {refused_after:?}): {body}");
}
