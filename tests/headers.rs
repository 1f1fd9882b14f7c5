//! Header filters and the `reached` field against counts made apart from tabiya: the generated
//! games' own fields (the tags they were written with) and positions found by replaying their
//! moves with shakmaty, on several positions (the initial one, shared openings, rare ones).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::games::{Game, RESULTS, openings};
use shakmaty::{Chess, EnPassantMode, Position as _, fen::Epd};
use tabiya::{
    explore::{FilterSpec, Limits, Lookup, Target},
    indexer,
    store::Store,
};

const EVENTS: [&str; 6] = ["Olympiad Rapid", "World OLYMPIAD", "Tata Steel Masters", "Club match", "", "Ολυμπιάδα"];
const SITES: [&str; 4] = ["Wijk aan Zee NED", "Moscow RUS", "wijk", "?"];
const ECOS: [&str; 7] = ["B90", "C42", "A00", "E99", "", "X12", "b33"];

/// A date as (year, month, day), ordered.
type Ymd = (u16, u8, u8);

/// A generated game with the headers the tests filter by.
struct Tagged {
    game: Game,
    event: &'static str,
    eco: &'static str,
}

impl Tagged {
    fn pgn(&self) -> String {
        let tags = format!("[Event \"{}\"]\n[ECO \"{}\"]\n", self.event, self.eco);
        self.game.pgn().replacen("[Event \"Generated\"]\n", &tags, 1)
    }

    /// The first and last day the game may have been played, as (year, month, day).
    fn span(&self) -> Option<(Ymd, Ymd)> {
        match self.game.date {
            (Some(y), Some(m)) => Some(((y, m, self.game.day), (y, m, self.game.day))),
            (Some(y), None) => Some(((y, 1, 1), (y, 12, 31))),
            _ => None,
        }
    }

    fn eco_index(&self) -> Option<u16> {
        let bytes = self.eco.as_bytes();
        let letter = bytes.first()?.to_ascii_uppercase();
        (bytes.len() == 3 && (b'A'..=b'E').contains(&letter) && bytes[1..].iter().all(u8::is_ascii_digit))
            .then(|| u16::from(letter - b'A') * 100 + u16::from(bytes[1] - b'0') * 10 + u16::from(bytes[2] - b'0'))
    }
}

fn collection() -> Vec<Tagged> {
    let mut rng = common::Lcg(33);
    openings(1500)
        .into_iter()
        .map(|mut game| {
            game.day = 1 + rng.next(28) as u8;
            game.site = Some(SITES[rng.index(SITES.len())]);
            Tagged { game, event: EVENTS[rng.index(EVENTS.len())], eco: ECOS[rng.index(ECOS.len())] }
        })
        .collect()
}

/// A filter and the same question asked of a game's own fields.
struct Case {
    spec: FilterSpec,
    keeps: fn(&Tagged) -> bool,
}

/// Whether both players are rated and their ratings pass `ok`.
fn both(t: &Tagged, ok: fn(u16) -> bool) -> bool {
    t.game.white_elo.is_some_and(ok) && t.game.black_elo.is_some_and(ok)
}

