//! The stages of a distributed build (`tabiya::indexer::distributed`) for a Python scheduler
//! (`tabiya.spark`): the inputs expanded and read into batches, each batch prepared, its
//! occurrences and fingerprints cut into parts, the key ranges written, the games written, and
//! the assembly that commits them. Everything crosses as bytes, a few Python objects a batch or
//! a task, never one per game or position.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Mutex, mpsc},
};

use pyo3::{
    prelude::*,
    pybacked::PyBackedBytes,
    types::{PyBytes, PyDict, PyList, PyTuple},
};
use tabiya::{
    Key,
    codec::KEY_LEN,
    indexer::distributed::{self, BatchIds, Fetched, PreparedBatch, ReadCounts, decode_raw_games, encode_raw_games},
    input::RawGame,
    model::GameId,
    render::json::IngestSummary,
    store::Store,
};

use crate::{call, database::Database, errors::Error, values::to_python};

/// What a batch reader hands on: a piece's raw games as bytes and their count, or why reading
/// stopped.
type BatchItem = Result<(Vec<u8>, usize), String>;

/// read_batches(path, content=None, copy=None) -> iterator of ("games", bytes, count) and
/// ("error", message): the pieces of one PGN file (plain, .zst, .bz2 or .gz), BATCH_GAMES games
/// each (fewer at its end or before a read error), which batch_plan cuts into a build's
/// batches; an error, if any, comes last, after the games read before it. A file
/// fetched from a cluster's file system is read from its bytes (`content`) or from a local
/// copy (`copy`), `path` (its URL) naming it.
#[pyclass(module = "tabiya._native")]
pub struct BatchReader {
    items: Mutex<mpsc::Receiver<BatchItem>>,
}

#[pyfunction]
#[pyo3(signature = (path, content = None, copy = None))]
pub fn read_batches(path: PathBuf, content: Option<PyBackedBytes>, copy: Option<PathBuf>) -> BatchReader {
    // Two threads, one batch ahead each: one reads and splits, one encodes and compresses the
    // batch before, while the caller ships the one before that.
    let (games_tx, games_rx) = mpsc::sync_channel::<Result<Vec<RawGame>, String>>(1);
    let (tx, rx) = mpsc::sync_channel::<BatchItem>(1);
    let path_name = path.display().to_string();
    let reader = std::thread::spawn(move || {
        let send = |item: Result<Vec<_>, _>| games_tx.send(item.map_err(|err| crate::errors::message(&err))).is_ok();
        // A fetched file's bytes are Python's own, read in place (up to 2 GB).
        match (content, copy) {
            (Some(bytes), _) => {
                distributed::read_fetched_batches(&path, Fetched::Bytes(Box::new(std::io::Cursor::new(bytes))), send)
            }
            (None, Some(copy)) => distributed::read_fetched_batches(&path, Fetched::Copy(copy), send),
            (None, None) => distributed::read_batches(&path, send),
        }
    });
    std::thread::spawn(move || {
        for item in games_rx {
            let item = item.and_then(|games| {
                encode_raw_games(&games)
                    .map(|bytes| (bytes, games.len()))
                    .map_err(|err| format!("cannot compress a batch of games: {err}"))
            });
            // An error comes last: the batches after it are not read.
            let stop = item.is_err();
            if tx.send(item).is_err() || stop {
                return;
            }
        }
        // The reader gone without an error: the file's end, unless it panicked (a decoder's
        // bug), which must not pass for the end of the file.
        if reader.join().is_err() {
            let _ = tx.send(Err(format!("the thread reading {path_name} stopped")));
        }
    });
    BatchReader { items: Mutex::new(rx) }
}

#[pymethods]
impl BatchReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyTuple>>> {
        let item = py.detach(|| self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv());
        Ok(match item {
            Ok(Ok((bytes, count))) => Some(("games", PyBytes::new(py, &bytes), count).into_pyobject(py)?.unbind()),
            Ok(Err(message)) => Some(("error", message).into_pyobject(py)?.unbind()),
            Err(_) => None,
        })
    }
}

