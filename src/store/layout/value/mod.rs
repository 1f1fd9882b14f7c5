//! A position's stored value, typed: [`StoredValue`], in the one-game, the general or the
//! few-games layout (byte by byte in docs/FORMAT.md, "Position values").
//!
//! Varints are LEB128, moves are [`CompactMove`] bits as little-endian u16, a tally is the
//! varints `games white draws black white_rating_sum white_rated black_rating_sum black_rated`,
//! a game reference the varints `id rating month`.
//!
//! * **one game**, byte 0 is 0 or 1: byte 0 is 1 when a next move follows, else 0; then the move
//!   (2 bytes) and the game id (varint). The game's result, ratings, month and speed are its
//!   facts (the facts family, held in memory by readers), so they are not repeated in each of
//!   its positions. A position only one game reaches, once, is mostly kept in the single-game
//!   tier instead, which gives the same value back.
//! * **general**, byte 0 = 0xff, more than [`DERIVED_TOP_UP_TO`] games: the total tally, varints
//!   `min_year max_year`, the moves (count, then per move ascending its 2 bytes and tally), the
//!   top games and the recent games (count, then references): the *head*, all an unfiltered
//!   lookup reads. Then the games by move: a count, then per next move ascending (bits 0: the
//!   games that ended there) its 2 bytes, the byte length of its posting list and the list.
//! * **few games**, byte 0 = 0xfe, at most [`DERIVED_TOP_UP_TO`] games: the game count (varint),
//!   then the games by move as above, and nothing else: readers derive the head from these
//!   games and their facts ([`PositionStats::of_plays`]).
//!
//! The month × speed × rating-band slices of filtered lookups are never stored: readers derive
//! them from the games by move and their facts ([`PositionStats::derive_slices`]).

use std::borrow::Cow;

use crate::{
    codec::CompactMove,
    model::{GameFacts, GameId, GameRef, GameResult, PositionStats, Tally},
    postings::{PostingList, union_all},
    varint::{get_varint, put_varint, take_byte},
};

/// First byte of a general value of more than [`DERIVED_TOP_UP_TO`] games.
const GENERAL: u8 = 0xff;
/// First byte of a general value of at most [`DERIVED_TOP_UP_TO`] games: its games by move
/// alone. Any other first byte starts a one-game value.
const FEW_GAMES: u8 = 0xfe;

/// Games up to which a stored general value holds only its games by move, everything else
/// (totals, years, moves' tallies, top and recent games) derived from those games' facts when
/// read ([`PositionStats::of_plays`]): for so few games that costs about a microsecond, and the
/// stored statistics took 40 % of the full-key positions' bytes.
pub const DERIVED_TOP_UP_TO: u64 = 64;

/// Per next move (`None`: the games that ended there), the games that played it.
type GamesByMove = Vec<(Option<CompactMove>, Vec<GameId>)>;

/// Bytes of a one-game value's flag and move: what a varint game id follows.
const ONE_GAME_HEAD: usize = 1 + std::mem::size_of::<u16>();

/// How much of a stored position value to read (each more than the one before).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// Totals, years, moves, top and recent games: all an unfiltered lookup needs.
    Head,
    /// The head and the games by move: what filtered lookups and slices are computed from.
    ByMove,
    /// Everything stored: the head, the games by move and the posting list (their union).
    All,
}

/// Whose facts reading a stored value needs ([`StoredValue::decode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactsNeeded {
    /// None: a value of many games, or bytes that do not decode.
    None,
    /// One game's: a one-game value.
    One(GameId),
    /// Its games': a value of few games.
    Several,
}

/// What a scan needs of a stored value: the result counts, and the game of a one-game value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrences {
    /// Games reaching the position.
    pub games: u64,
    /// Won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Average rating of the rated players of those games.
    pub average_rating: Option<u64>,
    /// The game and its result, when one game reaches the position (no posting list to read).
    pub single: Option<(GameId, GameResult)>,
}

impl Occurrences {
    /// The counts of `tally`, with the one game it counts when it is known.
    pub fn of(tally: &Tally, single: Option<(GameId, GameResult)>) -> Occurrences {
        Occurrences {
            games: tally.games,
            white: tally.white,
            draws: tally.draws,
            black: tally.black,
            average_rating: tally.average_rating(),
            single,
        }
    }
}

/// A position's stored value: from the positions family (its bytes, [`StoredValue::parse`]) or
/// the single-game tier (a game and the move it played, no bytes at all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredValue<'a> {
    /// One game reached the position, playing `next` from it (`None`: it ended there).
    OneGame {
        /// The game.
        game: GameId,
        /// The move it played from the position.
        next: Option<CompactMove>,
    },
    /// The bytes of the general layout (first byte 0xff) or of the few-games one (0xfe),
    /// decoded as far as a reader asks.
    General(Cow<'a, [u8]>),
}

