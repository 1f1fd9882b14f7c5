//! Pattern search checked against an independent computation: a generated collection of random
//! games (checks, captures, promotions, mates, shared openings) is ingested, and each pattern's
//! positions, games and results are compared with a naive replay that evaluates the same
//! question with shakmaty's bitboard attacks on every ply.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::games::{build, generate, positions};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position as _, Role, Square, attacks,
};
use tabiya::{
    explore::{Filter, GameSource, MAX_HITS, PatternQuery, Signature},
    model::GameId,
    pattern::Pattern,
};

// The naive predicates: shakmaty's magic-bitboard attacks, one piece at a time.

fn pieces(chess: &Chess, keep: impl Fn(Piece, Square) -> bool) -> Vec<(Square, Piece)> {
    chess.board().iter().filter(|&(sq, piece)| keep(piece, sq)).collect()
}

fn is(color: Color, role: Role) -> impl Fn(Piece, Square) -> bool {
    move |piece, _| piece.color == color && piece.role == role
}

fn any_of(color: Color) -> impl Fn(Piece, Square) -> bool {
    move |piece, _| piece.color == color
}

fn naive_pin(
    chess: &Chess,
    pinner: impl Fn(Piece, Square) -> bool,
    pinned: impl Fn(Piece, Square) -> bool,
    behind: impl Fn(Piece, Square) -> bool,
) -> bool {
    let occupied = chess.board().occupied();
    for (s, p) in pieces(chess, pinner) {
        let slides = |to: Square| match p.role {
            Role::Bishop => attacks::bishop_attacks(s, Bitboard::EMPTY).contains(to),
            Role::Rook => attacks::rook_attacks(s, Bitboard::EMPTY).contains(to),
            Role::Queen => attacks::queen_attacks(s, Bitboard::EMPTY).contains(to),
            _ => false,
        };
        for (y, py) in pieces(chess, |piece, sq| piece.color != p.color && pinned(piece, sq)) {
            for (z, _) in pieces(chess, |piece, sq| piece.color == py.color && behind(piece, sq)) {
                if slides(z) && attacks::between(s, z) & occupied == Bitboard::from(y) {
                    return true;
                }
            }
        }
    }
    false
}

fn naive_attacks(chess: &Chess, from: impl Fn(Piece, Square) -> bool, to: Bitboard) -> bool {
    pieces(chess, from).iter().any(|&(sq, _)| !(chess.board().attacks_from(sq) & to).is_empty())
}

fn squares(chess: &Chess, color: Color, role: Role) -> Bitboard {
    chess.board().by_piece(Piece { color, role })
}

fn passed(chess: &Chess, color: Color) -> bool {
    squares(chess, color, Role::Pawn).into_iter().any(|sq| {
        squares(chess, !color, Role::Pawn).into_iter().all(|enemy| {
            let ahead = match color {
                Color::White => enemy.rank() > sq.rank(),
                Color::Black => enemy.rank() < sq.rank(),
            };
            !(ahead && (i32::from(enemy.file()) - i32::from(sq.file())).abs() <= 1)
        })
    })
}

fn isolated(chess: &Chess, color: Color) -> bool {
    let pawns = squares(chess, color, Role::Pawn);
    pawns
        .into_iter()
        .any(|sq| pawns.into_iter().all(|other| (i32::from(other.file()) - i32::from(sq.file())).abs() != 1))
}

fn doubled(chess: &Chess, color: Color) -> bool {
    let pawns = squares(chess, color, Role::Pawn);
    pawns.into_iter().any(|sq| pawns.into_iter().any(|other| other != sq && other.file() == sq.file()))
}

fn count(chess: &Chess, color: Color, role: Role) -> usize {
    squares(chess, color, role).count()
}

fn mirrored(chess: &Chess) -> Chess {
    let mut setup = chess.to_setup(EnPassantMode::Legal);
    setup.mirror();
    Chess::from_setup(setup, CastlingMode::Standard).expect("a mirrored legal position is legal")
}

fn material_is(chess: &Chess, white: &[Role], black: &[Role]) -> bool {
    let counts = |color: Color, allowed: &[Role]| {
        let pieces = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        pieces.into_iter().all(|role| count(chess, color, role) == usize::from(allowed.contains(&role)))
    };
    counts(Color::White, white) && counts(Color::Black, black)
}

type Naive = fn(&Chess) -> bool;
/// A pattern, whether colours are flipped, a material signature, a side to move, and the same
/// question asked naively.
type Case = (&'static str, bool, Option<&'static str>, Option<Color>, Naive);

