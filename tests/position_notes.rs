//! What annotated games say of each position and move (`eval`, `loss`, `time`), under filters:
//! every position of the annotated test files looked up, each answer equal to what a naive
//! replay of python-chess's reading of the files (the oracle tables beside them) computes.
//! Ingested at once and in two commits (positions' notes summed across commits, tier
//! positions leaving the tier), the answers are the same.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use shakmaty::{Chess, Color, EnPassantMode, Position as _, fen::Epd, san::San};
use tabiya::{
    explore::{Answer, EvalAnswer, FilterSpec, Limits, Lookup, LossAnswer, Target, TimeAnswer},
    indexer,
    report::opening::{OpeningOptions, OpeningReport},
    store::Store,
};

const FILES: [&str; 3] = ["annotated-lichess", "annotated-arena", "annotated-tcec"];

/// A game as the oracle reads it: its headers and per move (SAN, evaluation in White's
/// centipawns or a mate, time taken in centiseconds).
struct OracleGame {
    tags: BTreeMap<String, String>,
    moves: Vec<(String, Option<Eval>, Option<u64>)>,
}

/// An evaluation: centipawns, or a mate for White (`true`) or Black.
#[derive(Clone, Copy, Debug)]
enum Eval {
    Cp(i64),
    Mate(bool),
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The file's games with their headers (from the PGN) and the oracle's moves (from the TSV).
fn oracle_games(name: &str) -> Vec<OracleGame> {
    let pgn = std::fs::read_to_string(data(&format!("{name}.pgn"))).unwrap();
    let mut games: Vec<OracleGame> = Vec::new();
    for line in pgn.lines() {
        let Some(tag) = line.strip_prefix('[') else { continue };
        let (tag_name, value) = tag.split_once(' ').unwrap();
        if tag_name == "Event" {
            games.push(OracleGame { tags: BTreeMap::new(), moves: Vec::new() });
        }
        let value = value.trim_end_matches(']').trim_matches('"').to_owned();
        games.last_mut().unwrap().tags.insert(tag_name.to_owned(), value);
    }
    let tsv = std::fs::read_to_string(data(&format!("{name}.tsv"))).unwrap();
    for line in tsv.lines().filter(|line| !line.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let eval = match fields[3].split_once(' ') {
            Some(("cp", cp)) => Some(Eval::Cp(cp.parse().unwrap())),
            Some(("mate", moves)) => Some(Eval::Mate(!moves.starts_with('-'))),
            _ => None,
        };
        let spent = (fields[5] != "-").then(|| fields[5].parse().unwrap());
        games[fields[0].parse::<usize>().unwrap()].moves.push((fields[2].to_owned(), eval, spent));
    }
    games
}

/// Sums as the answers give them: (games, mean cp, white mates, black mates).
#[derive(Default)]
struct EvalSum {
    games: u64,
    cp: (i64, u64),
    mates: (u64, u64),
}

impl EvalSum {
    fn add(&mut self, eval: Eval) {
        self.games += 1;
        match eval {
            Eval::Cp(cp) => self.cp = (self.cp.0 + cp, self.cp.1 + 1),
            Eval::Mate(true) => self.mates.0 += 1,
            Eval::Mate(false) => self.mates.1 += 1,
        }
    }
}

#[derive(Default)]
struct MoveSum {
    eval: EvalSum,
    losses: (u64, u64, u64),
    time: (u64, u64),
}

#[derive(Default)]
struct PositionSum {
    eval: EvalSum,
    moves: BTreeMap<String, MoveSum>,
}

/// An evaluation as the mover sees it, capped at 1,000 centipawns (a mate is the cap).
fn mover_view(eval: Eval, mover: Color) -> i64 {
    let white = match eval {
        Eval::Cp(cp) => cp.clamp(-1000, 1000),
        Eval::Mate(for_white) => match for_white {
            true => 1000,
            false => -1000,
        },
    };
    if mover == Color::White { white } else { -white }
}

/// Every position's sums over the games `keep` admits, by EPD: each game counts for a position
/// at its first arrival, and for a move at the first time it played it there.
fn oracle_sums(games: &[OracleGame], keep: impl Fn(&OracleGame) -> bool) -> BTreeMap<String, (Chess, PositionSum)> {
    let mut sums: BTreeMap<String, (Chess, PositionSum)> = BTreeMap::new();
    for game in games.iter().filter(|game| keep(game)) {
        let mut position = Chess::default();
        let (mut arrived, mut played) = (BTreeSet::new(), BTreeSet::new());
        for ply in 0..=game.moves.len() {
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            let before = ply.checked_sub(1).and_then(|last| game.moves[last].1);
            let entry = &mut sums.entry(epd.clone()).or_insert_with(|| (position.clone(), PositionSum::default())).1;
            if arrived.insert(epd.clone())
                && let Some(before) = before
            {
                entry.eval.add(before);
            }
            let Some((san, after, spent)) = game.moves.get(ply) else { break };
            let m = san.parse::<San>().unwrap().to_move(&position).unwrap();
            let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
            if played.insert((epd, uci.clone())) {
                let sum = entry.moves.entry(uci).or_default();
                if let Some(after) = *after {
                    sum.eval.add(after);
                    if let Some(before) = before {
                        let mover = position.turn();
                        let loss = (mover_view(before, mover) - mover_view(after, mover)).max(0) as u64;
                        sum.losses = (sum.losses.0 + 1, sum.losses.1 + loss, sum.losses.2 + u64::from(loss >= 100));
                    }
                }
                if let Some(spent) = *spent {
                    sum.time = (sum.time.0 + 1, sum.time.1 + spent);
                }
            }
            position.play_unchecked(m);
        }
    }
    sums
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.006
}

/// The answer's notes equal the oracle's sums.
fn assert_answer(answer: &Answer, expected: &PositionSum, what: &str) {
    let rows =
        answer.moves.iter().map(|row| (row.uci.as_str(), row.eval.as_ref(), row.loss.as_ref(), row.time.as_ref()));
    assert_notes(answer.eval.as_ref(), rows, expected, what);
}

/// A move row's notes: (uci, eval, loss, time).
type NotedRow<'a> = (&'a str, Option<&'a EvalAnswer>, Option<&'a LossAnswer>, Option<&'a TimeAnswer>);

/// A position's notes and its move rows' equal the oracle's sums.
fn assert_notes<'a>(
    eval: Option<&EvalAnswer>,
    moves: impl Iterator<Item = NotedRow<'a>>,
    expected: &PositionSum,
    what: &str,
) {
    let eval_matches = |got: Option<&tabiya::explore::EvalAnswer>, want: &EvalSum| match got {
        None => want.games == 0,
        Some(got) => {
            got.games == want.games
                && (got.mates.white, got.mates.black) == want.mates
                && match (got.cp, want.cp) {
                    (None, (_, 0)) => true,
                    (Some(cp), (sum, n)) if n > 0 => close(cp, sum as f64 / n as f64),
                    _ => false,
                }
        }
    };
    assert!(eval_matches(eval, &expected.eval), "{what}: eval {eval:?}");
    let mut rows = 0;
    for (uci, eval, loss, time) in moves {
        let Some(want) = expected.moves.get(uci) else { continue };
        rows += 1;
        assert!(eval_matches(eval, &want.eval), "{what} {uci}: eval {eval:?}");
        let (n, sum, mistakes) = want.losses;
        match loss {
            None => assert_eq!(n, 0, "{what} {uci}: no loss"),
            Some(loss) => {
                assert_eq!(loss.moves, n, "{what} {uci}");
                assert!(close(loss.cp, sum as f64 / n as f64), "{what} {uci}: loss {loss:?}");
                assert!((loss.mistakes - mistakes as f64 / n as f64).abs() < 1e-9, "{what} {uci}");
            }
        }
        match time {
            None => assert_eq!(want.time.0, 0, "{what} {uci}: no time"),
            Some(time) => {
                assert_eq!(time.moves, want.time.0, "{what} {uci}");
                assert!(close(time.seconds, want.time.1 as f64 / want.time.0 as f64 / 100.0), "{what} {uci}");
            }
        }
    }
    assert_eq!(rows, expected.moves.len(), "{what}: every move played is a row");
}