fn cases() -> Vec<Case> {
    let spec = FilterSpec::default;
    vec![
        Case { spec: FilterSpec { min_elo: Some(2300), ..spec() }, keeps: |t| both(t, |r| r >= 2300) },
        Case { spec: FilterSpec { max_elo: Some(2345), ..spec() }, keeps: |t| both(t, |r| r <= 2345) },
        Case {
            spec: FilterSpec { event: Some("olympiad".into()), ..spec() },
            keeps: |t| t.event.to_lowercase().contains("olympiad"),
        },
        Case {
            spec: FilterSpec { site: Some("WIJK".into()), ..spec() },
            keeps: |t| t.game.site.is_some_and(|s| s.to_lowercase().contains("wijk")),
        },
        Case { spec: FilterSpec { result: Some("1/2-1/2".into()), ..spec() }, keeps: |t| t.game.result == "1/2-1/2" },
        Case { spec: FilterSpec { result: Some("*".into()), ..spec() }, keeps: |t| t.game.result == RESULTS[3] },
        Case {
            spec: FilterSpec { eco: Some("B00-C99".into()), ..spec() },
            keeps: |t| t.eco_index().is_some_and(|i| (100..300).contains(&i)),
        },
        Case { spec: FilterSpec { eco: Some("a00".into()), ..spec() }, keeps: |t| t.eco_index() == Some(0) },
        Case {
            spec: FilterSpec { date_from: Some("2003-03-15".into()), date_to: Some("2010-06".into()), ..spec() },
            keeps: |t| t.span().is_some_and(|(first, last)| first >= (2003, 3, 15) && last <= (2010, 6, 30)),
        },
        Case {
            spec: FilterSpec { date_from: Some("2000".into()), ..spec() },
            keeps: |t| t.span().is_some_and(|(first, _)| first >= (2000, 1, 1)),
        },
        Case { spec: FilterSpec { min_plies: Some(15), ..spec() }, keeps: |t| t.game.moves.len() >= 15 },
        Case {
            spec: FilterSpec { player: Some("Carlsen, Magnus".into()), opponent: Some("Anand".into()), ..spec() },
            keeps: |t| {
                let pair = [t.game.white.as_str(), t.game.black.as_str()];
                pair == ["Carlsen, Magnus", "Anand, Viswanathan"] || pair == ["Anand, Viswanathan", "Carlsen, Magnus"]
            },
        },
        Case {
            spec: FilterSpec {
                player: Some("Polgar".into()),
                color: Some("black".into()),
                opponent: Some("Tal, Mikhail".into()),
                ..spec()
            },
            keeps: |t| t.game.black == "Polgar, Judit" && t.game.white == "Tal, Mikhail",
        },
        Case {
            spec: FilterSpec {
                eco: Some("B90".into()),
                min_elo: Some(1900),
                date_from: Some("1998-07".into()),
                since: Some("1999".into()),
                ..spec()
            },
            keeps: |t| {
                t.eco_index() == Some(190)
                    && both(t, |r| r >= 1900)
                    && t.span().is_some_and(|(first, _)| first >= (1998, 7, 1))
                    && t.game.date.0.is_some_and(|y| y >= 1999)
            },
        },
    ]
}

/// White wins, draws, Black wins and all games among `games` (indices) that `keeps`.
fn expected(tagged: &[Tagged], games: &BTreeSet<usize>, keeps: fn(&Tagged) -> bool) -> [u64; 4] {
    let mut counts = [0; 4];
    for &index in games.iter().filter(|&&index| keeps(&tagged[index])) {
        match tagged[index].game.result {
            "1-0" => counts[0] += 1,
            "1/2-1/2" => counts[1] += 1,
            "0-1" => counts[2] += 1,
            _ => {}
        }
        counts[3] += 1;
    }
    counts
}

fn build(tagged: &[Tagged]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tagged.pgn");
    std::fs::write(&path, tagged.iter().map(Tagged::pgn).collect::<String>()).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    indexer::ingest(&store, &[path], &mut indexer::SilentObserver).unwrap();
    (dir, store)
}

/// The games' stores: one holding the facts and header facts whole, one reading them in pages
/// of 16 games, 960 bytes of them kept at most (5 pages of facts, 4 of header facts, of some
/// 90 each; as a budget too small for a large database's does), whose answers `check` is also
/// run on. `check` is handed whether the store reads pages.
fn with_both_stores(tagged: &[Tagged], mut check: impl FnMut(&Store, bool)) {
    for paged in [false, true] {
        let (_dir, store) = build(tagged);
        if paged {
            store.read_game_records_in_pages(16, 3 * 16 * 12 + 3 * 128);
        }
        check(&store, paged);
        let kept = store.snapshot().facts().table().unwrap().pages_kept();
        assert_eq!(kept.is_some(), paged);
        assert!(kept.unwrap_or(0) <= 3 * 16 * 12 + 3 * 128, "{kept:?}");
    }
}

