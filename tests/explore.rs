//! Position search checked against an independent computation: a generated collection (many
//! transpositions, varied dates, speeds, ratings and players) is ingested, and every lookup,
//! filtered or not, and every material search is compared with a naive replay of the same games
//! that names positions by EPD text.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use common::games::{Game, openings as generate};
use shakmaty::{Chess, EnPassantMode, Move, Position as _, fen::Epd, san::San};
use tabiya::{
    Key, Material, Position,
    explore::{
        Filter, FilteredStats, GameSort, GameSource, GamesQuery, Limits, Lookup, MaterialQuery, Signature, Target,
    },
    indexer,
    model::GameId,
    store::Store,
};

/// Every position of a game with the moves played from it (EPD text; a repeated position once).
fn game_positions(game: &Game) -> BTreeMap<String, HashSet<String>> {
    let mut positions: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    let mut position = Chess::default();
    for m in &game.moves {
        let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
        positions.entry(epd).or_default().insert(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
        position.play_unchecked(*m);
    }
    positions.entry(Epd::from_position(&position, EnPassantMode::Legal).to_string()).or_default();
    positions
}

/// The lichess speed class of a game's time control, spelled out independently of tabiya's
/// parser.
fn speed(game: &Game) -> &'static str {
    match game.time_control {
        Some("60+0") => "bullet",
        // 180 + 40 × 2 = 260 s.
        Some("180+2") => "blitz",
        Some("600+5") => "rapid",
        Some("5400+30") => "classical",
        Some("-") => "correspondence",
        _ => "unknown",
    }
}

/// A naive filter over the generated games.
#[derive(Clone, Debug, Default)]
struct NaiveFilter {
    since: Option<(u16, Option<u8>)>,
    until: Option<(u16, Option<u8>)>,
    speeds: Option<Vec<&'static str>>,
    ratings: Option<(u32, u32)>,
    /// The name asked for, the surname it names, the colour (White when true).
    player: Option<(&'static str, &'static str, Option<bool>)>,
}

impl NaiveFilter {
    fn keeps(&self, game: &Game) -> bool {
        // A year-only date counts as the start of its year.
        let at = |(y, m): (u16, Option<u8>)| u32::from(y) * 13 + u32::from(m.unwrap_or(0));
        let until_at = |(y, m): (u16, Option<u8>)| u32::from(y) * 13 + u32::from(m.unwrap_or(12));
        let dated = game.date.0.map(|y| at((y, game.date.1)));
        if self.since.is_some() || self.until.is_some() {
            let Some(when) = dated else { return false };
            if self.since.is_some_and(|s| when < at(s)) || self.until.is_some_and(|u| when > until_at(u)) {
                return false;
            }
        }
        if let Some(speeds) = &self.speeds
            && !speeds.contains(&speed(game))
        {
            return false;
        }
        if let Some((min, max)) = self.ratings {
            match game.average_rating() {
                Some(r) if r >= min && r < max => {}
                _ => return false,
            }
        }
        if let Some((_, surname, white)) = self.player {
            // The generated names are "Surname, Given" with distinct surnames.
            let matches = |name: &str| name.split(',').next().is_some_and(|s| s.trim().eq_ignore_ascii_case(surname));
            let ok = match white {
                Some(true) => matches(&game.white),
                Some(false) => matches(&game.black),
                None => matches(&game.white) || matches(&game.black),
            };
            if !ok {
                return false;
            }
        }
        true
    }

    fn to_filter(&self) -> Filter {
        let bound = |b: Option<(u16, Option<u8>)>| b.map(|(y, m)| m.map_or(format!("{y}"), |m| format!("{y}-{m:02}")));
        let (since, until) = (bound(self.since), bound(self.until));
        let speeds = self.speeds.as_ref().map(|s| s.join(","));
        let (min, max) = match self.ratings {
            Some((min, max)) => (Some(min as u16), (max < 3000).then_some(max as u16)),
            None => (None, None),
        };
        Filter::default()
            .with_dates(since.as_deref(), until.as_deref())
            .unwrap()
            .with_speeds(speeds.as_deref())
            .unwrap()
            .with_rating_range(min, max)
            .unwrap()
            .with_player(
                self.player.map(|p| p.0),
                self.player.and_then(|p| p.2).map(|w| if w { shakmaty::Color::White } else { shakmaty::Color::Black }),
            )
            .unwrap()
    }
}

