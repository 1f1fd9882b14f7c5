//! The staging area of an ingest run: positions' occurrences waiting for their commit.
//!
//! Each batch of games spills the positions its games reach as one *sorted run* file of
//! records, one per [`Occurrence`] (a game reaching a position, the move it played
//! from there, the ply it first got there), in (key, game, move) order: no statistics are summed
//! before the commit, which builds each position's value once, from all its occurrences and the
//! games' facts (the facts family holds those of the run's games before the commit). A commit
//! merges every run at once into SST files that RocksDB ingests in one atomic step
//! ([`Store::commit_positions`](super::Store::commit_positions)). This is the bulk path: each
//! position is sorted and summed once per commit instead of being merged again by every
//! compaction, and a run file is a plain sorted list of records that another program can write.
//!
//! The file layout is [`layout::run`](super::layout::run)'s: the run's base game id, then one
//! record per occurrence, each sharing its key's prefix with the previous record's.
//!
//! Every run keeps a sparse index (one key and file offset every [`SAMPLE_EVERY`] records), so
//! that a commit can split the key space into ranges of similar size ([`Staging::ranges`]) and
//! merge each range on its own core, each range reading only its part of every run.
//!
//! The directory lives inside the database directory (so that ingestion moves files instead of
//! copying them) and holds nothing committed: a writer that finds one left by a killed process
//! removes it.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use super::{
    StoreError,
    layout::run::{HEADER_LEN, RECORD_MAX, header, read_header, read_record, write_record},
};
use crate::{
    codec::{CompactMove, KEY_LEN, Key, KeyRange, KeyWords},
    model::GameId,
};

/// The staging directory's name inside a database directory.
pub const DIR_NAME: &str = "staging";

/// Records between two keys of a run's sparse index.
pub const SAMPLE_EVERY: usize = 4096;

/// One game reaching a position, as a sorted run holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    /// The game.
    pub game: GameId,
    /// The move it played from the position (`None`: it ended there). A game repeating the
    /// position with several moves has one occurrence per move.
    pub next: Option<CompactMove>,
    /// The ply at which it first reached the position with this move (0: its start).
    pub ply: u32,
}

/// One spilled run: its file and its sparse index.
struct Run {
    path: PathBuf,
    /// Its length as written.
    length: u64,
    /// Every [`SAMPLE_EVERY`]th key with the offset its record starts at.
    samples: Vec<(Key, u64)>,
}

/// Sorted runs of one ingest run, not yet committed.
pub struct Staging {
    /// The database directory (what errors name).
    db: PathBuf,
    dir: PathBuf,
    runs: Vec<Run>,
    bytes: u64,
    records: usize,
    next_file: u64,
}

