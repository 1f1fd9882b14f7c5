//! The Huffman packed position: a variable-length, exactly decodable bit code, the compact
//! position format of exports.
//!
//! It follows the Huffman-inspired board code (empty = `0`, pawn = `10c`, …) with its refinements, and
//! takes the category from the key so that implied rooks and kings cost nothing. Bits are
//! written most significant first; the last byte is padded with zeros.
//!
//! ```text
//! 7 bits   category (0..=80): home rooks, castling rights and castling kings are implied
//! 1 bit    side to move (0 = White)
//! 6 bits   White king square (a1 = 0 … h8 = 63), only when the category does not imply it
//! 6 bits   Black king square, likewise
//! 4 bits   number of White pieces in the board stream (kings and implied rooks excluded)
//! 4 bits   number of Black pieces in the board stream
//! 1 bit    1 when the board has pawns
//! board    squares a1, b1, … h8, skipping implied squares and king squares, until every
//!          counted piece is placed (trailing empty squares are omitted):
//!            empty run of 1         0
//!            empty run of 2..9      00nnn           (n = run − 2)
//!            empty run of 10..41    00nnn0nn        (nnnnn = run − 10)
//!            empty run of 42..73    00nnn0nn0       (nnnnn = run − 42)
//!            with pawns:   pawn 10c, bishop 1100c, knight 1101c, rook 1110c, queen 1111c
//!            no pawns:     bishop 100c, knight 101c, rook 110c, queen 111c
//!          c = 1 for White, 0 for Black; c is omitted when the colour is forced (one side has
//!          no piece left to place, or the piece is a pawn and one side already has 8)
//! ep       when k files allow a pawn of the side to move to capture en passant by the board
//!          alone: ⌈log2(k+1)⌉ bits, 0 = none, i = the i-th such file from the a-file
//! ```
//!
//! Runs are maximal, so a run is always followed by a piece code, which starts with `1`: that is
//! what makes the run codes unambiguous.
//!
//! ```
//! use tabiya_core::{Position, codec::huffman};
//!
//! let start = Position::initial();
//! let packed = huffman::encode(&start);
//! assert_eq!(packed.bits, 110); // 14 bytes
//! assert_eq!(huffman::decode(&packed.bytes)?, start);
//! # Ok::<_, tabiya_core::codec::huffman::HuffmanError>(())
//! ```

use shakmaty::{Board, Color, EnPassantMode, File, Piece, Position as _, Rank, Role, Setup, Square};

use crate::position::{Category, Position, PositionError};

/// A packed position: bytes and the number of meaningful bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// The code, padded to whole bytes.
    pub bytes: Vec<u8>,
    /// Its length in bits.
    pub bits: usize,
}

