//! The sequential part of indexing: drop duplicates, give games ids, write the games, sort the
//! batch's position occurrences and spill them to the staging area (a small batch's held in
//! memory and spilled with the next ones), where they wait for the run's commit (which sums
//! each position once, from all its occurrences).

use rayon::slice::ParallelSliceMut as _;
use rustc_hash::{FxHashMap, FxHashSet};

use super::prepare::PreparedGame;
use crate::{
    codec::{CompactMove, Key},
    model::{
        GameId, GameRecord, MoveNote, PlyNotes,
        twins::{TwinKey, are_twins},
    },
    store::{
        GameWrite, HeldRun, Occurrence, RunRecord, Staging, StoreError, Totals, Writer, memory_share, tier::PawnFiles,
    },
};

/// Batches of fewer new games than this (a run's last, or one of games mostly stored already:
/// an input ingested again, a collection that overlaps the database) are held in memory rather
/// than spilled as runs of their own.
const HELD_GAMES: usize = super::BATCH_GAMES / 4;

/// Bytes of small batches' runs held before they are spilled together, at the default memory
/// budget (scaled by `--memory`).
const HELD_BYTES: usize = 32 << 20;

/// Small batches' runs held at most: the commit merges every run, and keeps a few hundred run
/// files open at once.
const HELD_RUNS: usize = 64;

/// Games waiting to be committed together.
#[derive(Default)]
pub struct PendingBatch {
    games: Vec<PreparedGame>,
    /// Kept from batch to batch: fresh buffers of this size cost a page fault per 4 KB.
    sorted: SortedOccurrences,
}

impl PendingBatch {
    pub fn push(&mut self, game: PreparedGame) {
        self.games.push(game);
    }

    /// Stages the batch: new games get ids and are written with their fingerprints, facts and
    /// players entries (invisible to readers until the commit), their positions' occurrences are
    /// sorted and spilled to `staging` as one sorted run, and `totals` and `run` count them. Duplicates (already
    /// stored, staged earlier in this run, or earlier in the batch) are counted in `run`.
    ///
    /// With `skip_twins` (the fewest plies of a prefix twin), a game that is a twin of a stored
    /// game, one staged earlier in the run or one accepted earlier in the batch
    /// ([`are_twins`](crate::model::twins::are_twins)) is not indexed, and counted in `run`.
    pub fn stage(
        &mut self,
        store: &Writer,
        staging: &mut Staging,
        totals: &mut Totals,
        run: &mut RunRecord,
        skip_twins: Option<usize>,
    ) -> Result<(), StoreError> {
        let games = std::mem::take(&mut self.games);
        // Workers looked fingerprints up already; this catches games whose twin was committed
        // after that look-up. Duplicates, then twins, are found in the order the games were
        // read, so that of two copies the one read first stays.
        let fingerprints: Vec<_> = games.iter().map(|game| game.fingerprint).collect();
        let known = store.known_fingerprints(&fingerprints)?;
        let mut seen = FxHashSet::default();
        let mut kept: Vec<PreparedGame> = Vec::with_capacity(games.len());
        let mut batch_twins: FxHashMap<TwinKey, Vec<usize>> = FxHashMap::default();
        for (game, known) in games.into_iter().zip(known) {
            if known || !seen.insert(game.fingerprint) {
                run.counts.duplicates += 1;
                continue;
            }
            if let Some(min_prefix) = skip_twins {
                let twin = TwinKey::of(&game.record);
                let earlier = batch_twins.get(&twin).into_iter().flatten().map(|&at| &kept[at].record);
                if is_twin(store, &game.record, twin, earlier, min_prefix)? {
                    run.counts.twins += 1;
                    continue;
                }
                batch_twins.entry(twin).or_default().push(kept.len());
            }
            kept.push(game);
        }
        let mut games = kept;
        mainline_order(&mut games);
        let mut batch = store.batch();
        let mut accepted: Vec<PreparedGame> = Vec::with_capacity(games.len());
        for mut game in games {
            let id = GameId(totals.next_game_id.max(1));
            totals.next_game_id = id.0 + 1;
            totals.games += 1;
            totals.plies += game.record.plies() as u64;
            run.counts.indexed += 1;
            run.counts.annotations.add(&game.annotation_counts);
            game.facts.id = id;
            accepted.push(game);
        }
        // The accepted games' ids are consecutive: their facts are one run, which the commit
        // reads to build the games' positions.
        let written: Vec<GameWrite<'_>> = accepted
            .iter()
            .map(|game| GameWrite {
                fingerprint: game.fingerprint,
                facts: game.facts,
                record: &game.record,
                annotations: game.annotations.as_deref(),
            })
            .collect();
        batch.put_games(&written)?;
        batch.commit()?;
        if accepted.is_empty() {
            return Ok(());
        }
        let distinct = self.sorted.sort(&accepted);
        totals.position_occurrences += distinct;
        run.counts.positions_written += distinct;
        tracing::debug!(games = accepted.len(), occurrences = self.sorted.len(), "staging batch");
        let base = accepted[0].facts.id;
        if accepted.len() >= HELD_GAMES {
            return staging.add_run(base, self.sorted.iter(&accepted));
        }
        // A small batch: held, and spilled with the next small ones as one run. A run each
        // would make the commit merge hundreds of runs, one range at a time (the files it may
        // keep open).
        staging.hold(HeldRun::encode(base, self.sorted.iter(&accepted)));
        if staging.held_bytes() as f64 >= HELD_BYTES as f64 * memory_share() || staging.held_runs() >= HELD_RUNS {
            staging.spill_held()?;
        }
        Ok(())
    }
}