/// batch_plan(piece_games) -> [[(piece, start, end)]]: the batches a single-machine ingest
/// cuts from pieces (read_batches, in input order, errors left out) of these many games, each
/// as slices of the pieces it takes: games start..end of piece number piece.
#[pyfunction]
pub fn batch_plan(piece_games: Vec<usize>) -> Vec<Vec<(usize, usize, usize)>> {
    distributed::batch_plan(&piece_games)
        .into_iter()
        .map(|batch| batch.into_iter().map(|slice| (slice.piece, slice.games.start, slice.games.end)).collect())
        .collect()
}

/// prepare_batch(slices, occurrences, database=None, skip_twins=None) -> dict: parses, replays
/// and keys one batch of batch_plan, its slices given as (bytes of a piece from read_batches,
/// start, end, the input file the piece is of, which names the games it rejects), and writes
/// its position occurrences as the file `occurrences` (for RangeWriter.add); with `database` (a
/// Database), games stored there are duplicates. The dict: games_read, duplicates, skipped
/// ({reason: count}), rejected ([(file, number, line, reason, detail)]), fingerprints (16 bytes
/// a kept game), facts (8 bytes a kept game, for kept_facts), games (bytes for
/// write_batch_games), occurrence_count (for range_count), bounds (21-byte keys, candidate
/// range bounds, for commit_pivots; empty with skip_twins); with `skip_twins` (the
/// fewest plies of a prefix twin, as `tabiya ingest --skip-twins --min-prefix`), twins (its kept
/// games as candidates for twin_parts, each saying whether `database` stores a twin of it) and
/// bound_games (the bounds with the games reaching them, for kept_bound_keys).
#[pyfunction]
#[pyo3(signature = (slices, occurrences, database = None, skip_twins = None))]
pub fn prepare_batch(
    py: Python<'_>,
    slices: Vec<(PyBackedBytes, usize, usize, String)>,
    occurrences: PathBuf,
    database: Option<&Database>,
    skip_twins: Option<usize>,
) -> PyResult<Py<PyDict>> {
    struct Out {
        batch: PreparedBatch,
        fingerprints: Vec<u8>,
        facts: Vec<u8>,
        games: Vec<u8>,
        bounds: Vec<u8>,
        twins: Option<(Vec<u8>, Vec<u8>)>,
    }
    // The file of each game, by where its slice ends in the batch.
    let mut ends: Vec<(usize, &str)> = Vec::with_capacity(slices.len());
    let out = call(py, || {
        let mut games = Vec::new();
        for (bytes, start, end, file) in &slices {
            let piece =
                decode_raw_games(bytes).ok_or_else(|| Error::input("not a piece of raw games (read_batches)"))?;
            let slice = piece.get(*start..*end).ok_or_else(|| {
                Error::input(format!("games {start}..{end} of a piece of {} games of {file}", piece.len()))
            })?;
            games.extend_from_slice(slice);
            ends.push((games.len(), file.as_str()));
        }
        let store = database.map(Database::store).transpose()?;
        let view = store.as_ref().map(|store| store.snapshot());
        let stored =
            |fingerprint: &_| view.as_ref().is_some_and(|view| view.games().is_stored(fingerprint).unwrap_or(false));
        let batch = PreparedBatch::prepare(games, stored);
        batch
            .write_occurrences(&occurrences)
            .map_err(|err| Error::Other(format!("cannot write the occurrences file {err}")))?;
        let under_twin_key = |twin| view.as_ref().map_or(Ok(Vec::new()), |view| view.games().under_twin_key(twin));
        let twins = skip_twins
            .map(|min_prefix| Ok::<_, Error>((batch.twin_candidates(min_prefix, under_twin_key)?, batch.bound_games())))
            .transpose()?;
        Ok(Out {
            twins,
            fingerprints: batch.fingerprints().flat_map(|fingerprint| fingerprint.0).collect(),
            facts: batch.facts_bytes(),
            games: batch.games_bytes(),
            // Skipping twins, the sample is taken once they are known (bound_games).
            bounds: match skip_twins {
                None => batch.bound_keys().iter().flat_map(|key| *key.as_bytes()).collect(),
                Some(_) => Vec::new(),
            },
            batch,
        })
    })?;
    let dict = PyDict::new(py);
    dict.set_item("games_read", out.batch.games_read)?;
    dict.set_item("duplicates", out.batch.duplicates)?;
    dict.set_item("occurrence_count", out.batch.occurrence_count())?;
    let skipped = PyDict::new(py);
    let rejected = PyList::empty(py);
    for (at, rejection, _) in &out.batch.rejected {
        let reason = rejection.reason.name();
        let count: u64 = skipped.get_item(reason)?.map(|n| n.extract()).transpose()?.unwrap_or(0);
        skipped.set_item(reason, count + 1)?;
        let file = ends.iter().find(|(end, _)| at < end).map_or("", |(_, file)| file);
        rejected.append((file, rejection.game, rejection.line, reason, &rejection.detail))?;
    }
    dict.set_item("skipped", skipped)?;
    dict.set_item("rejected", rejected)?;
    for (name, bytes) in
        [("fingerprints", &out.fingerprints), ("facts", &out.facts), ("games", &out.games), ("bounds", &out.bounds)]
    {
        dict.set_item(name, PyBytes::new(py, bytes))?;
    }
    if let Some((twins, bound_games)) = &out.twins {
        dict.set_item("twins", PyBytes::new(py, twins))?;
        dict.set_item("bound_games", PyBytes::new(py, bound_games))?;
    }
    Ok(dict.unbind())
}

