//! Keys of lichess's variants on a standard board (docs/FORMAT.md, "Keys of lichess's
//! variants"): King of the Hill, Racing Kings, Three-check and Atomic, each in a space of first
//! bytes of its own, after Chess960's.
//!
//! ```text
//! byte 0       197 King of the Hill, 198 Racing Kings,
//!              199 + 4·(checks White gave) + (checks Black gave) Three-check (199..=214),
//!              215 Atomic, 216 Atomic with the side to move's king exploded
//! bytes 1..21  offset(standard category) + the rank inside that standard category
//! ```
//!
//! A position of these variants is a standard board, so its digits are a standard key's; the
//! 81 standard categories are stacked under one first byte, each at the sum of the sizes of
//! those before it (all of them together span 2^158.55 ranks of the 2^160 the bytes hold).

use std::sync::OnceLock;

use shakmaty::ByColor;

use crate::{
    codec::{
        material::Material,
        tables::{U192, tables},
    },
    position::{Category, Variant, WINNING_CHECKS},
};

use super::{
    Key, KeyError, KeyRange,
    rank::{Frame, Header, header_in, implied_of, last_at_or_below},
};

/// The first byte of King of the Hill's keys.
pub const KING_OF_THE_HILL: u8 = super::chess960::LAST_BYTE + 1;
/// The first byte of Racing Kings' keys.
pub const RACING_KINGS: u8 = KING_OF_THE_HILL + 1;
/// The first byte of Three-check's keys (no check given yet).
pub const THREE_CHECK: u8 = RACING_KINGS + 1;
/// The last byte of Three-check's keys (three checks given by each side).
pub const THREE_CHECK_LAST: u8 = THREE_CHECK + (WINNING_CHECKS + 1) * (WINNING_CHECKS + 1) - 1;
/// The first byte of Atomic's keys whose both kings stand.
pub const ATOMIC: u8 = THREE_CHECK_LAST + 1;
/// The first byte of Atomic's keys whose side to move had its king exploded (the game is
/// over): the rank is that of the board with the side's king put back on the first empty
/// square, from a1 on (`codec::key::atomic`, docs/FORMAT.md).
pub const ATOMIC_EXPLODED: u8 = ATOMIC + 1;
/// The last byte of any lichess variant's keys.
pub const LAST_BYTE: u8 = ATOMIC_EXPLODED;

// Below the first bytes the database gives its other records (0xf0 and up).
const _: () = assert!(LAST_BYTE < 0xf0);

/// The first byte of a position of `variant` with Three-check's `checks`; `None` for the
/// variants whose keys lie otherwise (standard chess, Chess960, Antichess).
pub(super) fn byte(variant: Variant, checks: Option<ByColor<u8>>) -> Option<u8> {
    match variant {
        Variant::KingOfTheHill => Some(KING_OF_THE_HILL),
        Variant::RacingKings => Some(RACING_KINGS),
        Variant::Atomic => Some(ATOMIC),
        Variant::ThreeCheck => {
            let given = checks.unwrap_or_default();
            Some(THREE_CHECK + (WINNING_CHECKS + 1) * given.white + given.black)
        }
        Variant::Standard | Variant::Chess960 | Variant::Antichess => None,
    }
}

/// The variant and Three-check's checks of a first byte; `None` for a byte of no lichess variant.
pub(super) fn of_byte(byte: u8) -> Option<(Variant, Option<ByColor<u8>>)> {
    match byte {
        KING_OF_THE_HILL => Some((Variant::KingOfTheHill, None)),
        RACING_KINGS => Some((Variant::RacingKings, None)),
        ATOMIC | ATOMIC_EXPLODED => Some((Variant::Atomic, None)),
        THREE_CHECK..=THREE_CHECK_LAST => {
            let n = byte - THREE_CHECK;
            let white = n / (WINNING_CHECKS + 1);
            Some((Variant::ThreeCheck, Some(ByColor { white, black: n % (WINNING_CHECKS + 1) })))
        }
        _ => None,
    }
}

