//! A damaged database gives an error, never a wrong answer: commands and the server refuse a
//! database with a table file missing or damaged, a server reports damage found while it runs
//! on `/health`, and RocksDB's messages are said once.

use std::path::{Path, PathBuf};

use crate::common::{self, server, tabiya};

/// The table files of `db`, in name order.
fn table_files(db: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(db)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sst"))
        .collect();
    files.sort();
    files
}

/// Overwrites 8 bytes of `file` at `offset` (in place, as a bad disk block would).
fn scribble(file: &Path, offset: u64) {
    use std::{
        io::{Seek as _, SeekFrom, Write as _},
        os::unix::fs::FileExt as _,
    };
    let mut handle = std::fs::OpenOptions::new().read(true).write(true).open(file).unwrap();
    let mut old = [0u8; 8];
    handle.read_exact_at(&mut old, offset).unwrap();
    handle.seek(SeekFrom::Start(offset)).unwrap();
    handle.write_all(&old.map(|byte| !byte)).unwrap();
}

/// The ways a table file is damaged: gone, its footer overwritten, the blocks before the footer
/// (properties, index, meta index) overwritten.
#[derive(Clone, Copy, Debug)]
enum Damage {
    Deleted,
    Footer,
    IndexOrProperties,
}

impl Damage {
    fn apply(self, file: &Path) {
        let size = std::fs::metadata(file).unwrap().len();
        match self {
            Damage::Deleted => std::fs::remove_file(file).unwrap(),
            // The footer is the last 53 bytes; its checksum covers them.
            Damage::Footer => scribble(file, size - 40),
            Damage::IndexOrProperties => scribble(file, size - 53 - 80),
        }
    }
}

/// A copy of `db` at `dir/name`.
fn copy_of(db: &Path, dir: &Path, name: &str) -> PathBuf {
    let copy = dir.join(name);
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(db).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    copy
}

/// A copy of `db` at `dir/name` with its `index`-th table file damaged by `damage`.
fn damaged_copy(db: &Path, dir: &Path, name: &str, index: usize, damage: Damage) -> PathBuf {
    let copy = copy_of(db, dir, name);
    damage.apply(&table_files(&copy)[index]);
    copy
}

/// A database of `count` generated games, in a directory kept while it lives.
fn generated_db(count: usize) -> (tempfile::TempDir, PathBuf) {
    let (dir, store) = common::games::build(&common::games::generate(count));
    drop(store);
    let db = dir.path().join("db");
    (dir, db)
}

#[test]
fn commands_and_the_server_refuse_a_database_with_a_damaged_table_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = server::sample_db(dir.path());
    let files = table_files(&db).len();
    assert!(files >= 8, "{files} table files");
    for damage in [Damage::Deleted, Damage::Footer, Damage::IndexOrProperties] {
        for index in 0..files {
            let name = format!("{damage:?}-{index}");
            let copy = damaged_copy(&db, dir.path(), &name, index, damage);
            let out = tabiya(&["stats", "--db", copy.to_str().unwrap()]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{name}: stats succeeded: {}", String::from_utf8_lossy(&out.stdout));
            // Said once, as one line: no "Corruption: Corruption:", no message repeated as its cause.
            assert_eq!(stderr.matches("Corruption:").count(), 1, "{name}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
            // The server, which opens the database as a secondary (that would see no games),
            // refuses it too (one file of each damage: each refusal retries for two seconds).
            if index == files / 2 {
                let out = common::command()
                    .args(["serve", "--bind", "127.0.0.1:0", "--db", copy.to_str().unwrap()])
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(!out.status.success(), "{name}: serve ran: {}", String::from_utf8_lossy(&out.stdout));
                assert!(out.stdout.is_empty(), "{name}: serve listened");
                assert!(stderr.contains("Corruption:"), "{name}: {stderr}");
            }
        }
    }
}

#[test]
fn a_server_reports_damage_found_while_it_runs_on_health() {
    let (_dir, db) = generated_db(600);
    let server = server::start(&db);
    assert_eq!(server::json(&server, "/health"), (200, serde_json::json!({ "status": "ok" })));
    let (status, before) = server::json(&server, "/report/database?format=json");
    assert_eq!(status, 200, "{before}");
    // The first data block of every table file goes bad under the running server.
    for file in table_files(&db) {
        scribble(&file, 16);
    }
    // Whole-database reads meet the damage: they fail (never a smaller answer), and from then
    // on /health says so.
    for path in ["/report/database?format=json", "/pattern?q=check", "/material?material=KRvK"] {
        let (status, answer) = server::json(&server, path);
        assert!(status == 500 || status == 200 && answer == before, "{path}: {status} {answer}");
    }
    let (status, health) = server::json(&server, "/health");
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["status"], "damaged");
    assert!(health["error"].as_str().unwrap().contains("Corruption: block checksum mismatch"), "{health}");
}

