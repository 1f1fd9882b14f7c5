//! A game's mainline in about a byte a ply, the way the mainlines family stores it.
//!
//! Each move is read against the position it is played from: the index of the moving piece
//! among the side to move's pieces (in square order, a1 first), and the index of its target
//! among the squares that piece could reach on an empty board (its [`reach`], in square order;
//! a king's includes the squares two files away, where castling takes it, and a pawn's its
//! pushes and captures).
//!
//! ```text
//! one byte     bits 0–3 the piece's index, bits 4–7 the target's index (0..=14)
//! two bytes    bits 0–3 the piece's index, bits 4–7 = 15; then bits 0–4 the target's index
//!              (0..=26), bits 5–7 the promotion (0 none, 1 knight, 2 bishop, 3 rook, 4 queen)
//! ```
//!
//! Most moves take the one-byte form; long queen, rook and bishop moves and promotions take two.
//! Indexes spread over few values compress well (docs/PERFORMANCE.md has the bytes against
//! two-byte [`CompactMove`]s). Decoding needs the position, so a mainline is read by replaying it; it needs no move
//! generation, and bytes that do not name a possible move there are refused.

use shakmaty::{Bitboard, Chess, Color, Move, Position as _, Role, Square, attacks};

use super::CompactMove;

/// The high nibble of a move whose target index or promotion follows in a second byte.
const ESCAPE: u8 = 15;

/// The squares a piece of `role` and `color` on `from` could move to on an empty board: the
/// targets a mainline byte indexes.
pub fn reach(role: Role, color: Color, from: Square) -> Bitboard {
    static TABLE: std::sync::LazyLock<Vec<Bitboard>> = std::sync::LazyLock::new(|| {
        let mut table = vec![Bitboard::EMPTY; 12 * 64];
        for role in Role::ALL {
            for color in Color::ALL {
                for from in Square::ALL {
                    table[slot(role, color, from)] = compute_reach(role, color, from);
                }
            }
        }
        table
    });
    TABLE[slot(role, color, from)]
}

/// Where [`reach`]'s table keeps a piece's squares.
fn slot(role: Role, color: Color, from: Square) -> usize {
    ((role as usize - 1) * 2 + color.fold_wb(0, 1)) * 64 + from as usize
}

/// [`reach`], computed.
fn compute_reach(role: Role, color: Color, from: Square) -> Bitboard {
    match role {
        Role::Pawn => {
            let (step, start) = match color {
                Color::White => (8, shakmaty::Rank::Second),
                Color::Black => (-8, shakmaty::Rank::Seventh),
            };
            let one = Bitboard::from_square(from).shift(step);
            let two = if from.rank() == start { one.shift(step) } else { Bitboard::EMPTY };
            attacks::pawn_attacks(color, from) | one | two
        }
        Role::Knight => attacks::knight_attacks(from),
        Role::Bishop => attacks::bishop_attacks(from, Bitboard::EMPTY),
        Role::Rook => attacks::rook_attacks(from, Bitboard::EMPTY),
        Role::Queen => attacks::queen_attacks(from, Bitboard::EMPTY),
        Role::King => {
            let castles = [-2, 2]
                .into_iter()
                .filter_map(|df| from.file().offset(df).map(|file| Square::from_coords(file, from.rank())));
            attacks::king_attacks(from) | castles.collect::<Bitboard>()
        }
    }
}

/// Squares of `set` below `square`.
fn below(set: Bitboard, square: Square) -> u32 {
    (set & Bitboard((1u64 << square as u32) - 1)).count() as u32
}

/// The `index`th square of `set` (from a1), if it has that many.
fn nth(set: Bitboard, index: u8) -> Option<Square> {
    let mut bits = set.0;
    for _ in 0..index {
        bits &= bits.wrapping_sub(1);
    }
    (bits != 0).then(|| Square::new(bits.trailing_zeros()))
}

/// Appends the bytes of `m`, a legal move in `position`.
pub fn encode_move(position: &Chess, m: &Move, out: &mut Vec<u8>) {
    let compact = CompactMove::from_move(m);
    let (from, to) = (compact.from(), compact.to());
    let us = position.turn();
    let board = position.board();
    let piece = below(board.by_color(us), from) as u8;
    let role = board.role_at(from).unwrap_or(Role::Pawn);
    let target = below(reach(role, us, from), to) as u8;
    match compact.promotion() {
        None if target < ESCAPE => out.push(piece | target << 4),
        promotion => {
            out.push(piece | ESCAPE << 4);
            out.push(target | promotion.map_or(0, |role| role as u8 - 1) << 5);
        }
    }
}

/// The bytes of a mainline: `moves`, legal one after the other from `start`.
pub fn encode(start: &Chess, moves: &[Move]) -> Vec<u8> {
    let mut out = Vec::with_capacity(moves.len() + moves.len() / 8);
    let mut position = start.clone();
    for m in moves {
        encode_move(&position, m, &mut out);
        position.play_unchecked(*m);
    }
    out
}

/// Plies of a mainline's bytes (without replaying it).
pub fn plies(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut at = 0;
    while at < bytes.len() {
        at += if bytes[at] >> 4 == ESCAPE { 2 } else { 1 };
        count += 1;
    }
    count
}

