use shakmaty::{Board, CastlingMode, Chess, Color, Piece, Role, Square, fen::Fen};

use super::*;
use crate::Material;

fn scene(fen: &str) -> Scene {
    let fen: Fen = fen.parse().expect("fen");
    let chess: Chess = fen.into_position(CastlingMode::Standard).expect("legal");
    Scene::of_chess(&chess)
}

fn holds(pattern: &str, fen: &str) -> bool {
    pattern.parse::<Pattern>().expect(pattern).matches(&mut scene(fen))
}

const RUY: &str = "r1bqkbnr/1pp2ppp/p1np4/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5";

#[test]
fn designators() {
    assert!(holds("Ke1", RUY));
    assert!(!holds("Ke2", RUY));
    assert!(holds("Pa-h2", RUY));
    assert!(holds("pa-h6", RUY));
    assert!(holds("pa6", RUY) && holds("p[a6,h1]", RUY));
    assert!(holds("Nf1-8 and not Na-h4", RUY) && !holds("Ne1-8", RUY));
    assert!(holds("[Qq]d1-8", RUY));
    assert!(holds("_e2", RUY) && !holds("_e4", RUY));
    assert!(holds("Aa4", RUY) && !holds("aa4", RUY));
    assert!(holds("Ba-d1-4", RUY));
}

#[test]
fn tests_of_the_whole_position() {
    assert!(holds("wtm", RUY) && !holds("btm", RUY));
    assert!(holds("pin(B, n, k)", RUY));
    assert!(holds("pin(Ba4, nc6, ke8)", RUY));
    assert!(!holds("pin(B, n, q)", RUY));
    assert!(holds("attacks(B, n)", RUY));
    assert!(holds("attacks(N, pe5)", RUY));
    assert!(!holds("check", RUY));
    // Scholar's mate.
    let mate = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4";
    assert!(holds("check and mate and not stalemate", mate));
    assert!(!holds("doublecheck", mate));
    // Double check: knight and rook.
    let double = "4k3/8/3N4/8/8/8/8/4R1K1 b - - 0 1";
    assert!(holds("doublecheck", double));
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    assert!(holds("stalemate and not check and not mate", stalemate));
    assert!(holds("count(P) = 8 and count(A) >= 16 and count(_) == 32", RUY));
    assert!(!holds("count(P) = 7", RUY));
    assert!(holds("count(p) == 8 and count(a) >= 16 and count(_) < 33 and count(p[a-h7]) = 5", RUY));
    assert!(holds("count(N) != 1 and count(N) <= 2 and count(N) > 1", RUY));
}

#[test]
fn pawn_structure() {
    let fen = "4k3/p7/8/2P5/8/4P3/4P3/4K3 w - - 0 1";
    assert!(holds("passed(Pc5)", fen));
    assert!(holds("passed(p)", fen), "a7 has no white pawn ahead on a/b files");
    assert!(holds("isolated(Pc5)", fen));
    assert!(holds("doubled(Pe1-8)", fen) && !holds("doubled(Pc5)", fen));
    assert!(holds("isolated(Pe3) and isolated(Pe2)", fen), "no pawns on the d and f files");
}

#[test]
fn flip_colours() {
    let fen = "4k3/8/8/8/8/8/p7/4K3 b - - 0 1";
    let pawn_on_seventh: Pattern = "Pa-h7 and wtm".parse().expect("pattern");
    assert!(!pawn_on_seventh.matches(&mut scene(fen)));
    assert!(pawn_on_seventh.with_flip(true).matches(&mut scene(fen)));
}

#[test]
fn material_needs() {
    let need = |text: &str| text.parse::<Pattern>().expect(text).material_need();
    let krp: Material = {
        let mut m =
            Material(shakmaty::ByColor::new_with(|_| shakmaty::ByRole { king: 1, rook: 1, ..Default::default() }));
        m.0.white.pawn = 1;
        m
    };
    assert!(need("R and Pa-h7").admits(&krp));
    assert!(!need("Q").admits(&krp));
    assert!(!need("count(P) >= 2").admits(&krp));
    assert!(need("count(P) = 1 and count(r) = 1").admits(&krp));
    assert!(!need("count(P) < 1").admits(&krp));
    assert!(need("Q or R").admits(&krp) && !need("Q and R").admits(&krp));
    assert!(need("not Q").is_any());
    assert!(!need("doubled(P)").admits(&krp));
    // Whole sides: K, R and P for White (3 pieces), K and R for Black (2).
    assert!(need("count(A) = 3 and count(a) <= 2").admits(&krp));
    assert!(!need("count(A) = 16").admits(&krp) && !need("count(a) > 2").admits(&krp));
    assert!(need("count(A) = 16 or count(a) = 2").admits(&krp));
    assert!(need("count([QR]) = 5").is_any(), "mixed sets imply nothing");
}

