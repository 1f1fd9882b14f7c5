//! Sequence search: the games in which a [`Sequence`]'s steps match one after another.
//!
//! Planned as a pattern search is: the distinct positions matching the first step are found by
//! one scan ([`PatternQuery`]: each position tested once, however many games reach it), their
//! games read from the posting lists, and only those games replayed, the later steps tested
//! from the first step's ply on.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::{Filter, PatternQuery, QueryError, distributed::run_on};
use crate::{
    model::GameId,
    pattern::Sequence,
    store::{ScanProgress, Snapshot, Store},
};

/// Games replayed together (one read of their mainlines).
const CHUNK: usize = 256;

/// What to search for.
#[derive(Clone, Debug)]
pub struct SequenceQuery {
    /// The steps.
    pub sequence: Sequence,
    /// Which games are looked at (the games listed are filtered again by the games query):
    /// the games the filter refuses are neither scanned for the first step nor replayed.
    pub filter: Filter,
    /// The variant whose games are searched.
    pub variant: crate::position::Variant,
}

/// A game the sequence matches, with the ply of each step (0 is the game's start).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SequenceGame {
    /// The game.
    pub id: GameId,
    /// The ply of each step: the earliest first step that starts a match, then the earliest
    /// of each next step.
    pub plies: Vec<usize>,
}

/// A sequence search's answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SequenceSearch {
    /// Distinct positions matching the first step.
    pub first_positions: u64,
    /// Games reaching them: the games replayed.
    pub candidates: u64,
    /// The games matching, ascending.
    pub games: Vec<SequenceGame>,
    /// Wall time of the search.
    pub elapsed_ms: u64,
}

impl SequenceQuery {
    /// Runs the search on every core.
    pub fn run(&self, store: &Store) -> Result<SequenceSearch, QueryError> {
        self.run_with(store, &ScanProgress::default())
    }

    /// Runs the search, counting the first step's scan into `progress` and stopping when it
    /// says so.
    pub fn run_with(&self, store: &Store, progress: &ScanProgress) -> Result<SequenceSearch, QueryError> {
        self.run_in(&store.scan_snapshot(), progress)
    }

    /// The search on `view`.
    pub(crate) fn run_in(&self, view: &Snapshot, progress: &ScanProgress) -> Result<SequenceSearch, QueryError> {
        let started = Instant::now();
        let first = self.sequence.first_step().ok_or_else(|| QueryError::input("a sequence without steps"))?;
        let scan = PatternQuery {
            pattern: first,
            material: None,
            side: None,
            limit: 0,
            filter: self.filter.clone(),
            variant: self.variant,
        };
        let found = run_on(&scan, view, progress)?;
        let games = games_matching(view, &self.sequence, &found.game_ids, progress)?;
        Ok(SequenceSearch {
            first_positions: found.positions,
            candidates: found.game_ids.len() as u64,
            games,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// The games of `ids` that `sequence` matches, with their plies, ascending (each replayed).
pub fn games_matching(
    view: &Snapshot,
    sequence: &Sequence,
    ids: &[GameId],
    progress: &ScanProgress,
) -> Result<Vec<SequenceGame>, QueryError> {
    let chunks: Vec<Vec<SequenceGame>> = ids
        .par_chunks(CHUNK)
        .map(|chunk| -> Result<Vec<SequenceGame>, QueryError> {
            if progress.stopped() {
                return Err(QueryError::input("search interrupted"));
            }
            let mut found = Vec::new();
            for (&id, line) in chunk.iter().zip(view.games().mainlines(chunk)?) {
                let line = line.ok_or_else(|| view.corrupt(format!("game {id}: no mainline")))?;
                let positions = replay(&line).ok_or_else(|| view.corrupt(format!("game {id} does not replay")))?;
                if let Some(plies) = sequence.find(&positions) {
                    found.push(SequenceGame { id, plies });
                }
            }
            Ok(found)
        })
        .collect::<Result<_, _>>()?;
    Ok(chunks.into_iter().flatten().collect())
}

/// Every position of a stored mainline, its start first; `None` when a move does not read.
fn replay(line: &crate::model::Mainline) -> Option<Vec<crate::Position>> {
    let mut reader = line.reader()?;
    let mut positions = vec![reader.current().clone()];
    while let Some(m) = reader.next() {
        m?;
        positions.push(reader.current().clone());
    }
    Some(positions)
}
