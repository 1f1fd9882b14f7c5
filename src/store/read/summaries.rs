//! The summaries view: popular positions summed by slice, kept in memory between queries. A
//! filtered lookup of a position with thousands of games would otherwise check every game's
//! facts on every request (the opening positions an explorer is asked most). Its
//! [`SliceSummary`] (the games' statistics) and [`NoteSlices`] (their notes, when annotated
//! games reach it) are each built from what a filtered lookup reads anyway, the second time
//! the position is asked for (building one costs a few times counting its games once, so a
//! position asked for once, by `tabiya query` or a pass over many positions, is counted as
//! before), by one request while the others asking for it wait, and answers every filter made
//! of slices (dates by month, speeds, rating bands) by adding up a few dozen sums. Summaries
//! are kept under the committed id the snapshot saw and forgotten when a commit comes in.
//! Which positions are summarised and how a summary is counted is the queries'
//! ([`explore`](crate::explore)); this keeps them. The memory is bounded in bytes; positions
//! asked for often stay, the others leave first (`quick_cache`'s policy); a summary heavier
//! than the memory holds is not built again: its position is counted game by game.

use std::sync::{
    Arc, PoisonError, RwLock,
    atomic::{AtomicU64, Ordering},
};

use quick_cache::{
    Weighter,
    sync::{Cache, GuardResult},
};

use crate::{
    codec::Key,
    model::{NoteSlices, SliceSummary},
    store::Store,
};

/// Positions with at least this many games are summarised (fewer are checked game by game,
/// in about 20 ns a game).
pub const SUMMARY_MIN_GAMES: u64 = 1_000;
/// Bytes of summaries kept in memory at most, scaled down by a memory budget (`--memory`) as
/// the block cache is (the players collection's initial position takes about 2 MB).
pub const SUMMARY_BUDGET: u64 = 128 << 20;
/// Positions remembered as asked for once (a summary is built on the second time).
const ASKED_ONCE: usize = 1 << 16;

/// The memory of popular positions' summaries.
pub(in crate::store) struct Memory {
    state: RwLock<Memo>,
    /// The committed next game id of the last lookup: another empties the memory.
    seen: AtomicU64,
}

struct Memo {
    min_games: u64,
    /// By the committed next game id they were built under, the position and what is summed.
    cache: Cache<Place, Summary, ByBytes>,
    /// Positions asked for under a commit, and whether their summary could be kept.
    asked: Cache<Place, Asked>,
}

/// The committed next game id a summary was built under, its position and what it sums.
type Place = (u64, Key, Summed);

/// What a summary sums of a position's games.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Summed {
    /// Their statistics: a [`SliceSummary`].
    Games,
    /// Their notes: [`NoteSlices`].
    Notes,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// Once: its summary is built the next time.
    Once,
    /// Its summary is heavier than the memory keeps: counted game by game.
    Unkept,
}

/// A summary and the bytes it takes, counted once.
#[derive(Clone)]
struct Summary {
    held: Held,
    bytes: u64,
}

#[derive(Clone)]
enum Held {
    Games(Arc<SliceSummary>),
    Notes(Arc<NoteSlices>),
}

/// What a summary is and where it is kept.
trait Summarised: Sized {
    const SUMMED: Summed;
    fn heap_bytes(&self) -> usize;
    fn hold(summary: Arc<Self>) -> Held;
    fn held(held: Held) -> Option<Arc<Self>>;
}

impl Summarised for SliceSummary {
    const SUMMED: Summed = Summed::Games;
    fn heap_bytes(&self) -> usize {
        SliceSummary::heap_bytes(self)
    }
    fn hold(summary: Arc<Self>) -> Held {
        Held::Games(summary)
    }
    fn held(held: Held) -> Option<Arc<Self>> {
        match held {
            Held::Games(summary) => Some(summary),
            Held::Notes(_) => None,
        }
    }
}

impl Summarised for NoteSlices {
    const SUMMED: Summed = Summed::Notes;
    fn heap_bytes(&self) -> usize {
        NoteSlices::heap_bytes(self)
    }
    fn hold(summary: Arc<Self>) -> Held {
        Held::Notes(summary)
    }
    fn held(held: Held) -> Option<Arc<Self>> {
        match held {
            Held::Notes(summary) => Some(summary),
            Held::Games(_) => None,
        }
    }
}

#[derive(Clone)]
struct ByBytes;

impl Weighter<Place, Summary> for ByBytes {
    fn weight(&self, _key: &Place, value: &Summary) -> u64 {
        value.bytes
    }
}

