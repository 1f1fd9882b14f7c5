//! Committing an ingest: staged positions become SST files that RocksDB ingests in one atomic
//! step together with the commit record (the totals).
//!
//! Why this is exactly-once: games, facts, fingerprints and players entries are written (and
//! flushed), or ingested from files written apart (`distributed.rs`), before the commit, under ids
//! at or above the committed `next_game_id`, where readers do not look. The ingestion of the
//! commit's files is one MANIFEST record: either every position and the new totals are in, or
//! none. A writer starting after a kill removes the games above the committed id
//! ([`Writer::discard_uncommitted`]), so their fingerprints do not make the re-run skip them.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, atomic::Ordering},
};

use rayon::prelude::*;
use rocksdb::SstFileWriter;

use super::{
    Writer,
    distributed::{put_file_name, read_file_name},
    notes::{NoteFiles, may_note},
    sst_writer,
    staging::Staging,
    stored_tier::StoredTierHits,
};
use crate::{
    codec::{Key, KeyRange},
    model::{GameId, PositionStats},
    store::{
        Store, StoreError, Totals,
        layout::{FACTS_LEN, StoredValue, encode_new, encode_record, keys::COMMIT_KEY, tier::MAX_PLY},
        options,
        read::{
            PositionCounts,
            facts::{Facts, written_facts},
            records::{FactsTable, GameColumn},
            scan::family_iterator,
        },
        tier::{RangeTier, TierIndex, TierReader, TierWrites},
    },
    varint::{get_varint, put_varint},
};

/// Bytes of one SST file of a commit (the family's own target file size).
const FILE_BYTES: u64 = 128 << 20;
/// Key ranges a commit is split into: its parallel tasks, and the single-game tier's segments.
/// A constant, not a function of the cores, so that the same games make the same database
/// on any machine. (A build spread over machines cuts more when it is larger,
/// [`range_count`](crate::indexer::distributed::range_count).)
pub const COMMIT_RANGES: usize = 16;
/// The most key ranges a commit can have: the tier's records name a range in two bytes.
pub const MAX_COMMIT_RANGES: usize = 1 << 16;
/// Run files a commit keeps open at once: each range being merged opens every run, so this
/// caps how many ranges merge together (a segment holds some 60 runs).
const OPEN_RUNS: usize = 512;

/// The pivots of a commit's `ranges` key ranges ([`ranges_between`](super::ranges_between)
/// cuts them) from the candidate bounds of its staged keys, for a build that writes the ranges
/// apart: with [`COMMIT_RANGES`], what a single-machine commit of the same positions cuts.
/// Fewer when the keys do not make that many distinct quantiles.
pub fn commit_pivots(bound_keys: Vec<Key>, ranges: usize) -> Vec<Key> {
    super::staging::range_pivots(bound_keys, ranges.clamp(1, MAX_COMMIT_RANGES))
}

/// Bytes a range being merged holds at its peak for each staged record of the range: its
/// single-game tier entries (40 bytes each), their order and the map built from them. An
/// upper bound measured on players (a commit of 16 ranges at `--memory 256M` took 45–50 MB a
/// range for 1.06 million records).
const RANGE_BYTES_PER_RECORD: u64 = 48;

/// The ranges merged at once: one a thread, as many as the run files allow open together and,
/// under a memory budget, as half of it holds (the block cache and memtables hold the rest): a
/// range's memory grows with the records it merges, and with 8 threads a commit under
/// `--memory 256M` had taken 620 MB. Without a budget, one a thread.
fn commit_workers(staging: &Staging, ranges: usize) -> usize {
    let budget = crate::store::memory_budget();
    workers_for(staging.records() as u64, staging.run_count(), ranges, budget, rayon::current_num_threads())
}