/// Keys from concatenated keys of [`KEY_LEN`] bytes.
fn keys(bytes: &[u8]) -> Result<Vec<Key>, Error> {
    if !bytes.len().is_multiple_of(KEY_LEN) {
        return Err(Error::input(format!("keys: not a multiple of {KEY_LEN} bytes")));
    }
    Ok(bytes.chunks_exact(KEY_LEN).map(|key| Key::from_bytes(key.try_into().unwrap_or([0; KEY_LEN]))).collect())
}

/// fingerprint_parts(fingerprints, order, parts) -> [(part, bytes)]: a batch's fingerprints
/// (prepare_batch's) cut by fingerprint into `parts` parts, the batch named by its place in
/// input order, for the shuffle that finds duplicates across batches (later_twins).
#[pyfunction]
pub fn fingerprint_parts(py: Python<'_>, fingerprints: &[u8], order: u64, parts: usize) -> PyResult<Py<PyList>> {
    let cut = distributed::fingerprint_parts(fingerprints, order, parts)
        .ok_or_else(|| Error::input("not whole fingerprints, or no parts").into_py_err(py))?;
    parts_list(py, cut)
}

/// twin_parts(twins, order, parts) -> [(part, bytes)]: a batch's twin candidates
/// (prepare_batch's `twins`, with skip_twins) cut into `parts` parts, the batch named by its place
/// in input order, for the shuffle that finds duplicates and twins across batches
/// (skipped_twins).
#[pyfunction]
pub fn twin_parts(py: Python<'_>, twins: &[u8], order: u64, parts: usize) -> PyResult<Py<PyList>> {
    let cut = call(py, || {
        distributed::twin_parts(twins, order, parts).ok_or_else(|| Error::input("not twin candidates, or no parts"))
    })?;
    parts_list(py, cut)
}

/// A game by its batch's place in input order and its number in the batch.
type BatchGame = (u64, u32);

/// skipped_twins(records, min_prefix) -> (duplicates, twins), each [(order, number)]: of one
/// part's twin candidates (twin_parts'), the games an ingest that skips twins drops, decided
/// in input order.
#[pyfunction]
pub fn skipped_twins(
    py: Python<'_>,
    records: Vec<Vec<u8>>,
    min_prefix: usize,
) -> PyResult<(Vec<BatchGame>, Vec<BatchGame>)> {
    call(py, || {
        let records: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        let skipped = distributed::skipped_twins(&records, min_prefix)
            .ok_or_else(|| Error::input("not twin candidates (twin_parts)"))?;
        Ok((skipped.duplicates, skipped.twins))
    })
}

