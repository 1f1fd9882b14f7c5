//! The staging area of an ingest run: positions' occurrences waiting for their commit.
//!
//! Each batch of games spills the positions its games reach as one *sorted run* file of
//! records, one per [`Occurrence`] (a game reaching a position, the move it played
//! from there, the ply it first got there), in (key, game, move) order: no statistics are summed
//! before the commit, which builds each position's value once, from all its occurrences and the
//! games' facts (the facts family holds those of the run's games before the commit). A commit
//! merges every run at once into SST files that RocksDB ingests in one atomic step
//! ([`Writer::commit`](super::Writer::commit)). This is the bulk path: each
//! position is sorted and summed once per commit instead of being merged again by every
//! compaction, and a run file is a plain sorted list of records that another program can write.
//! A build spread over machines stages each key range's occurrences in the range task's own
//! directory and writes that range there ([`CommitBase::write_range`](super::CommitBase::write_range)).
//!
//! The file layout is [`layout::run`](crate::store::layout::run)'s: the run's base game id, then one
//! record per occurrence, each sharing its key's prefix with the previous record's.
//!
//! Every run keeps a sparse index (one key and file offset every [`SAMPLE_EVERY`] records), so
//! that a commit can split the key space into ranges of similar size ([`Staging::ranges`]) and
//! merge each range on its own core, each range reading only its part of every run.
//!
//! A range task of a build spread over machines may also *hold* runs in memory ([`HeldRun`]:
//! its parts of the batches' occurrences, each sorted already), merged with the spilled ones
//! without being sorted or written again.
//!
//! The directory lives inside the database directory (so that ingestion moves files instead of
//! copying them) and holds nothing committed: a writer that finds one left by a killed process
//! removes it.

mod merge;

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

pub use merge::MergedRuns;

use crate::{
    codec::{CompactMove, Key, KeyRange},
    model::{GameId, PlyNotes},
    store::{
        StoreError,
        layout::run::{HEADER_LEN, RECORD_MAX, header, read_record, write_record},
        tier::PawnFiles,
    },
};

/// The staging directory's name inside a database directory.
pub const DIR_NAME: &str = "staging";

/// Records between two keys of a run's sparse index.
pub const SAMPLE_EVERY: usize = 4096;
/// One key in about this many is a candidate bound of a commit's ranges: those whose hash is a
/// multiple of it. The bounds so depend on the set of staged keys alone, not on how the
/// occurrences were cut into runs, so that every ingest of the same games (one machine or many,
/// two cores or sixty) splits its commit, and files its single-game tier, the same way.
pub const BOUND_EVERY: u64 = 1024;

/// Whether `key` is a candidate bound of a commit's ranges (see [`BOUND_EVERY`]).
pub fn is_range_bound(key: &Key) -> bool {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()).is_multiple_of(BOUND_EVERY)
}

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
    /// The position's pawn files (a function of its key), noted where the board was at hand:
    /// what the single-game tier files the position under.
    pub pawn_files: PawnFiles,
    /// What the game's annotations said there (empty for most games).
    pub notes: PlyNotes,
}

/// One spilled run: its file and its sparse index.
struct Run {
    path: PathBuf,
    /// Its length as written.
    length: u64,
    /// Every [`SAMPLE_EVERY`]th key with the offset its record starts at.
    samples: Vec<(Key, u64)>,
    /// Its keys that are candidate bounds of a commit's ranges ([`is_bound`]), ascending.
    bounds: Vec<Key>,
    /// Its records.
    records: usize,
}

impl Run {
    /// A run of no record yet, `length` bytes long (its header).
    fn new(path: &Path, length: u64) -> Run {
        Run { path: path.to_owned(), length, samples: Vec::new(), bounds: Vec::new(), records: 0 }
    }

    /// Indexes its next record, of `key`, at `offset`, after a record of `previous`; `true`
    /// when the record is sampled (a reader may start there: it must share no key prefix).
    fn note(&mut self, key: Key, offset: u64, previous: Option<Key>) -> bool {
        let sampled = self.records.is_multiple_of(SAMPLE_EVERY);
        if sampled {
            self.samples.push((key, offset));
        }
        if previous != Some(key) && is_range_bound(&key) {
            self.bounds.push(key);
        }
        self.records += 1;
        sampled
    }
}

