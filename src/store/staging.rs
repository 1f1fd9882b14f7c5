//! The staging area of an ingest run: positions' occurrences waiting for their commit.
//!
//! Each batch of games spills the positions its games reach as one *sorted run* file of
//! fixed-size records, one per [`Occurrence`] (a game reaching a position, the move it played
//! from there, the ply it first got there), in (key, game, move) order: no statistics are summed
//! before the commit, which builds each position's value once, from all its occurrences and the
//! games' facts (the facts family holds those of the run's games before the commit). A commit
//! merges every run at once into SST files that RocksDB ingests in one atomic step
//! ([`Store::commit_positions`](super::Store::commit_positions)). This is the bulk path: each
//! position is sorted and summed once per commit instead of being merged again by every
//! compaction, and a run file is a plain sorted list of records that another program can write.
//!
//! Record layout ([`RECORD_LEN`] bytes): the 21-byte key, the game id (40 bits little-endian),
//! the next move's [`CompactMove`] bits (u16 little-endian, 0 when the game ended there), the
//! ply (u32 little-endian). Within a run, records are in strictly increasing (key, game, move)
//! order; across runs the games of a position may come in any order.
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
    io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use crate::{
    codec::{CompactMove, KEY_LEN, Key, KeyWords},
    model::GameId,
};

/// The staging directory's name inside a database directory.
pub const DIR_NAME: &str = "staging";

/// Records between two keys of a run's sparse index.
pub const SAMPLE_EVERY: usize = 4096;

/// Bytes of one record of a run file.
pub const RECORD_LEN: usize = KEY_LEN + GAME_LEN + 2 + 4;

/// Bytes of a record's game id: ids up to 2^40 (a trillion games).
const GAME_LEN: usize = 5;

/// A key range `[lower, upper)`, `None` for an open end.
pub type Range = (Option<Key>, Option<Key>);

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

impl Occurrence {
    /// The record of `key` and this occurrence; `None` for a game id of more than 40 bits.
    fn record(&self, key: &Key) -> Option<[u8; RECORD_LEN]> {
        if self.game.0 >> (8 * GAME_LEN) != 0 {
            return None;
        }
        let mut record = [0u8; RECORD_LEN];
        let (key_bytes, rest) = record.split_at_mut(KEY_LEN);
        key_bytes.copy_from_slice(key.as_bytes());
        rest[..GAME_LEN].copy_from_slice(&self.game.0.to_le_bytes()[..GAME_LEN]);
        rest[GAME_LEN..GAME_LEN + 2].copy_from_slice(&self.next.map_or(0, CompactMove::bits).to_le_bytes());
        rest[GAME_LEN + 2..].copy_from_slice(&self.ply.to_le_bytes());
        Some(record)
    }

    /// A record's key and occurrence; `None` unless its game id is not 0 and its move bits are 0
    /// or a move's.
    fn read(record: &[u8; RECORD_LEN]) -> Option<(Key, Occurrence)> {
        let (key, rest) = record.split_first_chunk::<KEY_LEN>()?;
        let (game, rest) = rest.split_first_chunk::<GAME_LEN>()?;
        let (next, ply) = rest.split_first_chunk::<2>()?;
        let mut id = [0u8; 8];
        id[..GAME_LEN].copy_from_slice(game);
        let next = match u16::from_le_bytes(*next) {
            0 => None,
            bits => Some(CompactMove::from_bits(bits)?),
        };
        let game = GameId(u64::from_le_bytes(id));
        let ply = u32::from_le_bytes(ply.try_into().ok()?);
        (game.0 != 0).then_some((Key::from_bytes(*key), Occurrence { game, next, ply }))
    }
}

/// One spilled run: its file and its sparse index.
struct Run {
    path: PathBuf,
    /// Every [`SAMPLE_EVERY`]th key with the offset its record starts at.
    samples: Vec<(Key, u64)>,
}

/// Sorted runs of one ingest run, not yet committed.
pub struct Staging {
    dir: PathBuf,
    runs: Vec<Run>,
    bytes: u64,
    next_file: u64,
}

