//! Pattern search: every distinct stored position tested against a [`Pattern`] once, however
//! many games reach it, then the games reached through the posting lists.
//!
//! The scan ([`Scanner::run`](crate::store::read::Scanner::run)) tests full-key positions on
//! the boards their keys decode to, and the single-game tier's on the boards their games'
//! replays reach (only those that match are keyed). It skips whole (category, material) key
//! ranges that the pattern's [`MaterialNeed`](crate::pattern::MaterialNeed) or a `--material`
//! signature rules out, and with a signature it scans only that signature's key ranges.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    sync::atomic::{AtomicU64, Ordering},
    time::Instant,
};

use serde::Serialize;
use shakmaty::Color;

use super::{
    Admission, Filter, PositionHit, QueryError, Signature,
    counting::kept_occurrences,
    distributed::{DistributedScan, chosen, run_whole},
};
use crate::{
    Key, Position,
    codec::Material,
    model::{GameFacts, GameId},
    pattern::{Pattern, Scene},
    position::Variant,
    store::{FactsTable, ScanFilter, ScanPart, ScanProgress, ScannedPosition, Snapshot, Store, StoreError},
};

/// Most positions a search lists.
pub const MAX_HITS: usize = 10_000;

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
    /// Which games count: a position counts with the games the filter keeps (none: not at
    /// all), and a single-game position of a game it refuses is never replayed to.
    pub filter: Filter,
    /// The variant whose positions are searched.
    pub variant: Variant,
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

/// Game ids as a growable bit set.
#[derive(Clone, Debug, Default, bincode::Encode, bincode::Decode)]
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

/// What a search found in some of its parts ([`DistributedScan::partial`]), shipped between
/// processes as bytes ([`to_bytes`](super::distributed::to_bytes)).
#[derive(Debug, Default, bincode::Encode, bincode::Decode)]
pub struct PatternPartial(Partial);

/// A hit as ranked: games (more first), then key (smaller first), then white/draws/black.
type Ranked = (u64, Reverse<Key>, [u64; 3]);

