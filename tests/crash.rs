//! Crash safety: `tabiya ingest` processes are killed with SIGKILL at pseudo-random moments
//! (three databases, two kills each); after every kill the database opens and is consistent
//! (every game fully in or fully out), and re-running the same command ends with exactly the
//! database of a clean run: the same totals and values through the store, and the same bytes in
//! every family (nothing a killed run wrote is left behind).

use crate::{common, db_digest};

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use common::Lcg;
use shakmaty::{Chess, Position as _, san::San};
use tabiya::{
    model::GameId,
    store::{Store, StoreError, Totals},
};

/// Random legal games (biased to short openings being shared), with some games repeated.
fn collection(games: usize, seed: u64) -> String {
    let mut rng = Lcg(seed);
    let mut out = String::new();
    let mut texts: Vec<String> = Vec::new();
    for i in 0..games {
        if i % 10 == 9 {
            // A duplicate of an earlier game.
            let earlier = texts[rng.index(texts.len())].clone();
            out += &earlier;
            continue;
        }
        let mut position = Chess::default();
        let mut movetext = String::new();
        let plies = 20 + rng.index(100);
        for ply in 0..plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Early plies choose among few moves so that openings repeat across games.
            let pick = if ply < 6 { rng.index(moves.len().min(3)) } else { rng.index(moves.len()) };
            let m = moves[pick];
            if ply % 2 == 0 {
                movetext += &format!("{}. ", ply / 2 + 1);
            }
            movetext += &format!("{} ", San::from_move(&position, m));
            position.play_unchecked(m);
        }
        let result = ["1-0", "0-1", "1/2-1/2", "*"][rng.index(4)];
        let text = format!(
            "[Event \"crash test\"]\n[White \"player {}\"]\n[Black \"player {}\"]\n[Date \"{}.01.01\"]\n[Round \"{i}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n\n{movetext}{result}\n\n",
            rng.index(50),
            rng.index(50),
            1950 + rng.index(70),
            1500 + rng.index(1200),
        );
        out += &text;
        texts.push(text);
    }
    out
}

fn ingest_command(db: &Path, pgn: &Path) -> Command {
    let mut command = common::command();
    command.arg("ingest").arg("--db").arg(db).arg(pgn).stdout(Stdio::null()).stderr(Stdio::null());
    command
}

/// Totals and a digest of every position's key and statistics and every game.
fn fingerprint(db: &Path) -> (Totals, u64) {
    let store = Store::open_read_only(db).unwrap();
    let totals = store.totals().unwrap();
    let mut hasher = DefaultHasher::new();
    for (key, stats) in common::stored_positions(&store) {
        key.as_bytes().hash(&mut hasher);
        format!("{stats:?}").hash(&mut hasher);
    }
    let view = store.snapshot();
    for id in 1..totals.next_game_id {
        format!("{:?}", view.games().get(GameId(id)).unwrap()).hash(&mut hasher);
    }
    (totals, hasher.finish())
}

/// Whatever a kill left: games are whole (ids dense, each game's positions all counted).
fn check_consistent(db: &Path) {
    let store = match Store::open_read_only(db) {
        Ok(store) => store,
        // Killed while the database was being created: nothing was committed yet.
        Err(StoreError::Missing { .. }) => return,
        Err(err) => panic!("{err}"),
    };
    let totals = store.totals().unwrap();
    let mut occurrences = 0;
    for (_, stats) in common::stored_positions(&store) {
        occurrences += stats.total.games;
    }
    assert_eq!(occurrences, totals.position_occurrences, "position counts match the games stored");
    let mut plies = 0;
    let view = store.snapshot();
    for id in 1..totals.next_game_id {
        plies += view.games().get(GameId(id)).unwrap().expect("every id below next_game_id is stored").plies() as u64;
    }
    assert_eq!(plies, totals.plies);
    assert_eq!(totals.next_game_id.saturating_sub(1), totals.games);
    assert!(view.games().get(GameId(totals.next_game_id.max(1))).unwrap().is_none(), "no game beyond the totals");
}

#[test]
fn sigkill_at_random_moments_then_rerun_equals_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, collection(30_000, 7)).unwrap();

    let clean_db = dir.path().join("clean");
    let started = Instant::now();
    assert!(ingest_command(&clean_db, &pgn).status().unwrap().success());
    let clean_time = started.elapsed();
    let clean = fingerprint(&clean_db);
    assert!(clean.0.games > 20_000, "{:?}", clean.0);

    let mut rng = Lcg(std::process::id() as u64 ^ clean_time.as_nanos() as u64);
    let mut kills = 0;
    for trial in 0..3 {
        // Each trial starts from scratch and is killed twice: the first kill lands at a uniformly
        // random moment of a whole run (parsing, batches, flush, final compaction), or while the
        // database is being created; the second during the re-run. A last run completes it.
        let db = dir.path().join(format!("killed-{trial}"));
        for attempt in 0..2 {
            let delay = match (trial, attempt) {
                (0, 0) => Duration::from_millis(1),
                _ => clean_time.mul_f64(rng.index(800) as f64 / 1000.0),
            };
            let mut child = ingest_command(&db, &pgn).spawn().unwrap();
            std::thread::sleep(delay);
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap();
                kills += 1;
            }
            child.wait().unwrap();
            check_consistent(&db);
        }
        assert!(ingest_command(&db, &pgn).status().unwrap().success());
        check_consistent(&db);
        assert_eq!(fingerprint(&db), clean, "trial {trial}");
        assert_eq!(db_digest::digests(&db).unwrap(), db_digest::digests(&clean_db).unwrap(), "trial {trial}");
    }
    assert!(kills >= 3, "only {kills} runs were still going when killed");
}