/// (pattern, flip colours, material signature, side, the naive question).
fn cases() -> Vec<Case> {
    use Color::{Black, White};
    vec![
        ("pin(B, n, k)", false, None, None, |c| {
            naive_pin(c, is(White, Role::Bishop), is(Black, Role::Knight), is(Black, Role::King))
        }),
        ("pin(Q, a, A) or pin(r, A, A)", false, None, None, |c| {
            naive_pin(c, is(White, Role::Queen), any_of(Black), any_of(White))
                || naive_pin(c, is(Black, Role::Rook), any_of(White), any_of(White))
        }),
        ("pin([BRQbrq], A, K) and not check", false, None, None, |c| {
            !c.is_check() && naive_pin(c, |p, _| p.role != Role::Pawn, any_of(White), is(White, Role::King))
        }),
        ("check", false, None, None, |c| c.is_check()),
        ("doublecheck", false, None, None, |c| c.checkers().count() >= 2),
        ("mate", false, None, None, |c| c.is_checkmate()),
        ("stalemate", false, None, None, |c| c.is_stalemate()),
        ("Pa-h7 and btm", false, None, None, |c| {
            c.turn() == Black
                && !(squares(c, White, Role::Pawn) & Bitboard::from_rank(shakmaty::Rank::Seventh)).is_empty()
        }),
        ("attacks(N, q) or attacks(n, Q)", false, None, None, |c| {
            naive_attacks(c, is(White, Role::Knight), squares(c, Black, Role::Queen))
                || naive_attacks(c, is(Black, Role::Knight), squares(c, White, Role::Queen))
        }),
        ("attacks(K, _e1-8)", false, None, None, |c| {
            naive_attacks(c, is(White, Role::King), !c.board().occupied() & Bitboard::from_file(shakmaty::File::E))
        }),
        ("count(P) >= 6 and count(p) < 5", false, None, None, |c| {
            count(c, White, Role::Pawn) >= 6 && count(c, Black, Role::Pawn) < 5
        }),
        ("count(A) <= 6 and count(a) >= 7", false, None, None, |c| {
            c.board().by_color(White).count() <= 6 && c.board().by_color(Black).count() >= 7
        }),
        ("passed(P) and not isolated(p)", false, None, None, |c| passed(c, White) && !isolated(c, Black)),
        ("doubled(p) or doubled(P)", false, None, None, |c| doubled(c, Black) || doubled(c, White)),
        ("[Qq]d1-8 and _e4", false, None, None, |c| {
            let queens = c.board().queens() & Bitboard::from_file(shakmaty::File::D);
            !queens.is_empty() && !c.board().occupied().contains(Square::E4)
        }),
        ("Pa-h7 and wtm", true, None, None, |c| {
            let seventh = |c: &Chess| {
                c.turn() == White
                    && !(squares(c, White, Role::Pawn) & Bitboard::from_rank(shakmaty::Rank::Seventh)).is_empty()
            };
            seventh(c) || seventh(&mirrored(c))
        }),
        ("R and r", false, Some("KRP*vKRP*"), None, |c| material_is(c, &[Role::Rook], &[Role::Rook])),
        ("A", false, None, Some(Black), |c| c.turn() == Black),
        ("not (check or Ke1)", false, Some("KQRRBBNNP*vKQRRBBNNP*"), Some(White), |c| {
            let full = |color| {
                [(Role::Queen, 1), (Role::Rook, 2), (Role::Bishop, 2), (Role::Knight, 2)]
                    .into_iter()
                    .all(|(role, n)| count(c, color, role) == n)
            };
            c.turn() == White
                && !c.is_check()
                && c.board().king_of(White) != Some(Square::E1)
                && full(White)
                && full(Black)
        }),
    ]
}