#[test]
fn a_second_writer_is_told_which_process_holds_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let _writer = tabiya::store::Store::open(&db).unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, "1. e4 e5 1-0\n").unwrap();
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("another tabiya process is writing this database"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `tabiya verify` on `db`: its exit status and output.
fn verify(db: &Path, quick: bool) -> (bool, String) {
    let mut args = vec!["verify", "--db", db.to_str().unwrap()];
    if quick {
        args.push("--quick");
    }
    let out = tabiya(&args);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn verify_finds_each_damage_and_no_false_alarm() {
    let (dir, db) = generated_db(400);
    for quick in [false, true] {
        let (sound, text) = verify(&db, quick);
        assert!(sound, "a healthy database: {text}");
        assert!(text.contains(": sound ("), "{text}");
    }
    let files = table_files(&db).len();
    // Files RocksDB opens: refused before anything is read, the file named.
    for damage in [Damage::Deleted, Damage::Footer, Damage::IndexOrProperties] {
        for index in [0, files / 2, files - 1] {
            let copy = damaged_copy(&db, dir.path(), &format!("{damage:?}-{index}"), index, damage);
            let (sound, text) = verify(&copy, true);
            assert!(!sound && text.contains("cannot be opened") && text.contains(".sst"), "{damage:?} {index}: {text}");
        }
    }
    // A data block: found by the checksums, with its file.
    let copy = copy_of(&db, dir.path(), "data-block");
    let largest = table_files(&copy).into_iter().max_by_key(|file| std::fs::metadata(file).unwrap().len()).unwrap();
    scribble(&largest, 16);
    for quick in [true, false] {
        let (sound, text) = verify(&copy, quick);
        let name = largest.file_name().unwrap().to_str().unwrap();
        assert!(!sound && text.contains("block checksum mismatch") && text.contains(name), "{text}");
    }
    // Sound bytes, a wrong database: a position deleted from the positions family (as a lost
    // write would), found by the games that reach it, with the game, ply and key.
    let copy = copy_of(&db, dir.path(), "lost-position");
    let rocks = rocksdb::DB::open_cf(&rocksdb::Options::default(), &copy, families_of()).unwrap();
    let positions = rocks.cf_handle("positions").unwrap();
    let lost = rocks
        .iterator_cf(positions, rocksdb::IteratorMode::Start)
        .map(|entry| entry.unwrap().0)
        .find(|key| key.len() == tabiya::codec::KEY_LEN)
        .expect("a full-key position");
    rocks.delete_cf(positions, &lost).unwrap();
    rocks.flush_cf(positions).unwrap();
    drop(rocks);
    let (sound, text) = verify(&copy, false);
    let hex: String = lost.iter().map(|byte| format!("{byte:02x}")).collect();
    assert!(!sound, "{text}");
    assert!(text.contains(&format!("(position {hex}): its game is not listed there")), "{hex}: {text}");
    assert!(text.contains("pairs, where the games reach"), "{text}");
    // Its checksums are sound: --quick cannot tell.
    assert!(verify(&copy, true).0);
    // A tier map whose bytes were changed and written again (sound blocks, a wrong map): found
    // by the map's own checksum, the map named.
    let copy = copy_of(&db, dir.path(), "tier-map");
    let rocks = rocksdb::DB::open_cf(&rocksdb::Options::default(), &copy, families_of()).unwrap();
    let positions = rocks.cf_handle("positions").unwrap();
    let (key, mut value) = rocks
        .iterator_cf(positions, rocksdb::IteratorMode::From(&[0xf1], rocksdb::Direction::Forward))
        .map(|entry| entry.unwrap())
        .find(|(key, _)| key.first() == Some(&0xf1))
        .expect("a tier map");
    let middle = value.len() / 2;
    value[middle] ^= 0x10;
    rocks.put_cf(positions, &key, &value).unwrap();
    rocks.flush_cf(positions).unwrap();
    drop(rocks);
    let (sound, text) = verify(&copy, false);
    let hex: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
    assert!(!sound && text.contains(&format!("tier map {hex}")), "{hex}: {text}");
}

/// Every column family's name, for opening a database's copy with RocksDB itself.
fn families_of() -> impl Iterator<Item = &'static str> {
    tabiya::store::COLUMN_FAMILIES.iter().copied().chain(["default"])
}

/// A facts run, then a header facts run, cut short by a record (sound bytes, a lost write): the
/// last game has none. Every query that needs them fails with the error, whether they are held
/// whole or read a page at a time (where the other pages still read), never answering without
/// the game: lookups, game lists, material and pattern searches, the opening report.
#[test]
fn records_cut_short_are_an_error_whole_or_in_pages() {
    use tabiya::{
        explore::{FilterSpec, GameSource, GamesQuery, Limits, Lookup, MAX_HITS, MaterialQuery, PatternQuery, Target},
        model::GameId,
        report::opening::{OpeningOptions, OpeningReport},
        store::Store,
    };

    let (dir, db) = generated_db(600);
    let start = || Target::fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").resolve().unwrap();
    let facts_filter = FilterSpec { result: Some("1-0".into()), ..FilterSpec::default() };
    let headers_filter = FilterSpec { min_plies: Some(10), ..FilterSpec::default() };
    for (family, spec, record) in [("facts", facts_filter, 8), ("headers", headers_filter, 12)] {
        let copy = copy_of(&db, dir.path(), &format!("{family}-cut"));
        let rocks = rocksdb::DB::open_cf(&rocksdb::Options::default(), &copy, families_of()).unwrap();
        let cf = rocks.cf_handle(family).unwrap();
        let (key, value) = rocks.iterator_cf(cf, rocksdb::IteratorMode::End).next().unwrap().unwrap();
        rocks.put_cf(cf, &key, &value[..value.len() - record]).unwrap();
        rocks.flush_cf(cf).unwrap();
        drop(rocks);
        let filter = spec.filter().unwrap();
        let wanted = format!("corrupt {family} of game 600");
        for paged in [false, true] {
            let store = Store::open_read_only(&copy).unwrap();
            if paged {
                store.read_game_records_in_pages(16, 4096);
            }
            let lookup = Lookup { target: start(), filter: filter.clone(), limits: Limits::default() }.run(&store);
            let listed = GamesQuery { filter: filter.clone(), ..common::every_game(GameSource::Position(start())) };
            let material = MaterialQuery {
                signature: "KQRRBBNNP*vKQRRBBNNP*".parse().unwrap(),
                side: None,
                castling: None,
                limit: MAX_HITS,
                filter: filter.clone(),
                variant: Default::default(),
            };
            let pattern = PatternQuery {
                pattern: "check".parse().unwrap(),
                material: None,
                side: None,
                limit: MAX_HITS,
                filter: filter.clone(),
                variant: Default::default(),
            };
            let report = OpeningReport::build(&store, &start(), &OpeningOptions::new(filter.clone()));
            let errors = [
                lookup.map(|_| ()).unwrap_err().to_string(),
                listed.run(&store).map(|_| ()).unwrap_err().to_string(),
                material.run(&store).map(|_| ()).unwrap_err().to_string(),
                pattern.run(&store).map(|_| ()).unwrap_err().to_string(),
                report.map(|_| ()).unwrap_err().to_string(),
            ];
            for error in errors {
                assert!(error.contains(&wanted), "{family}, paged: {paged}: {error}");
            }
            // The pages of the other games still read.
            if paged && family == "facts" {
                let view = store.snapshot();
                let table = view.facts().table().unwrap();
                assert!(table.get(GameId(1)).is_some() && table.get(GameId(600)).is_none());
                assert!(table.checked(()).unwrap_err().to_string().contains(&wanted));
            }
        }
    }
}
