//! Ingesting PGN collections into a [`Store`], exactly once.
//!
//! Three stages keep both cores busy: a reader thread decompresses and splits the input into
//! raw games; rayon parses, replays and keys them in chunks ([`prepare`]); a writer thread drops
//! duplicates, writes the games, and sorts each batch's position occurrences into a sorted run
//! in the staging area (`batch.rs`). At the end of the run (and whenever the staged runs reach
//! [`SEGMENT_BYTES`]) the runs are merged into SST files and committed with the new totals in
//! one atomic step ([`Writer::commit`]). Channels between stages are bounded and
//! batches are capped, so memory stays bounded whatever the input size.

mod batch;
mod copies;
pub mod distributed;
mod prepare;

pub use batch::SortedOccurrences;
pub use prepare::{Prepared, PreparedGame, prepare};

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    thread,
    time::{Duration, Instant, SystemTime},
};

use crate::{
    input::{GameSplitter, InputError, RawGame, Rejection, Source},
    store::{RunCounts, RunRecord, RunStatus, Staging, Store, StoreError, Totals, Writer},
};
use batch::PendingBatch;
use copies::Copies;

/// Why an ingest run stopped. Bad games and unreadable inputs do not stop a run: they go to the
/// [`Observer`].
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A pipeline thread could not be started.
    #[error("cannot start an ingest thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// Raw games handed to rayon at a time.
const CHUNK_GAMES: usize = 1024;
/// Raw games that make a batch: the games that get ids together, in mainline order, and whose
/// occurrences are sorted into one run. A run's inputs are cut as one stream of games, every
/// `BATCH_GAMES` (fewer in the last batch), across files: a folder of small files makes the
/// batches of one file of the same games. Batches are cut by the input alone, never by timing
/// or the database's contents, so that the same files get the same ids on every run and
/// however the work is spread ([`distributed`] cuts the same batches on other machines).
pub const BATCH_GAMES: usize = 16 * CHUNK_GAMES;
/// Prepared chunks waiting for the writer (about 2 MB each): enough to keep the workers busy
/// while the writer sorts and spills a batch.
const PREPARED_CHUNKS: usize = 32;
/// Staged bytes (about 70M position occurrences at some 15 bytes each) that make a commit
/// before the end of the run: what a kill can lose, the disk the staging area takes, and what
/// bounds the commit's memory (the tier's maps of its new positions).
pub const SEGMENT_BYTES: u64 = 1 << 30;

/// What an ingest run reports as it goes.
pub trait Observer {
    /// A game was skipped; `raw` is its text as in the file.
    fn rejected(&mut self, file: &str, rejection: &Rejection, raw: &[u8]);
    /// An input could not be read to its end (a broken compressed stream, an I/O error).
    fn read_error(&mut self, file: &str, error: &InputError);
    /// Called after each chunk of games.
    fn progress(&mut self, progress: &Progress);
}

