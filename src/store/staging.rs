//! The staging area of an ingest run: position values waiting for their commit.
//!
//! Each batch of games spills its summed positions, in key order, as one *sorted run* file
//! (per entry: the 21-byte key, the value's length as u32 little-endian, the value as
//! [`layout`](super::layout) writes it). A commit merges every run at once, summing the values
//! of a position met in several runs, into SST files that RocksDB ingests in one atomic step
//! ([`Store::commit_positions`](super::Store::commit_positions)). This is the bulk path: each
//! position is sorted and summed once per commit instead of being merged again by every
//! compaction, and a run file is a plain sorted key/value list that another program can write.
//!
//! Every run keeps a sparse index (one key and file offset every [`SAMPLE_EVERY`] entries), so
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

use super::layout::sum_staged;
use crate::codec::{KEY_LEN, Key, KeyWords};

/// The staging directory's name inside a database directory.
pub const DIR_NAME: &str = "staging";

/// Entries between two keys of a run's sparse index.
pub const SAMPLE_EVERY: usize = 4096;

/// A key range `[lower, upper)`, `None` for an open end.
pub type Range = (Option<Key>, Option<Key>);

/// One spilled run: its file and its sparse index.
struct Run {
    path: PathBuf,
    /// Every [`SAMPLE_EVERY`]th key with the offset its entry starts at.
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

    /// Spills one sorted run: `entries` must be in strictly increasing key order.
    pub fn add_run<'a>(&mut self, entries: impl IntoIterator<Item = (&'a Key, &'a [u8])>) -> io::Result<()> {
        let path = self.new_file("run");
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut samples = Vec::new();
        let mut offset = 0;
        for (index, (key, value)) in entries.into_iter().enumerate() {
            if index % SAMPLE_EVERY == 0 {
                samples.push((*key, offset));
            }
            let length = u32::try_from(value.len()).map_err(|_| io::Error::other("position value over 4 GiB"))?;
            out.write_all(key.as_bytes())?;
            out.write_all(&length.to_le_bytes())?;
            out.write_all(value)?;
            offset += (KEY_LEN + 4 + value.len()) as u64;
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
    /// staged entries (split at quantiles of the runs' sparse indexes).
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

    /// The waiting runs merged over `range`: each position once, in key order, with its values
    /// summed.
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

/// One run file read entry by entry, up to the end of a range.
struct RunReader {
    input: BufReader<File>,
    key: Key,
    value: Vec<u8>,
    upper: Option<Key>,
    path: PathBuf,
    /// Bytes of the file after the current entry.
    left: u64,
}

impl RunReader {
    /// Opens `run` at the first entry of `range` (read into `key` and `value`); `None` when the
    /// run has no entry in the range.
    fn open(run: &Run, (lower, upper): Range) -> io::Result<Option<RunReader>> {
        let context = |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", run.path.display()));
        let file = File::open(&run.path).map_err(context)?;
        let length = file.metadata().map_err(context)?.len();
        let mut input = BufReader::with_capacity(1 << 16, file);
        let mut start = 0;
        if let Some(lower) = lower {
            // The last sample before `lower`, then entry by entry.
            let at = run.samples.partition_point(|(key, _)| *key < lower).saturating_sub(1);
            start = run.samples.get(at).map_or(0, |&(_, offset)| offset);
            input.seek(SeekFrom::Start(start)).map_err(context)?;
        }
        let mut reader = RunReader {
            input,
            key: Key::from_bytes([0; KEY_LEN]),
            value: Vec::new(),
            upper,
            path: run.path.clone(),
            left: length.saturating_sub(start),
        };
        while reader.advance()? {
            if lower.is_none_or(|lower| reader.key >= lower) {
                return Ok(Some(reader));
            }
        }
        Ok(None)
    }

    /// Reads the next entry into `key` and `value`; `false` at the end of the file or range.
    /// A truncated or corrupt file is an error naming the file.
    fn advance(&mut self) -> io::Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        let mut head = [0u8; KEY_LEN + 4];
        let length = match head.len() as u64 <= self.left {
            true => {
                self.input.read_exact(&mut head).map_err(|err| self.error(&err.to_string()))?;
                u64::from(u32::from_le_bytes([head[KEY_LEN], head[KEY_LEN + 1], head[KEY_LEN + 2], head[KEY_LEN + 3]]))
            }
            false => u64::MAX,
        };
        let Some(left) = self.left.checked_sub(head.len() as u64 + length) else {
            return Err(self.error("an entry runs past the end of the file"));
        };
        self.left = left;
        self.key = Key::try_from(&head[..KEY_LEN]).map_err(|err| self.error(&err.to_string()))?;
        // `length` fits in the file, so in memory.
        self.value.resize(length as usize, 0);
        self.input.read_exact(&mut self.value).map_err(|err| self.error(&err.to_string()))?;
        Ok(self.upper.is_none_or(|upper| self.key < upper))
    }

    fn error(&self, what: &str) -> io::Error {
        io::Error::other(format!("corrupt staged run {}: {what}", self.path.display()))
    }
}

/// The k-way merge of sorted runs ([`Staging::merged`]).
pub struct MergedRuns {
    readers: Vec<RunReader>,
    /// The readers not at their end, by their current key ([`Key::words`]).
    heap: BinaryHeap<Reverse<(KeyWords, usize)>>,
    /// The readers holding the last key returned, to advance before the next one.
    taken: Vec<usize>,
}

impl MergedRuns {
    fn new(runs: &[Run], range: Range) -> io::Result<MergedRuns> {
        let mut merged = MergedRuns { readers: Vec::new(), heap: BinaryHeap::new(), taken: Vec::new() };
        for run in runs {
            if let Some(reader) = RunReader::open(run, range)? {
                merged.heap.push(Reverse((reader.key.words(), merged.readers.len())));
                merged.readers.push(reader);
            }
        }
        Ok(merged)
    }

