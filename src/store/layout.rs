//! The bytes of stored values, in one place: a position's value (a [`PositionStats`]) and the
//! sum of a stored value and new games ([`add_to_stored`]); a game's facts (the facts family);
//! the bincode records of the other families (games, mainlines, totals, runs). The staging
//! area's records are `staging.rs`'s.
//!
//! Position value layout (varints are LEB128, moves are [`CompactMove`] bits as little-endian u16, a tally is
//! the varints `games white draws black white_rating_sum white_rated black_rating_sum
//! black_rated`, a game reference the varints `id rating month`):
//!
//! * **one game** — the common case (most positions occur in a single game), byte 0 ≠
//!   0xff: byte 0 is 1 when a next move follows, else 0; then the move (2 bytes) and the game id
//!   (varint). Typically 6 bytes: the game's result, ratings, month and speed are its facts (the
//!   facts family), which readers hold in memory, so they are not repeated in each of its
//!   positions (that took 13 % of the players collection's database). A position only one game
//!   reaches, once, is mostly not stored as a key at all but in the single-game tier
//!   (`crate::store::tier`).
//! * **general** — byte 0 = 0xff, the total tally, varints `min_year max_year`, the moves
//!   (count, then per move ascending its 2 bytes and tally), the top games and the recent games
//!   (count, then references): the *head*, all an unfiltered lookup reads. A stored value of at
//!   most [`DERIVED_TOP_UP_TO`] games leaves its top and recent games out (both counts 0):
//!   readers choose them among its games by their facts, as filtered lookups do. Then the games by
//!   move: a count, then per next move ascending (bits 0: the games that ended there) its 2
//!   bytes, the byte length of its posting list and the list. The month × speed × rating-band
//!   slices of filtered lookups are not stored: the store derives them from these games and
//!   their facts ([`PositionStats::derive_slices`]); storing them took 60 % of the bytes of the
//!   players collection's multi-game positions.
//!
//! Facts layout (the facts family, 8 bytes a game, a value holding a run of consecutive games):
//! u64 little-endian, bits 0–15
//! the [`Month`], 16–31 White's rating, 32–47 Black's, 48–49 the result code, 50 White rated,
//! 51 Black rated, 52–54 the [`Speed`].
//!
//! Result codes (facts layout): 0 White won, 1 draw, 2 Black won, 3 unknown
//! ([`RESULTS`]).

use crate::{
    codec::CompactMove,
    model::{GameFacts, GameId, GameRecord, GameRef, GameResult, Mainline, Month, PositionStats, Speed, Tags, Tally},
    postings::PostingList,
    varint::{get_varint, put_varint, take_byte},
};

/// First byte of a general value; any other first byte starts a one-game value.
const GENERAL: u8 = 0xff;

/// Games up to which a stored general value leaves out its top and recent games, derived when
/// read ([`PositionStats::derive_top_games`]): they took 30 % of the bytes of the players
/// collection's multi-game positions, and choosing among 64 games' facts takes about a
/// microsecond.
pub const DERIVED_TOP_UP_TO: u64 = 64;

/// The one-game layout's result codes: a result's code is its index.
pub const RESULTS: [GameResult; 4] =
    [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown];

/// The one-game layout's code of a result (its index in [`RESULTS`]).
pub fn result_code(result: GameResult) -> u8 {
    RESULTS.iter().position(|&r| r == result).unwrap_or(3) as u8
}

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

/// Bytes of a game's facts in the facts family.
pub const FACTS_LEN: usize = 8;

/// The facts family's bytes of a game's facts.
pub fn encode_facts(facts: &GameFacts) -> [u8; FACTS_LEN] {
    let [white, black] = facts.ratings;
    let packed = u64::from(facts.month.0)
        | u64::from(white.unwrap_or(0)) << 16
        | u64::from(black.unwrap_or(0)) << 32
        | u64::from(result_code(facts.result)) << 48
        | u64::from(white.is_some()) << 50
        | u64::from(black.is_some()) << 51
        | (facts.speed as u64) << 52;
    packed.to_le_bytes()
}