/// How far a run has got.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Games read so far, whatever became of them.
    pub games_read: u64,
    /// Position entries committed.
    pub positions_written: u64,
    /// Input bytes read (compressed bytes for compressed files).
    pub bytes_read: u64,
    /// Size of all input files, when known (not for standard input).
    pub bytes_total: Option<u64>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The run as recorded in the database.
    pub run: RunRecord,
    /// The database totals after it.
    pub totals: Totals,
    /// Inputs that could not be read to their end.
    pub read_errors: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl Summary {
    /// Games read per second of the run.
    pub fn games_per_second(&self) -> f64 {
        self.run.counts.games_read as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// What flows between the stages, in input order: games of one file (raw, then prepared), or
/// the error that stopped reading a file.
enum ReaderEvent<G = Vec<RawGame>> {
    /// `ends_batch`: the last chunk of a batch ([`BATCH_GAMES`]).
    Chunk {
        file: Arc<str>,
        games: G,
        ends_batch: bool,
    },
    ReadError {
        file: Arc<str>,
        error: InputError,
    },
}

/// Ingests `files` (see [`input::expand`](crate::input::expand)) into `store`: every new standard game is indexed,
/// duplicates and bad games are counted (and told to `observer`), and the database is flushed,
/// compacted and its distinct positions counted at the end.
///
/// ```
/// use tabiya::{Key, indexer, store::{Store, layout::Detail}};
///
/// let dir = tempfile::tempdir()?;
/// let pgn = dir.path().join("games.pgn");
/// std::fs::write(&pgn, "1. e4 e5 2. Nf3 1-0\n\n1. e4 c5 0-1\n\n1. e4 e5 2. Nf3 1-0\n")?;
/// let store = Store::open(&dir.path().join("db"))?;
/// let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver)?;
/// assert_eq!((summary.run.counts.indexed, summary.run.counts.duplicates), (2, 1));
///
/// let after_e4 = Key::encode(&"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -".parse()?)?;
/// let stats = store.snapshot().positions().get(&after_e4, Detail::Head)?.expect("both games reached it");
/// assert_eq!((stats.total.games, stats.total.white, stats.total.black), (2, 1, 1));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn ingest(store: &Store, files: &[PathBuf], observer: &mut dyn Observer) -> Result<Summary, IngestError> {
    ingest_with(store, files, &IngestOptions::default(), observer)
}

/// How an ingest treats what it reads beyond the defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IngestOptions {
    /// Skip a game that is a twin of a stored game or of one read before it
    /// ([`twin_relation`](crate::model::twins::twin_relation): the same players, however
    /// spelled, and date, with the same moves, or one's moves the start of the other's of at
    /// least this many plies); the stored game stays. `None`: twins are indexed as games.
    pub skip_twins: Option<usize>,
}

/// [`ingest`] with options.
pub fn ingest_with(
    store: &Store,
    files: &[PathBuf],
    options: &IngestOptions,
    observer: &mut dyn Observer,
) -> Result<Summary, IngestError> {
    let started = Instant::now();
    let store_writer = store.writer()?;
    let mut run = start_run(&store_writer, files)?;
    let mut writer = Sink {
        store: &store_writer,
        totals: store.totals()?,
        staging: Staging::create(store.path())?,
        run: &mut run,
        skip_twins: options.skip_twins,
    };
    let bytes_total = files.iter().map(|f| std::fs::metadata(f).ok().filter(|m| m.is_file()).map(|m| m.len())).sum();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let mut read_errors = 0;

    let (raw_tx, raw_rx) = mpsc::sync_channel::<ReaderEvent>(4);
    // Fewer chunks in flight under a memory budget (a chunk is some 2.5 MB of keyed games).
    let in_flight = ((PREPARED_CHUNKS as f64 * crate::store::memory_share()) as usize).max(2);
    let (prepared_tx, prepared_rx) = mpsc::sync_channel::<ReaderEvent<Vec<Prepared>>>(in_flight);
    // Without twins skipped: a copy of a game skipped as a twin is a twin, not a duplicate.
    let copies = options.skip_twins.is_none().then(|| Copies::with_room(copies_room()));
    let piped = thread::scope(|scope| -> Result<(), IngestError> {
        let reader_bytes = bytes_read.clone();
        thread::Builder::new()
            .name("tabiya-read".to_owned())
            .spawn_scoped(scope, move || read_inputs(files, &raw_tx, &reader_bytes))
            .map_err(IngestError::Thread)?;
        thread::Builder::new()
            .name("tabiya-parse".to_owned())
            .spawn_scoped(scope, move || prepare_chunks(&store_writer, raw_rx, &prepared_tx, copies))
            .map_err(IngestError::Thread)?;
        let mut pending = PendingBatch::default();
        for event in prepared_rx {
            match event {
                ReaderEvent::Chunk { file, games, ends_batch } => {
                    writer.take(&mut pending, &file, games, observer);
                    if ends_batch {
                        writer.stage(&mut pending)?;
                    }
                }
                ReaderEvent::ReadError { file, error } => {
                    read_errors += 1;
                    observer.read_error(&file, &error);
                }
            }
            observer.progress(&Progress {
                games_read: writer.run.counts.games_read,
                positions_written: writer.run.counts.positions_written,
                bytes_read: bytes_read.load(Ordering::Relaxed),
                bytes_total,
            });
        }
        writer.stage(&mut pending)
    });
    let Sink { mut totals, mut staging, .. } = writer;
    if let Err(err) = piped.and_then(|()| Ok(commit(&store_writer, &mut staging, &mut totals, &run)?)) {
        fail_run(&store_writer, Some(staging), &mut run, &err);
        return Err(err);
    }
    staging.remove()?;
    finish_run(&store_writer, &mut totals, &mut run)?;
    Ok(Summary { run, totals, read_errors, elapsed: started.elapsed() })
}

