//! Round trips over the shared real-data sets (`../shared/datasets`, present in CI): the EPD and
//! perft suites, the promoted-piece positions of real games, every position of every game of the
//! players collection, and ingestion of that collection checked against a naive replay.
//!
//! Every test here is ignored unless asked for (`--include-ignored`, which tools/ci/test.sh passes
//! when it finds the datasets), and fails when asked for without them.

use crate::common;

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    io::Read as _,
    ops::ControlFlow,
    path::{Path, PathBuf},
};

use common::datasets;
use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, EnPassantMode, Position as _, fen::Epd};
use tabiya::{
    Category, Key, Material, Position,
    codec::material_range,
    explore::{Filter, FilteredStats, Limits, Lookup, Target, parse_openings},
    indexer,
    input::codec_check::check_paths,
    input::read_position_lines,
    model::GameId,
    store::Store,
};

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn position_suites_round_trip() {
    let dir = datasets();
    let report = check_paths(&[dir.join("positions")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert!(report.positions > 100_000, "{} positions", report.positions);
    // What the suites hold that is not a keyable standard position, by reason.
    assert_eq!(report.rejected.get("Chess960 castling rights"), Some(&1865));
    assert_eq!(report.rejected.get("illegal position"), Some(&4));
    // shakmaty's tricky.perft has a deliberately impossible position (3 promotions by Black,
    // who lost nothing that a white pawn could have captured): Tomic's bound rejects it.
    let impossible: u64 =
        report.rejected.iter().filter(|(r, _)| r.contains("impossible material")).map(|(_, n)| n).sum();
    assert_eq!(impossible, 2);
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn promoted_positions_from_real_games_round_trip() {
    let dir = datasets();
    let report = check_paths(&[dir.join("positions/players-promoted.epd")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    assert_eq!(report.positions, 89_717);
}

/// Ranges of distinct (category, material) pairs found in real games never overlap, and each
/// position's key lies in its own range.
#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn real_material_ranges_are_disjoint() {
    let dir = datasets();
    let file = std::fs::File::open(dir.join("positions/players-promoted.epd")).unwrap();
    let mut pairs = std::collections::HashSet::new();
    read_position_lines(file, "players-promoted.epd", |line| {
        let position = line.expect("real positions parse").position;
        let (category, material) = (Category::of(&position), Material::of(&position));
        let range = material_range(category, &material).unwrap();
        assert!(range.contains(&Key::encode(&position).unwrap()));
        pairs.insert((category, material.to_string()));
    })
    .unwrap();
    let mut ranges: Vec<_> = pairs
        .iter()
        .map(|(category, material)| material_range(*category, &material.parse().unwrap()).unwrap())
        .collect();
    assert!(ranges.len() > 1000, "{} ranges", ranges.len());
    ranges.sort_by_key(|r| r.first);
    for pair in ranges.windows(2) {
        assert!(pair[0].last < pair[1].first, "{:?} overlaps {:?}", pair[0], pair[1]);
    }
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn every_players_position_round_trips() {
    let dir = datasets();
    let report = check_paths(&[dir.join("players.pgn.zst")], |_| {}).unwrap();
    assert_eq!(report.failed, 0, "{:#?}", report.failures);
    assert_eq!(report.positions, 33_424_331);
    // The two games with an illegal move in the source (Gelfand-Gareev, Schleining-Paehtz).
    assert_eq!(report.rejected.get("game skipped: illegal_move"), Some(&2));
}

/// The first `games` games of the players collection, as a PGN file in `dir`.
pub(crate) fn players_head(dir: &Path, games: usize) -> PathBuf {
    let players = datasets().join("players.pgn.zst");
    let mut text = Vec::new();
    zstd::Decoder::new(std::fs::File::open(players).unwrap()).unwrap().read_to_end(&mut text).unwrap();
    let cut = text.windows(7).enumerate().filter(|(_, w)| w == b"[Event ").nth(games).map_or(text.len(), |(at, _)| at);
    let path = dir.join("head.pgn");
    std::fs::write(&path, &text[..cut]).unwrap();
    path
}

/// An independent count: pgn-reader straight into shakmaty, positions named by EPD text, games
/// told apart by moves and the White/Black/Date/Round tags.
#[derive(Default)]
struct NaiveGame {
    tags: HashMap<String, String>,
    moves: Vec<String>,
    epds: HashSet<String>,
    position: Chess,
    broken: bool,
}

struct Naive;

impl Visitor for Naive {
    type Tags = NaiveGame;
    type Movetext = NaiveGame;
    type Output = Option<NaiveGame>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, NaiveGame> {
        ControlFlow::Continue(NaiveGame::default())
    }
    fn tag(&mut self, game: &mut NaiveGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        let value = value
            .decode_utf8()
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| value.as_bytes().iter().map(|&b| b as char).collect());
        game.tags.insert(String::from_utf8_lossy(name).into_owned(), value.trim().to_owned());
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, mut game: NaiveGame) -> ControlFlow<Self::Output, NaiveGame> {
        assert!(!game.tags.contains_key("FEN"), "the players collection has no set-up games");
        game.epds.insert(Epd::from_position(&game.position, EnPassantMode::Legal).to_string());
        ControlFlow::Continue(game)
    }
    fn san(&mut self, game: &mut NaiveGame, san: SanPlus) -> ControlFlow<Self::Output> {
        match san.san.to_move(&game.position) {
            Ok(m) if !game.broken => {
                game.moves.push(m.to_string());
                game.position.play_unchecked(m);
                game.epds.insert(Epd::from_position(&game.position, EnPassantMode::Legal).to_string());
            }
            _ => game.broken = true,
        }
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _game: &mut NaiveGame) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }
    fn end_game(&mut self, game: NaiveGame) -> Self::Output {
        (!game.broken).then_some(game)
    }
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn ingest_matches_a_naive_replay() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = players_head(dir.path(), 6_000);
    let store = Store::open(&dir.path().join("db")).unwrap();
    let summary = indexer::ingest(&store, std::slice::from_ref(&pgn), &mut indexer::SilentObserver).unwrap();

    let mut reader = Reader::new(std::fs::File::open(&pgn).unwrap());
    let mut seen = HashSet::new();
    let (mut read, mut duplicates) = (0, 0);
    let mut expected: HashMap<String, [u64; 4]> = HashMap::new();
    // The same, for games since 2005 with an average rating of 2500 or more.
    let mut filtered: HashMap<String, [u64; 4]> = HashMap::new();
    while let Some(game) = reader.read_game(&mut Naive).unwrap() {
        read += 1;
        let Some(game) = game else { continue };
        let tag = |name: &str| game.tags.get(name).cloned().unwrap_or_default();
        if !seen.insert((game.moves.clone(), tag("White"), tag("Black"), tag("Date"), tag("Round"))) {
            duplicates += 1;
            continue;
        }
        let result = tag("Result");
        let elo = |name: &str| tag(name).parse::<u32>().ok().filter(|&r| r > 0 && r < 65536);
        let average = match (elo("WhiteElo"), elo("BlackElo")) {
            (Some(w), Some(b)) => Some((w + b).div_ceil(2)),
            (Some(r), None) | (None, Some(r)) => Some(r),
            (None, None) => None,
        };
        let year: Option<u32> = tag("Date").get(..4).and_then(|y| y.parse().ok());
        let kept = average.is_some_and(|r| r >= 2500) && year.is_some_and(|y| y >= 2005);
        for epd in &game.epds {
            let tables = if kept { [Some(&mut expected), Some(&mut filtered)] } else { [Some(&mut expected), None] };
            for table in tables.into_iter().flatten() {
                let counts = table.entry(epd.clone()).or_default();
                counts[0] += 1;
                counts[1] += u64::from(result == "1-0");
                counts[2] += u64::from(result == "1/2-1/2");
                counts[3] += u64::from(result == "0-1");
            }
        }
    }
    assert_eq!(summary.run.counts.games_read, read);
    assert_eq!(summary.run.counts.duplicates, duplicates);
    assert_eq!(summary.run.counts.indexed, seen.len() as u64);
    assert!(duplicates > 0, "the head of the collection has duplicates");
    assert_eq!(summary.totals.distinct_positions, Some(expected.len() as u64));
    assert_eq!(summary.totals.position_occurrences, expected.values().map(|c| c[0]).sum::<u64>());
    for (epd, counts) in &expected {
        let position: Position = epd.parse().unwrap();
        let key = Key::encode(&position).unwrap();
        let stats = tabiya::explore::position_stats(&store.snapshot(), &key).unwrap().unwrap();
        let t = stats.total;
        assert_eq!([t.games, t.white, t.draws, t.black], *counts, "{epd}");
        // The posting list holds one id per game, each a stored game.
        let ids = store.snapshot().positions().game_ids(&key).unwrap();
        assert_eq!(ids.len() as u64, t.games, "{epd}");
        assert!(ids.iter().all(|&id| id.0 >= 1 && id.0 <= summary.totals.games), "{epd}");
    }
    let filter = Filter::default().with_dates(Some("2005"), None).unwrap().with_rating_range(Some(2500), None).unwrap();
    assert!(filtered.len() > 10_000, "{} positions", filtered.len());
    for (epd, counts) in expected.iter().take(50_000) {
        let position: Position = epd.parse().unwrap();
        let t =
            FilteredStats { key: Key::encode(&position).unwrap(), filter: filter.clone() }.run(&store).unwrap().total;
        let want = filtered.get(epd).copied().unwrap_or_default();
        assert_eq!([t.games, t.white, t.draws, t.black], want, "{epd} (unfiltered {counts:?})");
    }
}

/// The lichess opening table imports without a bad line, and names positions reached by any
/// move order.
#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn lichess_openings_import() {
    let dir = datasets();
    let tables = dir.join("openings/lichess-org+chess-openings");
    let mut all = Vec::new();
    for name in ["a", "b", "c", "d", "e"] {
        let file = std::fs::File::open(tables.join(format!("{name}.tsv"))).unwrap();
        let (openings, errors) = parse_openings(std::io::BufReader::new(file)).unwrap();
        assert!(errors.is_empty(), "{name}.tsv: {errors:?}");
        all.extend(openings.into_iter().map(|o| (o.key, o.eco, o.name)));
    }
    assert!(all.len() > 3_000, "{} openings", all.len());
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("db")).unwrap();
    store.writer().unwrap().put_openings(&all).unwrap();
    let italian = Target::uci("g1f3,b8c6,e2e4,e7e5,f1c4").resolve().unwrap();
    assert_eq!(
        store.snapshot().positions().opening(&italian.key).unwrap(),
        Some(("C50".to_owned(), "Italian Game".to_owned()))
    );
    // An unnamed position deeper in a line takes the deepest named one before it.
    let deep = Target::san("1. e4 e5 2. Nf3 Nc6 3. Bc4 h6 4. h3 a6").resolve().unwrap();
    let answer = Lookup { target: deep, filter: Filter::default(), limits: Limits::default() }.run(&store).unwrap();
    assert!(answer.opening.is_some_and(|o| o.eco.starts_with('C')));
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn ingest_players_reports_duplicates_and_the_two_broken_games() {
    let dir = datasets();
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("db")).unwrap();
    let summary = indexer::ingest(&store, &[dir.join("players.pgn.zst")], &mut indexer::SilentObserver).unwrap();
    let counts = &summary.run.counts;
    assert_eq!(counts.games_read, 403_033);
    assert_eq!(counts.skipped, [("illegal_move".to_owned(), 2)]);
    assert!((70_000..80_000).contains(&counts.duplicates), "{counts:?}");
    assert_eq!(counts.indexed + counts.duplicates + 2, counts.games_read);
    assert_eq!(summary.totals.games, counts.indexed);
    let positions = store.snapshot().positions().count().unwrap();
    assert_eq!(Some(positions.distinct), summary.totals.distinct_positions);
    // Most positions occur in one game: the case the value layout makes cheap.
    assert!(positions.single_game * 100 > positions.distinct * 95, "{positions:?}");

    // One player spelled three ways in the collection's files; every game with those tags.
    let garry = tabiya::explore::find_players(&store.snapshot(), "Kasparov, Garry").unwrap();
    let chosen = garry.chosen().unwrap_or_else(|| panic!("{garry:?}"));
    let names: BTreeSet<&str> = chosen.spellings.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Kasparov, Gary", "Kasparov,G", "Kasparov, G."].into_iter().collect());
    let ids: Vec<GameId> = (1..summary.totals.next_game_id).map(GameId).collect();
    let mut tagged = 0;
    for chunk in ids.chunks(10_000) {
        for game in store.snapshot().games().get_many(chunk).unwrap().into_iter().flatten() {
            let spelled = |tag: &str| {
                names.iter().any(|n| {
                    n.to_lowercase()
                        .replace(',', " ")
                        .split_whitespace()
                        .eq(tag.to_lowercase().replace(',', " ").split_whitespace())
                })
            };
            tagged += usize::from(spelled(&game.tags.white) || spelled(&game.tags.black));
        }
    }
    assert_eq!(tabiya::explore::player_games(&store, "garry kasparov", None).unwrap().len(), tagged);
    assert!(tagged > 2000, "{tagged}");
    // The surname alone is three players'; Judit Polgar's abbreviation is hers.
    let err = tabiya::explore::player_games(&store, "Kasparov", None).unwrap_err().to_string();
    assert!(err.contains("matches 3 players"), "{err}");
    let judit = tabiya::explore::find_players(&store.snapshot(), "Polgar, Judit").unwrap();
    let names: BTreeSet<&str> = judit.chosen().unwrap().spellings.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names.contains("Polgar,Ju") && names.contains("Polgar, Judit") && !names.contains("Polgar,Zsu"),
        "{names:?}"
    );
}

