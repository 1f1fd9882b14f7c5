//! The 81 rook/castling categories: the first byte of every key.
//!
//! Each rook home square (a1, h1 for White; a8, h8 for Black) is in one of three
//! [`RookState`]s. The four states make `3^4 = 81` categories, numbered
//!
//! ```text
//! category = 27·state(a1) + 9·state(h1) + 3·state(a8) + state(h8)
//! state: 0 = rook of that colour there, with its castling right
//!        1 = rook of that colour there, without the right
//!        2 = no rook of that colour there
//! ```
//!
//! so category 0 is "all four rooks home, all rights" (the starting position) and category 80 is
//! "no rook on any home square". Inside a category the rooks on home squares and the king of a
//! side that keeps a castling right (it must stand on e1/e8) are implied, and not encoded again.

use std::fmt;

use shakmaty::{Bitboard, ByColor, CastlingSide, Color, Piece, Role, Square};

use super::Position;

/// One of the four rook home squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HomeSquare {
    /// a1.
    A1,
    /// h1.
    H1,
    /// a8.
    A8,
    /// h8.
    H8,
}

impl HomeSquare {
    /// In category-numbering order (most significant first).
    pub const ALL: [HomeSquare; 4] = [HomeSquare::A1, HomeSquare::H1, HomeSquare::A8, HomeSquare::H8];

    /// The colour whose rook starts here.
    pub const fn color(self) -> Color {
        match self {
            HomeSquare::A1 | HomeSquare::H1 => Color::White,
            HomeSquare::A8 | HomeSquare::H8 => Color::Black,
        }
    }

    /// The square.
    pub const fn square(self) -> Square {
        match self {
            HomeSquare::A1 => Square::A1,
            HomeSquare::H1 => Square::H1,
            HomeSquare::A8 => Square::A8,
            HomeSquare::H8 => Square::H8,
        }
    }

    /// The castling side a rook on this square castles to.
    pub const fn castling_side(self) -> CastlingSide {
        match self {
            HomeSquare::A1 | HomeSquare::A8 => CastlingSide::QueenSide,
            HomeSquare::H1 | HomeSquare::H8 => CastlingSide::KingSide,
        }
    }
}

/// What stands on a rook home square, as far as the category is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RookState {
    /// A rook of that colour stands there and keeps its castling right.
    WithRight = 0,
    /// A rook of that colour stands there without the castling right.
    WithoutRight = 1,
    /// No rook of that colour stands there.
    Absent = 2,
}

impl RookState {
    const fn from_digit(digit: u8) -> RookState {
        match digit {
            0 => RookState::WithRight,
            1 => RookState::WithoutRight,
            _ => RookState::Absent,
        }
    }

    /// True when the rook is implied by the category.
    pub const fn is_home(self) -> bool {
        !matches!(self, RookState::Absent)
    }
}

/// A rook/castling category, `0..=80` (docs/FORMAT.md, "The 81 rook/castling categories").
///
/// ```
/// use tabiya_core::{Category, Position};
/// use tabiya_core::position::{HomeSquare, RookState};
///
/// assert_eq!(Category::of(&Position::initial()).index(), 0);
/// let p: Position = "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1".parse()?;
/// let c = Category::of(&p);
/// assert_eq!(c.state(HomeSquare::A1), RookState::Absent);
/// assert_eq!(c.state(HomeSquare::H1), RookState::WithRight);
/// assert_eq!(c.state(HomeSquare::A8), RookState::WithRight);
/// assert_eq!(c.state(HomeSquare::H8), RookState::Absent);
/// assert_eq!(c.index(), 2 * 27 + 0 * 9 + 0 * 3 + 2);
/// # Ok::<_, tabiya_core::position::PositionError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Category(u8);

impl Category {
    /// Number of categories.
    pub const COUNT: usize = 81;

    /// The category with this number, if it is below 81.
    pub const fn new(index: u8) -> Option<Category> {
        if (index as usize) < Category::COUNT { Some(Category(index)) } else { None }
    }

    /// Every category in key order.
    pub fn all() -> impl Iterator<Item = Category> {
        (0..Category::COUNT as u8).map(Category)
    }

    /// The category of a position.
    pub fn of(position: &Position) -> Category {
        let board = position.board();
        let castles = position.castles();
        Category::of_states(|home| {
            let color = home.color();
            if board.piece_at(home.square()) != Some(Piece { color, role: Role::Rook }) {
                RookState::Absent
            } else if castles.has(color, home.castling_side()) {
                RookState::WithRight
            } else {
                RookState::WithoutRight
            }
        })
    }

    /// The category of a board on which no side may castle (Antichess's), with `rooks` each
    /// side's rooks: a rook on its home square stands there without a right.
    ///
    /// ```
    /// use shakmaty::{Bitboard, ByColor, Square};
    /// use tabiya_core::Category;
    /// use tabiya_core::position::{HomeSquare, RookState};
    ///
    /// let rooks = ByColor { white: Bitboard::from(Square::H1), black: Bitboard::from(Square::H1) };
    /// let category = Category::without_rights(rooks);
    /// assert_eq!(category.state(HomeSquare::H1), RookState::WithoutRight);
    /// assert_eq!(category.state(HomeSquare::H8), RookState::Absent);
    /// ```
    pub fn without_rights(rooks: ByColor<Bitboard>) -> Category {
        Category::of_states(|home| match rooks.get(home.color()).contains(home.square()) {
            true => RookState::WithoutRight,
            false => RookState::Absent,
        })
    }

    fn of_states(state: impl Fn(HomeSquare) -> RookState) -> Category {
        Category(HomeSquare::ALL.iter().fold(0, |acc, &home| acc * 3 + state(home) as u8))
    }

