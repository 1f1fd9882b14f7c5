//! Under an address-space limit, as a container or `ulimit -v` sets one: ingest, lookups and
//! the server run (RocksDB's threads each reserved a 64 MiB malloc arena, and every command
//! aborted under 1.7 GB), `--memory` bounds the caches, and a budget too small is refused.
//! On the players collection, a budget holds as the guide states it: resident memory within
//! the budget plus [`RESIDENT_OVERHEAD`], under an address-space limit of the budget plus
//! [`ADDRESS_OVERHEAD`], for an ingest and for a server under load with scans.

use std::{
    io::{BufRead as _, Read as _, Write as _},
    os::unix::process::CommandExt as _,
    process::Stdio,
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use crate::common::{self, games};

/// Address space a command may take: well under what aborted before.
const LIMIT: u64 = 640 << 20;

/// What the guide states a budget holds to beyond its size: resident memory...
const RESIDENT_OVERHEAD: u64 = 128 << 20;
/// ...and address space, with the default threads of a two-core machine.
const ADDRESS_OVERHEAD: u64 = 384 << 20;

/// `tabiya ARGS` under [`LIMIT`].
fn limited(args: &[&str]) -> std::process::Command {
    limited_to(LIMIT, args)
}

/// `tabiya ARGS` under an address-space limit of `limit` bytes.
fn limited_to(limit: u64, args: &[&str]) -> std::process::Command {
    let mut command = common::command();
    command.args(args);
    // SAFETY: setrlimit(2) between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
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
    // A fit's sample is held whole: one the budget cannot hold is refused before any work,
    // saying the largest that fits.
    for (sample, said) in [
        (
            "2000000",
            "a sample of 2000000 positions needs about 454 MiB, more than the memory budget of 256 MiB: sample at most 964689 positions",
        ),
        (
            "0",
            "a fit on every position (sample 0) is not bounded by a memory budget: sample at most 964689 positions under 256 MiB",
        ),
    ] {
        let args = ["psqt", "derive", "--memory", "256M", "--sample", sample, "--db", db.to_str().unwrap()];
        let out = common::tabiya(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(said), "{sample}: {stderr}");
        assert!(!db.exists(), "refused before the database is opened");
    }
}

/// Runs `command` to its end: its exit status, its output and its peak resident bytes, the
/// high-water mark of its own memory (`VmHWM`, read until it exits: a fork's rusage would count
/// the test process's memory it started as).
fn run_measured(mut command: std::process::Command) -> (std::process::ExitStatus, String, u64) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut child = command.stdout(out.reopen().unwrap()).stderr(out.reopen().unwrap()).spawn().unwrap();
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak = peak.max(resident(child.id()).map_or(0, |(_, peak)| peak));
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, std::fs::read_to_string(out.path()).unwrap(), peak)
}

/// A child process killed when dropped: a failed assertion leaves no server behind.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A GET: the status and the response's head (for its headers), or what failed.
fn get(addr: &str, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let response = String::from_utf8_lossy(&response);
    let head = response.split("\r\n\r\n").next().unwrap_or_default().to_ascii_lowercase();
    let status = head.split(' ').nth(1).and_then(|status| status.parse().ok());
    Ok((status.ok_or_else(|| std::io::Error::other(format!("GET {path}: {head:?}")))?, head))
}

