//! The value of a position: how many games reached it, their results, ratings and years, and the
//! same tallies per next move; its byte layout and the merge that sums two of them.
//!
//! Layout (varints are LEB128, moves are [`CompactMove`] bits, little-endian u16):
//!
//! * **one game** — the common case (most positions occur in a single game), byte 0 < 0x80:
//!   bits 0–1 result (0 white won, 1 draw, 2 black won, 3 unknown), bits 2–3 how many of the two
//!   players had a rating, bit 4 a year follows, bit 5 a next move follows; then the rating sum
//!   (varint, when bits 2–3 ≠ 0), the year (varint), the move (2 bytes). Typically 7 bytes.
//! * **general** — byte 0 = 0x80, then varints `games white draws black rating_sum rating_count
//!   min_year max_year` (years 0 when unknown), the number of moves, and per move (ascending
//!   bits) its 2 bytes and varints `games white draws black rating_sum rating_count`.
//!
//! Ratings are summed per player: a game where both are rated adds two ratings and 2 to the
//! count, so `rating_sum / rating_count` is the average player rating. A game counts once for a
//! position however often it repeats there, and once for each distinct move it played from it.

use crate::{codec::CompactMove, ingest::GameResult};

/// Game counts by result, with rating sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bincode::Encode)]
pub struct Tally {
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub rating_sum: u64,
    pub rating_count: u64,
}

impl Tally {
    /// One game's contribution.
    pub fn game(result: GameResult, ratings: [Option<u16>; 2]) -> Tally {
        let rated = ratings.iter().flatten();
        Tally {
            games: 1,
            white: u64::from(result == GameResult::WhiteWins),
            draws: u64::from(result == GameResult::Draw),
            black: u64::from(result == GameResult::BlackWins),
            rating_sum: rated.clone().map(|&r| u64::from(r)).sum(),
            rating_count: rated.count() as u64,
        }
    }

    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.white += other.white;
        self.draws += other.draws;
        self.black += other.black;
        self.rating_sum += other.rating_sum;
        self.rating_count += other.rating_count;
    }

    /// Average player rating, when any player was rated.
    pub fn average_rating(&self) -> Option<u64> {
        (self.rating_count > 0).then(|| (self.rating_sum + self.rating_count / 2) / self.rating_count)
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
        for n in [self.games, self.white, self.draws, self.black, self.rating_sum, self.rating_count] {
            put_varint(out, n);
        }
    }

    fn read(input: &mut &[u8]) -> Option<Tally> {
        Some(Tally {
            games: get_varint(input)?,
            white: get_varint(input)?,
            draws: get_varint(input)?,
            black: get_varint(input)?,
            rating_sum: get_varint(input)?,
            rating_count: get_varint(input)?,
        })
    }
}

/// Everything stored for one position. (`bincode::Encode` is there to compare sizes with the
/// hand-made layout in the ingest benchmark.)
#[derive(Clone, Debug, Default, PartialEq, Eq, bincode::Encode)]
pub struct PositionStats {
    pub total: Tally,
    /// Earliest and latest known year (0 when no game had one).
    pub min_year: u16,
    pub max_year: u16,
    /// Per next move, ascending by move bits.
    pub moves: Vec<(CompactMove, Tally)>,
}

const GENERAL: u8 = 0x80;

impl PositionStats {
    /// One game reaching the position and playing `next` moves from it.
    pub fn game(tally: Tally, year: Option<u16>, next: &[CompactMove]) -> PositionStats {
        let year = year.unwrap_or(0);
        let mut moves: Vec<_> = next.iter().map(|&m| (m, tally)).collect();
        moves.sort_unstable_by_key(|(m, _)| *m);
        moves.dedup_by_key(|(m, _)| *m);
        PositionStats { total: tally, min_year: year, max_year: year, moves }
    }

