//! Popular positions summed by slice, kept in memory: a filtered lookup of a position with
//! thousands of games would otherwise check every game's facts on every request (the opening
//! positions an explorer is asked most). Its [`SliceSummary`] is built from the games a
//! filtered lookup reads anyway, the second time the position is asked for (building one costs
//! a few times counting its games once, so a position asked for once, by `tabiya query` or a
//! pass over many positions, is counted as before), and answers every filter made of slices
//! (dates by month, speeds, rating bands) by adding up a few dozen sums. A summary is of the
//! games committed when it was built: it is kept under that commit, and a later commit (a
//! secondary's catch-up) is never answered from it. The memory is bounded in bytes; positions
//! asked for often stay, the others leave first (`quick_cache`'s policy).

use std::sync::{Arc, PoisonError, RwLock, atomic::Ordering};

use quick_cache::{Weighter, sync::Cache};

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

/// The memory of summaries, with which positions it takes.
pub(super) struct Summaries {
    state: RwLock<Memo>,
}

struct Memo {
    min_games: u64,
    /// By the committed next game id they were built under, and the position.
    cache: Cache<(u64, Key), Summary, ByBytes>,
    /// Positions asked for once under a commit, not summarised yet.
    asked: Cache<(u64, Key), ()>,
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
        Summaries { state: RwLock::new(Memo::new(SUMMARY_MIN_GAMES, budget)) }
    }
}

/// What a filtered lookup counts a position's games from.
pub enum GamesBySlice {
    /// A popular position: its games summed by slice.
    Summary(Arc<SliceSummary>),
    /// Its games by move (without slices), to be checked one by one.
    Games(Box<PositionStats>),
}

impl Store {
    /// The games of position `key` as a filter made only of slices counts them (`None` when
    /// no game reached it): a popular position's [`SliceSummary`] (from memory, else built and
    /// kept when it was asked for before), another's games by move.
    pub fn games_by_slice(&self, key: &Key) -> Result<Option<GamesBySlice>, StoreError> {
        let committed = self.committed.load(Ordering::Acquire);
        let memo = self.summaries.state.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = memo.cache.get(&(committed, *key)) {
            return Ok(Some(GamesBySlice::Summary(found.summary)));
        }
        let Some(stats) = self.position_games(key)? else { return Ok(None) };
        let (Some(highest), true) = (stats.highest_game(), stats.total.games >= memo.min_games) else {
            return Ok(Some(GamesBySlice::Games(Box::new(stats))));
        };
        if memo.asked.get(&(committed, *key)).is_none() {
            memo.asked.insert((committed, *key), ());
            return Ok(Some(GamesBySlice::Games(Box::new(stats))));
        }
        let facts = self.facts(highest)?;
        let summary = SliceSummary::of_games(&stats, |id| facts.get(id))
            .ok_or_else(|| self.corrupt(format!("position {key}: a game without facts")))?;
        let bytes = summary.heap_bytes() as u64;
        tracing::debug!(%key, games = stats.total.games, slices = summary.slice_count(), bytes, "position summarised");
        let summary = Arc::new(summary);
        // Under the commit its games were read in: a catch-up in between leaves it unused.
        if self.committed.load(Ordering::Acquire) == committed {
            memo.cache.insert((committed, *key), Summary { summary: summary.clone(), bytes });
        }
        Ok(Some(GamesBySlice::Summary(summary)))
    }

    /// Sets which positions are summarised (at least `min_games` games; `u64::MAX`: none) and
    /// how many bytes of summaries are kept (default [`SUMMARY_MIN_GAMES`] and
    /// [`SUMMARY_BUDGET`], scaled by the memory budget); forgets those kept and the positions
    /// asked for. For tests and tuning: answers are the same.
    pub fn set_summaries(&self, min_games: u64, budget: u64) {
        *self.summaries.state.write().unwrap_or_else(PoisonError::into_inner) = Memo::new(min_games, budget);
    }
}
