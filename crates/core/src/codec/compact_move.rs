//! A move in two bytes, the way positions and games store it.
//!
//! Bits 0–5 hold the origin square, 6–11 the destination, 12–14 the promotion role (0 for none,
//! else shakmaty's [`Role`] number: 2 knight … 5 queen, 6 king in Antichess). Castling is the king's move in standard
//! UCI (`e1g1`), as the lichess explorer writes it; in Chess960 the king takes its own rook
//! (`f1h1`), as lichess writes Chess960 moves (a king's two-square step is no castling there,
//! and may be no move at all). A move only means something next to the position it is played
//! from.

use std::fmt;

use shakmaty::{CastlingMode, CastlingSide, Move, Role, Square, uci::UciMove};

/// A move as 15 bits of a `u16`: origin, destination, promotion (docs/FORMAT.md, "Moves and
/// mainlines").
///
/// ```
/// use shakmaty::{Chess, Square, uci::UciMove};
/// use tabiya_core::codec::CompactMove;
///
/// let position = Chess::default();
/// let e4 = UciMove::from_ascii(b"e2e4")?.to_move(&position)?;
/// let compact = CompactMove::from_move(&e4);
/// assert_eq!(compact.to_string(), "e2e4");
/// assert_eq!(compact.to_move(&position), Some(e4));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, bincode::Encode)]
pub struct CompactMove(u16);

impl CompactMove {
    /// Packs a legal move of `position`: castling as its castling mode writes it.
    #[inline]
    pub fn played(position: &impl shakmaty::Position, m: &Move) -> CompactMove {
        CompactMove::from_move_in(m, position.castles().mode())
    }

    /// Packs a legal move of a position in castling mode `mode`.
    #[inline]
    pub fn from_move_in(m: &Move, mode: CastlingMode) -> CompactMove {
        match (mode, m) {
            (CastlingMode::Chess960, &Move::Castle { king, rook }) => CompactMove(king as u16 | (rook as u16) << 6),
            _ => CompactMove::from_move(m),
        }
    }

    /// Packs a legal move of a standard-chess position.
    #[inline]
    pub fn from_move(m: &Move) -> CompactMove {
        let promotion = m.promotion().map_or(0, |role| role as u16);
        let from = m.from().map_or(0, |sq| sq as u16);
        let to = match m.castling_side() {
            Some(side) => Square::from_coords(side.king_to_file(), m.to().rank()) as u16,
            None => m.to() as u16,
        };
        CompactMove(from | (to << 6) | (promotion << 12))
    }

    /// The bits, for storage.
    #[inline]
    pub fn bits(self) -> u16 {
        self.0
    }

    /// Reads stored bits; `None` when they cannot be a move (same squares, unknown role).
    #[inline]
    pub fn from_bits(bits: u16) -> Option<CompactMove> {
        let m = CompactMove(bits);
        let promotion = bits >> 12;
        (bits >> 15 == 0 && m.from() != m.to() && (promotion == 0 || (2..=6).contains(&promotion))).then_some(m)
    }

    /// The square the move starts from.
    #[inline]
    pub fn from(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    /// The square the move ends on (the rook's square for castling).
    #[inline]
    pub fn to(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    /// The piece a pawn promotes to.
    #[inline]
    pub fn promotion(self) -> Option<Role> {
        Role::try_from(self.0 >> 12).ok()
    }

    /// The UCI form (`e2e4`, `e7e8q`, `e1g1` for castling; king takes rook in Chess960).
    pub fn to_uci(self) -> UciMove {
        UciMove::Normal { from: self.from(), to: self.to(), promotion: self.promotion() }
    }

    /// The legal move this is in `position`, if any.
    pub fn to_move(self, position: &impl shakmaty::Position) -> Option<Move> {
        self.to_uci().to_move(position).ok()
    }

    /// The move this is in `position`, read from the board without checking that it is legal:
    /// for moves stored from a game whose every move was checked when it was ingested, where
    /// the check (a move generation per ply) is most of a replay's time. `None` when it cannot
    /// be a move of the side to move at all: no piece of theirs on the from square, one of
    /// theirs or a king on the target, castling without the right, a pawn reaching the last
    /// rank without promoting or a promotion elsewhere, castling through pieces. What passes keeps both kings on the
    /// board, so corrupt data cannot lead shakmaty into a position it panics on; where
    /// `kings_are_pieces` (Antichess, whose positions need no king) a king may be taken or
    /// promoted to.
    pub fn to_move_trusted(self, position: &impl shakmaty::Position, kings_are_pieces: bool) -> Option<Move> {
        let board = position.board();
        let (from, to, promotion) = (self.from(), self.to(), self.promotion());
        let us = position.turn();
        let piece = board.piece_at(from).filter(|piece| piece.color == us)?;
        let last_rank = to.rank() == us.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
        if promotion.is_some() != (piece.role == Role::Pawn && last_rank)
            || promotion == Some(Role::King) && !kings_are_pieces
        {
            return None;
        }
        // A king taking a rook of its own that keeps a right (an enemy rook with a right is
        // an ordinary capture).
        let own_castling_rooks = position.castles().castling_rights() & board.by_color(us);
        if piece.role == Role::King && position.castles().mode().is_chess960() && own_castling_rooks.contains(to) {
            // Chess960: the king takes its own rook, which keeps a right.
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let clear = (position.castles().path(us, side) & board.occupied()).is_empty();
            let ours = position.castles().rook(us, side) == Some(to) && board.piece_at(to) == Some(us.rook());
            return (clear && ours).then_some(Move::Castle { king: from, rook: to });
        }
        let castles = piece.role == Role::King
            && position.castles().mode().is_standard()
            && from == us.fold_wb(Square::E1, Square::E8)
            && to.rank() == from.rank()
            && from.distance(to) == 2;
        if castles {
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let rook = position.castles().rook(us, side)?;
            // The squares between king and rook and their destinations must be empty.
            let clear = (position.castles().path(us, side) & board.occupied()).is_empty();
            return (clear && board.piece_at(rook) == Some(us.rook())).then_some(Move::Castle { king: from, rook });
        }
        if board.by_color(us).contains(to) || board.kings().contains(to) && !kings_are_pieces {
            return None;
        }
        if piece.role == Role::Pawn && from.file() != to.file() && !board.occupied().contains(to) {
            let ep = position.ep_square(shakmaty::EnPassantMode::Always);
            return (ep == Some(to)).then_some(Move::EnPassant { from, to });
        }
        Some(Move::Normal { role: piece.role, from, capture: board.role_at(to), to, promotion })
    }
}

impl fmt::Display for CompactMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_uci().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen};

