//! The key ranges of a build spread over machines: how many there are, and each range written
//! by its own task ([`RangeWriter`]) from its parts of every batch's occurrences.
//!
//! A single-machine commit cuts [`COMMIT_RANGES`] ranges, and a build of up to one commit's
//! size cuts as many, to write the same bytes. A larger build cuts more ([`range_count`]), so
//! that a range task holds a bounded share of the occurrences however large the build: the
//! answers stay the same (a position's value does not depend on the ranges; the single-game
//! tier has a map a range, each found by its first key). Within a task, each part (sorted
//! already, by its batch's prepare task) is held in memory as it came, and the commit's merge
//! reads the parts as it reads runs; past [`RUN_BYTES`] held, they are merged into one run
//! spilled to a file, so that a task holds a bounded part of its range, not all of it.

use std::path::{Path, PathBuf};

use super::BatchIds;
use crate::{
    codec::Key,
    model::GameId,
    store::{
        COMMIT_RANGES, CommitBase, HeldRun, MAX_COMMIT_RANGES, Occurrence, RunRecords, Staging, Store, StoreError,
        ranges_between,
    },
};

/// Occurrences a range of a build holds on average when the build does not say otherwise (the
/// ranges are cut at quantiles of the distinct keys, so a range of popular positions holds
/// more): some 134 million occurrences (about two single-machine commits) before a build cuts
/// more than [`COMMIT_RANGES`] ranges.
pub const RANGE_OCCURRENCES: u64 = 1 << 23;

/// Bytes of parts a [`RangeWriter`] holds in memory before it merges them into a spilled run
/// (some 16 bytes an occurrence: 8 million occurrences, a range's average share).
pub const RUN_BYTES: usize = 1 << 27;

/// The key ranges of a build of `occurrences` position occurrences (the sum of its batches'
/// [`PreparedBatch::occurrence_count`](super::PreparedBatch::occurrence_count)), each holding
/// about `per_range` on average: a single-machine commit's [`COMMIT_RANGES`] for a build of up to
/// `COMMIT_RANGES * per_range`, more beyond (at most [`MAX_COMMIT_RANGES`]). A function of the
/// input alone, so that a re-run cuts the same ranges whatever the cluster.
///
/// ```
/// use tabiya::indexer::distributed::{RANGE_OCCURRENCES, range_count};
/// assert_eq!(range_count(1_000, RANGE_OCCURRENCES), 16);
/// assert_eq!(range_count(16 * RANGE_OCCURRENCES + 1, RANGE_OCCURRENCES), 17);
/// assert_eq!(range_count(u64::MAX, 1), 1 << 16);
/// ```
pub fn range_count(occurrences: u64, per_range: u64) -> usize {
    let wanted = occurrences.div_ceil(per_range.max(1));
    usize::try_from(wanted).unwrap_or(usize::MAX).clamp(COMMIT_RANGES, MAX_COMMIT_RANGES)
}

/// The name of the file holding a written range's record, beside its SST files.
const RANGE_RECORD: &str = "range.written";

/// One key range of a build written apart, in a directory of its own (a task attempt's): its
/// parts of the batches' occurrences are added one by one ([`RangeWriter::add`], in any order),
/// then [`RangeWriter::finish`] writes its positions' SST files and single-game tier records,
/// as a single-machine commit writes that range.
pub struct RangeWriter {
    dir: PathBuf,
    /// Created with the first part: nothing is written before there is something to write.
    staging: Option<Staging>,
    run_bytes: usize,
}

impl RangeWriter {
    /// A writer into `dir` (created with the first part; what it held is removed).
    pub fn new(dir: &Path) -> RangeWriter {
        RangeWriter { dir: dir.to_owned(), staging: None, run_bytes: RUN_BYTES }
    }

    /// Spills a run past `bytes` held instead of past [`RUN_BYTES`]: less memory, more runs
    /// to write and merge. The bytes written are the same.
    pub fn with_run_bytes(mut self, bytes: usize) -> RangeWriter {
        self.run_bytes = bytes;
        self
    }

    /// Adds one batch's part of the range, read from its occurrences file `path`
    /// ([`PreparedBatch::write_occurrences`](super::PreparedBatch::write_occurrences)): range
    /// `range` of those `bounds` cut, its games numbered by the batch's `ids` (its dropped games'
    /// occurrences left out). Returns whether the batch has occurrences in the range.
    pub fn add_file(&mut self, ids: &BatchIds, path: &Path, bounds: &[Key], range: usize) -> Result<bool, StoreError> {
        let part = super::occurrences_in_range(path, bounds, range).map_err(|err| match err.kind() {
            std::io::ErrorKind::InvalidData => {
                StoreError::DataCorruption { path: path.to_owned(), what: err.to_string() }
            }
            _ => StoreError::Staging { path: path.to_owned(), source: err },
        })?;
        let Some(part) = part else { return Ok(false) };
        self.add(ids, &part)?;
        Ok(true)
    }