impl<'a> StoredValue<'a> {
    /// Reads stored bytes: `None` for empty bytes or a one-game value that is not canonical (a
    /// general value is checked as far as it is read).
    pub fn parse(bytes: &'a [u8]) -> Option<StoredValue<'a>> {
        match bytes.first()? {
            &GENERAL | &FEW_GAMES => Some(StoredValue::General(Cow::Borrowed(bytes))),
            _ => one_game(bytes),
        }
    }

    /// Appends the value's stored bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            StoredValue::OneGame { game, next } => write_one_game(*game, *next, out),
            StoredValue::General(bytes) => out.extend_from_slice(bytes),
        }
    }

    /// Whether exactly one game reached the position (in either layout: a game repeating the
    /// position with two different moves is written in the general one).
    pub fn holds_one_game(&self) -> bool {
        match self {
            StoredValue::OneGame { .. } => true,
            StoredValue::General(bytes) => general_games(bytes) == Some(1),
        }
    }

    /// Whose facts [`StoredValue::decode`] needs, without decoding the value.
    pub fn facts_needed(&self) -> FactsNeeded {
        match self {
            StoredValue::OneGame { game, .. } => FactsNeeded::One(*game),
            StoredValue::General(bytes) => match general_games(bytes) {
                Some(games) if games <= DERIVED_TOP_UP_TO => FactsNeeded::Several,
                _ => FactsNeeded::None,
            },
        }
    }

    /// The position's statistics, as much as `detail` asks (never the slices), with the facts
    /// of a one-game value's game, or of the games of a few-games value,
    /// from `facts`; `None` when the bytes are not a valid value or a game has no facts.
    pub fn decode(&self, detail: Detail, mut facts: impl FnMut(GameId) -> Option<GameFacts>) -> Option<PositionStats> {
        let bytes = match self {
            StoredValue::OneGame { game, next } => return Some(one_game_stats(&facts(*game)?, *next, detail)),
            StoredValue::General(bytes) => bytes,
        };
        if bytes.first() == Some(&GENERAL) {
            // Only the canonical bytes: few games take the other layout.
            return (general_games(bytes)? > DERIVED_TOP_UP_TO).then(|| decode_general(bytes, detail))?;
        }
        let (games, lines) = read_few_games(bytes)?;
        let mut plays: Vec<(GameId, Option<CompactMove>)> =
            lines.iter().flat_map(|(next, ids)| ids.iter().map(move |&id| (id, *next))).collect();
        plays.sort_unstable();
        let mut stats = PositionStats::of_plays(plays, facts)?;
        // Only the canonical bytes: the count the games give, their lines as they build them.
        if stats.total.games != games || stats.games_by_move != lines {
            return None;
        }
        if detail != Detail::All {
            stats.game_ids.clear();
        }
        if detail == Detail::Head {
            stats.games_by_move.clear();
        }
        Some(stats)
    }

    /// Only the result counts and ratings (and the game of a one-game value, its result and
    /// ratings from `facts_of`): the fast path of scans.
    pub fn occurrences(&self, mut facts_of: impl FnMut(GameId) -> Option<GameFacts>) -> Option<Occurrences> {
        let (tally, single) = match self {
            StoredValue::OneGame { game, .. } => {
                let facts = facts_of(*game)?;
                (Tally::game(facts.result, facts.ratings), Some((*game, facts.result)))
            }
            StoredValue::General(bytes) if bytes.first() == Some(&GENERAL) => (read_tally(&mut bytes.get(1..)?)?, None),
            StoredValue::General(bytes) => {
                let mut tally = Tally::default();
                for id in few_game_ids(bytes)? {
                    let facts = facts_of(id)?;
                    tally.add(&Tally::game(facts.result, facts.ratings));
                }
                (tally, None)
            }
        };
        Some(Occurrences::of(&tally, single))
    }

    /// Every game of the value: its posting list.
    pub fn postings(&self) -> Option<PostingList> {
        Some(PostingList::encode(&self.game_ids()?))
    }

    /// Every game of the value, ascending.
    pub fn game_ids(&self) -> Option<Vec<GameId>> {
        match self {
            StoredValue::OneGame { game, .. } => Some(vec![*game]),
            StoredValue::General(bytes) if bytes.first() == Some(&GENERAL) => {
                Some(decode_general(bytes, Detail::All)?.game_ids)
            }
            StoredValue::General(bytes) => few_game_ids(bytes),
        }
    }

    /// The stored bytes of this value with the statistics of new games added (a later commit
    /// reaching a stored position), the stored games' facts from `facts`. `None` when the value
    /// does not decode.
    pub fn add(&self, added: &PositionStats, facts: impl FnMut(GameId) -> Option<GameFacts>) -> Option<Vec<u8>> {
        let mut stats = self.decode(Detail::ByMove, facts)?;
        stats.merge(added);
        let mut out = Vec::new();
        encode_general(&stats, &mut out);
        Some(out)
    }
}