    use super::*;

    #[test]
    fn trusted_moves_refuse_what_cannot_be_played() {
        let position: Chess = Fen::from_ascii(b"r3k2r/1P6/8/8/8/8/6q1/R3K2R w Qk - 0 1")
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let uci = |text: &str| {
            CompactMove::from_bits(match text.parse::<UciMove>().unwrap() {
                UciMove::Normal { from, to, promotion } => {
                    from as u16 | (to as u16) << 6 | promotion.map_or(0, |r| r as u16) << 12
                }
                _ => unreachable!(),
            })
            .unwrap()
        };
        // Castling without the right, a pawn to the last rank without promoting (twice), the
        // other side's piece; then a capture of a king, an en passant capture without its square.
        for bad in ["e1g1", "b7b8", "b7a8", "g2g1"] {
            assert_eq!(uci(bad).to_move_trusted(&position, false), None, "{bad}");
        }
        // A rook move through a pawn onto the king: not a move, and a king never goes.
        let capture_king: Chess = Fen::from_ascii(b"4k3/8/8/8/4P3/8/8/4RK2 w - - 0 1")
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(uci("e1e8").to_move_trusted(&capture_king, false), None);
        let no_ep: Chess = Fen::from_ascii(b"4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1")
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(uci("e5d6").to_move_trusted(&no_ep, false), None);
        assert!(
            uci("e1c1").to_move_trusted(&position, false).is_some()
                && uci("b7b8q").to_move_trusted(&position, false).is_some()
        );
        // Castling through pieces (shakmaty would panic playing it).
        for blocked in ["e1g1", "e1c1", "e8g8"] {
            let start = Chess::default();
            assert_eq!(uci(blocked).to_move_trusted(&start, false), None, "{blocked}");
        }
    }

    #[test]
    fn every_legal_move_of_tricky_positions_round_trips() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        ] {
            let position: Chess =
                Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap();
            let mut seen = std::collections::HashSet::new();
            for m in position.legal_moves() {
                let compact = CompactMove::from_move(&m);
                assert!(seen.insert(compact), "{fen}: {m} collides");
                assert_eq!(CompactMove::from_bits(compact.bits()), Some(compact));
                assert_eq!(compact.to_move(&position), Some(m), "{fen}: {m}");
                assert_eq!(compact.to_move_trusted(&position, false), Some(m), "{fen}: {m}");
                assert_eq!(compact.to_string(), m.to_uci(CastlingMode::Standard).to_string());
            }
        }
    }

    #[test]
    fn every_legal_chess960_move_round_trips_castling_as_the_king_taking_its_rook() {
        for fen in [
            // Castling both ways, the king one file from its castling square.
            "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1",
            // The king on its castling square already: castling moves the rook alone.
            "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w KQkq - 0 1",
            // The king takes an enemy rook that keeps its right: a capture, not castling.
            "r3k2r/6K1/8/8/8/8/8/8 w kq - 0 1",
            "8/8/8/8/8/8/1k6/R3K2R b KQ - 0 1",
        ] {
            let position: Chess =
                Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Chess960).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut castles = 0;
            for m in position.legal_moves() {
                let compact = CompactMove::played(&position, &m);
                assert!(seen.insert(compact), "{fen}: {m} collides");
                assert_eq!(compact.to_move(&position), Some(m), "{fen}: {m}");
                assert_eq!(compact.to_move_trusted(&position, false), Some(m), "{fen}: {m}");
                assert_eq!(compact.to_string(), m.to_uci(CastlingMode::Chess960).to_string());
                castles += usize::from(m.is_castle());
            }
            assert!(castles > 0 || !fen.contains(" w KQkq"), "{fen}");
        }
    }

    #[test]
    fn arbitrary_bits_never_panic() {
        let position = Chess::default();
        for bits in 0..=u16::MAX {
            if let Some(m) = CompactMove::from_bits(bits) {
                let _ = m.to_move(&position);
                let _ = m.to_string();
            }
        }
    }
}
