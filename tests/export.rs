//! Exports against a naive replay of the generated games: the Polyglot book's every entry (the
//! tree walk, the filters, the weights) and the position export's every line.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use shakmaty::{Chess, Color, EnPassantMode, Move, Position as _, fen::Epd};
use tabiya::{
    explore::{FilterSpec, PositionRows, Signature},
    export::{Book, BookEntry, BookOptions, BookWeight, PositionExport, PositionFormat, polyglot_key, polyglot_move},
    store::Store,
};

use crate::common::{
    games::{self, Game},
    tabiya,
};

/// Per position (EPD), per move, the games (indices) that played it.
type Plays = HashMap<String, HashMap<Move, BTreeSet<usize>>>;

fn plays(games: &[Game], keep: impl Fn(&Game) -> bool) -> Plays {
    let mut plays = Plays::new();
    for (index, game) in games.iter().enumerate().filter(|(_, game)| keep(game)) {
        let mut position = Chess::default();
        for m in &game.moves {
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            plays.entry(epd).or_default().entry(*m).or_default().insert(index);
            position.play_unchecked(*m);
        }
    }
    plays
}

/// The book the options describe, walked over `plays` without the database.
fn naive_book(games: &[Game], plays: &Plays, options: &BookOptions) -> Vec<BookEntry> {
    let mut seen = HashSet::new();
    let mut frontier = vec![Chess::default()];
    let mut entries = Vec::new();
    let mut ply = 0;
    while !frontier.is_empty() && options.max_ply.is_none_or(|max| ply <= max) {
        let mut next = Vec::new();
        for position in frontier {
            if !seen.insert(Epd::from_position(&position, EnPassantMode::Legal).to_string()) {
                continue;
            }
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            let mover = position.turn();
            let mut weighed = Vec::new();
            for (m, ids) in plays.get(&epd).into_iter().flatten() {
                if (ids.len() as u64) < options.min_games {
                    continue;
                }
                let result = |wanted: &str| ids.iter().filter(|&&i| games[i].result == wanted).count() as u64;
                let wins = result(if mover == Color::White { "1-0" } else { "0-1" });
                let draws = result("1/2-1/2");
                let decided = result("1-0") + result("0-1") + draws;
                let score = if decided == 0 { 0.0 } else { (2 * wins + draws) as f64 * 50.0 / decided as f64 };
                if options.only.is_none_or(|side| side == mover) && options.min_score.is_none_or(|f| score >= f) {
                    let weight = match options.weight {
                        BookWeight::Score => 2 * wins + draws,
                        BookWeight::Games => ids.len() as u64,
                        BookWeight::Uniform => 1,
                    };
                    weighed.push((polyglot_move(m), weight));
                }
                let mut child = position.clone();
                child.play_unchecked(*m);
                next.push(child);
            }
            let key = polyglot_key(&position);
            // The generated collections are small: no weight needs scaling.
            entries.extend(weighed.into_iter().map(|(mv, w)| BookEntry { key, mv, weight: w as u16 }));
        }
        frontier = next;
        ply += 1;
    }
    entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)).then(a.mv.cmp(&b.mv)));
    entries
}

#[test]
fn book_matches_a_naive_walk() {
    let games = games::openings(3000);
    let (_dir, store) = games::build(&games);
    let all = plays(&games, |_| true);
    let cases = [
        BookOptions { min_games: 2, ..BookOptions::default() },
        BookOptions { min_games: 1, max_ply: Some(6), weight: BookWeight::Games, ..BookOptions::default() },
        BookOptions { min_games: 3, only: Some(Color::Black), min_score: Some(50.0), ..BookOptions::default() },
        BookOptions { min_games: 5, max_ply: Some(3), weight: BookWeight::Uniform, ..BookOptions::default() },
    ];
    for options in cases {
        let book = options.make(&store, &Default::default()).unwrap();
        let expected = naive_book(&games, &all, &options);
        assert!(expected.len() > 20, "{options:?}: only {} entries", expected.len());
        assert_eq!(book.entries, expected, "{options:?}");
        assert_eq!(Book::entries_of(&book.to_bytes()).unwrap(), expected);
    }
    // The query's filters: games from 2010 on.
    let since = FilterSpec { since: Some("2010".into()), ..FilterSpec::default() }.filter().unwrap();
    let options = BookOptions { min_games: 2, filter: since, ..BookOptions::default() };
    let recent = plays(&games, |game| game.date.0.is_some_and(|year| year >= 2010));
    let expected = naive_book(&games, &recent, &options);
    assert!(expected.len() > 20);
    assert_eq!(options.make(&store, &Default::default()).unwrap().entries, expected);
}

