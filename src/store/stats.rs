//! The value of a position: how many games reached it, with which results, ratings and years;
//! the same per next move; its best-rated and most recent games; and all of that again split by
//! month × speed × rating band (the *slices*), so that filtered lookups read one value. Also its
//! byte layout and the merge that sums two values.
//!
//! Layout (varints are LEB128, moves are [`CompactMove`] bits as little-endian u16, a tally is
//! the varints `games white draws black white_rating_sum white_rated black_rating_sum
//! black_rated`, a game reference the varints `id rating month`):
//!
//! * **one game** — the common case (most positions occur in a single game), byte 0 ≠ 0xff:
//!   bits 0–1 result (0 white won, 1 draw, 2 black won, 3 unknown), bit 2 White rated, bit 3
//!   Black rated, bit 4 a next move follows, bits 5–7 the [`Speed`]; then White's and Black's
//!   ratings (varints, when rated), the [`Month`] (varint), the move (2 bytes), the game id
//!   (varint). Typically 11–13 bytes; everything else is derived.
//! * **general** — byte 0 = 0xff, the total tally, varints `min_year max_year`, the moves
//!   (count, then per move ascending its 2 bytes and tally), the top games and the recent games
//!   (count, then references), the byte length of what follows (so unfiltered lookups skip it),
//!   and the slices: count, then per slice (ascending month, speed, band) varint month, a byte
//!   `speed << 5 | band`, the tally, the moves as above, and its best-rated games (count, then
//!   varints `id rating`).
//!
//! A game counts once for a position however often it repeats there, and once for each
//! distinct move it played from it.

use std::cmp::Reverse;

use shakmaty::Color;

use super::facets::{GameFacts, Month, RatingBand, Speed};
use crate::{
    codec::CompactMove,
    ingest::GameResult,
    postings::PostingList,
    varint::{get_varint, put_varint, take_byte},
};

/// Best-rated games kept per position (the lichess masters explorer's maximum).
pub const TOP_GAMES: usize = 15;
/// Most recent games kept per position.
pub const RECENT_GAMES: usize = 8;
/// Best-rated games kept per slice, for filtered lookups.
pub const SLICE_GAMES: usize = 4;

/// Game counts by result, with rating sums per colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub white_rating_sum: u64,
    pub white_rated: u64,
    pub black_rating_sum: u64,
    pub black_rated: u64,
}

impl Tally {
    /// One game's contribution.
    pub fn game(result: GameResult, [white, black]: [Option<u16>; 2]) -> Tally {
        Tally {
            games: 1,
            white: u64::from(result == GameResult::WhiteWins),
            draws: u64::from(result == GameResult::Draw),
            black: u64::from(result == GameResult::BlackWins),
            white_rating_sum: white.map_or(0, u64::from),
            white_rated: u64::from(white.is_some()),
            black_rating_sum: black.map_or(0, u64::from),
            black_rated: u64::from(black.is_some()),
        }
    }

    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.white += other.white;
        self.draws += other.draws;
        self.black += other.black;
        self.white_rating_sum += other.white_rating_sum;
        self.white_rated += other.white_rated;
        self.black_rating_sum += other.black_rating_sum;
        self.black_rated += other.black_rated;
    }

    /// Average player rating, when any player was rated.
    pub fn average_rating(&self) -> Option<u64> {
        average(self.white_rating_sum + self.black_rating_sum, self.white_rated + self.black_rated)
    }

    /// Average rating of `color`'s players.
    pub fn average_rating_of(&self, color: Color) -> Option<u64> {
        match color {
            Color::White => average(self.white_rating_sum, self.white_rated),
            Color::Black => average(self.black_rating_sum, self.black_rated),
        }
    }

    /// The performance rating of `mover` (the side to move, who chose the move): the average
    /// rating of its opponents plus 400 × log10(p / (1 − p)) for its score p, capped at ±800
    /// (so a 100 % score is opponents + 800), as Scid's tree computes it.
    pub fn performance(&self, mover: Color) -> Option<i64> {
        let opponents = self.average_rating_of(!mover)? as f64;
        if self.games == 0 {
            return None;
        }
        let wins = match mover {
            Color::White => self.white,
            Color::Black => self.black,
        };
        let score = (wins as f64 + 0.5 * self.draws as f64) / self.games as f64;
        let delta = if score <= 0.0 {
            -800.0
        } else if score >= 1.0 {
            800.0
        } else {
            (400.0 * (score / (1.0 - score)).log10()).clamp(-800.0, 800.0)
        };
        Some((opponents + delta).round() as i64)
    }

    fn result_code(&self) -> Option<u8> {
        match (self.games, self.white, self.draws, self.black) {
            (1, 1, 0, 0) => Some(0),
            (1, 0, 1, 0) => Some(1),
            (1, 0, 0, 1) => Some(2),
            (1, 0, 0, 0) => Some(3),
            _ => None,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        for n in [
            self.games,
            self.white,
            self.draws,
            self.black,
            self.white_rating_sum,
            self.white_rated,
            self.black_rating_sum,
            self.black_rated,
        ] {
            put_varint(out, n);
        }
    }

    fn read(input: &mut &[u8]) -> Option<Tally> {
        Some(Tally {
            games: get_varint(input)?,
            white: get_varint(input)?,
            draws: get_varint(input)?,
            black: get_varint(input)?,
            white_rating_sum: get_varint(input)?,
            white_rated: get_varint(input)?,
            black_rating_sum: get_varint(input)?,
            black_rated: get_varint(input)?,
        })
    }
}