/// The rank at which `category`'s positions start under a lichess variant's first byte.
pub(super) fn offset(category: Category) -> U192 {
    offsets()[usize::from(category.index())]
}

/// The key ranges of `material` in `category` among `variant`'s positions: the standard
/// block, offset under each of the variant's first bytes (one, or Three-check's sixteen); none
/// for standard chess, Chess960 and Antichess, whose blocks lie otherwise
/// ([`material_range`](super::material_range), [`antichess::material_range`](super::antichess::material_range)).
///
/// ```
/// use tabiya_core::{Category, Key, position::Variant};
/// use tabiya_core::codec::{Material, lichess};
///
/// let start = Variant::ThreeCheck.initial();
/// let ranges = lichess::material_ranges(Variant::ThreeCheck, Category::of(&start), &Material::of(&start))?;
/// assert_eq!(ranges.len(), 16);
/// assert!(ranges.iter().any(|range| range.contains(&Key::encode(&start).expect("a key"))));
/// # Ok::<_, tabiya_core::codec::KeyError>(())
/// ```
pub fn material_ranges(variant: Variant, category: Category, material: &Material) -> Result<Vec<KeyRange>, KeyError> {
    let bytes = match variant {
        Variant::KingOfTheHill => KING_OF_THE_HILL..=KING_OF_THE_HILL,
        Variant::RacingKings => RACING_KINGS..=RACING_KINGS,
        Variant::ThreeCheck => THREE_CHECK..=THREE_CHECK_LAST,
        // A material names both kings: no position of an exploded king has it.
        Variant::Atomic => ATOMIC..=ATOMIC,
        Variant::Standard | Variant::Chess960 | Variant::Antichess => return Ok(Vec::new()),
    };
    material.check()?;
    let frame = Frame::new(category, material, tables())?;
    let start = offset(category) + frame.block_start();
    let last = start + frame.block_size() - U192::from(1u8);
    Ok(bytes
        .map(|byte| KeyRange { first: Key::from_byte_and_rank(byte, start), last: Key::from_byte_and_rank(byte, last) })
        .collect())
}

/// The standard category and digits of a key whose first byte is a lichess variant's.
pub(super) fn header(key: &Key) -> Result<Header, KeyError> {
    let byte = key.0[0];
    let row = offsets();
    let rank = key.rank();
    if rank >= row[Category::COUNT] {
        return Err(KeyError::OutOfRange(byte));
    }
    let index = last_at_or_below(Category::COUNT, |i| row[i] <= rank);
    let category = Category::new(index as u8).ok_or(KeyError::Category(byte))?;
    header_in(category, *category.layout(), rank - row[index]).map_err(|err| match err {
        KeyError::OutOfRange(_) => KeyError::OutOfRange(byte),
        other => other,
    })
}