#[test]
fn book_refuses_bad_options_and_the_command_writes_it() {
    let games = games::openings(400);
    let (dir, store) = games::build(&games);
    for bad in [
        BookOptions { min_games: 0, ..BookOptions::default() },
        BookOptions { min_score: Some(101.0), ..BookOptions::default() },
    ] {
        let err = bad.make(&store, &Default::default()).unwrap_err().to_string();
        assert!(err.contains("at least 1") || err.contains("percentage"), "{err}");
    }
    let expected = BookOptions { min_games: 2, ..BookOptions::default() }.make(&store, &Default::default()).unwrap();
    drop(store);
    let db = dir.path().join("db");
    let path = dir.path().join("book.bin");
    let out =
        tabiya(&["export", "book", "--db", db.to_str().unwrap(), "-o", path.to_str().unwrap(), "--min-games", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("{} entries", expected.entries.len())));
    assert_eq!(std::fs::read(&path).unwrap(), expected.to_bytes());
    let out = tabiya(&["export", "book", "--db", db.to_str().unwrap(), "-o", path.to_str().unwrap(), "--only", "red"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad colour"));
}

/// Counts per position from an export line: (games, white, draws, black).
type Counts = (u64, u64, u64, u64);

#[test]
fn position_export_matches_a_naive_replay() {
    let games = games::openings(1500);
    let (_dir, store) = games::build(&games);
    let mut expected: BTreeMap<String, Counts> = BTreeMap::new();
    for (epd, (_, ids)) in games::positions(&games) {
        let result = |wanted: &str| ids.iter().filter(|&&i| games[i].result == wanted).count() as u64;
        expected.insert(epd, (ids.len() as u64, result("1-0"), result("1/2-1/2"), result("0-1")));
    }
    let export = |rows: PositionRows, min_games, format| {
        let mut out = Vec::new();
        let export = PositionExport { rows, min_games, format };
        let summary = export.write(&store, &mut out, |_, _| {}).unwrap();
        (String::from_utf8(out).unwrap(), summary)
    };
    // EPD: every position of 2+ games, once, with its counts and White's score.
    let (epd, summary) = export(PositionRows::default(), 2, PositionFormat::Epd);
    let mut seen = BTreeMap::new();
    for line in epd.lines() {
        let (position, ops) = line.split_once(" c0 ").unwrap();
        let numbers: Vec<u64> = ops.split(['"', ' ']).filter_map(|w| w.parse().ok()).collect();
        let counts = (numbers[0], numbers[1], numbers[2], numbers[3]);
        let decided = counts.1 + counts.2 + counts.3;
        match ops.split("c9 \"").nth(1) {
            Some(score) => {
                let score: f64 = score.trim_end_matches("\";").parse().unwrap();
                assert!((score - (2 * counts.1 + counts.2) as f64 / (2 * decided) as f64).abs() < 1e-4, "{line}");
            }
            None => assert_eq!(decided, 0, "{line}"),
        }
        assert!(seen.insert(position.to_owned(), counts).is_none(), "{position} twice");
    }
    let many: BTreeMap<String, Counts> =
        expected.iter().filter(|(_, c)| c.0 >= 2).map(|(e, c)| (e.clone(), *c)).collect();
    assert!(many.len() > 100);
    assert_eq!(seen, many);
    assert_eq!(summary.positions, many.len() as u64);
    // CSV of one material, every position (one-game ones included): material and FEN agree.
    let signature: Signature = "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPP".parse().unwrap();
    let rows = PositionRows { material: Some(signature), ..PositionRows::default() };
    let (csv, _) = export(rows, 1, PositionFormat::Csv);
    let mut lines = csv.lines();
    let header = "key,fen,material,games,white,draws,black,average_rating,eval_games,eval_cp,white_mates,black_mates";
    assert_eq!(lines.next(), Some(header));
    let mut listed = BTreeSet::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[2], "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPP", "{line}");
        let counts: Vec<u64> = fields[3..7].iter().map(|f| f.parse().unwrap()).collect();
        assert_eq!(expected[fields[1]], (counts[0], counts[1], counts[2], counts[3]), "{line}");
        listed.insert(fields[1].to_owned());
    }
    let one_pawn_down: BTreeSet<String> = expected
        .keys()
        .filter(|epd| {
            let board = epd.split(' ').next().unwrap();
            board.matches('p').count() == 7 && board.matches('P').count() == 8 && board.len() > 40
        })
        .filter(|epd| {
            let board = epd.split(' ').next().unwrap();
            ["q", "r", "b", "n"].iter().zip([1, 2, 2, 2]).all(|(p, n)| board.matches(p).count() == n)
                && ["Q", "R", "B", "N"].iter().zip([1, 2, 2, 2]).all(|(p, n)| board.matches(p).count() == n)
        })
        .cloned()
        .collect();
    assert!(!one_pawn_down.is_empty());
    assert_eq!(listed, one_pawn_down);
}