impl Staging {
    /// An empty staging area in the database directory `db`, removing whatever an earlier,
    /// killed process left there.
    pub fn create(db: &Path) -> Result<Staging, StoreError> {
        let error = |source| StoreError::Staging { path: db.to_owned(), source };
        let dir = db.join(DIR_NAME);
        match std::fs::remove_dir_all(&dir) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(error(err)),
            _ => {}
        }
        std::fs::create_dir_all(&dir).map_err(error)?;
        Ok(Staging { db: db.to_owned(), dir, runs: Vec::new(), bytes: 0, records: 0, next_file: 0 })
    }

    /// The error of a staging area that could not be written or read.
    fn error(&self, source: io::Error) -> StoreError {
        StoreError::Staging { path: self.db.clone(), source }
    }

    /// The directory (where commits also write their SST files).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A new file name in the directory.
    fn new_file(&mut self, extension: &str) -> PathBuf {
        self.next_file += 1;
        self.dir.join(format!("{:06}.{extension}", self.next_file))
    }

    /// Spills one sorted run: `occurrences` must be in strictly increasing (key, game, move)
    /// order, of games from `base` on.
    pub fn add_run(
        &mut self,
        base: GameId,
        occurrences: impl IntoIterator<Item = (Key, Occurrence)>,
    ) -> Result<(), StoreError> {
        self.write_run(base, occurrences).map_err(|err| self.error(err))
    }

    fn write_run(&mut self, base: GameId, occurrences: impl IntoIterator<Item = (Key, Occurrence)>) -> io::Result<()> {
        let path = self.new_file("run");
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        out.write_all(&header(base))?;
        let mut samples = Vec::new();
        let mut offset = HEADER_LEN as u64;
        let mut record = Vec::with_capacity(RECORD_MAX);
        let mut previous: Option<Key> = None;
        let mut last: Option<(Key, GameId, Option<CompactMove>)> = None;
        for (index, (key, occurrence)) in occurrences.into_iter().enumerate() {
            let order = (key, occurrence.game, occurrence.next);
            if last.is_some_and(|last| last >= order) {
                return Err(io::Error::other(format!("staged occurrences out of order at position {key}")));
            }
            last = Some(order);
            let shared = match previous {
                _ if index % SAMPLE_EVERY == 0 => {
                    samples.push((key, offset));
                    0
                }
                Some(previous) => previous.as_bytes().iter().zip(key.as_bytes()).take_while(|(a, b)| a == b).count(),
                None => 0,
            };
            record.clear();
            write_record(&key, &occurrence, shared, base, &mut record).ok_or_else(|| {
                io::Error::other(format!("game {} before the run's base {}", occurrence.game.0, base.0))
            })?;
            out.write_all(&record)?;
            offset += record.len() as u64;
            previous = Some(key);
            self.records += 1;
        }
        out.into_inner().map_err(|err| err.into_error())?;
        self.bytes += offset;
        self.runs.push(Run { path, length: offset, samples });
        Ok(())
    }

    /// Records spilled since the last [`Staging::clear`].
    pub fn records(&self) -> usize {
        self.records
    }

    /// Bytes spilled since the last [`Staging::clear`].
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether no run waits.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Runs waiting.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// At most `count` key ranges, in order, covering every key, holding similar numbers of
    /// staged records (split at quantiles of the runs' sparse indexes). A range is `None` when it
    /// is empty (the first, when the smallest staged key is a split): it keeps its number, as
    /// the single-game tier's records name a commit's ranges by number.
    pub fn ranges(&self, count: usize) -> Vec<Option<KeyRange>> {
        let mut keys: Vec<Key> = self.runs.iter().flat_map(|run| run.samples.iter().map(|&(key, _)| key)).collect();
        keys.sort_unstable();
        let mut pivots: Vec<Key> =
            (1..count.max(1)).filter_map(|part| keys.get(part * keys.len() / count).copied()).collect();
        pivots.dedup();
        let mut ranges = Vec::with_capacity(pivots.len() + 1);
        let mut first = Key::MIN;
        for pivot in pivots {
            ranges.push(KeyRange::until(first, pivot));
            first = pivot;
        }
        ranges.push(Some(KeyRange { first, last: Key::MAX }));
        ranges
    }

    /// The waiting runs merged over `range`: each position once, in key order, with all its
    /// occurrences.
    pub fn merged(&self, range: KeyRange) -> io::Result<MergedRuns> {
        MergedRuns::new(&self.runs, range)
    }

    /// Removes every file of the directory (after a commit).
    pub fn clear(&mut self) -> Result<(), StoreError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|err| self.error(err))?;
        for entry in entries {
            std::fs::remove_file(entry.map_err(|err| self.error(err))?.path()).map_err(|err| self.error(err))?;
        }
        self.runs.clear();
        self.bytes = 0;
        self.records = 0;
        Ok(())
    }

    /// Removes the directory.
    pub fn remove(self) -> Result<(), StoreError> {
        std::fs::remove_dir_all(&self.dir).map_err(|err| self.error(err))
    }
}

/// One run file read record by record, up to the end of a range.
struct RunReader {
    file: File,
    /// Bytes read from the file, parsed from `at` on.
    buffer: Vec<u8>,
    at: usize,
    /// Bytes of the file not read into `buffer` yet.
    unread: u64,
    base: GameId,
    /// The current record.
    key: Key,
    occurrence: Occurrence,
    /// No record read since the last seek (the next one must not share a prefix).
    fresh: bool,
    /// The last key of the range read.
    last: Key,
    path: PathBuf,
}