    /// Adds one batch's part of the range ([`occurrence_parts`](super::occurrence_parts)), its
    /// games numbered by the batch's `ids` (its dropped games' occurrences left out).
    pub fn add(&mut self, ids: &BatchIds, part: &[u8]) -> Result<(), StoreError> {
        // Numbered from 1 in the part, a game is the batch's first id and its number less one:
        // the part's records read as they are from that base, unless some games are dropped.
        let run = match ids.dropped.is_empty() {
            true => HeldRun::new(ids.first, part),
            false => self.renumbered(ids, part)?,
        };
        let run = run.ok_or_else(|| self.refused("occurrences of a batch that do not read"))?;
        // A batch's games are numbered by a u32 (BatchIds).
        if run.last_game().0 - ids.first.0 > u64::from(u32::MAX) {
            return Err(self.refused("a game numbered out of its batch"));
        }
        if run.is_empty() {
            return Ok(());
        }
        let run_bytes = self.run_bytes;
        let staging = self.staging()?;
        staging.hold(run);
        if staging.held_bytes() > run_bytes {
            staging.spill_held()?;
        }
        Ok(())
    }

    /// `part` without the games `ids` drops, numbered by `ids`: its records read and written
    /// again one by one.
    fn renumbered(&self, ids: &BatchIds, part: &[u8]) -> Result<Option<HeldRun>, StoreError> {
        let mut refused = None;
        let mut records = RunRecords::new(part, GameId(1));
        let kept = std::iter::from_fn(|| {
            for record in records.by_ref() {
                let Some((key, occurrence)) = record else {
                    refused = Some("occurrences of a batch that do not read");
                    return None;
                };
                // Numbers from 1 in the bytes, from 0 in the batch.
                let Some(number) = u32::try_from(occurrence.game.0 - 1).ok() else {
                    refused = Some("a game numbered out of its batch");
                    return None;
                };
                if let Some(game) = ids.id(number) {
                    return Some((key, Occurrence { game, ..occurrence }));
                }
            }
            None
        });
        let run = HeldRun::encode(ids.first, kept);
        match refused {
            Some(what) => Err(self.refused(what)),
            None => Ok(Some(run)),
        }
    }

    fn refused(&self, what: &str) -> StoreError {
        StoreError::Staging { path: self.dir.clone(), source: std::io::Error::other(what.to_owned()) }
    }

    fn staging(&mut self) -> Result<&mut Staging, StoreError> {
        let staging = match self.staging.take() {
            Some(staging) => staging,
            None => Staging::create(&self.dir)?,
        };
        Ok(self.staging.insert(staging))
    }

