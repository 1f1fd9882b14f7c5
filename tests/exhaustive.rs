//! Exhaustive bijection on small material: every legal KvK, KPvK, KRvK and KQvK position (and
//! the colour-reversed ones), with every castling right the placement allows, in every category
//! that admits it. The enumeration is independent of the codec: it places pieces on all squares
//! and lets shakmaty decide legality.

use crate::common;

use std::collections::{BTreeSet, HashSet};

use shakmaty::{Bitboard, Board, Color, Piece, Role, Setup, Square};
use tabiya::{Category, Key, Position};

/// Every legal position with two kings and at most one more piece.
fn enumerate(extra: Option<Piece>) -> Vec<Position> {
    let mut positions = Vec::new();
    let extra_squares: Vec<Option<Square>> = match extra {
        None => vec![None],
        Some(_) => Square::ALL.into_iter().map(Some).collect(),
    };
    for white_king in Square::ALL {
        for black_king in Square::ALL {
            for &extra_square in &extra_squares {
                let mut board = Board::empty();
                let mut occupied = Bitboard::EMPTY;
                for (square, piece) in [
                    (Some(white_king), Piece { color: Color::White, role: Role::King }),
                    (Some(black_king), Piece { color: Color::Black, role: Role::King }),
                ]
                .into_iter()
                .chain(extra.map(|p| (extra_square, p)))
                {
                    let square = square.expect("placed");
                    if occupied.contains(square) {
                        break;
                    }
                    occupied.add(square);
                    board.set_piece_at(square, piece);
                }
                if occupied.count() != 2 + usize::from(extra.is_some()) {
                    continue;
                }
                for rights in [Bitboard::EMPTY, Bitboard::CORNERS & occupied] {
                    for turn in Color::ALL {
                        let setup = Setup { board: board.clone(), turn, castling_rights: rights, ..Setup::empty() };
                        if let Ok(position) = Position::from_setup(setup, "enumerated") {
                            positions.push(position);
                        }
                    }
                }
            }
        }
    }
    // Rights that the placement does not allow are dropped by validation, making duplicates.
    let unique: HashSet<Position> = positions.into_iter().collect();
    unique.into_iter().collect()
}

fn check_material(extra: Option<Piece>, expected_categories: &[u8]) {
    let positions = enumerate(extra);
    let mut keys = HashSet::with_capacity(positions.len());
    let mut categories = BTreeSet::new();
    for position in &positions {
        let key = common::assert_round_trip(position);
        assert!(keys.insert(key), "{position}: key {key} given twice");
        assert_eq!(key.category(), Ok(Category::of(position)));
        categories.insert(Category::of(position).index());
    }
    assert_eq!(categories.into_iter().collect::<Vec<_>>(), expected_categories, "{extra:?}");
    assert!(positions.len() > 1000, "{extra:?}: only {} positions", positions.len());
}

const fn piece(color: Color, role: Role) -> Option<Piece> {
    Some(Piece { color, role })
}

#[test]
fn kings_only() {
    check_material(None, &[80]);
    // 3,612 legal-by-adjacency placements of two kings, times two sides to move, minus
    // positions where the side not to move is in check (never, with kings only).
    assert_eq!(enumerate(None).len(), 3612 * 2);
}

#[test]
fn king_and_pawn() {
    check_material(piece(Color::White, Role::Pawn), &[80]);
    check_material(piece(Color::Black, Role::Pawn), &[80]);
}

#[test]
fn king_and_rook() {
    // category = 27·a1 + 9·h1 + 3·a8 + h8, state 0 = right, 1 = no right, 2 = no rook.
    // White rook: a1 with/without right (26, 53), h1 with/without right (62, 71), elsewhere (80).
    check_material(piece(Color::White, Role::Rook), &[26, 53, 62, 71, 80]);
    // Black rook: a8 (74, 77), h8 (78, 79), elsewhere (80).
    check_material(piece(Color::Black, Role::Rook), &[74, 77, 78, 79, 80]);
}

#[test]
fn king_and_queen() {
    check_material(piece(Color::White, Role::Queen), &[80]);
    check_material(piece(Color::Black, Role::Queen), &[80]);
}

/// Keys of distinct material never interleave, and positions sort by key the way their
/// (category, material) ranges do.
#[test]
fn small_material_ranges_do_not_overlap() {
    let mut ranges = Vec::new();
    for extra in
        [None, piece(Color::White, Role::Pawn), piece(Color::White, Role::Rook), piece(Color::Black, Role::Queen)]
    {
        let mut positions = enumerate(extra);
        positions.sort_by_key(|p| Key::encode(p).unwrap());
        for pair in positions.windows(2) {
            // Same category and material ⇒ contiguous: nothing of another block sits between.
            let (a, b) = (Key::encode(&pair[0]).unwrap(), Key::encode(&pair[1]).unwrap());
            assert!(a < b);
        }
        for category in Category::all() {
            let material = match extra {
                None => "KvK",
                Some(Piece { role: Role::Pawn, .. }) => "KPvK",
                Some(Piece { role: Role::Rook, .. }) => "KRvK",
                _ => "KvKQ",
            };
            if let Ok(range) = tabiya::codec::material_range(category, &material.parse().unwrap()) {
                ranges.push(range);
            }
        }
    }
    ranges.sort_by_key(|r| r.first);
    for pair in ranges.windows(2) {
        assert!(pair[0].last < pair[1].first, "{:?} overlaps {:?}", pair[0], pair[1]);
    }
}