/// The stored bytes of `stats` (read with its games by move) in the general layout: its games
/// by move alone up to [`DERIVED_TOP_UP_TO`] games.
pub fn encode_general(stats: &PositionStats, out: &mut Vec<u8>) {
    match stats.total.games <= DERIVED_TOP_UP_TO {
        true => {
            out.push(FEW_GAMES);
            put_varint(out, stats.total.games);
            write_games_by_move(&stats.games_by_move, out);
        }
        false => write_general(stats, out),
    }
}

/// The stored bytes of a position only the games of `plays` reach, each (game, move played
/// there), strictly ascending (see [`PositionStats::of_plays`]), their facts from `facts`: the
/// one-game layout for a single play, the general one otherwise. `None` for no play, plays out
/// of order, or a game without facts.
pub fn encode_new(
    plays: impl IntoIterator<Item = (GameId, Option<CompactMove>)>,
    mut facts: impl FnMut(GameId) -> Option<GameFacts>,
    out: &mut Vec<u8>,
) -> Option<()> {
    let mut plays = plays.into_iter().peekable();
    let (game, next) = plays.next()?;
    if plays.peek().is_none() {
        facts(game)?;
        write_one_game(game, next, out);
    } else {
        encode_general(&PositionStats::of_plays(std::iter::once((game, next)).chain(plays), facts)?, out);
    }
    Some(())
}

/// The layout of more than [`DERIVED_TOP_UP_TO`] games (whatever the count, for tests).
fn write_general(stats: &PositionStats, out: &mut Vec<u8>) {
    out.push(GENERAL);
    write_tally(&stats.total, out);
    put_varint(out, u64::from(stats.min_year));
    put_varint(out, u64::from(stats.max_year));
    write_moves(out, &stats.moves);
    for games in [&stats.top, &stats.recent] {
        put_varint(out, games.len() as u64);
        for game in games {
            put_varint(out, game.id.0);
            put_varint(out, u64::from(game.rating));
            put_varint(out, u64::from(game.month));
        }
    }
    write_games_by_move(&stats.games_by_move, out);
}

/// The games by move: a count, then per line its move's 2 bytes, its posting list's byte length
/// and the list.
fn write_games_by_move(lines: &GamesByMove, out: &mut Vec<u8>) {
    put_varint(out, lines.len() as u64);
    let mut list = Vec::new();
    for (next, ids) in lines {
        out.extend_from_slice(&next.map_or(0, CompactMove::bits).to_le_bytes());
        list.clear();
        PostingList::write(ids, &mut list);
        put_varint(out, list.len() as u64);
        out.extend_from_slice(&list);
    }
}

/// A few-games value's game count and games by move.
fn read_few_games(bytes: &[u8]) -> Option<(u64, GamesByMove)> {
    let input = &mut &bytes[..];
    if take_byte(input)? != FEW_GAMES {
        return None;
    }
    let games = get_varint(input)?;
    if !(1..=DERIVED_TOP_UP_TO).contains(&games) {
        return None;
    }
    Some((games, read_games_by_move(input)?))
}

/// The distinct games of a few-games value, ascending (what scans, posting lists and `tabiya
/// verify` read): `None` where [`read_few_games`] refuses the bytes, or when they hold another
/// number of games than their count.
fn few_game_ids(bytes: &[u8]) -> Option<Vec<GameId>> {
    let (games, lines) = read_few_games(bytes)?;
    // A game repeating the position with two moves is in two lines.
    let ids = union_all(lines.iter().map(|(_, ids)| ids.as_slice()).collect());
    (ids.len() as u64 == games).then_some(ids)
}

/// The game count of a general value (its first varint, in either layout).
fn general_games(bytes: &[u8]) -> Option<u64> {
    get_varint(&mut bytes.get(1..)?)
}

/// A one-game value's statistics, as far as `detail` asks.
fn one_game_stats(facts: &GameFacts, next: Option<CompactMove>, detail: Detail) -> PositionStats {
    let mut stats = PositionStats::game(facts, next.as_slice());
    if detail != Detail::All {
        stats.game_ids.clear();
    }
    if detail == Detail::Head {
        stats.games_by_move.clear();
    }
    stats
}

/// Reads a value of the general layout.
fn decode_general(bytes: &[u8], detail: Detail) -> Option<PositionStats> {
    let input = &mut &bytes[..];
    if take_byte(input)? != GENERAL {
        return None;
    }
    let (mut stats, rest) = read_general(input)?;
    if detail != Detail::Head {
        stats.games_by_move = read_games_by_move(rest)?;
    }
    if detail == Detail::All {
        // A game reaching the position twice, with different moves, is in two lines.
        stats.game_ids = union_all(stats.games_by_move.iter().map(|(_, ids)| ids.as_slice()).collect());
    }
    Some(stats)
}