/// Per position (EPD): the kept games (ids) and, per next move, the ids that played it.
type NaiveIndex = HashMap<String, (Vec<u64>, BTreeMap<String, Vec<u64>>)>;

fn naive_index(games: &[Game], filter: &NaiveFilter) -> NaiveIndex {
    let mut index = NaiveIndex::new();
    for game in games.iter().filter(|g| filter.keeps(g)) {
        for (epd, moves) in game_positions(game) {
            let entry = index.entry(epd).or_default();
            entry.0.push(game.round);
            for m in moves {
                entry.1.entry(m).or_default().push(game.round);
            }
        }
    }
    index
}

/// An ingested database of the games, with the stored id of each generated game (ids follow
/// the games' mainline order within a batch, not the input order): `ids[n]` for game `n + 1`.
struct Built {
    _dir: tempfile::TempDir,
    store: Store,
    stored: Vec<u64>,
    generated: HashMap<u64, u64>,
}

impl Built {
    fn stored_ids(&self, ids: &[u64]) -> BTreeSet<u64> {
        ids.iter().map(|&id| self.stored[id as usize - 1]).collect()
    }
}

fn build(games: &[Game]) -> Built {
    build_in_runs(games, 1)
}

/// The games ingested in `runs` ingest runs of consecutive games: every run after the first
/// commits into a database holding positions, summing with what is stored.
fn build_in_runs(games: &[Game], runs: usize) -> Built {
    let size = games.len().div_ceil(runs);
    build_in_parts(games, &vec![size; runs])
}

/// The games ingested in runs of consecutive games of the `sizes` given (the last run takes
/// what is left).
fn build_in_parts(games: &[Game], sizes: &[usize]) -> Built {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let mut indexed = 0;
    let mut rest = games;
    let parts = sizes.iter().enumerate().map(|(run, &size)| match run + 1 == sizes.len() {
        true => std::mem::take(&mut rest),
        false => {
            let (part, after) = rest.split_at(size.min(rest.len()));
            rest = after;
            part
        }
    });
    for (run, part) in parts.enumerate() {
        let pgn = dir.path().join(format!("generated-{run}.pgn"));
        std::fs::write(&pgn, part.iter().map(Game::pgn).collect::<String>()).unwrap();
        let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
        indexed += summary.run.counts.indexed;
    }
    assert_eq!(indexed, games.len() as u64);
    let mut stored = vec![0; games.len()];
    let mut generated = HashMap::new();
    for id in 1..=games.len() as u64 {
        let record = store.snapshot().games().get(GameId(id)).unwrap().unwrap();
        let round: u64 = record.tags.round.parse().unwrap();
        stored[round as usize - 1] = id;
        generated.insert(id, round);
    }
    Built { _dir: dir, store, stored, generated }
}

fn results(games: &[Game], ids: &[u64]) -> [u64; 4] {
    let mut counts = [ids.len() as u64, 0, 0, 0];
    for &id in ids {
        match games[id as usize - 1].result {
            "1-0" => counts[1] += 1,
            "1/2-1/2" => counts[2] += 1,
            "0-1" => counts[3] += 1,
            _ => {}
        }
    }
    counts
}