/// A sorted run's records held in memory ([`encode_run_records`]' bytes), checked and
/// indexed like a spilled run's: a part of a batch's occurrences that a range task holds
/// ([`Staging::hold`]) instead of sorting it again with the others and writing it out.
pub struct HeldRun {
    base: GameId,
    records: Arc<[u8]>,
    /// Its keys that are candidate bounds of a commit's ranges, ascending.
    bounds: Vec<Key>,
    count: usize,
    /// Its last game (the largest).
    last_game: GameId,
}

impl HeldRun {
    /// The records `bytes` of games from `base` on, in strictly increasing (key, game, move)
    /// order (the merge checks the order); `None` when they do not read as records.
    pub fn new(base: GameId, bytes: &[u8]) -> Option<HeldRun> {
        let mut run = HeldRun::empty(base);
        for record in RunRecords::new(bytes, base) {
            let (key, occurrence) = record?;
            run.note(&key, &occurrence);
        }
        run.records = Arc::from(bytes);
        Some(run)
    }

    /// `occurrences`, in strictly increasing (key, game, move) order, of games from `base` on,
    /// written as records and indexed in one pass.
    pub fn encode(base: GameId, occurrences: impl Iterator<Item = (Key, Occurrence)>) -> HeldRun {
        let mut run = HeldRun::empty(base);
        let records =
            encode_run_records(occurrences.inspect(|(key, occurrence)| run.note(key, occurrence)), base, usize::MAX);
        run.records = Arc::from(records);
        run
    }

    fn empty(base: GameId) -> HeldRun {
        HeldRun { base, records: Arc::from([]), bounds: Vec::new(), count: 0, last_game: base }
    }

    /// Indexes its next record, of `key` and `occurrence`.
    fn note(&mut self, key: &Key, occurrence: &Occurrence) {
        self.last_game = self.last_game.max(occurrence.game);
        if self.bounds.last() != Some(key) && is_range_bound(key) {
            self.bounds.push(*key);
        }
        self.count += 1;
    }

    /// Its records' bytes.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Its last game (the largest; its base when it holds none).
    pub fn last_game(&self) -> GameId {
        self.last_game
    }
}

/// Sorted runs of one ingest run, not yet committed.
pub struct Staging {
    /// The database directory (what errors name).
    db: PathBuf,
    dir: PathBuf,
    runs: Vec<Run>,
    /// Runs held in memory, by base (the merge then meets a position's games in order).
    held: Vec<HeldRun>,
    held_bytes: usize,
    bytes: u64,
    records: usize,
    next_file: u64,
}

