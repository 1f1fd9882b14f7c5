//! Everything tabiya knows about one position, [`PositionStats`]: how many games reached it,
//! with which results, ratings and years; the same per next move; its best-rated and most
//! recent games; which games played each next move; and, derived from those games' facts when
//! read, all of that again split by month × speed × rating band (the [`Slice`]s) for filtered
//! lookups. Also how they are built from a position's games ([`PositionStats::of_plays`], which
//! a commit uses) and how two of them add up ([`PositionStats::merge`]).
//!
//! A game counts once for a position however often it repeats there, and once for each
//! distinct move it played from it. The bytes these are stored as are the store's
//! (`store::layout`).

use crate::codec::CompactMove;

use super::{GameFacts, GameId, GameRef, Month, RatingBand, Speed, Tally, leading::Leading};

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

impl SliceKey {
    /// The slice a game belongs to.
    pub fn of(facts: &GameFacts) -> SliceKey {
        SliceKey { month: facts.month, speed: facts.speed, band: facts.band() }
    }
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
    /// Ascending by key; derived from `games_by_move` and the games' facts
    /// ([`PositionStats::derive_slices`]), never stored; empty when read without them.
    pub slices: Vec<Slice>,
    /// Every game that reached the position, ascending (its posting list); empty when read
    /// without it.
    pub game_ids: Vec<GameId>,
    /// Per next move (`None`: games that ended in the position), the games that played it,
    /// ascending by move, each list ascending; empty when read with the head only.
    pub games_by_move: Vec<(Option<CompactMove>, Vec<GameId>)>,
}

impl PositionStats {
    /// One game reaching the position and playing `next` moves from it (without slices: see
    /// [`PositionStats::derive_slices`]).
    pub fn game(facts: &GameFacts, next: &[CompactMove]) -> PositionStats {
        let tally = Tally::game(facts.result, facts.ratings);
        let year = facts.month.year().unwrap_or(0);
        let mut moves: Vec<_> = next.iter().map(|&m| (m, tally)).collect();
        moves.sort_unstable_by_key(|(m, _)| *m);
        moves.dedup_by_key(|(m, _)| *m);
        let games_by_move = match moves.is_empty() {
            true => vec![(None, vec![facts.id])],
            false => moves.iter().map(|&(m, _)| (Some(m), vec![facts.id])).collect(),
        };
        let game = GameRef::of(facts);
        PositionStats {
            total: tally,
            min_year: year,
            max_year: year,
            moves,
            top: vec![game],
            recent: vec![game],
            slices: Vec::new(),
            game_ids: vec![facts.id],
            games_by_move,
        }
    }