fn filters() -> Vec<NaiveFilter> {
    let none = NaiveFilter::default();
    vec![
        none.clone(),
        NaiveFilter { since: Some((2005, None)), ..none.clone() },
        NaiveFilter { since: Some((2003, Some(4))), until: Some((2015, Some(9))), ..none.clone() },
        NaiveFilter { until: Some((2010, None)), ..none.clone() },
        NaiveFilter { speeds: Some(vec!["bullet", "unknown"]), ..none.clone() },
        NaiveFilter { speeds: Some(vec!["blitz"]), until: Some((2012, Some(6))), ..none.clone() },
        NaiveFilter { speeds: Some(vec!["correspondence"]), ..none.clone() },
        NaiveFilter { ratings: Some((2000, 2500)), ..none.clone() },
        NaiveFilter { ratings: Some((2600, 3000)), speeds: Some(vec!["classical", "rapid"]), ..none.clone() },
        NaiveFilter { player: Some(("carlsen", "carlsen", None)), ..none.clone() },
        NaiveFilter { player: Some(("Magnus Carlsen", "carlsen", Some(true))), ..none.clone() },
        NaiveFilter { player: Some(("POLGAR, J.", "polgar", Some(false))), since: Some((2000, None)), ..none.clone() },
    ]
}

#[test]
fn lookups_equal_a_naive_replay_with_and_without_filters() {
    let games = generate(1500);
    check_lookups(&games, &build(&games));
}

/// The second run stages many occurrences for each stored game (some 19,000 against 1,100
/// games), so its commit finds the stored tier positions its keys may reach (a Bloom filter of
/// them says) by replaying every stored game once; the third stages few (some 700 against
/// 2,450), and looks each new key up in the tier's maps. Both must answer as one run does.
/// (Two runs of 600, as the posting lists' test ingests, keep every stored tier position.)
#[test]
fn lookups_after_several_ingest_runs_equal_a_naive_replay() {
    let games = generate(2500);
    check_lookups(&games, &build_in_parts(&games, &[1100, 1350, 50]));
}

/// Every lookup of `built`, with and without each filter, against a naive replay of `games`.
fn check_lookups(games: &[Game], built: &Built) {
    let stats_of = |key: Key, filter: &Filter| FilteredStats { key, filter: filter.clone() }.run(&built.store);
    for naive in filters() {
        let filter = naive.to_filter();
        let expected = naive_index(games, &naive);
        assert!(!expected.is_empty(), "{naive:?} keeps games");
        // Every position the kept games reach, plus one they do not reach.
        let mut checked = 0;
        for (epd, (ids, moves)) in &expected {
            let position: Position = epd.parse().unwrap();
            let key = Key::encode(&position).unwrap();
            let stats = stats_of(key, &filter).unwrap();
            let t = stats.total;
            assert_eq!([t.games, t.white, t.draws, t.black], results(games, ids), "{naive:?} {epd}");
            let got: BTreeMap<String, u64> = stats.moves.iter().map(|(m, t)| (m.to_string(), t.games)).collect();
            let want: BTreeMap<String, u64> = moves.iter().map(|(m, ids)| (m.clone(), ids.len() as u64)).collect();
            assert_eq!(got, want, "{naive:?} {epd}");
            for (m, tally) in &stats.moves {
                let ids = &moves[&m.to_string()];
                assert_eq!([tally.games, tally.white, tally.draws, tally.black], results(games, ids));
            }
            // Top and recent games: exact under any filter (from every game's facts).
            let mut best: Vec<(u32, u64)> = ids
                .iter()
                .map(|&id| (games[id as usize - 1].average_rating().unwrap_or(0), built.stored[id as usize - 1]))
                .collect();
            best.sort_by(|a, b| b.cmp(a));
            let top: Vec<u64> = stats.top.iter().map(|g| g.id.0).collect();
            let want_top: Vec<u64> = best.iter().take(15).map(|&(_, id)| id).collect();
            assert_eq!(top, want_top, "{naive:?} {epd}");
            let month = |id: u64| {
                let (year, month) = games[id as usize - 1].date;
                year.map_or(0, |y| u32::from(y) * 13 + u32::from(month.unwrap_or(0)))
            };
            let mut latest: Vec<(u32, u64)> =
                ids.iter().map(|&id| (month(id), built.stored[id as usize - 1])).collect();
            latest.sort_by(|a, b| b.cmp(a));
            let recent: Vec<u64> = stats.recent.iter().map(|g| g.id.0).collect();
            let want_recent: Vec<u64> = latest.iter().take(8).map(|&(_, id)| id).collect();
            assert_eq!(recent, want_recent, "{naive:?} {epd}");
            checked += 1;
        }
        assert!(checked > 100, "{naive:?}: {checked} positions");
        let absent = Key::encode(&"8/8/8/4k3/8/8/8/4K2R w K - 0 1".parse::<Position>().unwrap()).unwrap();
        assert_eq!(stats_of(absent, &filter).unwrap().total.games, 0);
    }
}