/// Reads the facts of game `id` from its facts-family bytes; `None` unless they are valid.
pub fn decode_facts(id: GameId, bytes: &[u8]) -> Option<GameFacts> {
    let bytes: [u8; FACTS_LEN] = bytes.try_into().ok()?;
    let facts = unpack_facts(id, bytes)?;
    // Only canonical bytes: no unused bit set, no rating without its flag.
    (encode_facts(&facts) == bytes).then_some(facts)
}

/// Reads facts-family bytes checked before ([`decode_facts`]), without checking them again.
pub fn unpack_facts(id: GameId, bytes: [u8; FACTS_LEN]) -> Option<GameFacts> {
    let packed = u64::from_le_bytes(bytes);
    let field = |shift: u32| (packed >> shift) as u16;
    let rating = |shift: u32, flag: u32| (packed >> flag & 1 == 1).then(|| field(shift));
    Some(GameFacts {
        id,
        result: RESULTS[(packed >> 48 & 3) as usize],
        ratings: [rating(16, 50), rating(32, 51)],
        month: Month(field(0)),
        speed: Speed::from_index((packed >> 52 & 7) as u8)?,
    })
}

/// Encodes a stored record (game, totals, run) with bincode's standard configuration.
pub(crate) fn encode_record<T: bincode::Encode>(value: &T) -> Vec<u8> {
    // Encoding owned values into a Vec cannot fail.
    bincode::encode_to_vec(value, bincode::config::standard()).unwrap_or_default()
}

/// Decodes a stored record; `None` unless the bytes are exactly one valid value.
pub(crate) fn decode_record<T: bincode::Decode<()>>(bytes: &[u8]) -> Option<T> {
    // A corrupt length prefix must not ask for more memory than the value holds.
    let config = bincode::config::standard().with_limit::<{ 1 << 20 }>();
    let (value, used) = bincode::decode_from_slice(bytes, config).ok()?;
    (used == bytes.len()).then_some(value)
}

/// The games family's value of a game: its tags and result (its [`Mainline`] is stored apart,
/// in the mainlines family, with [`encode_record`]).
pub(crate) fn encode_game_head(record: &GameRecord) -> Vec<u8> {
    encode_record(&(&record.tags, &record.result))
}

/// A game from its games-family and mainlines-family values; `None` unless both are valid.
pub(crate) fn decode_game_record(head: &[u8], line: &[u8]) -> Option<GameRecord> {
    let (tags, result) = decode_record::<(Tags, GameResult)>(head)?;
    Some(GameRecord::from_parts(tags, result, decode_record::<Mainline>(line)?))
}

/// The stored bytes of `stats` in the general layout: without top and recent games up to
/// [`DERIVED_TOP_UP_TO`] games.
pub fn encode_stored(stats: &PositionStats, out: &mut Vec<u8>) {
    write_general(stats, stats.total.games > DERIVED_TOP_UP_TO, out);
}

fn write_general(stats: &PositionStats, with_top_games: bool, out: &mut Vec<u8>) {
    out.push(GENERAL);
    write_tally(&stats.total, out);
    put_varint(out, u64::from(stats.min_year));
    put_varint(out, u64::from(stats.max_year));
    write_moves(out, &stats.moves);
    let none = Vec::new();
    let refs = match with_top_games {
        true => [&stats.top, &stats.recent],
        false => [&none, &none],
    };
    for games in refs {
        put_varint(out, games.len() as u64);
        for game in games {
            put_varint(out, game.id.0);
            put_varint(out, u64::from(game.rating));
            put_varint(out, u64::from(game.month));
        }
    }
    put_varint(out, stats.games_by_move.len() as u64);
    let mut list = Vec::new();
    for (next, ids) in &stats.games_by_move {
        out.extend_from_slice(&next.map_or(0, CompactMove::bits).to_le_bytes());
        list.clear();
        PostingList::write(ids, &mut list);
        put_varint(out, list.len() as u64);
        out.extend_from_slice(&list);
    }
}