/// [`commit_workers`] of `records` staged in `runs` run files, cut into `ranges`, with
/// `threads`.
fn workers_for(records: u64, runs: usize, ranges: usize, budget: Option<u64>, threads: usize) -> usize {
    let by_runs = OPEN_RUNS / runs.max(1);
    let per_range = (records / ranges.max(1) as u64).max(1).saturating_mul(RANGE_BYTES_PER_RECORD);
    let by_memory = budget.map_or(usize::MAX, |budget| usize::try_from(budget / 2 / per_range).unwrap_or(usize::MAX));
    by_runs.min(by_memory).clamp(1, threads)
}

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
pub(super) fn commit_positions(writer: &Writer, staging: &mut Staging, totals: &mut Totals) -> Result<(), StoreError> {
    let store = writer.store();
    let mut base = CommitBase::read(store, GameId(totals.next_game_id), None)?;
    let tier = TierWrites::new(base.first, totals.next_game_id);
    writer.flush()?;
    let ranges = staging.ranges(COMMIT_RANGES);
    let workers = commit_workers(staging, ranges.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|index| format!("tabiya-commit-{index}"))
        .build()
        .map_err(|err| store.staging_error(std::io::Error::other(err)))?;
    let ranges_count = ranges.len();
    if base.stored.is_some() {
        base.stored_hits = StoredTierHits::find(store, staging, &ranges, &pool)?;
    }
    let written: Vec<RangeWritten> = pool.install(|| {
        ranges
            .into_par_iter()
            .enumerate()
            .map(|(index, range)| {
                let Some(range) = range else { return Ok(RangeWritten::empty(index, ranges_count)) };
                base.write(store, staging, (index, ranges_count), range, &tier)
            })
            .collect::<Result<_, _>>()
    })?;
    ingest_commit(store, base.stored.is_none(), &tier, written, totals, staging.dir())?;
    staging.clear()
}

/// Commits the games up to `totals.next_game_id` from what each range of the commit wrote
/// apart ([`CommitBase::write_range`], on the same committed state; `records` are the files
/// holding their [`RangeWritten`], beside their SST files), in one atomic step as
/// [`commit_positions`] does; the tier's own files go into `dir`.
pub(super) fn commit_written(
    writer: &Writer,
    records: &[PathBuf],
    totals: &mut Totals,
    dir: &Path,
) -> Result<(), StoreError> {
    let store = writer.store();
    let before = store.totals()?;
    let (first, end) = (GameId(before.next_game_id.max(1)), GameId(totals.next_game_id));
    let tier = TierWrites::new(first, end.0);
    let mut ordered: Vec<Option<RangeWritten>> = Vec::new();
    for record in records {
        let refused = |what: String| store.invariant(format!("the written range {}: {what}", record.display()));
        let bytes = std::fs::read(record).map_err(|err| refused(err.to_string()))?;
        let dir = record.parent().unwrap_or(Path::new("."));
        let range = RangeWritten::read(&bytes, dir, (first, end), &tier).map_err(refused)?;
        if ordered.is_empty() {
            ordered = (0..range.ranges).map(|_| None).collect();
        }
        let (index, ranges, count) = (range.index, range.ranges, ordered.len());
        match ordered.get_mut(index).filter(|_| ranges == count) {
            Some(slot @ None) => *slot = Some(range),
            _ => return Err(refused(format!("range {index} of {ranges}, written twice or out of place"))),
        }
    }
    // Every new occurrence in some range: none lost with a range, none outside its own.
    let merged: u64 = ordered.iter().flatten().map(|range| range.occurrences).sum();
    let added = totals.position_occurrences.saturating_sub(before.position_occurrences);
    if merged != added {
        return Err(
            store.invariant(format!("the written ranges hold {merged} occurrences of new games, which have {added}"))
        );
    }
    let count = ordered.len();
    let written: Vec<RangeWritten> = ordered
        .into_iter()
        .enumerate()
        .map(|(index, range)| range.unwrap_or_else(|| RangeWritten::empty(index, count)))
        .collect();
    writer.flush()?;
    ingest_commit(store, before.position_occurrences == 0, &tier, written, totals, dir)
}

