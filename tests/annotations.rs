//! Annotated games ingested: what each move's comment said is stored per move and given back,
//! checked against python-chess's reading of the same files (`tools/data/annotated-games.py`
//! wrote the games with Stockfish's evaluations, in lichess's, Arena's and TCEC's shapes, and
//! beside each a table of what every move carries: the oracle). Odd annotations lose no game.

use std::{collections::BTreeMap, path::Path};

use tabiya::{
    indexer,
    model::{Eval, GameAnnotations, GameId, GameRecord, TimeControl, replay_with_moves},
    store::{RunRecord, Store},
};

use crate::common;

/// One move as the oracle reads it: SAN, evaluation from White's view, clock, time taken.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Expected {
    san: String,
    eval: Option<Eval>,
    clock: Option<u32>,
    spent: Option<u32>,
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The oracle's games, in file order: each a list of moves.
fn expected(name: &str) -> Vec<Vec<Expected>> {
    let text = std::fs::read_to_string(data(name)).unwrap();
    let mut games: BTreeMap<usize, Vec<Expected>> = BTreeMap::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [game, ply, san, eval, clock, spent] = fields[..] else { panic!("a bad oracle line {line:?}") };
        let number = |text: &str| (text != "-").then(|| text.parse::<u32>().unwrap());
        let eval = match eval.split_once(' ') {
            Some(("cp", cp)) => Some(Eval::Centipawns(cp.parse().unwrap())),
            Some(("mate", moves)) => Some(Eval::Mate(moves.parse().unwrap())),
            _ => None,
        };
        let moves = games.entry(game.parse().unwrap()).or_default();
        assert_eq!(moves.len(), ply.parse::<usize>().unwrap(), "{line}");
        moves.push(Expected { san: san.to_owned(), eval, clock: number(clock), spent: number(spent) });
    }
    games.into_values().collect()
}

/// Every stored game with what its annotations say, as the oracle's lines.
fn stored(store: &Store) -> Vec<Vec<Expected>> {
    let snapshot = store.snapshot();
    let games = snapshot.games();
    let ids: Vec<GameId> = (1..=store.totals().unwrap().games).map(GameId).collect();
    let records: Vec<GameRecord> = games.listed(&ids).unwrap();
    let listed: Vec<(GameId, &GameRecord)> = ids.iter().copied().zip(&records).collect();
    let annotations = games.annotations(&listed).unwrap();
    records
        .iter()
        .zip(annotations)
        .map(|(record, annotations)| {
            let (positions, moves) = replay_with_moves(record).unwrap();
            let annotations = annotations.unwrap_or_else(|| GameAnnotations::new(moves.len()));
            let spent = annotations.time_spent(TimeControl::parse(&record.tags.time_control).as_ref());
            positions
                .iter()
                .zip(&moves)
                .enumerate()
                .map(|(ply, (position, m))| Expected {
                    san: position.san_plus(*m).to_string(),
                    eval: annotations.moves[ply].eval,
                    clock: annotations.moves[ply].clock_centis,
                    spent: spent[ply],
                })
                .collect()
        })
        .collect()
}

fn ingest(pgn: &Path, db: &Path) -> (Store, RunRecord) {
    let store = Store::open(db).unwrap();
    let summary = indexer::ingest(&store, &[pgn.to_owned()], &mut indexer::SilentObserver).unwrap();
    (store, summary.run)
}

/// Each stored game is one of the oracle's, with every move's annotations equal (games are
/// stored in another order than the file's: each is matched to an unmatched oracle game).
fn assert_matches_oracle(stored: Vec<Vec<Expected>>, mut oracle: Vec<Vec<Expected>>) {
    assert_eq!(stored.len(), oracle.len());
    for game in stored {
        let at = oracle.iter().position(|expected| *expected == game);
        let at = at.unwrap_or_else(|| {
            let same_moves = oracle.iter().find(|e| e.iter().map(|m| &m.san).eq(game.iter().map(|m| &m.san)));
            panic!("no game of the oracle is {game:?}\nthe one with its moves: {same_moves:?}")
        });
        oracle.swap_remove(at);
    }
}