/// kept_bound_keys(bound_games, dropped) -> bytes: the keys of a batch's bound_games
/// (prepare_batch's, with skip_twins) that a game not dropped (numbers in the batch, ascending)
/// reaches, 21 bytes each: the batch's sample for commit_pivots once its twins are known.
#[pyfunction]
pub fn kept_bound_keys(py: Python<'_>, bound_games: &[u8], dropped: Vec<u32>) -> PyResult<Py<PyBytes>> {
    let keys = call(py, || {
        distributed::kept_bound_keys(bound_games, &dropped)
            .ok_or_else(|| Error::input("not bound games (prepare_batch)"))
    })?;
    Ok(PyBytes::new(py, &keys.iter().flat_map(|key| *key.as_bytes()).collect::<Vec<u8>>()).unbind())
}

/// later_twins(records) -> [(order, number)]: of one part's fingerprint records, the games
/// with a twin earlier in input order.
#[pyfunction]
pub fn later_twins(py: Python<'_>, records: Vec<Vec<u8>>) -> PyResult<Vec<(u64, u32)>> {
    call(py, || {
        let records: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        distributed::later_twins(&records).ok_or_else(|| Error::input("not fingerprint records (fingerprint_parts)"))
    })
}

/// `(part, bytes)` pairs as a Python list.
fn parts_list(py: Python<'_>, parts: Vec<(usize, Vec<u8>)>) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for (part, bytes) in parts {
        list.append((part, PyBytes::new(py, &bytes)))?;
    }
    Ok(list.unbind())
}

/// A batch's ids from Python: its first id and the numbers of its dropped games (4 bytes each,
/// big-endian, ascending).
fn batch_ids(first: u64, dropped: &[u8]) -> Result<BatchIds, Error> {
    if first == 0 || !dropped.len().is_multiple_of(4) {
        return Err(Error::input("batch ids: a first id from 1 and 4 bytes a dropped game"));
    }
    let dropped: Vec<u32> = dropped.chunks_exact(4).map(|n| u32::from_be_bytes([n[0], n[1], n[2], n[3]])).collect();
    if !dropped.windows(2).all(|pair| pair[0] < pair[1]) {
        return Err(Error::input("batch ids: dropped games out of order or repeated"));
    }
    Ok(BatchIds { first: GameId(first), dropped })
}

/// Batches' bytes from Python, each (first id, dropped, bytes), with their ids ([`batch_ids`]).
fn with_ids(batches: &[(u64, Vec<u8>, Vec<u8>)]) -> Result<Vec<(BatchIds, &[u8])>, Error> {
    batches.iter().map(|(first, dropped, bytes)| Ok((batch_ids(*first, dropped)?, bytes.as_slice()))).collect()
}

/// commit_pivots(sample, ranges=16) -> bytes: the pivots (21-byte keys, ascending) of the
/// `ranges` key ranges (range_count's) of the build's positions, from the batches' candidate
/// bounds (prepare_batch's bounds, concatenated): range i holds the keys from pivot i - 1 up to
/// pivot i. With 16, what a single-machine commit of the same positions cuts.
#[pyfunction]
#[pyo3(signature = (sample, ranges = tabiya::store::COMMIT_RANGES))]
pub fn commit_pivots(py: Python<'_>, sample: &[u8], ranges: usize) -> PyResult<Py<PyBytes>> {
    let sample = keys(sample).map_err(|err| err.into_py_err(py))?;
    let pivots: Vec<u8> = tabiya::store::commit_pivots(sample, ranges).iter().flat_map(|key| *key.as_bytes()).collect();
    Ok(PyBytes::new(py, &pivots).unbind())
}

/// range_count(occurrences, per_range=RANGE_OCCURRENCES) -> int: the key ranges of a build of
/// `occurrences` position occurrences (the sum of prepare_batch's occurrence_count), each
/// holding about `per_range` at most: 16 (a single-machine commit's) for a build of up to 16
/// times that, more beyond.
#[pyfunction]
#[pyo3(signature = (occurrences, per_range = distributed::RANGE_OCCURRENCES))]
pub fn range_count(occurrences: u64, per_range: u64) -> usize {
    distributed::range_count(occurrences, per_range)
}