#[test]
fn answers_list_moves_games_and_transpositions() {
    let games = generate(600);
    let built = build(&games);
    let expected = naive_index(&games, &NaiveFilter::default());
    // The most common position after two moves, reached by SAN, by UCI and by FEN.
    let start = Chess::default();
    let mut best: Option<(usize, String, [Move; 2])> = None;
    for first in start.legal_moves() {
        let mut after = start.clone();
        after.play_unchecked(first);
        for second in after.legal_moves() {
            let mut position = after.clone();
            position.play_unchecked(second);
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            let count = expected.get(&epd).map_or(0, |(ids, _)| ids.len());
            if best.as_ref().is_none_or(|(n, ..)| count > *n) {
                best = Some((count, epd, [first, second]));
            }
        }
    }
    let (count, epd, [first, second]) = best.unwrap();
    assert!(count > 20, "{count}");
    let uci = format!(
        "{},{}",
        first.to_uci(shakmaty::CastlingMode::Standard),
        second.to_uci(shakmaty::CastlingMode::Standard)
    );
    let mut after = start.clone();
    let san1 = San::from_move(&after, first);
    after.play_unchecked(first);
    let san = format!("1. {san1} {}", San::from_move(&after, second));
    let by_uci = Target::uci(uci).resolve().unwrap();
    let by_san = Target::san(san).resolve().unwrap();
    let by_fen = Target::fen(epd.as_str()).resolve().unwrap();
    assert_eq!(by_uci.key, by_san.key);
    assert_eq!(by_uci.key, by_fen.key);
    let limits = Limits { moves: 2, top: 3, recent: 5, history: false };
    let answer = Lookup { target: by_san, filter: Filter::default(), limits }.run(&built.store).unwrap();
    assert_eq!(answer.games as usize, count);
    assert!(answer.moves.len() <= 2);
    assert!(answer.moves.windows(2).all(|w| w[0].games >= w[1].games), "most played first");
    assert_eq!(answer.top_games.len(), 3.min(count));
    let recent = answer.recent_games.as_deref().unwrap_or_default();
    assert_eq!(recent.len(), 5.min(count));
    // Every listed game reached the position and played the move it says.
    let (ids, moves) = &expected[&epd];
    for game in answer.top_games.iter().chain(recent) {
        let id = built.generated[&game.id.parse::<u64>().unwrap()];
        assert!(ids.contains(&id));
        if let Some(uci) = &game.uci {
            assert!(moves[uci].contains(&id), "game {id} played {uci}");
        }
        // A game that went on from the position says its move; one that ended there, none.
        let went_on = moves.values().any(|games| games.contains(&id));
        assert_eq!(game.uci.is_some(), went_on, "game {id}: {:?}", game.uci);
        let source = &games[id as usize - 1];
        assert_eq!(game.white.name, source.white);
        assert_eq!(game.white.rating, source.white_elo);
    }
    // Recent games: latest month first.
    let months: Vec<(Option<u16>, String)> = recent.iter().map(|g| (g.year, g.date.clone())).collect();
    let mut sorted = months.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(months.iter().map(|m| m.0).collect::<Vec<_>>(), sorted.iter().map(|m| m.0).collect::<Vec<_>>());
}

