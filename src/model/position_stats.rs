//! Everything tabiya keeps about one position, [`PositionStats`]: how many games reached it,
//! with which results, ratings and years; the same per next move; its best-rated and most
//! recent games; all of that again split by month × speed × rating band (the [`Slice`]s), so
//! that filtered lookups read one value; and its posting list. Also how two of them add up
//! ([`PositionStats::merge`]), which the store's merge operator and the indexer's batches use.
//!
//! A game counts once for a position however often it repeats there, and once for each
//! distinct move it played from it. The bytes these are stored as are the store's
//! (`store::layout`).

use crate::codec::CompactMove;

use super::{GameFacts, GameId, GameRef, Month, RatingBand, Speed, Tally};

/// Best-rated games kept per position (the lichess masters explorer's maximum).
pub const TOP_GAMES: usize = 15;
/// Most recent games kept per position.
pub const RECENT_GAMES: usize = 8;
/// Best-rated games kept per slice, for filtered lookups.
pub const SLICE_GAMES: usize = 4;

/// Which games a slice holds: those of one month, speed and rating band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SliceKey {
    /// The games' month.
    pub month: Month,
    /// Their speed.
    pub speed: Speed,
    /// Their rating band.
    pub band: RatingBand,
}

/// A position's games of one [`SliceKey`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Which games.
    pub key: SliceKey,
    /// Their results and ratings.
    pub total: Tally,
    /// Per next move, ascending by move bits.
    pub moves: Vec<(CompactMove, Tally)>,
    /// Best-rated first, at most [`SLICE_GAMES`].
    pub games: Vec<GameRef>,
}

impl Slice {
    fn add(&mut self, other: &Slice) {
        self.total.add(&other.total);
        merge_moves(&mut self.moves, &other.moves);
        merge_games(&mut self.games, &other.games, SLICE_GAMES, GameRef::by_rating);
    }
}

/// Everything stored for one position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionStats {
    /// Every game reaching the position.
    pub total: Tally,
    /// Earliest and latest known year (0 when no game had one).
    pub min_year: u16,
    /// See `min_year`.
    pub max_year: u16,
    /// Per next move, ascending by move bits.
    pub moves: Vec<(CompactMove, Tally)>,
    /// Best-rated first, at most [`TOP_GAMES`].
    pub top: Vec<GameRef>,
    /// Latest first, at most [`RECENT_GAMES`].
    pub recent: Vec<GameRef>,
    /// Ascending by key; empty when read without them.
    pub slices: Vec<Slice>,
    /// Every game that reached the position, ascending (its posting list); empty when read
    /// without it.
    pub game_ids: Vec<GameId>,
}

impl PositionStats {
    /// One game reaching the position and playing `next` moves from it.
    pub fn game(facts: &GameFacts, next: &[CompactMove]) -> PositionStats {
        let tally = Tally::game(facts.result, facts.ratings);
        let year = facts.month.year().unwrap_or(0);
        let mut moves: Vec<_> = next.iter().map(|&m| (m, tally)).collect();
        moves.sort_unstable_by_key(|(m, _)| *m);
        moves.dedup_by_key(|(m, _)| *m);
        let game = GameRef::of(facts);
        let key = SliceKey { month: facts.month, speed: facts.speed, band: facts.band() };
        let slice = Slice { key, total: tally, moves: moves.clone(), games: vec![game] };
        PositionStats {
            total: tally,
            min_year: year,
            max_year: year,
            moves,
            top: vec![game],
            recent: vec![game],
            slices: vec![slice],
            game_ids: vec![facts.id],
        }
    }

    /// The next moves, most played first (then by move).
    pub fn moves_by_games(&self) -> Vec<(CompactMove, Tally)> {
        let mut moves = self.moves.clone();
        moves.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
        moves
    }

