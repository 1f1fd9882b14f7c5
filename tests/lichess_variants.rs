//! Games of lichess's variants on a standard board (King of the Hill, Three-check, Racing
//! Kings, Atomic, Antichess) ingested, against a naive replay: random games played by shakmaty's variant
//! positions to their end or a random length, their `Variant` tags in the spellings files carry,
//! some from a `FEN` (Three-check's with checks already given), in two ingest runs; standard
//! games with the very moves of the King of the Hill and Three-check games. The replay counts
//! every position's games and results and every next move from the moves as generated (not as
//! any reader reads them): every position must answer the same under its variant, and every
//! standard one must count standard games only.

use std::collections::{BTreeMap, HashMap};

use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Move, Position as _,
    fen::{Epd, Fen},
    san::San,
    variant::{Variant as Rules, VariantPosition},
};
use tabiya::{
    explore::{Filter, FilteredStats, Target},
    indexer,
    position::Variant,
    store::Store,
};

use crate::common::{Lcg, server};

const RESULTS: [&str; 3] = ["1-0", "1/2-1/2", "0-1"];

/// A generated game.
struct Game {
    variant: Variant,
    start: VariantPosition,
    /// The `FEN` tag, `None` for a game from the variant's start without one.
    fen: Option<String>,
    /// The `Variant` tag, `None` for a standard game.
    tag: Option<&'static str>,
    moves: Vec<Move>,
    result: usize,
}

impl Game {
    fn pgn(&self, round: usize) -> String {
        let mut out = format!(
            "[Event \"Generated\"]\n[Round \"{round}\"]\n[White \"Player, White {round}\"]\n[Black \"Player, Black {round}\"]\n"
        );
        out += &format!("[Result \"{}\"]\n", RESULTS[self.result]);
        if let Some(tag) = self.tag {
            out += &format!("[Variant \"{tag}\"]\n");
        }
        if let Some(fen) = &self.fen {
            out += &format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n");
        }
        out.push('\n');
        let mut position = self.start.clone();
        for m in &self.moves {
            if position.turn() == Color::White {
                out += &format!("{}. ", position.fullmoves());
            }
            out += &format!("{} ", San::from_move(&position, *m));
            position.play_unchecked(*m);
        }
        out + RESULTS[self.result] + "\n\n"
    }
}

fn rules(variant: Variant) -> Rules {
    match variant {
        Variant::KingOfTheHill => Rules::KingOfTheHill,
        Variant::ThreeCheck => Rules::ThreeCheck,
        Variant::RacingKings => Rules::RacingKings,
        Variant::Atomic => Rules::Atomic,
        Variant::Antichess => Rules::Antichess,
        _ => Rules::Chess,
    }
}

/// Random legal moves from `start` by its rules, to the game's end (checks are preferred, so
/// that Three-check's counters move) or a random length.
fn random_moves(start: &VariantPosition, rng: &mut Lcg) -> Vec<Move> {
    let mut position = start.clone();
    let mut moves = Vec::new();
    for _ in 0..20 + rng.next(100) {
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        let checks: Vec<Move> =
            legal.iter().copied().filter(|m| position.clone().play(*m).is_ok_and(|after| after.is_check())).collect();
        let m = match checks.is_empty() || rng.next(3) > 0 {
            true => legal[rng.index(legal.len())],
            false => checks[rng.index(checks.len())],
        };
        position.play_unchecked(m);
        moves.push(m);
    }
    moves
}

