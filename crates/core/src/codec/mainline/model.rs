//! What a move is written as: three symbols, each read with the prefix code of a context the
//! position gives before the move, so that decoding needs the board but no move generation.
//!
//! 1. **Role**: the moving piece's role, among the roles the side to move has (context: which
//!    of the six roles it has; symbol: the role's rank among them).
//! 2. **Piece**: which of its pieces of that role, in square order (context: the role and how
//!    many it has; over [`COUNTED`] pieces, a fixed-width number).
//! 3. **Target**: the square among those the piece could go to as the board alone tells:
//!    attacked squares not holding a piece of its own side; a pawn's pushes to empty squares
//!    and captures of a piece or on the en passant square; a king's also two files away
//!    (castling), or in Chess960 its rooks that keep a castling right (the king takes its
//!    rook, [`CompactMove`]'s Chess960 castling). With a promotion, the promoted role too (context: the role, the number of
//!    such squares, and whether the pawn promotes). Where pawns may promote to a king
//!    ([`Promotions::WithKing`], Antichess), a promotion to a queen's symbol is followed by one
//!    bit: 1 for a king.
//!
//! Each context has its own Huffman code ([`super::tables`], counted on a master-game
//! collection); a side that has only a king, or a piece with one square, spends no bits.

use std::sync::LazyLock;

use shakmaty::{Bitboard, Board, Color, EnPassantMode, Move, Rank, Role, Square, attacks};

use super::{
    code::{BitReader, BitWriter, FastTable, PrefixCode},
    tables,
};
use crate::codec::CompactMove;

/// Pieces of one role whose choice has a table; more (set-up positions with many promoted
/// pieces) are numbered in fixed width.
pub const COUNTED: usize = 10;
/// The most squares a piece can have ([`targets`]): a queen in the middle of an empty board.
pub const MAX_TARGETS: usize = 27;
/// Promoted roles: knight, bishop, rook, queen.
const PROMOTIONS: usize = 4;

/// One of the three symbols of a move, in its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Which of the three it is.
    pub table: Table,
    /// The context's number in its table ([`contexts`]).
    pub context: usize,
    /// The symbol, below its context's alphabet size.
    pub symbol: u16,
}

/// The three tables of contexts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// The moving piece's role, by the set of roles the side has.
    Role,
    /// Which of the side's pieces of that role, by the role and their number.
    Piece,
    /// The target square (and promotion), by the role, the number of squares and promotion.
    Target,
}

/// Every context of `table`, in order, with the size of its alphabet: the layout of
/// [`super::tables`].
pub fn contexts(table: Table) -> Vec<usize> {
    match table {
        // Contexts are the 64 sets of roles; the empty set (no piece at all) has no move.
        Table::Role => (0..64u32).map(|set| set.count_ones().max(1) as usize).collect(),
        Table::Piece => (0..6).flat_map(|_| 1..=COUNTED).collect(),
        Table::Target => (0..6)
            .flat_map(|role| {
                let promoting = if role == 0 { 2 } else { 1 };
                (0..promoting)
                    .flat_map(move |p| (1..=MAX_TARGETS).map(move |n| n * if p == 1 { PROMOTIONS } else { 1 }))
            })
            .collect(),
    }
}

fn piece_context(role: Role, count: usize) -> usize {
    (role as usize - 1) * COUNTED + count - 1
}

fn target_context(role: Role, promoting: bool, n: usize) -> usize {
    let base = match (role, promoting) {
        (Role::Pawn, false) => 0,
        (Role::Pawn, true) => MAX_TARGETS,
        (role, _) => (role as usize) * MAX_TARGETS,
    };
    base + n - 1
}

/// The set of roles `us` has, as six bits (pawn lowest).
fn role_set(board: &Board, us: Color) -> usize {
    Role::ALL
        .iter()
        .enumerate()
        .fold(0, |set, (bit, role)| set | usize::from(!(board.by_role(*role) & board.by_color(us)).is_empty()) << bit)
}

