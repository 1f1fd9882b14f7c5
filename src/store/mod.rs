//! The position database on disk: a RocksDB directory with thirteen column families (their keys
//! and values are docs/FORMAT.md's, "The database", and [`layout`]'s in code).
//!
//! | family | holds |
//! |---|---|
//! | `positions` | each position's statistics under its [`Key`](crate::Key); the commit record; the single-game [`tier`] |
//! | `games` | each game's tags and result, by [`GameId`](crate::model::GameId) |
//! | `mainlines` | each game's start and mainline, what a replay reads |
//! | `annotations` | each annotated game's evaluations, clocks and move times ([`GameAnnotations`](crate::model::GameAnnotations)) |
//! | `facts` | each game's result, ratings, month and speed, eight bytes, held in memory, or read in pages under a budget, by [`FactsTable`] |
//! | `headers` | each game's day, ECO code, length and event and site hashes, twelve bytes, read likewise by [`HeadersTable`] when a filter needs them |
//! | `labels` | each distinct event and site text, under its hash |
//! | `fingerprints` | the games stored, by [`Fingerprint`](crate::model::Fingerprint): exactly-once ingestion |
//! | `players` | each game under its players' names |
//! | `names` | each spelling under its folded words: what a player lookup reads |
//! | `twins` | each game under a hash of what its twins share |
//! | `openings` | an imported opening table's names, by [`Key`](crate::Key) |
//! | `meta` | the format version, the ingest runs ([`RunRecord`]) |
//!
//! A [`Store`] is the open database: opening it ([`Store::open`] for the one writer,
//! [`Store::open_read_only`], [`Store::open_secondary`] to follow a writer), its totals and
//! runs, and catching up with a writer. Everything else goes through two doors:
//!
//! - **reading**: a [`Snapshot`] ([`Store::snapshot`], or [`Store::scan_snapshot`] for a query
//!   that may run long) is a value a query holds: the database stands still for it, and its
//!   typed views read one thing each ([`read`]: positions, games, players, facts, scans);
//! - **writing**: the [`Writer`] ([`Store::writer`]): batches of games, the commit of staged
//!   positions, and what a build spread over machines writes apart ([`mod@write`]).
//!
//! Every RocksDB option is in `options.rs`; every stored byte in [`layout`].

mod checkpoint;
mod error;
pub mod layout;
mod memory;
pub mod meta;
mod options;
pub mod read;
mod snapshot;
pub mod tier;
mod verify;
pub mod write;

pub use checkpoint::checkpoint;
pub use error::StoreError;
pub use layout::{Detail, Occurrences, StoredValue, game_values};
pub use memory::{
    DEFAULT_MEMORY, MIN_MEMORY, limit_reservations, memory_budget, memory_share, parse_size, set_memory_budget,
};
pub use meta::{AnnotationCounts, RunCounts, RunRecord, RunStatus, Totals};
pub use options::COLUMN_FAMILIES;
pub use read::{
    FactsTable, GameColumn, GameRecords, HeadersTable, PositionCounts, SUMMARY_BUDGET, SUMMARY_MIN_GAMES, ScanFilter,
    ScanPart, ScanProgress, ScannedPosition, facts_records, pack_facts,
};
pub use snapshot::Snapshot;
pub use tier::TierHit;
pub use verify::{Problem, Verification, verify};
pub use write::{
    BOUND_EVERY, Batch, COMMIT_RANGES, CommitBase, FamilyFile, GameWrite, HeldRun, MAX_COMMIT_RANGES, Occurrence,
    RangeWritten, RunRecords, SUMMED_FROM, Staging, Writer, commit_pivots, decode_run_records, encode_run_records,
    is_range_bound, ranges_between,
};
pub(crate) use write::{put_file_name, put_text, read_file_name, read_text};

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use rocksdb::{ColumnFamily, DB, Options};

use self::layout::{
    decode_record,
    keys::{COMMIT_KEY, FORMAT_KEY, RUN_PREFIX, tier_record_ranges},
};