#[test]
fn parquet_export_holds_the_csv_rows() {
    let games = games::openings(800);
    let (dir, store) = games::build(&games);
    let positions = assert_parquet_holds_the_csv_rows(&store, dir.path());
    assert!(positions > 1000);
    // Annotated games: their evaluations in both, and the EPD's `ce` is the lookup's `eval`.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let pgn = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/annotated-lichess.pgn");
    ::tabiya::indexer::ingest(&store, &[pgn], &mut ::tabiya::indexer::SilentObserver).unwrap();
    assert!(assert_parquet_holds_the_csv_rows(&store, dir.path()) > 1000);
    let mut epd = Vec::new();
    let export = PositionExport { rows: PositionRows::default(), min_games: 2, format: PositionFormat::Epd };
    export.write(&store, &mut epd, |_, _| {}).unwrap();
    let mut evaluated = 0;
    for line in String::from_utf8(epd).unwrap().lines() {
        let fen = line.split(" c0 ").next().unwrap();
        let target = ::tabiya::explore::Target::fen(fen).resolve().unwrap();
        let lookup = ::tabiya::explore::Lookup { target, filter: Default::default(), limits: Default::default() };
        let answer = lookup.run(&store).unwrap();
        let ce = line.split(" ce ").nth(1).map(|ce| ce.trim_end_matches(';').parse::<f64>().unwrap());
        let mover = if fen.split(' ').nth(1) == Some("w") { 1.0 } else { -1.0 };
        let expected = answer.eval.and_then(|eval| eval.cp).map(|cp| (mover * cp).round());
        assert_eq!(ce, expected, "{line}");
        let evals = answer.eval.map(|eval| format!(" evals {}\"", eval.games)).unwrap_or("\"".to_owned());
        assert!(line.contains(&evals), "{line}");
        evaluated += usize::from(ce.is_some());
    }
    assert!(evaluated > 100, "{evaluated}");
}

/// The Parquet export of every position of `store` holds the CSV export's rows; their count.
fn assert_parquet_holds_the_csv_rows(store: &Store, dir: &std::path::Path) -> u64 {
    use arrow_array::Array as _;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let export = |format, out: &mut Vec<u8>| {
        let export = PositionExport { rows: PositionRows::default(), min_games: 1, format };
        export.write(store, out, |_, _| {}).unwrap()
    };
    let (mut csv, mut table) = (Vec::new(), Vec::new());
    let summary = export(PositionFormat::Csv, &mut csv);
    assert_eq!(export(PositionFormat::Parquet, &mut table), summary);
    let path = dir.join("positions.parquet");
    std::fs::write(&path, &table).unwrap();
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
    let mut lines = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let text = |at: usize| batch.column(at).as_any().downcast_ref::<arrow_array::StringArray>().unwrap().clone();
        let count = |at: usize| batch.column(at).as_any().downcast_ref::<arrow_array::UInt64Array>().unwrap().clone();
        let rating = batch.column(7).as_any().downcast_ref::<arrow_array::UInt16Array>().unwrap().clone();
        let cp = batch.column(9).as_any().downcast_ref::<arrow_array::Float64Array>().unwrap().clone();
        let (key, fen, material) = (text(0), text(1), text(2));
        let counts = [count(3), count(4), count(5), count(6), count(8), count(10), count(11)];
        for row in 0..batch.num_rows() {
            let rating = if rating.is_null(row) { String::new() } else { rating.value(row).to_string() };
            let cp = if cp.is_null(row) { String::new() } else { format!("{:.2}", cp.value(row)) };
            let [g, w, d, b, evals, white_mates, black_mates] = counts.each_ref().map(|c| c.value(row));
            lines.push(format!(
                "{},{},{},{g},{w},{d},{b},{rating},{evals},{cp},{white_mates},{black_mates}",
                key.value(row),
                fen.value(row),
                material.value(row)
            ));
        }
    }
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(lines, csv.lines().skip(1).collect::<Vec<_>>());
    assert_eq!(lines.len() as u64, summary.positions);
    summary.positions
}
