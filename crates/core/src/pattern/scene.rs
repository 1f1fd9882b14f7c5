//! [`Scene`]: one position as the pattern evaluator sees it: bitboards for placement questions,
//! a [`VectorBoard`] (built on first need) for attack questions, attack tables for checks and
//! for the evident moves that rule out `mate` and `stalemate` ([`super::moves`]).

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, Chess, Color, Position as _, Square,
    attacks::{between, bishop_attacks, rook_attacks},
};

use super::{
    Designator, Expr, Test,
    moves::{Placement, Stuck},
};
use crate::{Key, Position, codec::KeyBoard, pattern::attacks::VectorBoard, position::Rules};

/// One position under evaluation.
#[derive(Clone, Debug)]
pub struct Scene {
    by_role: ByRole<Bitboard>,
    by_color: ByColor<Bitboard>,
    turn: Color,
    castling: Bitboard,
    ep_square: Option<Square>,
    board: Option<VectorBoard>,
    /// The pieces checking the side to move, once asked.
    checkers: Option<Bitboard>,
    stuck: Option<Stuck>,
    /// The rules whose legal moves `mate` and `stalemate` count.
    rules: Rules,
}

impl Scene {
    /// A scene of a placement with the side to move, castling rights (rook squares) and the
    /// en-passant square.
    pub fn new(
        by_role: ByRole<Bitboard>,
        by_color: ByColor<Bitboard>,
        turn: Color,
        castling: Bitboard,
        ep_square: Option<Square>,
    ) -> Scene {
        Scene {
            by_role,
            by_color,
            turn,
            castling,
            ep_square,
            board: None,
            checkers: None,
            stuck: None,
            rules: Rules::Chess,
        }
    }

    /// The scene of a key decoded without validation.
    #[inline]
    pub fn of_key_board(key: &KeyBoard) -> Scene {
        Scene::new(key.by_role, key.by_color, key.turn, key.castling_rights, key.ep_square)
    }

    /// The scene of a shakmaty position.
    #[inline]
    pub fn of_chess(chess: &Chess) -> Scene {
        let ep_square = chess.ep_square(shakmaty::EnPassantMode::Legal);
        Scene::of_board(chess.board(), chess.turn(), chess.castles().castling_rights(), ep_square)
    }

    /// The scene of a shakmaty board with the side to move, castling rights and en-passant square.
    fn of_board(board: &Board, turn: Color, castling: Bitboard, ep_square: Option<Square>) -> Scene {
        let by_role = ByRole::new_with(|role| board.by_role(role));
        Scene::new(by_role, ByColor::new_with(|color| board.by_color(color)), turn, castling, ep_square)
    }

    /// The scene of a position, under its variant's rules.
    #[inline]
    pub fn of_position(position: &Position) -> Scene {
        let castling = position.castles().castling_rights();
        let scene = Scene::of_board(position.board(), position.turn(), castling, position.ep_square());
        Scene { rules: position.rules(), ..scene }
    }

    /// The scene of a key's board under the rules of the key's variant (and Three-check's
    /// checks given, which its first byte holds).
    #[inline]
    pub fn of_key(key: &Key, board: &KeyBoard) -> Scene {
        let variant = key.variant().unwrap_or_default();
        Scene { rules: Rules::of(variant, key.checks_given()), ..Scene::of_key_board(board) }
    }

    /// The squares matching a designator.
    pub fn squares(&self, d: Designator) -> Bitboard {
        let mut found = Bitboard::EMPTY;
        if d.pieces.has_empty() {
            found |= !(self.by_color.white | self.by_color.black);
        }
        for (color, role) in d.pieces.pieces() {
            found |= *self.by_role.get(role) & *self.by_color.get(color);
        }
        found & d.squares
    }

    fn board(&mut self) -> &VectorBoard {
        let (by_role, by_color) = (&self.by_role, &self.by_color);
        self.board.get_or_insert_with(|| VectorBoard::from_bitboards(by_role, by_color))
    }

