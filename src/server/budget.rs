//! The server's budget for whole-database scans (`/pattern`, `/games?pattern=`,
//! `/report/database`): a few at once, on a thread pool of their own, each within a time limit,
//! and a bounded queue; beyond it a request is answered 503 with `Retry-After` at once.
//!
//! Explorer lookups and the other requests never wait behind scans: they run on the runtime's
//! threads or the blocking pool, and what they parallelise runs on the global thread pool, which
//! the scans do not use (a scan's thousands of tasks would be ahead of theirs in its queues).

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use super::params::ApiError;
use crate::store::ScanProgress;

/// How many scans, how long.
#[derive(Clone, Debug)]
pub struct ScanLimits {
    /// Scans running at once.
    pub concurrent: usize,
    /// Scans waiting for one of those places; more are refused (503).
    pub queued: usize,
    /// Longest a scan may take, its wait in the queue included; then it is stopped (503).
    pub timeout: Duration,
}

impl Default for ScanLimits {
    fn default() -> ScanLimits {
        ScanLimits { concurrent: 2, queued: 8, timeout: Duration::from_secs(60) }
    }
}

/// Seconds a client refused for a full queue is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// The places and the thread pool of the scans.
pub struct ScanBudget {
    limits: ScanLimits,
    places: Arc<Semaphore>,
    /// Scans running or waiting.
    admitted: AtomicUsize,
    pool: rayon::ThreadPool,
}

impl ScanBudget {
    /// A budget of `limits`, with a scan pool of a thread per core.
    pub fn new(limits: ScanLimits) -> std::io::Result<ScanBudget> {
        let pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|index| format!("tabiya-scan-{index}"))
            .build()
            .map_err(std::io::Error::other)?;
        let places = Arc::new(Semaphore::new(limits.concurrent.max(1)));
        Ok(ScanBudget { limits, places, admitted: AtomicUsize::new(0), pool })
    }

    /// Runs the scan `work` within the budget: refused at once when the queue is full, stopped
    /// (through its [`ScanProgress`]) when it takes longer than the time limit, or when the
    /// request is dropped (the client went away). Work that cannot stop early keeps its place
    /// until it ends, so the places bound the work under way, answered or not.
    pub async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&ScanProgress) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let limit = self.limits.concurrent.max(1) + self.limits.queued;
        if self.admitted.fetch_add(1, Ordering::AcqRel) >= limit {
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return Err(busy(format!("{limit} scans are running or waiting already: try again later")));
        }
        let _admitted = Admitted(&self.admitted);
        let timeout = self.limits.timeout;
        let deadline = tokio::time::Instant::now() + timeout;
        let too_long = || busy(format!("the scan took longer than this server allows ({} s)", timeout.as_secs_f64()));
        let place = match tokio::time::timeout_at(deadline, Arc::clone(&self.places).acquire_owned()).await {
            Ok(Ok(place)) => place,
            Ok(Err(_)) => return Err(ApiError::internal("the scan places are closed")),
            Err(_) => return Err(too_long()),
        };
        let progress = Arc::new(ScanProgress::default());
        let stop = StopOnDrop(Arc::clone(&progress));
        let budget = Arc::clone(self);
        let task = tokio::task::spawn_blocking(move || {
            let _place = place;
            budget.pool.install(|| work(&progress))
        });
        let answer = match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(ApiError::internal("a scan failed")),
            Err(_) => Err(too_long()),
        };
        drop(stop);
        answer
    }
}

/// A 503 saying why, answered with `Retry-After`.
fn busy(message: String) -> ApiError {
    ApiError(StatusCode::SERVICE_UNAVAILABLE, message)
}

/// Counts a scan out of the admitted ones when its request ends.
struct Admitted<'a>(&'a AtomicUsize);

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Asks a scan to stop when dropped: held by a request's future, so a client that goes away,
/// or a scan past its time, stops at the scan's next progress check.
struct StopOnDrop(Arc<ScanProgress>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Relaxed);
    }
}
