//! How a position's games are counted: its stored statistics as read, its slices derived from
//! its games' facts, its games checked one by one against a filter, or, for a popular position
//! and a filter made of slices, its games summed by slice ([`SliceSummary`], kept in memory by
//! the store's [`Summaries`](crate::store::read::Summaries) view).

use std::sync::Arc;

use crate::{
    Key,
    model::{GameFacts, GameId, PositionStats, SliceSummary, Tally},
    store::{Detail, FactsTable, Occurrences, ScannedPosition, Snapshot, StoreError},
};

/// What a filtered lookup counts a position's games from.
pub enum CountedGames {
    /// A popular position: its games summed by slice.
    Summary(Arc<SliceSummary>),
    /// Its games by move (without slices), to be checked one by one.
    Games(Box<PositionStats>),
}

/// Everything stored of a position, with its slices (the month × speed × rating-band sums its
/// games' facts make); `None` when no game reached it.
pub fn position_stats(view: &Snapshot, key: &Key) -> Result<Option<PositionStats>, StoreError> {
    let Some(mut stats) = view.positions().get(key, Detail::All)? else { return Ok(None) };
    derive_slices(view, key, &mut stats)?;
    Ok(Some(stats))
}

/// A position's statistics with its slices, without its games: its monthly history.
pub(crate) fn position_slices(view: &Snapshot, key: &Key) -> Result<Option<PositionStats>, StoreError> {
    let Some(stats) = view.positions().get(key, Detail::ByMove)? else { return Ok(None) };
    with_slices(view, key, stats).map(Some)
}

/// `stats` (read with its games by move) with its slices, without the games by move.
pub(crate) fn with_slices(view: &Snapshot, key: &Key, mut stats: PositionStats) -> Result<PositionStats, StoreError> {
    derive_slices(view, key, &mut stats)?;
    stats.games_by_move.clear();
    Ok(stats)
}

/// Fills the slices of `stats` (read with its games by move) from its games' facts.
fn derive_slices(view: &Snapshot, key: &Key, stats: &mut PositionStats) -> Result<(), StoreError> {
    if stats.highest_game().is_none() {
        return Ok(());
    }
    let facts = view.facts().table()?;
    stats.derive_slices(|id| facts.get(id)).ok_or_else(|| facts.missing(|| without_facts(view, key)))
}

/// The statistics of position `key` (`stats`, read with its games by move) counting only the
/// games `keep` admits by their facts, with slices when `slices`, without the games by move.
pub(crate) fn kept_games_stats(
    view: &Snapshot,
    key: &Key,
    stats: &PositionStats,
    keep: impl Fn(&GameFacts) -> bool,
    slices: bool,
) -> Result<PositionStats, StoreError> {
    let facts = view.facts().table()?;
    let without = || without_facts(view, key);
    let mut kept =
        PositionStats::of_kept_games(stats, |id| facts.get(id), keep).ok_or_else(|| facts.missing(without))?;
    if slices {
        kept.derive_slices(|id| facts.get(id)).ok_or_else(|| facts.missing(without))?;
    }
    kept.games_by_move.clear();
    Ok(kept)
}

/// The games of position `key` as a filter made only of slices counts them (`None` when no
/// game reached it): a popular position's [`SliceSummary`] (from memory, else built from its
/// games' facts when it was asked for before, and kept if it fits), another's games by move.
pub(crate) fn summary_or_games(view: &Snapshot, key: &Key) -> Result<Option<CountedGames>, StoreError> {
    let summaries = view.summaries();
    if let Some(summary) = summaries.kept(key) {
        return Ok(Some(CountedGames::Summary(summary)));
    }
    let Some(stats) = view.positions().get(key, Detail::ByMove)? else { return Ok(None) };
    if stats.highest_game().is_none() || stats.total.games < summaries.min_games() {
        return Ok(Some(CountedGames::Games(Box::new(stats))));
    }
    let built = summaries.get_or_build(key, || {
        let facts = view.facts().table()?;
        SliceSummary::of_games(&stats, |id| facts.get(id)).ok_or_else(|| facts.missing(|| without_facts(view, key)))
    })?;
    Ok(Some(match built {
        Some(summary) => CountedGames::Summary(summary),
        None => CountedGames::Games(Box::new(stats)),
    }))
}

/// The games reaching a scanned position that `keep` keeps (by their facts, from `facts`) and
/// their results; `each` is handed each kept game's facts.
pub(crate) fn kept_occurrences(
    position: &ScannedPosition,
    facts: &FactsTable,
    keep: impl Fn(&GameFacts) -> bool,
    mut each: impl FnMut(&GameFacts),
) -> Result<Occurrences, StoreError> {
    let (mut tally, mut last) = (Tally::default(), None);
    let mut one = |id: GameId| -> Result<(), StoreError> {
        let game = position.facts(facts, id)?;
        if keep(&game) {
            tally.add(&Tally::game(game.result, game.ratings));
            last = Some((id, game.result));
            each(&game);
        }
        Ok(())
    };
    match position.single_game() {
        Some(id) => one(id)?,
        None => {
            for id in position.games()?.iter() {
                one(id)?;
            }
        }
    }
    Ok(Occurrences::of(&tally, last.filter(|_| tally.games == 1)))
}

/// The error for a stored position one of whose games has no facts: corrupt data.
pub(crate) fn without_facts(view: &Snapshot, key: &Key) -> StoreError {
    view.corrupt(format!("position {key}: a game without facts"))
}