/// What one key range contributed.
#[derive(Debug, Default, bincode::Encode, bincode::Decode)]
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

    /// Runs the search, counting progress into `progress` and stopping when it says so (the
    /// search then fails with an "interrupted" error).
    pub fn run_with(&self, store: &Store, progress: &ScanProgress) -> Result<PatternSearch, QueryError> {
        run_whole(self, store, progress)
    }

    /// The parts a search scans (see [`Scanner::run`](crate::store::read::Scanner::run)): the
    /// key ranges of the materials asked for, or everything.
    fn scan_parts(&self, view: &Snapshot) -> Result<Vec<ScanPart>, QueryError> {
        let need = self.pattern.material_need();
        super::material::scan_parts(view, self.variant, self.material.as_ref(), |material| need.admits(material))
    }

    /// What the search finds in `parts` (some of [`PatternQuery::scan_parts`]).
    fn partial_of(
        &self,
        view: &Snapshot,
        parts: &[ScanPart],
        progress: &ScanProgress,
    ) -> Result<PatternPartial, QueryError> {
        let limit = self.limit.min(MAX_HITS);
        // One-game values take their results from their games' facts.
        let facts = view.facts().table()?;
        let admission = Admission::resolve(view, &self.filter)?;
        let admission = (!admission.is_everything()).then_some(&admission);
        // Full-key parts first: when their hits are positions of two games or more, as many as
        // are listed, no tier position (one game each) can be listed, and the tier's matches
        // are counted as the replays find them, without a key (keying and ordering them is
        // most of the cost of a pattern that matches nearly every position).
        let (family, tier): (Vec<ScanPart>, Vec<ScanPart>) =
            parts.iter().cloned().partition(|part| matches!(part, ScanPart::Family(_)));
        let mut partial = self.scan(view, &family, progress, &facts, admission, None)?;
        let whole_games = tier.iter().all(|part| matches!(part, ScanPart::TierGames(..)));
        let unkeyed = (whole_games && !tier.is_empty() && !partial.may_rank_one_game(limit))
            .then(|| view.totals().map(|totals| Unkeyed::new(totals.next_game_id)))
            .transpose()?;
        let rest = self.scan(view, &tier, progress, &facts, admission, unkeyed.as_ref())?;
        partial = partial.merge(rest, limit);
        if let Some(unkeyed) = unkeyed {
            partial = partial.merge(
                unkeyed.into_partial().map_err(|game| {
                    view.corrupt(format!("game {game}, reached by a tier position: no facts for it"))
                })?,
                limit,
            );
        }
        if progress.stopped() {
            return Err(QueryError::input("search interrupted"));
        }
        Ok(PatternPartial(partial))
    }

    /// Scans `parts`, counting the games `admission` admits (all without one); a tier position
    /// that matches is handed to `unkeyed` instead of being keyed and visited, when there is one.
    fn scan(
        &self,
        view: &Snapshot,
        parts: &[ScanPart],
        progress: &ScanProgress,
        facts: &FactsTable,
        admission: Option<&Admission>,
        unkeyed: Option<&Unkeyed>,
    ) -> Result<Partial, QueryError> {
        let need = self.pattern.material_need();
        // A standard signature's parts hold its materials only; Chess960's are its whole space.
        let admits_material =
            |material: &Material| need.admits(material) && self.material.is_none_or(|wanted| wanted.admits(material));
        let limit = self.limit.min(MAX_HITS);
        // The single-game tier's positions are tested on the boards its replay gives, counted here.
        let tested_on_replay = AtomicU64::new(0);
        let board = |position: &Position, game: GameId| {
            let chess = position.shakmaty();
            if !admits_material(&Material(shakmaty::Position::board(chess).material())) {
                return false;
            }
            tested_on_replay.fetch_add(1, Ordering::Relaxed);
            let matches = self.side.is_none_or(|side| side == shakmaty::Position::turn(chess))
                && self.pattern.matches(&mut Scene::of_position(position));
            match unkeyed {
                Some(unkeyed) if matches => {
                    unkeyed.record(game, facts);
                    false
                }
                _ => matches,
            }
        };
        let admits = |game: &GameFacts| admission.is_none_or(|admission| admission.admits(game));
        // A game without facts is replayed, to be refused as corrupt when one of its positions matches.
        let game = |id: GameId| admission.is_none() || facts.get(id).is_none_or(|g| admits(&g));
        let filter = ScanFilter { material: admits_material, board, game };
        let mut partial = view.scanner().of_variant(self.variant).run(
            parts,
            &filter,
            progress,
            |partial: &mut Partial, mut position: ScannedPosition<'_>| {
                if !position.board_tested {
                    let key = position.key;
                    let board = position.board()?;
                    partial.scanned += 1;
                    let matches = self.side.is_none_or(|side| side == board.turn)
                        && self.pattern.matches(&mut Scene::of_key(&key, board));
                    if !matches {
                        return Ok::<_, StoreError>(());
                    }
                }
                match admission {
                    None => partial.record(&position, facts, limit),
                    Some(_) => partial.record_kept(&position, facts, admits, limit),
                }
            },
            |a, b| a.merge(b, limit),
        )?;
        partial.scanned += tested_on_replay.load(Ordering::Relaxed);
        // A game whose facts could not be read was let through, or not counted.
        admission.map_or(Ok(()), |admission| admission.checked(()))?;
        Ok(facts.checked(partial)?)
    }

    /// The answer from `partial`, every part's merged; `started` is when the search started.
    fn answer_in(&self, view: &Snapshot, partial: Partial, started: Instant) -> Result<PatternSearch, QueryError> {
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
            for record in view.games().listed(chunk)? {
                tally[record.result.index()] += 1;
            }
        }
        let mut top = partial.top.into_vec();
        top.sort();
        let hits = top
            .into_iter()
            .map(|Reverse((games, Reverse(key), [white, draws, black]))| {
                PositionHit::of(view, &key, [games, white, draws, black])
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
}

impl DistributedScan for PatternQuery {
    type Partial = PatternPartial;
    type Answer = PatternSearch;

    fn part_count(&self, view: &Snapshot) -> Result<usize, QueryError> {
        Ok(self.scan_parts(view)?.len())
    }

    fn partial(
        &self,
        view: &Snapshot,
        numbers: &[usize],
        progress: &ScanProgress,
    ) -> Result<PatternPartial, QueryError> {
        let parts = chosen(&self.scan_parts(view)?, numbers)?;
        self.partial_of(view, &parts, progress)
    }

    fn answer(
        &self,
        view: &Snapshot,
        partials: Vec<PatternPartial>,
        started: Instant,
    ) -> Result<PatternSearch, QueryError> {
        let limit = self.limit.min(MAX_HITS);
        let partial = partials.into_iter().fold(Partial::default(), |all, part| all.merge(part.0, limit));
        self.answer_in(view, partial, started)
    }
}

impl Partial {
    /// Whether a position of one game could still be listed among `limit` hits.
    fn may_rank_one_game(&self, limit: usize) -> bool {
        limit > 0 && (self.top.len() < limit || self.top.peek().is_none_or(|Reverse((games, ..))| *games < 2))
    }

    /// Counts a matching position: its games, and its rank among the hits.
    fn record(&mut self, position: &ScannedPosition, facts: &FactsTable, limit: usize) -> Result<(), StoreError> {
        let seen = position.results(facts)?;
        self.positions += 1;
        self.occurrences += seen.games;
        match seen.single {
            Some((id, result)) => {
                self.games.insert(id);
                // Code 3 (unknown result) is known too: no record needs reading.
                self.results[result.index()].insert(id);
            }
            None => {
                for id in position.games()?.iter() {
                    self.games.insert(id);
                }
            }
        }
        push_bounded(
            &mut self.top,
            Reverse((seen.games, Reverse(position.key), [seen.white, seen.draws, seen.black])),
            limit,
        );
        Ok(())
    }

    /// Counts a matching position with the games `admits` admits (not at all when it admits
    /// none): their results from their facts.
    fn record_kept(
        &mut self,
        position: &ScannedPosition,
        facts: &FactsTable,
        admits: impl Fn(&GameFacts) -> bool,
        limit: usize,
    ) -> Result<(), StoreError> {
        let (games, results) = (&mut self.games, &mut self.results);
        let seen = kept_occurrences(position, facts, admits, |game| {
            games.insert(game.id);
            results[game.result.index()].insert(game.id);
        })?;
        if seen.games == 0 {
            return Ok(());
        }
        self.positions += 1;
        self.occurrences += seen.games;
        push_bounded(
            &mut self.top,
            Reverse((seen.games, Reverse(position.key), [seen.white, seen.draws, seen.black])),
            limit,
        );
        Ok(())
    }
}

/// Matching tier positions (one game each) counted as the replays find them, from every core,
/// without a key: their games and, by their games' results, the games of each result.
struct Unkeyed {
    positions: AtomicU64,
    games: Vec<AtomicU64>,
    results: [Vec<AtomicU64>; 4],
    /// A game without facts (corrupt data), if any.
    lacking: std::sync::Mutex<Option<GameId>>,
}

impl Unkeyed {
    /// Room for games below `next_game_id`.
    fn new(next_game_id: u64) -> Unkeyed {
        let words = || (0..next_game_id.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Unkeyed {
            positions: AtomicU64::new(0),
            games: words(),
            results: [words(), words(), words(), words()],
            lacking: std::sync::Mutex::new(None),
        }
    }

    fn record(&self, game: GameId, facts: &FactsTable) {
        let (word, bit) = ((game.0 / 64) as usize, 1 << (game.0 % 64));
        let result = facts.get(game).map(|facts| facts.result.index());
        match (self.games.get(word), result) {
            (Some(games), Some(result)) => {
                self.positions.fetch_add(1, Ordering::Relaxed);
                games.fetch_or(bit, Ordering::Relaxed);
                self.results[result][word].fetch_or(bit, Ordering::Relaxed);
            }
            _ => {
                self.lacking.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(game);
            }
        }
    }

    /// What was counted, as a partial answer; the game lacking facts, if any.
    fn into_partial(self) -> Result<Partial, GameId> {
        if let Some(game) = self.lacking.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            return Err(game);
        }
        let set = |words: Vec<AtomicU64>| GameSet(words.into_iter().map(AtomicU64::into_inner).collect());
        let positions = self.positions.into_inner();
        Ok(Partial {
            positions,
            // One game each.
            occurrences: positions,
            games: set(self.games),
            results: self.results.map(set),
            ..Partial::default()
        })
    }
}