#[test]
fn patterns_match_a_naive_replay() {
    let games = generate(300);
    let (_dir, store) = build(&games);
    // Stored id → generated index, through the Round tag.
    let mut index_of = BTreeMap::new();
    for id in 1..=games.len() as u64 {
        let record = store.snapshot().games().get(GameId(id)).unwrap().unwrap();
        index_of.insert(GameId(id), record.tags.round.parse::<usize>().unwrap() - 1);
    }
    let all = positions(&games);
    let mut matched_something = 0;
    for (text, flip, material, side, naive) in cases() {
        let expected: BTreeMap<&String, &BTreeSet<usize>> =
            all.iter().filter(|(_, (chess, _))| naive(chess)).map(|(epd, (_, ids))| (epd, ids)).collect();
        let query = PatternQuery {
            pattern: text.parse::<Pattern>().unwrap().with_flip(flip),
            material: material.map(|m| m.parse::<Signature>().unwrap()),
            side,
            limit: MAX_HITS,
            filter: Filter::default(),
            variant: Default::default(),
        };
        let found = query.run(&store).unwrap();
        let found_fens: BTreeSet<&String> = found.hits.iter().map(|hit| &hit.fen).collect();
        let extra: Vec<_> = found_fens.iter().filter(|fen| !expected.contains_key(**fen)).take(3).collect();
        assert!(extra.is_empty(), "{text}: found but not expected {extra:?}");
        assert_eq!(found.positions, expected.len() as u64, "{text}");
        assert_eq!(found.hits.len(), expected.len().min(MAX_HITS), "{text}");
        for hit in &found.hits {
            assert_eq!(hit.games, expected[&hit.fen].len() as u64, "{text}: {}", hit.fen);
        }
        // Most frequent first: no position left out has more games than one listed.
        assert!(found.hits.windows(2).all(|w| w[0].games >= w[1].games), "{text}");
        let least_listed = found.hits.last().map_or(0, |hit| hit.games);
        let most_left_out =
            expected.iter().filter(|(fen, _)| !found_fens.contains(*fen)).map(|(_, ids)| ids.len() as u64).max();
        assert!(most_left_out.is_none_or(|n| n <= least_listed), "{text}: top hits");
        let occurrences: usize = expected.values().map(|ids| ids.len()).sum();
        assert_eq!(found.occurrences, occurrences as u64, "{text}");
        let game_set: BTreeSet<usize> = expected.values().flat_map(|ids| ids.iter().copied()).collect();
        let found_games: BTreeSet<usize> = found.game_ids.iter().map(|id| index_of[id]).collect();
        assert_eq!(found_games, game_set, "{text}: games");
        assert_eq!(found.games, game_set.len() as u64);
        let result = |r: &str| game_set.iter().filter(|&&i| games[i].result == r).count() as u64;
        assert_eq!(
            (found.white, found.draws, found.black),
            (result("1-0"), result("1/2-1/2"), result("0-1")),
            "{text}"
        );
        // With few hits listed, the tier's matches (one game each) are counted without keys
        // when the full-key positions fill the list: the same counts, games and leading hits.
        let few = PatternQuery { limit: 3, ..query.clone() }.run(&store).unwrap();
        let counts = |s: &tabiya::explore::PatternSearch| {
            (s.positions, s.occurrences, s.games, s.white, s.draws, s.black, s.scanned, s.game_ids.clone())
        };
        assert_eq!(counts(&few), counts(&found), "{text}: limit 3");
        let fens = |s: &tabiya::explore::PatternSearch| s.hits.iter().map(|h| h.fen.clone()).collect::<Vec<_>>();
        assert_eq!(fens(&few), fens(&found)[..found.hits.len().min(3)], "{text}: limit 3");
        // Every position is evaluated once, however many games reach it.
        if material.is_none() && query.pattern.material_need().is_any() {
            assert_eq!(found.scanned, all.len() as u64, "{text}");
        }
        // The same games through the game list.
        let list = common::every_game(GameSource::Pattern(Box::new(query.clone()))).run(&store).unwrap();
        assert_eq!(list.total, game_set.len() as u64);
        matched_something += usize::from(!expected.is_empty() && expected.len() < all.len() / 2);
    }
    // The collection exercises the patterns: most match some but not most positions.
    assert!(matched_something >= 15, "{matched_something} patterns matched a proper subset");
}

#[test]
fn the_material_a_pattern_implies_prunes_the_scan() {
    let (_dir, store) = build(&generate(60));
    let run = |text: &str| {
        PatternQuery {
            pattern: text.parse().unwrap(),
            material: None,
            side: None,
            limit: 5,
            filter: Filter::default(),
            variant: Default::default(),
        }
        .run(&store)
        .unwrap()
    };
    let all = run("wtm or btm");
    let rich = run("count(Q) = 1 and count(q) = 1 and count(P) = 8 and wtm");
    assert_eq!(all.positions, all.scanned);
    assert!(rich.scanned < all.scanned / 2, "{} of {}", rich.scanned, all.scanned);
    assert!(rich.positions > 0);
}

#[test]
fn a_stopped_scan_says_so() {
    use std::sync::atomic::Ordering;
    use tabiya::{explore::QueryError, store::ScanProgress};

    let (_dir, store) = build(&generate(200));
    let query = PatternQuery {
        pattern: "check".parse().unwrap(),
        material: None,
        side: None,
        limit: 5,
        filter: Filter::default(),
        variant: Default::default(),
    };
    let progress = ScanProgress::default();
    progress.stop.store(true, Ordering::Relaxed);
    match query.run_with(&store, &progress) {
        Err(QueryError::Input(message)) => assert_eq!(message, "search interrupted"),
        other => panic!("{other:?}"),
    }
    let done = ScanProgress::default();
    let found = query.run_with(&store, &done).unwrap();
    assert_eq!(done.passed.load(Ordering::Relaxed), found.scanned, "every position counted once");
}

#[test]
fn a_search_spread_over_parts_answers_as_one_search() {
    use tabiya::explore::{PatternPartial, distributed::from_bytes};

    let (_dir, store) = build(&generate(300));
    for (text, material) in
        [("check", None), ("wtm or btm", None), ("pin(B, n, k)", None), ("wtm", Some("KQRRBBNNP*vKQRRBBNNP*"))]
    {
        let query = PatternQuery {
            pattern: text.parse().unwrap(),
            material: material.map(|m: &str| m.parse::<Signature>().unwrap()),
            side: None,
            limit: 7,
            filter: Filter::default(),
            variant: Default::default(),
        };
        let whole = query.run(&store).unwrap();
        let spread = common::spread(&query, &store);
        let json = |search: &tabiya::explore::PatternSearch| {
            let mut value = serde_json::to_value(search).unwrap();
            value.as_object_mut().unwrap().remove("elapsedMs");
            value
        };
        assert_eq!(json(&spread), json(&whole), "{text}");
        assert_eq!(spread.game_ids, whole.game_ids, "{text}");
        assert!(whole.positions > 0, "{text}");
    }
    assert!(from_bytes::<PatternPartial>(b"not a partial").is_none());
}
