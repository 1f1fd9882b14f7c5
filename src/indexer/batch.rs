//! The sequential part of indexing: drop duplicates, give games ids, write the games, sort the
//! batch's position occurrences and spill them to the staging area, where they wait for the
//! run's commit (which sums each position once, from all its occurrences).

use rustc_hash::FxHashSet;

use super::prepare::PreparedGame;
use crate::{
    codec::{CompactMove, Key, KeyWords},
    model::GameId,
    store::{Occurrence, RunRecord, Staging, Store, StoreError, Totals},
};

/// Games waiting to be committed together.
#[derive(Default)]
pub struct PendingBatch {
    games: Vec<PreparedGame>,
    occurrences: usize,
    /// Kept from batch to batch: fresh buffers of this size cost a page fault per 4 KB.
    sorted: SortedOccurrences,
}

impl PendingBatch {
    pub fn push(&mut self, game: PreparedGame) {
        self.occurrences += game.positions.len();
        self.games.push(game);
    }

    /// Position entries gathered (the batch's memory measure).
    pub fn occurrences(&self) -> usize {
        self.occurrences
    }

    /// Stages the batch: new games get ids and are written with their fingerprints, facts and
    /// players entries (invisible to readers until the commit), their positions' occurrences are
    /// sorted and spilled to `staging` as one sorted run, and `totals` and `run` count them. Duplicates (already
    /// stored, staged earlier in this run, or earlier in the batch) are counted in `run`.
    pub fn stage(
        &mut self,
        store: &Store,
        staging: &mut Staging,
        totals: &mut Totals,
        run: &mut RunRecord,
    ) -> Result<(), StoreError> {
        let mut games = std::mem::take(&mut self.games);
        self.occurrences = 0;
        // Ids follow the batch's games in mainline order (a trie order: games sharing an opening
        // are adjacent), so a position's posting list holds runs of close ids, which Leapfrog
        // packs at two ids a byte. The sort is stable: of twins, the first read stays first.
        games.sort_by(|a, b| {
            (a.record.setup_fen(), a.record.move_bytes()).cmp(&(b.record.setup_fen(), b.record.move_bytes()))
        });
        // Workers looked fingerprints up already; this catches games whose twin was committed
        // after that look-up.
        let fingerprints: Vec<_> = games.iter().map(|game| game.fingerprint).collect();
        let known = store.known_fingerprints(&fingerprints)?;
        let mut seen = FxHashSet::default();
        let mut batch = store.batch();
        let mut accepted = Vec::new();
        for (mut game, known) in games.into_iter().zip(known) {
            if known || !seen.insert(game.fingerprint) {
                run.counts.duplicates += 1;
                continue;
            }
            let id = GameId(totals.next_game_id.max(1));
            totals.next_game_id = id.0 + 1;
            totals.games += 1;
            totals.plies += game.record.plies() as u64;
            let distinct = game.distinct_positions();
            totals.position_occurrences += distinct;
            run.counts.indexed += 1;
            run.counts.positions_written += distinct;
            batch.put_game(id, &game.record);
            batch.put_fingerprint(game.fingerprint, id);
            batch.put_players(id, &game.record.tags.white, &game.record.tags.black);
            game.facts.id = id;
            accepted.push(game);
        }
        // The accepted games' ids are consecutive: their facts are one run.
        let facts: Vec<_> = accepted.iter().map(|game| game.facts).collect();
        batch.put_facts_run(&facts);
        batch.commit()?;
        if accepted.is_empty() {
            return Ok(());
        }
        self.sorted.sort(&accepted);
        tracing::debug!(games = accepted.len(), occurrences = self.sorted.len(), "staging batch");
        staging.add_run(self.sorted.iter(&accepted)).map_err(|err| store.staging_error(err))
    }
}

/// (key as integers, game index, next move, ply) of one occurrence: sorting by game index sorts
/// by game id, which follows the batch's order.
type BatchOccurrence = (KeyWords, u32, Option<CompactMove>, u32);

/// A batch's occurrences in (key, game, move) order: what a sorted run holds.
#[derive(Default)]
pub struct SortedOccurrences {
    occurrences: Vec<BatchOccurrence>,
}

impl SortedOccurrences {
    /// Replaces the contents with the occurrences of `games` (given ids in this order), sorted,
    /// reusing the buffer.
    pub fn sort(&mut self, games: &[PreparedGame]) {
        let occurrences = &mut self.occurrences;
        occurrences.clear();
        for (index, game) in games.iter().enumerate() {
            occurrences.extend(game.positions.iter().map(|&(key, next, ply)| (key.words(), index as u32, next, ply)));
        }
        occurrences.sort_unstable();
    }

    /// Occurrences sorted.
    pub fn len(&self) -> usize {
        self.occurrences.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.occurrences.is_empty()
    }

    /// Each occurrence with its key, in order; `games` are those [`SortedOccurrences::sort`] had.
    pub fn iter<'a>(&'a self, games: &'a [PreparedGame]) -> impl Iterator<Item = (Key, Occurrence)> + 'a {
        self.occurrences.iter().map(|&(words, index, next, ply)| {
            (Key::from_words(words), Occurrence { game: games[index as usize].facts.id, next, ply })
        })
    }
}