fn generate(per_variant: usize) -> Vec<Game> {
    let mut rng = Lcg(0x11c4e55);
    let spellings: [(Variant, [&str; 3]); 5] = [
        (Variant::KingOfTheHill, ["King of the Hill", "kingOfTheHill", "KOTH"]),
        (Variant::ThreeCheck, ["Three-check", "threeCheck", "3check"]),
        (Variant::RacingKings, ["Racing Kings", "racingKings", "racing_kings"]),
        (Variant::Atomic, ["Atomic", "atomic", "ATOMIC"]),
        (Variant::Antichess, ["Antichess", "antichess", "ANTICHESS"]),
    ];
    let mut games = Vec::new();
    for (variant, tags) in spellings {
        for index in 0..per_variant {
            let mut start = VariantPosition::new(rules(variant));
            let mut fen = None;
            match (variant, index % 4) {
                // Two checks given by White, one by Black, before the game.
                (Variant::ThreeCheck, 1) => {
                    let text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1+2 0 1";
                    let setup = Fen::from_ascii(text.as_bytes()).expect("a FEN").into_setup();
                    start =
                        VariantPosition::from_setup(Rules::ThreeCheck, setup, CastlingMode::Standard).expect("legal");
                    fen = Some(text.to_owned());
                }
                // The variant's own start, written out.
                (_, 2) => fen = Some(Fen::from_position(&start, EnPassantMode::Legal).to_string()),
                _ => {}
            }
            let moves = random_moves(&start, &mut rng);
            let tag = Some(tags[rng.index(tags.len())]);
            games.push(Game { variant, start, fen, tag, moves, result: rng.index(3) });
        }
    }
    // Standard games with the moves of King of the Hill's and Three-check's games (their moves
    // are standard chess's, from its start).
    let twins: Vec<Game> = games
        .iter()
        .filter(|game| matches!(game.variant, Variant::KingOfTheHill | Variant::ThreeCheck) && game.fen.is_none())
        .take(per_variant / 2)
        .map(|game| Game {
            variant: Variant::Standard,
            start: VariantPosition::Chess(Chess::default()),
            fen: None,
            tag: None,
            moves: game.moves.clone(),
            result: 2 - game.result,
        })
        .collect();
    games.extend(twins);
    games
}

