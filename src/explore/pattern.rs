//! Pattern search: every distinct stored position tested against a [`Pattern`] once, however
//! many games reach it, then the games reached through the posting lists.
//!
//! The scan decodes keys straight into bitboards ([`Key::decode_board`], no validation: the
//! database only holds valid keys) and skips whole (category, material) key ranges that the
//! pattern's [`MaterialNeed`] or a `--material` signature rules out. Key ranges are split between
//! threads: the table files' first keys without a signature, one range per (category, material)
//! with one.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    time::Instant,
};

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::Color;

use super::{PositionHit, QueryError, Signature};
use crate::{
    Category, Key,
    codec::{KeyDecoder, Material, material_range},
    model::GameId,
    pattern::{MaterialNeed, Pattern, Scene},
    store::{FactsTable, ScanPart, Store, StoreError, layout},
};

/// Most positions a search lists.
pub const MAX_HITS: usize = 10_000;
/// Positions scanned between two progress updates.
const PROGRESS_EVERY: u64 = 1 << 14;

/// What to search for.
#[derive(Clone, Debug)]
pub struct PatternQuery {
    /// The pattern.
    pub pattern: Pattern,
    /// Only positions with this material (scans only its key ranges).
    pub material: Option<Signature>,
    /// Only positions with this side to move.
    pub side: Option<Color>,
    /// Positions listed, most frequent first (at most [`MAX_HITS`]).
    pub limit: usize,
}

/// A search's answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PatternSearch {
    /// Distinct positions matching.
    pub positions: u64,
    /// Games summed over them (a game reaching several counts for each).
    pub occurrences: u64,
    /// Distinct games reaching any matching position.
    pub games: u64,
    /// Of those, won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Distinct positions the pattern was evaluated on.
    pub scanned: u64,
    /// Wall time of the search.
    pub elapsed_ms: u64,
    /// Most frequent first, at most the limit.
    pub hits: Vec<PositionHit>,
    /// The distinct games, ascending (for game lists).
    #[serde(skip)]
    pub game_ids: Vec<GameId>,
}

/// Live counters of a running search, for progress display and interruption.
#[derive(Debug, Default)]
pub struct ScanProgress {
    /// Stored positions passed so far (evaluated or skipped by material).
    pub passed: AtomicU64,
    /// Set to stop the scan early: the search then fails with an "interrupted" error.
    pub stop: AtomicBool,
}

/// Game ids as a growable bit set.
#[derive(Clone, Debug, Default)]
struct GameSet(Vec<u64>);

impl GameSet {
    fn insert(&mut self, id: GameId) {
        let (word, bit) = ((id.0 / 64) as usize, id.0 % 64);
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    fn union(mut self, other: GameSet) -> GameSet {
        let (mut long, short) = if self.0.len() >= other.0.len() { (self.0, other.0) } else { (other.0, self.0) };
        for (a, b) in long.iter_mut().zip(short) {
            *a |= b;
        }
        self.0 = long;
        self
    }

    fn contains(&self, id: GameId) -> bool {
        self.0.get((id.0 / 64) as usize).is_some_and(|w| w & (1 << (id.0 % 64)) != 0)
    }

    fn ids(&self) -> impl Iterator<Item = GameId> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            (0..64).filter(move |bit| word & (1 << bit) != 0).map(move |bit| GameId(i as u64 * 64 + bit))
        })
    }
}

/// A hit as ranked: games (more first), then key (smaller first), then white/draws/black.
type Ranked = (u64, Reverse<Key>, [u64; 3]);

/// What one key range contributed.
#[derive(Debug, Default)]
struct Partial {
    positions: u64,
    occurrences: u64,
    scanned: u64,
    games: GameSet,
    /// Games whose result a one-game value gave, by result.
    results: [GameSet; 4],
    /// Min-heap of the most frequent hits.
    top: BinaryHeap<Reverse<Ranked>>,
}