/// Every file of the robustness corpus (PGN or not) goes through ingest without a panic, every
/// game is accounted for, and where kokopu's test suite says what a file holds, we agree: files
/// of errors index nothing, files of valid standard games skip nothing.
#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn robustness_corpus() {
    let dir = datasets();
    let corpus = dir.join("robustness");
    let files = tabiya::input::expand(std::slice::from_ref(&corpus), tabiya::input::Wanted::Any).unwrap().files;
    assert!(files.len() > 150, "{} files", files.len());
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("all")).unwrap();
    let summary = indexer::ingest(&store, &files, &mut indexer::SilentObserver).unwrap();
    let counts = &summary.run.counts;
    assert_eq!(counts.games_read, counts.indexed + counts.duplicates + counts.skipped_total());
    assert!(counts.indexed > 1_800, "{counts:?}");

    let kokopu = corpus.join("yo35+kokopu/test/resources/pgns");
    let all_errors = ["linebreak-linux", "linebreak-mac", "linebreak-windows", "redos-comment", "redos-header"];
    let all_valid = ["bom", "headers", "mini1", "mini2", "tag-name-token-collision", "empty"];
    for (name, valid) in all_errors.iter().map(|n| (n, false)).chain(all_valid.iter().map(|n| (n, true))) {
        let db = Store::open(&tmp.path().join(name)).unwrap();
        let file = kokopu.join(name).join("database.pgn");
        let summary = indexer::ingest(&db, &[file], &mut indexer::SilentObserver).unwrap();
        let counts = &summary.run.counts;
        if valid {
            assert_eq!(counts.skipped_total(), 0, "{name}: {counts:?}");
        } else {
            assert_eq!(counts.indexed, 0, "{name}: {counts:?}");
            assert!(counts.games_read > 0, "{name}");
        }
    }
}

