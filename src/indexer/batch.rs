//! The sequential part of indexing: drop duplicates, give games ids, write the games, sum the
//! batch's positions in memory and spill them to the staging area, where they wait for the
//! run's commit.

use rustc_hash::FxHashSet;

use super::prepare::PreparedGame;
use crate::{
    codec::{CompactMove, Key, KeyWords},
    model::{GameId, PositionStats},
    store::{RunRecord, Staging, Store, StoreError, Totals, layout},
};

/// Games waiting to be committed together.
#[derive(Default)]
pub struct PendingBatch {
    games: Vec<PreparedGame>,
    occurrences: usize,
    /// Kept from batch to batch: fresh buffers of this size cost a page fault per 4 KB.
    summed: SummedPositions,
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

    /// Stages the batch: new games get ids and are written with their fingerprints and players
    /// entries (invisible to readers until the commit), their positions are summed and spilled
    /// to `staging` as one sorted run, and `totals` and `run` count them. Duplicates (already
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
        self.summed.sum(&accepted);
        tracing::debug!(games = accepted.len(), positions = self.summed.len(), "staging batch");
        staging.add_run(self.summed.iter()).map_err(|err| store.staging_error(err))
    }
}

/// (key as integers, game index, next move, ply) of one occurrence.
type Occurrence = (KeyWords, u32, Option<CompactMove>, u32);

/// The statistics a batch adds to each position, encoded: one buffer, one byte range per key.
#[derive(Default)]
pub struct SummedPositions {
    /// Each position and where its value is in `bytes`.
    pub entries: Vec<(Key, std::ops::Range<usize>)>,
    /// Every value, one after the other.
    pub bytes: Vec<u8>,
    /// Every occurrence, sorted so that each key's games and moves are adjacent.
    occurrences: Vec<Occurrence>,
}

impl SummedPositions {
    /// Each position with its encoded value, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &[u8])> {
        self.entries.iter().map(|(key, range)| (key, &self.bytes[range.clone()]))
    }

    /// Positions summed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no position was summed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Replaces the contents with the statistics `games` add to each position they reach, in
    /// key order, reusing the buffers.
    pub fn sum(&mut self, games: &[PreparedGame]) {
        let occurrences = &mut self.occurrences;
        occurrences.clear();
        for (index, game) in games.iter().enumerate() {
            occurrences.extend(game.positions.iter().map(|&(key, next, ply)| (key.words(), index as u32, next, ply)));
        }
        occurrences.sort_unstable();
        self.entries.clear();
        self.bytes.clear();
        let mut moves = Vec::new();
        for group in occurrences.chunk_by(|a, b| a.0 == b.0) {
            let start = self.bytes.len();
            let first = &games[group[0].1 as usize];
            match group {
                // Most positions of a batch are reached by one game, playing one move from there.
                [(_, _, next, ply)] => layout::encode_game(&first.facts, *next, *ply, &mut self.bytes),
                _ => {
                    let mut stats: Option<PositionStats> = None;
                    for game_entries in group.chunk_by(|a, b| a.1 == b.1) {
                        let game = &games[game_entries[0].1 as usize];
                        moves.clear();
                        moves.extend(game_entries.iter().filter_map(|entry| entry.2));
                        let one = PositionStats::game(&game.facts, &moves);
                        match &mut stats {
                            None => stats = Some(one),
                            Some(stats) => stats.merge(&one),
                        }
                    }
                    if let Some(stats) = stats {
                        layout::encode(&stats, &mut self.bytes);
                    }
                }
            }
            self.entries.push((Key::from_words(group[0].0), start..self.bytes.len()));
        }
    }
}

/// The statistics `games` add to each position they reach, in key order.
pub fn sum_positions(games: &[PreparedGame]) -> SummedPositions {
    let mut summed = SummedPositions::default();
    summed.sum(games);
    summed
}