/// The squares a piece of `role` on `from` could go to as the board of `position` tells (see
/// the module documentation): every legal move's destination is one of them.
pub fn targets(position: &impl shakmaty::Position, role: Role, from: Square) -> Bitboard {
    let board = position.board();
    let us = position.turn();
    let own = board.by_color(us);
    let occupied = board.occupied();
    match role {
        Role::Pawn => {
            let (step, start) = match us {
                Color::White => (8, Rank::Second),
                Color::Black => (-8, Rank::Seventh),
            };
            let one = Bitboard::from_square(from).shift(step) & !occupied;
            let two = match from.rank() == start {
                true => one.shift(step) & !occupied,
                false => Bitboard::EMPTY,
            };
            let en_passant = position.ep_square(EnPassantMode::Always).map_or(Bitboard::EMPTY, Bitboard::from_square);
            (attacks::pawn_attacks(us, from) & (board.by_color(!us) | en_passant)) | one | two
        }
        Role::King if position.castles().mode().is_chess960() => {
            (attacks::king_attacks(from) & !own) | (position.castles().castling_rights() & own)
        }
        Role::King => {
            let castles = [-2, 2]
                .into_iter()
                .filter_map(|df| from.file().offset(df).map(|file| Square::from_coords(file, from.rank())));
            (attacks::king_attacks(from) & !own) | castles.collect::<Bitboard>()
        }
        role => attacks::attacks(from, role.of(us), occupied) & !own,
    }
}

/// Whether a pawn of `us` on `from` promotes with any move.
fn promotes(role: Role, us: Color, from: Square) -> bool {
    role == Role::Pawn && from.rank() == us.fold_wb(Rank::Seventh, Rank::Second)
}

/// Squares of `set` below `square`.
fn below(set: Bitboard, square: Square) -> usize {
    (set & Bitboard((1u64 << square as u32) - 1)).count()
}

/// The `index`th square of `set` (from a1), if it has that many.
fn nth(set: Bitboard, index: usize) -> Option<Square> {
    let mut bits = set.0;
    for _ in 0..index {
        bits &= bits.wrapping_sub(1);
    }
    (bits != 0).then(|| Square::new(bits.trailing_zeros()))
}

/// The symbols of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveSymbols {
    /// The moving piece's role.
    pub role: Symbol,
    /// Which piece of that role; `None` past [`COUNTED`] pieces, where `wide_piece` holds it.
    pub piece: Option<Symbol>,
    /// The piece's index in fixed width, `(index, bits)`, past [`COUNTED`] pieces.
    pub wide_piece: Option<(u32, u32)>,
    /// The target square (and promotion).
    pub target: Symbol,
    /// After a queen's symbol where kings may be promoted to: whether the pawn became a king.
    pub king_promotion: Option<bool>,
}

/// The roles a pawn may promote to: a queen, rook, bishop or knight, and in Antichess a king.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Promotions {
    /// Queen, rook, bishop or knight.
    #[default]
    Standard,
    /// A king too (Antichess).
    WithKing,
}

impl MoveSymbols {
    /// The symbols written with a prefix code, in order.
    pub fn coded(&self) -> impl Iterator<Item = Symbol> {
        [Some(self.role), self.piece, Some(self.target)].into_iter().flatten()
    }
}

/// The symbols of `m`, a legal move in `position` whose pawns promote to `promotions`; `None`
/// for a move that is not one of the position's (a bug of the caller's).
pub fn symbols(position: &impl shakmaty::Position, m: &Move, promotions: Promotions) -> Option<MoveSymbols> {
    let compact = CompactMove::played(position, m);
    let (from, to) = (compact.from(), compact.to());
    let board = position.board();
    let us = position.turn();
    let role = board.role_at(from)?;
    let set = role_set(board, us);
    let rank = (set & ((1 << (role as usize - 1)) - 1)).count_ones() as u16;
    let role_symbol = Symbol { table: Table::Role, context: set, symbol: rank };
    let ours = board.by_role(role) & board.by_color(us);
    let index = below(ours, from);
    let (piece, wide) = match ours.count() {
        count @ 1..=COUNTED => {
            (Some(Symbol { table: Table::Piece, context: piece_context(role, count), symbol: index as u16 }), None)
        }
        count => (None, Some((index as u32, usize::BITS - (count - 1).leading_zeros()))),
    };
    let squares = targets(position, role, from);
    if !squares.contains(to) {
        return None;
    }
    let promoting = promotes(role, us, from);
    let target = below(squares, to);
    let (symbol, king_promotion) = match (promoting, compact.promotion(), promotions) {
        (true, Some(Role::King), Promotions::WithKing) => {
            (target * PROMOTIONS + (Role::Queen as usize - 2), Some(true))
        }
        (true, Some(Role::Queen), Promotions::WithKing) => {
            (target * PROMOTIONS + (Role::Queen as usize - 2), Some(false))
        }
        (true, Some(promoted), _) if promoted != Role::King => (target * PROMOTIONS + (promoted as usize - 2), None),
        (false, None, _) => (target, None),
        _ => return None,
    };
    let target = Symbol {
        table: Table::Target,
        context: target_context(role, promoting, squares.count()),
        symbol: symbol as u16,
    };
    Some(MoveSymbols { role: role_symbol, piece, wide_piece: wide, target, king_promotion })
}