/// Bytes a run reader reads at a time.
const READ_BYTES: usize = 1 << 16;

impl RunReader {
    /// Opens `run` at the first record of `range` (read into `key` and `occurrence`); `None`
    /// when the run has no record in the range.
    fn open(run: &Run, range: KeyRange) -> io::Result<Option<RunReader>> {
        let context = |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", run.path.display()));
        let mut file = File::open(&run.path).map_err(context)?;
        let length = file.metadata().map_err(context)?.len();
        if length != run.length {
            let what = format!("{} bytes where {} were written", length, run.length);
            return Err(io::Error::other(format!("corrupt staged run {}: {what}", run.path.display())));
        }
        let mut header = [0u8; HEADER_LEN];
        file.read_exact(&mut header).map_err(context)?;
        let mut start = HEADER_LEN as u64;
        if range.first > Key::MIN {
            // The last sample before the range, then record by record.
            let at = run.samples.partition_point(|(key, _)| *key < range.first).saturating_sub(1);
            start = run.samples.get(at).map_or(start, |&(_, offset)| offset);
            file.seek(SeekFrom::Start(start)).map_err(context)?;
        }
        let mut reader = RunReader {
            file,
            buffer: Vec::with_capacity(READ_BYTES + RECORD_MAX),
            at: 0,
            unread: length.saturating_sub(start),
            base: read_header(header),
            key: Key::from_bytes([0; KEY_LEN]),
            occurrence: Occurrence { game: GameId(0), next: None, ply: 0 },
            fresh: true,
            last: range.last,
            path: run.path.clone(),
        };
        while reader.advance()? {
            if reader.key >= range.first {
                return Ok(Some(reader));
            }
        }
        Ok(None)
    }

    /// Reads the next record; `false` at the end of the file or range. A truncated or corrupt
    /// file, or records out of order, are an error naming the file.
    fn advance(&mut self) -> io::Result<bool> {
        if self.buffer.len() - self.at < RECORD_MAX && self.unread > 0 {
            self.buffer.drain(..self.at);
            self.at = 0;
            let wanted = READ_BYTES.min(usize::try_from(self.unread).unwrap_or(READ_BYTES));
            let filled = self.buffer.len();
            self.buffer.resize(filled + wanted, 0);
            self.file.read_exact(&mut self.buffer[filled..]).map_err(|err| self.error(&err.to_string()))?;
            self.unread -= wanted as u64;
        }
        if self.at == self.buffer.len() {
            return Ok(false);
        }
        let mut input = &self.buffer[self.at..];
        let mut key = *self.key.as_bytes();
        let occurrence = read_record(&mut input, &mut key, self.fresh, self.base)
            .ok_or_else(|| self.error("a record is cut short or not valid"))?;
        self.at = self.buffer.len() - input.len();
        let key = Key::from_bytes(key);
        if !self.fresh
            && (key, occurrence.game, occurrence.next) <= (self.key, self.occurrence.game, self.occurrence.next)
        {
            return Err(self.error("records out of order"));
        }
        (self.key, self.occurrence, self.fresh) = (key, occurrence, false);
        Ok(self.key <= self.last)
    }

    fn error(&self, what: &str) -> io::Error {
        io::Error::other(format!("corrupt staged run {}: {what}", self.path.display()))
    }
}

/// The k-way merge of sorted runs ([`Staging::merged`]).
pub struct MergedRuns {
    readers: Vec<RunReader>,
    /// The readers not at their end, by their current key ([`Key::words`]), then by run: a
    /// position's occurrences come run by run, each run's in game order.
    heap: BinaryHeap<Reverse<(KeyWords, usize)>>,
    /// The occurrences of the position last returned.
    group: Vec<Occurrence>,
}