/// The sizes of the standard categories before each, the last entry all of them.
fn offsets() -> &'static [U192; Category::COUNT + 1] {
    static OFFSETS: OnceLock<[U192; Category::COUNT + 1]> = OnceLock::new();
    OFFSETS.get_or_init(|| {
        let t = tables();
        let mut row = [U192::ZERO; Category::COUNT + 1];
        let mut sum = U192::ZERO;
        for (index, entry) in row.iter_mut().enumerate().take(Category::COUNT) {
            *entry = sum;
            if let Some(category) = Category::new(index as u8) {
                let (white, black) = implied_of(category.layout());
                sum += t.category_size(white.index(), black.index());
            }
        }
        row[Category::COUNT] = sum;
        row
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use shakmaty::{EnPassantMode, Position as _, fen::Epd, uci::UciMove, variant::VariantPosition};

    use super::*;
    use crate::{
        Position,
        codec::key::{KeyRange, RANK_BITS},
        pattern::{Pattern, Scene},
    };

    /// The legal moves of a position, as sorted UCI text.
    fn uci_set(moves: impl IntoIterator<Item = shakmaty::Move>) -> Vec<String> {
        let mut moves: Vec<String> =
            moves.into_iter().map(|m| UciMove::from_move(m, shakmaty::CastlingMode::Standard).to_string()).collect();
        moves.sort();
        moves
    }

    /// Random games of each variant, played by shakmaty's variant positions (the oracle) and by
    /// tabiya's positions side by side: the same legal moves, FEN and checks at every ply, and
    /// every key decodes back to its position, lies in its variant's range, and is no other
    /// position's key (standard chess's positions of the same boards included).
    #[test]
    fn random_games_of_each_variant_key_and_decode_as_shakmaty_plays_them() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x7ab1a);
        let mut seen: HashMap<Key, Position> = HashMap::new();
        let file = |position: &Position, seen: &mut HashMap<Key, Position>| {
            let key = Key::encode(position).expect("a key");
            assert_eq!(key.decode().as_ref(), Ok(position), "{position} {key}");
            assert!(KeyRange::of_variant(position.variant()).contains(&key), "{position}");
            assert_eq!(key.variant(), Some(position.variant()));
            let earlier = seen.entry(key).or_insert_with(|| position.clone());
            assert_eq!(earlier, position, "two positions share key {key}");
        };
        let (mate, stalemate): (Pattern, Pattern) =
            ("mate".parse().expect("mate"), "stalemate".parse().expect("stalemate"));
        // Pattern tests answered false and true.
        let mut ends = [0; 2];
        let mut plies = 0;
        for variant in
            [Variant::KingOfTheHill, Variant::RacingKings, Variant::ThreeCheck, Variant::Atomic, Variant::Antichess]
        {
            let lichess = variant.lichess().expect("a lichess variant");
            for _ in 0..150 {
                let mut oracle = VariantPosition::new(lichess);
                let mut position = variant.initial();
                // Atomic's bare kings play on for ever: a game stops at 300 plies.
                for _ in 0..300 {
                    let moves = oracle.legal_moves();
                    assert_eq!(uci_set(position.legal_moves()), uci_set(moves.clone()), "{position}");
                    // An en-passant square where the game is over is no position's (no capture
                    // is legal there), though shakmaty's variant positions write it.
                    let mut fen = Epd::from_position(&oracle, EnPassantMode::Legal).to_string();
                    if moves.is_empty() && oracle.ep_square(EnPassantMode::Legal).is_some() {
                        let fields: Vec<&str> = fen.split(' ').collect();
                        fen = [&fields[..3], &["-"], &fields[4..]].concat().join(" ");
                    }
                    assert_eq!(position.to_string(), fen);
                    file(&position, &mut seen);
                    // Pattern tests by the variant's rules, on the position and on its key's board.
                    let key = Key::encode(&position).expect("a key");
                    let board = key.decode_board(|_, _| true).expect("a board").expect("accepted");
                    for (pattern, want) in [(&mate, oracle.is_checkmate()), (&stalemate, oracle.is_stalemate())] {
                        ends[usize::from(want)] += 1;
                        assert_eq!(pattern.matches(&mut Scene::of_position(&position)), want, "{pattern:?} {position}");
                        assert_eq!(pattern.matches(&mut Scene::of_key(&key, &board)), want, "{pattern:?} {key}");
                    }
                    if let Ok(standard) = Position::from_setup(
                        shakmaty::Setup { remaining_checks: None, ..position.to_setup() },
                        "a board",
                    ) {
                        file(&standard, &mut seen);
                    }
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[rng.random_range(0..moves.len())];
                    assert!(position.is_legal(m));
                    position.play_legal(m);
                    oracle.play_unchecked(m);
                    plies += 1;
                }
            }
        }
        assert!(plies > 20_000, "{plies}");
        assert!(ends[1] > 100, "mates and stalemates: {ends:?}");
        assert!(seen.keys().any(|key| key.as_bytes()[0] > THREE_CHECK), "checks given in some games");
        assert!(seen.keys().any(|key| key.as_bytes()[0] == ATOMIC_EXPLODED), "kings exploded in some games");
        let antichess = |key: &&Key| key.variant() == Some(Variant::Antichess);
        let kings = |key: &Key| {
            key.material().map(|m| (m.side(shakmaty::Color::White).king, m.side(shakmaty::Color::Black).king))
        };
        assert!(
            seen.keys().filter(antichess).any(|key| kings(key).is_ok_and(|(w, b)| w == 0 || b == 0)),
            "kings taken"
        );
        assert!(
            seen.keys().filter(antichess).any(|key| kings(key).is_ok_and(|(w, b)| w > 1 || b > 1)),
            "kings promoted"
        );
    }

    #[test]
    fn a_third_check_by_a_double_step_leaves_no_en_passant_square() {
        let fen = "4k3/5p2/8/4P3/4K3/8/8/8 b - - 3+1 0 1";
        let mut position = Variant::ThreeCheck.parse_fen(fen).expect("a Three-check FEN");
        let double_step = shakmaty::uci::UciMove::from_ascii(b"f7f5").expect("UCI").to_move(position.shakmaty());
        let double_step = double_step.expect("legal");
        position.play_legal(double_step);
        assert_eq!(position.to_string(), "4k3/8/8/4Pp2/4K3/8/8/8 w - - 3+0");
        assert!(position.legal_moves().is_empty());
        let key = Key::encode(&position).expect("a key");
        assert_eq!(key.decode(), Ok(position));
        // Standard chess keeps the square: the capture is legal there.
        let mut standard: Position = "4k3/5p2/8/4P3/4K3/8/8/8 b - - 0 1".parse().expect("a FEN");
        standard.play_legal(double_step);
        assert_eq!(standard.to_string(), "4k3/8/8/4Pp2/4K3/8/8/8 w - f6");
    }

    proptest! {
        /// Any bytes under a variant's first byte decode to a position that keys back to them,
        /// or are refused with a reason: never a wrong position, never a panic.
        #[test]
        fn any_bytes_under_a_variants_byte_decode_exactly_or_are_refused(
            byte in KING_OF_THE_HILL..=super::super::antichess::LAST_BYTE,
            rank in any::<[u8; 20]>(),
        ) {
            let mut bytes = [byte; crate::codec::KEY_LEN];
            bytes[1..].copy_from_slice(&rank);
            let key = Key::from_bytes(bytes);
            if let Ok(position) = key.decode() {
                prop_assert_eq!(Key::encode(&position), Ok(key));
            }
        }
    }

    #[test]
    fn the_standard_categories_stacked_fit_the_ranks_bits() {
        let total = offsets()[Category::COUNT];
        assert!(total < U192::from(1u8) << RANK_BITS, "{total}");
        assert!(total > U192::from(1u8) << 158, "{total}");
        assert_eq!((KING_OF_THE_HILL, RACING_KINGS, THREE_CHECK, THREE_CHECK_LAST), (197, 198, 199, 214));
        assert_eq!((ATOMIC, ATOMIC_EXPLODED, LAST_BYTE), (215, 216, 216));
    }

    #[test]
    fn every_byte_names_its_variant_and_checks() {
        for byte in KING_OF_THE_HILL..ATOMIC_EXPLODED {
            let (variant, checks) = of_byte(byte).expect("a variant's byte");
            assert_eq!(self::byte(variant, checks), Some(byte));
        }
        assert_eq!(of_byte(ATOMIC_EXPLODED), Some((Variant::Atomic, None)));
        assert_eq!(of_byte(196), None);
        assert_eq!(of_byte(LAST_BYTE + 1), None);
    }
}
