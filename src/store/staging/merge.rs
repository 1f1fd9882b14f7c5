//! Reading sorted runs back: one run record by record over a key range, and the k-way merge of
//! all runs of a staging area that a commit reads position by position.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, Read, Seek, SeekFrom},
    path::PathBuf,
};

use super::{Occurrence, Run};
use crate::{
    codec::{KEY_LEN, Key, KeyRange, KeyWords},
    model::GameId,
    store::{
        layout::run::{HEADER_LEN, RECORD_MAX, read_header, read_record},
        tier::PawnFiles,
    },
};

/// One run file read record by record, up to the end of a range.
pub(super) struct RunReader {
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
            occurrence: Occurrence { game: GameId(0), next: None, ply: 0, pawn_files: PawnFiles(0) },
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
    pub(super) fn new(runs: &[Run], range: KeyRange) -> io::Result<MergedRuns> {
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
