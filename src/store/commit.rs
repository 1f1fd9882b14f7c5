//! Committing an ingest: staged positions become SST files that RocksDB ingests in one atomic
//! step together with the commit record (the totals).
//!
//! Why this is exactly-once: games, facts, fingerprints and players entries are written (and
//! flushed) before the commit, under ids at or above the committed `next_game_id`, where readers
//! do not look. The ingestion of the commit's files is one MANIFEST record: either every position and
//! the new totals are in, or none. A writer starting after a kill removes the games above the
//! committed id ([`Store::discard_uncommitted`]), so their fingerprints do not make the re-run
//! skip them.

use std::{
    path::{Path, PathBuf},
    sync::atomic::Ordering,
};

use rayon::prelude::*;
use rocksdb::{Options, SstFileWriter};

use super::{
    FactsTable, PositionCounts, Staging, Store, StoreError, Totals,
    layout::{StoredValue, encode_new, encode_record, keys::COMMIT_KEY, tier::MAX_PLY},
    options,
    tier::{RangeTier, TierIndex, TierWrites},
};
use crate::{
    codec::{Key, KeyRange},
    model::{GameId, PositionStats},
};

/// Bytes of one SST file of a commit (the family's own target file size).
const FILE_BYTES: u64 = 128 << 20;
/// Key ranges a commit is split into: its parallel tasks, and the single-game tier's segments.
/// A constant, not a function of the cores, so that the same games make the same database
/// on any machine.
const COMMIT_RANGES: usize = 16;
/// Run files a commit keeps open at once: each range being merged opens every run, so this
/// caps how many ranges merge together (a segment holds some 60 runs).
const OPEN_RUNS: usize = 512;