fn average(sum: u64, count: u64) -> Option<u64> {
    (count > 0).then(|| (sum + count / 2) / count)
}

/// A game reaching a position, with what ranks it among the position's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRef {
    pub id: u64,
    /// Average rating of its players; 0 when unrated.
    pub rating: u16,
    /// The [`Month`] code.
    pub month: u16,
}

impl GameRef {
    pub fn of(facts: &GameFacts) -> GameRef {
        GameRef { id: facts.id, rating: facts.average_rating().unwrap_or(0), month: facts.month.0 }
    }

    /// Best rated first (then newest id): the order of top games.
    pub fn by_rating(&self) -> (Reverse<u16>, Reverse<u64>) {
        (Reverse(self.rating), Reverse(self.id))
    }

    /// Latest month first (then newest id): the order of recent games.
    pub fn by_recency(&self) -> (Reverse<u16>, Reverse<u64>) {
        (Reverse(self.month), Reverse(self.id))
    }
}

/// Which games a slice holds: those of one month, speed and rating band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SliceKey {
    pub month: Month,
    pub speed: Speed,
    pub band: RatingBand,
}

/// A position's games of one [`SliceKey`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    pub key: SliceKey,
    pub total: Tally,
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
    pub total: Tally,
    /// Earliest and latest known year (0 when no game had one).
    pub min_year: u16,
    pub max_year: u16,
    /// Per next move, ascending by move bits.
    pub moves: Vec<(CompactMove, Tally)>,
    /// Best-rated first, at most [`TOP_GAMES`].
    pub top: Vec<GameRef>,
    /// Latest first, at most [`RECENT_GAMES`].
    pub recent: Vec<GameRef>,
    /// Ascending by key; empty when decoded with [`PositionStats::decode_head`].
    pub slices: Vec<Slice>,
    /// Every game that reached the position, ascending (its posting list); empty when decoded
    /// with [`PositionStats::decode_head`].
    pub game_ids: Vec<u64>,
}

const GENERAL: u8 = 0xff;