impl Partial {
    fn merge(mut self, other: Partial, limit: usize) -> Partial {
        self.positions += other.positions;
        self.occurrences += other.occurrences;
        self.scanned += other.scanned;
        self.games = self.games.union(other.games);
        for (mine, theirs) in self.results.iter_mut().zip(other.results) {
            *mine = std::mem::take(mine).union(theirs);
        }
        for hit in other.top {
            push_bounded(&mut self.top, hit, limit);
        }
        self
    }
}

fn push_bounded<T: Ord>(heap: &mut BinaryHeap<Reverse<T>>, item: Reverse<T>, limit: usize) {
    if heap.len() < limit {
        heap.push(item);
    } else if limit > 0 && heap.peek().is_some_and(|smallest| item.0 > smallest.0) {
        heap.pop();
        heap.push(item);
    }
}

impl PatternQuery {
    /// Runs the search on every core.
    pub fn run(&self, store: &Store) -> Result<PatternSearch, QueryError> {
        self.run_with(store, &ScanProgress::default())
    }

    /// Runs the search, counting progress into `progress` and stopping when it says so.
    pub fn run_with(&self, store: &Store, progress: &ScanProgress) -> Result<PatternSearch, QueryError> {
        let started = Instant::now();
        let _steady = store.steady();
        let need = self.pattern.material_need();
        let limit = self.limit.min(MAX_HITS);
        let spans = self.spans(store, &need)?;
        let partial = spans
            .par_iter()
            // One decoder (and pawn-structure cache) per worker, not per span: a material
            // search has a span per (category, material).
            .map_init(KeyDecoder::default, |decoder, span| self.scan(store, span, decoder, &need, limit, progress))
            .try_reduce(Partial::default, |a, b| Ok(a.merge(b, limit)))?;
        if progress.stop.load(Ordering::Relaxed) {
            return Err(QueryError::input("search interrupted"));
        }
        let mut tally = [0u64; 4];
        let mut unknown = Vec::new();
        let game_ids: Vec<GameId> = partial.games.ids().collect();
        for &id in &game_ids {
            match partial.results.iter().position(|set| set.contains(id)) {
                Some(code) => tally[code] += 1,
                None => unknown.push(id),
            }
        }
        // Games only reached through multi-game positions: their records say the result.
        for chunk in unknown.chunks(4096) {
            for (id, record) in chunk.iter().zip(store.games(chunk)?) {
                let record = record.ok_or_else(|| store.corrupt(format!("game {id} of a posting list is missing")))?;
                tally[usize::from(layout::result_code(record.result))] += 1;
            }
        }
        let mut top = partial.top.into_vec();
        top.sort();
        let hits = top
            .into_iter()
            .map(|Reverse((games, Reverse(key), [white, draws, black]))| {
                PositionHit::of(&key, [games, white, draws, black])
                    .map_err(|err| store.corrupt(format!("position key {key}: {err}")))
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(PatternSearch {
            positions: partial.positions,
            occurrences: partial.occurrences,
            games: game_ids.len() as u64,
            white: tally[0],
            draws: tally[1],
            black: tally[2],
            scanned: partial.scanned,
            elapsed_ms: started.elapsed().as_millis() as u64,
            hits,
            game_ids,
        })
    }

    /// The parts to scan: the key ranges of the materials asked for, or everything.
    fn spans(&self, store: &Store, need: &MaterialNeed) -> Result<Vec<ScanPart>, QueryError> {
        if let Some(signature) = &self.material {
            let mut ranges = Vec::new();
            for material in signature.materials()?.iter().filter(|m| need.admits(m)) {
                for category in Category::all() {
                    if let Ok(range) = material_range(category, material) {
                        ranges.push(range);
                    }
                }
            }
            return Ok(ScanPart::of_materials(ranges));
        }
        Ok(store.scan_parts()?)
    }

    fn scan(
        &self,
        store: &Store,
        part: &ScanPart,
        decoder: &mut KeyDecoder,
        need: &MaterialNeed,
        limit: usize,
        progress: &ScanProgress,
    ) -> Result<Partial, QueryError> {
        let mut partial = Partial::default();
        // One-game values take their results from their games' facts.
        let facts = store.committed_facts()?;
        // The single-game tier's positions are evaluated on the boards its replay gives, and
        // only those that match are keyed (then read below like the others).
        let evaluated = AtomicU64::new(0);
        let matches = |chess: &shakmaty::Chess| {
            // A stopped scan (its client gone) replays on without evaluating anything.
            if progress.stop.load(Ordering::Relaxed)
                || !need.admits(&Material(shakmaty::Position::board(chess).material()))
            {
                return false;
            }
            evaluated.fetch_add(1, Ordering::Relaxed);
            self.side.is_none_or(|side| side == shakmaty::Position::turn(chess))
                && self.pattern.matches(&mut Scene::of_chess(chess))
        };
        let mut cursor = store.part_cursor_where(part, &matches)?;
        if part.is_tier() {
            // Every entry matched on its board already.
            while let Some((key_bytes, value)) = cursor.entry() {
                let key = Key::try_from(key_bytes).map_err(|_| store.corrupt("position key"))?;
                self.record(store, &facts, &mut partial, key, value, limit)?;
                cursor.next();
            }
            partial.scanned = evaluated.load(Ordering::Relaxed);
            progress.passed.fetch_add(partial.scanned, Ordering::Relaxed);
            return Ok(partial);
        }
        let check_material = !need.is_any();
        let mut skip_until: Option<Vec<u8>> = None;
        let mut passed = 0u64;
        while let Some((key_bytes, value)) = cursor.entry() {
            passed += 1;
            if passed.is_multiple_of(PROGRESS_EVERY) {
                progress.passed.fetch_add(PROGRESS_EVERY, Ordering::Relaxed);
                if progress.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            // A second key in a material block already ruled out: jump past the block.
            if let Some(bound) = &skip_until {
                if key_bytes < bound.as_slice() {
                    let bound = skip_until.take().unwrap_or_default();
                    cursor.seek(&bound);
                    continue;
                }
                skip_until = None;
            }
            let key = Key::try_from(key_bytes).map_err(|_| store.corrupt("position key"))?;
            let decoded = decoder
                .decode(&key, |_, material| !check_material || need.admits(material))
                .map_err(|err| store.corrupt(format!("position key {key}: {err}")))?;
            let Some(board) = decoded else {
                skip_until = decoder.block_range().map(|range| range.after_last());
                cursor.next();
                continue;
            };
            partial.scanned += 1;
            if self.side.is_none_or(|side| side == board.turn) && self.pattern.matches(&mut Scene::of_key_board(&board))
            {
                self.record(store, &facts, &mut partial, key, value, limit)?;
            }
            cursor.next();
        }
        cursor.status()?;
        progress.passed.fetch_add(passed % PROGRESS_EVERY, Ordering::Relaxed);
        Ok(partial)
    }

    fn record(
        &self,
        store: &Store,
        facts: &FactsTable,
        partial: &mut Partial,
        key: Key,
        value: &[u8],
        limit: usize,
    ) -> Result<(), StoreError> {
        let corrupt = || store.corrupt(format!("position {key}"));
        let seen = layout::occurrences(value, |id| store.facts_of(Some(facts), id).map(|game| game.result))
            .ok_or_else(corrupt)?;
        partial.positions += 1;
        partial.occurrences += seen.games;
        match seen.single {
            Some((id, result)) => {
                partial.games.insert(id);
                // Code 3 (unknown result) is known too: no record needs reading.
                partial.results[usize::from(layout::result_code(result))].insert(id);
            }
            None => {
                for id in layout::postings(value).ok_or_else(corrupt)?.iter() {
                    partial.games.insert(id);
                }
            }
        }
        push_bounded(
            &mut partial.top,
            Reverse((seen.games, Reverse(key), [seen.white, seen.draws, seen.black])),
            limit,
        );
        Ok(())
    }
}