impl Store {
    /// Commits the positions staged in `staging` with `totals`, in one atomic step: the staged
    /// runs are merged, key range by key range on every core, into SST files, and RocksDB
    /// ingests them all at once with a file holding the commit record. Every family is flushed
    /// first, so that the games the commit makes visible are on disk before it.
    ///
    /// Every position is written as its final stored value, built once from all its staged
    /// occurrences and their games' facts (the new games' facts are read from the facts family,
    /// where the batches wrote them): into a database holding no position yet, as such, and
    /// counted (the distinct and single-game counts go into the committed totals); otherwise
    /// summed with the stored value of a position stored already ([`StoredValue::add`], a merge
    /// join with the stored positions of the range), and the counts are unknown (`None`) until
    /// counted again.
    pub fn commit_positions(&self, staging: &mut Staging, totals: &mut Totals) -> Result<(), StoreError> {
        let before = self.totals()?;
        let fresh = before.position_occurrences == 0;
        let tier = TierWrites::new(GameId(before.next_game_id.max(1)), totals.next_game_id);
        self.flush()?;
        let workers = (OPEN_RUNS / staging.run_count().max(1)).clamp(1, rayon::current_num_threads());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|index| format!("tabiya-commit-{index}"))
            .build()
            .map_err(|err| self.staging_error(std::io::Error::other(err)))?;
        let ranges = staging.ranges(COMMIT_RANGES);
        let ranges_count = ranges.len();
        let new_facts = self.new_facts(GameId(before.next_game_id.max(1)), GameId(totals.next_game_id))?;
        // A later commit sums positions stored already, whose one-game values need their
        // facts, and looks its new keys up in the tier's hash segments.
        let stored = match fresh {
            true => None,
            false => Some((self.committed_facts()?, self.tier_index()?)),
        };
        let written: Vec<(Vec<PathBuf>, PositionCounts, RangeTier)> = pool.install(|| {
            ranges
                .into_par_iter()
                .enumerate()
                .map(|(index, range)| {
                    let Some(range) = range else { return Ok(Default::default()) };
                    let stored = stored.as_ref().map(|(facts, index)| (&**facts, &**index));
                    self.write_range(staging, (index, ranges_count), range, &new_facts, stored, &tier)
                })
                .collect::<Result<_, _>>()
        })?;
        let mut files = Vec::new();
        let mut counts = PositionCounts::default();
        let mut range_tiers = Vec::with_capacity(written.len());
        for (range_files, range_counts, range_tier) in written {
            files.extend(range_files);
            counts.distinct += range_counts.distinct;
            counts.single_game += range_counts.single_game;
            range_tiers.push(range_tier);
        }
        // The tier's records sort after every position: their own files, last.
        files.extend(self.write_tier_files(&tier, &mut range_tiers, staging.dir())?);
        (totals.distinct_positions, totals.single_game_positions) = match fresh {
            true => (Some(counts.distinct), Some(counts.single_game)),
            false => (None, None),
        };
        // The commit record sorts before every position: its own file, first.
        let record = staging.dir().join("commit.sst");
        let options = options::positions_sst(&self.cache);
        let mut writer = self.sst_writer(&options, &record)?;
        writer.put(COMMIT_KEY, encode_record(totals)).map_err(|err| self.rocks(err))?;
        writer.finish().map_err(|err| self.rocks(err))?;
        files.insert(0, record);
        let changing = self.steady.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.db
            .ingest_external_file_cf_opts(self.cf(options::POSITIONS), &options::ingest_options(), files)
            .map_err(|err| self.rocks(err))?;
        self.committed.store(totals.next_game_id, Ordering::Release);
        drop(changing);
        staging.clear()
    }

    /// A new SST file at `path`.
    pub(super) fn sst_writer<'a>(&self, options: &'a Options, path: &Path) -> Result<SstFileWriter<'a>, StoreError> {
        let writer = SstFileWriter::create(options);
        writer.open(path).map_err(|err| self.rocks(err))?;
        Ok(writer)
    }

    /// Merges the staged runs over one key range into SST files (`range-INDEX-N.sst`), summed
    /// with the stored positions when `stored` (a later commit) holds the stored games' facts and
    /// the tier's hash segments. A position one new game reaches once goes to the single-game
    /// tier (`tier`), and a tier position a new game reaches again leaves it for the full-key
    /// family.
    fn write_range(
        &self,
        staging: &Staging,
        (index, ranges_count): (usize, usize),
        range: KeyRange,
        new_facts: &FactsTable,
        stored: Option<(&FactsTable, &TierIndex)>,
        tier: &TierWrites,
    ) -> Result<(Vec<PathBuf>, PositionCounts, RangeTier), StoreError> {
        let fresh = stored.is_none();
        let options = options::positions_sst(&self.cache);
        let mut merged = staging.merged(range).map_err(|err| self.staging_error(err))?;
        let mut cursor = stored.map(|_| StoredCursor::new(self, range));
        let mut files = Vec::new();
        let mut counts = PositionCounts::default();
        let mut writer: Option<SstFileWriter> = None;
        // Most staged positions of a first commit go to the tier: room for them at once.
        let expected = if fresh { staging.records() / ranges_count.max(1) } else { 0 };
        // A range's segment names its first key, but for the first range's (from the first key).
        let mut range_tier = RangeTier::new((index > 0).then_some(range.first), expected);
        let mut value = Vec::new();
        while let Some((key, group)) = merged.next_group().map_err(|err| self.staging_error(err))? {
            value.clear();
            let plays = || group.iter().map(|o| (o.game, o.next));
            let without_facts = || self.corrupt(format!("staged position {key}: a game without facts"));
            let stored_value = match &mut cursor {
                Some(cursor) => cursor.find(&key)?,
                None => None,
            };
            // Not stored as a key: a stored tier position (a later commit), else new.
            let in_tier = match (stored_value.is_some(), stored) {
                (false, Some((_, index))) => self.tier_locate_in(index, &key)?,
                _ => None,
            };
            if let Some(stored_value) = stored_value.or_else(|| in_tier.map(|hit| hit.value())) {
                let added = PositionStats::of_plays(plays(), |id| new_facts.get(id)).ok_or_else(without_facts)?;
                let facts = stored.map(|(facts, _)| facts);
                value = stored_value
                    .add(&added, |id| facts.and_then(|facts| facts.get(id)))
                    .ok_or_else(|| self.corrupt(format!("position {key}")))?;
                if let Some(hit) = in_tier {
                    range_tier.promoted.push((hit.game, hit.ply));
                }
            } else if let [only] = group
                && only.ply < MAX_PLY
            {
                tier.add(&mut range_tier, &key, only.game, only.ply).map_err(|err| self.tier_error(err))?;
                if fresh {
                    counts.distinct += 1;
                    counts.single_game += 1;
                }
                continue;
            } else {
                encode_new(plays(), |id| new_facts.get(id), &mut value).ok_or_else(without_facts)?;
            }
            let sst = match &mut writer {
                Some(sst) if sst.file_size() < FILE_BYTES => sst,
                _ => {
                    if let Some(mut full) = writer.take() {
                        full.finish().map_err(|err| self.rocks(err))?;
                    }
                    let path = staging.dir().join(format!("range-{index:03}-{:03}.sst", files.len()));
                    let sst = self.sst_writer(&options, &path)?;
                    files.push(path);
                    writer.insert(sst)
                }
            };
            // Only a first commit's counts are kept (see `commit_positions`).
            if fresh {
                counts.add(&StoredValue::parse(&value).ok_or_else(|| self.corrupt(format!("position {key}")))?);
            }
            sst.put(key.as_bytes(), &value).map_err(|err| self.rocks(err))?;
        }
        if let Some(mut last) = writer {
            last.finish().map_err(|err| self.rocks(err))?;
        }
        range_tier.finish().map_err(|err| self.tier_error(err))?;
        Ok((files, counts, range_tier))
    }
}

/// The stored positions of a key range, read in key order as a commit's staged positions ask
/// for them (a merge join).
struct StoredCursor<'a> {
    iter: rocksdb::DBRawIteratorWithThreadMode<'a, rocksdb::DB>,
    store: &'a Store,
}

/// Entries a cursor steps over before it seeks instead: stored positions the staged ones skip.
const STEPS_BEFORE_SEEK: usize = 8;

impl<'a> StoredCursor<'a> {
    fn new(store: &'a Store, range: KeyRange) -> StoredCursor<'a> {
        StoredCursor { iter: store.family_iterator(&range), store }
    }

    /// The stored value of `key`, if stored; keys must be asked in increasing order.
    fn find(&mut self, key: &Key) -> Result<Option<StoredValue<'_>>, StoreError> {
        let wanted = key.as_bytes().as_slice();
        let mut steps = 0;
        while let Some(at) = self.iter.key() {
            if at >= wanted {
                break;
            }
            steps += 1;
            match steps > STEPS_BEFORE_SEEK {
                true => {
                    self.iter.seek(wanted);
                    break;
                }
                false => self.iter.next(),
            }
        }
        self.iter.status().map_err(|err| self.store.rocks(err))?;
        let Some(value) = self.iter.key().filter(|at| *at == wanted).and(self.iter.value()) else { return Ok(None) };
        StoredValue::parse(value).map(Some).ok_or_else(|| self.store.corrupt(format!("position {key}")))
    }
}