/// A run stopped by an error (here: a file size limit, as a full disk stops one) removes its
/// staging area and its uncommitted games, and is recorded as failed; the database keeps its
/// earlier commits, and the next ingest completes.
#[test]
fn a_run_that_fails_on_a_write_error_cleans_up_and_is_recorded_as_failed() {
    // Files may grow to 256 KiB: RocksDB's files of the second collection fit, its staging
    // run does not (a batch of more than 4,096 games, spilled as a run of its own: a smaller
    // one is held in memory; with a smaller limit RocksDB fails too, and nothing can be
    // recorded: the next writer then marks the run interrupted).
    const LIMIT: u64 = 256 << 10;
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.pgn");
    std::fs::write(&first, collection(50, 1)).unwrap();
    let second = dir.path().join("second.pgn");
    std::fs::write(&second, collection(6000, 2)).unwrap();
    let db = dir.path().join("db");
    let ingest = |file: &Path, limit: Option<u64>| {
        let mut command = common::command();
        command.args(["ingest", "--json", "--db", db.to_str().unwrap(), file.to_str().unwrap()]);
        if let Some(limit) = limit {
            // SAFETY: async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let rlimit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                    match libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) {
                        0 => Ok(()),
                        _ => Err(std::io::Error::last_os_error()),
                    }
                });
            }
        }
        command.output().unwrap()
    };
    let out = ingest(&first, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = Store::open_read_only(&db).unwrap().totals().unwrap();
    let out = ingest(&second, Some(LIMIT));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(!db.join("staging").exists(), "the staging area is left behind");
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.totals().unwrap(), before);
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!((runs[1].status.name(), runs[1].counts.indexed), ("failed", 0), "counts of what was committed");
    drop(store);
    let out = ingest(&second, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = Store::open_read_only(&db).unwrap();
    let statuses: Vec<&str> = store.runs().unwrap().iter().map(|run| run.status.name()).collect();
    assert_eq!(statuses, ["completed", "failed", "completed"]);
    // Nothing of the failed run is left: the database is that of the two files ingested cleanly.
    let clean = dir.path().join("clean");
    let out = common::tabiya(&["ingest", "--db", clean.to_str().unwrap(), first.to_str().unwrap()]);
    assert!(out.status.success());
    let out = common::tabiya(&["ingest", "--db", clean.to_str().unwrap(), second.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(store.totals().unwrap(), Store::open_read_only(&clean).unwrap().totals().unwrap());
}

/// Runs `tabiya ingest -v` of `pgn` into `db` and kills it with SIGKILL as soon as its log
/// has a line containing `needle`.
fn kill_at_log_line(db: &Path, pgn: &Path, needle: &str) {
    use std::io::BufRead as _;
    let mut child = common::command()
        .args(["ingest", "-v", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    for line in stderr.lines() {
        if line.unwrap().contains(needle) {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A kill during the final compaction leaves the distinct-position counts known (they were
/// null until the next ingest): they are recorded before the compaction starts.
#[test]
fn a_kill_during_the_final_compaction_leaves_the_counts_known() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, collection(3000, 5)).unwrap();
    let db = dir.path().join("db");
    // Killed as soon as the compaction is said done: before, the counts came after it.
    kill_at_log_line(&db, &pgn, "compacted");
    let totals = Store::open_read_only(&db).unwrap().totals().unwrap();
    assert!(totals.distinct_positions.is_some() && totals.single_game_positions.is_some(), "{totals:?}");
    let counts = Store::open_read_only(&db).unwrap().snapshot().positions().count().unwrap();
    assert_eq!(totals.distinct_positions, Some(counts.distinct));
}

/// A run killed as soon as it has started leaves its record: the next ingest marks it
/// interrupted, so that every run is accounted for.
#[test]
fn a_run_killed_at_its_start_is_recorded_and_then_marked_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, collection(3000, 9)).unwrap();
    let db = dir.path().join("db");
    kill_at_log_line(&db, &pgn, "run started");
    let runs = Store::open_read_only(&db).unwrap().runs().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let out = ingest_command(&db, &pgn).status().unwrap();
    assert!(out.success());
    let runs = Store::open_read_only(&db).unwrap().runs().unwrap();
    let statuses: Vec<_> = runs.iter().map(|run| run.status).collect();
    assert_eq!(statuses, [tabiya::store::RunStatus::Interrupted, tabiya::store::RunStatus::Completed], "{runs:?}");
}

/// A run killed right after a commit, before its record counts what it committed: the next
/// ingest gives the interrupted run the committed games no other run counts, so that the runs'
/// indexed games add up to the database's.
#[test]
fn a_run_killed_after_its_commit_is_given_the_games_it_committed() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, collection(3000, 11)).unwrap();
    let db = dir.path().join("db");
    kill_at_log_line(&db, &pgn, "committed");
    let committed = Store::open_read_only(&db).unwrap().totals().unwrap().games;
    assert!(committed > 0, "the kill came after the commit");
    let out = ingest_command(&db, &pgn).status().unwrap();
    assert!(out.success());
    let store = Store::open_read_only(&db).unwrap();
    let runs = store.runs().unwrap();
    let statuses: Vec<_> = runs.iter().map(|run| run.status).collect();
    assert_eq!(statuses, [tabiya::store::RunStatus::Interrupted, tabiya::store::RunStatus::Completed], "{runs:?}");
    assert_eq!(runs[0].counts.indexed, committed, "{runs:?}");
    let indexed: u64 = runs.iter().map(|run| run.counts.indexed).sum();
    assert_eq!(indexed, store.totals().unwrap().games, "{runs:?}");
}
