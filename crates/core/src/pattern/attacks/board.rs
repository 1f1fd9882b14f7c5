//! [`VectorBoard`]: a 0x88 mailbox with piece lists, and every attack question answered with
//! the [vector table](super::vectors) and blocker loops along rays.

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Piece, Role, Square};

use super::vectors::{BISHOP, BLACK_PAWN, KING, KNIGHT, QUEEN, ROOK, SLIDERS, WHITE_PAWN, vector};

/// A cell of the mailbox: 0 empty, else the role (1..=6) plus 8 for Black.
type Cell = u8;
const EMPTY: Cell = 0;
const BLACK: Cell = 8;

/// The 0x88 index of a square (`16·rank + file`).
#[inline]
fn x88(square: Square) -> u8 {
    let index = square as u8;
    index + (index & !7)
}

/// The square of a 0x88 index known to be on the board.
#[inline]
fn square(index: u8) -> Square {
    Square::new(u32::from((index >> 4) * 8 + (index & 7)))
}

#[inline]
fn on_board(index: i16) -> bool {
    index & !0x77 == 0
}

fn cell_of(piece: Piece) -> Cell {
    piece.role as u8 | if piece.color == Color::Black { BLACK } else { 0 }
}

fn piece_of(cell: Cell) -> Option<Piece> {
    let role = Role::try_from(cell & 7).ok()?;
    Some(Piece { role, color: if cell & BLACK != 0 { Color::Black } else { Color::White } })
}

/// The vector-table bit of a piece.
fn kind_bit(cell: Cell) -> u8 {
    match (cell & 7, cell & BLACK != 0) {
        (1, false) => WHITE_PAWN,
        (1, true) => BLACK_PAWN,
        (2, _) => KNIGHT,
        (3, _) => BISHOP,
        (4, _) => ROOK,
        (5, _) => QUEEN,
        (6, _) => KING,
        _ => 0,
    }
}

const KNIGHT_STEPS: [i16; 8] = [-33, -31, -18, -14, 14, 18, 31, 33];
const KING_STEPS: [i16; 8] = [-17, -16, -15, -1, 1, 15, 16, 17];
const BISHOP_STEPS: [i16; 4] = [-17, -15, 15, 17];
const ROOK_STEPS: [i16; 4] = [-16, -1, 1, 16];

/// A pin found by [`VectorBoard::pins`]: `pinner` (a bishop, rook or queen), `pinned` (the
/// other colour) and `behind` (the pinned piece's colour) on one line in that order, only empty
/// squares between them. When `behind` holds a king the pin is absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pin {
    /// The sliding piece's square.
    pub pinner: Square,
    /// The pinned piece's square.
    pub pinned: Square,
    /// The square of the piece behind it.
    pub behind: Square,
}

/// A position's placement as a 0x88 mailbox with a list of the pieces.
///
/// ```
/// use shakmaty::{Color, Square, fen::Fen, CastlingMode, Chess, Position};
/// use tabiya_core::pattern::attacks::VectorBoard;
///
/// // After 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 d6: the a4 bishop pins the c6 knight.
/// let fen: Fen = "r1bqkbnr/1pp2ppp/p1np4/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5".parse()?;
/// let chess: Chess = fen.into_position(CastlingMode::Standard)?;
/// let board = VectorBoard::from_board(chess.board());
/// assert!(board.attacks(Square::A4, Square::C6));
/// assert_eq!(board.pinned(Color::Black), shakmaty::Bitboard::from(Square::C6));
/// assert!(board.checkers(Color::White).is_empty());
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct VectorBoard {
    cells: [Cell; 128],
    /// 0x88 indices of the pieces, White's then Black's.
    list: [u8; 32],
    /// How many of `list` are White's, and in all.
    white_len: u8,
    len: u8,
    kings: ByColor<Option<Square>>,
}

