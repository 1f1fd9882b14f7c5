//! The position database on disk: a RocksDB directory with twelve column families (their keys
//! and values are docs/FORMAT.md's, "The database", and [`layout`]'s in code).
//!
//! | family | holds |
//! |---|---|
//! | `positions` | each position's statistics under its [`Key`](crate::Key); the commit record; the single-game [`tier`] |
//! | `games` | each game's tags and result, by [`GameId`] |
//! | `mainlines` | each game's start and mainline, what a replay reads |
//! | `facts` | each game's result, ratings, month and speed, eight bytes, held in memory by [`FactsTable`] |
//! | `headers` | each game's day, ECO code, length and event and site hashes, twelve bytes, held in memory by [`HeadersTable`] when a filter needs them |
//! | `labels` | each distinct event and site text, under its hash |
//! | `fingerprints` | the games stored, by [`Fingerprint`](crate::model::Fingerprint): exactly-once ingestion |
//! | `players` | each game under its players' names |
//! | `names` | each spelling under its folded words: what a player lookup reads |
//! | `twins` | each game under a hash of what its twins share |
//! | `openings` | an imported opening table's names, by [`Key`](crate::Key) |
//! | `meta` | the format version, the ingest runs ([`RunRecord`]) |
//!
//! Writers open it with [`Store::open`] (one at a time: RocksDB locks the directory), write
//! games through a [`Batch`] ([`writer`]; or ingest them from files another process wrote,
//! `apart.rs`) and commit positions with their totals through
//! [`Staging`] and [`Store::commit_positions`] (`commit.rs`); readers open it with
//! [`Store::open_read_only`], which sees the data flushed when it opened, or
//! [`Store::open_secondary`], which follows a writer, and read it through [`reader`] and
//! [`scan`]. Every RocksDB option is in `options.rs`; every stored byte in [`layout`].

mod apart;
mod checkpoint;
mod commit;
mod error;
mod facts;
pub mod layout;
pub mod meta;
mod options;
pub mod reader;
pub mod scan;
mod staging;
mod summaries;
pub mod tier;
mod verify;
pub mod writer;

pub use apart::FamilyFile;
pub(crate) use apart::{put_file_name, put_text, read_file_name, read_text};
pub use commit::{COMMIT_RANGES, CommitBase, MAX_COMMIT_RANGES, RangeWritten, commit_pivots};
pub use error::StoreError;
pub use facts::{FactsTable, GameColumn, HeadersTable, facts_records, pack_facts};
pub use layout::{Detail, Occurrences, StoredValue};
pub use meta::{RunCounts, RunRecord, RunStatus, Totals};
pub use options::COLUMN_FAMILIES;
pub use options::{DEFAULT_MEMORY, MIN_MEMORY, memory_share, set_memory_budget};
pub use reader::PositionCounts;
pub use scan::{ScanFilter, ScanPart, ScanProgress, ScannedPosition};
pub use staging::{
    BOUND_EVERY, HeldRun, Occurrence, RunRecords, Staging, decode_run_records, encode_run_records, is_range_bound,
    ranges_between,
};
pub use summaries::{CountedGames, SUMMARY_BUDGET, SUMMARY_MIN_GAMES};
pub use tier::TierHit;
pub use verify::{Problem, Verification};
pub use writer::Batch;

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use rocksdb::{ColumnFamily, DB, Options};

use crate::model::GameId;

/// An open database.
pub struct Store {
    db: DB,
    path: PathBuf,
    /// The private directory of a secondary instance, removed on drop.
    secondary: Option<PathBuf>,
    /// The committed `next_game_id`: games, facts, players and fingerprints at or above it are not
    /// committed yet (or were left by a killed ingest) and are not shown.
    committed: AtomicU64,
    cache: rocksdb::Cache,
    /// The committed games' facts, loaded on first use ([`Store::facts`]).
    facts: facts::SharedFacts,
    /// The committed games' header facts, loaded on first use ([`Store::headers`]).
    headers: facts::SharedHeaders,
    /// Popular positions' games summed by slice, for filtered lookups.
    summaries: summaries::Summaries,
    /// The single-game tier's maps, loaded on first use.
    tier: std::sync::RwLock<Option<std::sync::Arc<tier::TierIndex>>>,
    /// Held shared by scans ([`Store::steady`]), exclusively while the database's view changes
    /// (a secondary's catch-up, a commit's ingestion).
    steady: std::sync::RwLock<()>,
    /// The first damage found in the database's data (see [`Store::damage`]).
    damage: std::sync::OnceLock<String>,
    /// Set while a catch-up waits for the scans under way to end.
    catching_up: std::sync::atomic::AtomicBool,
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
    fn new(db: DB, path: &Path, secondary: Option<PathBuf>, cache: rocksdb::Cache) -> Store {
        Store {
            db,
            path: path.to_owned(),
            secondary,
            committed: AtomicU64::new(0),
            cache,
            facts: Default::default(),
            headers: Default::default(),
            summaries: Default::default(),
            tier: Default::default(),
            steady: Default::default(),
            damage: Default::default(),
            catching_up: Default::default(),
        }
    }