/// Whether stored bytes hold exactly one game (in either layout: a game repeating the position
/// with two different moves is written in the general one).
pub fn holds_one_game(bytes: &[u8]) -> bool {
    is_single_game(bytes) || general_games(bytes) == Some(1)
}

/// Whether stored bytes use the one-game layout (without decoding them).
pub fn is_single_game(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|&head| head != GENERAL)
}

/// Reads stored bytes, as much as `detail` asks (never the slices), taking the facts of a
/// one-game value's game, or of the games of a value that leaves its top games out, from
/// `facts`; `None` when they are not a valid value or a game has no facts.
pub fn decode_stored(
    bytes: &[u8],
    detail: Detail,
    mut facts: impl FnMut(GameId) -> Option<GameFacts>,
) -> Option<PositionStats> {
    if let Some(read) = stored_game(bytes) {
        let (id, next) = read?;
        return Some(one_game(&facts(id)?, next, detail));
    }
    if general_games(bytes)? > DERIVED_TOP_UP_TO {
        return decode_general(bytes, detail);
    }
    let mut stats = decode_general(bytes, detail.max(Detail::ByMove))?;
    // Only the canonical bytes: no top games stored.
    if !stats.top.is_empty() || !stats.recent.is_empty() {
        return None;
    }
    stats.derive_top_games(facts)?;
    if detail == Detail::Head {
        stats.games_by_move.clear();
    }
    Some(stats)
}

/// Whose facts reading stored bytes needs ([`decode_stored`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactsNeeded {
    /// None: a value of many games, or bytes that do not decode.
    None,
    /// One game's: a one-game value.
    One(GameId),
    /// Its games': a value of few games.
    Several,
}

/// Whose facts reading stored bytes needs, without decoding them.
pub fn facts_needed(bytes: &[u8]) -> FactsNeeded {
    match stored_game(bytes) {
        Some(Some((id, _))) => FactsNeeded::One(id),
        Some(None) => FactsNeeded::None,
        None => match general_games(bytes) {
            Some(games) if games <= DERIVED_TOP_UP_TO => FactsNeeded::Several,
            _ => FactsNeeded::None,
        },
    }
}

/// The game count of a general value (its tally's first varint).
fn general_games(bytes: &[u8]) -> Option<u64> {
    get_varint(&mut bytes.get(1..)?)
}

/// A one-game value's statistics, as far as `detail` asks.
fn one_game(facts: &GameFacts, next: Option<CompactMove>, detail: Detail) -> PositionStats {
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
        stats.game_ids = match stats.games_by_move.as_slice() {
            [(_, ids)] => ids.clone(),
            lines => {
                let mut ids: Vec<GameId> = lines.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            }
        };
    }
    Some(stats)
}

/// The stored bytes of a one-game value: game `id`, playing `next` from the position.
pub fn encode_stored_game(id: GameId, next: Option<CompactMove>, out: &mut Vec<u8>) {
    out.push(u8::from(next.is_some()));
    if let Some(m) = next {
        out.extend_from_slice(&m.bits().to_le_bytes());
    }
    put_varint(out, id.0);
}

/// The game and next move of a stored one-game value: `None` for a general value, `Some(None)`
/// for bytes that are not a canonical one-game value.
pub fn stored_game(bytes: &[u8]) -> Option<Option<(GameId, Option<CompactMove>)>> {
    if !is_single_game(bytes) {
        return None;
    }
    let read = || {
        let input = &mut &bytes[..];
        let next = match take_byte(input)? {
            0 => None,
            1 => Some(take_move(input)?),
            _ => return None,
        };
        let id = GameId(get_varint(input)?);
        let mut canonical = Vec::with_capacity(bytes.len());
        encode_stored_game(id, next, &mut canonical);
        (canonical == bytes).then_some((id, next))
    };
    Some(read())
}

/// Reads the games by move of a general value (what follows its head), to its end.
fn read_games_by_move(mut input: &[u8]) -> Option<Vec<(Option<CompactMove>, Vec<GameId>)>> {
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
    /// The game and its result, when one game reaches the position (no posting list to read).
    pub single: Option<(GameId, GameResult)>,
}

