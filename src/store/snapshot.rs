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
    cell::Cell,
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

    /// The database directory.
    pub fn path(&self) -> &'s std::path::Path {
        self.store.path()
    }
}

thread_local! {
    /// Snapshots the thread holds: a second one inside the first takes nothing (the first
    /// holds the view still), so that it cannot wait for a change that waits for the first.
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// What a snapshot holds: the view's read lock (and, for a scan, the scans' one), or nothing
/// inside another snapshot of its thread. Its guards keep it in its thread (the count of held
/// snapshots is the thread's).
pub(super) struct Held<'s> {
    _view: Option<RwLockReadGuard<'s, ()>>,
    _scan: Option<RwLockReadGuard<'s, ()>>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        HELD.with(|held| held.set(held.get() - 1));
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
        if Self::nested() {
            return Self::held(None, None);
        }
        while self.changing.load(Ordering::Acquire) {
            std::thread::sleep(PAUSE);
        }
        // A change that took the view meanwhile makes this wait for its end.
        Self::held(Some(self.view.read().unwrap_or_else(PoisonError::into_inner)), None)
    }

    /// A scan snapshot's hold: it waits while a change waits or runs, and holds the next one
    /// off until it ends.
    pub(super) fn scan(&self) -> Held<'_> {
        if Self::nested() {
            return Self::held(None, None);
        }
        while self.pending.load(Ordering::Acquire) {
            std::thread::sleep(PAUSE);
        }
        let scan = self.scans.read().unwrap_or_else(PoisonError::into_inner);
        while self.changing.load(Ordering::Acquire) {
            std::thread::sleep(PAUSE);
        }
        Self::held(Some(self.view.read().unwrap_or_else(PoisonError::into_inner)), Some(scan))
    }

    /// Runs `change` once no snapshot sees the view: after the scans under way, then the short
    /// snapshots under way, have ended. Not from a thread that holds a snapshot.
    pub(super) fn change<T>(&self, change: impl FnOnce() -> T) -> T {
        let _one = self.changes.lock().unwrap_or_else(PoisonError::into_inner);
        self.pending.store(true, Ordering::Release);
        let scans = Self::exclusive(&self.scans);
        self.changing.store(true, Ordering::Release);
        let view = Self::exclusive(&self.view);
        let changed = change();
        self.changing.store(false, Ordering::Release);
        self.pending.store(false, Ordering::Release);
        drop(view);
        drop(scans);
        changed
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

    /// Whether the thread holds a snapshot already; counts the new one.
    fn nested() -> bool {
        HELD.with(|held| {
            let before = held.get();
            held.set(before + 1);
            before > 0
        })
    }

    fn held<'s>(view: Option<RwLockReadGuard<'s, ()>>, scan: Option<RwLockReadGuard<'s, ()>>) -> Held<'s> {
        Held { _view: view, _scan: scan }
    }
}