    /// Opens (creating if needed) the database at `path` for writing. A database of another
    /// format is refused before anything is written to it (not even a family of this format).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if path.join("CURRENT").exists() {
            // An interrupted creation is completed below; other errors show there too.
            if let Err(err @ StoreError::Format { .. }) = Store::open_read_only(path) {
                return Err(err);
            }
        }
        let cache = options::block_cache();
        let db = DB::open_cf_descriptors(&options::db_options(), path, options::column_families(&cache))
            .map_err(|error| StoreError::Rocks { path: path.to_owned(), error })?;
        let store = Store::new(db, path, None, cache);
        match store.meta(layout::keys::FORMAT_KEY)? {
            None => store.write_format(meta::FORMAT_VERSION)?,
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
        Store::new(db, path, None, cache).with_format(&present)
    }

    /// Opens an existing database as a RocksDB secondary: it reads while another process
    /// ingests, and sees what that process has flushed after each [`Store::catch_up`].
    ///
    /// A secondary opens a database whose table files are missing or damaged as if they held
    /// nothing, so the database is first opened read-only, which opens every table file (taken
    /// again on a new view while a writer replaces files): a damaged database is refused.
    pub fn open_secondary(path: &Path) -> Result<Store, StoreError> {
        let present = Self::check_created(path)?;
        Self::on_a_view(path, |path| Store::open_read_only(path).map(drop))?;
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
        Store::new(db, path, Some(secondary), cache).with_format(&present)
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
        match self.meta(layout::keys::FORMAT_KEY)? {
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

    /// The committed `next_game_id`, for ids up to `highest`: a secondary that has caught up with
    /// a commit serves its positions before [`Store::catch_up`] returns (and a writer between
    /// its commit's ingestion and its next line), so when `highest` is not below the known
    /// value it reads the commit record again.
    fn committed_for(&self, highest: GameId) -> Result<u64, StoreError> {
        let known = self.committed.load(Ordering::Acquire);
        if highest.0 >= known {
            self.load_committed()?;
            return Ok(self.committed.load(Ordering::Acquire));
        }
        Ok(known)
    }

    /// Brings a secondary up to what the writing process has flushed (a no-op otherwise).
    ///
    /// It waits for the scans under way to end without queueing on the lock: a waiting writer
    /// would make every new reader wait behind it, and a server's short reads (`/stats`) would
    /// stall for as long as the longest scan. New scans wait for it instead ([`Store::steady`]).
    pub fn catch_up(&self) -> Result<(), StoreError> {
        if self.secondary.is_some() {
            self.catching_up.store(true, Ordering::Release);
            let _changing = loop {
                match self.steady.try_write() {
                    Ok(guard) => break guard,
                    Err(std::sync::TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                    Err(std::sync::TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(5)),
                }
            };
            // Not remembered as damage: a secondary may read a MANIFEST the writer is still
            // writing, and the next catch-up succeeds.
            let caught_up = self
                .db
                .try_catch_up_with_primary()
                .map_err(|error| StoreError::Rocks { path: self.path.clone(), error });
            self.catching_up.store(false, Ordering::Release);
            caught_up?;
            self.load_committed()?;
        }
        Ok(())
    }

    /// Keeps this store's view of the database still while the guard lives: a secondary's
    /// catch-up (or this writer's next commit) waits for it. A scan reads the full-key family
    /// and the single-game tier at different moments, and a commit may move a position from
    /// the tier to the family: holding the guard, the scan sees it in one place. Take it once
    /// per query (a second guard taken by the same thread while a catch-up waits would wait
    /// too).
    ///
    /// A scan waits first for a catch-up waiting to start, so that scans one after another
    /// cannot hold it off for ever; a short read takes [`Store::steady_brief`].
    pub fn steady(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        while self.catching_up.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.steady_brief()
    }

    /// [`Store::steady`] for a short read, which does not give way to a catch-up waiting for
    /// scans to end: it waits only while a catch-up runs.
    pub fn steady_brief(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.steady.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
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

    /// The first damage this store has found in the database's data since it was opened (a
    /// table file RocksDB finds corrupt or missing, bytes that do not decode): a server reports
    /// it on `/health`. Every read that meets damage fails with an error; this remembers it.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
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
    pub(crate) fn corrupt(&self, what: impl Into<String>) -> StoreError {
        self.noted(StoreError::DataCorruption { path: self.path.clone(), what: what.into() })
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
    use super::*;
    use crate::Key;

    #[test]
    fn a_secondary_that_caught_up_with_a_commit_shows_its_games_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let pgn = |name: &str, moves: &str| {
            let file = dir.path().join(name);
            std::fs::write(&file, format!("[White \"{name}\"]\n[Result \"1-0\"]\n\n{moves} 1-0\n")).unwrap();
            file
        };
        let writer = Store::open(&path).unwrap();
        crate::indexer::ingest(&writer, &[pgn("a", "1. e4")], &mut crate::indexer::SilentObserver).unwrap();
        let reader = Store::open_secondary(&path).unwrap();
        let start = Key::encode(&crate::Position::initial()).unwrap();
        // Reading it loads the facts of the games committed so far.
        assert_eq!(reader.position_head(&start).unwrap().unwrap().total.games, 1);
        crate::indexer::ingest(&writer, &[pgn("b", "1. d4")], &mut crate::indexer::SilentObserver).unwrap();
        // Between RocksDB's catch-up and the reload of the commit record, requests already see
        // the new positions: their games, and their facts, must be there too.
        reader.db.try_catch_up_with_primary().unwrap();
        let head = reader.position_head(&start).unwrap().unwrap();
        assert_eq!((head.total.games, head.top.len()), (2, 2));
        assert!(reader.game(GameId(2)).unwrap().is_some());
        assert_eq!(reader.games(&[GameId(1), GameId(2)]).unwrap().iter().filter(|g| g.is_some()).count(), 2);
        assert_eq!(reader.player_games("b", None).unwrap(), [GameId(2)]);
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
        assert_eq!(store.committed.load(Ordering::Acquire), recorded + 5);
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