#[test]
fn header_filters_and_reached_counts_match_the_games_own_tags() {
    let tagged = collection();
    with_both_stores(&tagged, |store, paged| lookups_match_the_tags(&tagged, store, paged));
}

fn lookups_match_the_tags(tagged: &[Tagged], store: &Store, paged: bool) {
    let all = positions(tagged);
    // The initial position, the most shared positions and some reached by 2 to 5 games.
    let mut by_games: Vec<(&String, &(Chess, BTreeSet<usize>))> = all.iter().collect();
    by_games.sort_by_key(|(epd, (_, ids))| (std::cmp::Reverse(ids.len()), (*epd).clone()));
    let rare = by_games.iter().filter(|(_, (_, ids))| (2..=5).contains(&ids.len())).take(4);
    // And some one game reached early (its next positions mostly that game's alone).
    let single = by_games.iter().filter(|(_, (chess, ids))| ids.len() == 1 && chess.fullmoves().get() <= 3).take(6);
    let chosen: Vec<_> = by_games.iter().take(6).chain(rare).chain(single).collect();
    let mut transpositions = 0;
    // Every filter, then none (the stored totals answer, and `reached` of a position one game
    // reached is that game's).
    let every = Case { spec: FilterSpec::default(), keeps: |_| true };
    for case in cases().into_iter().chain([every]) {
        let filter = case.spec.filter().unwrap();
        let mut kept_somewhere = false;
        for (epd, (chess, ids)) in &chosen {
            let answer = Lookup {
                target: Target::fen(epd.as_str()).resolve().unwrap(),
                filter: filter.clone(),
                limits: Limits { moves: 256, ..Limits::default() },
            }
            .run(store)
            .unwrap();
            let [white, draws, black, games] = expected(tagged, ids, case.keeps);
            assert_eq!(
                [answer.white, answer.draws, answer.black, answer.games],
                [white, draws, black, games],
                "{:?} at {epd}, paged: {paged}",
                case.spec
            );
            kept_somewhere |= games > 0;
            // Each move row's reached: the position after the move, by any move order.
            for row in &answer.moves {
                let m = row.uci.parse::<shakmaty::uci::UciMove>().unwrap().to_move(chess).unwrap();
                let next = chess.clone().play(m).unwrap();
                let next_epd = Epd::from_position(&next, EnPassantMode::Legal).to_string();
                let reaching = &all[&next_epd].1;
                let [white, draws, black, games] = expected(tagged, reaching, case.keeps);
                let reached = row.reached;
                assert_eq!(
                    [reached.white, reached.draws, reached.black, reached.games],
                    [white, draws, black, games],
                    "{:?}: {} from {epd}",
                    case.spec,
                    row.san
                );
                assert!(reached.games >= row.games);
                transpositions += usize::from(reached.games > row.games);
            }
        }
        assert!(kept_somewhere, "{:?} keeps no game of the chosen positions: the case tests nothing", case.spec);
    }
    assert!(transpositions > 10, "only {transpositions} rows where other move orders add games");
}

/// Every distinct position of every game: EPD → the position and the games (indices) reaching it.
fn positions(tagged: &[Tagged]) -> BTreeMap<String, (Chess, BTreeSet<usize>)> {
    let mut all: BTreeMap<String, (Chess, BTreeSet<usize>)> = BTreeMap::new();
    for (index, t) in tagged.iter().enumerate() {
        let mut position = Chess::default();
        for m in t.game.moves.iter().map(Some).chain([None]) {
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            all.entry(epd).or_insert_with(|| (position.clone(), BTreeSet::new())).1.insert(index);
            if let Some(m) = m {
                position.play_unchecked(*m);
            }
        }
    }
    all
}

