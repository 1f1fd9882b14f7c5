//! Under an address-space limit, as a container or `ulimit -v` sets one: ingest, lookups and
//! the server run (RocksDB's threads each reserved a 64 MiB malloc arena, and every command
//! aborted under 1.7 GB), `--memory` bounds the caches, and a budget too small is refused.

use std::{io::BufRead as _, os::unix::process::CommandExt as _, process::Stdio};

use crate::common::{self, games};

/// Address space a command may take: well under what aborted before.
const LIMIT: u64 = 640 << 20;

/// `tabiya ARGS` under [`LIMIT`].
fn limited(args: &[&str]) -> std::process::Command {
    let mut command = common::command();
    command.args(args);
    // SAFETY: setrlimit(2) between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let rlimit = libc::rlimit { rlim_cur: LIMIT, rlim_max: LIMIT };
            match libc::setrlimit(libc::RLIMIT_AS, &rlimit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    command
}

#[test]
fn ingest_queries_and_the_server_run_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, games::generate(3000).iter().map(games::Game::pgn).collect::<String>()).unwrap();
    let db = dir.path().join("db");
    let db_arg = db.to_str().unwrap();
    for args in [
        vec!["ingest", "--memory", "256M", "--db", db_arg, pgn.to_str().unwrap()],
        vec!["stats", "--db", db_arg],
        vec!["query", "--db", db_arg, "--moves", "1. e4"],
        vec!["search", "--memory", "200M", "--db", db_arg, "--pattern", "check"],
        vec!["report", "database", "--db", db_arg, "--format", "json"],
    ] {
        let out = limited(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    let mut server = limited(&["serve", "--bind", "127.0.0.1:0", "--memory", "200M", "--db", db_arg])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("{line:?}")).to_owned();
    for path in ["/masters", "/pattern?q=mate", "/report/database?format=json", "/stats"] {
        let (status, _, body) = common::server::request(&addr, path).unwrap();
        assert_eq!(status, 200, "{path}: {body}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn a_memory_budget_that_cannot_be_met_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    for (size, said) in [
        ("64M", "a memory budget of 64 MiB cannot be met: tabiya needs 160 MiB at the least"),
        ("lots", "\"lots\" is not a size"),
    ] {
        let out = common::tabiya(&["stats", "--memory", size, "--db", db.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(said), "{size}: {stderr}");
    }
}