    /// Adds `other`'s games.
    pub fn merge(&mut self, other: &PositionStats) {
        self.total.add(&other.total);
        self.min_year = match (self.min_year, other.min_year) {
            (0, y) | (y, 0) => y,
            (a, b) => a.min(b),
        };
        self.max_year = self.max_year.max(other.max_year);
        if other.moves.is_empty() {
            return;
        }
        let mut merged = Vec::with_capacity(self.moves.len() + other.moves.len());
        let (mut i, mut j) = (0, 0);
        while let (Some(&(a, ta)), Some(&(b, tb))) = (self.moves.get(i), other.moves.get(j)) {
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
        merged.extend_from_slice(&self.moves[i..]);
        merged.extend_from_slice(&other.moves[j..]);
        self.moves = merged;
    }

    /// The stored bytes (the one-game layout whenever it applies).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let single_move = match self.moves.as_slice() {
            [] => Some(None),
            [(m, tally)] if tally == &self.total => Some(Some(*m)),
            _ => None,
        };
        if let (Some(result), Some(next), true, true) =
            (self.total.result_code(), single_move, self.total.rating_count <= 2, self.min_year == self.max_year)
        {
            let mut head = result | (self.total.rating_count as u8) << 2;
            head |= u8::from(self.min_year != 0) << 4 | u8::from(next.is_some()) << 5;
            out.push(head);
            if self.total.rating_count > 0 {
                put_varint(out, self.total.rating_sum);
            }
            if self.min_year != 0 {
                put_varint(out, u64::from(self.min_year));
            }
            if let Some(m) = next {
                out.extend_from_slice(&m.bits().to_le_bytes());
            }
            return;
        }
        out.push(GENERAL);
        self.total.write(out);
        put_varint(out, u64::from(self.min_year));
        put_varint(out, u64::from(self.max_year));
        put_varint(out, self.moves.len() as u64);
        for (m, tally) in &self.moves {
            out.extend_from_slice(&m.bits().to_le_bytes());
            tally.write(out);
        }
    }

    /// Whether stored bytes use the one-game layout (without decoding them).
    pub fn is_single_game(bytes: &[u8]) -> bool {
        bytes.first().is_some_and(|&head| head < GENERAL)
    }

    /// Reads stored bytes; `None` when they are not a valid value.
    pub fn decode(mut input: &[u8]) -> Option<PositionStats> {
        let input = &mut input;
        let head = take_byte(input)?;
        let stats = if head < GENERAL {
            if head >> 6 != 0 || (head >> 2) & 3 == 3 {
                return None;
            }
            let result = head & 3;
            let rating_count = u64::from((head >> 2) & 3);
            let mut total = Tally {
                games: 1,
                white: u64::from(result == 0),
                draws: u64::from(result == 1),
                black: u64::from(result == 2),
                rating_sum: 0,
                rating_count,
            };
            if rating_count > 0 {
                total.rating_sum = get_varint(input)?;
            }
            let year = if head & 0x10 != 0 { u16::try_from(get_varint(input)?).ok()? } else { 0 };
            let mut moves = Vec::new();
            if head & 0x20 != 0 {
                moves.push((take_move(input)?, total));
            }
            PositionStats { total, min_year: year, max_year: year, moves }
        } else if head == GENERAL {
            let total = Tally::read(input)?;
            let min_year = u16::try_from(get_varint(input)?).ok()?;
            let max_year = u16::try_from(get_varint(input)?).ok()?;
            let count = usize::try_from(get_varint(input)?).ok()?;
            // Each move takes at least 8 bytes: a count beyond that is corrupt.
            let mut moves = Vec::with_capacity(count.min(input.len() / 8));
            for _ in 0..count {
                let m = take_move(input)?;
                moves.push((m, Tally::read(input)?));
            }
            PositionStats { total, min_year, max_year, moves }
        } else {
            return None;
        };
        input.is_empty().then_some(stats)
    }
}

/// The merge operator's function: sums the existing value and every operand.
///
/// Returns `None` (RocksDB reports a corruption) if any value does not decode.
pub fn merge_values<'a>(existing: Option<&[u8]>, operands: impl IntoIterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
    let mut operands = operands.into_iter();
    let mut stats = match existing {
        Some(bytes) => PositionStats::decode(bytes)?,
        None => PositionStats::decode(operands.next()?)?,
    };
    for operand in operands {
        stats.merge(&PositionStats::decode(operand)?);
    }
    let mut out = Vec::new();
    stats.encode(&mut out);
    Some(out)
}