/// A process's resident bytes now and at its peak (`/proc/PID/status`), while it runs.
fn resident(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        let line = status.lines().find(|line| line.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// The players collection ingested, then served to 20 clients looking positions up beside 3
/// asking scans, with `--memory 256M` and `512M`, each under an address-space limit of the
/// budget plus [`ADDRESS_OVERHEAD`]: nothing aborts, every game is indexed, every answer is 200
/// or 503 with Retry-After, and the resident memory stays within the budget plus
/// [`RESIDENT_OVERHEAD`] (the server's back under its budget after the load).
#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn players_ingest_and_a_loaded_server_hold_their_memory_budget() {
    let players = common::datasets().join("players.pgn.zst");
    let dir = tempfile::tempdir().unwrap();
    for budget in [256u64 << 20, 512 << 20] {
        let size = format!("{}M", budget >> 20);
        let limit = budget + ADDRESS_OVERHEAD;
        let db = dir.path().join(format!("db-{size}"));
        let db_arg = db.to_str().unwrap();
        // The threads of a two-core machine, which the stated address space is for.
        let ingest = ["ingest", "--threads", "2", "--memory", &size, "--db", db_arg, players.to_str().unwrap()];
        let (status, out, peak) = run_measured(limited_to(limit, &ingest));
        assert!(status.success(), "ingest --memory {size} under {} MiB: {status:?} {out}", limit >> 20);
        assert!(out.contains("indexed                   327605"), "{out}");
        assert!(peak <= budget + RESIDENT_OVERHEAD, "ingest --memory {size}: {} MiB resident at the peak", peak >> 20);

        let serve = ["serve", "--threads", "2", "--bind", "127.0.0.1:0", "--memory", &size, "--db", db_arg];
        let mut server = Killed(limited_to(limit, &serve).stdout(Stdio::piped()).spawn().unwrap());
        let mut line = String::new();
        std::io::BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("{line:?}")).to_owned();
        let lookups = ["", "e2e4", "e2e4,e7e5,g1f3,b8c6", "d2d4,g8f6,c2c4,e7e6", "c2c4,e7e5", "e2e4,c7c5,g1f3,d7d6"];
        let scans = ["/pattern?q=mate&limit=5", "/pattern?q=check&limit=5", "/report/database?format=json"];
        let (stop, failures, answers) = (AtomicBool::new(false), Mutex::new(Vec::new()), Mutex::new([0u64; 2]));
        let ask = |path: String| match get(&addr, &path) {
            Ok((200, _)) => answers.lock().unwrap()[0] += 1,
            Ok((503, head)) if head.contains("retry-after:") => answers.lock().unwrap()[1] += 1,
            other => failures.lock().unwrap().push(format!("{path}: {other:?}")),
        };
        let lookup = |at: usize| format!("/masters?play={}&since={}", lookups[at % lookups.len()], 1950 + at % 60);
        let scan = |at: usize| scans[at % scans.len()].to_owned();
        let askers: [(usize, &(dyn Fn(usize) -> String + Sync)); 2] = [(20, &lookup), (3, &scan)];
        let started = Instant::now();
        std::thread::scope(|scope| {
            for (count, path) in askers {
                for first in 0..count {
                    let (ask, stop) = (&ask, &stop);
                    scope.spawn(move || {
                        for at in (first..).step_by(count) {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            ask(path(at));
                        }
                    });
                }
            }
            while started.elapsed() < Duration::from_secs(8) {
                std::thread::sleep(Duration::from_millis(100));
            }
            stop.store(true, Ordering::Relaxed);
        });
        let failures = failures.into_inner().unwrap();
        let [answered, refused] = answers.into_inner().unwrap();
        assert!(failures.is_empty(), "--memory {size}: {failures:#?}");
        assert!(answered > 100, "--memory {size}: {answered} answered, {refused} refused");
        assert_eq!(get(&addr, "/health").unwrap().0, 200, "--memory {size}: the server after the load");
        let peak = resident(server.0.id()).unwrap().1;
        assert!(peak <= budget + RESIDENT_OVERHEAD, "serve --memory {size}: {} MiB resident at the peak", peak >> 20);
        // Back under the budget once the scans stopped (a timed-out scan ends at its next check).
        let back = Instant::now();
        let mut now = resident(server.0.id()).unwrap().0;
        while now > budget && back.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(250));
            now = resident(server.0.id()).unwrap().0;
        }
        assert!(now <= budget, "serve --memory {size}: {} MiB resident 20 s after the load", now >> 20);
    }
}