impl MergedRuns {
    fn new(runs: &[Run], range: KeyRange) -> io::Result<MergedRuns> {
        let mut merged = MergedRuns { readers: Vec::new(), heap: BinaryHeap::new(), group: Vec::new() };
        for run in runs {
            if let Some(reader) = RunReader::open(run, range)? {
                merged.heap.push(Reverse((reader.key.words(), merged.readers.len())));
                merged.readers.push(reader);
            }
        }
        Ok(merged)
    }

    /// The next position and every occurrence of it, ascending by game and move; `None` after
    /// the last. The same game and move staged twice is an error.
    pub fn next_group(&mut self) -> io::Result<Option<(Key, &[Occurrence])>> {
        self.group.clear();
        let Some(&Reverse((words, _))) = self.heap.peek() else {
            return Ok(None);
        };
        let mut key = None;
        let mut in_order = true;
        while let Some(&Reverse((next, index))) = self.heap.peek() {
            if next != words {
                break;
            }
            self.heap.pop();
            let reader = &mut self.readers[index];
            key = Some(reader.key);
            in_order &= self.group.last().is_none_or(|last| last.game < reader.occurrence.game);
            // A run holds a position's occurrences one after the other.
            loop {
                self.group.push(reader.occurrence);
                if !reader.advance()? {
                    break;
                }
                if reader.key.words() != words {
                    self.heap.push(Reverse((reader.key.words(), index)));
                    break;
                }
            }
        }
        let Some(key) = key else { return Ok(None) };
        if !in_order {
            self.group.sort_unstable();
            if self.group.windows(2).any(|pair| (pair[0].game, pair[0].next) == (pair[1].game, pair[1].next)) {
                return Err(io::Error::other(format!("corrupt staging: a game staged twice for position {key}")));
            }
        }
        Ok(Some((key, &self.group)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> Key {
        let mut bytes = [0u8; KEY_LEN];
        bytes[KEY_LEN - 1] = n;
        bytes[0] = 1;
        Key::from_bytes(bytes)
    }

    fn occurrence(game: u64) -> Occurrence {
        Occurrence { game: GameId(game), next: CompactMove::from_bits(12 | 28 << 6), ply: game as u32 % 7 }
    }

    /// Every position of `range` merged, as (key, games).
    fn merge_all(staging: &Staging, range: KeyRange) -> Vec<(Key, Vec<u64>)> {
        let mut merged = staging.merged(range).unwrap();
        let mut out = Vec::new();
        while let Some((key, group)) = merged.next_group().unwrap() {
            out.push((key, group.iter().map(|o| o.game.0).collect()));
        }
        out
    }

    #[test]
    fn runs_merge_in_key_order_with_every_occurrence_of_a_position() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        // Position 3 is in all three runs, 5 in two, the others in one; run 2 holds games 10
        // and 11 of position 3, and run 3 game 6 of it, out of the runs' order.
        let runs: [&[(u8, u64)]; 3] =
            [&[(1, 1), (3, 2), (5, 3)], &[(3, 10), (3, 11), (4, 5)], &[(2, 6), (3, 7), (5, 8), (9, 9)]];
        for run in runs {
            staging.add_run(GameId(1), run.iter().map(|&(k, game)| (key(k), occurrence(game)))).unwrap();
        }
        let got: Vec<(u8, Vec<u64>)> = merge_all(&staging, KeyRange::ALL)
            .into_iter()
            .map(|(k, games)| (k.as_bytes()[KEY_LEN - 1], games))
            .collect();
        let want: Vec<(u8, Vec<u64>)> =
            vec![(1, vec![1]), (2, vec![6]), (3, vec![2, 7, 10, 11]), (4, vec![5]), (5, vec![3, 8]), (9, vec![9])];
        assert_eq!(got, want);
        // Moves and plies come back as written.
        let mut merged = staging.merged(KeyRange::ALL).unwrap();
        let (_, group) = merged.next_group().unwrap().unwrap();
        assert_eq!(group, [occurrence(1)]);
        staging.clear().unwrap();
        assert!(staging.is_empty());
        assert_eq!(std::fs::read_dir(staging.dir()).unwrap().count(), 0);
    }

    #[test]
    fn ranges_split_the_merge_into_parts_that_concatenate_to_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        // Three runs of 10,000 keys from overlapping strides, so that many keys are shared and
        // each run has several samples.
        for (run, stride) in [(0u64, 3u32), (1, 5), (2, 7)] {
            staging
                .add_run(
                    GameId(1),
                    (0..10_000u32).map(|i| {
                        let mut bytes = [0u8; KEY_LEN];
                        bytes[1..5].copy_from_slice(&(i * stride).to_be_bytes());
                        (Key::from_bytes(bytes), occurrence(run * 100_000 + u64::from(i) + 1))
                    }),
                )
                .unwrap();
        }
        // A hot key (the start position's case): more occurrences in one run than a sample
        // spans, so samples and range bounds land on it.
        let mut hot = [0u8; KEY_LEN];
        hot[1..5].copy_from_slice(&21_000u32.to_be_bytes());
        let hot = Key::from_bytes(hot);
        staging.add_run(GameId(1), (0..3 * SAMPLE_EVERY as u64).map(|i| (hot, occurrence(400_000 + i)))).unwrap();
        let whole = merge_all(&staging, KeyRange::ALL);
        assert!(whole.windows(2).all(|pair| pair[0].0 < pair[1].0));
        assert!(whole.iter().any(|(_, games)| games.len() == 3));
        assert_eq!(whole.iter().map(|(_, games)| games.len()).sum::<usize>(), 30_000 + 3 * SAMPLE_EVERY);
        let hot_games = &whole.iter().find(|(key, _)| *key == hot).expect("the hot key").1;
        assert_eq!(hot_games.len(), 3 * SAMPLE_EVERY + 3);
        assert!(hot_games.is_sorted());
        for count in [1, 2, 3, 8, 64] {
            let ranges = staging.ranges(count);
            assert!(ranges.len() <= count && (count == 1 || ranges.len() > 1), "{count}: {}", ranges.len());
            let parts: Vec<_> = ranges.into_iter().flatten().flat_map(|range| merge_all(&staging, range)).collect();
            assert_eq!(parts, whole, "{count} ranges");
        }
    }

    #[test]
    fn a_split_at_the_smallest_key_leaves_an_empty_first_range_that_keeps_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        staging.add_run(GameId(1), [(Key::MIN, occurrence(1)), (key(4), occurrence(1))]).unwrap();
        let ranges = staging.ranges(8);
        assert_eq!(ranges, [None, Some(KeyRange::ALL)]);
        let merged: Vec<_> = ranges.into_iter().flatten().flat_map(|range| merge_all(&staging, range)).collect();
        assert_eq!(merged, [(Key::MIN, vec![1]), (key(4), vec![1])]);
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        let base = GameId(1000);
        let previous = *key(7).as_bytes();
        let mut next_key = previous;
        next_key[KEY_LEN - 2] = 9;
        for game in [1000, 1001, 1 << 40, u64::MAX] {
            for next in [None, CompactMove::from_bits(1 | 2 << 6 | 5 << 12)] {
                for ply in [0, 300, u32::MAX] {
                    let written = Occurrence { game: GameId(game), next, ply };
                    for shared in [0, KEY_LEN - 2, KEY_LEN] {
                        let key = if shared == KEY_LEN { previous } else { next_key };
                        let mut bytes = Vec::new();
                        write_record(&Key::from_bytes(key), &written, shared, base, &mut bytes).unwrap();
                        let mut read_key = previous;
                        let mut input = bytes.as_slice();
                        assert_eq!(read_record(&mut input, &mut read_key, false, base), Some(written));
                        assert_eq!((read_key, input.len()), (key, 0));
                        // Every cut is refused.
                        for cut in 0..bytes.len() {
                            assert_eq!(read_record(&mut &bytes[..cut], &mut read_key, false, base), None);
                        }
                        // A reader starting here has no previous key to share.
                        assert_eq!(
                            read_record(&mut bytes.as_slice(), &mut read_key, true, base).is_some(),
                            shared == 0
                        );
                    }
                }
            }
        }
        assert_eq!(write_record(&key(1), &occurrence(1), 0, GameId(2), &mut Vec::new()), None);
        let mut bytes = Vec::new();
        write_record(&key(1), &occurrence(1), 0, GameId(1), &mut bytes).unwrap();
        let mut buffer = [0u8; KEY_LEN];
        // Game 0, a prefix longer than a key, bad move bits.
        assert_eq!(read_record(&mut bytes.as_slice(), &mut buffer, true, GameId(0)), None);
        let mut long_prefix = bytes.clone();
        long_prefix[0] = KEY_LEN as u8 + 1;
        assert_eq!(read_record(&mut long_prefix.as_slice(), &mut buffer, false, GameId(1)), None);
        let mut bad_move = bytes.clone();
        bad_move[1 + KEY_LEN + 1..][..2].copy_from_slice(&0xffffu16.to_le_bytes());
        assert_eq!(read_record(&mut bad_move.as_slice(), &mut buffer, true, GameId(1)), None);
    }