/// kept_facts(batches) -> bytes: the facts of the build's kept games in id order, from each
/// batch's (first id, dropped, facts) in input order.
#[pyfunction]
pub fn kept_facts(py: Python<'_>, batches: Vec<(u64, Vec<u8>, Vec<u8>)>) -> PyResult<Py<PyBytes>> {
    let facts = call(py, || {
        let batches = with_ids(&batches)?;
        distributed::kept_facts(batches.iter().map(|(ids, facts)| (ids, *facts)))
            .ok_or_else(|| Error::input("not a batch's facts (prepare_batch)"))
    })?;
    Ok(PyBytes::new(py, &facts).unbind())
}

/// RangeWriter(dir, run_bytes=RUN_BYTES): writes one key range of the build into the directory
/// `dir` (the task attempt's own): add() each batch's part of the range (any order), then
/// finish(). The parts are held in memory as they came (each sorted already) and merged into a
/// run spilled to a file past `run_bytes` held, so the writer holds a bounded part of its
/// range, not all of it.
#[pyclass(module = "tabiya._native")]
pub struct RangeWriter {
    /// `None` once finished.
    writer: Mutex<Option<distributed::RangeWriter>>,
}

#[pymethods]
impl RangeWriter {
    #[new]
    #[pyo3(signature = (dir, run_bytes = distributed::RUN_BYTES))]
    fn new(dir: PathBuf, run_bytes: usize) -> RangeWriter {
        let writer = distributed::RangeWriter::new(&dir).with_run_bytes(run_bytes);
        RangeWriter { writer: Mutex::new(Some(writer)) }
    }

    /// add(first, dropped, occurrences, pivots, index) -> bool: adds one batch's part of
    /// range `index` of the commit cut at `pivots` (commit_pivots'), read from the batch's
    /// occurrences file (prepare_batch's), its games numbered from `first` but for the games
    /// `dropped` (4-byte big-endian numbers in the batch, ascending). Returns whether the batch
    /// has occurrences in the range.
    fn add(
        &self,
        py: Python<'_>,
        first: u64,
        dropped: Vec<u8>,
        occurrences: PathBuf,
        pivots: &[u8],
        index: usize,
    ) -> PyResult<bool> {
        let pivots = keys(pivots).map_err(|err| err.into_py_err(py))?;
        call(py, || {
            let ids = batch_ids(first, &dropped)?;
            let mut writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let writer = writer.as_mut().ok_or_else(|| Error::input("the range is written already"))?;
            Ok(writer.add_file(&ids, &occurrences, &pivots, index)?)
        })
    }

    /// finish(database, pivots, index, facts, end) -> str: writes range `index` of the commit
    /// cut at `pivots` (commit_pivots') from every part added: its positions' SST files and tier
    /// records, summed with those `database` (the database built into, read-only) stores.
    /// `facts` are kept_facts', `end` the id after the build's last game. Returns the path of
    /// the range's record, for Assembly.finish.
    fn finish(
        &self,
        py: Python<'_>,
        database: &Database,
        pivots: &[u8],
        index: usize,
        facts: &[u8],
        end: u64,
    ) -> PyResult<PathBuf> {
        let pivots = keys(pivots).map_err(|err| err.into_py_err(py))?;
        call(py, || {
            let writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let writer = writer.ok_or_else(|| Error::input("the range is written already"))?;
            let store = database.store()?;
            Ok(writer.finish(&store, (&pivots, index), facts, GameId(end))?)
        })
    }
}

/// write_batch_games(database, dir, first, dropped, games) -> str: writes one batch's kept
/// games (prepare_batch's games) under their ids (from `first`, but for the games `dropped`)
/// into the directory `dir` (the task attempt's own): an SST file of each of the games'
/// families, and their record. `database` is the database built into (read-only). Returns
/// the path of the record, for Assembly.add_written.
#[pyfunction]
pub fn write_batch_games(
    py: Python<'_>,
    database: &Database,
    dir: PathBuf,
    first: u64,
    dropped: Vec<u8>,
    games: &[u8],
) -> PyResult<PathBuf> {
    call(py, || {
        let ids = batch_ids(first, &dropped)?;
        let store = database.store()?;
        Ok(distributed::write_batch_games(&store, &dir, ids, games)?)
    })
}

