//! Ingestion with known answers: hand-made games whose position counts are worked out by hand,
//! duplicates and overlapping collections, bad input around good games.

use std::path::{Path, PathBuf};

use tabiya::{
    Key, Position,
    indexer::{self, Observer, Prepared, Progress, Summary},
    input::{InputError, RawGame, Rejection},
    model::{GameId, PositionStats, replay},
    store::{RunStatus, Store},
};

/// Records what an ingest run reported.
#[derive(Default)]
struct Recorder {
    rejected: Vec<(String, Rejection)>,
    read_errors: Vec<String>,
}

impl Observer for Recorder {
    fn rejected(&mut self, file: &str, rejection: &Rejection, _raw: &[u8]) {
        self.rejected.push((file.to_owned(), rejection.clone()));
    }
    fn read_error(&mut self, file: &str, error: &InputError) {
        self.read_errors.push(format!("{file}: {error}"));
    }
    fn progress(&mut self, _progress: &Progress) {}
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn ingest(store: &Store, files: &[PathBuf]) -> (Summary, Recorder) {
    let mut recorder = Recorder::default();
    let summary = indexer::ingest(store, files, &mut recorder).unwrap();
    (summary, recorder)
}

fn stats(store: &Store, fen: &str) -> PositionStats {
    let position: Position = fen.parse().unwrap();
    tabiya::explore::position_stats(&store.snapshot(), &Key::encode(&position).unwrap()).unwrap().unwrap_or_default()
}

fn game(tags: &str, moves: &str) -> String {
    format!("{tags}\n\n{moves}\n\n")
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn known_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = String::new();
    // 1, 2: the same position by two move orders (1.e4 e5 2.Nf3 Nc6 = 1.Nf3 Nc6 2.e4 e5).
    pgn += &game(
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2400\"]\n[Date \"1990.01.01\"]",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0",
    );
    pgn += &game(
        "[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n[Date \"2001.05.05\"]",
        "1. Nf3 Nc6 2. e4 e5 3. Bc4 0-1",
    );
    // 3: a repetition: the start position occurs three times, counted once.
    pgn += &game(
        "[White \"e\"]\n[Black \"f\"]\n[Result \"1/2-1/2\"]",
        "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2",
    );
    // 4: rooks leave and come back: same placement as after 1.Nf3 Nf6, without the h-side rights.
    pgn += &game("[White \"g\"]\n[Black \"h\"]\n[Result \"*\"]", "1. Nf3 Nf6 2. Rg1 Rg8 3. Rh1 Rh8 *");
    // 5: a set-up game with a promotion.
    pgn += &game(
        "[White \"i\"]\n[Black \"j\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 1\"]",
        "1. a8=Q+ Kd7 2. Qb7+ 1-0",
    );
    // 6: a usable en-passant capture (after 3...d5 White may play exd6).
    pgn += &game("[White \"k\"]\n[Black \"l\"]\n[Result \"0-1\"]", "1. e4 Nf6 2. e5 Nd5 3. Nc3 f5 0-1");
    // 7: the same placement set up without the en-passant square: another position.
    pgn += &game(
        "[White \"m\"]\n[Black \"n\"]\n[Result \"1-0\"]\n[FEN \"rnbqkb1r/ppppp1pp/8/3nPp2/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 4\"]",
        "4. Nxd5 1-0",
    );
    let file = write(dir.path(), "known.pgn", &pgn);
    let store = Store::open(&dir.path().join("db")).unwrap();
    let (summary, recorder) = ingest(&store, &[file]);
    assert!(recorder.rejected.is_empty(), "{:?}", recorder.rejected);
    assert_eq!(summary.run.counts.indexed, 7);
    assert_eq!(summary.totals.games, 7);

    let start = stats(&store, START);
    assert_eq!(start.total.games, 5, "games 1, 2, 3, 4, 6 start from the initial position");
    assert_eq!((start.total.white, start.total.draws, start.total.black), (1, 1, 2));
    let mut next: Vec<(String, u64)> = start.moves.iter().map(|(m, t)| (m.to_string(), t.games)).collect();
    next.sort();
    assert_eq!(next, [("e2e4".to_owned(), 2), ("g1f3".to_owned(), 3)]);
    assert_eq!((start.min_year, start.max_year), (1990, 2001));

    let transposed = stats(&store, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    assert_eq!(transposed.total.games, 2);
    assert_eq!((transposed.total.white, transposed.total.black), (1, 1));
    assert_eq!(transposed.total.white_rated + transposed.total.black_rated, 2);
    assert_eq!(transposed.total.average_rating(), Some(2450));
    assert_eq!(transposed.moves.len(), 2, "Bb5 and Bc4");

    let after_nf6 = stats(&store, "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2");
    assert_eq!(after_nf6.total.games, 2, "games 3 and 4; the repetition counts once");
    let ng1 = after_nf6.moves.iter().find(|(m, _)| m.to_string() == "f3g1").map(|(_, t)| t.games);
    assert_eq!(ng1, Some(1));
    let no_h_rights = stats(&store, "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w Qq - 6 4");
    assert_eq!(no_h_rights.total.games, 1);
    assert!(no_h_rights.moves.is_empty(), "the final position has no next move");

    let promoted = stats(&store, "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!((promoted.total.games, promoted.total.white), (1, 1));
    assert_eq!(stats(&store, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1").total.games, 1);

    let with_ep = stats(&store, "rnbqkb1r/ppppp1pp/8/3nPp2/8/2N5/PPPP1PPP/R1BQKBNR w KQkq f6 0 4");
    let without_ep = stats(&store, "rnbqkb1r/ppppp1pp/8/3nPp2/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 4");
    assert_eq!((with_ep.total.games, with_ep.total.black), (1, 1));
    assert_eq!((without_ep.total.games, without_ep.total.white), (1, 1));
    // After 1.e4 the en-passant square is unusable: the FEN with or without it is one position.
    assert_eq!(stats(&store, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").total.games, 2);

    // Every stored game reads back with its moves.
    for id in 1..=7 {
        let record = store.snapshot().games().get(GameId(id)).unwrap().unwrap();
        let positions = replay(&record).unwrap();
        assert_eq!(positions.len(), record.plies() + 1);
    }
}

#[test]
fn duplicates_and_overlaps_change_no_count() {
    let dir = tempfile::tempdir().unwrap();
    let games: Vec<String> = (0..6)
        .map(|i| {
            game(
                &format!("[Event \"e{i}\"]\n[White \"w{i}\"]\n[Black \"b\"]\n[Date \"2000.01.0{i}\"]\n[Round \"1\"]\n[Result \"1-0\"]"),
                ["1. e4 e5 2. Nf3 1-0", "1. d4 d5 2. c4 1-0", "1. c4 1-0"][i % 3],
            )
        })
        .collect();
    // The same game in another file with another Event tag is still the same game.
    let renamed = games[0].replace("[Event \"e0\"]", "[Event \"elsewhere\"]");
    // Same moves and players, another round: another game.
    let other_round = games[0].replace("[Round \"1\"]", "[Round \"2\"]");
    let a = write(dir.path(), "a.pgn", &games[..4].concat());
    let b = write(dir.path(), "b.pgn", &[&games[2..].concat(), renamed.as_str(), other_round.as_str()].concat());

    let union = Store::open(&dir.path().join("union")).unwrap();
    let all = write(dir.path(), "all.pgn", &[&games.concat(), other_round.as_str()].concat());
    let (clean, _) = ingest(&union, &[all]);
    assert_eq!(clean.totals.games, 7);

    let store = Store::open(&dir.path().join("db")).unwrap();
    let (first, _) = ingest(&store, std::slice::from_ref(&a));
    assert_eq!((first.run.counts.indexed, first.run.counts.duplicates), (4, 0));
    let (again, _) = ingest(&store, &[a]);
    assert_eq!((again.run.counts.indexed, again.run.counts.duplicates), (0, 4));
    assert_eq!(again.totals, first.totals);
    let (overlap, _) = ingest(&store, &[b]);
    assert_eq!((overlap.run.counts.indexed, overlap.run.counts.duplicates), (3, 3));
    assert_eq!(overlap.totals, clean.totals);
    // Game ids follow ingest order, so which id played which move differs; every count agrees.
    let without_ids = |stats: PositionStats| PositionStats { games_by_move: Vec::new(), ..stats };
    assert_eq!(without_ids(stats(&store, START)), without_ids(stats(&union, START)));
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs.iter().all(|r| r.status == RunStatus::Completed));
}

#[test]
fn games_written_for_a_commit_that_never_came_are_invisible_then_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let tags = |i: u32| format!("[White \"w{i}\"]\n[Black \"b{i}\"]\n[Result \"1-0\"]");
    let first = write(dir.path(), "first.pgn", &game(&tags(0), "1. e4 e5 1-0"));
    let later_text = game(&tags(1), "1. d4 d5 1-0");
    let later = write(dir.path(), "later.pgn", &later_text);
    let path = dir.path().join("db");
    let store = Store::open(&path).unwrap();
    ingest(&store, &[first]);
    let committed = store.totals().unwrap();
    assert_eq!(committed.games, 1);

    // What a run killed before its commit leaves: the later game under the next id, with its
    // fingerprint and players entries, and no positions.
    let raw = RawGame { number: 1, line: 1, text: later_text.into_bytes() };
    let Prepared::Game(orphan) = indexer::prepare(raw, |_| false) else { panic!("the game prepares") };
    let id = GameId(committed.next_game_id);
    let writer = store.writer().unwrap();
    let mut batch = writer.batch();
    batch.put_game(id, &orphan.record, None);
    batch.put_fingerprints([(orphan.fingerprint, id)]);
    batch.put_players([(id, orphan.record.tags.white.as_str(), orphan.record.tags.black.as_str())]);
    batch.commit().unwrap();
    writer.flush().unwrap();
    drop(store);

    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.totals().unwrap(), committed);
    let view = reader.snapshot();
    assert_eq!(view.games().get(id).unwrap(), None);
    assert_eq!(
        view.games().get_many(&[GameId(1), id]).unwrap().iter().map(Option::is_some).collect::<Vec<_>>(),
        [true, false]
    );
    assert!(view.players().games("w1", None).unwrap().is_empty());
    assert_eq!(view.players().games("w0", None).unwrap(), [GameId(1)]);
    drop(view);
    drop(reader);

    // The next writer removes it first, so the game is new to it, not a duplicate.
    let store = Store::open(&path).unwrap();
    let (run, _) = ingest(&store, &[later]);
    assert_eq!((run.run.counts.indexed, run.run.counts.duplicates), (1, 0));
    assert_eq!(run.totals.games, 2);
    assert_eq!(store.snapshot().players().games("w1", None).unwrap(), [id]);
    assert_eq!(stats(&store, "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2").game_ids, [id]);
}

#[test]
fn bad_games_are_reported_and_good_games_around_them_kept() {
    let dir = tempfile::tempdir().unwrap();
    let good = |i: usize| {
        game(&format!("[White \"good{i}\"]\n[Result \"1-0\"]"), "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0")
    };
    let text = [
        good(1),
        // Game 2 starts on line 6; its illegal move is on line 11.
        "[White \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Bb5 Ke5 *\n\n".to_owned(),
        good(3),
        "[White \"bad fen\"]\n[FEN \"rnbqkbnr/pppppppp/8/8 w KQkq - 0 1\"]\n\n1. e4 *\n\n".to_owned(),
        "[Variant \"Crazyhouse\"]\n\n1. e4 *\n\n".to_owned(),
        "[Variant \"Chess960\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n\n1. e4 *\n\n"
            .to_owned(),
        "[White \"ambiguous\"]\n\n1. Nf3 d5 2. d3 e5 3. Nd2 *\n\n".to_owned(),
        "[White \"latin-1 \u{e9}\"]\n\n1. d4 *\n\n".to_owned(),
        good(9),
        "[White \"truncated\"]\n\n1. e4 e5 2. Nf3".to_owned(),
    ]
    .concat();
    let mut bytes = text.into_bytes();
    // Make game 8's tag Latin-1 rather than UTF-8.
    let at = bytes.windows(2).position(|w| w == "\u{e9}".as_bytes()).unwrap();
    bytes.splice(at..at + 2, [0xe9]);
    let path = dir.path().join("mixed.pgn");
    std::fs::write(&path, bytes).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let (summary, recorder) = ingest(&store, &[path]);
    assert_eq!(summary.run.counts.games_read, 10);
    // The Chess960 game (6) is indexed in Chess960's space.
    assert_eq!(summary.run.counts.indexed, 5, "{:?}", recorder.rejected);
    let reasons: Vec<(u64, u64, &str)> =
        recorder.rejected.iter().map(|(_, r)| (r.game, r.line, r.reason.name())).collect();
    assert_eq!(
        reasons,
        [
            (2, 11, "illegal_move"),
            (4, 18, "bad_fen"),
            (5, 23, "variant"),
            (7, 34, "illegal_move"),
            (10, 45, "truncated"),
        ]
    );
    assert!(recorder.rejected[0].1.detail.contains("Ke5"), "{}", recorder.rejected[0].1.detail);
    // Ids follow the games' mainline order within a batch: find the Latin-1 game by its player.
    let whites: Vec<String> = (1..=summary.totals.games)
        .map(|id| store.snapshot().games().get(GameId(id)).unwrap().unwrap().tags.white)
        .collect();
    assert!(whites.iter().any(|w| w == "latin-1 \u{e9}"), "{whites:?}");
    let mate = stats(&store, "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
    assert_eq!(mate.total.games, 3);
}

#[test]
fn a_truncated_compressed_file_keeps_the_games_before_the_break() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..6000)
        .map(|i| game(&format!("[White \"player {i}\"]\n[Result \"1-0\"]"), "1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0"))
        .collect();
    let compressed = zstd::encode_all(text.as_bytes(), 1).unwrap();
    let path = dir.path().join("cut.pgn.zst");
    std::fs::write(&path, &compressed[..compressed.len() * 3 / 4]).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let (summary, recorder) = ingest(&store, &[path]);
    assert_eq!(summary.read_errors, 1);
    assert!(recorder.read_errors[0].contains("reading stopped after game"), "{:?}", recorder.read_errors);
    assert!(summary.run.counts.indexed > 1000, "{:?}", summary.run.counts);
    assert_eq!(summary.run.counts.indexed, summary.run.counts.games_read);
}

/// A database of an older format (here format 4's six families, without `facts`) is refused
/// with a message to ingest again, by readers and by a writer, and the writer leaves it as it
/// was: no family of the new format is created in it.
#[test]
fn an_older_format_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old");
    let families = ["positions", "games", "fingerprints", "players", "openings", "meta"];
    {
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = rocksdb::DB::open_cf(&options, &path, families).unwrap();
        db.put_cf(db.cf_handle("meta").unwrap(), b"format", 4u32.to_be_bytes()).unwrap();
        db.flush_cf(db.cf_handle("meta").unwrap()).unwrap();
    }
    let listed = || {
        let mut names = rocksdb::DB::list_cf(&rocksdb::Options::default(), &path).unwrap();
        names.sort();
        names
    };
    let before = listed();
    for opened in [Store::open(&path), Store::open_read_only(&path), Store::open_secondary(&path)] {
        let Err(err) = opened else { panic!("an older format opened") };
        let message = err.to_string();
        assert!(message.contains("database format 4") && message.contains("ingest"), "{message}");
    }
    assert_eq!(listed(), before);
    assert!(!before.iter().any(|name| name == "facts"));
}

/// Verbatim copies of games read in earlier chunks (over 1,024 games before) are duplicates
/// without a parse, with every count as a full parse finds it: copies of accepted games count
/// as duplicates and a copy of a rejected game is reported again with its own number and line.
/// The database is the one the distinct games make.
#[test]
fn verbatim_copies_count_as_the_parse_would() {
    use tabiya::indexer::IngestOptions;
    let dir = tempfile::tempdir().unwrap();
    let distinct = |i: usize| {
        let moves = ["1. e4 e5 2. Nf3 Nc6 1-0", "1. d4 d5 2. c4 e6 0-1", "1. c4 e5 1/2-1/2"][i % 3];
        let date = format!("{}.{:02}.{:02}", 1900 + i / 300, i / 25 % 12 + 1, i % 25 + 1);
        game(&format!("[White \"w{i}\"]\n[Black \"b{i}\"]\n[Date \"{date}\"]\n[Result \"*\"]"), moves)
    };
    let broken = "[White \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5\n2. Ke3 *\n\n".to_owned();
    // The twin of game 1: the same players spelled otherwise, date and moves.
    let twin = distinct(1).replace("[White \"w1\"]", "[White \"W1\"]");
    let mut first: Vec<String> = (1..=1100).map(distinct).collect();
    first.insert(1, broken.clone());
    first.insert(2, twin.clone());
    // Copies far past the first chunk: of accepted games, of the broken one, of the twin.
    let copies = [distinct(1), distinct(3), broken, twin, distinct(3)];
    let text = [first.concat(), copies.concat()].concat();
    let path = write(dir.path(), "copies.pgn", &text);
    let broken_lines: Vec<u64> =
        text.lines().enumerate().filter(|(_, line)| line.contains("Ke3")).map(|(at, _)| at as u64 + 1).collect();

    let store = Store::open(&dir.path().join("db")).unwrap();
    let (summary, recorder) = ingest(&store, std::slice::from_ref(&path));
    let counts = &summary.run.counts;
    assert_eq!(counts.games_read, 1107);
    // The twin is a game of its own here; its copy and three others are duplicates.
    assert_eq!((counts.indexed, counts.duplicates, counts.twins), (1101, 4, 0));
    let rejected: Vec<(u64, u64)> = recorder.rejected.iter().map(|(_, r)| (r.game, r.line)).collect();
    assert_eq!(rejected, [(2, broken_lines[0]), (1105, broken_lines[1])]);

    // The same games without their copies make the same positions.
    let alone = Store::open(&dir.path().join("alone")).unwrap();
    ingest(&alone, &[write(dir.path(), "first.pgn", &first.concat())]);
    assert_eq!(alone.totals().unwrap(), store.totals().unwrap());
    assert_eq!(stats(&alone, START), stats(&store, START));

    // Skipping twins, every copy is parsed: the twin is skipped, and its copy read later in the
    // batch is its duplicate.
    let skipping = Store::open(&dir.path().join("skipping")).unwrap();
    let skip = IngestOptions { skip_twins: Some(tabiya::model::twins::MIN_PREFIX_PLIES) };
    let summary = indexer::ingest_with(&skipping, &[path], &skip, &mut Recorder::default()).unwrap();
    let counts = &summary.run.counts;
    assert_eq!((counts.indexed, counts.duplicates, counts.twins), (1100, 4, 1));
}

/// A `FEN` tag ingest reads as PGN readers do (fields left to their defaults, `_` for spaces,
/// a castling letter twice) is read back the same way: the stored game replays, its positions
/// are found, and a game list prints it.
#[test]
fn games_from_lenient_fen_tags_replay_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let tags = ["4k3/8/8/8/8/8/8/4K2R w K", "4k3/8/8/8/8/8/8/4K2R_w_K_-_0_1", "r3k3/8/8/8/8/8/8/4K2R w KKq - 0 1"];
    let text: String = tags
        .iter()
        .enumerate()
        .map(|(at, fen)| {
            game(&format!("[White \"W{at}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"1-0\"]"), "1. Rh2 Kd7 1-0")
        })
        .collect();
    let pgn = write(dir.path(), "setup.pgn", &text);
    let store = Store::open(&dir.path().join("db")).unwrap();
    let (summary, recorder) = ingest(&store, &[pgn]);
    assert_eq!(summary.run.counts.indexed, 3, "{:?}", recorder.rejected);
    let view = store.snapshot();
    for (id, record) in (1..=3).map(GameId).zip(view.games().get_many(&[GameId(1), GameId(2), GameId(3)]).unwrap()) {
        let record = record.expect("stored");
        let positions =
            replay(&record).unwrap_or_else(|| panic!("game {id:?} ({:?}) does not replay", record.setup_fen()));
        assert_eq!(positions.len(), 3);
    }
    let after = stats(&store, "8/3k4/8/8/8/8/7R/4K3 w - -");
    assert_eq!(after.total.games, 2, "the two games without black castling reach it");
}

/// A folder of many small files is cut into batches as one stream of games, across files: it
/// stores the bytes (every family's digest, the games' ids included) that one file of the same
/// games does, a batch's end inside a file. A file that cannot be read changes nothing else; a
/// broken game (a file of its own) is a game of the stream as it is of the one file.
#[test]
fn a_folder_of_small_files_stores_the_bytes_of_one_file_of_its_games() {
    use crate::{common, db_digest};

    let distinct: Vec<String> = common::games::openings(18_000).iter().map(|game| game.pgn() + "\n").collect();
    // Copies of other games among them, some in a later file, some in an earlier one.
    let mut games = Vec::new();
    for (at, game) in distinct.iter().enumerate() {
        games.push(game.clone());
        if at % 9 == 0 {
            games.push(distinct[at * 7 % distinct.len()].clone());
        }
    }
    let broken = "1. e4 e5 2. Ke3 *\n\n";
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = games
        .chunks(700)
        .enumerate()
        .map(|(at, chunk)| write(dir.path(), &format!("part-{at:03}.pgn"), &chunk.concat()))
        .collect();
    assert!(files.len() > 16_384 / 700 + 1 && !16_384usize.is_multiple_of(700));
    files.insert(3, dir.path().join("missing.pgn"));
    files.insert(10, write(dir.path(), "broken.pgn", broken));
    let mut text = games[..9 * 700].concat();
    text.push_str(broken);
    text.push_str(&games[9 * 700..].concat());
    let one = write(dir.path(), "all.pgn", &text);

    let single = Store::open(&dir.path().join("single")).unwrap();
    let (whole, whole_recorder) = ingest(&single, &[one]);
    let folder = Store::open(&dir.path().join("folder")).unwrap();
    let (parts, recorder) = ingest(&folder, &files);
    assert_eq!(recorder.read_errors.len(), 1, "{:?}", recorder.read_errors);
    assert_eq!(recorder.rejected.len(), 1, "{:?}", recorder.rejected);
    assert_eq!(whole_recorder.rejected.len(), 1, "{:?}", whole_recorder.rejected);
    assert_eq!(parts.run.counts, whole.run.counts);
    assert!(whole.run.counts.indexed > 10_000 && whole.run.counts.duplicates > 1_000, "{:?}", whole.run.counts);
    drop((single, folder));
    let want = db_digest::digests(&dir.path().join("single")).unwrap();
    assert_eq!(db_digest::digests(&dir.path().join("folder")).unwrap(), want);
}
