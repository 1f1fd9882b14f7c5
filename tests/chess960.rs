//! Chess960 keys: every start position with every subset of its castling rights, random games
//! from every start (castling on both wings, en passant), every legal KRvK position with every
//! right it allows, and hostile bytes. The positions come from shakmaty's Chess960 rules, the
//! start positions from Scharnagl's numbering checked on its own; the key must give each a
//! distinct key of Chess960's space that decodes back to it, and refuse every code no position
//! has.

use std::collections::{HashMap, HashSet};

use crate::common::Lcg;
use shakmaty::{Bitboard, Board, CastlingSide, Color, Piece, Position as _, Role, Setup, Square};
use tabiya::{
    Key, Position,
    codec::{KeyEncoder, chess960},
};

/// Checks one position's key: in Chess960's space, decoding to the position, its X-FEN read
/// back to it, and no other position of `seen` with the same key.
fn check(position: &Position, seen: &mut HashMap<Key, Position>) -> Key {
    let key = Key::encode(position).unwrap_or_else(|err| panic!("{position}: {err}"));
    assert!(key.is_chess960(), "{position}: {key}");
    assert_eq!(key.decode().as_ref(), Ok(position), "{position}: {key}");
    let fen = position.to_string();
    assert_eq!(Position::from_fen_chess960(&fen).as_ref(), Ok(position), "{fen}");
    if let Some(other) = seen.insert(key, position.clone()) {
        assert_eq!(&other, position, "two positions share {key}");
    }
    key
}

#[test]
fn every_start_position_with_every_subset_of_its_rights_round_trips() {
    let mut seen = HashMap::new();
    for number in 0..960 {
        let start = Position::chess960_start(number).expect("a start position");
        let setup = start.shakmaty().to_setup(shakmaty::EnPassantMode::Legal);
        let rooks: Vec<Square> = setup.castling_rights.into_iter().collect();
        assert_eq!(rooks.len(), 4, "{start}");
        for subset in 0..16u32 {
            let rights: Bitboard =
                rooks.iter().enumerate().filter(|(i, _)| subset >> i & 1 == 1).map(|(_, &sq)| sq).collect();
            let setup = Setup { castling_rights: rights, ..setup.clone() };
            let position = Position::from_setup_chess960(setup, number).expect("legal");
            assert_eq!(position.castles().castling_rights(), rights);
            check(&position, &mut seen);
        }
    }
    assert_eq!(seen.len(), 960 * 16);
    // The standard start and Chess960's 518 are different positions with different keys.
    let standard = Key::encode(&Position::initial()).expect("a key");
    let chess960 = Key::encode(&Position::chess960_start(518).expect("518")).expect("a key");
    assert_ne!(standard, chess960);
    assert!(!standard.is_chess960());
    assert_eq!(chess960.decode().map(|p| p.is_chess960()), Ok(true));
}

#[test]
fn random_games_from_every_start_position_round_trip() {
    let mut rng = Lcg(960);
    let mut encoder = KeyEncoder::default();
    let mut seen = HashMap::new();
    let (mut castles, mut en_passant, mut plies) = (HashSet::new(), 0, 0);
    for number in 0..960 {
        let mut position = Position::chess960_start(number).expect("a start position");
        for _ in 0..20 + rng.next(140) {
            let key = check(&position, &mut seen);
            assert_eq!(encoder.encode(&position), Ok(key), "{position}");
            plies += 1;
            let moves = position.shakmaty().legal_moves();
            // Castle whenever it may, half the time: both wings get played.
            let castling: Vec<_> = moves.iter().filter(|m| m.is_castle()).collect();
            let chosen = if !castling.is_empty() && rng.next(2) == 0 {
                *castling[rng.index(castling.len())]
            } else if moves.is_empty() {
                break;
            } else {
                moves[rng.index(moves.len())]
            };
            if let Some(side) = chosen.castling_side() {
                castles.insert((position.turn(), side));
            }
            en_passant += usize::from(chosen.is_en_passant());
            position.play_legal(chosen);
        }
    }
    for color in Color::ALL {
        for side in [CastlingSide::QueenSide, CastlingSide::KingSide] {
            assert!(castles.contains(&(color, side)), "{color:?} never castled {side:?}");
        }
    }
    assert!(en_passant > 10, "{en_passant} en-passant captures");
    assert!(plies > 50_000, "{plies} positions");
}

#[test]
fn every_legal_krvk_position_with_every_right_it_allows_has_its_own_key() {
    let rook = Piece { color: Color::White, role: Role::Rook };
    let mut seen = HashMap::new();
    for white_king in Square::ALL {
        for black_king in Square::ALL {
            for rook_square in Square::ALL {
                if white_king == black_king || rook_square == white_king || rook_square == black_king {
                    continue;
                }
                let mut board = Board::empty();
                board.set_piece_at(white_king, Color::White.king());
                board.set_piece_at(black_king, Color::Black.king());
                board.set_piece_at(rook_square, rook);
                for rights in [Bitboard::EMPTY, Bitboard::from(rook_square)] {
                    for turn in Color::ALL {
                        let setup = Setup { board: board.clone(), turn, castling_rights: rights, ..Setup::empty() };
                        if let Ok(position) = Position::from_setup_chess960(setup, "enumerated") {
                            check(&position, &mut seen);
                        }
                    }
                }
            }
        }
    }
    // Rights with the king and rook on the back rank: king on file k, rook on any other of the
    // 7 files; either side to move unless in check (counted by the enumeration itself).
    let with_rights = seen.values().filter(|p| p.castles().any()).count();
    assert!(with_rights > 2 * 56 * 40, "{with_rights}");
    assert!(seen.len() > 400_000, "{}", seen.len());
}

#[test]
fn bytes_no_position_has_are_refused() {
    let mut bytes = [0xffu8; 21];
    bytes[0] = chess960::LAST_BYTE + 1;
    assert!(Key::from_bytes(bytes).decode().is_err());
    bytes[0] = chess960::FIRST_BYTE;
    let beyond = Key::from_bytes(bytes).decode().expect_err("past the byte's last rank");
    assert!(beyond.to_string().contains("beyond"), "{beyond}");
    // A Chess960 key where a standard one is expected.
    let key = Key::encode(&Position::chess960_start(0).expect("0")).expect("a key");
    let err = key.category().expect_err("not standard");
    assert!(err.to_string().contains("Chess960"), "{err}");
    // Random ranks under every first byte: refused, or decoded to a position with this key.
    let mut rng = Lcg(81);
    let mut decoded = 0;
    for _ in 0..40_000 {
        let mut bytes = [0u8; 21];
        bytes.iter_mut().for_each(|byte| *byte = rng.next(256) as u8);
        bytes[0] = chess960::FIRST_BYTE + rng.next(u64::from(chess960::LAST_BYTE - chess960::FIRST_BYTE) + 1) as u8;
        // Small ranks land in the low blocks, where few men make legal positions likely.
        let zeros = 1 + rng.index(19);
        bytes[1..zeros].fill(0);
        let key = Key::from_bytes(bytes);
        if let Ok(position) = key.decode() {
            assert!(position.is_chess960());
            assert_eq!(Key::encode(&position), Ok(key));
            decoded += 1;
        }
    }
    assert!(decoded > 100, "{decoded} random keys decoded");
}