/// Per position (its variant and EPD, Three-check's with its checks left): the games and
/// results, and per next move (UCI) the same; a game counts once where it stands more than once.
type Naive = BTreeMap<(&'static str, String), crate::common::NaiveCounts>;

fn naive(games: &[Game]) -> Naive {
    let mut index = Naive::new();
    for game in games {
        let mut seen: HashMap<(&'static str, String), Vec<String>> = HashMap::new();
        let mut position = game.start.clone();
        let key = |position: &VariantPosition| {
            (game.variant.name(), Epd::from_position(position, EnPassantMode::Legal).to_string())
        };
        for m in &game.moves {
            seen.entry(key(&position)).or_default().push(m.to_uci(CastlingMode::Standard).to_string());
            position.play_unchecked(*m);
        }
        seen.entry(key(&position)).or_default();
        crate::common::tally_game(&mut index, seen, game.result);
    }
    index
}

#[test]
fn lichess_variant_games_answer_as_a_naive_replay_each_in_its_own_space() {
    let games = generate(150);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let store = Store::open(&db).unwrap();
    let half = games.len() / 2;
    let mut indexed = 0;
    for (run, part) in [&games[..half], &games[half..]].into_iter().enumerate() {
        let pgn = dir.path().join(format!("run-{run}.pgn"));
        let text: String = part.iter().enumerate().map(|(i, game)| game.pgn(run * half + i + 1)).collect();
        std::fs::write(&pgn, text).unwrap();
        let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
        assert!(summary.run.counts.skipped.is_empty(), "{:?}", summary.run.counts.skipped);
        indexed += summary.run.counts.indexed;
    }
    assert_eq!(indexed, games.len() as u64);
    let mut by_variant: BTreeMap<&str, usize> = BTreeMap::new();
    let mut checks_given = 0;
    let index = naive(&games);
    // Three-check's full armies with every right: their positions, by the replay's EPDs.
    let armies_with_rights = index
        .keys()
        .filter(|(name, epd)| {
            let fields: Vec<&str> = epd.split(' ').collect();
            *name == "threeCheck"
                && fields[2] == "KQkq"
                && fields[0].chars().filter(char::is_ascii_alphabetic).count() == 32
        })
        .count() as u64;
    // Antichess's full armies: a material search's answer.
    let antichess_armies = index
        .keys()
        .filter(|(name, epd)| {
            *name == "antichess"
                && epd
                    .split(' ')
                    .next()
                    .is_some_and(|board| board.chars().filter(char::is_ascii_alphabetic).count() == 32)
        })
        .count() as u64;
    // Antichess's positions with a king taken or promoted to.
    let kings = |epd: &str| {
        let board = epd.split(' ').next().unwrap_or_default();
        (board.matches('K').count(), board.matches('k').count())
    };
    let antichess_kings = index.keys().filter(|(name, epd)| *name == "antichess" && kings(epd) != (1, 1)).count();
    // The material of the first Antichess position without White's king, and its positions.
    let signature = |epd: &str| {
        let board = epd.split(' ').next().unwrap_or_default();
        let side = |letters: &str| -> String {
            letters.chars().flat_map(|letter| std::iter::repeat_n(letter, board.matches(letter).count())).collect()
        };
        format!("{}v{}", side("KQRBNP"), side("kqrbnp").to_uppercase())
    };
    let antichess_materials: Vec<String> =
        index.keys().filter(|(name, _)| *name == "antichess").map(|(_, epd)| signature(epd)).collect();
    let kingless = antichess_materials.iter().find(|m| !m.starts_with('K')).cloned().expect("a king taken");
    let kingless_positions = antichess_materials.iter().filter(|m| **m == kingless).count() as u64;
    for ((name, epd), (counts, moves)) in index {
        let variant: Variant = name.parse().unwrap();
        let target = Target::fen(epd.as_str()).resolve_in(variant).unwrap_or_else(|err| panic!("{name} {epd}: {err}"));
        assert_eq!(target.position.to_string(), epd);
        let stats = FilteredStats { key: target.key, filter: Filter::default() }.run(&store).unwrap();
        let t = stats.total;
        assert_eq!([t.games, t.white, t.draws, t.black], counts, "{name} {epd}");
        let got: BTreeMap<String, [u64; 4]> =
            stats.moves.iter().map(|(m, t)| (m.to_string(), [t.games, t.white, t.draws, t.black])).collect();
        assert_eq!(got, moves, "{name} {epd}");
        *by_variant.entry(name).or_default() += 1;
        checks_given += usize::from(target.position.checks_given().is_some_and(|given| given.white + given.black > 0));
    }
    assert!(antichess_kings > 100, "{antichess_kings} Antichess positions without one king a side");
    for name in ["kingOfTheHill", "threeCheck", "racingKings", "atomic", "antichess"] {
        assert!(by_variant.get(name).is_some_and(|&n| n > 3_000), "{by_variant:?}");
    }
    assert!(by_variant.get("standard").is_some_and(|&n| n > 2_000), "{by_variant:?}");
    assert!(checks_given > 2_000, "{checks_given} Three-check positions with checks given");
    // Each variant's start counts its own games (the standard setup's too, in its own space).
    let start = |variant| {
        let key = Target::fen("").resolve_in(variant).unwrap().key;
        FilteredStats { key, filter: Filter::default() }.run(&store).unwrap().total.games
    };
    let from_start = |variant: Variant| {
        let initial = VariantPosition::new(rules(variant));
        games.iter().filter(|game| game.variant == variant && game.start == initial).count() as u64
    };
    for variant in [
        Variant::Standard,
        Variant::KingOfTheHill,
        Variant::ThreeCheck,
        Variant::RacingKings,
        Variant::Atomic,
        Variant::Antichess,
    ] {
        assert_eq!(start(variant), from_start(variant), "{variant}");
    }
    drop(store);

    // The HTML reports draw the variants' boards (Three-check's FEN carries its checks).
    let html = crate::common::tabiya(&[
        "report",
        "opening",
        "--db",
        db.to_str().unwrap(),
        "--variant",
        "threeCheck",
        "--format",
        "html",
    ]);
    let html = String::from_utf8_lossy(&html.stdout);
    assert!(html.contains("<svg") && html.contains("the year's Three-check games"), "{}", &html[..html.len().min(400)]);
    // `verify` replays every game by its rules against every stored position.
    let out = crate::common::tabiya(&["verify", "--db", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    // Over HTTP, as lichess's explorer is asked.
    let server = server::start(&db);
    let (status, answer) = server::json(&server, "/lichess?variant=racingKings");
    assert_eq!((status, answer["games"].as_u64()), (200, Some(from_start(Variant::RacingKings))), "{answer}");
    // Racing Kings forbids a check: the rook's moves along the first rank and to g2 are
    // standard chess's, not the variant's.
    let rook = "8/8/8/8/8/8/k7/6RK%20w%20-%20-%200%201";
    let legal = |path: &str| -> Vec<String> {
        let (status, moved) = server::json(&server, path);
        assert_eq!(status, 200, "{moved}");
        moved["legal"].as_array().unwrap().iter().filter_map(|m| m["uci"].as_str().map(str::to_owned)).collect()
    };
    let (racing, chess) =
        (legal(&format!("/move?variant=racingKings&fen={rook}")), legal(&format!("/move?fen={rook}")));
    assert!(racing.iter().all(|m| chess.contains(m)), "{racing:?} {chess:?}");
    assert!(chess.contains(&"g1g2".to_owned()) && !racing.contains(&"g1g2".to_owned()), "{racing:?}");
    assert!(racing.contains(&"g1g3".to_owned()));
    // King of the Hill ends with a king on the hill: no move is legal after it.
    let hill = "4k3/8/8/8/8/8/8/4K3%20w%20-%20-%200%201";
    let (status, over) =
        server::json(&server, &format!("/move?variant=kingOfTheHill&fen={hill}&play=e1e2,e8e7,e2e3,e7e6,e3e4"));
    assert_eq!(status, 200, "{over}");
    assert_eq!((over["outcome"].as_str(), over["legal"].as_array().map(Vec::len)), (Some("king of the hill"), Some(0)));
    assert_eq!(over["winner"].as_str(), Some("white"), "{over}");
    let (status, refused) =
        server::json(&server, &format!("/lichess?variant=kingOfTheHill&fen={hill}&play=e1e2,e8e7,e2e3,e7e6,e3e4,e6d6"));
    assert_eq!(status, 400, "{refused}");
    let reason = refused["error"].as_str().unwrap_or_default();
    assert!(reason.contains("not allowed by the rules of King of the Hill"), "{refused}");
    let (status, refused) =
        server::json(&server, &format!("/lichess?variant=kingOfTheHill&fen={hill}&play=e1e2,e8e7,e2e3,e7e6,e3e4,e6e5"));
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"].as_str().unwrap_or_default().contains("illegal move"), "no rules allow it: {refused}");
    // Three-check counts the checks given: its FEN says the checks left.
    let (status, checked) = server::json(&server, "/move?variant=threeCheck&play=e2e4,f7f6,d1h5");
    assert_eq!(status, 200);
    assert_eq!(checked["fen"].as_str(), Some("rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 2+3"));
    // Atomic: Nxf7 explodes Black's king; the position after it has no legal move.
    let (status, exploded) = server::json(&server, "/move?variant=atomic&play=g1f3,e7e6,f3e5,a7a6,e5f7");
    assert_eq!(status, 200, "{exploded}");
    assert_eq!(exploded["outcome"].as_str(), Some("king exploded"), "{exploded}");
    assert_eq!(exploded["winner"].as_str(), Some("white"), "{exploded}");
    assert_eq!(exploded["fen"].as_str(), Some("rnbq3r/1ppp2pp/p3p3/8/8/8/PPPPPPPP/RNBQKB1R b KQ -"), "{exploded}");
    // A stored game read back names its variant.
    let (status, _, pgn) = server::get(&server, "/masters/pgn/1");
    assert_eq!(status, 200);
    let names = ["King of the Hill", "Three-check", "Racing Kings", "Atomic", "Antichess"];
    assert!(names.iter().any(|name| pgn.contains(&format!("[Variant \"{name}\"]"))), "{pgn}");
    // A material search in Three-check reads the material's key ranges under each counters' byte.
    let (status, found) = server::json(
        &server,
        "/material?variant=threeCheck&material=KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP&castling=KQkq&limit=10000",
    );
    assert_eq!((status, found["positions"].as_u64()), (200, Some(armies_with_rights)), "{found}");
    assert!(armies_with_rights > 100, "{armies_with_rights}");
    // Antichess: a capture is compulsory, and a side's full army is one material block.
    let (status, forced) = server::json(&server, "/move?variant=antichess&play=e2e4,d7d5");
    assert_eq!(status, 200, "{forced}");
    let moves: Vec<&str> = forced["legal"].as_array().unwrap().iter().filter_map(|m| m["uci"].as_str()).collect();
    assert_eq!(moves, ["e4d5"], "{forced}");
    let (status, found) =
        server::json(&server, "/material?variant=antichess&material=KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP&limit=10000");
    assert_eq!((status, found["positions"].as_u64()), (200, Some(antichess_armies)), "{found}");
    assert!(antichess_armies > 100, "{antichess_armies}");
    // A material without White's king: as many positions as the replay has of it.
    let (status, found) =
        server::json(&server, &format!("/material?variant=antichess&material={kingless}&limit=10000"));
    assert_eq!((status, found["positions"].as_u64()), (200, Some(kingless_positions)), "{kingless} {found}");
    let (status, _) = server::json(&server, "/lichess?variant=crazyhouse");
    assert_eq!(status, 400);
}

#[test]
fn a_move_the_variant_forbids_is_reported_with_its_line_and_the_games_around_it_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("variants.pgn");
    // Racing Kings: Rg2 would give check. King of the Hill: Ke4 ended the game, Kd7 follows.
    // Three-check: the third check ended it, the king steps out of check (standard chess's
    // resolution of a move in check takes the slow path).
    let text = "[Event \"ok\"]\n[Variant \"Racing Kings\"]\n[Result \"*\"]\n\n1. Kh3 Ka3 *\n\n\
                [Event \"check\"]\n[Variant \"Racing Kings\"]\n[FEN \"8/8/8/8/8/8/k7/6RK w - - 0 1\"]\n[Result \"*\"]\n\n1. Rg3 Kb2\n2. Rg2+ *\n\n\
                [Event \"over\"]\n[Variant \"King of the Hill\"]\n[FEN \"4k3/8/8/8/8/4K3/8/8 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Ke4 Kd7 1-0\n\n\
                [Event \"ok too\"]\n[Variant \"Three-check\"]\n[Result \"1-0\"]\n\n1. e4 f6 2. Qh5+ g6 3. Qxg6+ hxg6 1-0\n\n\
                [Event \"third\"]\n[Variant \"Three-check\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1\"]\n[Result \"1-0\"]\n\n1. Ra8+ Kd7 1-0\n";
    std::fs::write(&pgn, text).unwrap();
    let out =
        crate::common::tabiya(&["ingest", pgn.to_str().unwrap(), "--db", dir.path().join("db").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("game 2 (line 13)") && err.contains("not allowed by the rules of Racing Kings"), "{err}");
    assert!(err.contains("game 3 (line 20)") && err.contains("not allowed by the rules of King of the Hill"), "{err}");
    assert!(err.contains("game 5 (line 33)") && err.contains("not allowed by the rules of Three-check"), "{err}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("illegal_move"), "{summary}");
    let store = Store::open_read_only(&dir.path().join("db")).unwrap();
    let games = |variant: Variant, moves: &str| {
        let target = Target::Uci { from: None, moves: moves.into() }.resolve_in(variant).unwrap();
        FilteredStats { key: target.key, filter: Filter::default() }.run(&store).unwrap().total.games
    };
    assert_eq!(games(Variant::RacingKings, "h2h3,a2a3"), 1);
    assert_eq!(games(Variant::ThreeCheck, "e2e4,f7f6,d1h5,g7g6,h5g6"), 1);
    assert_eq!(games(Variant::Standard, "e2e4,f7f6,d1h5,g7g6,h5g6"), 0, "standard chess's space");
    let after = Target::Uci { from: None, moves: "e2e4,f7f6,d1h5,g7g6,h5g6".into() }.resolve_in(Variant::ThreeCheck);
    assert_eq!(after.unwrap().position.checks_given().map(|given| (given.white, given.black)), Some((2, 0)));
}