/// The last step of a commit: the tier's files written from every range's records, the
/// commit record, and every file ingested at once, while no snapshot sees the view.
fn ingest_commit(
    store: &Store,
    fresh: bool,
    tier: &TierWrites,
    written: Vec<RangeWritten>,
    totals: &mut Totals,
    dir: &Path,
) -> Result<(), StoreError> {
    let mut files = Vec::new();
    let mut counts = PositionCounts::default();
    let mut range_tiers = Vec::with_capacity(written.len());
    for range in written {
        files.extend(range.files);
        counts.distinct += range.counts.distinct;
        counts.single_game += range.counts.single_game;
        range_tiers.push(range.tier);
    }
    // The tier's records sort after every position: their own files, last.
    files.extend(tier.write_files(store, &mut range_tiers, dir)?);
    (totals.distinct_positions, totals.single_game_positions) = match fresh {
        true => (Some(counts.distinct), Some(counts.single_game)),
        false => (None, None),
    };
    // The commit record sorts before every position: its own file, first.
    let record = dir.join("commit.sst");
    let options = options::family_sst(options::POSITIONS, &store.cache);
    let mut writer = sst_writer(store, &options, &record)?;
    writer.put(COMMIT_KEY, encode_record(totals)).map_err(|err| store.rocks(err))?;
    writer.finish().map_err(|err| store.rocks(err))?;
    files.insert(0, record);
    store.stillness.change(|| {
        store
            .db
            .ingest_external_file_cf_opts(store.cf(options::POSITIONS), &options::ingest_options(), files)
            .map_err(|err| store.rocks(err))?;
        store.committed.store(totals.next_game_id, Ordering::Release);
        Ok(())
    })
}