/// The prefix codes of every context, from [`super::tables`], each with its table of short
/// codes.
struct Codes {
    role: Vec<(FastTable, PrefixCode)>,
    piece: Vec<(FastTable, PrefixCode)>,
    target: Vec<(FastTable, PrefixCode)>,
}

static CODES: LazyLock<Codes> = LazyLock::new(|| {
    let build = |table: Table, lengths: &[u8]| {
        let mut at = 0;
        contexts(table)
            .into_iter()
            .map(|size| {
                let code = PrefixCode::from_lengths(&lengths[at..at + size]);
                at += size;
                // The tables are this crate's own: a wrong one fails the tests, never user data.
                let code = code.expect("the mainline tables hold complete codes");
                (code.fast_table(), code)
            })
            .collect()
    };
    Codes {
        role: build(Table::Role, tables::ROLE),
        piece: build(Table::Piece, tables::PIECE),
        target: build(Table::Target, tables::TARGET),
    }
});

fn code(symbol: &Symbol) -> &'static PrefixCode {
    let codes = &*CODES;
    match symbol.table {
        Table::Role => &codes.role[symbol.context].1,
        Table::Piece => &codes.piece[symbol.context].1,
        Table::Target => &codes.target[symbol.context].1,
    }
}

/// Reads a symbol of a context's code.
#[inline(always)]
fn read((fast, code): &(FastTable, PrefixCode), bits: &mut BitReader) -> Option<u16> {
    code.read(fast, bits)
}

/// Writes `m`, a legal move in `position` whose pawns promote to `promotions`; `false`
/// (nothing written) for a move that is not one of the position's.
pub fn write_move(position: &impl shakmaty::Position, m: &Move, promotions: Promotions, out: &mut BitWriter) -> bool {
    let Some(symbols) = symbols(position, m, promotions) else { return false };
    for symbol in [Some(symbols.role), symbols.piece].into_iter().flatten() {
        code(&symbol).write(symbol.symbol, out);
    }
    if let Some((value, bits)) = symbols.wide_piece {
        out.push(value, bits);
    }
    code(&symbols.target).write(symbols.target.symbol, out);
    if let Some(king) = symbols.king_promotion {
        out.push(u32::from(king), 1);
    }
    true
}

/// Reads the move written next in `bits` for `position`: `None` at the end of the bits or when
/// they name no piece or square of it.
pub fn read_move(
    position: &impl shakmaty::Position,
    promotions: Promotions,
    bits: &mut BitReader,
) -> Option<CompactMove> {
    let codes = &*CODES;
    let board = position.board();
    let us = position.turn();
    let set = role_set(board, us);
    let rank = read(&codes.role[set], bits)?;
    let role = Role::ALL[nth(Bitboard(set as u64), usize::from(rank))? as usize];
    let ours = board.by_role(role) & board.by_color(us);
    let index = match ours.count() {
        count @ 1..=COUNTED => usize::from(read(&codes.piece[piece_context(role, count)], bits)?),
        count => bits.bits(usize::BITS - (count - 1).leading_zeros())? as usize,
    };
    let from = nth(ours, index)?;
    let squares = targets(position, role, from);
    let promoting = promotes(role, us, from);
    let symbol = usize::from(read(&codes.target[target_context(role, promoting, squares.count().max(1))], bits)?);
    let (target, mut promotion) = match promoting {
        true => (symbol / PROMOTIONS, symbol % PROMOTIONS + 2),
        false => (symbol, 0),
    };
    if promotion == Role::Queen as usize && promotions == Promotions::WithKing && bits.bits(1)? == 1 {
        promotion = Role::King as usize;
    }
    let to = nth(squares, target)?;
    CompactMove::from_bits(from as u16 | (to as u16) << 6 | (promotion as u16) << 12)
}
