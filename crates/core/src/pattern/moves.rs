//! Checks and the lack of legal moves (`check`, `mate`, `stalemate`) from attack tables: the
//! checkers are a few table lookups from the king, and a position has a legal move as soon as
//! one evident move is found (a safe king step; out of check, any move of an unpinned piece).
//! Only a position with no evident move is handed to shakmaty's move generator, so `mate` and
//! `stalemate` cost move generation on the rare boards that are nearly stuck, not on every one.

use crate::position::Rules;
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, Chess, Color, Position as _, Setup, Square,
    attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks},
};

/// A placement with a side to move, as the pattern evaluator holds it.
pub(super) struct Placement<'a> {
    pub by_role: &'a ByRole<Bitboard>,
    pub by_color: &'a ByColor<Bitboard>,
    pub turn: Color,
}

impl Placement<'_> {
    fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    fn ours(&self) -> Bitboard {
        *self.by_color.get(self.turn)
    }

    fn theirs(&self) -> Bitboard {
        *self.by_color.get(!self.turn)
    }

    /// The side to move's king (none on a board without one, or with two).
    fn king(&self) -> Option<Square> {
        (self.by_role.king & self.ours()).single_square()
    }

    /// `attacker`'s pieces attacking `sq` when the board's occupancy is `occupied`.
    fn attackers(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let r = self.by_role;
        let diagonal = r.bishop | r.queen;
        let straight = r.rook | r.queen;
        ((knight_attacks(sq) & r.knight)
            | (king_attacks(sq) & r.king)
            | (pawn_attacks(!attacker, sq) & r.pawn)
            | (bishop_attacks(sq, occupied) & diagonal)
            | (rook_attacks(sq, occupied) & straight))
            & *self.by_color.get(attacker)
    }

    /// The pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        self.king().map_or(Bitboard::EMPTY, |king| self.attackers(king, !self.turn, self.occupied()))
    }

    /// The side to move's pieces pinned to its king.
    fn pinned(&self, king: Square) -> Bitboard {
        let r = self.by_role;
        let snipers = ((bishop_attacks(king, Bitboard::EMPTY) & (r.bishop | r.queen))
            | (rook_attacks(king, Bitboard::EMPTY) & (r.rook | r.queen)))
            & self.theirs();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(king, sniper) & self.occupied();
            if let Some(blocker) = blockers.single_square()
                && self.ours().contains(blocker)
            {
                pinned.add(blocker);
            }
        }
        pinned
    }

    /// Whether the side to move surely has a legal move, by a move found without generating
    /// them: a king step to a square no enemy piece attacks (sliders looking through the king's
    /// square); out of check, a knight, slider or pawn move of a piece that is not pinned (each
    /// is legal then). `false` says nothing: the position may still have a move (castling, en
    /// passant, a pinned piece moving along its pin, a block or a capture of the checker).
    fn evident_move(&self, checkers: Bitboard) -> bool {
        let Some(king) = self.king() else { return false };
        let (ours, theirs) = (self.ours(), self.theirs());
        let without_king = self.occupied().without(king);
        if (king_attacks(king) & !ours).into_iter().any(|to| self.attackers(to, !self.turn, without_king).is_empty()) {
            return true;
        }
        if checkers.any() {
            return false;
        }
        let free = ours & !self.pinned(king);
        let (r, occupied) = (self.by_role, self.occupied());
        let reaches = |pieces: Bitboard, attacks: &dyn Fn(Square) -> Bitboard| {
            (pieces & free).into_iter().any(|sq| (attacks(sq) & !ours).any())
        };
        if reaches(r.knight, &knight_attacks)
            || reaches(r.bishop | r.queen, &|sq| bishop_attacks(sq, occupied))
            || reaches(r.rook | r.queen, &|sq| rook_attacks(sq, occupied))
        {
            return true;
        }
        let pawns = r.pawn & free;
        let pushed = match self.turn {
            Color::White => pawns.shift(8),
            Color::Black => pawns.shift(-8),
        };
        (pushed & !occupied).any() || pawns.into_iter().any(|sq| (pawn_attacks(self.turn, sq) & theirs).any())
    }

    /// Whether the side to move, checked by `checkers` ([`Placement::checkers`]), has no legal
    /// move. `castling` (rook squares) and `ep_square`
    /// complete the position for shakmaty's move generator, asked only when no move is evident.
    /// A board shakmaty refuses (no king of a side, say) is not stuck: it is neither mate nor
    /// stalemate.
    pub fn stuck(&self, checkers: Bitboard, castling: Bitboard, ep_square: Option<Square>) -> bool {
        if self.evident_move(checkers) {
            return false;
        }
        Board::try_from_bitboards(*self.by_role, *self.by_color)
            .ok()
            .and_then(|board| {
                let setup = Setup { board, turn: self.turn, castling_rights: castling, ep_square, ..Setup::empty() };
                // Chess960's rights (a decoded Chess960 key) need its castling mode.
                let mode = CastlingMode::detect(&setup);
                <Chess as shakmaty::FromSetup>::from_setup(setup, mode)
                    .or_else(shakmaty::PositionError::ignore_impossible_check)
                    .ok()
            })
            .is_some_and(|chess| chess.legal_moves().is_empty())
    }

    /// Whether the side to move has no legal move by a lichess variant's `rules` (shakmaty's
    /// variant position decides: no move once the game ended by the variant's rule, no move
    /// giving check in Racing Kings), and whether the game ended so. A board the rules refuse
    /// is neither.
    pub fn stuck_by(&self, rules: Rules, castling: Bitboard, ep_square: Option<Square>) -> Stuck {
        self.variant_position(rules, castling, ep_square).map_or(Stuck::default(), |position| Stuck {
            no_move: position.legal_moves().is_empty(),
            variant_end: position.is_variant_end(),
        })
    }

    /// The pieces checking the side to move by Atomic's rules: none while the kings stand side
    /// by side (a capture of one would explode the other), none once its king exploded.
    pub fn atomic_checkers(&self, castling: Bitboard, ep_square: Option<Square>) -> Bitboard {
        self.variant_position(Rules::Atomic, castling, ep_square).map_or(Bitboard::EMPTY, |p| p.checkers())
    }

    /// shakmaty's position of the placement under a lichess variant's `rules`.
    fn variant_position(
        &self,
        rules: Rules,
        castling: Bitboard,
        ep_square: Option<Square>,
    ) -> Option<shakmaty::variant::VariantPosition> {
        let board = Board::try_from_bitboards(*self.by_role, *self.by_color).ok()?;
        rules.lichess_position(Setup { board, turn: self.turn, castling_rights: castling, ep_square, ..Setup::empty() })
    }
}

/// Whether the side to move has no legal move, and whether that is because the game ended by
/// its variant's own rule (a king on the hill, a third check, the race run).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Stuck {
    pub no_move: bool,
    pub variant_end: bool,
}
