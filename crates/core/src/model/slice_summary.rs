//! A position's games summed by slice (month × speed × rating band), with each slice's
//! best-rated and most recent games: [`SliceSummary`]. Any filter made only of slices (dates by
//! month, speeds, rating bands: the lichess explorer's filters) is then answered from the
//! slices it keeps, however many games the position has, exactly as if every kept game were
//! counted one by one ([`PositionStats::of_kept_games`]). A position's [`Slice`]s for its
//! monthly history are the same sums.

use crate::codec::CompactMove;

use super::{
    GameFacts, GameId, GameRef, PositionStats, RECENT_GAMES, SLICE_GAMES, Slice, SliceKey, TOP_GAMES, Tally,
    leading::Leading,
    position_stats::{SeenGames, widen_years},
    slice_tree::{Coverage, FANOUT, SliceSet, TreeNode, levels_of, walk},
};

/// A position's games summed by slice, and the slices summed again in a tree: a filter keeps
/// whole subtrees (a range of months, sets of speeds and bands), so that a query adds up a few
/// dozen nodes rather than every slice.
///
/// ```
/// use tabiya_core::{codec::CompactMove, model::{Coverage, GameFacts, GameId, GameResult, Month, PositionStats, SliceSummary, Speed}};
///
/// let e4 = CompactMove::from_bits(12 | 28 << 6).unwrap();
/// let facts = |id: GameId| Some(GameFacts {
///     id, result: GameResult::WhiteWins, ratings: [Some(2600), Some(2600)],
///     month: Month::parse_bound(if id.0 == 1 { "1990-05" } else { "2015-01" }, false).unwrap(), speed: Speed::Unknown,
/// });
/// let stats = PositionStats::of_plays([(GameId(1), Some(e4)), (GameId(2), Some(e4))], facts).unwrap();
/// let summary = SliceSummary::of_games(&stats, facts).unwrap();
/// let since = Month::parse_bound("2000", false).unwrap();
/// let kept = summary.kept(|set| match (set.first_month >= since, set.last_month >= since) {
///     (true, _) => Coverage::Included,
///     (false, true) => Coverage::Mixed,
///     (false, false) => Coverage::Excluded,
/// }, false);
/// assert_eq!((kept.total.games, kept.min_year, kept.top[0].id), (1, 2015, GameId(2)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SliceSummary {
    /// The slices' keys, ascending by (speed, band, month): a speed and band's months follow
    /// one another, so that a range of months is a run of slices.
    keys: Vec<SliceKey>,
    /// `levels[0]`: the slices, as `keys`; each next level sums [`FANOUT`] nodes of the one
    /// below; the last has at most [`FANOUT`] nodes.
    levels: Vec<Vec<Node>>,
}

/// A slice, or a sum of neighbouring ones.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Node {
    set: SliceSet,
    /// The earliest and latest known year of its games (0: none known).
    years: (u16, u16),
    /// Each game once.
    total: Tally,
    /// Per next move, ascending by move bits.
    moves: Vec<(CompactMove, Tally)>,
    /// Best-rated first, at most [`TOP_GAMES`]: the best of a union are among its parts' best.
    top: Vec<GameRef>,
    /// Latest first, at most [`RECENT_GAMES`].
    recent: Vec<GameRef>,
}

impl SliceSummary {
    /// The summary of the games of `stats` (read with its games by move), from each game's
    /// facts; `None` when `facts` does not know one of them.
    pub fn of_games(stats: &PositionStats, facts: impl FnMut(GameId) -> Option<GameFacts>) -> Option<SliceSummary> {
        let mut leaves = leaves(stats, facts, TOP_GAMES, RECENT_GAMES)?;
        leaves.iter_mut().for_each(|(_, node)| node.shrink());
        leaves.sort_unstable_by_key(|(key, _)| (key.speed, key.band, key.month));
        let (keys, slices): (Vec<SliceKey>, Vec<Node>) = leaves.into_iter().unzip();
        Some(SliceSummary { keys, levels: levels_of(slices) })
    }