#[test]
fn malformed_patterns_name_the_column() {
    let error = |text: &str| text.parse::<Pattern>().expect_err(text);
    assert_eq!(error("").column, 1);
    assert_eq!(error("Ke9").column, 3);
    assert_eq!(error("Kz1").column, 2);
    assert_eq!(error("attacks(Q, k").column, 13);
    assert_eq!(error("attacks(Q)").column, 10);
    assert_eq!(error("count(P) ~ 3").column, 10);
    assert_eq!(error("count(P) = 99").column, 12);
    assert_eq!(error("Ke1 and").column, 8);
    assert_eq!(error("Ke1 Ke2").column, 5);
    assert_eq!(error("(Ke1").column, 5);
    assert_eq!(error("[]e4").column, 2);
    assert_eq!(error("Xe4").column, 1);
    assert_eq!(error("and").column, 1);
    assert!(error("pin(B, n)").message.contains("','"));
    assert!(error(&"(".repeat(100)).message.contains("nested"));
    assert!(error(&"K or ".repeat(500)).message.contains("longer"));
    // Every prefix of a valid pattern parses or fails cleanly.
    let full = "pin(B[a4,b5], n, [kq]) and count(P) >= 3 or not (check and Pa-h7)";
    for end in 0..=full.len() {
        let _ = full[..end].parse::<Pattern>();
    }
}

/// A random sparse board: two kings and up to five pieces of `roles`, pawns off the back
/// ranks, and a random side to move (`next(n)` draws below n).
fn random_sparse_board(roles: &[Role], next: &mut dyn FnMut(u64) -> u64) -> (Board, Color) {
    let mut board = Board::empty();
    let place = |board: &mut Board, piece: Piece, next: &mut dyn FnMut(u64) -> u64| loop {
        let sq = Square::new(next(64) as u32);
        let pawn_on_back_rank = piece.role == Role::Pawn && matches!(u32::from(sq.rank()), 0 | 7);
        if board.piece_at(sq).is_none() && !pawn_on_back_rank {
            board.set_piece_at(sq, piece);
            break;
        }
    };
    place(&mut board, Color::White.king(), next);
    place(&mut board, Color::Black.king(), next);
    for _ in 0..next(6) {
        let color = if next(2) == 0 { Color::White } else { Color::Black };
        place(&mut board, Piece { color, role: roles[next(roles.len() as u64) as usize] }, next);
    }
    let turn = if next(2) == 0 { Color::White } else { Color::Black };
    (board, turn)
}

/// `check`, `doublecheck`, `mate` and `stalemate` against shakmaty's own checkers and legal
/// moves, on every position of random games and on random sparse boards (where kings are
/// boxed in, pieces pinned, and mates and stalemates are common).
#[test]
fn checks_and_stuck_positions_agree_with_shakmaty() {
    use shakmaty::{Position as _, Setup};

    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let patterns: Vec<Pattern> =
        ["check", "doublecheck", "mate", "stalemate"].iter().map(|p| p.parse().expect(p)).collect();
    let (mut positions, mut mates, mut stalemates) = (0, 0, 0);
    let mut compare = |chess: &Chess| {
        let stuck = chess.legal_moves().is_empty();
        let checkers = chess.checkers().count();
        let want = [checkers >= 1, checkers >= 2, checkers >= 1 && stuck, checkers == 0 && stuck];
        for (pattern, want) in patterns.iter().zip(want) {
            let fen = Fen::from_position(chess, shakmaty::EnPassantMode::Legal);
            assert_eq!(pattern.matches(&mut Scene::of_chess(chess)), want, "{pattern:?} on {fen}");
        }
        positions += 1;
        mates += usize::from(want[2]);
        stalemates += usize::from(want[3]);
    };
    // Random games: en passant, castling, promotions, every phase.
    for _ in 0..300 {
        let mut chess = Chess::default();
        for _ in 0..300 {
            compare(&chess);
            let moves = chess.legal_moves();
            if moves.is_empty() {
                break;
            }
            chess.play_unchecked(moves[next(moves.len() as u64) as usize]);
        }
    }
    // Random sparse boards: two kings and up to five other pieces, pawns off the back ranks.
    let roles = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
    for _ in 0..200_000 {
        let (board, turn) = random_sparse_board(&roles, &mut next);
        let setup = Setup { board, turn, ..Setup::empty() };
        if let Ok(chess) = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard) {
            compare(&chess);
        }
    }
    assert!(positions > 100_000 && mates > 100 && stalemates > 100, "{positions} {mates} {stalemates}");
}