impl VectorBoard {
    /// The board of these bitboards (pieces beyond 32, which no position has, are left out of
    /// the piece list but stay on the board).
    pub fn from_bitboards(by_role: &ByRole<Bitboard>, by_color: &ByColor<Bitboard>) -> VectorBoard {
        let mut board = VectorBoard {
            cells: [EMPTY; 128],
            list: [0; 32],
            white_len: 0,
            len: 0,
            kings: ByColor::new_with(|_| None),
        };
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                for sq in *by_role.get(role) & *by_color.get(color) {
                    let index = x88(sq);
                    board.cells[usize::from(index)] = cell_of(Piece { color, role });
                    if usize::from(board.len) < board.list.len() {
                        board.list[usize::from(board.len)] = index;
                        board.len += 1;
                    }
                    if role == Role::King {
                        *board.kings.get_mut(color) = Some(sq);
                    }
                }
            }
            if color == Color::White {
                board.white_len = board.len;
            }
        }
        board
    }

    /// The board of a shakmaty board.
    pub fn from_board(board: &Board) -> VectorBoard {
        let by_role = ByRole::new_with(|role| board.by_role(role));
        let by_color = ByColor::new_with(|color| board.by_color(color));
        VectorBoard::from_bitboards(&by_role, &by_color)
    }

    /// The piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        piece_of(self.cells[usize::from(x88(sq))])
    }

    /// The king of a colour (one of them, on boards with several).
    pub fn king(&self, color: Color) -> Option<Square> {
        *self.kings.get(color)
    }

    /// The squares of one colour's pieces, as 0x88 indices.
    fn list(&self, color: Color) -> &[u8] {
        match color {
            Color::White => &self.list[..usize::from(self.white_len)],
            Color::Black => &self.list[usize::from(self.white_len)..usize::from(self.len)],
        }
    }

    /// Whether the piece on 0x88 `from` attacks 0x88 `to`: one table lookup, then a blocker loop
    /// for sliders.
    #[inline]
    fn attacks_x88(&self, from: u8, to: u8) -> bool {
        let cell = self.cells[usize::from(from)];
        let v = vector(from, to);
        let bit = kind_bit(cell);
        if v.kinds & bit == 0 {
            return false;
        }
        if bit & SLIDERS == 0 {
            return true;
        }
        self.clear_between(from, to, v.step)
    }

    /// Whether every square strictly between `from` and `to` (on a ray of unit `step`) is empty.
    #[inline]
    fn clear_between(&self, from: u8, to: u8, step: i8) -> bool {
        let mut at = i16::from(from) + i16::from(step);
        while at != i16::from(to) {
            if self.cells[at as usize] != EMPTY {
                return false;
            }
            at += i16::from(step);
        }
        true
    }

    /// Whether the piece on `from` (if any) attacks `to`, whatever stands there.
    pub fn attacks(&self, from: Square, to: Square) -> bool {
        from != to && self.attacks_x88(x88(from), x88(to))
    }

    /// Every square the piece on `from` attacks (empty when `from` is empty).
    pub fn attacks_from(&self, from: Square) -> Bitboard {
        let index = x88(from);
        let cell = self.cells[usize::from(index)];
        let (steps, slides): (&[i16], bool) = match cell & 7 {
            1 => (if cell & BLACK != 0 { &[-17, -15] } else { &[15, 17] }, false),
            2 => (&KNIGHT_STEPS, false),
            3 => (&BISHOP_STEPS, true),
            4 => (&ROOK_STEPS, true),
            5 => (&KING_STEPS, true),
            6 => (&KING_STEPS, false),
            _ => return Bitboard::EMPTY,
        };
        let mut attacked = Bitboard::EMPTY;
        for &step in steps {
            let mut at = i16::from(index) + step;
            while on_board(at) {
                attacked.add(square(at as u8));
                if !slides || self.cells[at as usize] != EMPTY {
                    break;
                }
                at += step;
            }
        }
        attacked
    }

    /// The pieces of `color` attacking `target`.
    pub fn attackers(&self, target: Square, color: Color) -> Bitboard {
        let to = x88(target);
        let mut found = Bitboard::EMPTY;
        for &from in self.list(color) {
            if from != to && self.attacks_x88(from, to) {
                found.add(square(from));
            }
        }
        found
    }

    /// The pieces giving check to `color`'s king.
    pub fn checkers(&self, color: Color) -> Bitboard {
        self.king(color).map_or(Bitboard::EMPTY, |king| self.attackers(king, !color))
    }

    /// `color`'s pieces pinned to their own king (absolute pins), found from the king outwards:
    /// for each enemy slider on a line with the king, a blocker loop from the king.
    pub fn pinned(&self, color: Color) -> Bitboard {
        let Some(king) = self.king(color) else { return Bitboard::EMPTY };
        let k = x88(king);
        let mut pinned = Bitboard::EMPTY;
        for &slider in self.list(!color) {
            let bit = kind_bit(self.cells[usize::from(slider)]);
            // The slider's line to the king, seen from the slider.
            let v = vector(slider, k);
            if bit & SLIDERS == 0 || v.kinds & bit == 0 {
                continue;
            }
            let step = -i16::from(v.step);
            let mut at = i16::from(k) + step;
            let mut between = None;
            while at != i16::from(slider) {
                if self.cells[at as usize] != EMPTY {
                    if between.is_some() {
                        between = None;
                        break;
                    }
                    between = Some(at as u8);
                }
                at += step;
            }
            if let Some(index) = between
                && self.cells[usize::from(index)] & BLACK == (if color == Color::Black { BLACK } else { 0 })
            {
                pinned.add(square(index));
            }
        }
        pinned
    }

    /// Every pin on the board, absolute or relative (see [`Pin`]).
    pub fn pins(&self) -> Vec<Pin> {
        let mut pins = Vec::new();
        for &from in &self.list[..usize::from(self.len)] {
            self.pins_from(square(from), |pin| pins.push(pin));
        }
        pins
    }

    /// The pins whose pinner stands on `from`: along each of its rays, the first piece (of the
    /// other colour) and the next one (of that piece's colour).
    pub fn pins_from(&self, from: Square, mut found: impl FnMut(Pin)) {
        let index = x88(from);
        let cell = self.cells[usize::from(index)];
        let steps: &[i16] = match kind_bit(cell) {
            BISHOP => &BISHOP_STEPS,
            ROOK => &ROOK_STEPS,
            QUEEN => &KING_STEPS,
            _ => return,
        };
        for &step in steps {
            let Some(first) = self.next_piece(index, step) else { continue };
            let first_cell = self.cells[usize::from(first)];
            if (first_cell ^ cell) & BLACK == 0 {
                continue; // own piece: no pin
            }
            let Some(second) = self.next_piece(first, step) else { continue };
            if (self.cells[usize::from(second)] ^ first_cell) & BLACK == 0 {
                found(Pin { pinner: from, pinned: square(first), behind: square(second) });
            }
        }
    }

    /// The first occupied 0x88 index after `from` along `step`.
    fn next_piece(&self, from: u8, step: i16) -> Option<u8> {
        let mut at = i16::from(from) + step;
        while on_board(at) {
            if self.cells[at as usize] != EMPTY {
                return Some(at as u8);
            }
            at += step;
        }
        None
    }

    /// The squares a slider on `from` attacks through exactly one piece (its x-rays); empty for
    /// other pieces.
    pub fn xrays_from(&self, from: Square) -> Bitboard {
        let index = x88(from);
        let steps: &[i16] = match kind_bit(self.cells[usize::from(index)]) {
            BISHOP => &BISHOP_STEPS,
            ROOK => &ROOK_STEPS,
            QUEEN => &KING_STEPS,
            _ => return Bitboard::EMPTY,
        };
        let mut seen = Bitboard::EMPTY;
        for &step in steps {
            let Some(blocker) = self.next_piece(index, step) else { continue };
            let mut at = i16::from(blocker) + step;
            while on_board(at) {
                seen.add(square(at as u8));
                if self.cells[at as usize] != EMPTY {
                    break;
                }
                at += step;
            }
        }
        seen
    }
}

/// The squares strictly between `a` and `b` when they share a rank, file or diagonal; empty
/// otherwise.
///
/// ```
/// use shakmaty::{Bitboard, Square};
/// use tabiya_core::pattern::attacks::between;
///
/// assert_eq!(between(Square::A1, Square::D4), Bitboard::from(Square::B2) | Bitboard::from(Square::C3));
/// assert!(between(Square::A1, Square::B3).is_empty());
/// ```
pub fn between(a: Square, b: Square) -> Bitboard {
    let (from, to) = (x88(a), x88(b));
    let mut squares = Bitboard::EMPTY;
    if from == to {
        return squares;
    }
    let step = vector(from, to).step;
    if step == 0 {
        return squares;
    }
    let mut at = i16::from(from) + i16::from(step);
    while at != i16::from(to) {
        squares.add(square(at as u8));
        at += i16::from(step);
    }
    squares
}
