//! Twin search ([`TwinSearch`]): the groups of stored games that are one game stored more than
//! once, from the twins index's buckets of games sharing players' initials, date and first
//! plies ([`TwinKey`](crate::model::twins::TwinKey)), each bucket's games compared by their
//! moves and players.
//!
//! ```no_run
//! use tabiya::explore::TwinSearch;
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let found = TwinSearch::default().run(&store, &Default::default())?;
//! println!("{} twin groups, {} copies too many", found.groups.len(), found.extra_copies);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{collections::BTreeMap, sync::atomic::AtomicU64};

use rayon::prelude::*;
use serde::Serialize;

use super::QueryError;
use crate::{
    model::{
        GameId, GameRecord,
        twins::{MIN_PREFIX_PLIES, TwinRelation, same_players, twin_relation},
    },
    store::{Snapshot, Store},
};

/// Which twins to find.
#[derive(Clone, Copy, Debug)]
pub struct TwinSearch {
    /// Fewest plies of a game whose moves are the start of its twin's.
    pub min_prefix: usize,
}

impl Default for TwinSearch {
    fn default() -> TwinSearch {
        TwinSearch { min_prefix: MIN_PREFIX_PLIES }
    }
}

/// A game of a twin group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TwinGame {
    /// Its id.
    pub id: GameId,
    /// `White`, `Black`, `Date`, `Event`, `Round`, `Result` as stored.
    pub white: String,
    /// See `white`.
    pub black: String,
    /// See `white`.
    pub date: String,
    /// See `white`.
    pub event: String,
    /// See `white`.
    pub round: String,
    /// See `white`.
    pub result: String,
    /// Its mainline's plies.
    pub plies: usize,
}

/// Why two games of a group are twins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TwinPair {
    /// The first game (the shorter one of a prefix).
    pub first: GameId,
    /// The second.
    pub second: GameId,
    /// `same moves`, or `prefix` (the first's moves start the second's).
    pub reason: &'static str,
}

/// Games that are one game: each joined to another by a [`TwinPair`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TwinGroup {
    /// By id.
    pub games: Vec<TwinGame>,
    /// Each pair of twins among them.
    pub pairs: Vec<TwinPair>,
}

/// What a twin search found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TwinReport {
    /// Games whose twin keys were read.
    pub games: u64,
    /// Games sharing players and date with another, whose moves were compared.
    pub compared: u64,
    /// The groups, by first id.
    pub groups: Vec<TwinGroup>,
    /// Games the groups hold beyond one each: what removing the twins would remove.
    pub extra_copies: u64,
}

impl TwinSearch {
    /// The twin groups of the database; `progress` counts the twin keys read.
    pub fn run(&self, store: &Store, progress: &AtomicU64) -> Result<TwinReport, QueryError> {
        let view = store.scan_snapshot();
        let buckets = view.games().twin_buckets(progress)?;
        let compared = buckets.iter().map(|b| b.len() as u64).sum();
        let groups: Vec<Vec<TwinGroup>> =
            buckets.par_iter().map(|ids| self.groups_of(&view, ids)).collect::<Result<_, QueryError>>()?;
        let mut groups: Vec<TwinGroup> = groups.into_iter().flatten().collect();
        groups.sort_by_key(|group| group.games[0].id);
        let extra_copies = groups.iter().map(|g| g.games.len() as u64 - 1).sum();
        let games = view.totals()?.games;
        Ok(TwinReport { games, compared, groups, extra_copies })
    }

    /// The twin groups of one bucket, its games joined pair by pair.
    fn groups_of(&self, view: &Snapshot, ids: &[GameId]) -> Result<Vec<TwinGroup>, QueryError> {
        let games: Vec<(GameId, GameRecord)> = ids.iter().copied().zip(view.games().listed(ids)?).collect();
        let mut pairs = Vec::new();
        let mut root: Vec<usize> = (0..games.len()).collect();
        for a in 0..games.len() {
            for b in a + 1..games.len() {
                let (x, y) = (&games[a], &games[b]);
                // The moves first: comparing bytes costs less than reading names.
                let found = match twin_relation(&x.1, &y.1, self.min_prefix) {
                    Some(relation) => Some((x.0, y.0, relation)),
                    None => twin_relation(&y.1, &x.1, self.min_prefix).map(|relation| (y.0, x.0, relation)),
                }
                .filter(|_| same_players(&x.1.tags, &y.1.tags));
                if let Some((first, second, relation)) = found {
                    let reason = match relation {
                        TwinRelation::SameMoves => "same moves",
                        TwinRelation::Prefix => "prefix",
                    };
                    pairs.push(TwinPair { first, second, reason });
                    let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                    root[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for at in 0..games.len() {
            members.entry(find(&mut root, at)).or_default().push(at);
        }
        let groups = members
            .into_values()
            .filter(|m| m.len() > 1)
            .map(|member| {
                let ids: Vec<GameId> = member.iter().map(|&at| games[at].0).collect();
                TwinGroup {
                    games: member.iter().map(|&at| twin_game(games[at].0, &games[at].1)).collect(),
                    pairs: pairs.iter().filter(|p| ids.contains(&p.first)).cloned().collect(),
                }
            })
            .collect();
        Ok(groups)
    }
}

fn find(root: &mut [usize], at: usize) -> usize {
    let mut at = at;
    while root[at] != at {
        root[at] = root[root[at]];
        at = root[at];
    }
    at
}

fn twin_game(id: GameId, record: &GameRecord) -> TwinGame {
    let tags = &record.tags;
    TwinGame {
        id,
        white: tags.white.clone(),
        black: tags.black.clone(),
        date: tags.date.clone(),
        event: tags.event.clone(),
        round: tags.round.clone(),
        result: tags.result.clone(),
        plies: record.plies(),
    }
}
