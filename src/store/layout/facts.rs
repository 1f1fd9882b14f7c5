//! A game's facts in eight bytes, as the facts family stores them (a value holds the facts of a
//! run of consecutive games, one writer batch, under its first game's id).
//!
//! One u64, little-endian:
//!
//! ```text
//! bits  0–15  the Month
//!      16–31  White's rating        32–47  Black's rating
//!      48–49  the result code       50     White rated     51  Black rated
//!      52–54  the Speed             55–63  zero
//! ```
//!
//! Result codes: 0 White won, 1 draw, 2 Black won, 3 unknown ([`RESULTS`]).

use crate::model::{GameFacts, GameId, GameResult, Month, Speed};

/// Bytes of a game's facts.
pub const FACTS_LEN: usize = std::mem::size_of::<u64>();

/// The result codes: a result's code is its index.
pub const RESULTS: [GameResult; 4] = GameResult::ALL;

const MONTH_AT: u32 = 0;
const WHITE_RATING_AT: u32 = MONTH_AT + u16::BITS;
const BLACK_RATING_AT: u32 = WHITE_RATING_AT + u16::BITS;
const RESULT_AT: u32 = BLACK_RATING_AT + u16::BITS;
const RESULT_BITS: u32 = 2;
const WHITE_RATED_AT: u32 = RESULT_AT + RESULT_BITS;
const BLACK_RATED_AT: u32 = WHITE_RATED_AT + 1;
const SPEED_AT: u32 = BLACK_RATED_AT + 1;
const SPEED_BITS: u32 = 3;

/// The code of a result (its index in [`RESULTS`]).
pub fn result_code(result: GameResult) -> u8 {
    result.index() as u8
}

/// The stored bytes of a game's facts.
pub fn encode_facts(facts: &GameFacts) -> [u8; FACTS_LEN] {
    let [white, black] = facts.ratings;
    let packed = u64::from(facts.month.0) << MONTH_AT
        | u64::from(white.unwrap_or(0)) << WHITE_RATING_AT
        | u64::from(black.unwrap_or(0)) << BLACK_RATING_AT
        | u64::from(result_code(facts.result)) << RESULT_AT
        | u64::from(white.is_some()) << WHITE_RATED_AT
        | u64::from(black.is_some()) << BLACK_RATED_AT
        | (facts.speed as u64) << SPEED_AT;
    packed.to_le_bytes()
}

/// Reads the facts of game `id` from their stored bytes; `None` unless they are canonical (no
/// unused bit set, no rating without its flag).
pub fn decode_facts(id: GameId, bytes: &[u8]) -> Option<GameFacts> {
    let bytes: [u8; FACTS_LEN] = bytes.try_into().ok()?;
    let facts = unpack_facts(id, bytes)?;
    (encode_facts(&facts) == bytes).then_some(facts)
}

/// Reads stored bytes checked before ([`decode_facts`]), without checking them again.
pub fn unpack_facts(id: GameId, bytes: [u8; FACTS_LEN]) -> Option<GameFacts> {
    let packed = u64::from_le_bytes(bytes);
    let field = |at: u32, bits: u32| (packed >> at & ((1 << bits) - 1)) as u16;
    let rating = |at: u32, flag: u32| (field(flag, 1) == 1).then(|| field(at, u16::BITS));
    Some(GameFacts {
        id,
        result: RESULTS[usize::from(field(RESULT_AT, RESULT_BITS))],
        ratings: [rating(WHITE_RATING_AT, WHITE_RATED_AT), rating(BLACK_RATING_AT, BLACK_RATED_AT)],
        month: Month(field(MONTH_AT, u16::BITS)),
        speed: Speed::from_index(field(SPEED_AT, SPEED_BITS) as u8)?,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::store::layout::value::tests::arb_facts;

    proptest! {
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
}