impl Staging {
    /// An empty staging area in the database directory `db`, removing whatever an earlier,
    /// killed process left there.
    pub fn create(db: &Path) -> io::Result<Staging> {
        let dir = db.join(DIR_NAME);
        match std::fs::remove_dir_all(&dir) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
            _ => {}
        }
        std::fs::create_dir_all(&dir)?;
        Ok(Staging { dir, runs: Vec::new(), bytes: 0, next_file: 0 })
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
    /// order.
    pub fn add_run(&mut self, occurrences: impl IntoIterator<Item = (Key, Occurrence)>) -> io::Result<()> {
        let path = self.new_file("run");
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut samples = Vec::new();
        let mut offset = 0;
        for (index, (key, occurrence)) in occurrences.into_iter().enumerate() {
            if index % SAMPLE_EVERY == 0 {
                samples.push((key, offset));
            }
            let record = occurrence
                .record(&key)
                .ok_or_else(|| io::Error::other(format!("game id {} over 2^40", occurrence.game.0)))?;
            out.write_all(&record)?;
            offset += RECORD_LEN as u64;
        }
        out.into_inner().map_err(|err| err.into_error())?;
        self.bytes += offset;
        self.runs.push(Run { path, samples });
        Ok(())
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
    /// staged records (split at quantiles of the runs' sparse indexes).
    pub fn ranges(&self, count: usize) -> Vec<Range> {
        let mut keys: Vec<Key> = self.runs.iter().flat_map(|run| run.samples.iter().map(|&(key, _)| key)).collect();
        keys.sort_unstable();
        let mut pivots: Vec<Key> =
            (1..count.max(1)).filter_map(|part| keys.get(part * keys.len() / count).copied()).collect();
        pivots.dedup();
        let mut ranges = Vec::with_capacity(pivots.len() + 1);
        let mut lower = None;
        for pivot in pivots {
            ranges.push((lower, Some(pivot)));
            lower = Some(pivot);
        }
        ranges.push((lower, None));
        ranges
    }

    /// The waiting runs merged over `range`: each position once, in key order, with all its
    /// occurrences.
    pub fn merged(&self, range: Range) -> io::Result<MergedRuns> {
        MergedRuns::new(&self.runs, range)
    }

    /// Removes every file of the directory (after a commit).
    pub fn clear(&mut self) -> io::Result<()> {
        for entry in std::fs::read_dir(&self.dir)? {
            std::fs::remove_file(entry?.path())?;
        }
        self.runs.clear();
        self.bytes = 0;
        Ok(())
    }

    /// Removes the directory.
    pub fn remove(self) -> io::Result<()> {
        std::fs::remove_dir_all(&self.dir)
    }
}

/// One run file read record by record, up to the end of a range.
struct RunReader {
    input: BufReader<File>,
    /// The current record.
    key: Key,
    occurrence: Occurrence,
    upper: Option<Key>,
    path: PathBuf,
    /// Records of the file after the current one.
    left: u64,
}

impl RunReader {
    /// Opens `run` at the first record of `range` (read into `key` and `occurrence`); `None`
    /// when the run has no record in the range.
    fn open(run: &Run, (lower, upper): Range) -> io::Result<Option<RunReader>> {
        let context = |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", run.path.display()));
        let file = File::open(&run.path).map_err(context)?;
        let length = file.metadata().map_err(context)?.len();
        let mut input = BufReader::with_capacity(1 << 16, file);
        let mut start = 0;
        if let Some(lower) = lower {
            // The last sample before `lower`, then record by record.
            let at = run.samples.partition_point(|(key, _)| *key < lower).saturating_sub(1);
            start = run.samples.get(at).map_or(0, |&(_, offset)| offset);
            input.seek(SeekFrom::Start(start)).map_err(context)?;
        }
        let records = length.saturating_sub(start);
        let mut reader = RunReader {
            input,
            key: Key::from_bytes([0; KEY_LEN]),
            occurrence: Occurrence { game: GameId(0), next: None, ply: 0 },
            upper,
            path: run.path.clone(),
            left: records / RECORD_LEN as u64,
        };
        if records % RECORD_LEN as u64 != 0 {
            return Err(reader.error("its length is not a whole number of records"));
        }
        while reader.advance()? {
            if lower.is_none_or(|lower| reader.key >= lower) {
                return Ok(Some(reader));
            }
        }
        Ok(None)
    }