    /// Adds `other`'s games.
    pub fn merge(&mut self, other: &PositionStats) {
        self.total.add(&other.total);
        self.min_year = match (self.min_year, other.min_year) {
            (0, y) | (y, 0) => y,
            (a, b) => a.min(b),
        };
        self.max_year = self.max_year.max(other.max_year);
        merge_moves(&mut self.moves, &other.moves);
        merge_games(&mut self.top, &other.top, TOP_GAMES, GameRef::by_rating);
        merge_games(&mut self.recent, &other.recent, RECENT_GAMES, GameRef::by_recency);
        merge_ids(&mut self.game_ids, &other.game_ids);
        if other.slices.is_empty() {
            return;
        }
        // Adding one game to a position with many slices (a batch summing an opening position,
        // game by game) must not rebuild the whole list.
        if other.slices.len() <= 4 {
            for slice in &other.slices {
                match self.slices.binary_search_by_key(&slice.key, |s| s.key) {
                    Ok(index) => self.slices[index].add(slice),
                    Err(index) => self.slices.insert(index, slice.clone()),
                }
            }
            return;
        }
        let mut merged = Vec::with_capacity(self.slices.len() + other.slices.len());
        let mut mine = std::mem::take(&mut self.slices).into_iter().peekable();
        let mut theirs = other.slices.iter().peekable();
        loop {
            match (mine.peek(), theirs.peek()) {
                (Some(a), Some(b)) if a.key == b.key => {
                    let (mut a, b) = (mine.next().expect("peeked"), theirs.next().expect("peeked"));
                    a.add(b);
                    merged.push(a);
                }
                (Some(a), Some(b)) if a.key < b.key => merged.push(mine.next().expect("peeked")),
                (_, Some(_)) => merged.push(theirs.next().expect("peeked").clone()),
                (Some(_), None) => merged.push(mine.next().expect("peeked")),
                (None, None) => break,
            }
        }
        self.slices = merged;
    }
}

/// Sums `other`'s per-move tallies into `moves` (both ascending by move).
fn merge_moves(moves: &mut Vec<(CompactMove, Tally)>, other: &[(CompactMove, Tally)]) {
    if other.is_empty() {
        return;
    }
    let mut merged = Vec::with_capacity(moves.len() + other.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&(a, ta)), Some(&(b, tb))) = (moves.get(i), other.get(j)) {
        match a.cmp(&b) {
            std::cmp::Ordering::Less => {
                merged.push((a, ta));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                merged.push((b, tb));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let mut tally = ta;
                tally.add(&tb);
                merged.push((a, tally));
                i += 1;
                j += 1;
            }
        }
    }
    merged.extend_from_slice(&moves[i..]);
    merged.extend_from_slice(&other[j..]);
    *moves = merged;
}

/// Adds `other`'s ids to `ids` (both ascending); appending when they all come after, as ids
/// assigned in order do.
fn merge_ids(ids: &mut Vec<GameId>, other: &[GameId]) {
    match (ids.last(), other.first()) {
        (_, None) => {}
        (None, Some(_)) => ids.extend_from_slice(other),
        (Some(last), Some(first)) if last < first => ids.extend_from_slice(other),
        _ => *ids = crate::postings::union(ids.iter().copied(), other.iter().copied()).collect(),
    }
}

/// Keeps the first `limit` of both lists in `order` (top-k of a union is the top-k of the
/// parts' top-k, so merges in any grouping agree).
fn merge_games<K: Ord>(games: &mut Vec<GameRef>, other: &[GameRef], limit: usize, order: fn(&GameRef) -> K) {
    if other.is_empty() {
        return;
    }
    games.extend_from_slice(other);
    games.sort_unstable_by_key(order);
    games.truncate(limit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GameResult;

    fn mv(bits: u16) -> CompactMove {
        CompactMove::from_bits(bits).expect("valid move bits")
    }

    fn facts(id: u64, result: GameResult, ratings: [Option<u16>; 2], date: &str) -> GameFacts {
        GameFacts { id: GameId(id), result, ratings, month: Month::from_date(date), speed: Speed::Unknown }
    }

    #[test]
    fn repeated_moves_count_once_and_totals_add() {
        let a = PositionStats::game(
            &facts(1, GameResult::WhiteWins, [None, Some(2000)], "????.??.??"),
            &[mv(1 << 6), mv(1 << 6)],
        );
        let b = PositionStats::game(&facts(2, GameResult::BlackWins, [None, None], "1900.??.??"), &[mv(2 << 6)]);
        let mut sum = a.clone();
        sum.merge(&b);
        assert_eq!(sum.total.games, 2);
        assert_eq!((sum.total.white, sum.total.black, sum.total.black_rated), (1, 1, 1));
        assert_eq!((sum.min_year, sum.max_year), (1900, 1900));
        assert_eq!(sum.moves.len(), 2);
        assert_eq!(sum.moves[0].1.games, 1);
        assert_eq!(sum.top.iter().map(|g| g.id.0).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(sum.recent.iter().map(|g| g.id.0).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(sum.slices.len(), 2);
    }
}
