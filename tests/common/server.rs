//! `tabiya serve` as a client sees it: a server on a free port over a database, and GETs over
//! plain TCP (status, content type, body).

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::TcpStream,
    path::Path,
    process::{Child, Stdio},
};

use serde_json::Value;

use super::{command, tabiya};

/// A running `tabiya serve`, killed on drop.
pub struct Server {
    child: Child,
    /// `host:port`.
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Sends `signal` and waits for the server to end.
    pub fn stop_with(mut self, signal: i32) -> std::process::ExitStatus {
        // SAFETY: kill(2) on our own child.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
        self.child.wait().unwrap()
    }
}

/// Serves `db` on a free loopback port.
pub fn start(db: &Path) -> Server {
    start_with_temp(db, &std::env::temp_dir())
}

/// Serves `db` on a free loopback port, with `temp` as its temporary directory.
pub fn start_with_temp(db: &Path, temp: &Path) -> Server {
    start_with(db, temp, &[])
}

/// Serves `db` on a free loopback port, with `temp` as its temporary directory and `options`.
pub fn start_with(db: &Path, temp: &Path, options: &[&str]) -> Server {
    let mut child = command()
        .args(["serve", "--bind", "127.0.0.1:0", "--refresh", "0.2", "--db", db.to_str().unwrap()])
        .args(options)
        .env("TMPDIR", temp)
        .stdout(Stdio::piped())
        .spawn()
        .expect("server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("{line:?}")).to_owned();
    Server { child, addr }
}

/// A GET: status, content type and body.
pub fn get(server: &Server, path: &str) -> (u16, String, String) {
    request(&server.addr, path).unwrap_or_else(|err| panic!("GET {path}: {err}"))
}

/// A GET to `addr` (a server, or a load balancer in front of servers): status, content type and
/// body, or what failed.
pub fn request(addr: &str, path: &str) -> std::io::Result<(u16, String, String)> {
    let malformed = || std::io::Error::other(format!("GET {path}: not an HTTP response"));
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let (head, body) = response.split_once("\r\n\r\n").ok_or_else(malformed)?;
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(malformed)?;
    let content_type = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_owned))
        .unwrap_or_default();
    Ok((status, content_type, body.to_owned()))
}

/// A GET answered with JSON: status and value.
pub fn json(server: &Server, path: &str) -> (u16, Value) {
    let (status, content_type, body) = get(server, path);
    assert!(content_type.starts_with("application/json"), "{path}: {content_type}");
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
}

/// A database of the embedded sample with the sample opening table, in `dir`.
pub fn sample_db(dir: &Path) -> std::path::PathBuf {
    let pgn = dir.join("sample.pgn");
    std::fs::write(&pgn, include_str!("../../datasets/sample.pgn")).unwrap();
    let db = dir.join("db");
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = tabiya(&["openings", "import", "--db", db.to_str().unwrap(), "datasets/openings-sample.tsv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}