/// The filters, each with the oracle's own reading of the headers.
type Keep = Box<dyn Fn(&OracleGame) -> bool>;

fn filters() -> Vec<(FilterSpec, Keep)> {
    let tag = |game: &OracleGame, name: &str| game.tags.get(name).cloned().unwrap_or_default();
    let elo = move |game: &OracleGame, name: &str| tag(game, name).parse::<u16>().ok();
    vec![
        (FilterSpec::default(), Box::new(|_| true)),
        (
            FilterSpec { min_elo: Some(2300), ..FilterSpec::default() },
            Box::new(move |game| {
                elo(game, "WhiteElo").zip(elo(game, "BlackElo")).is_some_and(|(w, b)| w.min(b) >= 2300)
            }),
        ),
        (
            FilterSpec { since: Some("1986".into()), ..FilterSpec::default() },
            Box::new(move |game| tag(game, "Date")[..4].parse::<u32>().is_ok_and(|year| year >= 1986)),
        ),
        (
            FilterSpec {
                since: Some("1985".into()),
                until: Some("1986".into()),
                min_rating: Some(2300),
                ..FilterSpec::default()
            },
            Box::new(move |game| {
                let year = tag(game, "Date")[..4].parse::<u32>().unwrap_or(0);
                // The average of the rated players' ratings, rounded up.
                let rated: Vec<u32> =
                    [elo(game, "WhiteElo"), elo(game, "BlackElo")].into_iter().flatten().map(u32::from).collect();
                let average = (!rated.is_empty()).then(|| rated.iter().sum::<u32>().div_ceil(rated.len() as u32));
                (1985..=1986).contains(&year) && average.is_some_and(|average| average >= 2300)
            }),
        ),
        (
            FilterSpec { result: Some("1-0".into()), ..FilterSpec::default() },
            Box::new(move |game| tag(game, "Result") == "1-0"),
        ),
        (
            FilterSpec { player: Some("Adams, Michael".into()), color: Some("black".into()), ..FilterSpec::default() },
            Box::new(move |game| tag(game, "Black") == "Adams, Michael"),
        ),
    ]
}

