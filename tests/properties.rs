//! Property tests: random games biased toward promotions, en passant and castling-right changes
//! round-trip through both codecs; arbitrary bytes decode to a position or an error, never a
//! panic, and whatever decodes is canonical (re-encodes to the same bytes); the scan decoder
//! agrees with the key decoder; pattern text parses or fails cleanly, and evaluates the same on
//! either kind of decoded position.

use crate::common;

use proptest::prelude::*;
use shakmaty::{Chess, Move, Position as _, Role};
use tabiya::{
    Key, Position,
    codec::{KeyDecoder, KeyEncoder, huffman},
    pattern::{Pattern, Scene},
};

/// Moves that change what the key has to express.
fn is_interesting(m: &Move) -> bool {
    m.is_promotion()
        || m.is_en_passant()
        || m.is_castle()
        || m.is_capture()
        || matches!(m.role(), Role::King | Role::Rook)
        || (m.role() == Role::Pawn && m.from().is_some_and(|from| from.distance(m.to()) == 2))
}

/// Plays a game steered by `choices`, returning every position.
fn random_game(choices: &[u32]) -> Vec<Position> {
    let mut chess = Chess::default();
    let mut positions = vec![Position::initial()];
    for &choice in choices {
        let moves = chess.legal_moves();
        if moves.is_empty() {
            break;
        }
        let promotions: Vec<&Move> = moves.iter().filter(|m| m.is_promotion() || m.is_en_passant()).collect();
        let interesting: Vec<&Move> = moves.iter().filter(|m| is_interesting(m)).collect();
        let m = if !promotions.is_empty() && choice % 2 == 0 {
            promotions[(choice / 2) as usize % promotions.len()]
        } else if !interesting.is_empty() && choice % 3 != 0 {
            interesting[(choice / 3) as usize % interesting.len()]
        } else {
            &moves[choice as usize % moves.len()]
        };
        chess.play_unchecked(*m);
        positions.push(Position::from_chess(chess.clone()).expect("standard game"));
    }
    positions
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_games_round_trip(choices in prop::collection::vec(any::<u32>(), 0..400)) {
        // One encoder for the whole game, as ingest keys it: the material block it keeps from
        // one position to the next must not change a key.
        let mut encoder = KeyEncoder::default();
        for position in random_game(&choices) {
            common::assert_round_trip(&position);
            prop_assert_eq!(encoder.encode(&position), KeyEncoder::default().encode(&position));
        }
    }

    #[test]
    fn one_encoder_keys_game_after_game(games in prop::collection::vec(prop::collection::vec(any::<u32>(), 0..300), 1..24)) {
        // One encoder for many games, as each ingest worker keys them, against a fresh encoder
        // for each position (which frames its one block directly): the blocks it keeps from
        // game to game (the last one and a table of earlier ones, whose slots materials share)
        // must not change a key.
        let mut encoder = KeyEncoder::default();
        for choices in &games {
            for position in random_game(choices) {
                prop_assert_eq!(encoder.encode(&position), KeyEncoder::default().encode(&position));
            }
        }
    }

    #[test]
    fn arbitrary_keys_decode_canonically(category in 0u8..=82, rank in any::<[u8; 20]>()) {
        let mut bytes = [0u8; 21];
        bytes[0] = category;
        bytes[1..].copy_from_slice(&rank);
        let key = Key::from_bytes(bytes);
        if let Ok(position) = key.decode() {
            prop_assert_eq!(Key::encode(&position), Ok(key));
        }
    }

    /// Keys near real ones (same high bytes, random low bytes) land inside category ranges far
    /// more often than uniform bytes, reaching the deeper decode steps.
    #[test]
    fn perturbed_keys_decode_canonically(choices in prop::collection::vec(any::<u32>(), 1..120), noise in any::<[u8; 12]>(), from in 9usize..21) {
        let position = random_game(&choices).pop().unwrap();
        let mut bytes = *Key::encode(&position).unwrap().as_bytes();
        for (byte, n) in bytes[from..].iter_mut().zip(noise) {
            *byte ^= n;
        }
        let key = Key::from_bytes(bytes);
        if let Ok(decoded) = key.decode() {
            prop_assert_eq!(Key::encode(&decoded), Ok(key));
        }
    }

    #[test]
    fn arbitrary_packed_bytes_decode_canonically(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        if let Ok(position) = huffman::decode(&bytes) {
            prop_assert_eq!(huffman::encode(&position).bytes, bytes);
        }
    }

    #[test]
    fn truncated_packed_positions_are_errors(choices in prop::collection::vec(any::<u32>(), 1..120), cut in 1usize..8) {
        let position = random_game(&choices).pop().unwrap();
        let packed = huffman::encode(&position);
        let short = &packed.bytes[..packed.bytes.len().saturating_sub(cut)];
        if let Ok(decoded) = huffman::decode(short) {
            prop_assert_eq!(huffman::encode(&decoded).bytes, short.to_vec());
        }
    }

    /// Text from the pattern language's own tokens parses or fails with a column inside it,
    /// never panics.
    #[test]
    fn pattern_text_parses_or_fails_cleanly(
        tokens in prop::collection::vec(prop::sample::select(PATTERN_TOKENS.to_vec()), 1..10),
    ) {
        let text = tokens.join("");
        if let Err(err) = text.parse::<Pattern>() {
            prop_assert!(err.column >= 1 && err.column <= text.chars().count() + 1, "{text}: {err}");
        }
    }

    /// Patterns written from the grammar parse; each evaluates the same whether the position
    /// comes from shakmaty or from a key decoded for a scan, implies only materials it can match,
    /// and its mirror's mirror is itself.
    #[test]
    fn grammar_patterns_evaluate_alike_on_both_decodings(
        text in pattern_expr(),
        choices in prop::collection::vec(any::<u32>(), 0..80),
    ) {
        let pattern = text.parse::<Pattern>();
        prop_assert!(pattern.is_ok(), "{text}: {pattern:?}");
        let pattern = pattern.unwrap();
        prop_assert_eq!(pattern.expr.flipped().flipped(), pattern.expr.clone());
        let flipped = pattern.clone().with_flip(true);
        for position in random_game(&choices) {
            let key = Key::encode(&position).unwrap();
            let board = key.decode_board(|_, _| true).unwrap().unwrap();
            let from_chess = pattern.matches(&mut Scene::of_position(&position));
            prop_assert_eq!(from_chess, pattern.matches(&mut Scene::of_key_board(&board)), "{} on {}", text, position);
            prop_assert!(flipped.matches(&mut Scene::of_position(&position)) || !from_chess);
            prop_assert!(!from_chess || pattern.material_need().admits(&tabiya::Material::of(&position)), "{} on {}", text, position);
        }
    }

    /// A scan's decoder, fed keys in key order, decodes each as the one-key decoder does.
    #[test]
    fn the_scan_decoder_agrees_with_the_key_decoder(choices in prop::collection::vec(any::<u32>(), 1..200)) {
        let mut keys: Vec<Key> = random_game(&choices).iter().map(|p| Key::encode(p).unwrap()).collect();
        keys.sort();
        let mut decoder = KeyDecoder::default();
        for key in keys {
            prop_assert_eq!(decoder.decode(&key, |_, _| true).unwrap(), key.decode_board(|_, _| true).unwrap());
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}") {
        if let Ok(position) = text.parse::<Position>() {
            common::assert_round_trip(&position);
        }
        let _ = text.parse::<Key>();
        let _ = text.parse::<tabiya::Material>().map(|m| m.check());
        let _ = text.parse::<Pattern>();
    }
}

