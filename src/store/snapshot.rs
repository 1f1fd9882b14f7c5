//! A read snapshot: the value a query holds while it reads, and the typed views it reads through.
//!
//! A secondary follows its writer by catching up, and a writer's commit moves positions from
//! the single-game tier to the full-key family; either changes what a reader sees. A query
//! reads several things (a position and its games' facts, the family and the tier of a scan),
//! so it reads them from one [`Snapshot`]: while the snapshot lives the view stands still, and
//! it sees the games committed when it was taken, no others.
//!
//! Changes and readers take turns ([`Stillness`]): a change waits for the scan snapshots under
//! way to end while short snapshots go on (a lookup must not wait for a minute-long scan),
//! then for the short snapshots under way, and only then changes the view. New scan snapshots
//! wait while a change waits, so that scans one after another cannot hold it off for ever.

use std::{
    cell::RefCell,
    sync::{
        Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use super::{
    Store, StoreError, Totals,
    read::{Facts, Games, Players, Positions, Scanner, Summaries},
};

/// How long a reader or a change sleeps between two looks at the other side.
const PAUSE: Duration = Duration::from_millis(2);

/// A consistent view of the database for one query: take it with [`Store::snapshot`] (or
/// [`Store::scan_snapshot`]), read through its views, drop it when done.
///
/// ```
/// use tabiya::{Key, Position, indexer, store::{Store, layout::Detail}};
///
/// let dir = tempfile::tempdir()?;
/// let pgn = dir.path().join("games.pgn");
/// std::fs::write(&pgn, "1. e4 e5 1-0\n\n1. e4 c5 0-1\n")?;
/// let store = Store::open(&dir.path().join("db"))?;
/// indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver)?;
///
/// let view = store.snapshot();
/// let after_e4 = Key::encode(&"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -".parse::<Position>()?)?;
/// let stats = view.positions().get(&after_e4, Detail::Head)?.expect("both games reached it");
/// assert_eq!((stats.total.games, stats.total.white, stats.total.black), (2, 1, 1));
/// let games = view.games().get_many(&view.positions().game_ids(&after_e4)?)?;
/// assert_eq!(games.len(), 2);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub struct Snapshot<'s> {
    store: &'s Store,
    /// The committed `next_game_id` it sees.
    committed: u64,
    _held: Held<'s>,
}

impl<'s> Snapshot<'s> {
    pub(super) fn new(store: &'s Store, held: Held<'s>) -> Snapshot<'s> {
        // Read under the hold: a change sets it before it lets snapshots in again.
        Snapshot { store, committed: store.committed(), _held: held }
    }

    /// Positions: their statistics, games and opening names.
    pub fn positions(&self) -> Positions<'_> {
        Positions::at(self.store, self.committed)
    }

    /// Stored games: records, mainlines, twins.
    pub fn games(&self) -> Games<'_> {
        Games::at(self.store, self.committed)
    }

    /// The players index: games by name, spellings.
    pub fn players(&self) -> Players<'_> {
        Players::at(self.store, self.committed)
    }

    /// Each game's facts and header facts, the tables filters are checked from.
    pub fn facts(&self) -> Facts<'_> {
        Facts::at(self.store, self.committed)
    }

    /// Passes over many positions.
    pub fn scanner(&self) -> Scanner<'_> {
        Scanner::at(self.store, self.committed)
    }

    /// Popular positions' games summed by slice, kept in memory between queries.
    pub fn summaries(&self) -> Summaries<'_> {
        Summaries::at(self.store, self.committed)
    }

    /// The totals of the commit it sees.
    pub fn totals(&self) -> Result<Totals, StoreError> {
        self.store.totals()
    }

    /// The error for corrupt data a query found in what it read (a stored move that is not
    /// legal, a game that does not replay): the store remembers it as damage.
    pub fn corrupt(&self, what: impl Into<String>) -> StoreError {
        self.store.corrupt(what)
    }
}

thread_local! {
    /// The stores ([`Stillness`]es, by address) the thread holds snapshots of, once a snapshot:
    /// a second snapshot of a store inside the first takes nothing (the first holds the view
    /// still), so that it cannot wait for a change that waits for the first. A snapshot of
    /// another store takes that store's locks.
    static HELD: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// What a snapshot holds: the view's read lock (and, for a scan, the scans' one), or nothing
/// inside another snapshot of the same store in its thread (which must then outlive it). Its
/// guards keep it in its thread (the snapshots held are the thread's).
pub(super) struct Held<'s> {
    stillness: usize,
    _view: Option<RwLockReadGuard<'s, ()>>,
    _scan: Option<RwLockReadGuard<'s, ()>>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        HELD.with_borrow_mut(|held| {
            if let Some(at) = held.iter().rposition(|&stillness| stillness == self.stillness) {
                held.swap_remove(at);
            }
        });
    }
}

/// Lowers a change's flags however it ends (a change that panics must not leave readers
/// waiting for ever).
struct Lowered<'a>(&'a Stillness);

