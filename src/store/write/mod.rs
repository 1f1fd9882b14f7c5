//! Writing the database: the [`Writer`] of a store opened for writing, and what it writes with.
//!
//! - `batch.rs`: a [`Batch`] of games, facts, fingerprints, players entries, totals and run
//!   records, applied atomically;
//! - `staging/`: the staging area, sorted runs of position occurrences waiting for their commit
//!   ([`Staging`]), and their k-way merge;
//! - `commit.rs`: the commit, staged runs merged by key range into SST files and ingested in
//!   one atomic step with the commit record; the same ranges written apart by other processes
//!   ([`CommitBase::write_range`], [`RangeWritten`]);
//! - `stored_tier.rs`: a later commit's new keys found in the stored single-game tier all at
//!   once, when that costs less than a replay a key (`StoredTierHits`);
//! - `distributed.rs`: games written apart as SST files by the tasks of a build spread over
//!   machines ([`Batch::for_files`], [`FamilyFile`]).
//!
//! The writer also replaces the opening table, flushes and compacts, removes what a killed
//! ingest wrote without committing it, and reads what an ingest must see of its own writes
//! before they are committed (fingerprints and twins).

mod batch;
mod commit;
mod distributed;
mod notes;
mod staging;
mod stored_tier;

pub use batch::{Batch, GameWrite};
pub use commit::{COMMIT_RANGES, CommitBase, MAX_COMMIT_RANGES, RangeWritten, commit_pivots};
pub use distributed::FamilyFile;
pub(crate) use distributed::{put_file_name, put_text, read_file_name, read_text};
pub use notes::SUMMED_FROM;
pub use staging::{
    BOUND_EVERY, HeldRun, Occurrence, RunRecords, Staging, decode_run_records, encode_run_records, is_range_bound,
    ranges_between,
};

use std::path::{Path, PathBuf};

use rocksdb::{FlushOptions, Options, SstFileWriter, WriteBatch};

use super::{
    Store, StoreError, Totals,
    layout::{
        encode_opening,
        keys::{FORMAT_KEY, player_key_game},
    },
    options::{self, COLUMN_FAMILIES},
    read::games,
};
use crate::{
    codec::{KEY_LEN, Key},
    model::{Fingerprint, GameId, GameRecord, twins::TwinKey},
};

/// The writer of a database opened for writing ([`Store::writer`]); one process writes at a
/// time (RocksDB locks the directory).
#[derive(Clone, Copy)]
pub struct Writer<'s> {
    store: &'s Store,
}

impl<'s> Writer<'s> {
    pub(super) fn new(store: &'s Store) -> Writer<'s> {
        Writer { store }
    }

    /// The store it writes.
    pub fn store(&self) -> &'s Store {
        self.store
    }