/// Texts of accepted games an ingest remembers ([`Copies`]): some 16 MB at the default memory
/// budget.
fn copies_room() -> usize {
    ((1 << 20) as f64 * crate::store::memory_share()) as usize
}

/// The pipeline's middle stage: parses, replays and keys each chunk of raw games on every core
/// (looking their fingerprints up), in input order; with `copies`, a verbatim copy of a game
/// accepted in an earlier chunk is a duplicate without being parsed.
fn prepare_chunks(
    store: &Writer,
    raw: mpsc::Receiver<ReaderEvent>,
    prepared: &mpsc::SyncSender<ReaderEvent<Vec<Prepared>>>,
    mut copies: Option<Copies>,
) {
    // A failed look-up counts as unknown: the writer checks again and reports.
    let stored = |fingerprint: &_| store.has_fingerprint(fingerprint).unwrap_or(false);
    for event in raw {
        let event = match event {
            ReaderEvent::Chunk { file, games, ends_batch } => {
                let games = prepare::prepare_chunk(games, copies.as_mut(), stored);
                ReaderEvent::Chunk { file, games, ends_batch }
            }
            ReaderEvent::ReadError { file, error } => ReaderEvent::ReadError { file, error },
        };
        if prepared.send(event).is_err() {
            return;
        }
    }
}

/// The pipeline's last stage: what it writes to, and the run it counts into.
struct Sink<'a> {
    store: &'a Writer<'a>,
    totals: Totals,
    staging: Staging,
    run: &'a mut RunRecord,
    skip_twins: Option<usize>,
}

impl Sink<'_> {
    /// Counts a chunk of prepared games of `file` and adds the new ones to the batch.
    fn take(&mut self, pending: &mut PendingBatch, file: &str, games: Vec<Prepared>, observer: &mut dyn Observer) {
        for item in games {
            self.run.counts.games_read += 1;
            match item {
                Prepared::Game(game) => pending.push(*game),
                Prepared::Stored => self.run.counts.duplicates += 1,
                Prepared::Rejected { rejection, raw } => {
                    self.run.counts.add_skipped(rejection.reason.name());
                    observer.rejected(file, &rejection, &raw);
                }
            }
        }
    }

    /// Stages the pending batch (see [`PendingBatch::stage`]) and commits once the staging area
    /// holds [`SEGMENT_BYTES`].
    fn stage(&mut self, pending: &mut PendingBatch) -> Result<(), IngestError> {
        pending.stage(self.store, &mut self.staging, &mut self.totals, self.run, self.skip_twins)?;
        // A memory budget commits sooner: the commit's memory follows what it commits. (The
        // answers are the same; the bytes of the tier, cut into more commits, are not.)
        if self.staging.bytes() as f64 >= SEGMENT_BYTES as f64 * crate::store::memory_share() {
            commit(self.store, &mut self.staging, &mut self.totals, self.run)?;
        }
        Ok(())
    }
}

/// Reads and splits every input in order, sending chunks of raw games.
fn read_inputs(files: &[PathBuf], tx: &mpsc::SyncSender<ReaderEvent>, bytes_read: &AtomicU64) {
    let mut done_bytes = 0;
    // Batches run on from file to file.
    let mut in_batch = 0;
    for path in files {
        let file: Arc<str> = path.display().to_string().into();
        // Decompressed on a thread of its own, so that decompressing and splitting overlap:
        // one reader thread caps an ingest on many cores.
        let source = match Source::open(path, None) {
            Ok(source) => source.read_ahead(),
            Err(error) => {
                let _ = tx.send(ReaderEvent::ReadError { file, error });
                continue;
            }
        };
        let counter = source.bytes_read.clone();
        let read_all = read_chunks(path, source.reader, CHUNK_GAMES, &mut in_batch, |chunk| {
            bytes_read.store(done_bytes + counter.load(Ordering::Relaxed), Ordering::Relaxed);
            let event = match chunk {
                FileChunk::Games { games, ends_batch } => ReaderEvent::Chunk { file: file.clone(), games, ends_batch },
                FileChunk::Stopped(error) => ReaderEvent::ReadError { file: file.clone(), error },
            };
            tx.send(event).is_ok()
        });
        if !read_all {
            return;
        }
        done_bytes += counter.load(Ordering::Relaxed);
        bytes_read.store(done_bytes, Ordering::Relaxed);
    }
}