#[test]
fn header_filters_reach_the_games_list_the_cli_and_http() {
    let tagged = collection();
    let (dir, store) = build(&tagged);
    let keeps = |t: &Tagged| t.eco_index().is_some_and(|i| (100..300).contains(&i)) && t.game.moves.len() >= 10;
    let expected_games = tagged.iter().filter(|t| keeps(t)).count() as u64;
    let filter =
        FilterSpec { eco: Some("B00-C99".into()), min_plies: Some(10), ..FilterSpec::default() }.filter().unwrap();
    let start = Target::fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").resolve().unwrap();
    let query = tabiya::explore::GamesQuery {
        limit: 5,
        filter,
        ..common::every_game(tabiya::explore::GameSource::Position(start))
    };
    assert_eq!(query.run(&store).unwrap().total, expected_games);
    drop(store);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = common::tabiya(&["games", "--db", db, "--eco", "B00-C99", "--min-plies", "10", "--json"]);
    let page: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(page["total"], expected_games);
    let out = common::tabiya(&["query", "--db", db, "--eco", "B00-C99", "--min-plies", "10", "--json"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["games"], expected_games);
    // Malformed filters: one line, exit 1.
    for bad in [["--eco", "C50-B20"], ["--result", "2-0"], ["--date-from", "2001-02-30"], ["--min-plies", "20000"]] {
        let out = common::tabiya(&["query", "--db", db, bad[0], bad[1]]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(1), 1), "{bad:?}: {stderr}");
    }
    let server = common::server::start(std::path::Path::new(db));
    let (status, body) = common::server::json(&server, "/masters?eco=B00-C99&minPlies=10");
    assert_eq!((status, body["games"].as_u64()), (200, Some(expected_games)));
    let olympiad = tagged.iter().filter(|t| t.event.to_lowercase().contains("olympiad")).count() as u64;
    let (status, body) = common::server::json(&server, "/lichess?event=Olympiad");
    assert_eq!((status, body["games"].as_u64()), (200, Some(olympiad)));
    for bad in ["eco=C50-B20", "result=2-0", "dateFrom=2001-13", "minElo=x", "opponent=Tal", "minPlies=-1"] {
        let (status, _) = common::server::json(&server, &format!("/masters?{bad}"));
        assert_eq!(status, 400, "{bad}");
    }
}

/// A naive test of a position, beside the pattern it stands for.
type Naive = (&'static str, fn(&Chess) -> bool);

/// Whether each side has exactly its starting pieces (any number of pawns): the material
/// signature `KQRRBBNNP*vKQRRBBNNP*`.
fn all_pieces(chess: &Chess) -> bool {
    let material = chess.board().material();
    [material.white, material.black]
        .iter()
        .all(|side| (side.king, side.queen, side.rook, side.bishop, side.knight) == (1, 1, 2, 2, 2))
}

#[test]
fn searches_count_the_games_the_filters_keep() {
    let tagged = collection();
    let all = positions(&tagged);
    let mut olympiad_positions = 0;
    with_both_stores(&tagged, |store, paged| olympiad_positions = searches_match(&tagged, &all, store, paged));

    // The CLI and HTTP take the same filters.
    let (dir, store) = build(&tagged);
    drop(store);
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let keeps = |t: &Tagged| t.event.to_lowercase().contains("olympiad") && t.game.moves.len() >= 15;
    let checks: BTreeSet<usize> = all
        .values()
        .filter(|(chess, _)| chess.is_check())
        .flat_map(|(_, ids)| ids.iter().copied())
        .filter(|&i| keeps(&tagged[i]))
        .collect();
    assert!(!checks.is_empty());
    let out = common::tabiya(&[
        "search",
        "--db",
        db,
        "--pattern",
        "check",
        "--event",
        "Olympiad",
        "--min-plies",
        "15",
        "--json",
    ]);
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["games"], checks.len() as u64);
    let out = common::tabiya(&["search", "--db", db, "--material", "KQRRBBNNP*vKQRRBBNNP*", "--result", "3-0"]);
    assert_eq!(out.status.code(), Some(1));
    let server = common::server::start(std::path::Path::new(db));
    let (status, body) = common::server::json(&server, "/pattern?q=check&event=Olympiad&minPlies=15");
    assert_eq!((status, body["games"].as_u64()), (200, Some(checks.len() as u64)));
    let (status, body) = common::server::json(&server, "/material?material=KQRRBBNNP*vKQRRBBNNP*&event=olympiad");
    assert_eq!((status, body["positions"].as_u64()), (200, Some(olympiad_positions)));
    let (status, _) = common::server::json(&server, "/pattern?q=check&eco=E00-A00");
    assert_eq!(status, 400);
}

