//! The position database on disk: a RocksDB directory with eight column families.
//!
//! | family | key | value |
//! |---|---|---|
//! | `positions` | [`Key`] (21 bytes) | [`PositionStats`] ([`layout`]); a one-game value names its game, whose facts it reads from `facts` |
//! | | the empty key ([`meta::COMMIT_KEY`]) | [`Totals`]: the commit record |
//! | `games` | [`GameId`] (8 bytes, big-endian) | a [`GameRecord`]'s tags and result |
//! | `mainlines` | [`GameId`], as in `games` | its start and mainline ([`Mainline`]), what a replay reads |
//! | `facts` | the [`GameId`] of a writer batch's first game | the [`GameFacts`](crate::model::GameFacts) of its games, 8 bytes each ([`layout`]), held in memory by [`FactsTable`] |
//! | `fingerprints` | [`Fingerprint`] (16 bytes) | [`GameId`] |
//! | `players` | player name (lower case) + 0 + `w`/`b` + [`GameId`] | nothing: an index for player filters |
//! | `openings` | [`Key`] | `ECO<tab>name` of an imported opening table |
//! | `meta` | see [`meta`] | format version, [`RunRecord`]s |
//!
//! Writers open it with [`Store::open`] (one at a time: RocksDB locks the directory), write
//! games through a [`Batch`] and commit positions with their totals through [`Staging`] and
//! [`Store::commit_positions`]; readers open it with [`Store::open_read_only`], which sees the data
//! flushed when it opened, or [`Store::open_secondary`], which follows a writer.
//!
//! Every RocksDB option is in `options.rs`; every stored byte layout in [`layout`]; the meta
//! family's records in [`meta`].

mod batch;
mod commit;
mod facts;
pub mod layout;
pub mod meta;
mod options;
mod staging;
mod tier;

pub use batch::Batch;
pub use facts::FactsTable;
pub use meta::{RunCounts, RunRecord, RunStatus, Totals};
pub use options::COLUMN_FAMILIES;
pub use staging::{Occurrence, Staging};
pub use tier::TierHit;

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use rocksdb::{ColumnFamily, DB, FlushOptions, IteratorMode, Options, ReadOptions, WriteBatch};
use shakmaty::Color;

use crate::{
    codec::{Key, KeyRange},
    model::{Fingerprint, GameFacts, GameId, GameRecord, Mainline, PositionStats},
    postings::PostingList,
};
use layout::{Detail, decode_record};

/// Where scans of every position start: after the commit record, before any position key.
const FIRST_POSITION: &[u8] = &[0];

/// A key range of the positions family: `[lower, upper)`, `None` for the family's ends.
pub type KeySpan = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Games a part of a scan replays for the single-game tier ([`Store::scan_parts`]).
const TIER_GAMES_PER_PART: u64 = 2048;

/// A part of a scan over stored positions ([`Store::scan_parts`], [`ScanPart::of_materials`]):
/// the parts of a scan hold each position once, so scans run them in parallel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanPart {
    /// The full-key family's positions in a key range.
    Family(KeySpan),
    /// The single-game tier's positions in material ranges (each one material's range in a
    /// category), found by replaying each game of their blocks once.
    TierMaterials(std::sync::Arc<Vec<KeyRange>>),
    /// The single-game tier's positions of the games from the first id to the second
    /// (exclusive), found by replaying them.
    TierGames(GameId, GameId),
}

impl ScanPart {
    /// The parts holding every position in `ranges` (each one material's range in a
    /// category): the full-key family's range by range, the tier's in one part.
    pub fn of_materials(ranges: Vec<KeyRange>) -> Vec<ScanPart> {
        let mut parts: Vec<ScanPart> = ranges
            .iter()
            .map(|range| ScanPart::Family((Some(range.first.as_bytes().to_vec()), Some(range.after_last()))))
            .collect();
        parts.push(ScanPart::TierMaterials(std::sync::Arc::new(ranges)));
        parts
    }