/// next_game_id(db) -> int: the id the next game stored in the database at `db` gets (1 for a
/// new database).
#[pyfunction]
pub fn next_game_id(py: Python<'_>, db: PathBuf) -> PyResult<u64> {
    call(py, || match db.exists() {
        true => Ok(Store::open_read_only(&db)?.totals()?.next_game_id.max(1)),
        false => Ok(1),
    })
}

/// Assembly(db, inputs): the last step of a distributed build, in one process: add_written
/// with every batch's written games in input order, then finish (or abort). It holds the database open for
/// writing until then.
#[pyclass(module = "tabiya._native")]
pub struct Assembly {
    /// `None` once finished or aborted (the database closed).
    state: Mutex<Option<(Store, distributed::Assembly)>>,
}

#[pymethods]
impl Assembly {
    #[new]
    fn new(py: Python<'_>, db: PathBuf, inputs: Vec<PathBuf>) -> PyResult<Assembly> {
        call(py, || {
            let store = Store::open(&db)?;
            crate::memory::note_opened();
            let state = distributed::Assembly::begin(&store, &inputs)?;
            Ok(Assembly { state: Mutex::new(Some((store, state))) })
        })
    }

    /// Ingests batches' games written apart (write_batch_games' records), in input order.
    fn add_written(&self, py: Python<'_>, records: Vec<PathBuf>) -> PyResult<()> {
        call(py, || {
            let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (store, state) = state.as_mut().ok_or_else(|| Error::input("the assembly is finished"))?;
            Ok(state.add_written(store, &records)?)
        })
    }

    /// Commits the written ranges (RangeWriter.finish's records) with the new totals and records
    /// the run; returns the ingest summary (as the CLI's `ingest --json`).
    fn finish(&self, py: Python<'_>, records: Vec<PathBuf>, counts: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        let count = |name: &str| -> PyResult<u64> {
            counts.get_item(name)?.map(|n| n.extract()).transpose().map(Option::unwrap_or_default)
        };
        let mut read = ReadCounts {
            games_read: count("games_read")?,
            duplicates: count("duplicates")?,
            twins: count("twins")?,
            read_errors: count("read_errors")?,
            skipped: Vec::new(),
        };
        if let Some(skipped) = counts.get_item("skipped")? {
            read.skipped = skipped.extract::<HashMap<String, u64>>()?.into_iter().collect();
        }
        let (summary, path) = call(py, || {
            let state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let (store, state) = state.ok_or_else(|| Error::input("the assembly is finished"))?;
            Ok((state.finish(&store, &records, &read)?, store.path().to_owned()))
        })?;
        to_python(py, &IngestSummary::new(&summary, &path))
    }

    /// Ends a build that failed before finish (`why`: what stopped it): removes the games
    /// written and records the run as failed, as a failed ingest does; nothing once finished.
    fn abort(&self, py: Python<'_>, why: String) {
        py.detach(|| {
            let state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            if let Some((store, state)) = state {
                state.abort(&store, &why);
            }
        })
    }
}

/// expand_inputs(paths) -> [str]: the PGN files `paths` name, in the order an ingest reads them
/// (directories searched recursively, sorted); a path that does not exist is an error.
#[pyfunction]
pub fn expand_inputs(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
    call(py, || {
        let expansion = tabiya::input::expand(&paths, tabiya::input::Wanted::Pgn)?;
        for line in expansion.passed_over_lines() {
            eprintln!("tabiya: {line}");
        }
        Ok(expansion.files.iter().map(|file| file.display().to_string()).collect())
    })
}

/// is_pgn_name(name) -> bool: whether a directory's file of this name is a PGN collection that
/// `tabiya ingest` reads (.pgn, optionally .zst, .bz2 or .gz).
#[pyfunction]
pub fn is_pgn_name(name: &str) -> bool {
    tabiya::input::is_pgn_name(name)
}