impl Staging {
    /// An empty staging area in the directory `db` (a database's, or a range task's of a build
    /// spread over machines), removing whatever an earlier, killed process left there.
    pub fn create(db: &Path) -> Result<Staging, StoreError> {
        let error = |source| StoreError::Staging { path: db.to_owned(), source };
        let dir = db.join(DIR_NAME);
        match std::fs::remove_dir_all(&dir) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(error(err)),
            _ => {}
        }
        std::fs::create_dir_all(&dir).map_err(error)?;
        Ok(Staging {
            db: db.to_owned(),
            dir,
            runs: Vec::new(),
            held: Vec::new(),
            held_bytes: 0,
            bytes: 0,
            records: 0,
            next_file: 0,
        })
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
        let run = write_run_file_indexed(&path, base, occurrences)?;
        self.add(run);
        Ok(())
    }

    fn add(&mut self, run: Run) {
        self.bytes += run.length;
        self.records += run.records;
        self.runs.push(run);
    }

    /// Holds `run` in memory until the commit (or [`Staging::spill_held`]).
    pub fn hold(&mut self, run: HeldRun) {
        self.records += run.count;
        self.held_bytes += run.len();
        let at = self.held.partition_point(|held| held.base <= run.base);
        self.held.insert(at, run);
    }

    /// Runs held in memory.
    pub fn held_runs(&self) -> usize {
        self.held.len()
    }

    /// Bytes of the runs held in memory.
    pub fn held_bytes(&self) -> usize {
        self.held_bytes
    }

    /// Merges the runs held in memory into one spilled run.
    pub fn spill_held(&mut self) -> Result<(), StoreError> {
        // The held runs are in order of their bases.
        let Some(base) = self.held.first().map(|held| held.base) else { return Ok(()) };
        let held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        self.records -= held.iter().map(|held| held.count).sum::<usize>();
        let path = self.new_file("run");
        let merged = MergedRuns::new(&[], &held, KeyRange::ALL);
        let run = merged.and_then(|mut merged| {
            let mut failed = None;
            let mut group: (Key, Vec<Occurrence>) = (Key::MIN, Vec::new());
            let mut at = 0;
            let occurrences = std::iter::from_fn(|| {
                loop {
                    if let Some(&occurrence) = group.1.get(at) {
                        at += 1;
                        return Some((group.0, occurrence));
                    }
                    match merged.next_group() {
                        Ok(Some((key, occurrences))) => {
                            group.0 = key;
                            group.1.clear();
                            group.1.extend_from_slice(occurrences);
                            at = 0;
                        }
                        Ok(None) => return None,
                        Err(err) => {
                            failed = Some(err);
                            return None;
                        }
                    }
                }
            });
            let run = write_run_file_indexed(&path, base, occurrences)?;
            failed.map_or(Ok(run), Err)
        });
        self.add(run.map_err(|err| self.error(err))?);
        Ok(())
    }

    /// Records spilled or held since the last [`Staging::clear`].
    pub fn records(&self) -> usize {
        self.records
    }

    /// Bytes spilled since the last [`Staging::clear`].
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether no run waits.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.held.is_empty()
    }

    /// Runs waiting, spilled or held.
    pub fn run_count(&self) -> usize {
        self.runs.len() + self.held.len()
    }

    /// At most `count` key ranges, in order, covering every key, holding similar numbers of
    /// staged positions (split at quantiles of the staged keys that are candidate bounds, see
    /// [`BOUND_EVERY`]). A range is `None` when it
    /// is empty (the first, when the smallest staged key is a split): it keeps its number, as
    /// the single-game tier's records name a commit's ranges by number.
    pub fn ranges(&self, count: usize) -> Vec<Option<KeyRange>> {
        let bounds = self.runs.iter().flat_map(|run| &run.bounds).chain(self.held.iter().flat_map(|run| &run.bounds));
        ranges_between(&range_pivots(bounds.copied().collect(), count))
    }

    /// The waiting runs merged over `range`: each position once, in key order, with all its
    /// occurrences.
    pub fn merged(&self, range: KeyRange) -> io::Result<MergedRuns> {
        MergedRuns::new(&self.runs, &self.held, range)
    }

    /// Removes every file of the directory (after a commit).
    pub fn clear(&mut self) -> Result<(), StoreError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|err| self.error(err))?;
        for entry in entries {
            std::fs::remove_file(entry.map_err(|err| self.error(err))?.path()).map_err(|err| self.error(err))?;
        }
        self.runs.clear();
        self.held.clear();
        self.held_bytes = 0;
        self.bytes = 0;
        self.records = 0;
        Ok(())
    }

    /// Removes the runs' files and the runs held, keeping the rest of the directory (a range
    /// written apart keeps its SST files there for the commit).
    pub fn remove_runs(&mut self) -> Result<(), StoreError> {
        self.held.clear();
        self.held_bytes = 0;
        for run in std::mem::take(&mut self.runs) {
            std::fs::remove_file(&run.path).map_err(|err| self.error(named(&run.path, err)))?;
        }
        self.bytes = 0;
        self.records = 0;
        Ok(())
    }

    /// Removes the directory.
    pub fn remove(self) -> Result<(), StoreError> {
        std::fs::remove_dir_all(&self.dir).map_err(|err| self.error(err))
    }
}

fn write_run_file_indexed(
    path: &Path,
    base: GameId,
    occurrences: impl IntoIterator<Item = (Key, Occurrence)>,
) -> io::Result<Run> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).map_err(|err| named(path, err))?);
    out.write_all(&header(base))?;
    let mut run = Run::new(path, HEADER_LEN as u64);
    let mut record = Vec::with_capacity(RECORD_MAX);
    let mut previous: Option<Key> = None;
    let mut last: Option<(Key, GameId, Option<CompactMove>)> = None;
    for (key, occurrence) in occurrences {
        let order = (key, occurrence.game, occurrence.next);
        if last.is_some_and(|last| last >= order) {
            return Err(io::Error::other(format!("staged occurrences out of order at position {key}")));
        }
        last = Some(order);
        let shared = match run.note(key, run.length, previous) {
            true => 0,
            false => shared_prefix(previous, &key),
        };
        record.clear();
        write_record(&key, &occurrence, shared, base, &mut record)
            .ok_or_else(|| io::Error::other(format!("game {} before the run's base {}", occurrence.game.0, base.0)))?;
        out.write_all(&record)?;
        run.length += record.len() as u64;
        previous = Some(key);
    }
    out.into_inner().map_err(|err| err.into_error())?;
    Ok(run)
}

