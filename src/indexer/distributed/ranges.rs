//! The key ranges of a build spread over machines: how many there are, and each range written
//! by its own task ([`RangeWriter`]) from its parts of every batch's occurrences.
//!
//! A single-machine commit cuts [`COMMIT_RANGES`] ranges, and a build of up to one commit's
//! size cuts as many, to write the same bytes. A larger build cuts more ([`range_count`]), so
//! that a range task holds a bounded share of the occurrences however large the build: the
//! answers stay the same (a position's value does not depend on the ranges; the single-game
//! tier has a map a range, each found by its first key). Within a task, occurrences
//! are spilled as sorted runs of at most [`RUN_OCCURRENCES`] (or one part, if larger) and
//! merged as a commit merges its runs, so that the task holds one run and one position's
//! occurrences at a time, not its whole range.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{BatchIds, decode_occurrences};
use crate::{
    codec::Key,
    model::GameId,
    store::{COMMIT_RANGES, MAX_COMMIT_RANGES, Occurrence, Staging, Store, StoreError, ranges_between},
};

/// Occurrences a range of a build holds on average when the build does not say otherwise (the
/// ranges are cut at quantiles of the distinct keys, so a range of popular positions holds
/// more): some 134 million occurrences (about two single-machine commits) before a build cuts
/// more than [`COMMIT_RANGES`] ranges.
pub const RANGE_OCCURRENCES: u64 = 1 << 23;

/// Occurrences a [`RangeWriter`] holds before it spills them as a sorted run (some 40 bytes
/// each in memory).
pub const RUN_OCCURRENCES: usize = 1 << 22;

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
    /// Created with the first run: nothing is written before there is something to write.
    staging: Option<Staging>,
    /// Occurrences not spilled yet, with their games' ids.
    pending: Vec<(Key, Occurrence)>,
    run_occurrences: usize,
}

impl RangeWriter {
    /// A writer into `dir` (created with the first run; what it held is removed).
    pub fn new(dir: &Path) -> RangeWriter {
        RangeWriter { dir: dir.to_owned(), staging: None, pending: Vec::new(), run_occurrences: RUN_OCCURRENCES }
    }

    /// Spills a run every `occurrences` (at least one) instead of every [`RUN_OCCURRENCES`]:
    /// less memory, more runs to merge. The bytes written are the same.
    pub fn with_run_occurrences(mut self, occurrences: usize) -> RangeWriter {
        self.run_occurrences = occurrences.max(1);
        self
    }

    /// Adds one batch's part of the range ([`occurrence_parts`](super::occurrence_parts)), its
    /// games numbered by the batch's `ids` (its dropped games' occurrences left out). A part is
    /// never split between runs.
    pub fn add(&mut self, ids: &BatchIds, part: &[u8]) -> Result<(), StoreError> {
        let occurrences =
            decode_occurrences(part).ok_or_else(|| self.refused("occurrences of a batch that do not read"))?;
        if self.pending.len() + occurrences.len() > self.run_occurrences {
            self.spill()?;
        }
        // Numbers from 1 in the bytes, from 0 in the batch.
        for (key, occurrence) in occurrences {
            let number = occurrence.game.0.checked_sub(1).and_then(|number| u32::try_from(number).ok());
            let Some(number) = number else { return Err(self.refused("a game numbered out of its batch")) };
            if let Some(game) = ids.id(number) {
                self.pending.push((key, Occurrence { game, ..occurrence }));
            }
        }
        Ok(())
    }

    fn refused(&self, what: &str) -> StoreError {
        StoreError::Staging { path: self.dir.clone(), source: std::io::Error::other(what.to_owned()) }
    }

    /// Writes the pending occurrences as a sorted run (the buffer kept for the next).
    fn spill(&mut self) -> Result<(), StoreError> {
        let mut pending = std::mem::take(&mut self.pending);
        pending.par_sort_unstable_by_key(|&(key, occurrence)| (key, occurrence.game, occurrence.next));
        if let Some(base) = pending.iter().map(|(_, occurrence)| occurrence.game).min() {
            self.staging()?.add_run(base, pending.drain(..))?;
        }
        self.pending = pending;
        Ok(())
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
        let base = store.commit_base(end, Some(facts))?;
        self.spill()?;
        let staging = self.staging()?;
        let written = store.write_range_apart(staging, index, &ranges_between(pivots), &base)?;
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
        let occurrence =
            |game: u8| Occurrence { game: GameId(game.into()), next: None, ply: 0, pawn_files: PawnFiles(0) };
        super::super::encode_occurrences((1..=games).map(|game| (Key::from_bytes([game; 21]), occurrence(game))))
    }

    #[test]
    fn parts_are_spilled_in_runs_of_the_size_asked_never_split() {
        let dir = tempfile::tempdir().expect("dir");
        let mut writer = RangeWriter::new(&dir.path().join("range")).with_run_occurrences(5);
        let runs = |writer: &RangeWriter| writer.staging.as_ref().map_or((0, 0), |s| (s.run_count(), s.records()));
        // Game 2 of each batch dropped: 2 occurrences kept of 3, then 4, then 6 (5 + 3 > 5).
        let ids = BatchIds { first: GameId(10), dropped: vec![1] };
        writer.add(&ids, &part(3)).expect("added");
        writer.add(&BatchIds { first: GameId(20), ..ids.clone() }, &part(3)).expect("added");
        assert_eq!((runs(&writer), writer.pending.len()), ((0, 0), 4));
        writer.add(&BatchIds { first: GameId(30), ..ids.clone() }, &part(4)).expect("added");
        assert_eq!((runs(&writer), writer.pending.len()), ((1, 4), 3));
        // A part larger than a run: the pending ones spilled, the part kept whole for one run.
        writer.add(&BatchIds { first: GameId(40), ..ids }, &part(9)).expect("added");
        assert_eq!((runs(&writer), writer.pending.len()), ((2, 7), 8));
        // A game numbered past what a batch holds is refused.
        let beyond = Occurrence { game: GameId(1 << 33), next: None, ply: 0, pawn_files: PawnFiles(0) };
        let beyond = super::super::encode_occurrences(std::iter::once((Key::from_bytes([1; 21]), beyond)));
        assert!(writer.add(&BatchIds { first: GameId(50), dropped: Vec::new() }, &beyond).is_err());
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
