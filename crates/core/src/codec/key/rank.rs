//! A key's rank as digits: the [`Frame`] of a material block (where it starts, how many ranks
//! it spans, the radices of its placements), the [`Header`] a key splits into, and the
//! combinatorial placement of each side's free pieces. The order of the digits is the module
//! documentation's of [`super`].

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Piece, Rank, Role, Square};

use super::{Key, KeyBoard, KeyError};
use crate::{
    codec::{
        combinatorics::{PAWN_SQUARES, binomial, rank_subset, unrank_subset},
        material::{Material, MaterialError},
        tables::{Class, Implied, SideVector, TURN_EP_STATES, Tables, U192, pawn_placements, tables},
    },
    position::{Category, Layout},
};

/// A key split into its digits: category, material, and the placement indices.
pub(super) struct Header {
    /// The standard category whose tables the rank follows (a Chess960 key's representative).
    pub(super) category: Category,
    /// What the key's category implies: the standard category's, or a Chess960 category's.
    pub(super) layout: Layout,
    pub(super) material: Material,
    pub(super) vectors: ByColor<SideVector>,
    pub(super) pawns: ByColor<u32>,
    pub(super) pawn_index: u64,
    pub(super) turn_ep: u64,
    /// Each side's free pieces' mixed-radix index.
    pub(super) indices: ByColor<u128>,
}

impl Header {
    /// The pawns the digits stand for.
    pub(super) fn pawns(&self) -> ByColor<Bitboard> {
        unrank_pawns(self.pawn_index, self.pawns)
    }

    /// The placement the digits stand for, as bitboards.
    pub(super) fn place(&self) -> KeyBoard {
        self.place_with(self.pawns())
    }

    /// The placement, with the pawns already unranked.
    pub(super) fn place_with(&self, pawns: ByColor<Bitboard>) -> KeyBoard {
        let layout = &self.layout;
        let mut pieces = Pieces::default();
        let (white_pawns, black_pawns) = (pawns.white, pawns.black);
        pieces.add(white_pawns, Color::White, Role::Pawn);
        pieces.add(black_pawns, Color::Black, Role::Pawn);
        for color in Color::ALL {
            pieces.add(layout.home_rooks(color), color, Role::Rook);
            if let Some(king) = layout.implied_king(color) {
                pieces.add(Bitboard::from(king), color, Role::King);
            }
        }
        let mut holes = !pieces.occupied();
        for color in [Color::White, Color::Black] {
            let (vector, index) = (*self.vectors.get(color), *self.indices.get(color));
            unplace_free_pieces(&mut pieces, color, layout, vector, index, &mut holes);
        }
        let turn = turn_of(self.turn_ep);
        let ep_square = match self.turn_ep % 9 {
            0 => None,
            file => {
                Some(Square::from_coords(shakmaty::File::new(file as u32 - 1), turn.fold_wb(Rank::Sixth, Rank::Third)))
            }
        };
        KeyBoard {
            category: self.category,
            castling_rights: layout.castling_rights(),
            material: self.material,
            by_role: pieces.by_role,
            by_color: pieces.by_color,
            turn,
            ep_square,
        }
    }
}

/// The side to move of a turn-and-en-passant digit (`9·turn + …`).
pub(super) fn turn_of(turn_ep: u64) -> Color {
    if turn_ep >= 9 { Color::Black } else { Color::White }
}

/// The pawns of a pawn placement digit, with `counts` pawns a side: White's on the 48 pawn
/// squares, then Black's on those left.
pub(super) fn unrank_pawns(pawn_index: u64, counts: ByColor<u32>) -> ByColor<Bitboard> {
    let white_count = counts.white;
    let white = unrank_subset(pawn_index % binomial(48, white_count), white_count, PAWN_SQUARES);
    let black = unrank_subset(pawn_index / binomial(48, white_count), counts.black, PAWN_SQUARES & !white);
    ByColor { white, black }
}