/// What the vector-attack board and the scan decoder disagree with shakmaty and the validating
/// decoder on, over a batch of positions (every one of them).
#[derive(Debug, Default)]
struct AttackCheck {
    positions: u64,
    squares_checked: u64,
    failures: Vec<String>,
}

impl AttackCheck {
    fn merge(mut self, other: AttackCheck) -> AttackCheck {
        self.positions += other.positions;
        self.squares_checked += other.squares_checked;
        self.failures.extend(other.failures.into_iter().take(10));
        self
    }
}

/// Every position: each piece's attacks and x-rays, checkers and absolutely pinned pieces of both
/// sides as shakmaty computes them; the attackers of every square (both colours) on every 8th position
/// (128 questions a position). The keys of the batch, sorted as a scan meets them, decode through
/// [`KeyDecoder`] to the same boards as the validating decoder.
fn check_attacks(batch: &[Position], seed: usize) -> AttackCheck {
    use shakmaty::{Bitboard, Color, Square, attacks};
    use tabiya::{codec::KeyDecoder, pattern::attacks::VectorBoard};

    let mut check = AttackCheck::default();
    for (i, position) in batch.iter().enumerate() {
        let chess = position.shakmaty();
        let board = chess.board();
        let vectors = VectorBoard::from_board(board);
        check.positions += 1;
        let mut fail = |what: String| check.failures.push(format!("{position}: {what}"));
        for (sq, piece) in board {
            let attacked = board.attacks_from(sq);
            if vectors.attacks_from(sq) != attacked {
                fail(format!("attacks from {sq}"));
            }
            // X-rays: what the slider would attack with its first blockers removed.
            let occupied = board.occupied();
            let xrays = match piece.role {
                shakmaty::Role::Bishop | shakmaty::Role::Rook | shakmaty::Role::Queen => {
                    attacks::attacks(sq, piece, occupied ^ (attacked & occupied)) & !attacked
                }
                _ => Bitboard::EMPTY,
            };
            if vectors.xrays_from(sq) != xrays {
                fail(format!("x-rays from {sq}"));
            }
        }
        if vectors.checkers(chess.turn()) != chess.checkers() {
            fail("checkers".to_owned());
        }
        for color in [Color::White, Color::Black] {
            // Absolute pins the shakmaty way: enemy sliders on a line with the king through one
            // piece of the king's colour.
            let Some(king) = board.king_of(color) else { continue };
            let mut pinned = Bitboard::EMPTY;
            let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()
                | attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
                & board.by_color(!color);
            for sniper in snipers {
                let between = attacks::between(king, sniper) & board.occupied();
                if between.count() == 1 && (between & board.by_color(color)) == between {
                    pinned |= between;
                }
            }
            if vectors.pinned(color) != pinned {
                fail(format!("pinned {color:?}"));
            }
        }
        if (i + seed).is_multiple_of(8) {
            for sq in Square::ALL {
                for color in [Color::White, Color::Black] {
                    if vectors.attackers(sq, color) != board.attacks_to(sq, color, board.occupied()) {
                        fail(format!("attackers of {sq} by {color:?}"));
                    }
                }
            }
            check.squares_checked += 64;
        }
    }
    let mut keys: Vec<Key> = batch.iter().filter_map(|p| Key::encode(p).ok()).collect();
    keys.sort();
    let mut decoder = KeyDecoder::default();
    for key in keys {
        if decoder.decode(&key, |_, _| true).ok().flatten() != key.decode_board(|_, _| true).ok().flatten() {
            check.failures.push(format!("scan decoder: key {key}"));
        }
    }
    check
}