    /// The statistics of the games of the slices `cover` keeps (asked of every node's
    /// [`SliceSet`]; of a single slice, [`Coverage::Mixed`] keeps it): total, years, moves, top
    /// and recent games, and the kept slices (ascending by key) when `with_slices`; no posting
    /// list, no games by move.
    pub fn kept(&self, cover: impl FnMut(&SliceSet) -> Coverage, with_slices: bool) -> PositionStats {
        let mut sum = Summing::new();
        let mut slices = Vec::new();
        walk(&self.levels, cover, |node, level, at| {
            sum.add(node);
            if with_slices {
                let first = at * FANOUT.pow(level as u32);
                let count = FANOUT.pow(level as u32).min(self.keys.len() - first);
                slices.extend((first..first + count).map(|slice| self.slice(slice)));
            }
        });
        slices.sort_unstable_by_key(|slice: &Slice| slice.key);
        PositionStats {
            total: sum.total,
            min_year: sum.years.0,
            max_year: sum.years.1,
            moves: sum.moves,
            top: sum.top.into_sorted(),
            recent: sum.recent.into_sorted(),
            slices,
            ..PositionStats::default()
        }
    }

    /// The results and ratings of the games of the slices `cover` keeps, each game once.
    pub fn kept_tally(&self, cover: impl FnMut(&SliceSet) -> Coverage) -> Tally {
        let mut tally = Tally::default();
        walk(&self.levels, cover, |node, _, _| tally.add(&node.total));
        tally
    }

    fn slice(&self, at: usize) -> Slice {
        let node = &self.levels[0][at];
        Slice {
            key: self.keys[at],
            total: node.total,
            moves: node.moves.clone(),
            games: node.top.iter().take(SLICE_GAMES).copied().collect(),
        }
    }

    /// How many slices it sums.
    pub fn slice_count(&self) -> usize {
        self.keys.len()
    }

    /// How many games it sums.
    pub fn games(&self) -> u64 {
        self.levels.last().into_iter().flatten().map(|node| node.total.games).sum()
    }

    /// About the bytes it holds in memory.
    pub fn heap_bytes(&self) -> usize {
        let node = |node: &Node| {
            size_of::<Node>()
                + node.moves.capacity() * size_of::<(CompactMove, Tally)>()
                + (node.top.capacity() + node.recent.capacity()) * size_of::<GameRef>()
        };
        size_of::<SliceSummary>()
            + self.keys.capacity() * size_of::<SliceKey>()
            + self.levels.iter().flatten().map(node).sum::<usize>()
    }
}

impl Node {
    /// An empty slice's node.
    fn leaf(key: SliceKey) -> Node {
        let year = key.month.year().unwrap_or(0);
        Node {
            set: SliceSet::of(&key),
            years: (year, year),
            total: Tally::default(),
            moves: Vec::new(),
            top: Vec::new(),
            recent: Vec::new(),
        }
    }

    /// Gives back the room its lists were built with: a summary is kept a long time.
    fn shrink(&mut self) {
        self.moves.shrink_to_fit();
        self.top.shrink_to_fit();
        self.recent.shrink_to_fit();
    }
}

impl TreeNode for Node {
    fn set(&self) -> &SliceSet {
        &self.set
    }

    fn sum(nodes: &[Node]) -> Node {
        let mut set = nodes[0].set;
        let mut sum = Summing::new();
        for node in nodes {
            set.widen(&node.set);
            sum.add(node);
        }
        let mut node = Node {
            set,
            years: sum.years,
            total: sum.total,
            moves: sum.moves,
            top: sum.top.into_sorted(),
            recent: sum.recent.into_sorted(),
        };
        node.shrink();
        node
    }
}

/// Nodes being added up: what a sum of them holds, its best and latest games kept as they come.
struct Summing {
    total: Tally,
    years: (u16, u16),
    moves: Vec<(CompactMove, Tally)>,
    top: Leading<(std::cmp::Reverse<u16>, std::cmp::Reverse<GameId>)>,
    recent: Leading<(std::cmp::Reverse<u16>, std::cmp::Reverse<GameId>)>,
}