/// An open database.
pub struct Store {
    db: DB,
    path: PathBuf,
    /// How it was opened: only a writer hands out a [`Writer`].
    mode: Mode,
    /// The private directory of a secondary instance, removed on drop.
    secondary: Option<PathBuf>,
    /// The committed `next_game_id`: games, facts, players and fingerprints at or above it are not
    /// committed yet (or were left by a killed ingest) and are not shown.
    committed: AtomicU64,
    cache: rocksdb::Cache,
    /// The committed games' facts, loaded on first use.
    facts: read::facts::SharedColumn<{ layout::FACTS_LEN }>,
    /// The committed games' header facts, loaded on first use.
    headers: read::facts::SharedColumn<{ layout::HEADERS_LEN }>,
    /// Popular positions' games summed by slice, for filtered lookups.
    summaries: read::summaries::Memory,
    /// The single-game tier's maps, loaded on first use.
    tier: std::sync::RwLock<Option<std::sync::Arc<tier::TierIndex>>>,
    /// Keeps the view still under snapshots, and lets a catch-up or a commit change it between
    /// them.
    stillness: snapshot::Stillness,
    /// The first damage found in the database's data (see [`Store::damage`]).
    damage: std::sync::OnceLock<String>,
}

/// How a [`Store`] was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Writer,
    ReadOnly,
    Secondary,
}

/// How a secondary's private directory in the temporary directory starts; the owning process's
/// id follows.
const SECONDARY_PREFIX: &str = "tabiya-secondary-";