    /// Writes range `index` of the commit cut at `pivots` ([`commit_pivots`](crate::store::commit_pivots)
    /// of every batch's [`PreparedBatch::bound_keys`](super::PreparedBatch::bound_keys)) from
    /// every part added: its SST files and single-game tier records. `store` is the database
    /// the build goes into (opened read-only: its stored positions are summed in); `facts` the
    /// new games' facts in id order ([`kept_facts`](super::kept_facts)), `end` the id after the
    /// last new game. Returns the file holding the range's record, for
    /// [`Assembly::finish`](super::Assembly::finish).
    pub fn finish(
        mut self,
        store: &Store,
        (pivots, index): (&[Key], usize),
        facts: &[u8],
        end: GameId,
    ) -> Result<PathBuf, StoreError> {
        let base = CommitBase::read(store, end, Some(facts))?;
        let staging = self.staging()?;
        let written = base.write_range(store, staging, index, &ranges_between(pivots))?;
        // The runs are merged: only the range's files stay, for the commit.
        staging.remove_runs()?;
        let record = staging.dir().join(RANGE_RECORD);
        std::fs::write(&record, written.to_bytes()?)
            .map_err(|source| StoreError::Staging { path: record.clone(), source })?;
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tier::PawnFiles;

    #[test]
    fn builds_of_up_to_a_commit_cut_its_ranges_and_larger_ones_more() {
        assert_eq!(range_count(0, RANGE_OCCURRENCES), COMMIT_RANGES);
        assert_eq!(range_count(16 * RANGE_OCCURRENCES, RANGE_OCCURRENCES), 16);
        assert_eq!(range_count(16 * RANGE_OCCURRENCES + 1, RANGE_OCCURRENCES), 17);
        assert_eq!(range_count(1_000 * RANGE_OCCURRENCES, RANGE_OCCURRENCES), 1_000);
        // A range of no occurrence is one of one each.
        assert_eq!(range_count(100, 0), 100.max(COMMIT_RANGES));
        assert_eq!(range_count(u64::MAX, 1), MAX_COMMIT_RANGES);
    }

    /// One batch's part: games 1 to `games`, each reaching its own position.
    fn part(games: u8) -> Vec<u8> {
        let occurrence = |game: u8| Occurrence {
            game: GameId(game.into()),
            next: None,
            ply: 0,
            pawn_files: PawnFiles(0),
            notes: Default::default(),
        };
        super::super::occurrences::encode_occurrences(
            (1..=games).map(|game| (Key::from_bytes([game; 21]), occurrence(game))),
        )
    }

    /// What the writer's staging area merges, as (key's first byte, game).
    fn merged(writer: &RangeWriter) -> Vec<(u8, u64)> {
        let Some(staging) = writer.staging.as_ref() else { return Vec::new() };
        let mut merged = staging.merged(crate::codec::KeyRange::ALL).expect("merged");
        let mut all = Vec::new();
        while let Some((key, occurrences)) = merged.next_group().expect("a group") {
            all.extend(occurrences.iter().map(|occurrence| (key.as_bytes()[0], occurrence.game.0)));
        }
        all
    }

    #[test]
    fn parts_are_held_then_spilled_past_the_bytes_asked() {
        let dir = tempfile::tempdir().expect("dir");
        // A record of these parts is 28 bytes: two parts of 2 kept games hold 112 bytes, less
        // than 150; a third part of 3 takes them past it.
        let mut writer = RangeWriter::new(&dir.path().join("range")).with_run_bytes(150);
        let state = |writer: &RangeWriter| {
            writer.staging.as_ref().map_or((0, 0, 0), |s| (s.run_count(), s.records(), s.held_bytes()))
        };
        // Game 2 of each batch dropped: its first id for game 1, the next for game 3.
        let ids = BatchIds { first: GameId(10), dropped: vec![1] };
        writer.add(&BatchIds { first: GameId(20), ..ids.clone() }, &part(3)).expect("added");
        writer.add(&ids, &part(3)).expect("added");
        let (runs, records, held) = state(&writer);
        assert_eq!((runs, records), (2, 4));
        assert_eq!(held, 112);
        assert_eq!(writer.staging.as_ref().map(Staging::bytes), Some(0), "nothing spilled");
        assert_eq!(merged(&writer), [(1, 10), (1, 20), (3, 11), (3, 21)]);
        // No game dropped: held as it came.
        writer.add(&BatchIds { first: GameId(30), dropped: Vec::new() }, &part(3)).expect("added");
        assert_eq!(state(&writer), (1, 7, 0), "merged into one spilled run");
        assert_eq!(merged(&writer), [(1, 10), (1, 20), (1, 30), (2, 31), (3, 11), (3, 21), (3, 32)]);
        writer.add(&BatchIds { first: GameId(40), dropped: Vec::new() }, &part(2)).expect("added");
        assert_eq!(state(&writer).0, 2, "a spilled run and a held one");
        let merged = merged(&writer);
        assert_eq!(merged.iter().filter(|(key, _)| *key == 2).copied().collect::<Vec<_>>(), [(2, 31), (2, 41)]);
        // A game numbered past what a batch holds is refused.
        let beyond = Occurrence {
            game: GameId(1 << 33),
            next: None,
            ply: 0,
            pawn_files: PawnFiles(0),
            notes: Default::default(),
        };
        let beyond = super::super::occurrences::encode_occurrences(std::iter::once((Key::from_bytes([1; 21]), beyond)));
        assert!(writer.add(&BatchIds { first: GameId(50), dropped: Vec::new() }, &beyond).is_err());
        assert!(writer.add(&BatchIds { first: GameId(50), dropped: vec![0] }, &beyond).is_err());
    }

    #[test]
    fn parts_that_do_not_read_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let mut writer = RangeWriter::new(&dir.path().join("range"));
        let ids = BatchIds { first: GameId(1), dropped: Vec::new() };
        for bad in [&b"\x05abc"[..], b"\xff\xff\xff"] {
            assert!(matches!(writer.add(&ids, bad), Err(StoreError::Staging { .. })));
        }
        assert!(!dir.path().join("range").exists(), "nothing written");
    }
}