/// Appends the bytes of a one-game value: game `id`, playing `next` from the position.
fn write_one_game(id: GameId, next: Option<CompactMove>, out: &mut Vec<u8>) {
    out.push(u8::from(next.is_some()));
    if let Some(m) = next {
        out.extend_from_slice(&m.bits().to_le_bytes());
    }
    put_varint(out, id.0);
}

/// A one-game value from its bytes; `None` unless they are canonical.
fn one_game(bytes: &[u8]) -> Option<StoredValue<'static>> {
    let input = &mut &bytes[..];
    let next = match take_byte(input)? {
        0 => None,
        1 => Some(take_move(input)?),
        _ => return None,
    };
    let game = GameId(get_varint(input)?);
    let mut canonical = Vec::with_capacity(ONE_GAME_HEAD + 10);
    write_one_game(game, next, &mut canonical);
    (canonical == bytes).then_some(StoredValue::OneGame { game, next })
}

/// Reads the games by move of a general value (what follows its head), to its end.
fn read_games_by_move(mut input: &[u8]) -> Option<GamesByMove> {
    let input = &mut input;
    // Each line takes at least 3 bytes.
    let count = get_count(input, 3)?;
    let mut lines: Vec<(Option<CompactMove>, Vec<GameId>)> = Vec::with_capacity(count);
    for _ in 0..count {
        let (bits, rest) = input.split_first_chunk::<2>()?;
        *input = rest;
        let next = match u16::from_le_bytes(*bits) {
            0 => None,
            bits => Some(CompactMove::from_bits(bits)?),
        };
        let length = usize::try_from(get_varint(input)?).ok()?;
        let list = input.get(..length)?;
        *input = &input[length..];
        let ids = PostingList::from_bytes(list.to_vec())?.to_vec();
        // Ascending moves, no empty list.
        if ids.is_empty() || lines.last().is_some_and(|(last, _)| *last >= next) {
            return None;
        }
        lines.push((next, ids));
    }
    input.is_empty().then_some(lines)
}

/// Reads a general value's head after its first byte; returns it and the bytes after it (the
/// one walk every reader of a general value shares).
fn read_general<'a>(input: &mut &'a [u8]) -> Option<(PositionStats, &'a [u8])> {
    let total = read_tally(input)?;
    let min_year = u16::try_from(get_varint(input)?).ok()?;
    let max_year = u16::try_from(get_varint(input)?).ok()?;
    let moves = read_moves(input)?;
    let mut lists = [Vec::new(), Vec::new()];
    for games in &mut lists {
        let count = get_count(input, 3)?;
        for _ in 0..count {
            let id = GameId(get_varint(input)?);
            let rating = u16::try_from(get_varint(input)?).ok()?;
            let month = u16::try_from(get_varint(input)?).ok()?;
            games.push(GameRef { id, rating, month });
        }
    }
    let [top, recent] = lists;
    let stats = PositionStats { total, min_year, max_year, moves, top, recent, ..PositionStats::default() };
    Some((stats, input))
}

fn write_tally(tally: &Tally, out: &mut Vec<u8>) {
    for n in [
        tally.games,
        tally.white,
        tally.draws,
        tally.black,
        tally.white_rating_sum,
        tally.white_rated,
        tally.black_rating_sum,
        tally.black_rated,
    ] {
        put_varint(out, n);
    }
}

fn read_tally(input: &mut &[u8]) -> Option<Tally> {
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

fn write_moves(out: &mut Vec<u8>, moves: &[(CompactMove, Tally)]) {
    put_varint(out, moves.len() as u64);
    for (m, tally) in moves {
        out.extend_from_slice(&m.bits().to_le_bytes());
        write_tally(tally, out);
    }
}

fn read_moves(input: &mut &[u8]) -> Option<Vec<(CompactMove, Tally)>> {
    // Each move takes at least 10 bytes.
    let count = get_count(input, 10)?;
    let mut moves = Vec::with_capacity(count);
    for _ in 0..count {
        let m = take_move(input)?;
        moves.push((m, read_tally(input)?));
    }
    Some(moves)
}

/// A count of items taking at least `min_bytes` each: larger than the input allows is corrupt.
fn get_count(input: &mut &[u8], min_bytes: usize) -> Option<usize> {
    let count = usize::try_from(get_varint(input)?).ok()?;
    (count <= input.len() / min_bytes).then_some(count)
}

fn take_move(input: &mut &[u8]) -> Option<CompactMove> {
    let (bytes, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    CompactMove::from_bits(u16::from_le_bytes(*bytes))
}

#[cfg(test)]
pub(crate) mod tests;