/// Removes the private directories that secondaries of processes no longer running left in
/// `temp` (a server killed with SIGKILL cannot remove its own). Best effort: a directory that
/// cannot be removed (another user's) is left, and without `/proc` to say which processes run,
/// nothing is removed.
fn remove_dead_secondaries(temp: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(SECONDARY_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(dir) = &self.secondary {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Store {
    /// A store over an opened database; the committed id is read by the caller.
    fn new(db: DB, path: &Path, mode: Mode, secondary: Option<PathBuf>, cache: rocksdb::Cache) -> Store {
        Store {
            db,
            path: path.to_owned(),
            mode,
            secondary,
            committed: AtomicU64::new(0),
            cache,
            facts: Default::default(),
            headers: Default::default(),
            summaries: Default::default(),
            tier: Default::default(),
            stillness: Default::default(),
            damage: Default::default(),
        }
    }

    /// Opens (creating if needed) the database at `path` for writing. A database of another
    /// format is refused before anything is written to it (not even a family of this format).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if path.exists() && !path.is_dir() {
            let what = "a file, not a database (a database is a directory): name another path".to_owned();
            return Err(StoreError::Refused { path: path.to_owned(), what });
        }
        if path.join("CURRENT").exists() {
            // An interrupted creation is completed below; other errors show there too.
            if let Err(err @ StoreError::Format { .. }) = Store::open_read_only(path) {
                return Err(err);
            }
        }
        let cache = options::block_cache();
        let db = DB::open_cf_descriptors(&options::db_options(), path, options::column_families(&cache))
            .map_err(|error| StoreError::Rocks { path: path.to_owned(), error })?;
        let store = Store::new(db, path, Mode::Writer, None, cache);
        match store.meta(FORMAT_KEY)? {
            None => store.writer()?.write_format(meta::FORMAT_VERSION)?,
            Some(bytes) => store.check_format(&bytes)?,
        }
        store.load_committed()?;
        Ok(store)
    }

    /// Opens an existing database for reading.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let present = Self::check_created(path)?;
        let cache = options::block_cache();
        let mut db_options = options::db_options();
        db_options.create_if_missing(false);
        let db = DB::open_cf_descriptors_read_only(&db_options, path, Self::families(&cache, &present), false)
            .map_err(|error| StoreError::Rocks { path: path.to_owned(), error })?;
        Store::new(db, path, Mode::ReadOnly, None, cache).with_format(&present)
    }

    /// Opens an existing database as a RocksDB secondary: it reads while another process
    /// ingests, and sees what that process has flushed after each [`Store::catch_up`].
    ///
    /// A secondary opens a database whose table files are missing or damaged as if they held
    /// nothing, so the database is first opened read-only, which opens every table file (taken
    /// again on a new view while a writer replaces files): a damaged database is refused.
    pub fn open_secondary(path: &Path) -> Result<Store, StoreError> {
        let present = Self::check_created(path)?;
        checkpoint::on_a_view(path, |path| Store::open_read_only(path).map(drop))?;
        let temp = std::env::temp_dir();
        remove_dead_secondaries(&temp);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let secondary = temp.join(format!("{SECONDARY_PREFIX}{}-{nanos}", std::process::id()));
        let cache = options::block_cache();
        let mut db_options = options::db_options();
        db_options.create_if_missing(false);
        // A secondary keeps every file it opened: let it hold them all.
        db_options.set_max_open_files(-1);
        let db = DB::open_cf_descriptors_as_secondary(&db_options, path, &secondary, Self::families(&cache, &present))
            .map_err(|error| StoreError::Rocks { path: path.to_owned(), error })?;
        Store::new(db, path, Mode::Secondary, Some(secondary), cache).with_format(&present)
    }

    /// Refuses a directory that holds no database (no meta family); returns the families of
    /// this format it has. An older format may lack some: they are opened without them, and
    /// [`Store::with_format`] names the format.
    fn check_created(path: &Path) -> Result<Vec<&'static str>, StoreError> {
        let missing = || StoreError::Missing { path: path.to_owned() };
        if !path.join("CURRENT").exists() {
            return Err(missing());
        }
        let families = DB::list_cf(&Options::default(), path)
            .map_err(|error| StoreError::Rocks { path: path.to_owned(), error })?;
        let present: Vec<&'static str> =
            options::COLUMN_FAMILIES.into_iter().filter(|name| families.iter().any(|family| family == name)).collect();
        match present.contains(&options::META) {
            true => Ok(present),
            false => Err(missing()),
        }
    }

    /// The options of the families in `present`.
    fn families(cache: &rocksdb::Cache, present: &[&str]) -> Vec<rocksdb::ColumnFamilyDescriptor> {
        options::column_families(cache).into_iter().filter(|family| present.contains(&family.name())).collect()
    }

    /// A database opened for reading with the families in `present`, once its format version is
    /// known to be this one's. Refuses one whose creation was interrupted before all its column
    /// families existed (RocksDB creates them one by one; the format key, written after them,
    /// was then never committed either).
    fn with_format(self, present: &[&str]) -> Result<Store, StoreError> {
        match self.meta(FORMAT_KEY)? {
            Some(bytes) => self.check_format(&bytes)?,
            None => return Err(StoreError::Missing { path: self.path.clone() }),
        }
        if present.len() < options::COLUMN_FAMILIES.len() {
            return Err(StoreError::Missing { path: self.path.clone() });
        }
        self.load_committed()?;
        Ok(self)
    }

    /// Reads the committed `next_game_id` from the commit record. It only ever grows: a reader
    /// that read the record before a catch-up must not store its older value after it.
    fn load_committed(&self) -> Result<(), StoreError> {
        self.committed.fetch_max(self.totals()?.next_game_id, Ordering::AcqRel);
        Ok(())
    }

    /// The committed `next_game_id` as this store last read it.
    fn committed(&self) -> u64 {
        self.committed.load(Ordering::Acquire)
    }

    /// Brings a secondary up to what the writing process has flushed (a no-op otherwise).
    ///
    /// Snapshots see the database as it was when they were taken: the catch-up waits for the
    /// scan snapshots under way to end while other reads go on, then for the short snapshots
    /// under way, and changes the view between them ([`Snapshot`]).
    pub fn catch_up(&self) -> Result<(), StoreError> {
        if self.mode != Mode::Secondary {
            return Ok(());
        }
        self.stillness.change(|| {
            // Not remembered as damage: a secondary may read a MANIFEST the writer is still
            // writing, and the next catch-up succeeds.
            self.db
                .try_catch_up_with_primary()
                .map_err(|error| StoreError::Rocks { path: self.path.clone(), error })?;
            self.load_committed()
        })
    }

    /// A snapshot for a query of a few reads (a lookup, a game list): the database stands still
    /// for as long as it is held. It waits only while a catch-up changes the view.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot::new(self, self.stillness.read())
    }

    /// A snapshot for a query that may run long (a scan over many positions): a catch-up
    /// waiting to change the view goes first, and later ones wait for this snapshot to end while
    /// short snapshots go on. Hold one snapshot at a time in a thread: a second one, taken while
    /// a catch-up waits for the first, would wait for ever.
    pub fn scan_snapshot(&self) -> Snapshot<'_> {
        Snapshot::new(self, self.stillness.scan())
    }

    /// The writer of a database opened for writing ([`Store::open`]).
    pub fn writer(&self) -> Result<Writer<'_>, StoreError> {
        match self.mode {
            Mode::Writer => Ok(Writer::new(self)),
            _ => Err(StoreError::Invariant {
                path: self.path.clone(),
                what: "a write to a database opened for reading".to_owned(),
            }),
        }
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database totals as last committed (all zero for a new database).
    pub fn totals(&self) -> Result<Totals, StoreError> {
        let found = self.db.get_pinned_cf(self.cf(options::POSITIONS), COMMIT_KEY).map_err(|err| self.rocks(err))?;
        match found {
            None => Ok(Totals::default()),
            Some(bytes) => decode_record(&bytes).ok_or_else(|| self.corrupt("totals")),
        }
    }

    /// The ingest runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let mut runs = Vec::new();
        let mode = rocksdb::IteratorMode::From(RUN_PREFIX, rocksdb::Direction::Forward);
        for item in self.db.iterator_cf(self.cf(options::META), mode) {
            let (key, value) = item.map_err(|err| self.rocks(err))?;
            if !key.starts_with(RUN_PREFIX) {
                break;
            }
            runs.push(decode_record(&value).ok_or_else(|| self.corrupt("ingest run record"))?);
        }
        Ok(runs)
    }

    /// Bytes of live SST files per column family, the positions family split into its full-key
    /// positions (`positions`) and the single-game tier's records (`tier marks`, `tier maps`;
    /// RocksDB's estimates of their key ranges).
    pub fn family_bytes(&self) -> Result<Vec<(&'static str, u64)>, StoreError> {
        let mut bytes = Vec::with_capacity(COLUMN_FAMILIES.len() + 2);
        for name in COLUMN_FAMILIES {
            let cf = self.cf(name);
            let total = self
                .db
                .property_int_value_cf(cf, rocksdb::properties::LIVE_SST_FILES_SIZE)
                .map_err(|err| self.rocks(err))?
                .unwrap_or(0);
            if name != options::POSITIONS {
                bytes.push((name, total));
                continue;
            }
            let tier = tier_record_ranges();
            let ranges: Vec<rocksdb::Range> = tier.iter().map(|(_, from, to)| rocksdb::Range::new(from, to)).collect();
            let sizes = self.db.get_approximate_sizes_cf(cf, &ranges);
            let in_tier: u64 = sizes.iter().sum();
            bytes.push((name, total.saturating_sub(in_tier)));
            bytes.extend(tier.iter().zip(sizes).map(|((label, _, _), size)| (*label, size)));
        }
        Ok(bytes)
    }

    /// The first damage this store has found in the database's data since it was opened (a
    /// table file RocksDB finds corrupt or missing, bytes that do not decode): a server reports
    /// it on `/health`. Every read that meets damage fails with an error; this remembers it.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// Reads the games' facts and header facts a page of `page_games` games at a time, keeping
    /// `kept_bytes` of pages, as a memory budget too small to hold them whole does (at 1,024
    /// games a page): for tests of that path on a small database. Call it before the first read.
    #[doc(hidden)]
    pub fn read_game_records_in_pages(&self, page_games: u64, kept_bytes: u64) {
        self.facts.read_in_pages(page_games, kept_bytes);
        self.headers.read_in_pages(page_games, kept_bytes);
    }

    fn check_format(&self, bytes: &[u8]) -> Result<(), StoreError> {
        let found = <[u8; 4]>::try_from(bytes).map(u32::from_be_bytes).map_err(|_| self.corrupt("format version"))?;
        if found != meta::FORMAT_VERSION {
            return Err(StoreError::Format { path: self.path.clone(), found, expected: meta::FORMAT_VERSION });
        }
        Ok(())
    }

    fn cf(&self, name: &str) -> &ColumnFamily {
        // Every family is created or required when the database opens.
        self.db.cf_handle(name).expect("column family opened with the database")
    }

    /// `err`, remembered when it is damage (the first time: the one that says where it began).
    fn noted(&self, err: StoreError) -> StoreError {
        if err.is_corruption() {
            let _ = self.damage.set(err.to_string());
        }
        err
    }

    fn rocks(&self, error: rocksdb::Error) -> StoreError {
        self.noted(StoreError::Rocks { path: self.path.clone(), error })
    }

    /// The error for a staging area that could not be written or read.
    fn staging_error(&self, source: std::io::Error) -> StoreError {
        StoreError::Staging { path: self.path.clone(), source }
    }

    /// The error for corrupt data found in this database.
    fn corrupt(&self, what: impl Into<String>) -> StoreError {
        self.noted(StoreError::DataCorruption { path: self.path.clone(), what: what.into() })
    }

    /// The error for a broken invariant of tabiya's own code.
    fn invariant(&self, what: impl Into<String>) -> StoreError {
        StoreError::Invariant { path: self.path.clone(), what: what.into() }
    }

    /// The error for the single-game tier's failures.
    fn tier_error(&self, source: tier::TierError) -> StoreError {
        self.noted(StoreError::Tier { path: self.path.clone(), source })
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.db.get_cf(self.cf(options::META), key).map_err(|err| self.rocks(err))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Key, model::GameId};

    fn pgn(dir: &Path, name: &str, moves: &str) -> PathBuf {
        let file = dir.join(name);
        std::fs::write(&file, format!("[White \"{name}\"]\n[Result \"1-0\"]\n\n{moves} 1-0\n")).unwrap();
        file
    }

    #[test]
    fn a_snapshot_holds_its_view_while_a_secondary_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let writer = Store::open(&path).unwrap();
        crate::indexer::ingest(&writer, &[pgn(dir.path(), "a", "1. e4")], &mut crate::indexer::SilentObserver).unwrap();
        let reader = Store::open_secondary(&path).unwrap();
        let start = Key::encode(&crate::Position::initial()).unwrap();
        let games = |view: &Snapshot| view.positions().get(&start, layout::Detail::Head).unwrap().unwrap().total.games;
        crate::indexer::ingest(&writer, &[pgn(dir.path(), "b", "1. d4")], &mut crate::indexer::SilentObserver).unwrap();
        std::thread::scope(|scope| {
            let before = reader.snapshot();
            let caught_up = scope.spawn(|| reader.catch_up());
            std::thread::sleep(Duration::from_millis(200));
            // The catch-up waits for the snapshot, which still sees one game.
            assert!(!caught_up.is_finished());
            assert_eq!(games(&before), 1);
            assert_eq!(before.games().get(GameId(2)).unwrap(), None);
            drop(before);
            caught_up.join().unwrap().unwrap();
        });
        let after = reader.snapshot();
        assert_eq!(games(&after), 2);
        assert!(after.games().get(GameId(2)).unwrap().is_some());
        assert_eq!(after.players().games("b", None).unwrap(), [GameId(2)]);
    }

    #[test]
    fn a_scan_snapshot_lets_a_waiting_catch_up_go_first_and_short_snapshots_go_on_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let writer = Store::open(&path).unwrap();
        crate::indexer::ingest(&writer, &[pgn(dir.path(), "a", "1. e4")], &mut crate::indexer::SilentObserver).unwrap();
        let reader = Store::open_secondary(&path).unwrap();
        crate::indexer::ingest(&writer, &[pgn(dir.path(), "b", "1. d4")], &mut crate::indexer::SilentObserver).unwrap();
        std::thread::scope(|scope| {
            let scan = reader.scan_snapshot();
            let caught_up = scope.spawn(|| reader.catch_up());
            std::thread::sleep(Duration::from_millis(100));
            // While the catch-up waits for the scan, a short snapshot is served.
            assert_eq!(reader.snapshot().totals().unwrap().games, 1);
            // A second scan waits for the catch-up, which waits for the first.
            let second = scope.spawn(|| reader.scan_snapshot().totals().map(|totals| totals.games));
            std::thread::sleep(Duration::from_millis(100));
            assert!(!second.is_finished());
            drop(scan);
            caught_up.join().unwrap().unwrap();
            assert_eq!(second.join().unwrap().unwrap(), 2);
        });
    }

    #[test]
    fn the_committed_game_id_never_goes_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.pgn");
        std::fs::write(&file, "[Result \"1-0\"]\n\n1. e4 1-0\n").unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        crate::indexer::ingest(&store, &[file], &mut crate::indexer::SilentObserver).unwrap();
        let recorded = store.totals().unwrap().next_game_id;
        // As after a catch-up that a slower reader of the older record then finishes behind.
        store.committed.store(recorded + 5, Ordering::Release);
        store.load_committed().unwrap();
        assert_eq!(store.committed(), recorded + 5);
    }

    #[test]
    fn only_a_store_opened_for_writing_has_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        assert!(Store::open(&path).unwrap().writer().is_ok());
        assert!(matches!(Store::open_read_only(&path).unwrap().writer(), Err(StoreError::Invariant { .. })));
    }

    #[test]
    fn a_database_killed_while_creating_its_column_families_reads_as_missing_and_opens_for_writing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        {
            // What a kill between two column family creations leaves behind.
            let mut db_options = Options::default();
            db_options.create_if_missing(true);
            db_options.create_missing_column_families(true);
            DB::open_cf(&db_options, &path, [options::META, options::GAMES]).unwrap();
        }
        assert!(matches!(Store::open_read_only(&path), Err(StoreError::Missing { .. })));
        assert!(matches!(Store::open_secondary(&path), Err(StoreError::Missing { .. })));
        drop(Store::open(&path).unwrap());
        let store = Store::open_read_only(&path).unwrap();
        assert_eq!(store.totals().unwrap().games, 0);
    }
}