    /// Whether the part holds single-game tier positions (else full-key ones).
    pub fn is_tier(&self) -> bool {
        !matches!(self, ScanPart::Family(_))
    }
}

/// A cursor over the positions of one [`ScanPart`], in key order: the full-key family's
/// entries, or the single-game tier's, replayed into keys and one-game values.
pub struct PositionCursor<'a> {
    entries: CursorEntries<'a>,
    store: &'a Store,
}

enum CursorEntries<'a> {
    Family(rocksdb::DBRawIteratorWithThreadMode<'a, DB>),
    Tier(Vec<(Key, tier::TierValue)>, usize),
}

impl PositionCursor<'_> {
    /// The current key and value, or `None` at the end (then check [`PositionCursor::status`]).
    pub fn entry(&self) -> Option<(&[u8], &[u8])> {
        match &self.entries {
            CursorEntries::Family(iter) => iter.item(),
            CursorEntries::Tier(entries, at) => {
                entries.get(*at).map(|(key, value)| (key.as_bytes().as_slice(), value.as_slice()))
            }
        }
    }

    /// Moves to the next entry.
    pub fn next(&mut self) {
        match &mut self.entries {
            CursorEntries::Family(iter) => iter.next(),
            CursorEntries::Tier(_, at) => *at += 1,
        }
    }

    /// Moves to the first entry at or after `key`.
    pub fn seek(&mut self, key: &[u8]) {
        match &mut self.entries {
            CursorEntries::Family(iter) => iter.seek(key),
            CursorEntries::Tier(entries, at) => *at = entries.partition_point(|(at, _)| at.as_bytes().as_slice() < key),
        }
    }

    /// Whether the cursor stopped on an error rather than at the end.
    pub fn status(&self) -> Result<(), StoreError> {
        match &self.entries {
            CursorEntries::Family(iter) => iter.status().map_err(|err| self.store.rocks(err)),
            CursorEntries::Tier(..) => Ok(()),
        }
    }
}

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB failed (I/O, a lock held by another writer, ...).
    #[error("{path}: {source}")]
    Rocks {
        /// The database directory.
        path: PathBuf,
        /// What RocksDB said.
        source: rocksdb::Error,
    },
    /// No database at the path.
    #[error("{path}: no tabiya database here (run `tabiya ingest` first)")]
    Missing {
        /// The directory looked at.
        path: PathBuf,
    },
    /// A database of another format version.
    #[error(
        "{path}: database format {found}, this tabiya reads format {expected}: ingest the games again into a new database"
    )]
    Format {
        /// The database directory.
        path: PathBuf,
        /// Its format version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// The staging area of an ingest could not be written or read.
    #[error("{path}: staging area: {source}")]
    Staging {
        /// The database directory.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Stored bytes that do not decode, or a reference to something missing (the data is
    /// corrupt, not the request).
    #[error("{path}: corrupt {what}")]
    DataCorruption {
        /// The database directory.
        path: PathBuf,
        /// What was found corrupt.
        what: String,
    },
}

/// A player's name as the players index compares it: lower case, runs of spaces and commas as
/// one space, no NUL.
pub fn player_name(name: &str) -> String {
    let lower = name.to_lowercase().replace('\0', "");
    lower.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Distinct positions, counted by [`Store::count_positions`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PositionCounts {
    /// Distinct positions.
    pub distinct: u64,
    /// Positions reached by exactly one game.
    pub single_game: u64,
}

impl PositionCounts {
    /// Counts one stored value.
    fn add(&mut self, value: &[u8]) {
        self.distinct += 1;
        self.single_game += u64::from(layout::holds_one_game(value));
    }
}

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
    /// The single-game tier's hash segments, loaded on first use.
    tier: std::sync::RwLock<Option<std::sync::Arc<tier::TierIndex>>>,
    /// Held shared by scans ([`Store::steady`]), exclusively while the database's view changes
    /// (a secondary's catch-up, a commit's ingestion).
    steady: std::sync::RwLock<()>,
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
            tier: Default::default(),
            steady: Default::default(),
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
            .map_err(|source| StoreError::Rocks { path: path.to_owned(), source })?;
        let store = Store::new(db, path, None, cache);
        match store.meta(meta::FORMAT_KEY)? {
            None => {
                let mut batch = WriteBatch::default();
                batch.put_cf(store.cf(options::META), meta::FORMAT_KEY, meta::FORMAT_VERSION.to_be_bytes());
                store.write(batch)?;
                store.flush()?;
            }
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
            .map_err(|source| StoreError::Rocks { path: path.to_owned(), source })?;
        Store::new(db, path, None, cache).with_format(&present)
    }

    /// Opens an existing database as a RocksDB secondary: it reads while another process
    /// ingests, and sees what that process has flushed after each [`Store::catch_up`].
    pub fn open_secondary(path: &Path) -> Result<Store, StoreError> {
        let present = Self::check_created(path)?;
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
            .map_err(|source| StoreError::Rocks { path: path.to_owned(), source })?;
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
            .map_err(|source| StoreError::Rocks { path: path.to_owned(), source })?;
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
        match self.meta(meta::FORMAT_KEY)? {
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
    pub fn catch_up(&self) -> Result<(), StoreError> {
        if self.secondary.is_some() {
            let _changing = self.steady.write().unwrap_or_else(std::sync::PoisonError::into_inner);
            self.db.try_catch_up_with_primary().map_err(|err| self.rocks(err))?;
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
    pub fn steady(&self) -> std::sync::RwLockReadGuard<'_, ()> {
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

    pub(crate) fn cf(&self, name: &str) -> &ColumnFamily {
        // Every family is created or required when the database opens.
        self.db.cf_handle(name).expect("column family opened with the database")
    }

    fn rocks(&self, source: rocksdb::Error) -> StoreError {
        StoreError::Rocks { path: self.path.clone(), source }
    }

    /// The error for a staging area that could not be written or read.
    pub(crate) fn staging_error(&self, source: std::io::Error) -> StoreError {
        StoreError::Staging { path: self.path.clone(), source }
    }

    /// The error for corrupt data found in this database.
    pub(crate) fn corrupt(&self, what: impl Into<String>) -> StoreError {
        StoreError::DataCorruption { path: self.path.clone(), what: what.into() }
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.db.get_cf(self.cf(options::META), key).map_err(|err| self.rocks(err))
    }

    /// The aggregated statistics of a position, if any game reached it.
    pub fn position(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::All, true)
    }

    /// A position's statistics without its slices and games: all an unfiltered lookup needs.
    pub fn position_head(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::Head, false)
    }

    /// A position's statistics with its slices, without its games (its monthly history).
    pub fn position_slices(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        Ok(self
            .read_position(key, Detail::ByMove, true)?
            .map(|stats| PositionStats { games_by_move: Vec::new(), ..stats }))
    }

    /// A position's statistics with its games by move, without slices: what a filtered lookup
    /// reads.
    pub fn position_games(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::ByMove, false)
    }

    /// A stored position, read as far as `detail` says, with its slices when `slices`.
    fn read_position(&self, key: &Key, detail: Detail, slices: bool) -> Result<Option<PositionStats>, StoreError> {
        self.position_value(key)?.map(|bytes| self.decode_position(key, &bytes, detail, slices)).transpose()
    }

    /// The stored value of a position: from the full-key family, else the single-game tier.
    fn position_value(&self, key: &Key) -> Result<Option<Vec<u8>>, StoreError> {
        let found =
            self.db.get_pinned_cf(self.cf(options::POSITIONS), key.as_bytes()).map_err(|err| self.rocks(err))?;
        if let Some(bytes) = found {
            return Ok(Some(bytes.to_vec()));
        }
        if let Some(hit) = self.tier_locate(key)? {
            return Ok(Some(hit.value()));
        }
        // A secondary catching up between the two reads may have moved the position from the
        // tier to the family (a later commit reached it again): read the family once more.
        let found =
            self.db.get_pinned_cf(self.cf(options::POSITIONS), key.as_bytes()).map_err(|err| self.rocks(err))?;
        Ok(found.map(|bytes| bytes.to_vec()))
    }

    /// Decodes a stored value of `key`, as far as `detail` says, and derives its slices when
    /// `slices` (from its games by move: not with [`Detail::Head`]).
    pub fn decode_position(
        &self,
        key: &Key,
        bytes: &[u8],
        detail: Detail,
        slices: bool,
    ) -> Result<PositionStats, StoreError> {
        let what = || format!("position {key}");
        let decoded = match layout::facts_needed(bytes) {
            layout::FactsNeeded::None => layout::decode_stored(bytes, detail, |_| None),
            layout::FactsNeeded::One(id) => {
                let facts = self.game_facts(id)?;
                layout::decode_stored(bytes, detail, |_| Some(facts))
            }
            layout::FactsNeeded::Several => {
                let facts = self.committed_facts()?;
                layout::decode_stored(bytes, detail, |id| self.facts_of(Some(&facts), id))
            }
        };
        let mut stats = decoded.ok_or_else(|| self.corrupt(what()))?;
        if slices {
            self.derive_slices(&mut stats, &what())?;
        }
        Ok(stats)
    }

    /// The games that reached a position (empty when none did).
    pub fn postings(&self, key: &Key) -> Result<PostingList, StoreError> {
        match self.position_value(key)? {
            None => Ok(PostingList::encode(&[])),
            Some(bytes) => layout::postings(&bytes).ok_or_else(|| self.corrupt(format!("position {key}"))),
        }
    }

    /// The facts of a committed game: from the in-memory table when loaded ([`Store::facts`]),
    /// else read alone.
    pub fn game_facts(&self, id: GameId) -> Result<GameFacts, StoreError> {
        let missing = || self.corrupt(format!("facts of game {id}"));
        let loaded = self.facts.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(id);
        if let Some(facts) = loaded {
            return Ok(facts);
        }
        if id.0 >= self.committed_for(id)? {
            return Err(missing());
        }
        self.read_facts(id)?.ok_or_else(missing)
    }

    /// Stored games by id, in the order asked (`None` for an id not stored).
    pub fn games(&self, ids: &[GameId]) -> Result<Vec<Option<GameRecord>>, StoreError> {
        // One cut-off for both parts: a catch-up between them must not split a game.
        let committed = self.committed_for_all(ids)?;
        let heads = self.committed_values(options::GAMES, ids, committed)?;
        let lines = self.committed_values(options::MAINLINES, ids, committed)?;
        heads.into_iter().zip(lines).zip(ids).map(|((head, line), id)| self.game_of(*id, head, line)).collect()
    }

    /// The start and mainline of each of `ids` (what replaying them needs, without their tags);
    /// `None` for an id with no committed game.
    pub fn mainlines(&self, ids: &[GameId]) -> Result<Vec<Option<Mainline>>, StoreError> {
        let lines = self.committed_values(options::MAINLINES, ids, self.committed_for_all(ids)?)?;
        lines
            .into_iter()
            .zip(ids)
            .map(|(line, id)| match line {
                None => Ok(None),
                Some(bytes) => {
                    decode_record(&bytes).map(Some).ok_or_else(|| self.corrupt(format!("mainline of game {id}")))
                }
            })
            .collect()
    }

    /// The committed `next_game_id` for reading `ids` ([`Store::committed_for`] of the highest).
    fn committed_for_all(&self, ids: &[GameId]) -> Result<u64, StoreError> {
        self.committed_for(ids.iter().copied().max().unwrap_or(GameId(0)))
    }

    /// The values of `family` (keyed by game id) of each of `ids`, `None` for an id at or above
    /// `committed`, the committed `next_game_id` (written for a commit still to come).
    fn committed_values(
        &self,
        family: &str,
        ids: &[GameId],
        committed: u64,
    ) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        let cf = self.cf(family);
        self.db
            .multi_get_cf(ids.iter().map(|id| (cf, id.to_bytes())))
            .into_iter()
            .zip(ids)
            .map(|(found, id)| Ok(found.map_err(|err| self.rocks(err))?.filter(|_| id.0 < committed)))
            .collect()
    }

    /// A game from its two stored parts: both or neither.
    fn game_of(
        &self,
        id: GameId,
        head: Option<Vec<u8>>,
        line: Option<Vec<u8>>,
    ) -> Result<Option<GameRecord>, StoreError> {
        match (head, line) {
            (None, None) => Ok(None),
            (Some(head), Some(line)) => {
                layout::decode_game_record(&head, &line).map(Some).ok_or_else(|| self.corrupt(format!("game {id}")))
            }
            _ => Err(self.corrupt(format!("game {id}: its tags or its mainline is missing"))),
        }
    }

    /// Every stored position in `ranges` (each one material's range in a category) with its
    /// result counts, in key order (what a material search lists: a value's moves and games are
    /// not decoded).
    pub fn positions_in(&self, ranges: &[KeyRange]) -> Result<Vec<(Key, layout::Occurrences)>, StoreError> {
        let parts = ScanPart::of_materials(ranges.to_vec());
        let mut found = Vec::new();
        let mut facts = None;
        for part in &parts {
            let mut cursor = self.part_cursor(part)?;
            while let Some((key, value)) = cursor.entry() {
                let key = Key::try_from(key).map_err(|_| self.corrupt("position key"))?;
                // A one-game value's result is its game's.
                if facts.is_none() && layout::is_single_game(value) {
                    facts = Some(self.committed_facts()?);
                }
                let result_of = |id| self.facts_of(facts.as_deref(), id).map(|game| game.result);
                let seen =
                    layout::occurrences(value, result_of).ok_or_else(|| self.corrupt(format!("position {key}")))?;
                found.push((key, seen));
                cursor.next();
            }
            cursor.status()?;
        }
        found.sort_unstable_by_key(|a| a.0);
        Ok(found)
    }

    /// Ids of the games whose player of `color` (either, when `None`) has a name starting with
    /// `name` (compared as [`player_name`] normalises it), ascending.
    pub fn player_games(&self, name: &str, color: Option<Color>) -> Result<Vec<GameId>, StoreError> {
        let prefix = player_name(name);
        let mut iter = self.db.raw_iterator_cf(self.cf(options::PLAYERS));
        iter.seek(prefix.as_bytes());
        let mut ids = Vec::new();
        while let Some(key) = iter.key() {
            if !key.starts_with(prefix.as_bytes()) {
                break;
            }
            let Some(tail) = key.len().checked_sub(10).map(|at| &key[at..]) else {
                return Err(self.corrupt("player key"));
            };
            let side = match tail[1] {
                b'w' => Color::White,
                b'b' => Color::Black,
                _ => return Err(self.corrupt("player key")),
            };
            if color.is_none_or(|c| c == side) {
                ids.extend(GameId::from_bytes(&tail[2..]));
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        ids.sort_unstable();
        ids.dedup();
        let committed = self.committed_for(ids.last().copied().unwrap_or(GameId(0)))?;
        ids.retain(|id| id.0 < committed);
        Ok(ids)
    }

    /// The imported opening (ECO code, name) of a position.
    pub fn opening(&self, key: &Key) -> Result<Option<(String, String)>, StoreError> {
        let found = self.db.get_pinned_cf(self.cf(options::OPENINGS), key.as_bytes()).map_err(|err| self.rocks(err))?;
        Ok(found.and_then(|bytes| {
            let text = String::from_utf8_lossy(&bytes);
            let (eco, name) = text.split_once('\t')?;
            Some((eco.to_owned(), name.to_owned()))
        }))
    }

    /// The whole imported opening table: (position, ECO code, name), in key order.
    pub fn openings(&self) -> Result<Vec<(Key, String, String)>, StoreError> {
        let mut iter = self.db.raw_iterator_cf(self.cf(options::OPENINGS));
        iter.seek_to_first();
        let mut found = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let key = Key::try_from(key).map_err(|_| self.corrupt("opening key"))?;
            let text = String::from_utf8_lossy(value);
            let (eco, name) = text.split_once('\t').ok_or_else(|| self.corrupt(format!("opening {key}")))?;
            found.push((key, eco.to_owned(), name.to_owned()));
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        Ok(found)
    }

    /// Replaces the opening table.
    pub fn put_openings(&self, openings: &[(Key, String, String)]) -> Result<(), StoreError> {
        let cf = self.cf(options::OPENINGS);
        let mut batch = WriteBatch::default();
        batch.delete_range_cf(cf, [0u8].as_slice(), [0xffu8; 22].as_slice());
        for (key, eco, name) in openings {
            batch.put_cf(cf, key.as_bytes(), format!("{eco}\t{name}"));
        }
        self.write(batch)?;
        self.flush()
    }

    /// A stored game.
    pub fn game(&self, id: GameId) -> Result<Option<GameRecord>, StoreError> {
        Ok(self.games(&[id])?.pop().flatten())
    }

    /// Whether a game with this fingerprint is stored, committed or written by this writer's
    /// ingest before its commit (the writer's duplicate check; [`Store::discard_uncommitted`]
    /// removes what a killed writer left first).
    pub fn has_fingerprint(&self, fingerprint: &Fingerprint) -> Result<bool, StoreError> {
        let found =
            self.db.get_pinned_cf(self.cf(options::FINGERPRINTS), fingerprint.0).map_err(|err| self.rocks(err))?;
        Ok(found.is_some())
    }

    /// Which of `fingerprints` are stored already.
    pub fn known_fingerprints(&self, fingerprints: &[Fingerprint]) -> Result<Vec<bool>, StoreError> {
        let cf = self.cf(options::FINGERPRINTS);
        self.db
            .multi_get_cf(fingerprints.iter().map(|fp| (cf, fp.0)))
            .into_iter()
            .map(|found| found.map(|value| value.is_some()).map_err(|err| self.rocks(err)))
            .collect()
    }

    /// The database totals as last committed (all zero for a new database).
    pub fn totals(&self) -> Result<Totals, StoreError> {
        let found =
            self.db.get_pinned_cf(self.cf(options::POSITIONS), meta::COMMIT_KEY).map_err(|err| self.rocks(err))?;
        match found {
            None => Ok(Totals::default()),
            Some(bytes) => decode_record(&bytes).ok_or_else(|| self.corrupt("totals")),
        }
    }

    /// The ingest runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let mut runs = Vec::new();
        let mode = IteratorMode::From(meta::RUN_PREFIX, rocksdb::Direction::Forward);
        for item in self.db.iterator_cf(self.cf(options::META), mode) {
            let (key, value) = item.map_err(|err| self.rocks(err))?;
            if !key.starts_with(meta::RUN_PREFIX) {
                break;
            }
            runs.push(decode_record(&value).ok_or_else(|| self.corrupt("ingest run record"))?);
        }
        Ok(runs)
    }

    /// Counts the distinct positions, and those reached by a single game, by walking the
    /// positions family and the single-game tier's marks.
    pub fn count_positions(&self) -> Result<PositionCounts, StoreError> {
        let mut counts = PositionCounts::default();
        let mut cursor = self.family_cursor(None, None);
        while let Some((_, value)) = cursor.item() {
            counts.add(value);
            cursor.next();
        }
        cursor.status().map_err(|err| self.rocks(err))?;
        let tier = self.tier_positions()?;
        counts.distinct += tier;
        counts.single_game += tier;
        Ok(counts)
    }

    /// A raw iterator over the full-key family's positions from `lower` (inclusive) to `upper`
    /// (exclusive), without filling the block cache, positioned at its first entry.
    fn family_cursor(
        &self,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
    ) -> rocksdb::DBRawIteratorWithThreadMode<'_, DB> {
        let mut options = ReadOptions::default();
        options.fill_cache(false);
        options.set_iterate_upper_bound(upper.unwrap_or(tier::POSITIONS_END).min(tier::POSITIONS_END).to_vec());
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(options::POSITIONS), options);
        iter.seek(lower.unwrap_or(FIRST_POSITION).max(FIRST_POSITION));
        iter
    }

    /// The cursor of one part of a scan ([`Store::scan_parts`]).
    pub fn part_cursor(&self, part: &ScanPart) -> Result<PositionCursor<'_>, StoreError> {
        self.part_cursor_where(part, &|_| true)
    }

    /// The cursor of one part of a scan, which may leave out the single-game tier's positions
    /// whose board `wanted` refuses (they are then not keyed: a scan of a few materials says
    /// which it needs).
    pub fn part_cursor_where(
        &self,
        part: &ScanPart,
        wanted: &(dyn Fn(&shakmaty::Chess) -> bool + Sync),
    ) -> Result<PositionCursor<'_>, StoreError> {
        let entries = match part {
            ScanPart::Family((lower, upper)) => {
                CursorEntries::Family(self.family_cursor(lower.as_deref(), upper.as_deref()))
            }
            ScanPart::TierMaterials(ranges) => CursorEntries::Tier(self.tier_entries_of_materials(ranges, wanted)?, 0),
            ScanPart::TierGames(first, end) => {
                CursorEntries::Tier(self.tier_entries_of_games(*first, *end, wanted)?, 0)
            }
        };
        Ok(PositionCursor { entries, store: self })
    }

    /// Every stored position split into parts for parallel scans: the full-key family in key
    /// ranges of similar size (between the first keys of its table files), and the single-game
    /// tier by runs of games (each replayed once).
    pub fn scan_parts(&self) -> Result<Vec<ScanPart>, StoreError> {
        let files = self.db.live_files().map_err(|err| self.rocks(err))?;
        let mut keys: Vec<Vec<u8>> = files
            .into_iter()
            .filter(|file| file.column_family_name == options::POSITIONS)
            .filter_map(|file| file.start_key)
            .filter(|key| key.as_slice() > FIRST_POSITION && key.as_slice() < tier::POSITIONS_END)
            .collect();
        keys.sort();
        keys.dedup();
        let mut parts = Vec::with_capacity(keys.len() + 1);
        let mut lower = None;
        for split in keys {
            parts.push(ScanPart::Family((lower.take(), Some(split.clone()))));
            lower = Some(split);
        }
        parts.push(ScanPart::Family((lower, None)));
        let committed = self.committed.load(Ordering::Acquire).max(1);
        let mut first = 1;
        while first < committed {
            let end = (first + TIER_GAMES_PER_PART).min(committed);
            parts.push(ScanPart::TierGames(GameId(first), GameId(end)));
            first = end;
        }
        Ok(parts)
    }

    /// The estimated number of stored positions (for progress display).
    pub fn estimated_positions(&self) -> u64 {
        let totals = self.totals().unwrap_or_default();
        let family = self
            .db
            .property_int_value_cf(self.cf(options::POSITIONS), rocksdb::properties::ESTIMATE_NUM_KEYS)
            .ok()
            .flatten()
            .unwrap_or(0);
        totals.distinct_positions.unwrap_or(family + totals.games * 40)
    }

    /// Every position and its statistics, part by part ([`Store::scan_parts`]): in key order
    /// within each part.
    pub fn positions(&self) -> impl Iterator<Item = Result<(Key, PositionStats), StoreError>> + '_ {
        self.entries().map(|item| {
            let (key, value) = item?;
            Ok((key, self.decode_position(&key, &value, Detail::All, true)?))
        })
    }

    /// Every position's posting list, part by part as [`Store::positions`].
    pub fn posting_lists(&self) -> impl Iterator<Item = Result<(Key, PostingList), StoreError>> + '_ {
        self.entries().map(|item| {
            let (key, value) = item?;
            let list = layout::postings(&value).ok_or_else(|| self.corrupt(format!("position {key}")))?;
            Ok((key, list))
        })
    }

    /// Every position's key and stored value, part by part.
    fn entries(&self) -> Box<dyn Iterator<Item = Result<StoredEntry, StoreError>> + '_> {
        let parts = match self.scan_parts() {
            Ok(parts) => parts,
            Err(err) => return Box::new(std::iter::once(Err(err))),
        };
        Box::new(parts.into_iter().flat_map(move |part| {
            let read = || -> Result<Vec<(Key, Vec<u8>)>, StoreError> {
                let mut cursor = self.part_cursor(&part)?;
                let mut entries = Vec::new();
                while let Some((key, value)) = cursor.entry() {
                    entries.push((Key::try_from(key).map_err(|_| self.corrupt("position key"))?, value.to_vec()));
                    cursor.next();
                }
                cursor.status()?;
                Ok(entries)
            };
            let entries: Box<dyn Iterator<Item = _>> = match read() {
                Ok(entries) => Box::new(entries.into_iter().map(Ok)),
                Err(err) => Box::new(std::iter::once(Err(err))),
            };
            entries
        }))
    }

    /// Bytes of live SST files per column family, the positions family split into its full-key
    /// positions (`positions`) and the single-game tier's records (`tier marks`, `tier hashes`,
    /// `tier blocks`; RocksDB's estimates of their key ranges).
    pub fn family_bytes(&self) -> Result<Vec<(&'static str, u64)>, StoreError> {
        let mut bytes = Vec::with_capacity(COLUMN_FAMILIES.len() + 3);
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
            let tier = tier::record_ranges();
            let ranges: Vec<rocksdb::Range> = tier.iter().map(|(_, from, to)| rocksdb::Range::new(from, to)).collect();
            let sizes = self.db.get_approximate_sizes_cf(cf, &ranges);
            let in_tier: u64 = sizes.iter().sum();
            bytes.push((name, total.saturating_sub(in_tier)));
            bytes.extend(tier.iter().zip(sizes).map(|((label, _, _), size)| (*label, size)));
        }
        Ok(bytes)
    }

    /// Starts a batch of writes, applied atomically by [`Store::write`].
    pub fn batch(&self) -> Batch<'_> {
        Batch::new(self)
    }

    pub(crate) fn write(&self, batch: WriteBatch) -> Result<(), StoreError> {
        self.db.write_opt(batch, &options::write_options()).map_err(|err| self.rocks(err))
    }

    /// Persists every family's memtable, atomically.
    pub fn flush(&self) -> Result<(), StoreError> {
        let families: Vec<_> = COLUMN_FAMILIES.iter().map(|&name| self.cf(name)).collect();
        self.db.flush_cfs_opt(&families, &FlushOptions::default()).map_err(|err| self.rocks(err))
    }

    /// Compacts every family fully (dropping the values later commits replaced).
    pub fn compact(&self) {
        for name in COLUMN_FAMILIES {
            self.db.compact_range_cf(self.cf(name), None::<&[u8]>, None::<&[u8]>);
        }
    }
}

/// A position's key and its stored value.
type StoredEntry = (Key, Vec<u8>);

#[cfg(test)]
mod tests {
    use super::*;

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
