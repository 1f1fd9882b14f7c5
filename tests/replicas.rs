//! Serving replicas: `tabiya checkpoint` copies a database consistently while another process
//! ingests into it, and two `tabiya serve` over copies behind Debian's nginx (with the
//! repository's `tools/deploy/nginx.conf`) answer a bounded load without one failed request
//! while a replica is killed.

use std::{
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use tabiya::{Key, store::Store};

use crate::common::{
    games::openings,
    server::{self, Server},
    tabiya,
};

fn ingest(db: &Path, pgn: &Path) {
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn checkpoint(db: &Path, dest: &Path) {
    let out = tabiya(&["checkpoint", "--db", db.to_str().unwrap(), dest.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Games reaching the start position: every game of these collections.
fn start_games(store: &Store) -> u64 {
    let start = Key::encode(&tabiya::position::Position::initial()).unwrap();
    store.snapshot().positions().get(&start, tabiya::store::Detail::Head).unwrap().map_or(0, |stats| stats.total.games)
}

#[test]
fn a_checkpoint_taken_during_ingests_holds_a_committed_state() {
    let dir = tempfile::tempdir().unwrap();
    let games = openings(60_000);
    // Five files, each its own ingest run and commit.
    let files: Vec<PathBuf> = games
        .chunks(12_000)
        .enumerate()
        .map(|(index, chunk)| {
            let path = dir.path().join(format!("part-{index}.pgn"));
            std::fs::write(&path, chunk.iter().map(|game| game.pgn() + "\n").collect::<String>()).unwrap();
            path
        })
        .collect();
    let db = dir.path().join("db");
    // The committed totals after each ingest, from a database built alone.
    let mut committed = vec![0];
    {
        let alone = dir.path().join("alone");
        for file in &files {
            ingest(&alone, file);
            committed.push(Store::open_read_only(&alone).unwrap().totals().unwrap().games);
        }
    }
    let done = AtomicBool::new(false);
    let copies = std::thread::scope(|scope| {
        scope.spawn(|| {
            for file in &files {
                ingest(&db, file);
            }
            done.store(true, Ordering::Release);
        });
        // Once the first ingest has created the database.
        while Store::open_read_only(&db).is_err() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut copies = Vec::new();
        while !done.load(Ordering::Acquire) {
            let copy = dir.path().join(format!("copy-{}", copies.len()));
            checkpoint(&db, &copy);
            copies.push(copy);
        }
        copies
    });
    assert!(copies.len() >= 3, "{} checkpoints during the ingests", copies.len());
    let mut seen = Vec::new();
    for copy in &copies {
        let store = Store::open_read_only(copy).unwrap();
        let games = store.totals().unwrap().games;
        assert!(committed.contains(&games), "{games} games: not a committed state of {committed:?}");
        assert_eq!(start_games(&store), games, "{}: positions and totals of one commit", copy.display());
        seen.push(games);
    }
    assert!(seen.iter().any(|&games| games > 0 && games < *committed.last().unwrap()), "{seen:?}");
    // A copy of a finished database: the same contents, and a writer can go on from it.
    let last = dir.path().join("last");
    checkpoint(&db, &last);
    assert_eq!(crate::db_digest::digests(&last).unwrap(), crate::db_digest::digests(&db).unwrap());
    let out = tabiya(&["checkpoint", "--db", db.to_str().unwrap(), last.to_str().unwrap()]);
    assert!(!out.status.success(), "an existing directory is refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exists already: name a new one") && !err.contains("internal error"), "{err}");
}

/// `nginx` with the repository's configuration, in front of `upstreams`, listening on a free
/// port; killed on drop.
struct Nginx {
    child: Child,
    addr: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers too (SIGKILL would orphan them).
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn nginx(prefix: &Path, upstreams: [&str; 2]) -> Nginx {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let config = include_str!("../tools/deploy/nginx.conf")
        .replace("127.0.0.1:9101", upstreams[0])
        .replace("127.0.0.1:9102", upstreams[1])
        .replace("127.0.0.1:9100", &addr);
    std::fs::create_dir_all(prefix.join("logs")).unwrap();
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, config).unwrap();
    let child = Command::new("nginx")
        .arg("-p")
        .arg(prefix)
        .arg("-c")
        .arg(&conf)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx (Debian's nginx package; tools/ci/bootstrap.sh installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(&addr).is_err() {
        assert!(Instant::now() < deadline, "nginx did not listen on {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Nginx { child, addr }
}

/// A GET through `addr`: the status and body, or the error.
fn get(addr: &str, path: &str) -> Result<(u16, String), String> {
    server::request(addr, path).map(|(status, _, body)| (status, body)).map_err(|err| err.to_string())
}

#[test]
#[ignore = "needs Debian's nginx (tools/ci/bootstrap.sh installs it)"]
fn replicas_behind_nginx_lose_no_request_when_one_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, openings(3_000).iter().map(|game| game.pgn() + "\n").collect::<String>()).unwrap();
    let db = dir.path().join("db");
    ingest(&db, &pgn);
    let copies = [dir.path().join("replica-1"), dir.path().join("replica-2")];
    for copy in &copies {
        checkpoint(&db, copy);
    }
    let replicas: Vec<Server> = copies.iter().map(|copy| server::start(copy)).collect();
    let balancer = nginx(&dir.path().join("nginx"), [&replicas[0].addr, &replicas[1].addr]);
    let paths = ["/masters", "/masters?play=e2e4", "/masters?play=e2e4,c7c5", "/masters?play=d2d4&moves=3"];
    // What each path answers, asked of each replica directly: the same.
    let want: Vec<String> = paths
        .iter()
        .map(|path| {
            let answers: Vec<_> = replicas.iter().map(|replica| get(&replica.addr, path).unwrap()).collect();
            assert_eq!(answers[0], answers[1], "{path}");
            assert_eq!(answers[0].0, 200, "{path}");
            answers[0].1.clone()
        })
        .collect();
    let sent = AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    let mut replicas = replicas.into_iter();
    let (first, _second) = (replicas.next().unwrap(), replicas.next().unwrap());
    const THREADS: usize = 4;
    const REQUESTS: usize = 300;
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (sent, failed, want, addr) = (&sent, &failed, &want, &balancer.addr);
            scope.spawn(move || {
                for request in 0..REQUESTS {
                    let which = (thread + request) % paths.len();
                    sent.fetch_add(1, Ordering::Relaxed);
                    match get(addr, paths[which]) {
                        Ok((200, body)) if body == want[which] => {}
                        other => failed.lock().unwrap().push(format!("{}: {other:?}", paths[which])),
                    }
                }
            });
        }
        // A quarter of the way in, one replica dies.
        while sent.load(Ordering::Relaxed) < THREADS * REQUESTS / 4 {
            std::thread::sleep(Duration::from_millis(1));
        }
        first.stop_with(libc::SIGKILL);
    });
    let failed = failed.into_inner().unwrap();
    assert_eq!(sent.load(Ordering::Relaxed), THREADS * REQUESTS);
    assert!(
        failed.is_empty(),
        "{} of {} requests failed: {:?}",
        failed.len(),
        THREADS * REQUESTS,
        &failed[..failed.len().min(5)]
    );
}