/// Whether `record` is a twin of a game stored under `twin` or of one of `earlier`.
fn is_twin<'a>(
    store: &Writer,
    record: &GameRecord,
    twin: TwinKey,
    earlier: impl Iterator<Item = &'a GameRecord>,
    min_prefix: usize,
) -> Result<bool, StoreError> {
    let twins = |other: &GameRecord| are_twins(record, other, min_prefix);
    if earlier.into_iter().any(twins) {
        return Ok(true);
    }
    let ids = store.twin_ids(twin)?;
    Ok(!ids.is_empty() && store.staged_games(&ids)?.iter().flatten().any(twins))
}

/// Puts a batch's games in the order they get ids: mainline order (a trie order: games sharing
/// an opening are adjacent), so a position's posting list holds runs of close ids, which
/// Leapfrog packs at two ids a byte. The sort is stable: of twins, the first read stays first.
pub fn mainline_order(games: &mut [PreparedGame]) {
    games.sort_by(|a, b| {
        (a.record.setup_fen(), a.record.move_bytes(), a.record.plies()).cmp(&(
            b.record.setup_fen(),
            b.record.move_bytes(),
            b.record.plies(),
        ))
    });
}

/// One occurrence packed for the batch's sort: the key as integers ([`Key::words`]), the last
/// one's spare low bits holding the position's pawn files (a function of the key, so they
/// change no order), then one integer of the game's index in the batch (from [`GAME_AT`]; ids
/// follow it), the next move's bits (from [`MOVE_AT`], 0 for none) and the ply (the low
/// [`PLY_BITS`]). Sorting them sorts by key, game, move, then ply.
type Packed = (u64, u64, u64, u64);

// The key's 21 bytes leave the last word's low 24 bits for the pawn files.
const _: () = assert!(crate::codec::KEY_LEN == 21 && u16::BITS <= 24);

/// Bits of a packed occurrence's ply: plies from 2^24 - 1 on are recorded as that (the
/// single-game tier takes only plies under 2^16, and nothing else reads them).
const PLY_BITS: u32 = 24;
const PLY_MAX: u64 = (1 << PLY_BITS) - 1;
/// Where a packed occurrence's move bits start.
const MOVE_AT: u32 = PLY_BITS;
/// Where a packed occurrence's game index starts, after the move's 16 bits.
const GAME_AT: u32 = MOVE_AT + u16::BITS;
// A batch's game indexes must fit above the move.
const _: () = assert!((super::BATCH_GAMES as u64) < 1 << (u64::BITS - GAME_AT));

/// A batch's occurrences in (key, game, move) order: what a sorted run holds.
#[derive(Default)]
pub struct SortedOccurrences {
    packed: Vec<Packed>,
}

impl SortedOccurrences {
    /// Replaces the contents with the occurrences of `games` (given ids in this order), sorted,
    /// a position repeated with the same move in a game once, at its first ply; reuses the
    /// buffer. Returns how many distinct (position, game) pairs there are.
    pub fn sort(&mut self, games: &[PreparedGame]) -> u64 {
        let packed = &mut self.packed;
        packed.clear();
        packed.reserve(games.iter().map(|game| game.positions.len()).sum());
        for (index, game) in games.iter().enumerate() {
            let high = (index as u64) << GAME_AT;
            packed.extend(game.positions.iter().enumerate().map(|(ply, &(key, next, files))| {
                let (a, b, c) = key.words();
                let c = c | u64::from(files.0);
                let bits = u64::from(next.map_or(0, CompactMove::bits));
                (a, b, c, high | bits << MOVE_AT | (ply as u64).min(PLY_MAX))
            }));
        }
        // On the pool: the writer is the pipeline's one serial stage, and this its largest step.
        packed.par_sort_unstable();
        // Everything but the ply: of a repeated (position, move), the first ply stays.
        packed.dedup_by_key(|entry| (entry.0, entry.1, entry.2, entry.3 >> MOVE_AT));
        let mut distinct = 0;
        let mut previous = None;
        for &(a, b, c, d) in packed.iter() {
            let pair = (a, b, c, d >> GAME_AT);
            distinct += u64::from(previous != Some(pair));
            previous = Some(pair);
        }
        distinct
    }

    /// Occurrences sorted.
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Each occurrence with its key, in order; `games` are those [`SortedOccurrences::sort`] had.
    pub fn iter<'a>(&'a self, games: &'a [PreparedGame]) -> impl Iterator<Item = (Key, Occurrence)> + 'a {
        // Occurrences come in key order, each of any game: a small table of the games' ids and
        // notes is read instead of each game's large record.
        let games: Vec<(GameId, &[MoveNote])> =
            games.iter().map(|game| (game.facts.id, &game.move_notes[..])).collect();
        self.packed.iter().map(move |&(a, b, c, d)| {
            let (game, notes) = games[(d >> GAME_AT) as usize];
            let ply = (d & PLY_MAX) as u32;
            let occurrence = Occurrence {
                game,
                // Bits of a move or 0, as packed.
                next: CompactMove::from_bits((d >> MOVE_AT) as u16),
                ply,
                pawn_files: PawnFiles(c as u16),
                // The first arrival is marked by the commit, which sees every ply.
                notes: PlyNotes::at(notes, ply as usize),
            };
            (Key::from_words((a, b, c)), occurrence)
        })
    }
}