/// Occurrences (in strictly increasing (key, game, move) order, of games from `base` on) as a
/// run's records without its header, every `restart_every`th sharing no key prefix: a block of
/// a run to ship between machines ([`decode_run_records`] reads it).
pub fn encode_run_records(
    occurrences: impl Iterator<Item = (Key, Occurrence)>,
    base: GameId,
    restart_every: usize,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut previous: Option<Key> = None;
    for (index, (key, occurrence)) in occurrences.enumerate() {
        let shared = match index.is_multiple_of(restart_every.max(1)) {
            true => 0,
            false => shared_prefix(previous, &key),
        };
        // An occurrence before the base is not written (the caller's numbering rules it out).
        let _ = write_record(&key, &occurrence, shared, base, &mut out);
        previous = Some(key);
    }
    out
}

/// Every occurrence of records [`encode_run_records`] wrote with `base`; `None` for other bytes.
pub fn decode_run_records(bytes: &[u8], base: GameId) -> Option<Vec<(Key, Occurrence)>> {
    RunRecords::new(bytes, base).collect()
}

/// The records [`encode_run_records`] wrote with `base`, read one by one: `Some` each, then
/// `None` once if the bytes stop reading as records (and nothing after it).
pub struct RunRecords<'a> {
    input: &'a [u8],
    length: usize,
    key: [u8; crate::codec::KEY_LEN],
    base: GameId,
}

impl<'a> RunRecords<'a> {
    /// The records of `bytes`, of games from `base` on.
    pub fn new(bytes: &'a [u8], base: GameId) -> RunRecords<'a> {
        RunRecords { input: bytes, length: bytes.len(), key: [0; crate::codec::KEY_LEN], base }
    }

    /// Bytes read so far: where the next record starts.
    pub fn offset(&self) -> usize {
        self.length - self.input.len()
    }
}

impl Iterator for RunRecords<'_> {
    type Item = Option<(Key, Occurrence)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.input.is_empty() {
            return None;
        }
        let fresh = self.offset() == 0;
        match read_record(&mut self.input, &mut self.key, fresh, self.base) {
            Some(occurrence) => Some(Some((Key::from_bytes(self.key), occurrence))),
            None => {
                self.input = &[];
                Some(None)
            }
        }
    }
}

/// Bytes `key` shares with the key before it (none for the first).
fn shared_prefix(previous: Option<Key>, key: &Key) -> usize {
    previous.map_or(0, |previous| previous.as_bytes().iter().zip(key.as_bytes()).take_while(|(a, b)| a == b).count())
}

/// `err` naming the file it is about.
fn named(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// The pivots of at most `count` key ranges holding similar numbers of staged positions: the
/// quantiles of `keys`, the candidate bounds of the staged keys (any order, repeats allowed).
/// [`Staging::ranges`] cuts at those of its runs' bounds; a build spread over machines cuts its
/// shuffle at those of its sample of the same keys.
pub fn range_pivots(mut keys: Vec<Key>, count: usize) -> Vec<Key> {
    keys.sort_unstable();
    keys.dedup();
    let mut pivots: Vec<Key> =
        (1..count.max(1)).filter_map(|part| keys.get(part * keys.len() / count).copied()).collect();
    pivots.dedup();
    pivots
}

/// The key ranges `pivots` (ascending, distinct) cut, covering every key: range `i` from
/// `pivots[i - 1]` up to `pivots[i]` (exclusive). A range is `None` when it is empty (the first,
/// when the first pivot is the smallest key).
pub fn ranges_between(pivots: &[Key]) -> Vec<Option<KeyRange>> {
    let mut ranges = Vec::with_capacity(pivots.len() + 1);
    let mut first = Key::MIN;
    for &pivot in pivots {
        ranges.push(KeyRange::until(first, pivot));
        first = pivot;
    }
    ranges.push(Some(KeyRange { first, last: Key::MAX }));
    ranges
}

#[cfg(test)]
mod tests;