impl<'s> CommitBase<'s> {
    /// What every range of a commit of the games up to `end` (exclusive) into `store` reads:
    /// the new games' facts (`new_facts`, packed as [`pack_facts`](crate::store::pack_facts)
    /// packs them, else read from the facts family, where the batches wrote them), and for a
    /// later commit the stored games' facts and the tier's maps. A range task of a build spread
    /// over machines reads it from the database opened read-only.
    pub fn read(store: &'s Store, end: GameId, new_facts: Option<&[u8]>) -> Result<CommitBase<'s>, StoreError> {
        let before = store.totals()?;
        let first = GameId(before.next_game_id.max(1));
        let new_facts = match new_facts {
            Some(packed) => {
                let games = end.0.checked_sub(first.0).and_then(|games| usize::try_from(games).ok());
                let facts = GameColumn::from_packed(first, packed).filter(|facts| Some(facts.len() as usize) == games);
                facts.ok_or_else(|| {
                    store.invariant(format!("the new games' facts do not read as games {first} to {end}"))
                })?
            }
            None => written_facts(store, first, end)?,
        };
        // A later commit sums positions stored already, whose one-game values need their
        // facts, and looks its new keys up in the tier's maps.
        let committed = store.committed();
        let stored = match before.position_occurrences == 0 {
            true => None,
            false => Some((Facts::at(store, committed).table()?, TierReader::at(store, committed).index()?)),
        };
        Ok(CommitBase { first, end, new_facts, stored, stored_hits: None })
    }

    /// Writes range `index` of a commit's `ranges` (as [`ranges_between`](crate::store::ranges_between)
    /// cuts at [`commit_pivots`]' pivots) from the runs of `staging` (holding that range's
    /// occurrences, or more), apart from the commit's other ranges: in another process, or on
    /// another machine of a build spread over several. [`Writer::commit_written`] commits what
    /// every range wrote.
    pub fn write_range(
        &self,
        store: &Store,
        staging: &Staging,
        index: usize,
        ranges: &[Option<KeyRange>],
    ) -> Result<RangeWritten, StoreError> {
        let Some(range) = ranges.get(index) else {
            return Err(store.invariant(format!("range {index} of a commit of {} ranges", ranges.len())));
        };
        match range {
            Some(range) => self.write(store, staging, (index, ranges.len()), *range, &TierWrites::apart(self.first)),
            None => Ok(RangeWritten { first: self.first, end: self.end, ..RangeWritten::empty(index, ranges.len()) }),
        }
    }

    /// Merges the staged runs over one key range into SST files (`range-INDEX-N.sst`), summed
    /// with the stored positions in a later commit (the stored games' facts and the tier's
    /// maps are the base's). A position one new game reaches once goes to the single-game
    /// tier (`tier`), and a tier position a new game reaches again leaves it for the full-key
    /// family.
    fn write(
        &self,
        store: &Store,
        staging: &Staging,
        (index, ranges_count): (usize, usize),
        range: KeyRange,
        tier: &TierWrites,
    ) -> Result<RangeWritten, StoreError> {
        let base = self;
        let new_facts = &base.new_facts;
        let stored = base.stored.as_ref().map(|(facts, index)| (facts, &**index));
        let fresh = stored.is_none();
        let tier_reader = TierReader::at(store, store.committed());
        let options = options::family_sst(options::POSITIONS, &store.cache);
        let mut merged = staging.merged(range).map_err(|err| store.staging_error(err))?;
        let mut cursor = stored.map(|_| StoredCursor::new(store, range));
        let mut files = Vec::new();
        let mut counts = PositionCounts::default();
        let mut writer: Option<SstFileWriter> = None;
        // Most staged positions of a first commit go to the tier: room for them at once.
        let expected = if fresh { staging.records() / ranges_count.max(1) } else { 0 };
        // A range's segment names its first key, but for the first range's (from the first key).
        let mut range_tier = RangeTier::new((index > 0).then_some(range.first), expected);
        let mut value = Vec::new();
        let mut notes = NoteFiles::new(staging.dir(), index, &options);
        let mut occurrences = 0;
        while let Some((key, group)) = merged.next_group().map_err(|err| store.staging_error(err))? {
            value.clear();
            // A game reaching a position twice counts once (as in the totals), its occurrences
            // side by side.
            occurrences += 1 + group.windows(2).filter(|pair| pair[0].game != pair[1].game).count() as u64;
            let plays = || group.iter().map(|o| (o.game, o.next));
            let without_facts = || store.corrupt(format!("staged position {key}: a game without facts"));
            let stored_value = match &mut cursor {
                Some(cursor) => cursor.find(&key)?,
                None => None,
            };
            // Not stored as a key: a stored tier position (a later commit), else new.
            let in_tier = match (stored_value.is_some(), stored) {
                (false, Some((_, index))) => match &self.stored_hits {
                    Some(hits) => hits.get(&key),
                    None => tier_reader.locate_in(index, &key)?,
                },
                _ => None,
            };
            let was_stored = stored_value.is_some();
            if let Some(stored_value) = stored_value.or_else(|| in_tier.map(|hit| hit.value())) {
                let added = PositionStats::of_plays(plays(), |id| new_facts.get(id)).ok_or_else(without_facts)?;
                let facts = stored.map(|(facts, _)| facts);
                let corrupt = || store.corrupt(format!("position {key}"));
                value = stored_value
                    .add(&added, |id| facts.and_then(|facts| facts.get(id)))
                    .ok_or_else(|| facts.map_or_else(corrupt, |facts| facts.missing(corrupt)))?;
                if let Some(hit) = in_tier {
                    range_tier.promoted.push((hit.game, hit.ply));
                }
            } else if let [only] = group
                && only.ply < MAX_PLY
            {
                tier.add(&mut range_tier, &key, only).map_err(|err| store.tier_error(err))?;
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
                        full.finish().map_err(|err| store.rocks(err))?;
                    }
                    let path = staging.dir().join(format!("range-{index:03}-{:03}.sst", files.len()));
                    let sst = sst_writer(store, &options, &path)?;
                    files.push(path);
                    writer.insert(sst)
                }
            };
            // Only a first commit's counts are kept (see `commit_positions`).
            if fresh {
                counts.add(&StoredValue::parse(&value).ok_or_else(|| store.corrupt(format!("position {key}")))?);
            }
            sst.put(key.as_bytes(), &value).map_err(|err| store.rocks(err))?;
            if may_note(group, in_tier.is_some()) {
                notes.add(store, &key, group, was_stored, in_tier.as_ref())?;
            }
        }
        if let Some(mut last) = writer {
            last.finish().map_err(|err| store.rocks(err))?;
        }
        files.extend(notes.finish(store)?);
        range_tier.finish().map_err(|err| store.tier_error(err))?;
        let (first, end) = (base.first, base.end);
        Ok(RangeWritten { index, ranges: ranges_count, first, end, occurrences, files, counts, tier: range_tier })
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
        StoredCursor { iter: family_iterator(store, &range), store }
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

/// What every range of a commit reads ([`CommitBase::read`]).
pub struct CommitBase<'s> {
    /// The commit's first new game.
    first: GameId,
    /// The id after its last new game.
    end: GameId,
    /// The facts of its new games.
    new_facts: GameColumn<FACTS_LEN>,
    /// A later commit's stored games' facts and the tier's maps (`None`: the first).
    stored: Option<(FactsTable<'s>, Arc<TierIndex>)>,
    /// A later commit's new keys found in the stored tier all at once (`None`: each is looked
    /// up in the maps).
    stored_hits: Option<StoredTierHits>,
}

/// What one key range of a commit wrote ([`CommitBase::write_range`]): its SST files, its
/// position counts and its single-game tier records.
pub struct RangeWritten {
    /// Its number among the commit's ranges.
    index: usize,
    /// The commit's ranges.
    ranges: usize,
    /// The commit's new games, `first..end`.
    first: GameId,
    end: GameId,
    /// Occurrences merged: distinct (position, game) pairs.
    occurrences: u64,
    files: Vec<PathBuf>,
    counts: PositionCounts,
    tier: RangeTier,
}

impl RangeWritten {
    /// A range that holds no position.
    fn empty(index: usize, ranges: usize) -> RangeWritten {
        let tier = RangeTier::default();
        let (first, end, counts) = (GameId(0), GameId(0), PositionCounts::default());
        RangeWritten { index, ranges, first, end, occurrences: 0, files: Vec::new(), counts, tier }
    }