/// Pattern and material searches under every filter against the games' own tags and naive
/// tests of their positions; the positions the Olympiad games' material search lists.
fn searches_match(
    tagged: &[Tagged],
    all: &BTreeMap<String, (Chess, BTreeSet<usize>)>,
    store: &Store,
    paged: bool,
) -> u64 {
    use shakmaty::{Color, Piece, Role, Square};
    use tabiya::explore::{MAX_HITS, MaterialQuery, PatternQuery, Signature};

    let epd_of = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
    let patterns: [Naive; 2] = [
        ("check", |c| c.is_check()),
        ("Na3 and btm", |c| {
            c.board().piece_at(Square::A3) == Some(Piece { color: Color::White, role: Role::Knight })
                && c.turn() == Color::Black
        }),
    ];
    let searches = patterns.into_iter().chain([("KQRRBBNNP*vKQRRBBNNP*", all_pieces as fn(&Chess) -> bool)]);
    let searches: Vec<Naive> = searches.collect();
    let mut found_some = 0;
    for case in cases() {
        let filter = case.spec.filter().unwrap();
        for (index, (text, naive)) in searches.iter().enumerate() {
            // Each matching position with the games the filter keeps, and the games themselves.
            let mut kept: BTreeMap<&String, [u64; 4]> = BTreeMap::new();
            let mut games = BTreeSet::new();
            for (epd, (_, ids)) in all.iter().filter(|(_, (chess, _))| naive(chess)) {
                let counts = expected(tagged, ids, case.keeps);
                if counts[3] > 0 {
                    kept.insert(epd, counts);
                    games.extend(ids.iter().filter(|&&i| (case.keeps)(&tagged[i])));
                }
            }
            let (positions, occurrences, hits) = if index < 2 {
                let query = PatternQuery {
                    pattern: text.parse().unwrap(),
                    material: None,
                    side: None,
                    limit: MAX_HITS,
                    filter: filter.clone(),
                    variant: Default::default(),
                };
                let found = query.run(store).unwrap();
                // Listing few positions, the tier's matches are counted without keys: the same totals.
                let few = PatternQuery { limit: 3, ..query }.run(store).unwrap();
                let totals = |f: &tabiya::explore::PatternSearch| {
                    [f.positions, f.occurrences, f.games, f.white, f.draws, f.black]
                };
                assert_eq!(totals(&few), totals(&found), "{text} {:?} at limit 3, paged: {paged}", case.spec);
                let [white, draws, black, count] = expected(tagged, &games, case.keeps);
                assert_eq!(
                    [found.white, found.draws, found.black, found.games],
                    [white, draws, black, count],
                    "{text} {:?}, paged: {paged}",
                    case.spec
                );
                (found.positions, found.occurrences, found.hits)
            } else {
                let query = MaterialQuery {
                    signature: text.parse::<Signature>().unwrap(),
                    side: None,
                    castling: None,
                    limit: MAX_HITS,
                    filter: filter.clone(),
                    variant: Default::default(),
                };
                let found = query.run(store).unwrap();
                (found.positions, found.occurrences, found.hits)
            };
            assert_eq!(positions, kept.len() as u64, "{text} {:?}, paged: {paged}", case.spec);
            assert_eq!(occurrences, kept.values().map(|c| c[3]).sum::<u64>(), "{text} {:?}, paged: {paged}", case.spec);
            // Every listed position with its kept games, the most frequent listed first.
            assert_eq!(hits.len(), kept.len().min(MAX_HITS), "{text} {:?}, paged: {paged}", case.spec);
            for hit in &hits {
                let want = kept.get(&epd_of(&hit.fen)).unwrap_or_else(|| panic!("{text}: {} is no answer", hit.fen));
                assert_eq!(
                    [hit.white, hit.draws, hit.black, hit.games],
                    *want,
                    "{text} {:?}, paged: {paged}",
                    case.spec
                );
            }
            assert!(hits.windows(2).all(|w| w[0].games >= w[1].games));
            found_some += usize::from(positions > 0);
        }
    }
    assert!(found_some > 30, "only {found_some} searches found a position: the cases test little");
    // A filter that keeps only some of a shared position's games lists it with those alone.
    let olympiad = FilterSpec { event: Some("olympiad".into()), ..FilterSpec::default() }.filter().unwrap();
    let query = |filter| MaterialQuery {
        signature: "KQRRBBNNP*vKQRRBBNNP*".parse().unwrap(),
        side: None,
        castling: None,
        limit: 1,
        filter,
        variant: Default::default(),
    };
    let every = query(tabiya::explore::Filter::default()).run(store).unwrap();
    let some = query(olympiad).run(store).unwrap();
    assert!(some.hits[0].games < every.hits[0].games && some.positions < every.positions);
    some.positions
}