    /// The statistics of the games in `plays`, each (game, move it played from the position,
    /// `None`: it ended there), strictly ascending, with each game's facts from `facts` (without
    /// slices: see [`PositionStats::derive_slices`]): equal to merging [`PositionStats::game`]
    /// of each game with its moves, in one pass. `None` for no play, plays out of order, or a
    /// game `facts` does not know.
    ///
    /// ```
    /// use tabiya_core::{codec::CompactMove, model::{GameFacts, GameId, GameResult, Month, PositionStats, Speed}};
    ///
    /// let facts = |id| Some(GameFacts {
    ///     id, result: GameResult::Draw, ratings: [Some(2500), None], month: Month::UNKNOWN, speed: Speed::Unknown,
    /// });
    /// let e4 = CompactMove::from_bits(12 | 28 << 6);
    /// let stats = PositionStats::of_plays([(GameId(1), e4), (GameId(2), e4), (GameId(3), None)], facts).unwrap();
    /// assert_eq!((stats.total.games, stats.total.draws, stats.moves.len()), (3, 3, 1));
    /// assert_eq!(stats.games_by_move[0], (None, vec![GameId(3)]));
    /// ```
    pub fn of_plays(
        plays: impl IntoIterator<Item = (GameId, Option<CompactMove>)>,
        mut facts: impl FnMut(GameId) -> Option<GameFacts>,
    ) -> Option<PositionStats> {
        let mut stats = PositionStats::default();
        let mut lines: Vec<(Option<CompactMove>, GameId)> = Vec::new();
        let (mut top, mut recent) =
            (Leading::new(TOP_GAMES, GameRef::by_rating), Leading::new(RECENT_GAMES, GameRef::by_recency));
        let mut previous: Option<(GameId, Option<CompactMove>)> = None;
        let mut tally = Tally::default();
        for (id, next) in plays {
            if previous.is_some_and(|previous| previous >= (id, next)) {
                return None;
            }
            if previous.is_none_or(|(game, _)| game != id) {
                let game = facts(id)?;
                tally = Tally::game(game.result, game.ratings);
                stats.total.add(&tally);
                let year = game.month.year().unwrap_or(0);
                stats.add_years(year, year);
                top.offer(GameRef::of(&game));
                recent.offer(GameRef::of(&game));
                stats.game_ids.push(id);
            }
            previous = Some((id, next));
            let Some(m) = next else {
                lines.push((None, id));
                continue;
            };
            // A game that also ended in the position counts only for its moves (`None` sorts first).
            if lines.last() == Some(&(None, id)) {
                lines.pop();
            }
            lines.push((Some(m), id));
            match stats.moves.binary_search_by_key(&m, |(n, _)| *n) {
                Ok(at) => stats.moves[at].1.add(&tally),
                Err(at) => stats.moves.insert(at, (m, tally)),
            }
        }
        previous?;
        // Stable: each move's games stay ascending.
        lines.sort_by_key(|(m, _)| *m);
        for group in lines.chunk_by(|a, b| a.0 == b.0) {
            stats.games_by_move.push((group[0].0, group.iter().map(|(_, id)| *id).collect()));
        }
        stats.top = top.into_sorted();
        stats.recent = recent.into_sorted();
        Some(stats)
    }

    /// The statistics of the games of `stats` (read with its games by move) that `keep` admits,
    /// from each game's facts (`None` from `facts`, a game it does not know, fails): equal to
    /// merging [`PositionStats::game`] of each kept game, without slices and posting list. Top
    /// and recent games are exact, chosen among every kept game.
    pub fn of_kept_games(
        stats: &PositionStats,
        mut facts: impl FnMut(GameId) -> Option<GameFacts>,
        mut keep: impl FnMut(&GameFacts) -> bool,
    ) -> Option<PositionStats> {
        let mut kept = PositionStats::default();
        let (mut top, mut recent) =
            (Leading::new(TOP_GAMES, GameRef::by_rating), Leading::new(RECENT_GAMES, GameRef::by_recency));
        let mut seen = SeenGames::new(&stats.games_by_move);
        for (next, ids) in &stats.games_by_move {
            let mut tally = Tally::default();
            let mut kept_ids = Vec::with_capacity(ids.len());
            for &id in ids {
                let game = facts(id)?;
                if !keep(&game) {
                    continue;
                }
                let one = Tally::game(game.result, game.ratings);
                tally.add(&one);
                kept_ids.push(id);
                // A game repeating the position with another move counts once.
                if seen.first_time(id) {
                    kept.total.add(&one);
                    let year = game.month.year().unwrap_or(0);
                    kept.add_years(year, year);
                    let game = GameRef::of(&game);
                    top.offer(game);
                    recent.offer(game);
                }
            }
            if kept_ids.is_empty() {
                continue;
            }
            if let Some(m) = next {
                kept.moves.push((*m, tally));
            }
            kept.games_by_move.push((*next, kept_ids));
        }
        kept.top = top.into_sorted();
        kept.recent = recent.into_sorted();
        Some(kept)
    }