impl Key {
    /// The key's category and material, with the digits of its placement: searches over the
    /// tables from the most significant digit down.
    pub(super) fn header(&self) -> Result<Header, KeyError> {
        let category = self.category()?;
        header_in(category, *category.layout(), self.rank())
    }
}

/// The digits of `rank` inside a block of `category`'s tables, whose implied pieces stand where
/// `layout` says.
pub(super) fn header_in(category: Category, layout: Layout, rank: U192) -> Result<Header, KeyError> {
    let t = tables();
    let (white_implied, black_implied) = implied_of(&layout);
    let (wi, bi) = (white_implied.index(), black_implied.index());
    if rank >= t.category_size(wi, bi) {
        return Err(KeyError::OutOfRange(category.index()));
    }
    // 1. Pawn pair: the last block starting at or below the rank.
    let pawn_pair = last_at_or_below(81, |i| t.pawns_before(wi, bi, i) <= rank);
    let (white_pawn_count, black_pawn_count) = ((pawn_pair / 9) as u32, (pawn_pair % 9) as u32);
    let pawn_count = pawn_placements(white_pawn_count, black_pawn_count);
    // P·18 < 2^60: one wide division, then 64-bit arithmetic.
    let (t_value, low) = (rank - t.pawns_before(wi, bi, pawn_pair)).div_rem(U192::from(pawn_count * TURN_EP_STATES));
    let low = low.to::<u64>();
    let (pawn_index, turn_ep) = (low % pawn_count, low / pawn_count);

    // 2. White's class and content.
    let white_class =
        last_at_or_below(t.classes.len(), |c| t.white_before(wi, bi, white_pawn_count, black_pawn_count, c) <= t_value);
    let mut value = t_value - t.white_before(wi, bi, white_pawn_count, black_pawn_count, white_class);
    let squares = 64 - white_pawn_count - black_pawn_count - white_implied.squares() - black_implied.squares();
    let white_free = t.sides[wi].class_free[white_class];
    let class = &t.classes[white_class];
    let black_limit = t.black_class_limit(class, white_pawn_count, black_pawn_count);
    let black_squares = squares - white_free;
    let black_total = t.black_before(bi, black_pawn_count, black_limit, black_squares);
    let content_unit = U192::from(binomial(squares, white_free)) * U192::from(black_total);
    let white_vector = content_in_class(t, wi, class, |before| content_unit * U192::from(before) <= value)?;
    value -= content_unit * U192::from(t.sides[wi].weight_before[white_vector]);
    let white_placements = u128::from(binomial(squares, white_free)) * u128::from(t.sides[wi].weight[white_vector]);
    let (inner, white_index) = value.div_rem(U192::from(white_placements));
    let (mut inner, white_index) = (inner.to::<u128>(), white_index.to::<u128>());

    // 3. Black's class and content.
    let black_class =
        last_at_or_below(black_limit, |c| t.black_before(bi, black_pawn_count, c, black_squares) <= inner);
    inner -= t.black_before(bi, black_pawn_count, black_class, black_squares);
    let black_free = t.sides[bi].class_free[black_class];
    let unit = u128::from(binomial(black_squares, black_free));
    let black_vector = content_in_class(t, bi, &t.classes[black_class], |before| unit * u128::from(before) <= inner)?;
    let black_index = inner - unit * u128::from(t.sides[bi].weight_before[black_vector]);

    let vectors = ByColor { white: t.vectors[white_vector], black: t.vectors[black_vector] };
    let material = material_of(vectors.white, vectors.black, white_pawn_count as u8, black_pawn_count as u8);
    material.check().map_err(|_| KeyError::NonCanonical("material violates the cross-side bound"))?;
    Ok(Header {
        category,
        layout,
        material,
        vectors,
        pawns: ByColor { white: white_pawn_count, black: black_pawn_count },
        pawn_index,
        turn_ep,
        indices: ByColor { white: white_index, black: black_index },
    })
}

/// Where one side's content sits in the tables.
#[derive(Clone, Copy, Debug)]
pub(super) struct SideSlot {
    pub(super) class: usize,
    pub(super) free: u32,
    pub(super) weight: u64,
    pub(super) weight_before: u64,
}