#[test]
fn material_search_equals_a_brute_force_filter() {
    let games = generate(800);
    let Built { store, .. } = &build(&games);
    let expected = naive_index(&games, &NaiveFilter::default());
    let by_material = |pattern: &dyn Fn(&Material) -> bool| {
        let mut hits: Vec<(u64, String)> = expected
            .iter()
            .filter_map(|(epd, (ids, _))| {
                let position: Position = epd.parse().unwrap();
                pattern(&Material::of(&position)).then(|| (ids.len() as u64, position.to_string()))
            })
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        hits
    };
    let start = Material::of(&Position::initial());
    let full = start.to_string();
    // Exact: the full set; wildcard: all pieces, any number of White pawns.
    let wildcard = full.replacen("PPPPPPPP", "P*", 1);
    type Pattern = Box<dyn Fn(&Material) -> bool>;
    let cases: [(&str, Pattern); 2] = [
        (&full, Box::new(move |m: &Material| *m == start)),
        (
            &wildcard,
            Box::new(move |m: &Material| {
                let mut without = *m;
                without.0.white.pawn = 8;
                without == start
            }),
        ),
    ];
    for (signature, pattern) in cases {
        let want = by_material(&*pattern);
        assert!(!want.is_empty(), "{signature}");
        let query = MaterialQuery {
            signature: signature.parse::<Signature>().unwrap(),
            side: None,
            castling: None,
            limit: 10_000,
            filter: Filter::default(),
            variant: Default::default(),
        };
        let found = query.run(store).unwrap();
        assert_eq!(found.positions as usize, want.len(), "{signature}");
        assert_eq!(found.occurrences, want.iter().map(|w| w.0).sum::<u64>());
        let mut got: Vec<(u64, String)> = found.hits.iter().map(|h| (h.games, h.fen.clone())).collect();
        got.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        assert_eq!(got, want, "{signature}");
        assert!(found.hits.windows(2).all(|w| w[0].games >= w[1].games), "most frequent first");
        // Side to move: the two halves add up.
        let count = |side| {
            let query = MaterialQuery {
                signature: signature.parse().unwrap(),
                side: Some(side),
                castling: None,
                limit: 1,
                filter: Filter::default(),
                variant: Default::default(),
            };
            query.run(store).unwrap().positions
        };
        assert_eq!(count(shakmaty::Color::White) + count(shakmaty::Color::Black), found.positions);
    }
}