/// A designator from the grammar: pieces, then maybe squares.
fn designator() -> impl Strategy<Value = String> {
    let pieces = ["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "A", "a", "_", "[Qq]", "[RrQq]", "[Pp_]"];
    let squares = ["", "", "e4", "a-h7", "e1-8", "a-d1-4", "[e4,d5]", "h8", "a-h2"];
    (prop::sample::select(pieces.to_vec()), prop::sample::select(squares.to_vec())).prop_map(|(p, s)| format!("{p}{s}"))
}

/// A pattern from the grammar, up to three levels of and/or/not.
fn pattern_expr() -> impl Strategy<Value = String> {
    let tests = ["check", "doublecheck", "mate", "stalemate", "wtm", "btm"];
    let ops = ["=", "!=", "<", "<=", ">", ">="];
    let atom = prop_oneof![
        designator(),
        prop::sample::select(tests.to_vec()).prop_map(String::from),
        (designator(), designator()).prop_map(|(x, y)| format!("attacks({x}, {y})")),
        (designator(), designator(), designator()).prop_map(|(x, y, z)| format!("pin({x},{y},{z})")),
        (designator(), prop::sample::select(ops.to_vec()), 0u8..12)
            .prop_map(|(d, op, n)| format!("count({d}) {op} {n}")),
        (prop::sample::select(vec!["passed", "isolated", "doubled"]), designator())
            .prop_map(|(f, d)| format!("{f}({d})")),
    ];
    atom.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} and {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} or {b}")),
            inner.prop_map(|a| format!("not {a}")),
        ]
    })
}