/// What [`read_chunks`] hands on.
pub enum FileChunk {
    /// Raw games in file order; `ends_batch` on the last chunk of a batch ([`BATCH_GAMES`]).
    Games {
        /// The games.
        games: Vec<RawGame>,
        /// Whether the batch ends with them.
        ends_batch: bool,
    },
    /// Reading the file stopped early (a broken compressed stream, an I/O error), after the
    /// games handed on.
    Stopped(InputError),
}

/// Splits the PGN bytes of `file` into chunks of up to `chunk_games` raw games (which must
/// divide [`BATCH_GAMES`]), handing each to `send` in file order; stops when `send` says
/// `false`, and then returns `false`. `in_batch` counts the games of the batch under way, read
/// before from earlier files (0 to cut this file's batches alone): a chunk ends where the batch
/// does, and the file's last chunk, where it is not a batch's end, goes on in the next file.
/// Every ingest cuts its batches here, on one machine or many.
pub fn read_chunks(
    file: &std::path::Path,
    reader: impl std::io::Read,
    chunk_games: usize,
    in_batch: &mut usize,
    mut send: impl FnMut(FileChunk) -> bool,
) -> bool {
    debug_assert!(chunk_games > 0 && BATCH_GAMES.is_multiple_of(chunk_games) && *in_batch < BATCH_GAMES);
    let mut games = Vec::with_capacity(chunk_games);
    let mut last_game = 0;
    for raw in GameSplitter::new(reader) {
        match raw {
            Ok(raw) => {
                last_game = raw.number;
                games.push(raw);
                *in_batch += 1;
            }
            Err(source) => {
                let error = InputError::Stopped { path: file.to_owned(), after_game: last_game, source };
                let games = std::mem::take(&mut games);
                return (games.is_empty() || send(FileChunk::Games { games, ends_batch: false }))
                    && send(FileChunk::Stopped(error));
            }
        }
        let ends_batch = *in_batch == BATCH_GAMES;
        if games.len() == chunk_games || ends_batch {
            if ends_batch {
                *in_batch = 0;
            }
            let full = std::mem::replace(&mut games, Vec::with_capacity(chunk_games));
            if !send(FileChunk::Games { games: full, ends_batch }) {
                return false;
            }
        }
    }
    games.is_empty() || send(FileChunk::Games { games, ends_batch: false })
}

fn now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Commits the staged positions with `totals` (see [`Writer::commit`]), then records
/// the run's counts so far. Distinct counts the commit leaves unknown are counted by
/// [`finish_run`].
fn commit(store: &Writer, staging: &mut Staging, totals: &mut Totals, run: &RunRecord) -> Result<(), StoreError> {
    if staging.is_empty() {
        return Ok(());
    }
    let clock = Instant::now();
    store.commit(staging, totals)?;
    record_commit(store, totals, run, clock)
}

/// Records the run's counts after a commit (started at `clock`) of the games up to `totals`.
fn record_commit(store: &Writer, totals: &Totals, run: &RunRecord, clock: Instant) -> Result<(), StoreError> {
    tracing::info!(elapsed = ?clock.elapsed(), games = totals.games, "committed");
    let mut batch = store.batch();
    batch.put_run(run);
    batch.commit()?;
    // Without it a kill before the run's end would lose the counts of what was committed.
    store.flush()
}