    /// The results and ratings of the distinct games of `games_by_move` that `keep` admits by
    /// their facts (`None` from `facts`, a game it does not know, fails): the total of
    /// [`PositionStats::of_kept_games`] without the rest of its work.
    pub fn kept_tally(
        &self,
        mut facts: impl FnMut(GameId) -> Option<GameFacts>,
        mut keep: impl FnMut(&GameFacts) -> bool,
    ) -> Option<Tally> {
        let mut kept = Tally::default();
        let mut seen = SeenGames::new(&self.games_by_move);
        for &id in self.games_by_move.iter().flat_map(|(_, ids)| ids) {
            let game = facts(id)?;
            if keep(&game) && seen.first_time(id) {
                kept.add(&Tally::game(game.result, game.ratings));
            }
        }
        Some(kept)
    }

    /// Fills `slices` from `games_by_move` and each game's facts (`None` from `facts`, a game
    /// it does not know, fails): the sum of the slice every game alone makes, as if each game
    /// were merged in on its own.
    pub fn derive_slices(&mut self, facts: impl FnMut(GameId) -> Option<GameFacts>) -> Option<()> {
        self.slices = super::slice_summary::slices_of(self, facts)?;
        Some(())
    }

    /// Widens the known years to `min..=max` (0: no year known).
    fn add_years(&mut self, min: u16, max: u16) {
        (self.min_year, self.max_year) = widen_years((self.min_year, self.max_year), (min, max));
    }