    /// The next position and its summed value; `None` after the last. Values met in several
    /// runs are decoded to be summed, and one that does not decode is an error; a value met once
    /// is passed on as this process wrote it moments before (a later read checks it).
    pub fn next_entry(&mut self) -> io::Result<Option<(Key, std::borrow::Cow<'_, [u8]>)>> {
        for index in self.taken.drain(..) {
            let reader = &mut self.readers[index];
            if reader.advance()? {
                self.heap.push(Reverse((reader.key.words(), index)));
            }
        }
        let Some(Reverse((words, first))) = self.heap.pop() else {
            return Ok(None);
        };
        let key = self.readers[first].key;
        self.taken.push(first);
        while let Some(&Reverse((next, index))) = self.heap.peek() {
            if next != words {
                break;
            }
            self.heap.pop();
            self.taken.push(index);
        }
        if let [only] = self.taken[..] {
            return Ok(Some((key, std::borrow::Cow::Borrowed(&self.readers[only].value))));
        }
        let values = self.taken.iter().map(|&index| self.readers[index].value.as_slice());
        let summed = sum_staged(values).ok_or_else(|| io::Error::other(format!("corrupt staged value of {key}")))?;
        Ok(Some((key, std::borrow::Cow::Owned(summed))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        model::{GameFacts, GameId, GameResult, Month, PositionStats, Speed},
        store::layout::{self, Detail},
    };

    fn key(n: u8) -> Key {
        let mut bytes = [0u8; KEY_LEN];
        bytes[KEY_LEN - 1] = n;
        bytes[0] = 1;
        Key::from_bytes(bytes)
    }

    fn one_game(id: u64) -> Vec<u8> {
        let facts = GameFacts {
            id: GameId(id),
            result: GameResult::Draw,
            ratings: [Some(2000), None],
            month: Month::from_date("2001.02.03"),
            speed: Speed::Unknown,
        };
        let mut bytes = Vec::new();
        layout::encode_game(&facts, None, 0, &mut bytes);
        bytes
    }

    #[test]
    fn runs_merge_in_key_order_and_sum_shared_positions() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        // Position 3 is in all three runs, 5 in two, the others in one.
        let runs: [&[(u8, u64)]; 3] = [&[(1, 1), (3, 2), (5, 3)], &[(3, 4), (4, 5)], &[(2, 6), (3, 7), (5, 8), (9, 9)]];
        for run in runs {
            let entries: Vec<(Key, Vec<u8>)> = run.iter().map(|&(k, id)| (key(k), one_game(id))).collect();
            staging.add_run(entries.iter().map(|(k, v)| (k, v.as_slice()))).unwrap();
        }
        let mut merged = staging.merged((None, None)).unwrap();
        let mut got = Vec::new();
        while let Some((k, value)) = merged.next_entry().unwrap() {
            let stats: PositionStats = layout::decode_staged(&value, Detail::All).unwrap();
            got.push((k.as_bytes()[KEY_LEN - 1], stats.game_ids.iter().map(|id| id.0).collect::<Vec<_>>()));
        }
        let want: Vec<(u8, Vec<u64>)> =
            vec![(1, vec![1]), (2, vec![6]), (3, vec![2, 4, 7]), (4, vec![5]), (5, vec![3, 8]), (9, vec![9])];
        assert_eq!(got, want);
        staging.clear().unwrap();
        assert!(staging.is_empty());
        assert_eq!(std::fs::read_dir(staging.dir()).unwrap().count(), 0);
    }

    /// Every position of `range` merged, as (key, game ids).
    fn merge_all(staging: &Staging, range: Range) -> Vec<(Key, Vec<u64>)> {
        let mut merged = staging.merged(range).unwrap();
        let mut out = Vec::new();
        while let Some((key, value)) = merged.next_entry().unwrap() {
            let stats = layout::decode_staged(&value, Detail::All).unwrap();
            out.push((key, stats.game_ids.iter().map(|id| id.0).collect()));
        }
        out
    }

    #[test]
    fn ranges_split_the_merge_into_parts_that_concatenate_to_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        // Three runs of 10,000 keys from overlapping strides, so that many keys are shared and
        // each run has several samples.
        for (run, stride) in [(0u64, 3u32), (1, 5), (2, 7)] {
            let entries: Vec<(Key, Vec<u8>)> = (0..10_000u32)
                .map(|i| {
                    let mut bytes = [0u8; KEY_LEN];
                    bytes[1..5].copy_from_slice(&(i * stride).to_be_bytes());
                    (Key::from_bytes(bytes), one_game(run * 100_000 + u64::from(i) + 1))
                })
                .collect();
            staging.add_run(entries.iter().map(|(k, v)| (k, v.as_slice()))).unwrap();
        }
        let whole = merge_all(&staging, (None, None));
        assert!(whole.windows(2).all(|pair| pair[0].0 < pair[1].0));
        assert!(whole.iter().any(|(_, ids)| ids.len() == 3));
        for count in [1, 2, 3, 8, 64] {
            let ranges = staging.ranges(count);
            assert!(ranges.len() <= count && (count == 1 || ranges.len() > 1), "{count}: {}", ranges.len());
            let parts: Vec<_> = ranges.into_iter().flat_map(|range| merge_all(&staging, range)).collect();
            assert_eq!(parts, whole, "{count} ranges");
        }
    }

    #[test]
    fn a_truncated_or_corrupt_run_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut staging = Staging::create(dir.path()).unwrap();
        let value = one_game(1);
        staging.add_run([(&key(1), value.as_slice()), (&key(2), value.as_slice())]).unwrap();
        let path = staging.runs[0].path.clone();
        let bytes = std::fs::read(&path).unwrap();
        let mut huge_length = bytes.clone();
        huge_length[KEY_LEN..KEY_LEN + 4].copy_from_slice(&[0xff; 4]);
        let cut_value = bytes[..bytes.len() - 2].to_vec();
        let cut_head = bytes[..bytes.len() - value.len() - 3].to_vec();
        for corrupt in [cut_value, cut_head, huge_length] {
            std::fs::write(&path, &corrupt).unwrap();
            let merged = staging.merged((None, None)).and_then(|mut merged| {
                while merged.next_entry()?.is_some() {}
                Ok(())
            });
            let error = merged.expect_err("a corrupt run is refused").to_string();
            assert!(error.contains("corrupt staged run") && error.contains(&path.display().to_string()), "{error}");
        }
    }
}
