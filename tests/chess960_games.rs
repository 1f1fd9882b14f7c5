//! Chess960 games ingested, against a naive replay: random games from random start positions
//! (castling on both wings whenever it may, half the time), their `Variant` tag in the
//! spellings files carry, their `FEN` in X-FEN or Shredder-FEN or absent (start 518), some
//! without a `Variant` tag (read as Chess960 by their castling rights), in two ingest runs;
//! standard games with the very moves of some Chess960 games from start 518. The replay counts
//! every position's games and results and every next move with shakmaty's Chess960 rules, from
//! the moves as generated (not as any reader reads them): every Chess960 position must answer
//! the same under `--variant chess960`, and every standard one must count standard games only.

use std::collections::{BTreeMap, HashMap};

use shakmaty::{CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position as _, fen::Epd, san::San};
use tabiya::{
    Key,
    explore::{Filter, FilteredStats, Target},
    indexer,
    model::GameResult,
    position::Variant,
    store::Store,
};

use crate::common::Lcg;

const RESULTS: [(&str, GameResult); 3] =
    [("1-0", GameResult::WhiteWins), ("1/2-1/2", GameResult::Draw), ("0-1", GameResult::BlackWins)];
const SPELLINGS: [&str; 7] = ["Chess960", "chess 960", "fischerandom", "Fischer Random", "freestyle", "960", "FRC"];

/// A generated game: its start (None: the standard setup), variant, moves and result.
pub(crate) struct Game {
    pub(crate) start: Chess,
    /// The `FEN` tag, `None` for a game from the standard setup without one.
    fen: Option<String>,
    /// The `Variant` tag, `None` for none.
    variant_tag: Option<&'static str>,
    pub(crate) chess960: bool,
    pub(crate) moves: Vec<Move>,
    result: usize,
}

impl Game {
    /// Its result: 0 White won, 1 drawn, 2 Black won.
    pub(crate) fn result_index(&self) -> usize {
        self.result
    }

    pub(crate) fn pgn(&self, round: usize) -> String {
        let mut out =
            format!("[Event \"Generated\"]\n[Round \"{round}\"]\n[White \"W{round}\"]\n[Black \"B{round}\"]\n");
        out += &format!("[Result \"{}\"]\n", RESULTS[self.result].0);
        if let Some(variant) = self.variant_tag {
            out += &format!("[Variant \"{variant}\"]\n");
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
        out + RESULTS[self.result].0 + "\n\n"
    }
}

/// Shredder-FEN's castling field of a Chess960 position: the file of every rook with a right.
fn shredder(position: &Chess) -> String {
    let mut field = String::new();
    for color in Color::ALL {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if let Some(rook) = position.castles().rook(color, side) {
                let file = rook.file().char();
                field.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
            }
        }
    }
    if field.is_empty() { "-".to_owned() } else { field }
}

fn random_moves(start: &Chess, rng: &mut Lcg) -> Vec<Move> {
    let mut position = start.clone();
    let mut moves = Vec::new();
    for _ in 0..10 + rng.next(70) {
        let legal = position.legal_moves();
        let castles: Vec<Move> = legal.iter().copied().filter(|m| m.is_castle()).collect();
        let m = match (castles.is_empty(), legal.is_empty()) {
            (_, true) => break,
            (false, _) if rng.next(2) == 0 => castles[rng.index(castles.len())],
            _ => legal[rng.index(legal.len())],
        };
        position.play_unchecked(m);
        moves.push(m);
    }
    moves
}