fn attack_check_paths(paths: &[PathBuf]) -> AttackCheck {
    use rayon::prelude::*;
    use tabiya::input::{InputKind, Source, Wanted, expand, read_games};

    const BATCH: usize = 1 << 16;
    let mut total = AttackCheck::default();
    let mut batch: Vec<Position> = Vec::with_capacity(BATCH);
    let flush = |batch: &mut Vec<Position>, total: &mut AttackCheck| {
        let checked = batch
            .par_chunks(4096)
            .enumerate()
            .map(|(i, chunk)| check_attacks(chunk, i))
            .reduce(AttackCheck::default, AttackCheck::merge);
        *total = std::mem::take(total).merge(checked);
        batch.clear();
    };
    for file in expand(paths, Wanted::Any).unwrap().files {
        let source = Source::open(&file, None).unwrap();
        match source.kind {
            InputKind::Pgn => read_games(source.reader, |game| {
                if let Ok(game) = game {
                    batch.extend(game.mainline().map(|(position, _)| position));
                    if batch.len() >= BATCH {
                        flush(&mut batch, &mut total);
                    }
                }
            })
            .unwrap(),
            InputKind::PositionLines => read_position_lines(source.reader, &source.name, |line| {
                if let Ok(line) = line {
                    batch.push(line.position);
                }
            })
            .unwrap(),
        }
    }
    flush(&mut batch, &mut total);
    total
}

#[test]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
fn vector_attacks_agree_with_shakmaty_on_every_position() {
    let dir = datasets();
    let suites = attack_check_paths(&[dir.join("positions")]);
    assert!(suites.failures.is_empty(), "{:#?}", suites.failures);
    assert!(suites.positions > 100_000, "{} positions", suites.positions);
    let players = attack_check_paths(&[dir.join("players.pgn.zst")]);
    assert!(players.failures.is_empty(), "{:#?}", players.failures);
    assert_eq!(players.positions, 33_424_331);
    assert!(players.squares_checked > 64 * 4_000_000, "{}", players.squares_checked);
}