/// The bytes of a mainline's first `plies` plies (all of it when it has fewer).
pub fn prefix_len(bytes: &[u8], plies: usize) -> usize {
    let mut at = 0;
    for _ in 0..plies {
        if at >= bytes.len() {
            break;
        }
        at += if bytes[at] >> 4 == ESCAPE { 2 } else { 1 };
    }
    at.min(bytes.len())
}

/// Reads a mainline's moves by replaying it from its start; yields `None` once, then stops,
/// at bytes that do not name a possible move in the position reached.
pub struct MainlineReader<'a> {
    bytes: &'a [u8],
    position: Chess,
    broken: bool,
}

impl<'a> MainlineReader<'a> {
    /// A reader of `bytes`, a mainline played from `start`.
    pub fn new(start: Chess, bytes: &'a [u8]) -> MainlineReader<'a> {
        MainlineReader { bytes, position: start, broken: false }
    }

    /// The position before the next move (after the last one at the end).
    pub fn position(&self) -> &Chess {
        &self.position
    }

    fn read(&mut self) -> Option<Move> {
        let (&first, rest) = self.bytes.split_first()?;
        let (target, promotion, rest) = match first >> 4 {
            ESCAPE => {
                let (&second, rest) = rest.split_first()?;
                let promotion = match second >> 5 {
                    0 => None,
                    code @ 1..=4 => Some(Role::ALL[usize::from(code)]),
                    _ => return None,
                };
                (second & 31, promotion, rest)
            }
            target => (target, None, rest),
        };
        self.bytes = rest;
        let us = self.position.turn();
        let board = self.position.board();
        let from = nth(board.by_color(us), first & 15)?;
        let to = nth(reach(board.role_at(from)?, us, from), target)?;
        let promotion = promotion.map_or(0, |role| role as u16);
        let compact = CompactMove::from_bits(from as u16 | (to as u16) << 6 | promotion << 12)?;
        compact.to_move_trusted(&self.position)
    }
}

impl Iterator for MainlineReader<'_> {
    type Item = Option<Move>;

    fn next(&mut self) -> Option<Option<Move>> {
        if self.broken || self.bytes.is_empty() {
            return None;
        }
        let m = self.read();
        match m {
            Some(m) => self.position.play_unchecked(m),
            None => self.broken = true,
        }
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use shakmaty::{fen::Fen, uci::UciMove};

    use super::*;

    fn play(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut position = start.clone();
        ucis.iter()
            .map(|uci| {
                let m = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
                position.play_unchecked(m);
                m
            })
            .collect()
    }

    fn round_trip(start: &Chess, moves: &[Move]) -> Vec<u8> {
        let bytes = encode(start, moves);
        assert_eq!(plies(&bytes), moves.len());
        let read: Vec<Option<Move>> = MainlineReader::new(start.clone(), &bytes).collect();
        assert_eq!(read, moves.iter().map(|m| Some(*m)).collect::<Vec<_>>());
        bytes
    }

    #[test]
    fn castling_en_passant_and_promotions_round_trip() {
        let start = Chess::default();
        // En passant (e5d6), both castlings, a capture promoting to a knight.
        let mut moves = play(&start, &["e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "c8e6", "g1f3", "b8c6", "f1e2", "d8d7"]);
        let mut position = start.clone();
        for m in &moves {
            position.play_unchecked(*m);
        }
        moves.extend(play(&position, &["e1g1", "e8c8", "d6c7", "d7d2", "c7d8n"]));
        round_trip(&start, &moves);
        // Every underpromotion, with and without a capture, from a set-up position.
        let setup: Chess = "1n5k/P7/8/8/8/8/8/4K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        for uci in ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"] {
            let bytes = round_trip(&setup, &play(&setup, &[uci]));
            assert_eq!(bytes.len(), 2, "{uci}");
        }
        // A quiet opening move takes one byte.
        assert_eq!(round_trip(&start, &play(&start, &["g1f3"])).len(), 1);
    }

    /// A random legal game from the initial position, `plies` long at most.
    fn random_game(seed: u64, plies: usize) -> Vec<Move> {
        let mut state = seed | 1;
        let mut position = Chess::default();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let m = legal[(state % legal.len() as u64) as usize];
            position.play_unchecked(m);
            moves.push(m);
        }
        moves
    }

    #[test]
    fn the_reach_table_holds_what_is_computed() {
        for role in Role::ALL {
            for color in Color::ALL {
                for from in Square::ALL {
                    assert_eq!(reach(role, color, from), compute_reach(role, color, from), "{role:?} {color:?} {from}");
                }
            }
        }
        assert_eq!(reach(Role::Queen, Color::White, Square::D4).count(), 27);
        assert_eq!(reach(Role::King, Color::Black, Square::E8).count(), 7);
        assert_eq!(reach(Role::Pawn, Color::White, Square::E2).count(), 4);
    }

    proptest! {
        #[test]
        fn random_games_round_trip(seed in any::<u64>(), plies in 0usize..300) {
            round_trip(&Chess::default(), &random_game(seed, plies));
        }

        #[test]
        fn arbitrary_bytes_read_as_possible_moves_or_stop(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut position = Chess::default();
            for m in MainlineReader::new(Chess::default(), &bytes) {
                let Some(m) = m else { break };
                // What is read can be played and encoded again.
                let mut again = Vec::new();
                encode_move(&position, &m, &mut again);
                let read: Vec<_> = MainlineReader::new(position.clone(), &again).collect();
                prop_assert_eq!(read, vec![Some(m)]);
                position.play_unchecked(m);
            }
        }
    }
}