/// Why bytes are not a packed position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HuffmanError {
    #[error("packed position ends early")]
    /// The bytes end before the position does.
    Truncated,
    #[error("malformed packed position: {0}")]
    /// The bits do not describe a position.
    Malformed(&'static str),
    #[error("packed position decodes to an illegal position: {0}")]
    /// The position described is not legal.
    Illegal(#[from] PositionError),
}

/// Encodes a position.
pub fn encode(position: &Position) -> Packed {
    let chess = position.shakmaty();
    let board = chess.board();
    let category = Category::of(position);
    let mut w = BitWriter::default();
    w.write(u64::from(category.index()), 7);
    w.write(u64::from(chess.turn() == Color::Black), 1);
    let mut skipped = category.implied_squares();
    for color in Color::ALL {
        let king = board.king_of(color).expect("a legal position has both kings");
        if category.implied_king(color).is_none() {
            w.write(u64::from(king), 6);
        }
        skipped.add(king);
    }
    let stream = board.occupied() & !skipped;
    let mut left = [(stream & board.white()).count() as u32, (stream & board.black()).count() as u32];
    w.write(left[0] as u64, 4);
    w.write(left[1] as u64, 4);
    let has_pawns = !board.pawns().is_empty();
    w.write(u64::from(has_pawns), 1);

    let mut pawns_seen = [0u32; 2];
    let mut run = 0u32;
    for square in Square::ALL.into_iter().filter(|&sq| !skipped.contains(sq)) {
        if left == [0, 0] {
            break;
        }
        let Some(piece) = board.piece_at(square) else {
            run += 1;
            continue;
        };
        write_run(&mut w, run);
        run = 0;
        let (code, len) = role_code(piece.role, has_pawns);
        w.write(code, len);
        if forced_colour(piece.role, left, pawns_seen).is_none() {
            w.write(u64::from(piece.color == Color::White), 1);
        }
        let side = side_index(piece.color);
        left[side] -= 1;
        if piece.role == Role::Pawn {
            pawns_seen[side] += 1;
        }
    }

    let candidates = ep_candidates(board, chess.turn());
    if !candidates.is_empty() {
        let choice = chess
            .ep_square(EnPassantMode::Legal)
            .and_then(|sq| candidates.iter().position(|&f| f == sq.file()))
            .map_or(0, |i| i + 1);
        w.write(choice as u64, bits_for(candidates.len() + 1));
    }
    w.finish()
}

/// Decodes a packed position.
pub fn decode(bytes: &[u8]) -> Result<Position, HuffmanError> {
    let mut r = BitReader { bytes, pos: 0 };
    let category = Category::new(r.read(7)? as u8).ok_or(HuffmanError::Malformed("category above 80"))?;
    let turn = if r.read(1)? == 1 { Color::Black } else { Color::White };
    let mut board = Board::empty();
    let mut skipped = category.implied_squares();
    for color in Color::ALL {
        for square in category.home_rooks(color) {
            board.set_piece_at(square, Piece { color, role: Role::Rook });
        }
        let king = match category.implied_king(color) {
            Some(square) => square,
            None => {
                let square = Square::new(r.read(6)? as u32);
                if skipped.contains(square) {
                    return Err(HuffmanError::Malformed("king on an occupied square"));
                }
                skipped.add(square);
                square
            }
        };
        board.set_piece_at(king, Piece { color, role: Role::King });
    }
    let mut left = [r.read(4)? as u32, r.read(4)? as u32];
    let has_pawns = r.read(1)? == 1;

    let mut squares = Square::ALL.into_iter().filter(|&sq| !skipped.contains(sq));
    let mut pawns_seen = [0u32; 2];
    while left != [0, 0] {
        let run = read_run(&mut r)?;
        let square = squares.nth(run as usize).ok_or(HuffmanError::Malformed("board stream past h8"))?;
        let role = read_role(&mut r, has_pawns)?;
        let color = match forced_colour(role, left, pawns_seen) {
            Some(color) => color,
            None if r.read(1)? == 1 => Color::White,
            None => Color::Black,
        };
        let side = side_index(color);
        if left[side] == 0 {
            return Err(HuffmanError::Malformed("more pieces of a colour than counted"));
        }
        left[side] -= 1;
        if role == Role::Pawn {
            pawns_seen[side] += 1;
        }
        board.set_piece_at(square, Piece { color, role });
    }
    // The flag is canonical only when it is true: the encoder sets it for positions with pawns.
    if has_pawns && pawns_seen == [0, 0] {
        return Err(HuffmanError::Malformed("pawn flag set without a pawn"));
    }

    let candidates = ep_candidates(&board, turn);
    let ep_square = if candidates.is_empty() {
        None
    } else {
        match r.read(bits_for(candidates.len() + 1))? as usize {
            0 => None,
            i => Some(Square::from_coords(
                *candidates.get(i - 1).ok_or(HuffmanError::Malformed("en-passant choice out of range"))?,
                turn.fold_wb(Rank::Sixth, Rank::Third),
            )),
        }
    };
    r.expect_end()?;

    let setup = Setup { board, turn, castling_rights: category.castling_rights(), ep_square, ..Setup::empty() };
    let position = Position::from_setup(setup, "packed position")?;
    if Category::of(&position) != category {
        return Err(HuffmanError::Malformed("a rook stands on a home square its category says is empty"));
    }
    if position.ep_square() != ep_square {
        return Err(HuffmanError::Malformed("en-passant file without a legal en-passant capture"));
    }
    Ok(position)
}

/// Piece code and its length (colour bit excluded).
fn role_code(role: Role, has_pawns: bool) -> (u64, u32) {
    let (code, len) = match role {
        Role::Pawn => (0b10, 2),
        Role::Bishop => (0b1100, 4),
        Role::Knight => (0b1101, 4),
        Role::Rook => (0b1110, 4),
        Role::Queen | Role::King => (0b1111, 4),
    };
    // Without pawns the leading 1 that separates pawns from pieces is dropped.
    if has_pawns { (code, len) } else { (code & 0b111 | 0b100, 3) }
}

fn read_role(r: &mut BitReader<'_>, has_pawns: bool) -> Result<Role, HuffmanError> {
    if has_pawns {
        if r.read(1)? != 1 {
            return Err(HuffmanError::Malformed("piece code expected"));
        }
        if r.read(1)? == 0 {
            return Ok(Role::Pawn);
        }
    } else if r.read(1)? != 1 {
        return Err(HuffmanError::Malformed("piece code expected"));
    }
    Ok(match r.read(2)? {
        0b00 => Role::Bishop,
        0b01 => Role::Knight,
        0b10 => Role::Rook,
        _ => Role::Queen,
    })
}

/// Index of a colour in the `[White, Black]` counters.
fn side_index(color: Color) -> usize {
    color.fold_wb(0, 1)
}

/// The colour of the next piece when the counters force it, so that its colour bit is omitted:
/// one side has nothing left to place, or a pawn must belong to the side with fewer than 8.
fn forced_colour(role: Role, left: [u32; 2], pawns_seen: [u32; 2]) -> Option<Color> {
    if left[0] == 0 || (role == Role::Pawn && pawns_seen[0] == 8) {
        Some(Color::Black)
    } else if left[1] == 0 || (role == Role::Pawn && pawns_seen[1] == 8) {
        Some(Color::White)
    } else {
        None
    }
}

fn write_run(w: &mut BitWriter, run: u32) {
    match run {
        0 => {}
        1 => w.write(0, 1),
        2..=9 => w.write(u64::from(run - 2), 5),
        10..=41 => {
            let v = u64::from(run - 10);
            w.write(v >> 2, 5);
            w.write(v & 3, 3);
        }
        _ => {
            let v = u64::from(run - 42);
            w.write(v >> 2, 5);
            w.write(v & 3, 3);
            w.write(0, 1);
        }
    }
}

/// Reads the empty run before the next piece (0 when the next bit starts a piece).
fn read_run(r: &mut BitReader<'_>) -> Result<u32, HuffmanError> {
    if r.peek()? == 1 {
        return Ok(0);
    }
    r.read(1)?;
    if r.peek()? == 1 {
        return Ok(1);
    }
    r.read(1)?;
    let high = r.read(3)? as u32;
    if r.peek()? == 1 {
        return Ok(high + 2);
    }
    r.read(1)?;
    let v = high << 2 | r.read(2)? as u32;
    if r.peek()? == 1 {
        return Ok(v + 10);
    }
    r.read(1)?;
    Ok(v + 42)
}

/// Files on which the side to move could capture en passant, judging by pawns and empty
/// squares only: an enemy pawn that may just have advanced two squares, with a pawn of the side
/// to move beside it.
fn ep_candidates(board: &Board, turn: Color) -> Vec<File> {
    let (their_rank, behind, start) = match turn {
        Color::White => (Rank::Fifth, Rank::Sixth, Rank::Seventh),
        Color::Black => (Rank::Fourth, Rank::Third, Rank::Second),
    };
    let ours = board.by_piece(Piece { color: turn, role: Role::Pawn });
    let theirs = board.by_piece(Piece { color: !turn, role: Role::Pawn });
    File::ALL
        .into_iter()
        .filter(|&file| {
            let at = |rank| Square::from_coords(file, rank);
            theirs.contains(at(their_rank))
                && !board.occupied().contains(at(behind))
                && !board.occupied().contains(at(start))
                && [file.offset(-1), file.offset(1)]
                    .into_iter()
                    .flatten()
                    .any(|side| ours.contains(Square::from_coords(side, their_rank)))
        })
        .collect()
}

fn bits_for(values: usize) -> u32 {
    usize::BITS - (values - 1).leading_zeros()
}

#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    bits: usize,
}