/// Reads only the result counts (and the game of a one-game value) of stored bytes, a one-game
/// value's result from `result_of` its game: the fast path of scans.
pub fn occurrences(bytes: &[u8], result_of: impl FnOnce(GameId) -> Option<GameResult>) -> Option<Occurrences> {
    if !is_single_game(bytes) {
        let tally = read_tally(&mut bytes.get(1..)?)?;
        return Some(Occurrences {
            games: tally.games,
            white: tally.white,
            draws: tally.draws,
            black: tally.black,
            single: None,
        });
    }
    let (id, _) = stored_game(bytes)??;
    let result = result_of(id)?;
    let count = |wanted: GameResult| u64::from(result == wanted);
    Some(Occurrences {
        games: 1,
        white: count(GameResult::WhiteWins),
        draws: count(GameResult::Draw),
        black: count(GameResult::BlackWins),
        single: Some((id, result)),
    })
}

/// The posting list of stored bytes: every game of the value.
pub fn postings(bytes: &[u8]) -> Option<PostingList> {
    match stored_game(bytes) {
        Some(read) => Some(PostingList::encode(&[read?.0])),
        None => Some(PostingList::encode(&decode_general(bytes, Detail::All)?.game_ids)),
    }
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
        encode_stored_game(game, next, out);
    } else {
        encode_stored(&PositionStats::of_plays(std::iter::once((game, next)).chain(plays), facts)?, out);
    }
    Some(())
}