    /// The highest id among the games by move.
    pub fn highest_game(&self) -> Option<GameId> {
        highest_game(&self.games_by_move)
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
        self.add_years(other.min_year, other.max_year);
        merge_moves(&mut self.moves, &other.moves);
        merge_games(&mut self.top, &other.top, TOP_GAMES, GameRef::by_rating);
        merge_games(&mut self.recent, &other.recent, RECENT_GAMES, GameRef::by_recency);
        merge_ids(&mut self.game_ids, &other.game_ids);
        merge_games_by_move(&mut self.games_by_move, &other.games_by_move);
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

/// The highest id among games by move (each list ascending).
fn highest_game(games_by_move: &[(Option<CompactMove>, Vec<GameId>)]) -> Option<GameId> {
    games_by_move.iter().filter_map(|(_, ids)| ids.last()).max().copied()
}

/// Known years `years` (earliest, latest; 0: none known) widened to `other`.
pub(super) fn widen_years(years: (u16, u16), other: (u16, u16)) -> (u16, u16) {
    let min = match (years.0, other.0) {
        (0, y) | (y, 0) => y,
        (a, b) => a.min(b),
    };
    (min, years.1.max(other.1))
}

/// Which games a walk over a position's games by move has met (a game repeating the position
/// with two different moves is in two lists).
pub(super) enum SeenGames {
    /// One list: every game is met once.
    One,
    /// A bit per id: many games among few ids.
    Bits(Vec<u64>),
    /// Few games among many ids.
    Set(rustc_hash::FxHashSet<GameId>),
}

impl SeenGames {
    pub(super) fn new(games_by_move: &[(Option<CompactMove>, Vec<GameId>)]) -> SeenGames {
        if games_by_move.len() <= 1 {
            return SeenGames::One;
        }
        let highest = highest_game(games_by_move).map_or(0, |id| id.0);
        let games: usize = games_by_move.iter().map(|(_, ids)| ids.len()).sum();
        match usize::try_from(highest / 64 + 1) {
            Ok(words) if words <= 4 * games => SeenGames::Bits(vec![0; words]),
            _ => SeenGames::Set(rustc_hash::FxHashSet::default()),
        }
    }

    /// Whether `id` is met for the first time.
    pub(super) fn first_time(&mut self, id: GameId) -> bool {
        match self {
            SeenGames::One => true,
            SeenGames::Set(set) => set.insert(id),
            SeenGames::Bits(bits) => {
                let Some(word) = bits.get_mut((id.0 / 64) as usize) else {
                    return true;
                };
                let bit = 1u64 << (id.0 % 64);
                let first = *word & bit == 0;
                *word |= bit;
                first
            }
        }
    }
}

/// Adds `other`'s games per move to `games` (both ascending by move).
fn merge_games_by_move(
    games: &mut Vec<(Option<CompactMove>, Vec<GameId>)>,
    other: &[(Option<CompactMove>, Vec<GameId>)],
) {
    for (m, ids) in other {
        match games.binary_search_by_key(m, |(n, _)| *n) {
            Ok(at) => merge_ids(&mut games[at].1, ids),
            Err(at) => games.insert(at, (*m, ids.clone())),
        }
    }
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
    use proptest::prelude::*;

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
        let games = [
            facts(1, GameResult::WhiteWins, [None, Some(2000)], "????.??.??"),
            facts(2, GameResult::BlackWins, [None, None], "1900.??.??"),
        ];
        let a = PositionStats::game(&games[0], &[mv(1 << 6), mv(1 << 6)]);
        let b = PositionStats::game(&games[1], &[mv(2 << 6)]);
        let mut sum = a.clone();
        sum.merge(&b);
        assert_eq!(sum.total.games, 2);
        assert_eq!((sum.total.white, sum.total.black, sum.total.black_rated), (1, 1, 1));
        assert_eq!((sum.min_year, sum.max_year), (1900, 1900));
        assert_eq!(sum.moves.len(), 2);
        assert_eq!(sum.moves[0].1.games, 1);
        assert_eq!(sum.top.iter().map(|g| g.id.0).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(sum.recent.iter().map(|g| g.id.0).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(sum.games_by_move, [(Some(mv(1 << 6)), vec![GameId(1)]), (Some(mv(2 << 6)), vec![GameId(2)])]);
        sum.derive_slices(|id| games.iter().find(|g| g.id == id).copied()).expect("every game known");
        assert_eq!(sum.slices.len(), 2);
        assert!(sum.derive_slices(|_| None).is_none());
    }

    /// Slices derived from the games equal those of games merged one by one (the slices a
    /// position had when they were stored), here with games sharing slices and repeating the
    /// position with two different moves.
    #[test]
    fn derived_slices_are_the_sum_of_each_game_slice() {
        let month = "2020.05.??";
        let games = [
            (facts(3, GameResult::Draw, [Some(2410), Some(2390)], month), vec![mv(1 << 6)]),
            (facts(5, GameResult::WhiteWins, [Some(2450), Some(2350)], month), vec![mv(1 << 6), mv(2 << 6)]),
            (facts(8, GameResult::BlackWins, [Some(1500), None], month), vec![]),
            (facts(9, GameResult::BlackWins, [Some(2400), Some(2400)], "2021.01.01"), vec![mv(2 << 6)]),
        ];
        let mut sum = PositionStats::default();
        let mut expected: Vec<Slice> = Vec::new();
        for (facts, next) in &games {
            sum.merge(&PositionStats::game(facts, next));
            let mut one = PositionStats::game(facts, next);
            one.derive_slices(|_| Some(*facts)).expect("its own game");
            let [slice] = one.slices.as_slice() else { panic!("one game, one slice") };
            match expected.iter_mut().find(|s| s.key == slice.key) {
                Some(known) => known.add(slice),
                None => expected.push(slice.clone()),
            }
        }
        expected.sort_by_key(|s| s.key);
        sum.derive_slices(|id| games.iter().map(|(f, _)| *f).find(|f| f.id == id)).expect("every game known");
        assert_eq!(sum.slices, expected);
        assert_eq!(sum.slices.len(), 3);
        // Kept games give what merging those games alone gives.
        let find = |id: GameId| games.iter().map(|(f, _)| *f).find(|f| f.id == id);
        for keep in [[true, true, true, true], [false, true, false, true], [true, false, true, false], [false; 4]] {
            let mut expected = PositionStats::default();
            for ((facts, next), _) in games.iter().zip(keep).filter(|(_, kept)| *kept) {
                expected.merge(&PositionStats::game(facts, next));
            }
            let keeps = |f: &GameFacts| keep[games.iter().position(|(g, _)| g.id == f.id).unwrap_or(0)];
            let kept = PositionStats::of_kept_games(&sum, find, keeps).expect("every game known");
            assert_eq!(sum.kept_tally(find, keeps), Some(expected.total));
            assert_eq!(kept, PositionStats { game_ids: Vec::new(), ..expected });
        }
        assert_eq!(sum.slices[1].total.games, 2, "games 3 and 5 share month, speed and band");
        assert_eq!(sum.slices[1].moves.len(), 2);
    }

    fn arb_plays() -> impl Strategy<Value = Vec<(GameId, Vec<Option<CompactMove>>)>> {
        // Up to 40 games of ids 1..200, each with up to 3 of 4 moves or none.
        let moves = proptest::collection::btree_set(proptest::option::of(1u16..5), 1..4);
        proptest::collection::btree_map(1u64..200, moves, 1..40).prop_map(|games| {
            games
                .into_iter()
                .map(|(id, moves)| (GameId(id), moves.into_iter().map(|m| m.map(|b| mv(b << 6))).collect()))
                .collect()
        })
    }

    fn facts_of(id: GameId) -> GameFacts {
        let result =
            [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown][id.0 as usize % 4];
        let rating =
            |salt: u64| (!(id.0 * salt).is_multiple_of(5)).then_some(1500 + ((id.0 * salt * 37) % 1200) as u16);
        let month = Month::from_date(&format!("{}.{:02}.01", 1990 + id.0 % 7, 1 + id.0 % 12));
        GameFacts {
            id,
            result,
            ratings: [rating(3), rating(7)],
            month: if id.0.is_multiple_of(9) { Month::UNKNOWN } else { month },
            speed: Speed::Unknown,
        }
    }

    proptest::proptest! {
        /// Building from plays in one pass gives what merging each game's own value gives.
        #[test]
        fn plays_build_what_merging_each_game_builds(games in arb_plays()) {
            let mut merged = PositionStats::default();
            for (id, moves) in &games {
                let next: Vec<CompactMove> = moves.iter().flatten().copied().collect();
                merged.merge(&PositionStats::game(&facts_of(*id), &next));
            }
            let plays = games.iter().flat_map(|(id, moves)| moves.iter().map(move |m| (*id, *m)));
            let built = PositionStats::of_plays(plays.clone(), |id| Some(facts_of(id)));
            proptest::prop_assert_eq!(built, Some(merged));
            // Out of order, repeated or unknown games are refused.
            let mut reversed: Vec<_> = plays.clone().collect();
            reversed.reverse();
            let unordered = reversed.len() > 1;
            proptest::prop_assert_eq!(PositionStats::of_plays(reversed, |id| Some(facts_of(id))).is_none(), unordered);
            let twice = plays.clone().flat_map(|play| [play, play]);
            proptest::prop_assert!(PositionStats::of_plays(twice, |id| Some(facts_of(id))).is_none());
            proptest::prop_assert!(PositionStats::of_plays(plays, |_| None).is_none());
        }

        /// A kept tally counts each kept game once, however many moves it played.
        #[test]
        fn kept_tally_counts_each_kept_game_once(games in arb_plays(), salt in 1u64..7) {
            let keep = |facts: &GameFacts| !(facts.id.0 * salt).is_multiple_of(3);
            let mut merged = PositionStats::default();
            for (id, moves) in games.iter().filter(|(id, _)| keep(&facts_of(*id))) {
                let next: Vec<CompactMove> = moves.iter().flatten().copied().collect();
                merged.merge(&PositionStats::game(&facts_of(*id), &next));
            }
            let plays = games.iter().flat_map(|(id, moves)| moves.iter().map(move |m| (*id, *m)));
            let built = PositionStats::of_plays(plays, |id| Some(facts_of(id))).expect("ordered plays");
            proptest::prop_assert_eq!(built.kept_tally(|id| Some(facts_of(id)), keep), Some(merged.total));
            proptest::prop_assert_eq!(built.kept_tally(|_| None, keep), None);
        }
    }
}