impl BitWriter {
    fn write(&mut self, value: u64, len: u32) {
        for i in (0..len).rev() {
            if self.bits.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if value >> i & 1 == 1 {
                *self.bytes.last_mut().expect("pushed above") |= 0x80 >> (self.bits % 8);
            }
            self.bits += 1;
        }
    }

    fn finish(self) -> Packed {
        Packed { bytes: self.bytes, bits: self.bits }
    }
}

struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl BitReader<'_> {
    fn peek(&self) -> Result<u64, HuffmanError> {
        let byte = self.bytes.get(self.pos / 8).ok_or(HuffmanError::Truncated)?;
        Ok(u64::from(byte >> (7 - self.pos % 8) & 1))
    }

    fn read(&mut self, len: u32) -> Result<u64, HuffmanError> {
        let mut value = 0;
        for _ in 0..len {
            value = value << 1 | self.peek()?;
            self.pos += 1;
        }
        Ok(value)
    }

    /// Only zero padding may follow the code.
    fn expect_end(&self) -> Result<(), HuffmanError> {
        let padded = self.pos.div_ceil(8);
        let last_ok = self.pos.is_multiple_of(8) || self.bytes[self.pos / 8] & (0xff >> (self.pos % 8)) == 0;
        if self.bytes.len() != padded || !last_ok {
            return Err(HuffmanError::Malformed("bytes after the end of the code"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `arbitrary_packed_bytes_decode_canonically`: the pawn flag set for a position
    /// without pawns (here no piece outside the implied ones and the black king) is refused,
    /// as only the flag's cleared form is what the encoder writes.
    #[test]
    fn a_pawn_flag_without_pawns_is_refused() {
        assert!(matches!(decode(&[8, 180, 2]), Err(HuffmanError::Malformed(_))));
        let position = decode(&[8, 180, 0]).expect("the canonical form");
        assert_eq!(encode(&position).bytes, [8, 180, 0]);
    }

    #[test]
    fn run_codes_round_trip() {
        for run in 0..=73 {
            let mut w = BitWriter::default();
            write_run(&mut w, run);
            w.write(1, 1); // a piece code follows every run
            let packed = w.finish();
            let mut r = BitReader { bytes: &packed.bytes, pos: 0 };
            assert_eq!(read_run(&mut r).unwrap(), run);
            assert_eq!(r.pos, packed.bits - 1);
        }
    }
}