#[test]
fn stored_annotations_are_what_python_chess_reads() {
    for shape in ["lichess", "arena", "tcec"] {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = ingest(&data(&format!("annotated-{shape}.pgn")), &dir.path().join("db"));
        let oracle = expected(&format!("annotated-{shape}.tsv"));
        let moves = |has: fn(&Expected) -> bool| oracle.iter().flatten().filter(|m| has(m)).count() as u64;
        let counts = run.counts.annotations;
        assert_eq!(run.counts.indexed, oracle.len() as u64, "{shape}");
        assert_eq!((counts.evaluations, counts.malformed), (moves(|m| m.eval.is_some()), 0), "{shape}");
        assert_eq!(counts.clocks, moves(|m| m.clock.is_some()), "{shape}");
        assert!(counts.evaluations > 0 && counts.games > 0, "{shape}: {counts:?}");
        assert_matches_oracle(stored(&store), oracle);
    }
}

#[test]
fn exported_games_keep_their_annotations() {
    let dir = tempfile::tempdir().unwrap();
    for shape in ["lichess", "arena", "tcec"] {
        let first = dir.path().join(format!("{shape}-first"));
        let (store, _) = ingest(&data(&format!("annotated-{shape}.pgn")), &first);
        let before = stored(&store);
        drop(store);
        let export = common::tabiya(&["games", "--db", first.to_str().unwrap(), "--pgn", "--limit", "1000"]);
        assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
        let pgn = dir.path().join(format!("{shape}.pgn"));
        std::fs::write(&pgn, &export.stdout).unwrap();
        let (again, _) = ingest(&pgn, &dir.path().join(format!("{shape}-again")));
        // Arena's and TCEC's move times come back as `[%emt]`, their evaluations in White's view.
        let mut after = stored(&again);
        let mut before = before;
        before.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        after.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        assert_eq!(after, before, "{shape}");
    }
}

#[test]
fn odd_annotations_are_passed_over_and_no_game_is_lost() {
    let long_words = "a".repeat(1 << 20);
    let games = [
        // Mate in 0, 9,999 pawns, nan: three evaluations passed over, the clocks kept.
        "[TimeControl \"60+0\"]\n\n1. e4 { [%eval #0] [%clk 0:00:59] } e5 { [%eval 9999] [%clk 0:00:58] } 2. Nf3 { [%eval nan] } *\n",
        // A negative clock and a clock of 61 minutes' seconds; an evaluation kept.
        "[Round \"2\"]\n\n1. d4 { [%clk -0:00:10] } d5 { [%clk 0:00:61] [%eval -0.5] } *\n",
        // A clock without a time control: stored, its move's time unknown.
        "[Round \"3\"]\n\n1. c4 { [%clk 0:05:00] } c5 { [%clk 0:04:50] } *\n",
    ];
    let mut text = games.concat();
    text += &format!("[Round \"4\"]\n\n1. Nf3 {{ {long_words} }} Nf6 {{ [%eval 0.3] }} *\n");
    // A base of 36 hours and a clock at zero, a clock of 36 hours in a game of a minute: move
    // times over the longest kept, so none (the clocks kept).
    text += "[Round \"5\"]\n[TimeControl \"129600+5\"]\n\n1. g3 { [%clk 0:00:00] } *\n";
    text += "[Round \"6\"]\n[TimeControl \"60+1\"]\n\n1. b3 { [%clk 36:00:00] } b6 2. Bb2 { [%clk 0:00:00] } *\n";
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("odd.pgn");
    std::fs::write(&pgn, text).unwrap();
    let (store, run) = ingest(&pgn, &dir.path().join("db"));
    assert_eq!(run.counts.indexed, 6);
    let counts = run.counts.annotations;
    assert_eq!((counts.games, counts.evaluations, counts.clocks, counts.malformed), (6, 2, 7, 5), "{counts:?}");
    let stored = stored(&store);
    let by_first_move = |san: &str| stored.iter().find(|game| game[0].san == san).unwrap();
    let e4 = by_first_move("e4");
    assert_eq!(
        e4.iter().map(|m| (m.eval, m.clock, m.spent)).collect::<Vec<_>>(),
        [(None, Some(5_900), Some(100)), (None, Some(5_800), Some(200)), (None, None, None)]
    );
    let d4 = by_first_move("d4");
    assert_eq!(d4[1].eval, Some(Eval::Centipawns(-50)));
    assert_eq!((d4[0].clock, d4[1].clock), (None, None));
    let c4 = by_first_move("c4");
    assert_eq!(c4.iter().map(|m| (m.clock, m.spent)).collect::<Vec<_>>(), [(Some(30_000), None), (Some(29_000), None)]);
    assert_eq!(by_first_move("Nf3")[1].eval, Some(Eval::Centipawns(30)));
    assert_eq!(by_first_move("g3")[0].spent, None);
    assert_eq!(by_first_move("b3").iter().map(|m| m.spent).collect::<Vec<_>>(), [None, None, None]);
    // Their positions' notes have no time either.
    let answer = tabiya::explore::Lookup {
        target: tabiya::explore::Target::san("1. b3").resolve().unwrap(),
        filter: Default::default(),
        limits: Default::default(),
    };
    assert!(answer.run(&store).unwrap().moves.iter().all(|row| row.time.is_none()));
}