/// The per-material quantities shared by encode and [`material_range`].
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) pawns_before: U192,
    pub(super) pawn_placements: u64,
    pub(super) white: SideSlot,
    pub(super) black: SideSlot,
    pub(super) white_before: U192,
    /// Free squares for White's pieces.
    pub(super) squares: u32,
    pub(super) black_squares: u32,
    pub(super) black_total: u128,
    pub(super) black_before: u128,
    pub(super) white_placements: u128,
    pub(super) black_placements: u128,
}

impl Frame {
    pub(super) fn new(category: Category, material: &Material, t: &Tables) -> Result<Frame, KeyError> {
        let (white_implied, black_implied) = implied_of(category.layout());
        let (wi, bi) = (white_implied.index(), black_implied.index());
        let slot = |color: Color, implied: usize| -> Result<SideSlot, KeyError> {
            let counts = material.side(color);
            let vector =
                SideVector { queens: counts.queen, rooks: counts.rook, bishops: counts.bishop, knights: counts.knight };
            let index = t.vector_index(vector).ok_or(MaterialError::OneSide(color, *material))?;
            let side = &t.sides[implied];
            if side.weight[index] == 0 {
                return Err(KeyError::NonCanonical("fewer rooks than the category puts on home squares"));
            }
            let class = usize::from(t.class_of[index]);
            Ok(SideSlot {
                class,
                free: side.class_free[class],
                weight: side.weight[index],
                weight_before: side.weight_before[index],
            })
        };
        let white = slot(Color::White, wi)?;
        let black = slot(Color::Black, bi)?;
        let pawns = ByColor {
            white: u32::from(material.side(Color::White).pawn),
            black: u32::from(material.side(Color::Black).pawn),
        };
        let squares = 64 - pawns.white - pawns.black - white_implied.squares() - black_implied.squares();
        let black_squares = squares - white.free;
        let white_class: &Class = &t.classes[white.class];
        let black_total = t.black_total(bi, pawns.black, pawns.white, white_class, black_squares);
        Ok(Frame {
            pawns_before: t.pawns_before(wi, bi, (pawns.white * 9 + pawns.black) as usize),
            pawn_placements: pawn_placements(pawns.white, pawns.black),
            white,
            black,
            white_before: t.white_before(wi, bi, pawns.white, pawns.black, white.class),
            squares,
            black_squares,
            black_total,
            black_before: t.black_before(bi, pawns.black, black.class, black_squares),
            white_placements: u128::from(binomial(squares, white.free)) * u128::from(white.weight),
            black_placements: u128::from(binomial(black_squares, black.free)) * u128::from(black.weight),
        })
    }

    /// First rank of the material's block (every placement index zero).
    pub(super) fn block_start(&self) -> U192 {
        let black = self.black_before
            + u128::from(binomial(self.black_squares, self.black.free)) * u128::from(self.black.weight_before);
        let white = self.white_before
            + self.white_content_unit() * U192::from(self.white.weight_before)
            + U192::from(self.white_placements) * U192::from(black);
        self.pawns_before + U192::from(self.pawn_placements) * U192::from(TURN_EP_STATES) * white
    }

    /// Number of ranks of the material's block.
    pub(super) fn block_size(&self) -> U192 {
        U192::from(self.pawn_placements)
            * U192::from(TURN_EP_STATES)
            * U192::from(self.white_placements)
            * U192::from(self.black_placements)
    }

    /// Size of the block of one unit of White content weight: `C(F, n_w) · Z`.
    pub(super) fn white_content_unit(&self) -> U192 {
        U192::from(binomial(self.squares, self.white.free)) * U192::from(self.black_total)
    }
}

pub(super) fn implied_of(layout: &Layout) -> (Implied, Implied) {
    let side =
        |color| Implied { rooks: layout.home_rooks(color).count() as u8, king: layout.implied_king(color).is_some() };
    (side(Color::White), side(Color::Black))
}