    fn placement(&self) -> Placement<'_> {
        Placement { by_role: &self.by_role, by_color: &self.by_color, turn: self.turn }
    }

    fn checkers(&mut self) -> Bitboard {
        match self.checkers {
            Some(checkers) => checkers,
            None => {
                let checkers = match self.rules {
                    Rules::Atomic => self.placement().atomic_checkers(self.castling, self.ep_square),
                    // Kings are pieces like any other: no check.
                    Rules::Antichess => Bitboard::EMPTY,
                    _ => self.placement().checkers(),
                };
                *self.checkers.insert(checkers)
            }
        }
    }

    /// Whether the side to move has no legal move by the scene's rules, and whether the game
    /// ended by its variant's rule.
    fn stuck(&mut self) -> Stuck {
        if let Some(stuck) = self.stuck {
            return stuck;
        }
        let checkers = self.checkers();
        let placement = self.placement();
        *self.stuck.insert(match self.rules {
            Rules::Chess => {
                Stuck { no_move: placement.stuck(checkers, self.castling, self.ep_square), variant_end: false }
            }
            rules => placement.stuck_by(rules, self.castling, self.ep_square),
        })
    }

    pub(super) fn eval(&mut self, expr: &Expr) -> bool {
        match expr {
            Expr::Piece(d) => !self.squares(*d).is_empty(),
            Expr::Attacks(x, y) => {
                let (from, to) = (self.squares(*x) & self.occupied(), self.squares(*y));
                if from.is_empty() || to.is_empty() {
                    return false;
                }
                let board = self.board();
                from.into_iter().any(|a| to.into_iter().any(|b| board.attacks(a, b)))
            }
            Expr::Pin(x, y, z) => {
                let (xs, ys, zs) = (self.squares(*x), self.squares(*y), self.squares(*z));
                if xs.is_empty() || ys.is_empty() || zs.is_empty() || !self.may_pin(xs, ys, zs) {
                    return false;
                }
                let board = self.board();
                let mut any = false;
                for pinner in xs {
                    board.pins_from(pinner, |pin| any |= ys.contains(pin.pinned) && zs.contains(pin.behind));
                }
                any
            }
            Expr::Test(Test::ToMove(color)) => self.turn == *color,
            Expr::Test(Test::Check) => self.checkers().any(),
            Expr::Test(Test::DoubleCheck) => self.checkers().more_than_one(),
            // As shakmaty counts them: a check with no legal move is a mate (a third check, or a
            // check with the other king on the hill, included); a stalemate is no legal move
            // out of check in a game its variant's rule did not end.
            Expr::Test(Test::Mate) => self.checkers().any() && self.stuck().no_move,
            Expr::Test(Test::Stalemate) => {
                let stuck = self.stuck();
                self.checkers().is_empty() && stuck.no_move && !stuck.variant_end
            }
            Expr::Count(d, cmp, n) => cmp.holds(self.squares(*d).count() as u32, u32::from(*n)),
            Expr::Passed(d) => self.pawns(*d).any(|(sq, color)| {
                (self.enemy_pawns(color) & front_span(sq, color) & adjacent_files(sq, true)).is_empty()
            }),
            Expr::Isolated(d) => {
                self.pawns(*d).any(|(sq, color)| (self.own_pawns(color) & adjacent_files(sq, false)).is_empty())
            }
            Expr::Doubled(d) => self.pawns(*d).any(|(sq, color)| {
                !(self.own_pawns(color) & Bitboard::from_file(sq.file()) & !Bitboard::from(sq)).is_empty()
            }),
            Expr::And(a, b) => self.eval(a) && self.eval(b),
            Expr::Or(a, b) => self.eval(a) || self.eval(b),
            Expr::Not(a) => !self.eval(a),
        }
    }

    /// Whether a slider on `xs` stands on a line with a piece on `zs` and one piece between them,
    /// on `ys`: what a pin needs, in a few table lookups, before the vector board (which also
    /// checks the colours) is built.
    fn may_pin(&self, xs: Bitboard, ys: Bitboard, zs: Bitboard) -> bool {
        let (r, occupied) = (&self.by_role, self.occupied());
        xs.into_iter().any(|x| {
            let mut lines = Bitboard::EMPTY;
            if (r.rook | r.queen).contains(x) {
                lines |= rook_attacks(x, Bitboard::EMPTY);
            }
            if (r.bishop | r.queen).contains(x) {
                lines |= bishop_attacks(x, Bitboard::EMPTY);
            }
            (lines & zs).into_iter().any(|z| (between(x, z) & occupied).single_square().is_some_and(|y| ys.contains(y)))
        })
    }

    fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    fn own_pawns(&self, color: Color) -> Bitboard {
        self.by_role.pawn & *self.by_color.get(color)
    }

    fn enemy_pawns(&self, color: Color) -> Bitboard {
        self.own_pawns(!color)
    }

    /// The pawns matching a designator, with their colour.
    fn pawns(&self, d: Designator) -> impl Iterator<Item = (Square, Color)> + '_ {
        let squares = self.squares(d) & self.by_role.pawn;
        squares.into_iter().map(|sq| (sq, if self.by_color.white.contains(sq) { Color::White } else { Color::Black }))
    }
}

/// The squares ahead of a pawn (from its colour's side), on every file.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let rank = u32::from(sq.rank());
    match color {
        Color::White if rank < 7 => Bitboard(!0u64 << (8 * (rank + 1))),
        Color::Black if rank > 0 => Bitboard(!0u64 >> (8 * (8 - rank))),
        _ => Bitboard::EMPTY,
    }
}

/// The files beside a square's file (and the file itself when `own`).
fn adjacent_files(sq: Square, own: bool) -> Bitboard {
    let file = sq.file();
    let mut files = if own { Bitboard::from_file(file) } else { Bitboard::EMPTY };
    for side in [file.offset(-1), file.offset(1)].into_iter().flatten() {
        files |= Bitboard::from_file(side);
    }
    files
}