/// Every position of every file, under every filter, answered as the oracle computes.
fn assert_every_position(store: &Store, games: &[OracleGame]) {
    let limits = Limits { moves: 64, top: 0, recent: 0, history: false };
    for (spec, keep) in filters() {
        let filter = spec.filter().unwrap();
        let sums = oracle_sums(games, keep);
        if sums.is_empty() {
            // No game kept: nothing is noted.
            let target = Target::fen(Epd::from_position(&Chess::default(), EnPassantMode::Legal).to_string());
            let answer = Lookup { target: target.resolve().unwrap(), filter, limits }.run(store).unwrap();
            assert!(answer.games == 0 && answer.eval.is_none() && answer.moves.is_empty(), "{}", spec.describe());
            continue;
        }
        let (mut noted, mut losses, mut timed) = (0, 0, 0);
        for (epd, (_, expected)) in &sums {
            let target = Target::fen(epd.clone()).resolve().unwrap();
            let answer = Lookup { target, filter: filter.clone(), limits }.run(store).unwrap();
            noted += usize::from(answer.eval.is_some());
            losses += answer.moves.iter().filter(|row| row.loss.is_some()).count();
            timed += answer.moves.iter().filter(|row| row.time.is_some()).count();
            assert_answer(&answer, expected, &format!("{} at {epd}", spec.describe()));
        }
        // The check is not vacuous: many positions have an evaluation, many moves a loss and a time.
        let what = format!("{}: {noted} of {} positions with an eval", spec.describe(), sums.len());
        assert!(noted * 8 > sums.len() && losses * 8 > sums.len() && timed * 4 > sums.len(), "{what}");
    }
}

/// The opening report of the positions most games reach, under every filter: its overview's
/// evaluation and its move table's, as the oracle computes.
fn assert_opening_reports(store: &Store, games: &[OracleGame]) {
    let everything = oracle_sums(games, |_| true);
    let mut popular: Vec<(&String, usize)> =
        everything.iter().map(|(epd, (_, sum))| (epd, sum.moves.len())).filter(|(_, moves)| *moves > 1).collect();
    popular.sort_by_key(|(_, moves)| std::cmp::Reverse(*moves));
    popular.truncate(6);
    assert!(popular.len() >= 3, "{} positions with several moves", popular.len());
    for (spec, keep) in filters() {
        let sums = oracle_sums(games, keep);
        let mut options = OpeningOptions::new(spec.filter().unwrap());
        (options.depth, options.lines, options.themes) = (2, 2, Vec::new());
        for (epd, _) in &popular {
            let empty = PositionSum::default();
            let expected = sums.get(*epd).map_or(&empty, |(_, sum)| sum);
            let target = Target::fen((*epd).clone()).resolve().unwrap();
            let report = OpeningReport::build(store, &target, &options).unwrap();
            let subset = &report.subsets[0];
            let rows = subset.moves.iter().map(|m| (m.uci.as_str(), m.eval.as_ref(), m.loss.as_ref(), m.time.as_ref()));
            assert_notes(
                subset.overview.eval.as_ref(),
                rows,
                expected,
                &format!("report, {} at {epd}", spec.describe()),
            );
        }
    }
}