pub(crate) fn generate(count: usize) -> Vec<Game> {
    let mut rng = Lcg(960);
    let mut games = Vec::new();
    for index in 0..count {
        let number = if index % 8 == 0 { 518 } else { rng.next(960) as u16 };
        let start = tabiya::Position::chess960_start(number)
            .expect("a start position")
            .as_chess()
            .cloned()
            .expect("Chess960 is chess");
        let moves = random_moves(&start, &mut rng);
        let result = rng.index(3);
        let x_fen = format!("{} 0 1", Epd::from_position(&start, EnPassantMode::Legal));
        let king_on_e = start.board().king_of(Color::White).is_some_and(|k| k.file() == shakmaty::File::E);
        let (fen, variant_tag) = match index % 5 {
            // The standard setup without a FEN, by its Variant tag alone.
            _ if number == 518 && index % 16 == 0 => (None, Some("Chess960")),
            // No Variant tag: Chess960 by its castling rights (a king off the e-file).
            0 if !king_on_e => (Some(x_fen), None),
            1 | 2 => {
                let board = Epd::from_position(&start, EnPassantMode::Legal).to_string();
                let board = board.split(' ').next().unwrap_or_default().to_owned();
                (Some(format!("{board} w {} - 0 1", shredder(&start))), Some(SPELLINGS[rng.index(SPELLINGS.len())]))
            }
            _ => (Some(x_fen), Some(SPELLINGS[rng.index(SPELLINGS.len())])),
        };
        games.push(Game { start, fen, variant_tag, chess960: true, moves, result });
    }
    // Standard games with the moves of the Chess960 games from start 518.
    let twins: Vec<Game> = games
        .iter()
        .filter(|game| {
            game.fen.as_deref().is_none_or(|fen| fen.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"))
        })
        .filter_map(|game| {
            // The same moves in standard chess: castling as the king's two-square step.
            let mut position = Chess::default();
            let mut moves = Vec::new();
            for m in &game.moves {
                let uci = m.to_uci(CastlingMode::Standard);
                let m = uci.to_move(&position).ok()?;
                position.play_unchecked(m);
                moves.push(m);
            }
            Some(Game {
                start: Chess::default(),
                fen: None,
                variant_tag: None,
                chess960: false,
                moves,
                result: 2 - game.result,
            })
        })
        .collect();
    assert!(twins.len() > 10, "{} standard twins", twins.len());
    games.extend(twins);
    games
}

/// Per position (its variant and EPD): the games and results, and per next move (UCI as the
/// variant writes it) the same; a game counts once where it stands more than once.
pub(crate) type Naive = BTreeMap<(bool, String), crate::common::NaiveCounts>;

pub(crate) fn naive(games: &[Game]) -> Naive {
    let mut index = Naive::new();
    for game in games {
        let mode = if game.chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
        let mut seen: HashMap<(bool, String), Vec<String>> = HashMap::new();
        let mut position = game.start.clone();
        let key = |position: &Chess| (game.chess960, Epd::from_position(position, EnPassantMode::Legal).to_string());
        for m in &game.moves {
            seen.entry(key(&position)).or_default().push(m.to_uci(mode).to_string());
            position.play_unchecked(*m);
        }
        seen.entry(key(&position)).or_default();
        crate::common::tally_game(&mut index, seen, game.result);
    }
    index
}

#[test]
fn chess960_games_answer_as_a_naive_replay_and_standard_answers_count_standard_games() {
    let games = generate(700);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
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
    // `verify` replays every game, Chess960's by its rules, against every stored position.
    let out = crate::common::tabiya(&["verify", "--db", dir.path().join("db").to_str().unwrap()]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let (mut chess960, mut standard, mut castlings) = (0, 0, 0);
    for ((is_chess960, epd), (counts, moves)) in naive(&games) {
        let variant = if is_chess960 { Variant::Chess960 } else { Variant::Standard };
        let target = Target::fen(epd.as_str()).resolve_in(variant).unwrap_or_else(|err| panic!("{epd}: {err}"));
        let stats = FilteredStats { key: target.key, filter: Filter::default() }.run(&store).unwrap();
        let t = stats.total;
        assert_eq!([t.games, t.white, t.draws, t.black], counts, "{variant} {epd}");
        let got: BTreeMap<String, [u64; 4]> =
            stats.moves.iter().map(|(m, t)| (m.to_string(), [t.games, t.white, t.draws, t.black])).collect();
        assert_eq!(got, moves, "{variant} {epd}");
        if is_chess960 {
            chess960 += 1;
            castlings += got.keys().filter(|uci| is_king_taking_rook(&target.position, uci)).count();
        } else {
            standard += 1;
        }
    }
    assert!(chess960 > 20_000 && standard > 300, "{chess960} Chess960 and {standard} standard positions");
    assert!(castlings > 200, "{castlings} castling moves listed");
    // The standard start counts the standard games only; Chess960's 518 its own.
    let start = |variant| {
        let key: Key = Target::fen("").resolve_in(variant).unwrap().key;
        FilteredStats { key, filter: Filter::default() }.run(&store).unwrap().total.games
    };
    let standard_games = games.iter().filter(|game| !game.chess960).count() as u64;
    assert_eq!(start(Variant::Standard), standard_games);
    let from_518 = games.iter().filter(|game| game.chess960 && game.start == Chess::default()).count() as u64;
    assert_eq!(start(Variant::Chess960), from_518);
    drop(store);

    // Searches scan standard chess's positions: the same hits as a database of the standard
    // games alone.
    let standard_pgn = dir.path().join("standard.pgn");
    let text: String =
        games.iter().enumerate().filter(|(_, game)| !game.chess960).map(|(i, game)| game.pgn(i + 1)).collect();
    std::fs::write(&standard_pgn, text).unwrap();
    let standard_db = dir.path().join("standard-db");
    let out = crate::common::tabiya(&["ingest", standard_pgn.to_str().unwrap(), "--db", standard_db.to_str().unwrap()]);
    assert!(out.status.success());
    let hits = |db: &std::path::Path, search: &[&str]| {
        let mut args = vec!["search", "--db", db.to_str().unwrap(), "--json", "--limit", "100000"];
        args.extend(search);
        let out = crate::common::tabiya(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (json["positions"].clone(), json["hits"].clone())
    };
    for search in [
        &["--material", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP"][..],
        &["--pattern", "check"],
        &["--pattern", "Kg1 and Rf1"],
    ] {
        let (positions, found) = hits(&dir.path().join("db"), search);
        assert!(positions.as_u64().is_some_and(|n| n > 0), "{search:?}");
        assert_eq!((positions, found), hits(&standard_db, search), "{search:?}");
    }
}

/// Whether `uci` is a king taking its own rook in `position` (Chess960's castling).
fn is_king_taking_rook(position: &tabiya::Position, uci: &str) -> bool {
    let chess = position.shakmaty();
    let squares: Option<(shakmaty::Square, shakmaty::Square)> =
        uci.get(..2).zip(uci.get(2..4)).and_then(|(from, to)| Some((from.parse().ok()?, to.parse().ok()?)));
    squares.is_some_and(|(from, to)| {
        chess.board().king_of(chess.turn()) == Some(from) && (chess.board().rooks() & chess.us()).contains(to)
    })
}

#[test]
fn a_chess960_castling_field_naming_no_rook_is_reported_and_the_games_around_it_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("bad.pgn");
    // lichess's 2023-11 Chess960 file: `HEhe` with the rooks on a and c.
    let text = "[Event \"ok\"]\n[Variant \"Chess960\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O 1-0\n\n\
                [Event \"bad\"]\n[Variant \"Chess960\"]\n[FEN \"r1r1k3/pppppppp/8/8/8/8/PPPPPPPP/R1R1K3 w HEhe - 0 1\"]\n[Result \"*\"]\n\n1. e4 *\n\n\
                [Event \"ok too\"]\n[Variant \"Chess960\"]\n[FEN \"r1r1k3/pppppppp/8/8/8/8/PPPPPPPP/R1R1K3 w Cc - 0 1\"]\n[Result \"0-1\"]\n\n1. O-O-O O-O-O 0-1\n";
    std::fs::write(&pgn, text).unwrap();
    let out =
        crate::common::tabiya(&["ingest", pgn.to_str().unwrap(), "--db", dir.path().join("db").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("game 2 (line 7)") && err.contains("castling rights"), "{err}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("bad_fen"), "{summary}");
    let store = Store::open_read_only(&dir.path().join("db")).unwrap();
    let target =
        Target::Uci { from: Some("r1r1k3/pppppppp/8/8/8/8/PPPPPPPP/R1R1K3 w Cc - 0 1".into()), moves: "e1c1".into() }
            .resolve_in(Variant::Chess960)
            .unwrap();
    let stats = FilteredStats { key: target.key, filter: Filter::default() }.run(&store).unwrap();
    assert_eq!(stats.total.games, 1);
    assert_eq!(stats.moves.iter().map(|(m, _)| m.to_string()).collect::<Vec<_>>(), ["e8c8"]);
    drop(store);

    // The database report is standard chess's by default: it names the Chess960 games it leaves
    // out.
    let db = dir.path().join("db");
    let out = crate::common::tabiya(&["report", "database", "--db", db.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["otherVariantGames"].as_u64(), report["results"]["games"].as_u64()),
        (Some(2), Some(0)),
        "{report}"
    );
    // The Chess960 games' own report: both games, one won by each side.
    let out = crate::common::tabiya(&[
        "report",
        "database",
        "--variant",
        "chess960",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = &report["results"];
    assert_eq!((report["otherVariantGames"].as_u64(), report["variant"].as_str()), (Some(0), Some("chess960")));
    assert_eq!((results["white"].as_u64(), results["black"].as_u64()), (Some(1), Some(1)), "{report}");

    // A Polyglot book refuses a Chess960 position with the reason; the codec check round-trips
    // Chess960 positions through the key; the opening report answers for Chess960.
    let fen = "r1r1k3/pppppppp/8/8/8/8/PPPPPPPP/R1R1K3 w Cc - 0 1";
    let out = crate::common::tabiya(&[
        "export",
        "book",
        "--variant",
        "chess960",
        "--output",
        "book.bin",
        "--db",
        db.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(1) && err.contains("Polyglot book holds standard chess only"), "{err}");
    let out = crate::common::tabiya(&[
        "report",
        "opening",
        "--variant",
        "chess960",
        "--fen",
        fen,
        "--format",
        "json",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let moves = &report["subsets"][0]["moves"];
    assert_eq!((moves[0]["uci"].as_str(), moves[0]["san"].as_str()), (Some("e1c1"), Some("O-O-O")), "{report}");
    let out = crate::common::tabiya(&["codec", "check", pgn.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");

    // Over HTTP, as lichess's explorer is asked: `variant=chess960`, castling as king takes rook.
    let server = crate::common::server::start(&dir.path().join("db"));
    let fen = "r1r1k3/pppppppp/8/8/8/8/PPPPPPPP/R1R1K3%20w%20Cc%20-%200%201";
    let (status, answer) =
        crate::common::server::json(&server, &format!("/lichess?variant=chess960&fen={fen}&play=e1c1"));
    assert_eq!(status, 200, "{answer}");
    assert_eq!((answer["games"].as_u64(), answer["black"].as_u64()), (Some(1), Some(1)), "{answer}");
    assert_eq!((answer["moves"][0]["uci"].as_str(), answer["moves"][0]["san"].as_str()), (Some("e8c8"), Some("O-O-O")));
    // The standard setup: one Chess960 game (the first), no standard one.
    let (_, chess960) = crate::common::server::json(&server, "/lichess?variant=chess960");
    let (_, standard) = crate::common::server::json(&server, "/lichess");
    assert_eq!((chess960["games"].as_u64(), standard["games"].as_u64()), (Some(1), Some(0)));
    assert_eq!(chess960["moves"][0]["uci"].as_str(), Some("e2e4"));
    // A standard request with Chess960 castling rights says how to ask.
    let (status, refused) = crate::common::server::json(&server, &format!("/lichess?fen={fen}"));
    assert_eq!(status, 400);
    assert!(refused["error"].as_str().is_some_and(|e| e.contains("variant chess960")), "{refused}");
    let (status, _) = crate::common::server::json(&server, "/lichess?variant=crazyhouse");
    assert_eq!(status, 400);
    // A stored Chess960 game read back: castling as the king taking its rook (`e1h1`, where
    // standard chess writes `e1g1`).
    let castlings: Vec<String> = (1..=2)
        .flat_map(|id| {
            crate::common::server::json(&server, &format!("/game/{id}")).1["moves"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|ply| ply["san"] == "O-O")
        .map(|ply| ply["uci"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(castlings, ["e1h1"]);
    // Game lists: the variant's positions, and its pattern scans (the second game gives no
    // check; a queen-side castling on both sides puts both kings on c).
    let (status, list) = crate::common::server::json(&server, &format!("/games?variant=chess960&fen={fen}&and={fen}"));
    assert_eq!((status, list["total"].as_u64()), (200, Some(1)), "{list}");
    let (status, list) = crate::common::server::json(&server, "/games?variant=chess960&pattern=Kc1%20and%20kc8");
    assert_eq!((status, list["total"].as_u64()), (200, Some(1)), "{list}");
    assert_eq!(list["games"][0]["event"].as_str(), Some("ok too"), "{list}");
    let (status, list) = crate::common::server::json(&server, "/games?pattern=Kc1%20and%20kc8");
    assert_eq!((status, list["total"].as_u64()), (200, Some(0)), "standard chess: {list}");
    let (status, found) = crate::common::server::json(&server, "/pattern?variant=chess960&q=Kc1%20and%20kc8");
    assert_eq!((status, found["positions"].as_u64()), (200, Some(1)), "{found}");
    let (status, found) =
        crate::common::server::json(&server, "/material?variant=chess960&material=KRRP8vKRRP8&castling=-");
    assert_eq!((status, found["positions"].as_u64()), (200, Some(1)), "{found}");
}
