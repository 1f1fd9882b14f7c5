//! Resolving a mainline's SAN moves: a direct path for the common case, shakmaty's
//! [`San::to_move`] for everything else.
//!
//! `San::to_move` builds a list of every legal candidate move and filters it, which made SAN
//! resolution the largest single cost of parsing a game. Most moves are simple: the side to move
//! is not in check, one piece of the named role can reach the target square, it is not pinned
//! (or moves along its pin), and it is not an en passant capture or castling. [`resolve`] finds
//! that move from attack sets and checks it the way shakmaty's move generator does; any other
//! case (check, castling, en passant, no candidate or several, a pinned piece, a wrong capture
//! or promotion mark) goes to `San::to_move`, so results and errors are shakmaty's.

use shakmaty::{
    Bitboard, Chess, Color, Move, Position as _, Rank, Role, Square, attacks,
    san::{San, SanError},
};

/// The legal move `san` names in `position`, as [`San::to_move`] finds it.
///
/// ```
/// use shakmaty::{Chess, san::San};
///
/// let position = Chess::default();
/// let san: San = "Nf3".parse()?;
/// assert_eq!(tabiya::input::resolve_san(&position, &san)?, san.to_move(&position)?);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn resolve(position: &Chess, san: &San) -> Result<Move, SanError> {
    match direct(position, san) {
        Some(m) => Ok(m),
        None => san.to_move(position),
    }
}

/// The move of the common case, or `None` to leave it to `San::to_move`.
fn direct(position: &Chess, san: &San) -> Option<Move> {
    let San::Normal { role, file, rank, capture, to, promotion } = *san else {
        return None;
    };
    let board = position.board();
    let us = position.turn();
    if position.us().contains(to) {
        return None;
    }
    let captured = board.role_at(to);
    // A pawn capturing onto an empty square is en passant (or illegal).
    if capture != captured.is_some() {
        return None;
    }
    let last_rank = match us {
        Color::White => Rank::Eighth,
        Color::Black => Rank::First,
    };
    let promotes = role == Role::Pawn && to.rank() == last_rank;
    let valid_promotion = match promotion {
        None => !promotes,
        Some(piece) => promotes && matches!(piece, Role::Knight | Role::Bishop | Role::Rook | Role::Queen),
    };
    if !valid_promotion {
        return None;
    }
    let king = board.king_of(us)?;
    if position.checkers().any() {
        return None;
    }
    let occupied = board.occupied();
    let reach = match role {
        Role::Knight => attacks::knight_attacks(to),
        Role::Bishop => attacks::bishop_attacks(to, occupied),
        Role::Rook => attacks::rook_attacks(to, occupied),
        Role::Queen => attacks::queen_attacks(to, occupied),
        Role::King => attacks::king_attacks(to),
        Role::Pawn if capture => attacks::pawn_attacks(!us, to),
        Role::Pawn => pawn_pushes_to(us, to, occupied),
    };
    let mut from_squares = reach & position.our(role);
    if let Some(file) = file {
        from_squares &= Bitboard::from_file(file);
    }
    if let Some(rank) = rank {
        from_squares &= Bitboard::from_rank(rank);
    }
    let from = from_squares.single_square()?;
    let safe = match role {
        // Not in check, so no slider's ray runs through the king to a square behind it.
        Role::King => board.attacks_to(to, !us, occupied).is_empty(),
        _ => !pinned(position, king).contains(from) || attacks::aligned(from, to, king),
    };
    safe.then_some(Move::Normal { role, from, capture: captured, to, promotion })
}

/// The squares a pawn of `us` would push from to reach the empty square `to`: one square back,
/// or two from its start rank over an empty square.
fn pawn_pushes_to(us: Color, to: Square, occupied: Bitboard) -> Bitboard {
    let (back, double_rank) = match us {
        Color::White => (-8, Rank::Fourth),
        Color::Black => (8, Rank::Fifth),
    };
    let Some(one) = to.offset(back) else { return Bitboard::EMPTY };
    if occupied.contains(one) {
        return Bitboard::from_square(one);
    }
    match (to.rank() == double_rank).then(|| one.offset(back)).flatten() {
        Some(two) => Bitboard::from_square(two),
        None => Bitboard::EMPTY,
    }
}

/// Pieces alone between the king and an enemy slider aiming at it (shakmaty's slider
/// blockers: a piece of ours there moves only along that line).
fn pinned(position: &Chess, king: Square) -> Bitboard {
    let board = position.board();
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers & position.them() {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, File, Position as _, fen::Fen};

    use super::*;

    /// Positions from the perft suite's start positions, each followed by seeded random
    /// playouts: checks, pins, promotions and en passant all occur.
    fn positions() -> Vec<Chess> {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut out = Vec::new();
        for fen in fens {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            for _ in 0..16 {
                let mut position = start.clone();
                for _ in 0..120 {
                    out.push(position.clone());
                    let moves = position.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    position.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        out
    }

    /// Every way a SAN move could name a move with `role` onto `to`: with and without file and
    /// rank hints, capture marks and promotions.
    fn variants(role: Role, to: Square) -> Vec<San> {
        let mut out = Vec::new();
        let files = std::iter::once(None).chain(File::ALL.into_iter().map(Some));
        for file in files {
            for rank in std::iter::once(None).chain(Rank::ALL.into_iter().map(Some)) {
                if file.is_some() && rank.is_some() && (file, rank) != (Some(File::A), Some(Rank::First)) {
                    continue;
                }
                for capture in [false, true] {
                    for promotion in [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King)] {
                        out.push(San::Normal { role, file, rank, capture, to, promotion });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn resolves_every_san_as_shakmaty_does() {
        let positions = positions();
        assert!(positions.len() > 5_000, "{}", positions.len());
        let (mut written, mut written_direct) = (0, 0);
        for position in &positions {
            // The SAN of every legal move, as written and with every hint.
            let mut sans: Vec<San> = position.legal_moves().iter().map(|&m| San::from_move(position, m)).collect();
            written += sans.len();
            written_direct += sans.iter().filter(|san| direct(position, san).is_some()).count();
            for m in position.legal_moves() {
                sans.push(San::Normal {
                    role: m.role(),
                    file: m.from().map(Square::file),
                    rank: m.from().map(Square::rank),
                    capture: m.is_capture(),
                    to: m.to(),
                    promotion: m.promotion(),
                });
            }
            // And wrong ones: every role and mark onto a few squares.
            for to in [Square::E4, Square::D5, Square::A8, Square::H1, Square::C6] {
                for role in Role::ALL {
                    sans.extend(variants(role, to));
                }
            }
            for san in &sans {
                let expected = san.to_move(position);
                let got = resolve(position, san);
                assert_eq!(got, expected, "{san} in {}", Fen::from_position(position, shakmaty::EnPassantMode::Legal));
                if let Some(m) = direct(position, san) {
                    assert_eq!(Ok(m), expected, "{san}");
                }
            }
        }
        // The direct path takes most moves as written.
        assert!(written_direct * 2 > written, "{written_direct} of {written}");
    }
}