/// How much of a stored value to decode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Head,
    Slices,
    All,
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

    /// The game and next move of a one-game value, when this is one (checked field by field,
    /// so that only values the one-game layout restores exactly use it).
    fn one_game(&self) -> Option<(GameFacts, Option<CompactMove>)> {
        let result = match self.total.result_code()? {
            0 => GameResult::WhiteWins,
            1 => GameResult::Draw,
            2 => GameResult::BlackWins,
            _ => GameResult::Unknown,
        };
        let rating = |sum: u64, rated: u64| match rated {
            0 if sum == 0 => Some(None),
            1 => u16::try_from(sum).ok().map(Some),
            _ => None,
        };
        let ratings = [
            rating(self.total.white_rating_sum, self.total.white_rated)?,
            rating(self.total.black_rating_sum, self.total.black_rated)?,
        ];
        let ([slice], [game], [recent]) = (self.slices.as_slice(), self.top.as_slice(), self.recent.as_slice()) else {
            return None;
        };
        let facts = GameFacts { id: game.id, result, ratings, month: slice.key.month, speed: slice.key.speed };
        let next = match self.moves.as_slice() {
            [] => None,
            [(m, tally)] if *tally == self.total => Some(*m),
            _ => return None,
        };
        let year = facts.month.year().unwrap_or(0);
        let consistent = *game == GameRef::of(&facts)
            && recent == game
            && slice.key.band == facts.band()
            && slice.total == self.total
            && slice.moves == self.moves
            && slice.games.as_slice() == [*game]
            && self.game_ids.as_slice() == [game.id]
            && (self.min_year, self.max_year) == (year, year);
        consistent.then_some((facts, next))
    }

    /// The bytes of `PositionStats::game(facts, next)`, written without building it (what
    /// ingest writes for most positions).
    pub fn encode_game(facts: &GameFacts, next: Option<CompactMove>, out: &mut Vec<u8>) {
        let [white, black] = facts.ratings;
        let result = match facts.result {
            GameResult::WhiteWins => 0,
            GameResult::Draw => 1,
            GameResult::BlackWins => 2,
            GameResult::Unknown => 3,
        };
        let head = result
            | u8::from(white.is_some()) << 2
            | u8::from(black.is_some()) << 3
            | u8::from(next.is_some()) << 4
            | (facts.speed as u8) << 5;
        out.push(head);
        for rating in facts.ratings.into_iter().flatten() {
            put_varint(out, u64::from(rating));
        }
        put_varint(out, u64::from(facts.month.0));
        if let Some(m) = next {
            out.extend_from_slice(&m.bits().to_le_bytes());
        }
        put_varint(out, facts.id);
    }

    /// The stored bytes (the one-game layout whenever it applies).
    pub fn encode(&self, out: &mut Vec<u8>) {
        if let Some((facts, next)) = self.one_game() {
            PositionStats::encode_game(&facts, next, out);
            return;
        }
        out.push(GENERAL);
        self.total.write(out);
        put_varint(out, u64::from(self.min_year));
        put_varint(out, u64::from(self.max_year));
        write_moves(out, &self.moves);
        for games in [&self.top, &self.recent] {
            put_varint(out, games.len() as u64);
            for game in games {
                put_varint(out, game.id);
                put_varint(out, u64::from(game.rating));
                put_varint(out, u64::from(game.month));
            }
        }
        let mut slices = Vec::new();
        put_varint(&mut slices, self.slices.len() as u64);
        for slice in &self.slices {
            put_varint(&mut slices, u64::from(slice.key.month.0));
            slices.push((slice.key.speed as u8) << 5 | slice.key.band.index());
            slice.total.write(&mut slices);
            write_moves(&mut slices, &slice.moves);
            put_varint(&mut slices, slice.games.len() as u64);
            for game in &slice.games {
                put_varint(&mut slices, game.id);
                put_varint(&mut slices, u64::from(game.rating));
            }
        }
        put_varint(out, slices.len() as u64);
        out.extend_from_slice(&slices);
        PostingList::write(&self.game_ids, out);
    }

    /// Whether stored bytes use the one-game layout (without decoding them).
    pub fn is_single_game(bytes: &[u8]) -> bool {
        bytes.first().is_some_and(|&head| head != GENERAL)
    }

    /// Reads stored bytes; `None` when they are not a valid value.
    pub fn decode(input: &[u8]) -> Option<PositionStats> {
        PositionStats::read(input, Detail::All)
    }

    /// Reads stored bytes without the slices and the posting list (what an unfiltered lookup
    /// needs).
    pub fn decode_head(input: &[u8]) -> Option<PositionStats> {
        PositionStats::read(input, Detail::Head)
    }

    /// Reads stored bytes without the posting list (what a filtered lookup needs).
    pub fn decode_slices(input: &[u8]) -> Option<PositionStats> {
        PositionStats::read(input, Detail::Slices)
    }

    fn read(mut input: &[u8], detail: Detail) -> Option<PositionStats> {
        let input = &mut input;
        let head = take_byte(input)?;
        if head != GENERAL {
            let speed = Speed::from_index(head >> 5)?;
            let result = [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown]
                [usize::from(head & 3)];
            let mut rating = |rated: bool| match rated {
                true => u16::try_from(get_varint(input)?).ok().map(Some),
                false => Some(None),
            };
            let ratings = [rating(head & 4 != 0)?, rating(head & 8 != 0)?];
            let month = Month(u16::try_from(get_varint(input)?).ok()?);
            let next = if head & 0x10 != 0 { Some(take_move(input)?) } else { None };
            let id = get_varint(input)?;
            let facts = GameFacts { id, result, ratings, month, speed };
            let mut stats = PositionStats::game(&facts, next.as_slice());
            // Only the canonical bytes of a one-game value are valid.
            if !input.is_empty() || stats.one_game().is_none() {
                return None;
            }
            if detail == Detail::Head {
                stats.slices.clear();
            }
            if detail != Detail::All {
                stats.game_ids.clear();
            }
            return Some(stats);
        }
        let total = Tally::read(input)?;
        let min_year = u16::try_from(get_varint(input)?).ok()?;
        let max_year = u16::try_from(get_varint(input)?).ok()?;
        let moves = read_moves(input)?;
        let mut lists = [Vec::new(), Vec::new()];
        for games in &mut lists {
            let count = get_count(input, 3)?;
            for _ in 0..count {
                let id = get_varint(input)?;
                let rating = u16::try_from(get_varint(input)?).ok()?;
                let month = u16::try_from(get_varint(input)?).ok()?;
                games.push(GameRef { id, rating, month });
            }
        }
        let [top, recent] = lists;
        let length = usize::try_from(get_varint(input)?).ok()?;
        if length > input.len() {
            return None;
        }
        let mut stats =
            PositionStats { total, min_year, max_year, moves, top, recent, slices: Vec::new(), game_ids: Vec::new() };
        if detail == Detail::Head {
            return Some(stats);
        }
        let (mut slices, postings) = input.split_at(length);
        let input = &mut slices;
        let count = get_count(input, 11)?;
        for _ in 0..count {
            let month = Month(u16::try_from(get_varint(input)?).ok()?);
            let group = take_byte(input)?;
            let speed = Speed::from_index(group >> 5)?;
            let band = RatingBand::from_index(group & 0x1f)?;
            let total = Tally::read(input)?;
            let moves = read_moves(input)?;
            let games_count = get_count(input, 2)?;
            let mut games = Vec::with_capacity(games_count);
            for _ in 0..games_count {
                let id = get_varint(input)?;
                let rating = u16::try_from(get_varint(input)?).ok()?;
                games.push(GameRef { id, rating, month: month.0 });
            }
            stats.slices.push(Slice { key: SliceKey { month, speed, band }, total, moves, games });
        }
        if !input.is_empty() {
            return None;
        }
        if detail == Detail::All {
            stats.game_ids = PostingList::from_bytes(postings.to_vec())?.to_vec();
        }
        Some(stats)
    }

    /// The posting list of stored bytes, without decoding the rest.
    pub fn postings(bytes: &[u8]) -> Option<PostingList> {
        let input = &mut &bytes[..];
        if take_byte(input)? != GENERAL {
            return PositionStats::decode(bytes).map(|stats| PostingList::encode(&stats.game_ids));
        }
        Tally::read(input)?;
        get_varint(input)?;
        get_varint(input)?;
        read_moves(input)?;
        for _ in 0..2 {
            for _ in 0..get_count(input, 3)? {
                for _ in 0..3 {
                    get_varint(input)?;
                }
            }
        }
        let length = usize::try_from(get_varint(input)?).ok()?;
        PostingList::from_bytes(input.get(length..)?.to_vec())
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
fn merge_ids(ids: &mut Vec<u64>, other: &[u64]) {
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

fn write_moves(out: &mut Vec<u8>, moves: &[(CompactMove, Tally)]) {
    put_varint(out, moves.len() as u64);
    for (m, tally) in moves {
        out.extend_from_slice(&m.bits().to_le_bytes());
        tally.write(out);
    }
}

fn read_moves(input: &mut &[u8]) -> Option<Vec<(CompactMove, Tally)>> {
    // Each move takes at least 10 bytes.
    let count = get_count(input, 10)?;
    let mut moves = Vec::with_capacity(count);
    for _ in 0..count {
        let m = take_move(input)?;
        moves.push((m, Tally::read(input)?));
    }
    Some(moves)
}

/// A count of items taking at least `min_bytes` each: larger than the input allows is corrupt.
fn get_count(input: &mut &[u8], min_bytes: usize) -> Option<usize> {
    let count = usize::try_from(get_varint(input)?).ok()?;
    (count <= input.len() / min_bytes).then_some(count)
}

/// The merge operator's function: sums the existing value and every operand.
///
/// A lone value (most positions: compaction turning their one operand into a value) is kept as
/// it is, already canonical; it is checked when read. Returns `None` (RocksDB reports a
/// corruption) if a value to be summed does not decode.
pub fn merge_values<'a>(existing: Option<&'a [u8]>, operands: impl IntoIterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut values = existing.into_iter().chain(operands);
    let first = values.next()?;
    let Some(second) = values.next() else {
        return Some(first.to_vec());
    };
    let mut stats = PositionStats::decode(first)?;
    for bytes in std::iter::once(second).chain(values) {
        stats.merge(&PositionStats::decode(bytes)?);
    }
    let mut out = Vec::new();
    stats.encode(&mut out);
    Some(out)
}

fn take_move(input: &mut &[u8]) -> Option<CompactMove> {
    let (bytes, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    CompactMove::from_bits(u16::from_le_bytes(*bytes))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn mv(bits: u16) -> CompactMove {
        CompactMove::from_bits(bits).expect("valid move bits")
    }

    fn arb_facts() -> impl Strategy<Value = GameFacts> {
        let result = prop_oneof![
            Just(GameResult::WhiteWins),
            Just(GameResult::Draw),
            Just(GameResult::BlackWins),
            Just(GameResult::Unknown)
        ];
        let rating = proptest::option::of(1000u16..3200);
        let month =
            prop_oneof![Just(Month::UNKNOWN), (1990u16..1993, 0u8..13).prop_map(|(y, m)| Month(y * 13 + u16::from(m)))];
        (1u64..1_000_000, result, rating.clone(), rating, month, 0u8..7).prop_map(|(id, result, w, b, month, speed)| {
            GameFacts { id, result, ratings: [w, b], month, speed: Speed::from_index(speed).expect("speed index") }
        })
    }

    fn arb_stats() -> impl Strategy<Value = PositionStats> {
        let one = (arb_facts(), proptest::collection::vec(1u16..4000, 0..3));
        proptest::collection::vec(one, 1..6).prop_map(|games| {
            let mut total: Option<PositionStats> = None;
            for (index, (mut facts, moves)) in games.into_iter().enumerate() {
                // Ids are unique per game.
                facts.id = facts.id * 8 + index as u64;
                let moves: Vec<_> = moves.into_iter().filter_map(CompactMove::from_bits).collect();
                let one = PositionStats::game(&facts, &moves);
                match &mut total {
                    None => total = Some(one),
                    Some(total) => total.merge(&one),
                }
            }
            total.unwrap_or_default()
        })
    }

    fn encoded(stats: &PositionStats) -> Vec<u8> {
        let mut bytes = Vec::new();
        stats.encode(&mut bytes);
        bytes
    }

    proptest! {
        #[test]
        fn round_trips(stats in arb_stats()) {
            let bytes = encoded(&stats);
            prop_assert_eq!(PositionStats::decode(&bytes), Some(stats.clone()));
            let head = PositionStats::decode_head(&bytes).expect("head decodes");
            prop_assert_eq!(head.slices.len(), 0);
            prop_assert_eq!(PositionStats::decode_slices(&bytes), Some(PositionStats { game_ids: Vec::new(), ..stats.clone() }));
            prop_assert_eq!(PositionStats { slices: stats.slices.clone(), game_ids: stats.game_ids.clone(), ..head }, stats.clone());
            prop_assert_eq!(PositionStats::postings(&bytes).map(|p| p.to_vec()), Some(stats.game_ids.clone()));
            prop_assert_eq!(PositionStats::is_single_game(&bytes), stats.total.games == 1 && stats.moves.len() <= 1);
        }

        #[test]
        fn merge_equals_sum_of_parts(parts in proptest::collection::vec(arb_stats(), 1..6)) {
            let encoded: Vec<Vec<u8>> = parts.iter().map(encoded).collect();
            let mut expected = parts[0].clone();
            for part in &parts[1..] {
                expected.merge(part);
            }
            let merged = merge_values(None, encoded.iter().map(Vec::as_slice)).expect("operands decode");
            prop_assert_eq!(PositionStats::decode(&merged), Some(expected.clone()));
            // Partial merges in any grouping give the same bytes.
            let (head, tail) = encoded.split_at(1);
            let tail_merged = merge_values(None, tail.iter().map(Vec::as_slice));
            let regrouped = match tail_merged {
                Some(t) => merge_values(Some(&head[0]), [t.as_slice()]).expect("operands decode"),
                None => head[0].clone(),
            };
            prop_assert_eq!(regrouped, merged);
            // The slices add up to the totals.
            let mut from_slices = Tally::default();
            for slice in &expected.slices {
                from_slices.add(&slice.total);
            }
            prop_assert_eq!(from_slices, expected.total);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            if let Some(stats) = PositionStats::decode(&bytes) {
                prop_assert_eq!(PositionStats::decode(&encoded(&stats)), Some(stats));
            }
            let _ = PositionStats::decode_head(&bytes);
        }
    }

    fn facts(id: u64, result: GameResult, ratings: [Option<u16>; 2], date: &str) -> GameFacts {
        GameFacts { id, result, ratings, month: Month::from_date(date), speed: Speed::Unknown }
    }

    proptest! {
        #[test]
        fn direct_one_game_bytes_equal_the_built_value(facts in arb_facts(), next in proptest::option::of(1u16..4000)) {
            let next = next.and_then(CompactMove::from_bits);
            let mut direct = Vec::new();
            PositionStats::encode_game(&facts, next, &mut direct);
            prop_assert_eq!(direct, encoded(&PositionStats::game(&facts, next.as_slice())));
        }
    }

    #[test]
    fn one_game_costs_a_dozen_bytes() {
        let game = facts(123_456, GameResult::Draw, [Some(2700), Some(2650)], "1999.05.01");
        let stats = PositionStats::game(&game, &[mv(12 | 28 << 6)]);
        let bytes = encoded(&stats);
        assert_eq!(bytes.len(), 13);
        assert!(PositionStats::is_single_game(&bytes));
        assert_eq!(stats.total.average_rating(), Some(2675));
        assert_eq!(stats.top[0].rating, 2675);
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
        assert_eq!(sum.top.iter().map(|g| g.id).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(sum.recent.iter().map(|g| g.id).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(sum.slices.len(), 2);
    }

    #[test]
    fn performance_follows_the_score() {
        let mut tally = Tally::default();
        for (result, black) in [(GameResult::WhiteWins, 2400), (GameResult::Draw, 2600)] {
            tally.add(&Tally::game(result, [Some(2500), Some(black)]));
        }
        // White scored 75 % against 2500 on average: 2500 + 400·log10(3) = 2691.
        assert_eq!(tally.performance(Color::White), Some(2691));
        assert_eq!(tally.performance(Color::Black), Some(2500 - 191));
        let won = Tally::game(GameResult::WhiteWins, [None, Some(2000)]);
        assert_eq!(won.performance(Color::White), Some(2800));
        assert_eq!(won.performance(Color::Black), None);
    }
}