    /// The range's record as bytes, to hand to the process that commits
    /// ([`Writer::commit_written`]): its files are named by their names alone, all in the
    /// directory of the file the bytes are written to.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StoreError> {
        let mut bytes = Vec::new();
        for number in [self.index as u64, self.ranges as u64, self.first.0, self.end.0, self.occurrences] {
            put_varint(&mut bytes, number);
        }
        put_varint(&mut bytes, self.counts.distinct);
        put_varint(&mut bytes, self.counts.single_game);
        put_varint(&mut bytes, self.files.len() as u64);
        for file in &self.files {
            put_file_name(&mut bytes, file)?;
        }
        self.tier.write(&mut bytes);
        Ok(bytes)
    }

    /// A range's record from [`RangeWritten::to_bytes`], its files in `dir`, of a commit of
    /// the games `games` (first, end), its new tier entries marked in that commit's table as
    /// they are read; why not, for other bytes or another commit's.
    fn read(
        mut bytes: &[u8],
        dir: &Path,
        games: (GameId, GameId),
        commit: &TierWrites,
    ) -> Result<RangeWritten, String> {
        let input = &mut bytes;
        let short = || "not a range's record".to_owned();
        let mut number = || get_varint(input).ok_or_else(short);
        let (index, ranges, first, end, occurrences) = (number()?, number()?, number()?, number()?, number()?);
        if (first, end) != (games.0.0, games.1.0) {
            return Err(format!(
                "written for the games {first} to {end}, where this commit adds {} to {}",
                games.0, games.1
            ));
        }
        let counts = PositionCounts { distinct: number()?, single_game: number()? };
        let names = number()?;
        if ranges > MAX_COMMIT_RANGES as u64 || index >= ranges {
            return Err(format!("range {index} of {ranges}"));
        }
        let mut files = Vec::new();
        for _ in 0..names {
            files.push(read_file_name(input, dir)?);
        }
        let tier = RangeTier::read(input, commit).map_err(|err| err.to_string())?;
        if !input.is_empty() {
            return Err("bytes after a range's record".to_owned());
        }
        Ok(RangeWritten {
            index: index as usize,
            ranges: ranges as usize,
            first: GameId(first),
            end: GameId(end),
            occurrences,
            files,
            counts,
            tier,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Position,
        store::{Occurrence, tier::PawnFiles},
    };

    /// The games of the commit the test's range is of.
    const GAMES: (GameId, GameId) = (GameId(5), GameId(9));

    fn key(fen: &str) -> Key {
        Key::encode(&fen.parse::<Position>().expect("a position")).expect("a key")
    }

    /// A range written apart: two new tier positions (one past the table's plies) and a
    /// promoted one, one SST file.
    fn written(dir: &Path) -> RangeWritten {
        let writes = TierWrites::apart(GameId(5));
        let mut tier = RangeTier::new(None, 0);
        let start = key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let later = key("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        let filed = |game, ply, files| Occurrence {
            game: GameId(game),
            next: None,
            ply,
            pawn_files: PawnFiles(files),
            notes: Default::default(),
        };
        writes.add(&mut tier, &start, &filed(6, 3, 0xffff)).expect("filed");
        writes.add(&mut tier, &later, &filed(7, 300, 1 << 12)).expect("filed");
        tier.promoted.push((GameId(2), 4));
        tier.finish().expect("finished");
        let counts = PositionCounts { distinct: 3, single_game: 2 };
        let files = vec![dir.join("range-001-000.sst")];
        RangeWritten { index: 1, ranges: 16, first: GameId(5), end: GameId(9), occurrences: 4, files, counts, tier }
    }

    #[test]
    fn a_range_record_reads_back_into_the_commits_table() {
        let dir = tempfile::tempdir().expect("a directory");
        let bytes = written(dir.path()).to_bytes().expect("bytes");
        let table = TierWrites::new(GameId(5), 9);
        let read = RangeWritten::read(&bytes, dir.path(), GAMES, &table).expect("read back");
        assert_eq!((read.index, read.ranges, read.first, read.end, read.occurrences), (1, 16, GameId(5), GameId(9), 4));
        assert_eq!(read.counts, PositionCounts { distinct: 3, single_game: 2 });
        assert_eq!(read.files, [dir.path().join("range-001-000.sst")]);
        assert_eq!(table.new_marks(), [(GameId(6), vec![3]), (GameId(7), vec![300])]);
        // A commit of other games refuses the record, and a table too short for its marks.
        let other = RangeWritten::read(&bytes, dir.path(), (GameId(5), GameId(8)), &table).err();
        assert!(other.as_ref().is_some_and(|error| error.contains("written for the games 5 to 9")), "{other:?}");
        let error = RangeWritten::read(&bytes, dir.path(), GAMES, &TierWrites::new(GameId(5), 7)).err();
        assert!(error.is_some_and(|error| error.contains("game 7")));
    }

    #[test]
    fn a_damaged_range_record_is_refused_or_read_never_a_panic() {
        let dir = tempfile::tempdir().expect("a directory");
        let bytes = written(dir.path()).to_bytes().expect("bytes");
        for cut in 0..bytes.len() {
            assert!(
                RangeWritten::read(&bytes[..cut], dir.path(), GAMES, &TierWrites::new(GameId(5), 9)).is_err(),
                "{cut}"
            );
        }
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                let _ = RangeWritten::read(&damaged, dir.path(), GAMES, &TierWrites::new(GameId(5), 9));
            }
        }
        // A name that would leave the directory, and a range beyond a commit's count.
        let name = b"range-001-000.sst";
        let at = bytes.windows(name.len()).position(|window| window == name).expect("the name") - 1;
        for escaping in [&b"\x02.."[..], b"\x04../a", b"\x00"] {
            let crafted = [&bytes[..at], escaping, &bytes[at + 1 + name.len()..]].concat();
            let error = RangeWritten::read(&crafted, dir.path(), GAMES, &TierWrites::new(GameId(5), 9)).err();
            assert!(error.is_some_and(|error| error.contains("plain name")));
        }
        let mut beyond = written(dir.path());
        beyond.ranges = MAX_COMMIT_RANGES + 1;
        let bytes = beyond.to_bytes().expect("bytes");
        let error = RangeWritten::read(&bytes, dir.path(), GAMES, &TierWrites::new(GameId(5), 9)).err();
        assert!(error.is_some_and(|error| error == "range 1 of 65537"));
    }

    /// A commit of players' size (16.9 million records in 16 ranges, a run file or so per
    /// batch) merges one range a thread without a budget, and under `--memory 256M` as many as
    /// half of it holds at 48 bytes a record: 2 of 8 threads (the case that took 620 MB).
    #[test]
    fn a_budget_bounds_the_ranges_merged_at_once() {
        let (records, runs, ranges) = (16_960_000, 40, COMMIT_RANGES);
        assert_eq!(workers_for(records, runs, ranges, None, 8), 8);
        assert_eq!(workers_for(records, runs, ranges, Some(256 << 20), 8), 2);
        assert_eq!(workers_for(records, runs, ranges, Some(1 << 30), 8), 8);
        // Never none, never more than the threads or than the run files allow open.
        assert_eq!(workers_for(records * 100, runs, ranges, Some(160 << 20), 8), 1);
        assert_eq!(workers_for(0, 0, 0, Some(256 << 20), 2), 2);
        assert_eq!(workers_for(records, OPEN_RUNS / 3, ranges, None, 8), 3);
    }
}