/// `mate` and `stalemate` by each lichess variant's rules against shakmaty's variant positions,
/// on random sparse boards valid in the variant (Three-check's with random checks given), from
/// the position and from its key's board: a Racing Kings board whose only moves would check is
/// a stalemate, a third check is a mate, a game won on the hill is neither a stalemate nor
/// open.
#[test]
fn variant_mates_and_stalemates_agree_with_shakmaty() {
    use shakmaty::{ByColor, Position as _, RemainingChecks, Setup, variant::VariantPosition};

    use crate::{Key, Position, position::Variant};

    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let (mate, stalemate, check): (Pattern, Pattern, Pattern) =
        ("mate".parse().expect("mate"), "stalemate".parse().expect("stalemate"), "check".parse().expect("check"));
    for variant in
        [Variant::KingOfTheHill, Variant::ThreeCheck, Variant::RacingKings, Variant::Atomic, Variant::Antichess]
    {
        let lichess = variant.lichess().expect("a lichess variant");
        let (mut positions, mut mates, mut stalemates, mut only_checks) = (0, 0, 0, 0);
        for _ in 0..150_000 {
            let roles: &[Role] = match variant {
                Variant::RacingKings => &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight],
                _ => &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn],
            };
            let (mut board, turn) = random_sparse_board(roles, &mut next);
            // Antichess's kings are pieces: taken (a side with blocked pawns only is stalemated,
            // and wins) or promoted to.
            if variant == Variant::Antichess {
                for color in Color::ALL {
                    match next(3) {
                        0 => board.discard_piece_at(board.king_of(color).expect("a king")),
                        1 => {
                            let square = Square::new(next(64) as u32);
                            board.piece_at(square).is_none().then(|| board.set_piece_at(square, color.king()));
                        }
                        _ => {}
                    }
                    if next(2) == 0 {
                        // Pawns in front of each other, blocked.
                        let file = shakmaty::File::new(next(8) as u32);
                        let (ours, theirs) = (
                            Square::from_coords(file, shakmaty::Rank::Fourth),
                            Square::from_coords(file, shakmaty::Rank::Fifth),
                        );
                        if board.piece_at(ours).is_none() && board.piece_at(theirs).is_none() {
                            let (low, high) = if color == Color::White { (ours, theirs) } else { (theirs, ours) };
                            board.set_piece_at(low, color.pawn());
                            board.set_piece_at(high, (!color).pawn());
                        }
                    }
                }
            }
            let left = |n: u64| RemainingChecks::try_from(n as u32).expect("at most 3");
            let remaining_checks =
                (variant == Variant::ThreeCheck)
                    .then(|| ByColor { white: left(1 + next(3)), black: left(next(4)) })
                    .map(|checks| {
                        if turn == Color::White { checks } else { ByColor { white: checks.black, black: checks.white } }
                    });
            let setup = Setup { board, turn, remaining_checks, ..Setup::empty() };
            let Ok(position) = Position::from_setup_in(variant, setup.clone(), "a random board") else { continue };
            let oracle = VariantPosition::from_setup(lichess, setup, CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_impossible_check)
                .expect("valid in the variant");
            let key = Key::encode(&position).expect("a key");
            let key_board = key.decode_board(|_, _| true).expect("a board").expect("accepted");
            let tests =
                [(&mate, oracle.is_checkmate()), (&stalemate, oracle.is_stalemate()), (&check, oracle.is_check())];
            for (pattern, want) in tests {
                assert_eq!(pattern.matches(&mut Scene::of_position(&position)), want, "{pattern:?} on {position}");
                assert_eq!(pattern.matches(&mut Scene::of_key(&key, &key_board)), want, "{pattern:?} on {key}");
            }
            positions += 1;
            mates += usize::from(oracle.is_checkmate());
            stalemates += usize::from(oracle.is_stalemate());
            only_checks += usize::from(
                oracle.is_stalemate() && position.standard_chess().is_some_and(|chess| !chess.legal_moves().is_empty()),
            );
        }
        assert!(positions > 10_000 && mates + stalemates > 30, "{variant}: {positions} {mates} {stalemates}");
        assert!(variant != Variant::KingOfTheHill || only_checks == 0, "{only_checks}");
    }
    // Racing Kings' stalemates whose every move would check (random boards seldom make one): a
    // discovered check by a king's step, a knight's or rook's check. Standard chess has moves.
    for fen in [
        "b7/1k6/8/3K4/8/8/8/N7 b - - 0 1",
        "2Q4n/k7/5R2/4K3/N7/8/8/8 b - - 0 1",
        "5q2/7K/8/8/5n2/6k1/5b2/5rB1 w - - 0 1",
    ] {
        let racing = Variant::RacingKings.parse_fen(fen).expect("a Racing Kings position");
        let key = Key::encode(&racing).expect("a key");
        let key_board = key.decode_board(|_, _| true).expect("a board").expect("accepted");
        assert!(stalemate.matches(&mut Scene::of_position(&racing)), "{fen}");
        assert!(stalemate.matches(&mut Scene::of_key(&key, &key_board)), "{fen}");
        assert!(!holds("stalemate", fen), "{fen} is no stalemate in standard chess");
    }
}
