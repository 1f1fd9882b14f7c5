//! Scans spread over processes or machines: a [`DistributedScan`] is split into numbered parts
//! (the same list for the same database and query), tasks each compute the partial answer of
//! some parts ([`DistributedScan::partial`], shipped as bytes: [`to_bytes`], [`from_bytes`]),
//! and one process merges them all into the answer ([`DistributedScan::answer`]). A scan in
//! one process is the same three steps ([`run_whole`]), so that the answers cannot differ.
//!
//! Implemented by the pattern search ([`PatternQuery`](super::PatternQuery)), the piece-square
//! statistics ([`DeriveOptions`](super::psqt::DeriveOptions)) and the database report
//! ([`DatabaseOptions`](crate::report::database::DatabaseOptions)); the command line runs them
//! whole, Python and Spark spread them (`tabiya.spark`).

use std::time::Instant;

use bincode::{Decode, Encode};

use super::QueryError;
use crate::store::{ScanProgress, Snapshot, Store};

/// A scan split into numbered parts, each computed apart and merged at the end.
pub trait DistributedScan {
    /// What some parts hold: it ships between processes as bytes.
    type Partial: Encode + Decode<()>;
    /// The scan's answer.
    type Answer;

    /// Whether the query can be answered (checked before any part is scanned).
    fn check(&self) -> Result<(), QueryError> {
        Ok(())
    }

    /// The number of parts, the same for the same database and query.
    fn part_count(&self, view: &Snapshot) -> Result<usize, QueryError>;

    /// What the parts numbered `numbers` (each below [`DistributedScan::part_count`], a part
    /// named twice counted once) hold; `progress` counts and stops the scan.
    fn partial(&self, view: &Snapshot, numbers: &[usize], progress: &ScanProgress)
    -> Result<Self::Partial, QueryError>;

    /// The answer from the partial answers of every part, each part's once, reading from
    /// `view` what the answer lists (the parts may have been computed elsewhere); `started` is
    /// when the scan started.
    fn answer(
        &self,
        view: &Snapshot,
        partials: Vec<Self::Partial>,
        started: Instant,
    ) -> Result<Self::Answer, QueryError>;
}

/// Runs `scan` whole in this process: every part on every core, then the answer, all from
/// one scan snapshot.
pub fn run_whole<S: DistributedScan>(
    scan: &S,
    store: &Store,
    progress: &ScanProgress,
) -> Result<S::Answer, QueryError> {
    run_on(scan, &store.scan_snapshot(), progress)
}

/// Runs `scan` whole on `view` (a query that reads more from the same snapshot).
pub fn run_on<S: DistributedScan>(scan: &S, view: &Snapshot, progress: &ScanProgress) -> Result<S::Answer, QueryError> {
    scan.check()?;
    let started = Instant::now();
    let all: Vec<usize> = (0..scan.part_count(view)?).collect();
    let partial = scan.partial(view, &all, progress)?;
    scan.answer(view, vec![partial], started)
}

/// The items of `all` numbered `numbers`, each once, in order: a task's share of a scan.
pub fn chosen<T: Clone>(all: &[T], numbers: &[usize]) -> Result<Vec<T>, QueryError> {
    let mut numbers = numbers.to_vec();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
        .iter()
        .map(|&number| {
            all.get(number).cloned().ok_or_else(|| QueryError::input(format!("no part {number} of {}", all.len())))
        })
        .collect()
}

/// A partial answer's bytes: bincode, zstd-compressed (its game sets are mostly runs of equal
/// words).
pub fn to_bytes<P: Encode>(partial: &P) -> Vec<u8> {
    let plain = bincode::encode_to_vec(partial, bincode::config::standard()).unwrap_or_default();
    zstd::bulk::compress(&plain, 1).unwrap_or_default()
}

/// The partial answer [`to_bytes`] wrote; `None` for other bytes (or bytes left over).
pub fn from_bytes<P: Decode<()>>(bytes: &[u8]) -> Option<P> {
    let plain = zstd::stream::decode_all(bytes).ok()?;
    let (value, read) = bincode::decode_from_slice(&plain, bincode::config::standard()).ok()?;
    (read == plain.len()).then_some(value)
}
