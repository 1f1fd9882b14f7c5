//! The value layouts against what they encode: round trips, canonical bytes, damaged bytes.

use proptest::prelude::*;

use super::*;
use crate::model::{Month, Speed};

// The byte-level reads the tests were written against, over the typed value.
fn general(bytes: &[u8]) -> StoredValue<'_> {
    StoredValue::General(Cow::Borrowed(bytes))
}
fn is_single_game(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|&head| head != GENERAL && head != FEW_GAMES)
}
fn holds_one_game(bytes: &[u8]) -> bool {
    StoredValue::parse(bytes).is_some_and(|value| value.holds_one_game())
}
fn stored_game(bytes: &[u8]) -> Option<Option<(GameId, Option<CompactMove>)>> {
    is_single_game(bytes).then(|| match StoredValue::parse(bytes) {
        Some(StoredValue::OneGame { game, next }) => Some((game, next)),
        _ => None,
    })
}
fn encode_stored_game(id: GameId, next: Option<CompactMove>, out: &mut Vec<u8>) {
    write_one_game(id, next, out)
}
fn encode_stored(stats: &PositionStats, out: &mut Vec<u8>) {
    encode_general(stats, out)
}
fn decode_stored(
    bytes: &[u8],
    detail: Detail,
    facts: impl FnMut(GameId) -> Option<GameFacts>,
) -> Option<PositionStats> {
    StoredValue::parse(bytes)?.decode(detail, facts)
}
fn facts_needed(bytes: &[u8]) -> FactsNeeded {
    StoredValue::parse(bytes).map_or(FactsNeeded::None, |value| value.facts_needed())
}
fn occurrences(bytes: &[u8], facts_of: impl FnMut(GameId) -> Option<GameFacts>) -> Option<Occurrences> {
    StoredValue::parse(bytes)?.occurrences(facts_of)
}
fn postings(bytes: &[u8]) -> Option<PostingList> {
    StoredValue::parse(bytes)?.postings()
}
fn add_to_stored(
    stored: &[u8],
    added: &PositionStats,
    facts: impl FnMut(GameId) -> Option<GameFacts>,
) -> Option<Vec<u8>> {
    StoredValue::parse(stored)?.add(added, facts)
}

fn mv(bits: u16) -> CompactMove {
    CompactMove::from_bits(bits).expect("valid move bits")
}

pub(crate) fn arb_facts() -> impl Strategy<Value = GameFacts> {
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
    write_general(stats, &mut bytes);
    bytes
}

proptest! {
    #[test]
    fn round_trips(stats in arb_stats()) {
        let bytes = encoded(&stats);
        prop_assert_eq!(decode_general(&bytes, Detail::All), Some(stats.clone()));
        let head = decode_general(&bytes, Detail::Head).expect("head decodes");
        prop_assert_eq!(head, PositionStats { game_ids: Vec::new(), games_by_move: Vec::new(), ..stats.clone() });
        prop_assert_eq!(general(&bytes).postings().map(|p| p.to_vec()), Some(stats.game_ids.clone()));
        prop_assert!(matches!(StoredValue::parse(&bytes), Some(StoredValue::General(_))));
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
        let _ = occurrences(&bytes, |id| Some(facts(id.0, GameResult::Draw, [None, None], "2001.01.01")));
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
        // What scans and posting lists read, in either layout.
        prop_assert_eq!(occurrences(&stored, known), Some(Occurrences::of(&stats.total, None)));
        prop_assert_eq!(postings(&stored).map(|p| p.to_vec()), Some(stats.game_ids.clone()));
        if few {
            // A count the games do not give is refused.
            let mut miscounted = stored.clone();
            miscounted[1] ^= 1;
            prop_assert_eq!(decode_stored(&miscounted, Detail::Head, known), None);
            prop_assert_eq!(occurrences(&miscounted, known), None);
            prop_assert_eq!(postings(&miscounted), None);
            // Lines out of order are refused by every reader.
            let lines = &stats.games_by_move;
            if lines.len() > 1 {
                let mut swapped = vec![FEW_GAMES];
                put_varint(&mut swapped, stats.total.games);
                let mut reversed = lines.clone();
                reversed.reverse();
                write_games_by_move(&reversed, &mut swapped);
                prop_assert_eq!(decode_stored(&swapped, Detail::Head, known), None);
                prop_assert_eq!(occurrences(&swapped, known), None);
                prop_assert_eq!(postings(&swapped), None);
            }
        }
        if few {
            // Games by move alone, so read only with the games' facts.
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
        prop_assert_eq!(decode_stored(&stored, Detail::All, |id| (id == facts.id).then_some(facts)), Some(built.clone()));
        for detail in [Detail::Head, Detail::ByMove, Detail::All] {
            prop_assert_eq!(decode_stored(&stored, detail, |id| (id == facts.id).then_some(facts)), Some(one_game_stats(&facts, next, detail)));
        }
        prop_assert_eq!(decode_stored(&stored, Detail::All, |_| None), None);
        prop_assert_eq!(postings(&stored).map(|p| p.to_vec()), Some(vec![facts.id]));
        let seen = occurrences(&stored, |id| (id == facts.id).then_some(facts)).expect("occurrences");
        prop_assert_eq!((seen.games, seen.single), (1, Some((facts.id, facts.result))));
        prop_assert_eq!(seen.average_rating, built.total.average_rating());
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