#[test]
fn every_position_and_move_is_noted_as_python_chess_reads_the_games() {
    // One database a file: the three files hold the same games (the later two are duplicates).
    for name in FILES {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        indexer::ingest(&store, &[data(&format!("{name}.pgn"))], &mut indexer::SilentObserver).unwrap();
        let games = oracle_games(name);
        assert_every_position(&store, &games);
        assert_opening_reports(&store, &games);
        // Filters of slices answered from the notes summed by slice of every position of two
        // entries or more: asked for once, then built, then from memory; and with a memory too
        // small to keep any.
        for budget in [1 << 40, 1] {
            store.snapshot().summaries().configure(2, budget);
            for _ in 0..3 {
                assert_every_position(&store, &games);
            }
        }
    }
}

#[test]
fn notes_add_up_across_commits() {
    // Half the games a commit, then two copies of them (other rounds: other games) in a third:
    // positions stored by a commit gain games (and its tier positions leave the tier) in the
    // next, and the most common pass the games from which their sums are stored.
    let name = FILES[0];
    let text = std::fs::read_to_string(data(&format!("{name}.pgn"))).unwrap();
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(at, _)| at).collect();
    let half = starts[starts.len() / 2];
    let copies = [1, 2].map(|copy| text.replace("[Round \"", &format!("[Round \"copy {copy} "))).concat();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    for (part, text) in [&text[..half], &text[half..], &copies].into_iter().enumerate() {
        let file = dir.path().join(format!("part-{part}.pgn"));
        std::fs::write(&file, text).unwrap();
        indexer::ingest(&store, &[file], &mut indexer::SilentObserver).unwrap();
    }
    assert_eq!(store.totals().unwrap().games, 3 * starts.len() as u64);
    let games: Vec<OracleGame> = (0..3).flat_map(|_| oracle_games(name)).collect();
    assert!(games.len() > tabiya::store::SUMMED_FROM);
    assert_every_position(&store, &games);
    assert!(tabiya::store::verify(&store, false).problems.is_empty());
}

#[test]
fn verify_finds_notes_that_do_not_add_up() {
    use tabiya::store::layout::notes::{decode_entries, encode_entries};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    {
        let store = Store::open(&db).unwrap();
        indexer::ingest(&store, &[data("annotated-lichess.pgn")], &mut indexer::SilentObserver).unwrap();
        assert!(tabiya::store::verify(&store, false).problems.is_empty());
    }
    // A position's games' notes naming a game no commit made.
    let families = tabiya::store::COLUMN_FAMILIES.iter().copied().chain(["default"]);
    let rocks = rocksdb::DB::open_cf(&rocksdb::Options::default(), &db, families).unwrap();
    let positions = rocks.cf_handle("positions").unwrap();
    let (record, bytes) = rocks
        .iterator_cf(positions, rocksdb::IteratorMode::From(&[0xe1], rocksdb::Direction::Forward))
        .map(|entry| entry.unwrap())
        .next()
        .expect("a position's notes");
    let mut entries = decode_entries(&bytes).unwrap();
    entries.last_mut().unwrap().game = tabiya::model::GameId(1_000);
    rocks.put_cf(positions, &record, encode_entries(&entries)).unwrap();
    rocks.flush_cf(positions).unwrap();
    drop(rocks);
    let store = Store::open(&db).unwrap();
    let problems = tabiya::store::verify(&store, false).problems;
    let found: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.place, p.what)).collect();
    let key = tabiya::Key::try_from(&record[1..]).unwrap();
    assert_eq!(found, [format!("notes of position {key}: game 1000 is not committed")]);
}