/// The pattern language's tokens, and a few that are not.
const PATTERN_TOKENS: [&str; 36] = [
    "K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "A", "a", "_", "[", "]", ",", "(", ")", "e4", "a-h7",
    "e1-8", " and ", " or ", "not ", "attacks", "pin", "check", "mate", "count", "passed", "= ", "<=", "3", "x",
];

/// Materials with many promoted pieces and no pawns have more than 2^128 placements in a block:
/// the scan decoder splits them without overflow, as the key decoder does.
#[test]
fn the_scan_decoder_handles_the_largest_blocks() {
    let fens = [
        "kqqqrrr1/bbbbnnnn/8/8/8/8/NNNBBB2/1QQQRRRK w - - 0 1",
        "kqqqrrr1/bbbbnnnn/8/8/8/8/NNNBBB1K/1QQQRRR1 w - - 0 1",
        "kqqqrrr1/bbbbnnnn/8/8/8/8/NNNBB1B1/1QQQRRRK b - - 0 1",
        "kqqqrrr1/bbbbnnnn/8/8/8/2B5/NNN1BB2/1QQQRRRK w - - 0 1",
    ];
    let mut keys: Vec<Key> = fens.iter().map(|fen| Key::encode(&fen.parse::<Position>().unwrap()).unwrap()).collect();
    keys.sort();
    let mut decoder = KeyDecoder::default();
    for key in &keys {
        assert_eq!(decoder.decode(key, |_, _| true).unwrap(), key.decode_board(|_, _| true).unwrap(), "{key}");
    }
    let range = decoder.block_range().unwrap();
    assert!(keys.iter().all(|key| range.contains(key)), "one material block");
}

/// The neighbours of real keys (rank ± small deltas) mostly decode: every one that does must be
/// canonical, and a good share must succeed, or the canonicality checks above test nothing.
#[test]
fn neighbouring_keys_decode_canonically() {
    let choices: Vec<u32> = (0..300u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let (mut tried, mut decoded) = (0, 0);
    for position in random_game(&choices) {
        let bytes = *Key::encode(&position).unwrap().as_bytes();
        for delta in 1..=40u8 {
            let mut neighbour = bytes;
            neighbour[20] = neighbour[20].wrapping_add(delta);
            let key = Key::from_bytes(neighbour);
            tried += 1;
            if let Ok(p) = key.decode() {
                decoded += 1;
                assert_eq!(Key::encode(&p), Ok(key));
            }
        }
    }
    assert!(decoded * 4 > tried, "only {decoded} of {tried} neighbouring keys decode");
}