/// Cleans up after a run that an error stopped (a full disk, say), as far as it can: removes
/// its staging area and the games it wrote without committing them, and records it as failed.
/// What cannot be done now (the disk may still be full) the next writer does: it removes the
/// games and the staging area, and marks a run left `Running` interrupted.
fn fail_run(store: &Writer, staging: Option<Staging>, run: &mut RunRecord, err: &dyn std::fmt::Display) {
    tracing::info!("the run failed ({err}): removing what it did not commit");
    let _ = staging.map(Staging::remove);
    let _ = store.discard_uncommitted();
    // The counts of what was committed (recorded at each commit), not of what was removed.
    let recorded = store.store().runs().ok().and_then(|runs| runs.into_iter().find(|recorded| recorded.id == run.id));
    run.counts = recorded.map(|recorded| recorded.counts).unwrap_or_default();
    run.status = RunStatus::Failed;
    run.finished = Some(now());
    let mut batch = store.batch();
    batch.put_run(run);
    if batch.commit().and_then(|()| store.flush()).is_err() {
        tracing::warn!("the failed run could not be recorded: the next ingest marks it interrupted");
    }
}

/// Removes what a killed run wrote without committing it, marks runs left `Running` by a dead
/// process as interrupted and records a new run.
///
/// A run killed between a commit and the record of its counts committed games its record does
/// not count: the committed games no other run accounts for are its own, so its record is
/// given them as indexed.
fn start_run(store: &Writer, files: &[PathBuf]) -> Result<RunRecord, StoreError> {
    let discarded = store.discard_uncommitted()?;
    if discarded > 0 {
        tracing::info!(games = discarded, "removed the uncommitted games of an interrupted run");
    }
    let runs = store.store().runs()?;
    let mut stale: Vec<RunRecord> = runs.iter().filter(|r| r.status == RunStatus::Running).cloned().collect();
    // The latest stale run is the one whose commit may have outrun its record.
    if let Some(latest) = stale.last_mut() {
        let committed = store.store().totals()?.games;
        let others: u64 = runs.iter().filter(|r| r.id != latest.id).map(|r| r.counts.indexed).sum();
        latest.counts.indexed = latest.counts.indexed.max(committed.saturating_sub(others));
    }
    let mut batch = store.batch();
    for mut stale in stale {
        stale.status = RunStatus::Interrupted;
        batch.put_run(&stale);
    }
    let run = RunRecord {
        id: runs.last().map_or(1, |r| r.id + 1),
        started: now(),
        finished: None,
        status: RunStatus::Running,
        inputs: files.iter().map(|f| f.display().to_string()).collect(),
        counts: RunCounts::default(),
    };
    batch.put_run(&run);
    batch.commit()?;
    // On disk before the first byte is staged: a run killed at once is still accounted for
    // (the next writer marks it interrupted).
    store.flush()?;
    tracing::info!(run = run.id, "run started");
    Ok(run)
}

/// Flushes, compacts, counts distinct positions (unless the commit counted them) and records
/// the run as completed.
fn finish_run(store: &Writer, totals: &mut Totals, run: &mut RunRecord) -> Result<(), StoreError> {
    let clock = Instant::now();
    store.flush()?;
    tracing::info!(elapsed = ?clock.elapsed(), "flushed");
    // Counted and recorded before the compaction, which changes no count: a kill during it
    // leaves the counts known (they stayed unknown until the next ingest).
    if totals.distinct_positions.is_none() || totals.single_game_positions.is_none() {
        let counts = store.store().snapshot().positions().count()?;
        totals.distinct_positions = Some(counts.distinct);
        totals.single_game_positions = Some(counts.single_game);
        tracing::info!(elapsed = ?clock.elapsed(), ?counts, "counted positions");
        let mut batch = store.batch();
        batch.put_totals(totals);
        batch.commit()?;
        store.flush()?;
    }
    store.compact();
    tracing::info!(elapsed = ?clock.elapsed(), "compacted");
    run.status = RunStatus::Completed;
    run.finished = Some(now());
    let mut batch = store.batch();
    batch.put_totals(totals);
    batch.put_run(run);
    batch.commit()?;
    store.flush()?;
    Ok(())
}

/// An observer that ignores everything (for embedding and tests).
pub struct SilentObserver;

impl Observer for SilentObserver {
    fn rejected(&mut self, _file: &str, _rejection: &Rejection, _raw: &[u8]) {}
    fn read_error(&mut self, _file: &str, _error: &InputError) {}
    fn progress(&mut self, _progress: &Progress) {}
}
