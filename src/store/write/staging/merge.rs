//! Reading sorted runs back: one run record by record over a key range, and the k-way merge of
//! all runs of a staging area that a commit reads position by position.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, Read, Seek, SeekFrom},
    path::PathBuf,
    sync::Arc,
};

use super::{HeldRun, Occurrence, Run};
use crate::{
    codec::{KEY_LEN, Key, KeyRange, KeyWords},
    model::{GameId, PlyNotes},
    store::{
        layout::run::{HEADER_LEN, RECORD_MAX, read_header, read_record},
        tier::PawnFiles,
    },
};

/// One run read record by record, up to the end of a range.
pub(super) struct RunReader {
    source: Source,
    /// Where the next record starts in the source's bytes.
    at: usize,
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

/// Where a run's records come from.
enum Source {
    File {
        file: File,
        /// Bytes read from the file, parsed from `at` on.
        buffer: Vec<u8>,
        /// Bytes of the file not read into `buffer` yet.
        unread: u64,
    },
    /// A run held in memory, whole.
    Held(Arc<[u8]>),
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
        let buffer = Vec::with_capacity(READ_BYTES + RECORD_MAX);
        let source = Source::File { file, buffer, unread: length.saturating_sub(start) };
        RunReader::new(source, read_header(header), range, run.path.clone()).first_in(range)
    }

    /// Reads `run`, held in memory, from the first record of `range`; `None` when it has no
    /// record in the range. `name` is what its errors call it.
    fn held(run: &HeldRun, range: KeyRange, name: PathBuf) -> io::Result<Option<RunReader>> {
        RunReader::new(Source::Held(Arc::clone(&run.records)), run.base, range, name).first_in(range)
    }

    fn new(source: Source, base: GameId, range: KeyRange, path: PathBuf) -> RunReader {
        RunReader {
            source,
            at: 0,
            base,
            key: Key::from_bytes([0; KEY_LEN]),
            occurrence: Occurrence {
                game: GameId(0),
                next: None,
                ply: 0,
                pawn_files: PawnFiles(0),
                notes: PlyNotes::default(),
            },
            fresh: true,
            last: range.last,
            path,
        }
    }

    /// This reader at its first record in `range`, if any.
    fn first_in(mut self, range: KeyRange) -> io::Result<Option<RunReader>> {
        while self.advance()? {
            if self.key >= range.first {
                return Ok(Some(self));
            }
        }
        Ok(None)
    }

    /// Reads the next record; `false` at the end of the file or range. A truncated or corrupt
    /// file, or records out of order, are an error naming the file.
    fn advance(&mut self) -> io::Result<bool> {
        if let Source::File { file, buffer, unread } = &mut self.source
            && buffer.len() - self.at < RECORD_MAX
            && *unread > 0
        {
            buffer.drain(..self.at);
            self.at = 0;
            let wanted = READ_BYTES.min(usize::try_from(*unread).unwrap_or(READ_BYTES));
            let filled = buffer.len();
            buffer.resize(filled + wanted, 0);
            let read = file.read_exact(&mut buffer[filled..]);
            *unread -= wanted as u64;
            read.map_err(|err| self.error(&err.to_string()))?;
        }
        let bytes = match &self.source {
            Source::File { buffer, .. } => &buffer[..],
            Source::Held(records) => &records[..],
        };
        if self.at == bytes.len() {
            return Ok(false);
        }
        let mut input = &bytes[self.at..];
        let mut key = *self.key.as_bytes();
        let occurrence = read_record(&mut input, &mut key, self.fresh, self.base);
        let at = bytes.len() - input.len();
        let occurrence = occurrence.ok_or_else(|| self.error("a record is cut short or not valid"))?;
        self.at = at;
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
    /// The merge of the spilled `runs` and the `held` ones (its errors name a held run by its
    /// place among them) over `range`.
    pub(super) fn new(runs: &[Run], held: &[HeldRun], range: KeyRange) -> io::Result<MergedRuns> {
        let mut merged = MergedRuns { readers: Vec::new(), heap: BinaryHeap::new(), group: Vec::new() };
        let held = held.iter().enumerate().map(|(number, run)| {
            RunReader::held(run, range, PathBuf::from(format!("(held run {number}, of games from {})", run.base.0)))
        });
        for reader in runs.iter().map(|run| RunReader::open(run, range)).chain(held) {
            if let Some(reader) = reader? {
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
