//! Popular positions summed by slice, kept in memory: a filtered lookup of a position with
//! thousands of games would otherwise check every game's facts on every request (the opening
//! positions an explorer is asked most). Its [`SliceSummary`] is built from the games a
//! filtered lookup reads anyway, the second time the position is asked for (building one costs
//! a few times counting its games once, so a position asked for once, by `tabiya query` or a
//! pass over many positions, is counted as before), by one request while the others asking
//! for it wait, and answers every filter made of slices (dates by month, speeds, rating bands)
//! by adding up a few dozen sums. Summaries are kept under the committed id the lookup saw
//! (a lookup racing a secondary's catch-up may read either commit's games, as any lookup racing
//! it does) and forgotten when a commit comes in. The memory is bounded in bytes; positions
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

use super::{Store, StoreError};
use crate::{
    codec::Key,
    model::{PositionStats, SliceSummary},
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
pub(super) struct Summaries {
    state: RwLock<Memo>,
    /// The committed next game id of the last lookup: another empties the memory.
    seen: AtomicU64,
}

struct Memo {
    min_games: u64,
    /// By the committed next game id they were built under, and the position.
    cache: Cache<(u64, Key), Summary, ByBytes>,
    /// Positions asked for under a commit, and whether their summary could be kept.
    asked: Cache<(u64, Key), Asked>,
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
    summary: Arc<SliceSummary>,
    bytes: u64,
}

#[derive(Clone)]
struct ByBytes;

impl Weighter<(u64, Key), Summary> for ByBytes {
    fn weight(&self, _key: &(u64, Key), value: &Summary) -> u64 {
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

impl Default for Summaries {
    fn default() -> Summaries {
        let budget = (SUMMARY_BUDGET as f64 * super::memory_share()) as u64;
        Summaries { state: RwLock::new(Memo::new(SUMMARY_MIN_GAMES, budget)), seen: AtomicU64::new(0) }
    }
}

/// What a filtered lookup counts a position's games from.
pub enum CountedGames {
    /// A popular position: its games summed by slice.
    Summary(Arc<SliceSummary>),
    /// Its games by move (without slices), to be checked one by one.
    Games(Box<PositionStats>),
}

impl Store {
    /// The games of position `key` as a filter made only of slices counts them (`None` when
    /// no game reached it): a popular position's [`SliceSummary`] (from memory, else built
    /// when it was asked for before, and kept if it fits), another's games by move.
    pub fn summary_or_games(&self, key: &Key) -> Result<Option<CountedGames>, StoreError> {
        let committed = self.committed.load(Ordering::Acquire);
        let memo = self.summaries.state.read().unwrap_or_else(PoisonError::into_inner);
        if self.summaries.seen.swap(committed, Ordering::AcqRel) != committed {
            // A commit came in: what was built before it answers no lookup now.
            memo.cache.clear();
            memo.asked.clear();
        }
        let here = (committed, *key);
        if let Some(found) = memo.cache.get(&here) {
            return Ok(Some(CountedGames::Summary(found.summary)));
        }
        let Some(stats) = self.position_games(key)? else { return Ok(None) };
        let games = |stats| Ok(Some(CountedGames::Games(Box::new(stats))));
        let (Some(highest), true) = (stats.highest_game(), stats.total.games >= memo.min_games) else {
            return games(stats);
        };
        match memo.asked.get(&here) {
            None => {
                memo.asked.insert(here, Asked::Once);
                return games(stats);
            }
            Some(Asked::Unkept) => return games(stats),
            Some(Asked::Once) => {}
        }
        // One request builds it; the others asking meanwhile wait for it.
        let guard = match memo.cache.get_value_or_guard(&here, None) {
            GuardResult::Value(found) => return Ok(Some(CountedGames::Summary(found.summary))),
            GuardResult::Guard(guard) => Some(guard),
            GuardResult::Timeout => None,
        };
        let facts = self.facts(highest)?;
        let summary = SliceSummary::of_games(&stats, |id| facts.get(id))
            .ok_or_else(|| self.corrupt(format!("position {key}: a game without facts")))?;
        let bytes = summary.heap_bytes() as u64;
        tracing::debug!(%key, games = stats.total.games, slices = summary.slice_count(), bytes, "position summarised");
        let summary = Arc::new(summary);
        if let Some(guard) = guard {
            let _ = guard.insert(Summary { summary: summary.clone(), bytes });
            if !memo.cache.contains_key(&here) {
                memo.asked.insert(here, Asked::Unkept);
            }
        }
        Ok(Some(CountedGames::Summary(summary)))
    }

    /// Sets which positions are summarised (at least `min_games` games; `u64::MAX`: none) and
    /// how many bytes of summaries are kept (the defaults: [`SUMMARY_MIN_GAMES`], and
    /// [`SUMMARY_BUDGET`] scaled by the memory budget); forgets those kept and the positions
    /// asked for. For tests and tuning: answers are the same.
    pub fn set_summaries(&self, min_games: u64, budget: u64) {
        *self.summaries.state.write().unwrap_or_else(PoisonError::into_inner) = Memo::new(min_games, budget);
    }
}