#[test]
fn posting_lists_hold_exactly_the_games_of_a_naive_replay() {
    let games = generate(1200);
    // In two runs: the second sums what it stages with what the first stored.
    let built = build_in_runs(&games, 2);
    let expected = naive_index(&games, &NaiveFilter::default());
    // Every position: the list equals the naive games, and its length the stored game count.
    let mut positions = 0;
    let view = built.store.snapshot();
    for (key, stats) in common::stored_positions(&built.store) {
        let list: Vec<u64> = view.positions().game_ids(&key).unwrap().iter().map(|id| id.0).collect();
        assert_eq!(list.len() as u64, stats.total.games, "{key}");
        assert_eq!(list, stats.game_ids.iter().map(|id| id.0).collect::<Vec<_>>());
        let epd = key.decode().unwrap().to_string();
        let want = built.stored_ids(&expected[&epd].0);
        assert_eq!(list.iter().copied().collect::<BTreeSet<_>>(), want, "{epd}");
        positions += 1;
    }
    assert_eq!(positions, expected.len());
    // Counted from the full-key family and the single-game tier's marks: each position once.
    let counts = view.positions().count().unwrap();
    let single = expected.values().filter(|(ids, _)| built.stored_ids(ids).len() == 1).count() as u64;
    assert_eq!((counts.distinct, counts.single_game), (expected.len() as u64, single));

    // Combinations and paging, against BTreeSet operations on the naive sets.
    let mut common: Vec<(&String, &Vec<u64>)> = expected.iter().map(|(epd, (ids, _))| (epd, ids)).collect();
    common.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
    let target = |epd: &str| Target::fen(epd).resolve().unwrap();
    for window in common[..12].windows(2) {
        let ((a, a_ids), (b, b_ids)) = (window[0], window[1]);
        let (sa, sb) = (built.stored_ids(a_ids), built.stored_ids(b_ids));
        let and =
            GamesQuery { and: vec![target(b)], limit: 10_000, ..common::every_game(GameSource::Position(target(a))) };
        let numbers = |ids: Vec<GameId>| ids.into_iter().map(|id| id.0).collect::<Vec<_>>();
        assert_eq!(numbers(and.ids(&built.store).unwrap()), sa.intersection(&sb).copied().collect::<Vec<_>>());
        let not = GamesQuery { and: vec![], not: vec![target(b)], ..and.clone() };
        assert_eq!(numbers(not.ids(&built.store).unwrap()), sa.difference(&sb).copied().collect::<Vec<_>>());
        // Pages of 7 put together are the whole list, in order.
        let mut paged = Vec::new();
        for offset in (0..sa.len() + 7).step_by(7) {
            let page = GamesQuery { offset, limit: 7, ..not.clone() }.run(&built.store).unwrap();
            assert_eq!(page.total as usize, sa.difference(&sb).count());
            paged.extend(page.games.iter().map(|g| g.id.0));
        }
        assert_eq!(paged, sa.difference(&sb).copied().collect::<Vec<_>>());
        // By rating: highest average first, each game's headers its own.
        let page = GamesQuery { sort: GameSort::Rating, limit: 10_000, ..and.clone() }.run(&built.store).unwrap();
        let ratings: Vec<u32> = page
            .games
            .iter()
            .map(|g| games[built.generated[&g.id.0] as usize - 1].average_rating().unwrap_or(0))
            .collect();
        assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
        for game in &page.games {
            assert_eq!(game.white, games[built.generated[&game.id.0] as usize - 1].white);
        }
        // Ordering reads every game: refused beyond the bound, whatever the page size.
        let bounded = GamesQuery { sort: GameSort::Date, limit: 1, max_sorted: 1, ..and.clone() }.run(&built.store);
        let matching = sa.intersection(&sb).count();
        assert_eq!(bounded.is_err(), matching > 1, "{matching} games");
    }
}

#[test]
fn newest_first_is_by_the_full_date_then_the_round() {
    // Days and rounds of one month, written in an order that is neither, with unknown parts.
    let dates = ["2020.12.26", "2020.12.29", "2020.12.12", "2020.12.25", "2020.12.??", "2020.12.29", "2021.01.02"];
    let rounds = ["3", "1", "12", "2.2", "?", "10", "1"];
    let mut pgn = String::new();
    for (at, (date, round)) in dates.iter().zip(rounds).enumerate() {
        pgn +=
            &format!("[Event \"E{at}\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dated.pgn");
    std::fs::write(&file, pgn).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    indexer::ingest(&store, &[file], &mut indexer::SilentObserver).unwrap();
    let target = Target::uci("e2e4").resolve().unwrap();
    let query = GamesQuery { sort: GameSort::Date, limit: 100, ..common::every_game(GameSource::Position(target)) };
    let page = query.run(&store).unwrap();
    let listed: Vec<(String, String)> = page.games.iter().map(|g| (g.date.clone(), g.round.clone())).collect();
    // The independent order: the date's text (zero-padded, `?` before every digit), then the
    // round's numbers.
    let round_numbers = |round: &str| -> Vec<u32> { round.split('.').map(|part| part.parse().unwrap_or(0)).collect() };
    let mut expected: Vec<(String, String)> =
        dates.iter().zip(rounds).map(|(date, round)| (date.replace('?', "0"), round.to_owned())).collect();
    expected.sort_by(|a, b| (&b.0, round_numbers(&b.1)).cmp(&(&a.0, round_numbers(&a.1))));
    let unknown = |(date, round): &(String, String)| (date.replace('?', "0"), round.clone());
    assert_eq!(listed.iter().map(unknown).collect::<Vec<_>>(), expected, "{listed:?}");
    assert_eq!(listed[0], ("2021.01.02".to_owned(), "1".to_owned()));
    assert_eq!(listed[1], ("2020.12.29".to_owned(), "10".to_owned()));
}