    /// Reads the next record; `false` at the end of the file or range. A truncated or corrupt
    /// file, or records out of order, are an error naming the file.
    fn advance(&mut self) -> io::Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        self.left -= 1;
        let mut record = [0u8; RECORD_LEN];
        self.input.read_exact(&mut record).map_err(|err| self.error(&err.to_string()))?;
        let (key, occurrence) = Occurrence::read(&record).ok_or_else(|| self.error("a record is not valid"))?;
        if (key, occurrence.game, occurrence.next) <= (self.key, self.occurrence.game, self.occurrence.next) {
            return Err(self.error("records out of order"));
        }
        (self.key, self.occurrence) = (key, occurrence);
        Ok(self.upper.is_none_or(|upper| self.key < upper))
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
    fn new(runs: &[Run], range: Range) -> io::Result<MergedRuns> {
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
    fn merge_all(staging: &Staging, range: Range) -> Vec<(Key, Vec<u64>)> {
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
            staging.add_run(run.iter().map(|&(k, game)| (key(k), occurrence(game)))).unwrap();
        }
        let got: Vec<(u8, Vec<u64>)> = merge_all(&staging, (None, None))
            .into_iter()
            .map(|(k, games)| (k.as_bytes()[KEY_LEN - 1], games))
            .collect();
        let want: Vec<(u8, Vec<u64>)> =
            vec![(1, vec![1]), (2, vec![6]), (3, vec![2, 7, 10, 11]), (4, vec![5]), (5, vec![3, 8]), (9, vec![9])];
        assert_eq!(got, want);
        // Moves and plies come back as written.
        let mut merged = staging.merged((None, None)).unwrap();
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
                .add_run((0..10_000u32).map(|i| {
                    let mut bytes = [0u8; KEY_LEN];
                    bytes[1..5].copy_from_slice(&(i * stride).to_be_bytes());
                    (Key::from_bytes(bytes), occurrence(run * 100_000 + u64::from(i) + 1))
                }))
                .unwrap();
        }
        let whole = merge_all(&staging, (None, None));
        assert!(whole.windows(2).all(|pair| pair[0].0 < pair[1].0));
        assert!(whole.iter().any(|(_, games)| games.len() == 3));
        assert_eq!(whole.iter().map(|(_, games)| games.len()).sum::<usize>(), 30_000);
        for count in [1, 2, 3, 8, 64] {
            let ranges = staging.ranges(count);
            assert!(ranges.len() <= count && (count == 1 || ranges.len() > 1), "{count}: {}", ranges.len());
            let parts: Vec<_> = ranges.into_iter().flat_map(|range| merge_all(&staging, range)).collect();
            assert_eq!(parts, whole, "{count} ranges");
        }
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        let key = key(7);
        for game in [1, 255, 1 << 39, (1 << 40) - 1] {
            for next in [None, CompactMove::from_bits(1 | 2 << 6 | 5 << 12)] {
                let written = Occurrence { game: GameId(game), next, ply: u32::MAX };
                let record = written.record(&key).unwrap();
                assert_eq!(Occurrence::read(&record), Some((key, written)));
            }
        }
        assert_eq!(Occurrence { game: GameId(1 << 40), next: None, ply: 0 }.record(&key), None);
        let mut no_game = occurrence(1).record(&key).unwrap();
        no_game[KEY_LEN..KEY_LEN + GAME_LEN].fill(0);
        assert_eq!(Occurrence::read(&no_game), None);
        let mut bad_move = occurrence(1).record(&key).unwrap();
        bad_move[KEY_LEN + GAME_LEN..KEY_LEN + GAME_LEN + 2].copy_from_slice(&0xffffu16.to_le_bytes());
        assert_eq!(Occurrence::read(&bad_move), None);
    }

    #[test]
    fn a_truncated_corrupt_or_unordered_run_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        staging.add_run([(key(1), occurrence(1)), (key(2), occurrence(1))]).unwrap();
        let path = staging.runs[0].path.clone();
        let bytes = std::fs::read(&path).unwrap();
        let cut = bytes[..bytes.len() - 2].to_vec();
        let mut bad_move = bytes.clone();
        bad_move[RECORD_LEN + KEY_LEN + GAME_LEN..][..2].copy_from_slice(&0xffffu16.to_le_bytes());
        let swapped = [&bytes[RECORD_LEN..], &bytes[..RECORD_LEN]].concat();
        let repeated = [&bytes[..RECORD_LEN], &bytes[..RECORD_LEN]].concat();
        for (what, corrupt) in [("cut", cut), ("bad move", bad_move), ("swapped", swapped), ("repeated", repeated)] {
            std::fs::write(&path, &corrupt).unwrap();
            let merged = staging.merged((None, None)).and_then(|mut merged| {
                while merged.next_group()?.is_some() {}
                Ok(())
            });
            let error = merged.expect_err(what).to_string();
            assert!(error.contains("corrupt staged run") && error.contains(&path.display().to_string()), "{error}");
        }
    }

    #[test]
    fn a_game_staged_twice_for_a_position_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        staging.add_run([(key(1), occurrence(5))]).unwrap();
        staging.add_run([(key(1), occurrence(2)), (key(1), occurrence(5))]).unwrap();
        let mut merged = staging.merged((None, None)).unwrap();
        let error = merged.next_group().expect_err("a game twice").to_string();
        assert!(error.contains("staged twice"), "{error}");
    }
}