impl Drop for Lowered<'_> {
    fn drop(&mut self) {
        self.0.changing.store(false, Ordering::Release);
        self.0.pending.store(false, Ordering::Release);
    }
}

/// The turns of readers and changes ([`Store::catch_up`], a commit).
#[derive(Default)]
pub(super) struct Stillness {
    /// Held shared by scan snapshots; exclusively by a change from its first step.
    scans: RwLock<()>,
    /// Held shared by every snapshot; exclusively while the view changes.
    view: RwLock<()>,
    /// A change waits for the scans: new scan snapshots wait for it.
    pending: AtomicBool,
    /// A change waits for the short snapshots: new snapshots wait for it.
    changing: AtomicBool,
    /// One change at a time.
    changes: Mutex<()>,
}

impl Stillness {
    /// A short snapshot's hold: it waits only while a change waits for the short snapshots
    /// under way, or runs.
    pub(super) fn read(&self) -> Held<'_> {
        if self.nested() {
            return self.held(None, None);
        }
        while self.changing.load(Ordering::Acquire) {
            std::thread::sleep(PAUSE);
        }
        // A change that took the view meanwhile makes this wait for its end.
        self.held(Some(self.view.read().unwrap_or_else(PoisonError::into_inner)), None)
    }

    /// A scan snapshot's hold: it waits while a change waits or runs, and holds the next one
    /// off until it ends.
    pub(super) fn scan(&self) -> Held<'_> {
        if self.nested() {
            return self.held(None, None);
        }
        while self.pending.load(Ordering::Acquire) {
            std::thread::sleep(PAUSE);
        }
        // With the scans' lock shared, no change runs (a change holds it from its first step).
        let scan = self.scans.read().unwrap_or_else(PoisonError::into_inner);
        self.held(Some(self.view.read().unwrap_or_else(PoisonError::into_inner)), Some(scan))
    }

    /// Runs `change` once no snapshot sees the view: after the scans under way, then the short
    /// snapshots under way, have ended. Not from a thread that holds a snapshot.
    pub(super) fn change<T>(&self, change: impl FnOnce() -> T) -> T {
        debug_assert!(!self.is_held(), "a change from a thread that holds a snapshot would wait for itself");
        let _one = self.changes.lock().unwrap_or_else(PoisonError::into_inner);
        self.pending.store(true, Ordering::Release);
        let _scans = Self::exclusive(&self.scans);
        self.changing.store(true, Ordering::Release);
        let _view = Self::exclusive(&self.view);
        // Dropped first: the flags are down before the locks are let go.
        let _lowered = Lowered(self);
        change()
    }

    /// `lock` held exclusively, taken without queueing on it (a queued writer would make
    /// some implementations refuse new readers, nested ones too).
    fn exclusive(lock: &RwLock<()>) -> RwLockWriteGuard<'_, ()> {
        loop {
            match lock.try_write() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(poisoned)) => return poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => std::thread::sleep(PAUSE),
            }
        }
    }

    /// This store's mark in the thread's snapshots.
    fn mark(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// Whether the thread holds a snapshot of this store.
    fn is_held(&self) -> bool {
        HELD.with_borrow(|held| held.contains(&self.mark()))
    }

    /// Whether the thread holds a snapshot of this store already; counts the new one.
    fn nested(&self) -> bool {
        let nested = self.is_held();
        HELD.with_borrow_mut(|held| held.push(self.mark()));
        nested
    }

    fn held<'s>(&'s self, view: Option<RwLockReadGuard<'s, ()>>, scan: Option<RwLockReadGuard<'s, ()>>) -> Held<'s> {
        Held { stillness: self.mark(), _view: view, _scan: scan }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    #[test]
    fn a_snapshot_of_another_store_inside_one_holds_that_store_still() {
        let (first, second) = (Stillness::default(), Stillness::default());
        let changed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let outer = first.read();
            let inner = second.read();
            let change = scope.spawn(|| second.change(|| changed.store(true, Ordering::Release)));
            std::thread::sleep(Duration::from_millis(100));
            assert!(!changed.load(Ordering::Acquire), "the second store changed under its snapshot");
            drop(inner);
            change.join().unwrap();
            assert!(changed.load(Ordering::Acquire));
            drop(outer);
        });
    }

    #[test]
    fn a_change_that_panics_lets_snapshots_in() {
        let stillness = std::sync::Arc::new(Stillness::default());
        let panicked =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stillness.change(|| panic!("a change"))));
        assert!(panicked.is_err());
        // Threads of their own, not scoped: a failure must not wait for them.
        let reader = |scan: bool| {
            let stillness = stillness.clone();
            std::thread::spawn(move || drop(if scan { stillness.scan() } else { stillness.read() }))
        };
        let (read, scan) = (reader(false), reader(true));
        std::thread::sleep(Duration::from_millis(200));
        assert!(read.is_finished() && scan.is_finished(), "snapshots wait for a change that is over");
    }
}
