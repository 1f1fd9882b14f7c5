//! The server's budget for whole-database scans (`/pattern`, `/games?pattern=`,
//! `/report/database`): a few at once, each on a thread pool of its own, within a time limit,
//! and a bounded queue; beyond it a request is answered 503 with `Retry-After` at once, and so
//! is a scan while others run and the server's resident memory is above its budget (`--memory`).
//!
//! Explorer lookups and the other requests never wait behind scans: they run on the runtime's
//! threads or the blocking pool, and what they parallelise runs on the global thread pool, which
//! the scans do not use (a scan's thousands of tasks would be ahead of theirs in its queues).

use std::{
    sync::{
        Arc, Mutex,
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
    /// Resident bytes above which a scan is refused at once (503) while other scans run: the
    /// memory budget. Lookups are never refused for memory.
    pub resident: Option<u64>,
}

impl Default for ScanLimits {
    fn default() -> ScanLimits {
        ScanLimits {
            concurrent: 2,
            queued: 8,
            timeout: Duration::from_secs(60),
            resident: crate::store::memory_budget(),
        }
    }
}

/// Seconds a client refused for a full queue is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// The places of the scans, each with its thread pool.
pub struct ScanBudget {
    limits: ScanLimits,
    places: Arc<Semaphore>,
    /// Scans running or waiting.
    admitted: AtomicUsize,
    /// A thread pool a place, taken by the scan that holds the place. Not one pool for all: a
    /// worker waiting inside its scan's parallel work would start another scan queued on its
    /// pool, on top of the first, which could then wait for a lock the first holds.
    pools: Arc<Mutex<Vec<rayon::ThreadPool>>>,
}

impl ScanBudget {
    /// A budget of `limits`, with a pool for each place of as many threads as the global pool
    /// (one a core, or `--threads`).
    pub fn new(limits: ScanLimits) -> std::io::Result<ScanBudget> {
        let places = limits.concurrent.max(1);
        let pools = (0..places)
            .map(|place| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(rayon::current_num_threads())
                    .thread_name(move |index| format!("tabiya-scan-{place}-{index}"))
                    .build()
                    .map_err(std::io::Error::other)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let places = Arc::new(Semaphore::new(places));
        Ok(ScanBudget { limits, places, admitted: AtomicUsize::new(0), pools: Arc::new(Mutex::new(pools)) })
    }

    /// Runs the scan `work` within the budget: refused at once when the queue is full, stopped
    /// (through its [`ScanProgress`]) when it takes longer than the time limit, or when the
    /// request is dropped (the client went away). Work that cannot stop early keeps its place
    /// until it ends, so the places bound the work under way, answered or not.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&ScanProgress) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let limit = self.limits.concurrent.max(1) + self.limits.queued;
        if self.admitted.fetch_add(1, Ordering::AcqRel) >= limit {
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return Err(busy(format!("{limit} scans are running or waiting already: try again later")));
        }
        let _admitted = Admitted(&self.admitted);
        self.within_memory(self.running())?;
        let timeout = self.limits.timeout;
        let deadline = tokio::time::Instant::now() + timeout;
        let too_long = || busy(format!("the scan took longer than this server allows ({} s)", timeout.as_secs_f64()));
        let place = match tokio::time::timeout_at(deadline, Arc::clone(&self.places).acquire_owned()).await {
            Ok(Ok(place)) => place,
            Ok(Err(_)) => return Err(ApiError::internal("the scan places are closed")),
            Err(_) => return Err(too_long()),
        };
        // The others may have grown while this one waited.
        self.within_memory(self.running().saturating_sub(1))?;
        let progress = Arc::new(ScanProgress::default());
        let stop = StopOnDrop(Arc::clone(&progress));
        let pools = Arc::clone(&self.pools);
        let task = tokio::task::spawn_blocking(move || {
            let _place = place;
            let lock = || pools.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            // A place held means a pool free: there are as many pools as places.
            let pool = lock().pop().ok_or_else(|| ApiError::internal("no scan pool for a place"))?;
            let answer = pool.install(|| work(&progress));
            lock().push(pool);
            answer
        });
        let answer = match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(ApiError::internal("a scan failed")),
            Err(_) => Err(too_long()),
        };
        drop(stop);
        answer
    }

    /// Scans holding a place.
    fn running(&self) -> usize {
        self.limits.concurrent.max(1).saturating_sub(self.places.available_permits())
    }

    /// Refuses a scan while `running` others run and the process holds more than its budget:
    /// they hold the memory, and will give it back. With none running, what is resident is
    /// what the server holds whatever it does (the stored games' facts and the tier's index,
    /// which grow with the database): refusing would not lower it.
    fn within_memory(&self, running: usize) -> Result<(), ApiError> {
        let Some(limit) = self.limits.resident.filter(|_| running > 0) else { return Ok(()) };
        match resident_bytes().filter(|&resident| resident > limit) {
            Some(resident) => Err(busy(format!(
                "the server holds {} MiB, above its memory budget of {} MiB, with {running} other scans running: try again later",
                resident >> 20,
                limit >> 20
            ))),
            None => Ok(()),
        }
    }
}

/// The process's resident memory in bytes (Linux's `/proc/self/statm`), if it can be read.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    pages.checked_mul(page)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A scan is refused (503, saying why) while another runs and the process holds more than
    /// the budget; alone, or under a budget it is within, or without one, it runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scan_is_refused_while_others_run_above_the_budget() {
        let resident = resident_bytes().expect("the resident memory reads");
        assert!(resident > 1 << 20, "{resident} bytes resident");
        let limits = |resident| ScanLimits { concurrent: 2, queued: 2, timeout: Duration::from_secs(60), resident };
        let over = Arc::new(ScanBudget::new(limits(Some(resident / 2))).unwrap());
        let (started, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
        let (started_tx, release_rx) = (started.0, release.1);
        let holding = Arc::clone(&over);
        let first = tokio::spawn(async move {
            holding
                .run(move |_| {
                    started_tx.send(()).ok();
                    release_rx.recv().ok();
                    Ok(1)
                })
                .await
        });
        tokio::task::spawn_blocking(move || started.1.recv()).await.unwrap().unwrap();
        let refused = over.run(|_| Ok(2)).await.unwrap_err();
        assert_eq!(refused.0, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            refused.1.contains("above its memory budget") && refused.1.contains("1 other scans running"),
            "{}",
            refused.1
        );
        release.0.send(()).unwrap();
        assert_eq!(first.await.unwrap().unwrap(), 1);
        assert_eq!(over.run(|_| Ok(3)).await.unwrap(), 3, "alone, a scan runs");
        for budget in [Some(u64::MAX), None] {
            let budget = ScanBudget::new(limits(budget)).unwrap();
            assert_eq!(budget.run(|_| Ok(4)).await.unwrap(), 4);
        }
    }
}