    /// The category's number, 0 to 80 (the key's first byte).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The state of one home square.
    pub const fn state(self, home: HomeSquare) -> RookState {
        let shift = match home {
            HomeSquare::A1 => 27,
            HomeSquare::H1 => 9,
            HomeSquare::A8 => 3,
            HomeSquare::H8 => 1,
        };
        RookState::from_digit(self.0 / shift % 3)
    }

    /// The home squares of one colour, queen side first.
    pub const fn home_squares(color: Color) -> [HomeSquare; 2] {
        match color {
            Color::White => [HomeSquare::A1, HomeSquare::H1],
            Color::Black => [HomeSquare::A8, HomeSquare::H8],
        }
    }

    /// Rooks of `color` implied by the category (standing on their home squares).
    #[inline]
    pub fn home_rooks(self, color: Color) -> Bitboard {
        self.layout().home_rooks(color)
    }

    /// Home squares where the category says no rook of `color` stands: a rook of that colour
    /// placed there would belong to another category.
    #[inline]
    pub fn rookless_homes(self, color: Color) -> Bitboard {
        self.layout().rookless_homes(color)
    }

    /// The square of `color`'s king when the category implies it (the side keeps a right).
    #[inline]
    pub fn implied_king(self, color: Color) -> Option<Square> {
        self.layout().implied_king(color)
    }

    /// The castling rights of the category, as rook squares (shakmaty's convention).
    #[inline]
    pub fn castling_rights(self) -> Bitboard {
        self.layout().castling_rights()
    }

    /// Every square whose content the category implies.
    #[inline]
    pub fn implied_squares(self) -> Bitboard {
        self.layout().implied_squares()
    }

    /// What the category implies, for the key's rank.
    #[inline]
    pub(crate) fn layout(self) -> &'static Layout {
        &LAYOUTS[self.0 as usize]
    }
}

/// What a key's category implies, as bitboards (indexed White = 0): the rooks and kings whose
/// squares the rank does not encode, the home squares where no rook of a colour may stand, and
/// the castling rights. A standard category's is computed at compile time; a Chess960
/// category's ([`super::Chess960Category`]) when asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) home_rooks: [u64; 2],
    pub(crate) rookless: [u64; 2],
    /// The implied king's square, or 0 when the king is free.
    pub(crate) kings: [u64; 2],
    pub(crate) rights: u64,
    pub(crate) implied: u64,
}

impl Layout {
    pub(crate) const EMPTY: Layout =
        Layout { home_rooks: [0; 2], rookless: [0; 2], kings: [0; 2], rights: 0, implied: 0 };

    /// Implied rooks of `color`.
    #[inline]
    pub(crate) fn home_rooks(&self, color: Color) -> Bitboard {
        Bitboard(self.home_rooks[side(color)])
    }

    /// Squares where no rook of `color` may stand.
    #[inline]
    pub(crate) fn rookless_homes(&self, color: Color) -> Bitboard {
        Bitboard(self.rookless[side(color)])
    }

    /// The implied king of `color`.
    #[inline]
    pub(crate) fn implied_king(&self, color: Color) -> Option<Square> {
        Bitboard(self.kings[side(color)]).first()
    }

    /// The castling rights, as rook squares.
    #[inline]
    pub(crate) fn castling_rights(&self) -> Bitboard {
        Bitboard(self.rights)
    }

    /// Every implied square.
    #[inline]
    pub(crate) fn implied_squares(&self) -> Bitboard {
        Bitboard(self.implied)
    }
}

static LAYOUTS: [Layout; Category::COUNT] = layouts();

const fn layouts() -> [Layout; Category::COUNT] {
    // Home squares in numbering order, with their colour (0 = White) and the king's square.
    const HOMES: [(u32, usize); 4] = [(0, 0), (7, 0), (56, 1), (63, 1)];
    const KINGS: [u32; 2] = [4, 60];
    const SHIFTS: [u8; 4] = [27, 9, 3, 1];
    let mut table = [Layout::EMPTY; Category::COUNT];
    let mut index = 0;
    while index < Category::COUNT {
        let mut layout = Layout::EMPTY;
        let mut h = 0;
        while h < 4 {
            let (square, color) = HOMES[h];
            match index as u8 / SHIFTS[h] % 3 {
                0 => {
                    layout.home_rooks[color] |= 1 << square;
                    layout.rights |= 1 << square;
                    layout.kings[color] = 1 << KINGS[color];
                }
                1 => layout.home_rooks[color] |= 1 << square,
                _ => layout.rookless[color] |= 1 << square,
            }
            h += 1;
        }
        layout.implied = layout.home_rooks[0] | layout.home_rooks[1] | layout.kings[0] | layout.kings[1];
        table[index] = layout;
        index += 1;
    }
    table
}

pub(crate) const fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_round_trips_states() {
        for category in Category::all() {
            let rebuilt = HomeSquare::ALL.iter().fold(0u8, |acc, &home| acc * 3 + category.state(home) as u8);
            assert_eq!(rebuilt, category.index());
        }
        assert_eq!(Category::new(81), None);
    }

    #[test]
    fn implied_pieces() {
        let all = Category::new(0).unwrap();
        assert_eq!(all.implied_squares().count(), 6);
        let none = Category::new(80).unwrap();
        assert!(none.implied_squares().is_empty());
        // a1 without right, h1 absent: rook implied, king free.
        let c = Category::new(27 + 18 + 8).unwrap();
        assert_eq!(c.home_rooks(Color::White), Bitboard::from(Square::A1));
        assert_eq!(c.implied_king(Color::White), None);
        assert_eq!(c.rookless_homes(Color::White), Bitboard::from(Square::H1));
    }
}