    /// Starts a batch of writes, applied atomically by [`Batch::commit`].
    pub fn batch(&self) -> Batch<'s> {
        Batch { store: self.store, writes: batch::Writes::Database(WriteBatch::default()) }
    }

    /// Commits the positions staged in `staging` with `totals`, in one atomic step (see
    /// `commit.rs`): every new game's positions become visible at once, with the new totals.
    pub fn commit(&self, staging: &mut Staging, totals: &mut Totals) -> Result<(), StoreError> {
        commit::commit_positions(self, staging, totals)
    }

    /// Commits the games up to `totals.next_game_id` from what each range of the commit wrote
    /// apart ([`CommitBase::write_range`]; `records` are the files holding their
    /// [`RangeWritten`], beside their SST files), in one atomic step as [`Writer::commit`]
    /// does; the tier's own files go into `dir`.
    pub fn commit_written(&self, records: &[PathBuf], totals: &mut Totals, dir: &Path) -> Result<(), StoreError> {
        commit::commit_written(self, records, totals, dir)
    }

    /// Ingests games written to files apart ([`Batch::write_files`]), holding the games from
    /// `first` on, before their commit.
    pub fn ingest_game_files(&self, files: &[FamilyFile], first: GameId) -> Result<(), StoreError> {
        distributed::ingest_game_files(self.store, files, first)
    }

    /// Whether a game with this fingerprint is stored, committed or written by this writer's
    /// ingest before its commit (the writer's duplicate check;
    /// [`Writer::discard_uncommitted`] removes what a killed writer left first).
    pub fn has_fingerprint(&self, fingerprint: &Fingerprint) -> Result<bool, StoreError> {
        let store = self.store;
        let found =
            store.db.get_pinned_cf(store.cf(options::FINGERPRINTS), fingerprint.0).map_err(|err| store.rocks(err))?;
        Ok(found.is_some())
    }

    /// Which of `fingerprints` are stored already, committed or written by this writer.
    pub fn known_fingerprints(&self, fingerprints: &[Fingerprint]) -> Result<Vec<bool>, StoreError> {
        let store = self.store;
        let cf = store.cf(options::FINGERPRINTS);
        store
            .db
            .multi_get_cf(fingerprints.iter().map(|fp| (cf, fp.0)))
            .into_iter()
            .map(|found| found.map(|value| value.is_some()).map_err(|err| store.rocks(err)))
            .collect()
    }

    /// The games stored under twin key `twin`, committed or written by this writer's ingest,
    /// ascending.
    pub(crate) fn twin_ids(&self, twin: TwinKey) -> Result<Vec<GameId>, StoreError> {
        games::twin_ids_below(self.store, twin, u64::MAX)
    }

    /// Games by id, committed or written by this writer's ingest (see [`Writer::twin_ids`]).
    pub(crate) fn staged_games(&self, ids: &[GameId]) -> Result<Vec<Option<GameRecord>>, StoreError> {
        games::below(self.store, ids, u64::MAX)
    }

    /// Replaces the opening table.
    pub fn put_openings(&self, openings: &[(Key, String, String)]) -> Result<(), StoreError> {
        let store = self.store;
        let cf = store.cf(options::OPENINGS);
        let mut batch = WriteBatch::default();
        batch.delete_range_cf(cf, [0u8].as_slice(), [0xffu8; KEY_LEN + 1].as_slice());
        for (key, eco, name) in openings {
            batch.put_cf(cf, key.as_bytes(), encode_opening(eco, name));
        }
        write(store, batch)?;
        self.flush()
    }

    /// Persists every family's memtable, atomically.
    pub fn flush(&self) -> Result<(), StoreError> {
        let store = self.store;
        let families: Vec<_> = COLUMN_FAMILIES.iter().map(|&name| store.cf(name)).collect();
        store.db.flush_cfs_opt(&families, &FlushOptions::default()).map_err(|err| store.rocks(err))
    }

    /// Compacts every family fully (dropping the values later commits replaced).
    pub fn compact(&self) {
        for name in COLUMN_FAMILIES {
            self.store.db.compact_range_cf(self.store.cf(name), None::<&[u8]>, None::<&[u8]>);
        }
    }

    /// Removes what a killed or failed run wrote (or ingested) before its commit: games at or
    /// above the committed `next_game_id`, their mainlines, facts, header facts, players and
    /// twins entries and fingerprints (only when some such game is found: the games' family is
    /// written or ingested first). Returns how many games it removed.
    pub fn discard_uncommitted(&self) -> Result<u64, StoreError> {
        let store = self.store;
        let first = GameId(store.committed().max(1));
        let games = store.cf(options::GAMES);
        let mut iter = store.db.raw_iterator_cf(games);
        iter.seek(first.to_bytes());
        let mut removed = 0;
        let mut batch = WriteBatch::default();
        while let Some(key) = iter.key() {
            batch.delete_cf(games, key);
            removed += 1;
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        if removed == 0 {
            return Ok(0);
        }
        batch.delete_range_cf(store.cf(options::FACTS), first.to_bytes(), GameId(u64::MAX).to_bytes());
        // Their labels stay: a text no game names matches no game.
        batch.delete_range_cf(store.cf(options::HEADERS), first.to_bytes(), GameId(u64::MAX).to_bytes());
        batch.delete_range_cf(store.cf(options::MAINLINES), first.to_bytes(), GameId(u64::MAX).to_bytes());
        batch.delete_range_cf(store.cf(options::ANNOTATIONS), first.to_bytes(), GameId(u64::MAX).to_bytes());
        let uncommitted = |id: Option<GameId>| id.is_some_and(|id| id >= first);
        self.delete_where(options::PLAYERS, &mut batch, |key, _| uncommitted(player_key_game(key)))?;
        self.delete_where(options::TWINS, &mut batch, |key, _| uncommitted(player_key_game(key)))?;
        // A fingerprint's value is its game's id.
        self.delete_where(options::FINGERPRINTS, &mut batch, |_, value| uncommitted(GameId::from_bytes(value)))?;
        write(store, batch)?;
        self.flush()?;
        Ok(removed)
    }

    /// Writes the format version of a new database.
    pub(super) fn write_format(&self, version: u32) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        batch.put_cf(self.store.cf(options::META), FORMAT_KEY, version.to_be_bytes());
        write(self.store, batch)?;
        self.flush()
    }

    /// Adds to `batch` the deletion of every entry of `family` that `doomed` picks.
    fn delete_where(
        &self,
        family: &str,
        batch: &mut WriteBatch,
        doomed: impl Fn(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        let store = self.store;
        let cf = store.cf(family);
        let mut iter = store.db.raw_iterator_cf(cf);
        iter.seek_to_first();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if doomed(key, value) {
                batch.delete_cf(cf, key);
            }
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))
    }
}

/// Applies `batch` to `store` atomically.
fn write(store: &Store, batch: WriteBatch) -> Result<(), StoreError> {
    store.db.write_opt(batch, &options::write_options()).map_err(|err| store.rocks(err))
}

/// A new SST file at `path`, with `options` (a family's).
pub(super) fn sst_writer<'o>(
    store: &Store,
    options: &'o Options,
    path: &Path,
) -> Result<SstFileWriter<'o>, StoreError> {
    let writer = SstFileWriter::create(options);
    writer.open(path).map_err(|err| store.rocks(err))?;
    Ok(writer)
}