#[test]
fn a_filtered_sequence_scan_finds_the_games_of_the_filtered_list() {
    use tabiya::explore::{GameSource, GamesQuery, SequenceQuery};

    let tagged = collection();
    let (_dir, store) = build(&tagged);
    let sequence: tabiya::pattern::GamePattern = "seq(check, check, 6)".parse().unwrap();
    let tabiya::pattern::GamePattern::Sequence(sequence) = sequence else { panic!("a sequence") };
    for case in cases() {
        let filter = case.spec.filter().unwrap();
        let list = |scan_filter: tabiya::explore::Filter| {
            let source = GameSource::Sequence(Box::new(SequenceQuery {
                sequence: sequence.clone(),
                filter: scan_filter,
                variant: Default::default(),
            }));
            let query = GamesQuery { filter: filter.clone(), ..common::every_game(source) };
            query.run(&store).unwrap().games.into_iter().map(|game| game.id).collect::<Vec<_>>()
        };
        // The games the scan skips are exactly those the list would drop.
        assert_eq!(list(filter.clone()), list(tabiya::explore::Filter::default()), "{:?}", case.spec);
    }
}

/// A store reading its games' records in pages answers for the games a later commit adds (the
/// last page, part full when read, is read again), as a store holding them whole does.
#[test]
fn pages_read_before_a_commit_see_its_games() {
    let tagged = collection();
    let (first, second) = tagged.split_at(tagged.len() / 2 + 7);
    let (dir, store) = build(first);
    store.read_game_records_in_pages(16, 1 << 20);
    let (_whole_dir, whole) = build(&tagged);
    let filters = cases().into_iter().map(|case| case.spec.filter().unwrap());
    let lookups: Vec<Lookup> = filters
        .map(|filter| Lookup { target: Target::initial().resolve().unwrap(), filter, limits: Limits::default() })
        .collect();
    let answers = |store: &Store| -> Vec<[u64; 4]> {
        let answers = lookups.iter().map(|lookup| lookup.run(store).unwrap());
        answers.map(|a| [a.white, a.draws, a.black, a.games]).collect()
    };
    let before = answers(&store);
    let path = dir.path().join("second.pgn");
    std::fs::write(&path, second.iter().map(Tagged::pgn).collect::<String>()).unwrap();
    indexer::ingest(&store, &[path], &mut indexer::SilentObserver).unwrap();
    let after = answers(&store);
    assert_eq!(after, answers(&whole));
    assert_ne!(before, after);
    assert!(store.snapshot().facts().table().unwrap().pages_kept().is_some_and(|kept| kept > 0));
}