/// Each game of `text` as the reader keeps it: per move, its evaluation and clock.
fn read(text: &str) -> Vec<Vec<(Option<Eval>, Option<u32>)>> {
    let mut games = Vec::new();
    tabiya::input::read_games(text.as_bytes(), |game| {
        let game = game.unwrap();
        let moves = game.annotations.map_or_else(Vec::new, |a| a.moves);
        games.push(moves.iter().map(|m| (m.eval, m.clock_centis)).collect());
    })
    .unwrap();
    games
}

#[test]
fn a_comment_annotates_the_move_before_it_on_the_mainline_only() {
    let cp = |n| Some(Eval::Centipawns(n));
    // Before the first move, inside a variation and after the result: no move's.
    let text = "{ [%eval 9.0] } 1. e4 ( 1. d4 { [%eval 5.0] } ) 1... e5 { [%eval 0.2] } { [%clk 0:01:00] } 2. Nf3 1-0 { [%eval 7.0] }\n";
    assert_eq!(read(text), [vec![(None, None), (cp(20), Some(6_000)), (None, None)]]);
    // The later of two values of one kind after a move counts.
    assert_eq!(read("1. e4 { [%eval 0.1] } { [%eval 0.3] } *\n"), [vec![(cp(30), None)]]);
    // Arena's score is the mover's: Black's, in a game set up with Black to move, turned to
    // White's view; White's kept as it is.
    let fen = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n";
    let black_first = format!("{fen}1... Kd7 {{+0.50/12 0.3s}} 2. e4 {{+1.00/12 0.2s}} *\n");
    assert_eq!(read(&black_first), [vec![(cp(-50), None), (cp(100), None)]]);
    // A game without any annotation has none.
    assert_eq!(read("1. e4 { a good move } e5 *\n"), [Vec::new()]);
}

#[test]
fn verify_finds_annotations_that_do_not_decode() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = ingest(&data("annotated-arena.pgn"), &dir.path().join("db"));
    assert!(tabiya::store::verify(&store, false).problems.is_empty());
    let record = store.snapshot().games().get(GameId(3)).unwrap().unwrap();
    let writer = store.writer().unwrap();
    let mut batch = writer.batch();
    // A column byte naming no column.
    batch.put_game(GameId(3), &record, Some(&[0x40, 1, 0]));
    batch.commit().unwrap();
    let problems = tabiya::store::verify(&store, false).problems;
    let found: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.place, p.what)).collect();
    assert_eq!(found, ["game 3: its annotations do not decode"]);
}