    #[test]
    fn a_truncated_corrupt_or_unordered_run_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        staging.add_run(GameId(1), [(key(1), occurrence(1)), (key(2), occurrence(1))]).unwrap();
        let path = staging.runs[0].path.clone();
        let bytes = std::fs::read(&path).unwrap();
        let records = &bytes[HEADER_LEN..];
        // The second record shares all but the last byte of its key.
        let first = 1 + KEY_LEN + 1 + 2 + 1;
        assert_eq!(records.len(), first + 1 + 1 + 1 + 2 + 1);
        let cut = bytes[..bytes.len() - 2].to_vec();
        let mut bad_move = bytes.clone();
        bad_move[HEADER_LEN + first + 3..][..2].copy_from_slice(&0xffffu16.to_le_bytes());
        let mut second_alone = bytes[..HEADER_LEN].to_vec();
        second_alone.extend_from_slice(&records[first..]);
        // The second record's key made the first's: the same (key, game, move) again.
        let mut repeated = bytes.clone();
        repeated[HEADER_LEN + first + 1] = 1;
        let no_header = bytes[..4].to_vec();
        let written = bytes.len() as u64;
        // The file's own length stays as written, so that the record checks are reached.
        let pad = |mut bytes: Vec<u8>| {
            bytes.resize(written as usize, 0);
            bytes
        };
        // The last record claims a whole key, which the file's end cuts.
        let mut cut_record = bytes.clone();
        cut_record[HEADER_LEN + first] = 0;
        for (what, corrupt, message) in [
            ("cut", cut, "bytes where"),
            ("cut at a record", bytes[..HEADER_LEN + first].to_vec(), "bytes where"),
            ("cut inside a record", cut_record, "not valid"),
            ("bad move", bad_move, "not valid"),
            ("shares a prefix with nothing", pad(second_alone), "not valid"),
            ("repeated", repeated, "out of order"),
            ("no header", no_header, "bytes where"),
        ] {
            std::fs::write(&path, &corrupt).unwrap();
            let merged = staging.merged(KeyRange::ALL).and_then(|mut merged| {
                while merged.next_group()?.is_some() {}
                Ok(())
            });
            let error = merged.expect_err(what).to_string();
            assert!(
                error.contains(&path.display().to_string())
                    && error.contains("corrupt staged run")
                    && error.contains(message),
                "{what}: {error}"
            );
        }
        // Occurrences handed over out of order are refused as they are written.
        let unordered = staging.add_run(GameId(1), [(key(2), occurrence(1)), (key(1), occurrence(1))]);
        assert!(unordered.expect_err("out of order").to_string().contains("out of order"));
    }

    #[test]
    fn a_game_staged_twice_for_a_position_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        staging.add_run(GameId(1), [(key(1), occurrence(5))]).unwrap();
        staging.add_run(GameId(1), [(key(1), occurrence(2)), (key(1), occurrence(5))]).unwrap();
        let mut merged = staging.merged(KeyRange::ALL).unwrap();
        let error = merged.next_group().expect_err("a game twice").to_string();
        assert!(error.contains("staged twice"), "{error}");
    }
}