fn take_byte(input: &mut &[u8]) -> Option<u8> {
    let (&first, rest) = input.split_first()?;
    *input = rest;
    Some(first)
}

fn take_move(input: &mut &[u8]) -> Option<CompactMove> {
    let (bytes, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    CompactMove::from_bits(u16::from_le_bytes(*bytes))
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub(crate) fn get_varint(input: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = take_byte(input)?;
        n |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn mv(bits: u16) -> CompactMove {
        CompactMove::from_bits(bits).expect("valid move bits")
    }

    fn arb_stats() -> impl Strategy<Value = PositionStats> {
        let result = prop_oneof![
            Just(GameResult::WhiteWins),
            Just(GameResult::Draw),
            Just(GameResult::BlackWins),
            Just(GameResult::Unknown)
        ];
        let game = (result, proptest::option::of(1000u16..3000), proptest::option::of(1000u16..3000));
        let one = (game, proptest::option::of(1400u16..2100), proptest::collection::vec(1u16..4000, 0..3));
        proptest::collection::vec(one, 1..5).prop_map(|games| {
            let mut total = PositionStats::default();
            for ((result, w, b), year, moves) in games {
                let moves: Vec<_> = moves.into_iter().filter_map(CompactMove::from_bits).collect();
                total.merge(&PositionStats::game(Tally::game(result, [w, b]), year, &moves));
            }
            total
        })
    }

    proptest! {
        #[test]
        fn round_trips(stats in arb_stats()) {
            let mut bytes = Vec::new();
            stats.encode(&mut bytes);
            prop_assert_eq!(PositionStats::decode(&bytes), Some(stats));
        }

        #[test]
        fn merge_equals_sum_of_parts(parts in proptest::collection::vec(arb_stats(), 1..6)) {
            let encoded: Vec<Vec<u8>> = parts.iter().map(|s| { let mut v = Vec::new(); s.encode(&mut v); v }).collect();
            let mut expected = parts[0].clone();
            for part in &parts[1..] {
                expected.merge(part);
            }
            let merged = merge_values(None, encoded.iter().map(Vec::as_slice)).unwrap();
            prop_assert_eq!(PositionStats::decode(&merged), Some(expected.clone()));
            // Partial merges in any grouping give the same bytes.
            let (head, tail) = encoded.split_at(1);
            let tail_merged = merge_values(None, tail.iter().map(Vec::as_slice));
            let regrouped = match tail_merged {
                Some(t) => merge_values(Some(&head[0]), [t.as_slice()]).unwrap(),
                None => head[0].clone(),
            };
            prop_assert_eq!(regrouped, merged);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(stats) = PositionStats::decode(&bytes) {
                let mut again = Vec::new();
                stats.encode(&mut again);
                prop_assert_eq!(PositionStats::decode(&again), Some(stats));
            }
        }
    }

    #[test]
    fn one_game_costs_seven_bytes() {
        let tally = Tally::game(GameResult::Draw, [Some(2700), Some(2650)]);
        let stats = PositionStats::game(tally, Some(1999), &[mv(12 | 28 << 6)]);
        let mut bytes = Vec::new();
        stats.encode(&mut bytes);
        assert_eq!(bytes.len(), 7);
        assert_eq!(stats.total.average_rating(), Some(2675));
    }

    #[test]
    fn repeated_moves_count_once_and_totals_add() {
        let a = PositionStats::game(
            Tally::game(GameResult::WhiteWins, [None, Some(2000)]),
            None,
            &[mv(1 << 6), mv(1 << 6)],
        );
        let b = PositionStats::game(Tally::game(GameResult::BlackWins, [None, None]), Some(1900), &[mv(2 << 6)]);
        let mut sum = a.clone();
        sum.merge(&b);
        assert_eq!(sum.total.games, 2);
        assert_eq!((sum.total.white, sum.total.black, sum.total.rating_count), (1, 1, 1));
        assert_eq!((sum.min_year, sum.max_year), (1900, 1900));
        assert_eq!(sum.moves.len(), 2);
        assert_eq!(sum.moves[0].1.games, 1);
    }
}