impl Summing {
    fn new() -> Summing {
        Summing {
            total: Tally::default(),
            years: (0, 0),
            moves: Vec::new(),
            top: Leading::new(TOP_GAMES, GameRef::by_rating),
            recent: Leading::new(RECENT_GAMES, GameRef::by_recency),
        }
    }

    fn add(&mut self, node: &Node) {
        self.total.add(&node.total);
        self.years = widen_years(self.years, node.years);
        add_moves(&mut self.moves, &node.moves);
        self.top.offer_ordered(&node.top);
        self.recent.offer_ordered(&node.recent);
    }
}

/// The slices of the games of `stats` (by their facts), each with its first `top` games by
/// rating and `recent` by recency; in no order.
fn leaves(
    stats: &PositionStats,
    mut facts: impl FnMut(GameId) -> Option<GameFacts>,
    top: usize,
    recent: usize,
) -> Option<Vec<(SliceKey, Node)>> {
    // Each slice's key and node, with its best and latest games kept as they come.
    let (mut keys, mut nodes, mut best, mut latest) = (Vec::new(), Vec::<Node>::new(), Vec::new(), Vec::new());
    let mut index: rustc_hash::FxHashMap<SliceKey, usize> = rustc_hash::FxHashMap::default();
    let mut seen = SeenGames::new(&stats.games_by_move);
    for (next, ids) in &stats.games_by_move {
        for &id in ids {
            let game = facts(id)?;
            let tally = Tally::game(game.result, game.ratings);
            let key = SliceKey::of(&game);
            let at = *index.entry(key).or_insert_with(|| {
                keys.push(key);
                nodes.push(Node::leaf(key));
                best.push(Leading::new(top, GameRef::by_rating));
                if recent > 0 {
                    latest.push(Leading::new(recent, GameRef::by_recency));
                }
                nodes.len() - 1
            });
            let node = &mut nodes[at];
            // A game repeating the position with another move counts once.
            if seen.first_time(id) {
                node.total.add(&tally);
                best[at].offer(GameRef::of(&game));
                if let Some(latest) = latest.get_mut(at) {
                    latest.offer(GameRef::of(&game));
                }
            }
            if let Some(m) = next {
                add_move(&mut node.moves, *m, &tally);
            }
        }
    }
    let mut latest = latest.into_iter();
    let leaves = keys.into_iter().zip(nodes).zip(best).map(move |((key, mut node), best)| {
        node.top = best.into_sorted();
        node.recent = latest.next().map(Leading::into_sorted).unwrap_or_default();
        (key, node)
    });
    Some(leaves.collect())
}

/// The slices of the games of `stats` (by their facts), ascending by key, each with its
/// [`SLICE_GAMES`] best-rated games: [`PositionStats::derive_slices`].
pub(super) fn slices_of(stats: &PositionStats, facts: impl FnMut(GameId) -> Option<GameFacts>) -> Option<Vec<Slice>> {
    let mut slices: Vec<Slice> = leaves(stats, facts, SLICE_GAMES, 0)?
        .into_iter()
        .map(|(key, node)| Slice { key, total: node.total, moves: node.moves, games: node.top })
        .collect();
    slices.sort_unstable_by_key(|slice| slice.key);
    Some(slices)
}

/// Adds the tallies of `other` to `moves` (both ascending by move), in place: a position has
/// few next moves.
fn add_moves(moves: &mut Vec<(CompactMove, Tally)>, other: &[(CompactMove, Tally)]) {
    for (m, tally) in other {
        add_move(moves, *m, tally);
    }
}

/// Adds `tally` to move `m`'s in `moves` (ascending by move), in place.
#[inline]
fn add_move(moves: &mut Vec<(CompactMove, Tally)>, m: CompactMove, tally: &Tally) {
    match moves.binary_search_by_key(&m, |(n, _)| *n) {
        Ok(at) => moves[at].1.add(tally),
        Err(at) => moves.insert(at, (m, *tally)),
    }
}
