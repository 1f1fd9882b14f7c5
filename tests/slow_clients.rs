//! The server against slow clients and browsers: a request's headers and an idle kept-alive
//! connection have a time limit, and `--cors` lets pages of the origins named call the API.

use std::{
    io::{Read as _, Write as _},
    net::TcpStream,
    time::{Duration, Instant},
};

use crate::common::server::{sample_db, start_with};

/// Seconds until the server closes `stream` (reads until the end, answers included).
fn closed_after(mut stream: TcpStream) -> (f64, String) {
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let started = Instant::now();
    let mut read = Vec::new();
    stream.read_to_end(&mut read).expect("the server closes the connection");
    (started.elapsed().as_secs_f64(), String::from_utf8_lossy(&read).into_owned())
}

#[test]
fn incomplete_headers_and_idle_connections_are_closed_after_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_with(&sample_db(dir.path()), &std::env::temp_dir(), &["--header-timeout", "1"]);
    // Headers that never end.
    let mut slow = TcpStream::connect(&server.addr).unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: test\r\n").unwrap();
    let (seconds, answer) = closed_after(slow);
    assert!((0.9..5.0).contains(&seconds), "closed after {seconds} s");
    assert!(!answer.contains("200 OK"), "{answer}");
    // A kept-alive connection: its answer, then closed once idle.
    let mut idle = TcpStream::connect(&server.addr).unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
    let (seconds, answer) = closed_after(idle);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!((0.9..5.0).contains(&seconds), "closed after {seconds} s");
    // A connection that keeps sending one header byte a while never gets past the limit.
    let mut dribble = TcpStream::connect(&server.addr).unwrap();
    dribble.write_all(b"GET /health HTTP/1.1\r\n").unwrap();
    let started = Instant::now();
    let mut cut = false;
    while started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
        if dribble.write_all(b"X").is_err() {
            cut = true;
            break;
        }
    }
    assert!(cut, "a client dribbling its headers kept the connection for 10 s");
}

/// The response head of `request` sent to `addr`.
fn head(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let (_, answer) = closed_after(stream);
    answer.split("\r\n\r\n").next().unwrap().to_ascii_lowercase()
}

#[test]
fn cors_answers_the_origins_named_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let get =
        |origin: &str| format!("GET /masters HTTP/1.1\r\nHost: t\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n");
    let preflight = "OPTIONS /masters?play=e2e4 HTTP/1.1\r\nHost: t\r\nOrigin: https://app.example\r\n\
                     Access-Control-Request-Method: GET\r\nConnection: close\r\n\r\n";
    let server = start_with(&db, &std::env::temp_dir(), &["--cors", "https://app.example"]);
    let answer = head(&server.addr, &get("https://app.example"));
    assert!(answer.starts_with("http/1.1 200"), "{answer}");
    assert!(answer.contains("access-control-allow-origin: https://app.example"), "{answer}");
    let answer = head(&server.addr, preflight);
    assert!(answer.starts_with("http/1.1 200"), "{answer}");
    assert!(answer.contains("access-control-allow-methods: get"), "{answer}");
    let answer = head(&server.addr, &get("https://evil.example"));
    assert!(!answer.contains("access-control-allow-origin"), "{answer}");
    drop(server);
    // Any origin with `*`; none without the option.
    let server = start_with(&db, &std::env::temp_dir(), &["--cors", "*"]);
    assert!(head(&server.addr, &get("https://other.example")).contains("access-control-allow-origin: *"));
    drop(server);
    let server = start_with(&db, &std::env::temp_dir(), &[]);
    assert!(!head(&server.addr, &get("https://app.example")).contains("access-control"));
}