/// Free pieces in placement order.
pub(super) const FREE_ROLES: [Role; 5] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Mixed-radix index of one side's free pieces on `holes`; removes their squares from `holes`.
pub(super) fn place_free_pieces(board: &Board, color: Color, layout: &Layout, holes: &mut Bitboard) -> u128 {
    let implied = layout.implied_squares();
    let mut index = 0u128;
    let mut radix = 1u128;
    for role in FREE_ROLES {
        let squares = board.by_piece(Piece { color, role }) & !implied;
        let count = squares.count() as u32;
        index += radix * u128::from(rank_subset(squares, *holes));
        radix *= u128::from(binomial(holes.count() as u32, count));
        *holes &= !squares;
    }
    index
}

/// Inverse of [`place_free_pieces`].
pub(super) fn unplace_free_pieces(
    pieces: &mut Pieces,
    color: Color,
    layout: &Layout,
    v: SideVector,
    mut index: u128,
    holes: &mut Bitboard,
) {
    let king_free = layout.implied_king(color).is_none();
    let counts = [
        u32::from(king_free),
        u32::from(v.queens),
        u32::from(v.rooks) - layout.home_rooks(color).count() as u32,
        u32::from(v.bishops),
        u32::from(v.knights),
    ];
    for (role, count) in FREE_ROLES.into_iter().zip(counts) {
        if count == 0 {
            continue; // radix 1: no digit
        }
        let radix = binomial(holes.count() as u32, count);
        // Most indices fit 64 bits, where division is several times cheaper.
        let digit = match u64::try_from(index) {
            Ok(small) => {
                index = u128::from(small / radix);
                small % radix
            }
            Err(_) => {
                let digit = (index % u128::from(radix)) as u64;
                index /= u128::from(radix);
                digit
            }
        };
        let squares = unrank_subset(digit, count, *holes);
        pieces.add(squares, color, role);
        *holes &= !squares;
    }
}

/// A board under construction, as bitboards.
#[derive(Default)]
pub(super) struct Pieces {
    pub(super) by_role: ByRole<Bitboard>,
    pub(super) by_color: ByColor<Bitboard>,
}

impl Pieces {
    pub(super) fn add(&mut self, squares: Bitboard, color: Color, role: Role) {
        *self.by_role.get_mut(role) |= squares;
        *self.by_color.get_mut(color) |= squares;
    }

    pub(super) fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }
}

/// Largest `i < n` with `at_or_below(i)`, for a predicate true on a prefix starting at 0.
pub(super) fn last_at_or_below(n: usize, at_or_below: impl Fn(usize) -> bool) -> usize {
    // Branch-free: the comparisons are unpredictable.
    let (mut lo, mut len) = (0, n);
    while len > 1 {
        let half = len / 2;
        lo = if at_or_below(lo + half) { lo + half } else { lo };
        len -= half;
    }
    lo
}

/// The content of a class whose cumulative weight range holds the value, skipping zero-weight
/// contents (too few rooks for the category).
/// Zero-weight contents share their successor's `weight_before`, so the last content at or
/// below the value has a weight unless the value lies past the class (a corrupt key).
pub(super) fn content_in_class(
    t: &Tables,
    implied: usize,
    class: &Class,
    at_or_below: impl Fn(u64) -> bool,
) -> Result<usize, KeyError> {
    let side = &t.sides[implied];
    let range = class.vectors.clone();
    let index = range.start + last_at_or_below(range.len(), |i| at_or_below(side.weight_before[range.start + i]));
    if side.weight[index] == 0 {
        return Err(KeyError::NonCanonical("material outside the category"));
    }
    Ok(index)
}

pub(super) fn material_of(white: SideVector, black: SideVector, white_pawns: u8, black_pawns: u8) -> Material {
    let side = |v: SideVector, pawns| ByRole {
        pawn: pawns,
        knight: v.knights,
        bishop: v.bishops,
        rook: v.rooks,
        queen: v.queens,
        king: 1,
    };
    Material(ByColor { white: side(white, white_pawns), black: side(black, black_pawns) })
}