/// The stored bytes of a stored value with the statistics of new games added (a later commit
/// reaching a stored position), the stored games' facts from `facts`. `None` when the stored
/// value does not decode.
pub fn add_to_stored(
    stored: &[u8],
    added: &PositionStats,
    facts: impl FnMut(GameId) -> Option<GameFacts>,
) -> Option<Vec<u8>> {
    let mut stats = decode_stored(stored, Detail::ByMove, facts)?;
    stats.merge(added);
    let mut out = Vec::new();
    encode_stored(&stats, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::GameRecord;

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
            GameFacts {
                id: GameId(id),
                result,
                ratings: [w, b],
                month,
                speed: Speed::from_index(speed).expect("speed index"),
            }
        })
    }

    fn arb_stats() -> impl Strategy<Value = PositionStats> {
        let one = (arb_facts(), proptest::collection::vec(1u16..4000, 0..3));
        proptest::collection::vec(one, 1..6).prop_map(|games| {
            let mut total: Option<PositionStats> = None;
            for (index, (mut facts, moves)) in games.into_iter().enumerate() {
                // Ids are unique per game.
                facts.id = GameId(facts.id.0 * 8 + index as u64);
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

    /// The general layout with top and recent games, whatever the game count.
    fn encoded(stats: &PositionStats) -> Vec<u8> {
        let mut bytes = Vec::new();
        write_general(stats, true, &mut bytes);
        bytes
    }

    proptest! {
        #[test]
        fn round_trips(stats in arb_stats()) {
            let bytes = encoded(&stats);
            prop_assert_eq!(decode_general(&bytes, Detail::All), Some(stats.clone()));
            let head = decode_general(&bytes, Detail::Head).expect("head decodes");
            prop_assert_eq!(head, PositionStats { game_ids: Vec::new(), games_by_move: Vec::new(), ..stats.clone() });
            prop_assert_eq!(postings(&bytes).map(|p| p.to_vec()), Some(stats.game_ids.clone()));
            prop_assert!(!is_single_game(&bytes));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            if let Some(stats) = decode_general(&bytes, Detail::All) {
                prop_assert_eq!(decode_general(&encoded(&stats), Detail::All), Some(stats));
            }
            let _ = decode_general(&bytes, Detail::Head);
            let _ = postings(&bytes);
            if let Some(Some((id, next))) = stored_game(&bytes) {
                let mut canonical = Vec::new();
                encode_stored_game(id, next, &mut canonical);
                prop_assert_eq!(&canonical, &bytes);
            }
            let _ = decode_stored(&bytes, Detail::All, |id| Some(facts(id.0, GameResult::Draw, [None, None], "2001.01.01")));
            let _ = occurrences(&bytes, |_| Some(GameResult::Draw));
        }
    }

    fn facts(id: u64, result: GameResult, ratings: [Option<u16>; 2], date: &str) -> GameFacts {
        GameFacts { id: GameId(id), result, ratings, month: Month::from_date(date), speed: Speed::Unknown }
    }

    /// Games with distinct ids and the moves each played from a position, up to past
    /// [`DERIVED_TOP_UP_TO`] games.
    fn arb_games() -> impl Strategy<Value = Vec<(GameFacts, Vec<CompactMove>)>> {
        let one = (arb_facts(), proptest::collection::vec(1u16..4000, 0..3));
        proptest::collection::vec(one, 1..90).prop_map(|games| {
            games
                .into_iter()
                .enumerate()
                .map(|(index, (mut facts, moves))| {
                    facts.id = GameId(facts.id.0 * 128 + index as u64);
                    (facts, moves.into_iter().filter_map(CompactMove::from_bits).collect())
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn stored_general_values_read_back_the_same(games in arb_games()) {
            let mut stats = PositionStats::game(&games[0].0, &games[0].1);
            for (facts, moves) in &games[1..] {
                stats.merge(&PositionStats::game(facts, moves));
            }
            let facts: std::collections::HashMap<GameId, GameFacts> = games.iter().map(|(f, _)| (f.id, *f)).collect();
            let known = |id| facts.get(&id).copied();
            let mut stored = Vec::new();
            encode_stored(&stats, &mut stored);
            prop_assert_eq!(decode_stored(&stored, Detail::All, known), Some(stats.clone()));
            let head = PositionStats { game_ids: Vec::new(), games_by_move: Vec::new(), ..stats.clone() };
            prop_assert_eq!(decode_stored(&stored, Detail::Head, known), Some(head));
            let few = stats.total.games <= DERIVED_TOP_UP_TO;
            prop_assert_eq!(facts_needed(&stored) == FactsNeeded::Several, few);
            if few {
                // Top games left out, so read only with the games' facts.
                prop_assert!(stored.len() < encoded(&stats).len());
                prop_assert_eq!(decode_stored(&stored, Detail::Head, |_| None), None);
                // A value of few games holding top games is not canonical.
                prop_assert_eq!(decode_stored(&encoded(&stats), Detail::Head, known), None);
            } else {
                prop_assert_eq!(&stored, &encoded(&stats));
            }
            // A later commit adding the games after the first ones to the first ones stored (a
            // one-game value or not) gives the same bytes.
            let split = games.len() / 2;
            if split > 0 {
                let built = |games: &[(GameFacts, Vec<CompactMove>)]| {
                    let mut part = PositionStats::game(&games[0].0, &games[0].1);
                    for (facts, moves) in &games[1..] {
                        part.merge(&PositionStats::game(facts, moves));
                    }
                    part
                };
                let mut first = Vec::new();
                match &games[..split] {
                    [(facts, moves)] if moves.len() <= 1 => encode_stored_game(facts.id, moves.first().copied(), &mut first),
                    firsts => encode_stored(&built(firsts), &mut first),
                }
                // Only the stored games' facts are needed.
                let stored_only = |id| games[..split].iter().find(|(f, _)| f.id == id).map(|(f, _)| *f);
                let added = add_to_stored(&first, &built(&games[split..]), stored_only).expect("decodes");
                prop_assert_eq!(added, stored);
            }
        }
    }

    proptest! {
        #[test]
        fn a_one_game_value_reads_back_the_same(facts in arb_facts(), next in proptest::option::of(1u16..4000)) {
            let next = next.and_then(CompactMove::from_bits);
            let mut stored = Vec::new();
            encode_stored_game(facts.id, next, &mut stored);
            prop_assert!(is_single_game(&stored) && holds_one_game(&stored));
            prop_assert_eq!(stored_game(&stored), Some(Some((facts.id, next))));
            let mut junk = stored.clone();
            junk.push(0);
            prop_assert_eq!(stored_game(&junk), Some(None));
            let built = PositionStats::game(&facts, next.as_slice());
            prop_assert_eq!(decode_stored(&stored, Detail::All, |id| (id == facts.id).then_some(facts)), Some(built));
            for detail in [Detail::Head, Detail::ByMove, Detail::All] {
                prop_assert_eq!(decode_stored(&stored, detail, |id| (id == facts.id).then_some(facts)), Some(one_game(&facts, next, detail)));
            }
            prop_assert_eq!(decode_stored(&stored, Detail::All, |_| None), None);
            prop_assert_eq!(postings(&stored).map(|p| p.to_vec()), Some(vec![facts.id]));
            let seen = occurrences(&stored, |id| (id == facts.id).then_some(facts.result)).expect("occurrences");
            prop_assert_eq!((seen.games, seen.single), (1, Some((facts.id, facts.result))));
        }

        #[test]
        fn facts_round_trip(facts in arb_facts()) {
            let bytes = encode_facts(&facts);
            prop_assert_eq!(decode_facts(facts.id, &bytes), Some(facts));
        }

        #[test]
        fn arbitrary_facts_bytes_are_canonical_or_refused(bytes in proptest::array::uniform8(any::<u8>())) {
            if let Some(facts) = decode_facts(GameId(1), &bytes) {
                prop_assert_eq!(encode_facts(&facts), bytes);
            }
        }
    }

    #[test]
    fn one_game_costs_six_bytes() {
        let game = facts(123_456, GameResult::Draw, [Some(2700), Some(2650)], "1999.05.01");
        let stats = PositionStats::game(&game, &[mv(12 | 28 << 6)]);
        let mut stored = Vec::new();
        encode_stored_game(game.id, Some(mv(12 | 28 << 6)), &mut stored);
        assert_eq!(stored.len(), 6);
        assert!(is_single_game(&stored));
        assert_eq!(stats.total.average_rating(), Some(2675));
        assert_eq!(stats.top[0].rating, 2675);
    }

    #[test]
    fn game_records_round_trip_and_corrupt_bytes_are_refused() {
        let start: crate::Position = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1".parse().expect("a position");
        let start = start.into_chess();
        let mut chess = start.clone();
        let mut moves = Vec::new();
        for uci in ["a7a8q", "e8d7"] {
            let m = uci.parse::<shakmaty::uci::UciMove>().expect("uci").to_move(&chess).expect("legal");
            shakmaty::Position::play_unchecked(&mut chess, m);
            moves.push(m);
        }
        let tags = crate::model::Tags { white: "A".to_owned(), white_elo: Some(2700), ..Default::default() };
        let fen = Some("4k3/P7/8/8/8/8/8/4K3 w - - 0 1".to_owned());
        let record = GameRecord::new(tags, GameResult::WhiteWins, fen, crate::codec::mainline::encode(&start, &moves));
        let (head, line) = (encode_game_head(&record), encode_record(record.line()));
        assert_eq!(decode_game_record(&head, &line), Some(record.clone()));
        assert_eq!(decode_record::<Mainline>(&line).as_ref(), Some(record.line()));
        assert_eq!(crate::model::replay(&record).map(|p| p.len()), Some(3));
        assert_eq!(record.tags.white_elo, Some(2700));
        // Truncations, a trailing byte and a huge length prefix, in either part, never panic.
        for cut in 0..head.len() {
            assert_eq!(decode_game_record(&head[..cut], &line), None);
        }
        for cut in 0..line.len() {
            assert_eq!(decode_game_record(&head, &line[..cut]), None);
        }
        assert_eq!(decode_game_record(&[head.as_slice(), &[0]].concat(), &line), None);
        assert_eq!(decode_game_record(&head, &[line.as_slice(), &[0]].concat()), None);
        let huge = [0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(decode_game_record(&huge, &line), None);
        assert_eq!(decode_game_record(&head, &huge), None);
        // The parts are not interchangeable.
        assert_eq!(decode_game_record(&line, &head), None);
    }
}