impl Memo {
    fn new(min_games: u64, budget: u64) -> Memo {
        // About a megabyte a summary, for the table's first size.
        let items = usize::try_from(budget >> 20).unwrap_or(usize::MAX).clamp(16, 1 << 16);
        Memo { min_games, cache: Cache::with_weighter(items, budget, ByBytes), asked: Cache::new(ASKED_ONCE) }
    }
}

impl Default for Memory {
    fn default() -> Memory {
        let budget = (SUMMARY_BUDGET as f64 * crate::store::memory_share()) as u64;
        Memory { state: RwLock::new(Memo::new(SUMMARY_MIN_GAMES, budget)), seen: AtomicU64::new(0) }
    }
}

/// Reads and keeps popular positions' summaries ([`Snapshot::summaries`](crate::store::Snapshot::summaries)).
pub struct Summaries<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> Summaries<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Summaries<'a> {
        Summaries { store, committed }
    }

    /// The memory, emptied first when a commit came in since the last snapshot that used it:
    /// what was built before answers no query now.
    fn memo(&self) -> std::sync::RwLockReadGuard<'a, Memo> {
        let summaries = &self.store.summaries;
        let memo = summaries.state.read().unwrap_or_else(PoisonError::into_inner);
        if summaries.seen.swap(self.committed, Ordering::AcqRel) != self.committed {
            memo.cache.clear();
            memo.asked.clear();
        }
        memo
    }

    /// The least games a position summarised has.
    pub fn min_games(&self) -> u64 {
        self.store.summaries.state.read().unwrap_or_else(PoisonError::into_inner).min_games
    }

    /// The summary of `key` kept in memory, if any.
    pub fn kept(&self, key: &Key) -> Option<Arc<SliceSummary>> {
        self.memo().cache.get(&(self.committed, *key, Summed::Games)).and_then(|found| SliceSummary::held(found.held))
    }

    /// The summary of `key` (a position of at least [`Summaries::min_games`] games): from
    /// memory, else built by `build` when the position was asked for before (one query builds
    /// it while the others asking for it wait) and kept if it fits. `None` the first time it is
    /// asked for, or when its summary is heavier than the memory keeps: count its games then.
    pub fn get_or_build<E>(
        &self,
        key: &Key,
        build: impl FnOnce() -> Result<SliceSummary, E>,
    ) -> Result<Option<Arc<SliceSummary>>, E> {
        self.summary(key, build)
    }

    /// The notes of `key` by slice (a position of at least [`Summaries::min_games`] annotated
    /// games' entries), as [`Summaries::get_or_build`] keeps its statistics' summary.
    pub fn notes_or_build<E>(
        &self,
        key: &Key,
        build: impl FnOnce() -> Result<NoteSlices, E>,
    ) -> Result<Option<Arc<NoteSlices>>, E> {
        self.summary(key, build)
    }

    fn summary<S: Summarised, E>(&self, key: &Key, build: impl FnOnce() -> Result<S, E>) -> Result<Option<Arc<S>>, E> {
        let memo = self.memo();
        let here = (self.committed, *key, S::SUMMED);
        match memo.asked.get(&here) {
            None => {
                memo.asked.insert(here, Asked::Once);
                return Ok(None);
            }
            Some(Asked::Unkept) => return Ok(None),
            Some(Asked::Once) => {}
        }
        let guard = match memo.cache.get_value_or_guard(&here, None) {
            GuardResult::Value(found) => return Ok(S::held(found.held)),
            GuardResult::Guard(guard) => Some(guard),
            GuardResult::Timeout => None,
        };
        let summary = build()?;
        let bytes = summary.heap_bytes() as u64;
        tracing::debug!(%key, bytes, "position summarised");
        let summary = Arc::new(summary);
        if let Some(guard) = guard {
            let _ = guard.insert(Summary { held: S::hold(summary.clone()), bytes });
            if !memo.cache.contains_key(&here) {
                memo.asked.insert(here, Asked::Unkept);
            }
        }
        Ok(Some(summary))
    }

    /// Sets which positions are summarised (at least `min_games` games; `u64::MAX`: none) and
    /// how many bytes of summaries are kept (the defaults: [`SUMMARY_MIN_GAMES`], and
    /// [`SUMMARY_BUDGET`] scaled by the memory budget); forgets those kept and the positions
    /// asked for. For tests and tuning: answers are the same.
    pub fn configure(&self, min_games: u64, budget: u64) {
        *self.store.summaries.state.write().unwrap_or_else(PoisonError::into_inner) = Memo::new(min_games, budget);
    }
}
