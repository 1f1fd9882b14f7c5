//! The opening report of a position: overview, popularity by year, score by rating band, the
//! move table, theory lines, move orders, themes, endings, game lengths, players and notable
//! games. Every figure is exact over every game matching the filter: the games of the
//! position's posting list are each read and replayed once ([`games`]); theory lines walk the
//! stored statistics; a second filter (`versus`) is counted in the same pass.
//!
//! ```no_run
//! use tabiya::explore::{Filter, Target};
//! use tabiya::report::opening::{OpeningOptions, OpeningReport};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let target = Target::san("1. e4 c5").resolve()?;
//! let report = OpeningReport::build(&store, &target, &OpeningOptions::new(Filter::default()))?;
//! println!("{} games, {} next moves", report.subsets[0].overview.games, report.subsets[0].moves.len());
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod games;
mod render;
mod themes;

use std::collections::BTreeMap;

use serde::Serialize;
use shakmaty::{Chess, Color, Position as _, san::San};

pub use games::material_signature;
use games::{Probe, Selection, Tallies};
pub use themes::{DEFAULT_THEMES, Theme};

pub use crate::report::results::Results;
use crate::report::results::{color_name, mover_score, percent, san};

use crate::{
    Key,
    codec::CompactMove,
    explore::{FilteredStats, GameSummary, Opening, QueryError, ResolvedTarget, summarize},
    model::{GameFacts, GameId, Month, RatingBand, Speed, Tally},
    store::Store,
};

/// Most players listed per colour.
pub const MAX_PLAYERS: usize = 50;
/// Games listed per notable-games list.
pub const NOTABLE_GAMES: usize = 5;
/// Most theory lines (one per most played first move).
pub const MAX_LINES: usize = 12;
/// Deepest theory line, in plies.
pub const MAX_DEPTH: usize = 40;

/// What to report on, beyond the position.
#[derive(Clone, Debug)]
pub struct OpeningOptions {
    /// The games counted.
    pub filter: crate::explore::Filter,
    /// A second subset reported beside the first (overview and move table), with its label.
    pub versus: Option<(crate::explore::Filter, String)>,
    /// Theory lines: plies deep (at most [`MAX_DEPTH`]).
    pub depth: usize,
    /// Theory lines: how many (one per most played first move, at most [`MAX_LINES`]).
    pub lines: usize,
    /// The themes looked for.
    pub themes: Vec<Theme>,
    /// How many plies after the position themes are looked for.
    pub within: usize,
    /// A label for the filter.
    pub label: String,
}

impl OpeningOptions {
    /// Defaults: depth 8, 6 lines, the default themes within 40 plies.
    pub fn new(filter: crate::explore::Filter) -> OpeningOptions {
        OpeningOptions {
            filter,
            versus: None,
            depth: 8,
            lines: 6,
            themes: Theme::defaults(),
            within: 40,
            label: "all games".to_owned(),
        }
    }
}

/// An opening report: JSON field names are camelCase; the doc comments are its schema.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningReport {
    /// The position (canonical FEN).
    pub fen: String,
    /// The deepest named position of that line.
    pub opening: Option<Opening>,
    /// The side to move: `white` or `black`.
    pub turn: &'static str,
    /// How move orders were found.
    pub move_order_method: &'static str,
    /// The themes looked for, in the order of each subset's `themes`.
    pub themes: Vec<Theme>,
    /// Plies after the position within which themes count.
    pub theme_plies: usize,
    /// The subsets: the report's filter first, then the `versus` filter's.
    pub subsets: Vec<Subset>,
    /// Main lines from the position, under the report's filter.
    pub theory: Vec<TheoryLine>,
}

/// One subset of the games reaching the position.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subset {
    /// Which games (the filter, in words).
    pub label: String,
    /// Headline figures.
    pub overview: Overview,
    /// Games per year, with that year's share.
    pub years: Vec<YearRow>,
    /// Results per rating band of the games' average rating.
    pub bands: Vec<BandRow>,
    /// Every next move, most played first.
    pub moves: Vec<MoveStats>,
    /// Every position one move before this one, with that move, most games first.
    pub move_orders: Vec<MoveOrder>,
    /// Per theme (as [`OpeningReport::themes`]), the games reaching it.
    pub themes: Vec<Results>,
    /// Final material of the games, most frequent first.
    pub endings: Vec<Ending>,
    /// Game lengths, by ten full moves.
    pub lengths: Vec<LengthRow>,
    /// Average game length in plies.
    pub average_plies: Option<f64>,
    /// Most frequent players with White, then with Black ([`MAX_PLAYERS`] each).
    pub players: Vec<PlayerRow>,
    /// Notable games.
    pub notable: Notable,
}

/// Headline figures of a subset.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// Games reaching the position.
    pub games: u64,
    /// Won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// White's score in percent.
    pub white_score: Option<f64>,
    /// Average rating of White's rated players.
    pub white_rating: Option<u64>,
    /// Average rating of Black's rated players.
    pub black_rating: Option<u64>,
    /// White's performance rating.
    pub white_performance: Option<i64>,
    /// Black's performance rating.
    pub black_performance: Option<i64>,
    /// Earliest year.
    pub first_year: Option<u16>,
    /// Latest year.
    pub last_year: Option<u16>,
    /// Games without a year.
    pub undated: u64,
    /// Games per speed (those with any).
    pub speeds: Vec<SpeedShare>,
    /// Games whose stored moves did not replay (corrupt data), left out of every figure.
    pub unreplayable: u64,
}

/// Games of one speed.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeedShare {
    /// The lichess name (`unknown` without a time control).
    pub speed: &'static str,
    /// Games.
    pub games: u64,
    /// Percent of the subset's games.
    pub share: f64,
}

/// One year.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct YearRow {
    /// The year.
    pub year: u16,
    /// Games reaching the position that year, with their results.
    #[serde(flatten)]
    pub results: Results,
    /// Games of the subset's filter that year in the whole database.
    pub year_games: u64,
    /// `games` as a percent of `yearGames`.
    pub share: Option<f64>,
}

/// One rating band.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BandRow {
    /// Lowest average rating of the band; `null` for unrated games.
    pub floor: Option<u16>,
    /// `2400-2499`, `3000+` or `unrated`.
    pub label: String,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
    /// White's score in percent.
    pub white_score: Option<f64>,
}

/// One next move.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveStats {
    /// UCI.
    pub uci: String,
    /// SAN.
    pub san: String,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
    /// Percent of the position's games.
    pub share: f64,
    /// The mover's score in percent.
    pub score: f64,
    /// Percent of the games drawn.
    pub draw_rate: f64,
    /// Average rating of the rated players.
    pub average_rating: Option<u64>,
    /// The mover's performance rating.
    pub performance: Option<i64>,
    /// Average year of the dated games.
    pub average_year: Option<f64>,
    /// Latest month (`YYYY-MM`, or `YYYY`) it was played.
    pub last_played: Option<String>,
}

/// A position one move before the report's.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveOrder {
    /// The position before (canonical FEN).
    pub fen: String,
    /// The move from it, in SAN.
    pub san: String,
    /// The move in UCI.
    pub uci: String,
    /// Games that came this way.
    pub games: u64,
}

/// Games ending with one material.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ending {
    /// Signature, White first: `KRPvKR`.
    pub material: String,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
    /// Percent of the subset's games.
    pub share: f64,
}

/// Games of a length range.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LengthRow {
    /// First full move of the range (`1` for 1–10 moves).
    pub from_move: u32,
    /// Last full move of the range.
    pub to_move: u32,
    /// Games.
    pub games: u64,
}

/// A player's games with one colour.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerRow {
    /// The name as in the tag.
    pub name: String,
    /// `white` or `black`.
    pub color: &'static str,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
    /// The player's score in percent.
    pub score: f64,
    /// The player's average rating.
    pub rating: Option<u64>,
    /// The player's performance rating.
    pub performance: Option<i64>,
}

/// Notable games of a subset.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notable {
    /// Highest average rating first.
    pub highest_rated: Vec<NotableGame>,
    /// Latest first.
    pub most_recent: Vec<NotableGame>,
    /// White's wins, fewest plies first.
    pub shortest_white_wins: Vec<NotableGame>,
    /// Black's wins, fewest plies first.
    pub shortest_black_wins: Vec<NotableGame>,
}

/// A listed game.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotableGame {
    /// Its headers, and the move it played from the position.
    #[serde(flatten)]
    pub summary: GameSummary,
    /// Its length in plies.
    pub plies: u32,
}

/// A main line: the most played continuation at each step.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TheoryLine {
    /// The steps.
    pub nodes: Vec<TheoryNode>,
    /// The position at its end (canonical FEN).
    pub end_fen: String,
}

/// One step of a main line.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TheoryNode {
    /// The move, SAN.
    pub san: String,
    /// The move, UCI.
    pub uci: String,
    /// Ply from the report's position (1 for the first move).
    pub ply: usize,
    /// Games that played it here, with their results.
    #[serde(flatten)]
    pub results: Results,
    /// The mover's score in percent.
    pub score: f64,
}

impl OpeningReport {
    /// The report of `target` under `options`.
    pub fn build(
        store: &Store,
        target: &ResolvedTarget,
        options: &OpeningOptions,
    ) -> Result<OpeningReport, QueryError> {
        if options.depth > MAX_DEPTH || options.lines > MAX_LINES {
            return Err(QueryError::input(format!(
                "theory lines go at most {MAX_DEPTH} plies deep and number at most {MAX_LINES}"
            )));
        }
        let chess = target.position.chess();
        let mut selections = vec![(Selection::new(store, options.filter.clone())?, options.label.clone())];
        if let Some((filter, label)) = &options.versus {
            selections.push((Selection::new(store, filter.clone())?, label.clone()));
        }
        let patterns: Vec<_> = options.themes.iter().map(|t| t.pattern.clone()).collect();
        let roles: Vec<_> = patterns.iter().map(|p| p.placement_roles()).collect();
        let probe = Probe { target: chess, key: &target.key, themes: &patterns, roles: &roles, within: options.within };
        let ids = store.postings(&target.key)?.to_vec();
        let refs: Vec<&Selection> = selections.iter().map(|(s, _)| s).collect();
        let tallies = games::tally(store, &ids, &refs, &probe)?;
        let mut subsets = Vec::new();
        for ((selection, label), tallies) in selections.iter().zip(tallies) {
            let year_games = year_games(store, selection)?;
            subsets.push(subset(store, target, label, tallies, &year_games)?);
        }
        Ok(OpeningReport {
            fen: target.position.to_string(),
            opening: opening(store, target)?,
            turn: color_name(chess.turn()),
            move_order_method: "posting list: every game reaching the position replayed, the position before each \
                                arrival keyed",
            themes: options.themes.clone(),
            theme_plies: options.within,
            subsets,
            theory: theory(store, chess, &options.filter, options.depth, options.lines)?,
        })
    }
}

fn opening(store: &Store, target: &ResolvedTarget) -> Result<Option<Opening>, QueryError> {
    for key in std::iter::once(&target.key).chain(&target.line) {
        if let Some((eco, name)) = store.opening(key)? {
            return Ok(Some(Opening { eco, name }));
        }
    }
    Ok(None)
}

/// Each year's games under the selection, in the whole database: the initial position's slices
/// (every game from the standard start), or the player's games.
fn year_games(store: &Store, selection: &Selection) -> Result<BTreeMap<u16, u64>, QueryError> {
    let mut years = BTreeMap::new();
    if let Some(ids) = selection.player_games() {
        for (&id, record) in ids.iter().zip(store.games(ids)?) {
            let Some(record) = record else { continue };
            let facts = GameFacts::of(id, record.result, &record.tags);
            if selection.admits(&facts) {
                *years.entry(facts.month.year().unwrap_or(0)).or_default() += 1;
            }
        }
        return Ok(years);
    }
    let start = Key::encode(&crate::Position::initial()).map_err(|err| QueryError::input(err.to_string()))?;
    for slice in store.position_slices(&start)?.unwrap_or_default().slices {
        if selection.filter.matches_slice(&slice.key) {
            *years.entry(slice.key.month.year().unwrap_or(0)).or_default() += slice.total.games;
        }
    }
    Ok(years)
}

fn subset(
    store: &Store,
    target: &ResolvedTarget,
    label: &str,
    t: Tallies,
    year_games: &BTreeMap<u16, u64>,
) -> Result<Subset, QueryError> {
    let chess = target.position.chess();
    let mover = chess.turn();
    let games = t.total.games;
    let total = Results::of(&t.total);
    let known_years = t.years.keys().copied().filter(|&y| y != 0);
    let overview = Overview {
        games,
        white: total.white,
        draws: total.draws,
        black: total.black,
        white_score: total.white_score(),
        white_rating: t.total.average_rating_of(Color::White),
        black_rating: t.total.average_rating_of(Color::Black),
        white_performance: t.total.performance(Color::White),
        black_performance: t.total.performance(Color::Black),
        first_year: known_years.clone().min(),
        last_year: known_years.max(),
        undated: t.years.get(&0).map_or(0, |t| t.games),
        speeds: Speed::ALL
            .iter()
            .zip(t.speeds)
            .filter(|(_, n)| *n > 0)
            .map(|(s, n)| SpeedShare { speed: s.name(), games: n, share: percent(n, games) })
            .collect(),
        unreplayable: t.unreplayable,
    };
    let years = t
        .years
        .iter()
        .filter(|(year, _)| **year != 0)
        .map(|(&year, tally)| {
            let all = year_games.get(&year).copied().unwrap_or(0);
            YearRow {
                year,
                results: Results::of(tally),
                year_games: all,
                share: (all > 0).then(|| percent(tally.games, all)),
            }
        })
        .collect();
    let bands = t
        .bands
        .iter()
        .map(|(&index, tally)| {
            let band = RatingBand::from_index(index).unwrap_or(RatingBand::UNRATED);
            let label = match band.floor() {
                Some(RatingBand::TOP) => format!("{}+", RatingBand::TOP),
                Some(floor) => format!("{floor}-{}", floor + RatingBand::WIDTH - 1),
                None => "unrated".to_owned(),
            };
            let results = Results::of(tally);
            BandRow { floor: band.floor(), label, white_score: results.white_score(), results }
        })
        .collect();
    let mut moves: Vec<MoveStats> = t
        .moves
        .iter()
        .map(|(&m, mt)| {
            let results = Results::of(&mt.tally);
            MoveStats {
                uci: m.to_string(),
                san: san(chess, m),
                share: percent(results.games, games),
                score: mover_score(&results, mover),
                draw_rate: percent(results.draws, results.games),
                average_rating: mt.tally.average_rating(),
                performance: mt.tally.performance(mover),
                average_year: (mt.dated > 0).then(|| mt.year_sum as f64 / mt.dated as f64),
                last_played: (mt.last != Month::UNKNOWN).then(|| mt.last.to_string()),
                results,
            }
        })
        .collect();
    moves.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.uci.cmp(&b.uci)));
    let mut move_orders = Vec::with_capacity(t.orders.len());
    for ((key, m), &count) in &t.orders {
        let before = key.decode().map_err(|err| store.corrupt(format!("a replayed position's key: {err}")))?;
        move_orders.push(MoveOrder {
            fen: before.to_string(),
            san: san(before.chess(), *m),
            uci: m.to_string(),
            games: count,
        });
    }
    move_orders.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.fen.cmp(&b.fen)).then_with(|| a.uci.cmp(&b.uci)));
    let mut endings: Vec<Ending> = t
        .endings
        .iter()
        .map(|(material, tally)| Ending {
            material: material.clone(),
            results: Results::of(tally),
            share: percent(tally.games, games),
        })
        .collect();
    endings.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.material.cmp(&b.material)));
    let mut lengths: BTreeMap<u32, u64> = BTreeMap::new();
    let mut ply_sum = 0u64;
    for (&plies, &count) in &t.plies {
        // Full moves 1–10 are plies 1–20; a game of 0 plies falls in the first range.
        *lengths.entry(plies.saturating_sub(1) / 20).or_default() += count;
        ply_sum += u64::from(plies) * count;
    }
    let lengths = lengths
        .into_iter()
        .map(|(b, games)| LengthRow { from_move: b * 10 + 1, to_move: b * 10 + 10, games })
        .collect();
    let mut players = Vec::new();
    for (side, color) in Color::ALL.into_iter().enumerate() {
        let mut rows: Vec<PlayerRow> = t.players[side]
            .iter()
            .map(|(name, tally)| {
                let results = Results::of(tally);
                PlayerRow {
                    name: name.clone(),
                    color: color_name(color),
                    score: mover_score(&results, color),
                    rating: tally.average_rating_of(color),
                    performance: tally.performance(color),
                    results,
                }
            })
            .collect();
        rows.sort_by(|a, b| b.results.games.cmp(&a.results.games).then_with(|| a.name.cmp(&b.name)));
        rows.truncate(MAX_PLAYERS);
        players.extend(rows);
    }
    let notable = notable(store, target, t.rated, t.dated, t.wins)?;
    Ok(Subset {
        label: label.to_owned(),
        overview,
        years,
        bands,
        moves,
        move_orders,
        themes: t.themes.iter().map(Results::of).collect(),
        endings,
        lengths,
        average_plies: (games > 0).then(|| ply_sum as f64 / games as f64),
        players,
        notable,
    })
}

fn notable(
    store: &Store,
    target: &ResolvedTarget,
    mut rated: Vec<(u16, GameId)>,
    mut dated: Vec<(Month, GameId)>,
    wins: [Vec<(u32, GameId)>; 2],
) -> Result<Notable, QueryError> {
    rated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    dated.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let list = |ids: Vec<GameId>| -> Result<Vec<NotableGame>, QueryError> {
        let mut out = Vec::new();
        for (id, record) in ids.iter().zip(store.games(&ids)?) {
            let record = record.ok_or_else(|| store.corrupt(format!("game {id} of a posting list is missing")))?;
            out.push(NotableGame { plies: record.plies() as u32, summary: summarize(*id, &record, Some(target)) });
        }
        Ok(out)
    };
    let first = |ids: Vec<GameId>| ids.into_iter().take(NOTABLE_GAMES).collect::<Vec<_>>();
    let [mut white, mut black] = wins;
    white.sort_unstable();
    black.sort_unstable();
    Ok(Notable {
        highest_rated: list(first(rated.into_iter().map(|g| g.1).collect()))?,
        most_recent: list(first(dated.into_iter().map(|g| g.1).collect()))?,
        shortest_white_wins: list(first(white.into_iter().map(|g| g.1).collect()))?,
        shortest_black_wins: list(first(black.into_iter().map(|g| g.1).collect()))?,
    })
}

/// Main lines: the `lines` most played moves from the position, each followed by the most
/// played continuation until `depth` plies or no game goes on.
fn theory(
    store: &Store,
    root: &Chess,
    filter: &crate::explore::Filter,
    depth: usize,
    lines: usize,
) -> Result<Vec<TheoryLine>, QueryError> {
    let ranked = |chess: &Chess| -> Result<Vec<(CompactMove, Tally)>, QueryError> {
        let position = crate::Position::from_chess(chess.clone()).map_err(|err| QueryError::input(err.to_string()))?;
        let key = Key::encode(&position).map_err(|err| QueryError::input(err.to_string()))?;
        let stats = FilteredStats { key, filter: filter.clone() }.run(store)?;
        let mut moves = stats.moves;
        moves.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
        Ok(moves)
    };
    let mut out = Vec::new();
    if depth == 0 {
        return Ok(out);
    }
    for (first, tally) in ranked(root)?.into_iter().take(lines) {
        let mut chess = root.clone();
        let mut nodes = Vec::new();
        let mut step = Some((first, tally));
        while let Some((m, tally)) = step {
            let Some(legal) = m.to_move(&chess) else { break };
            let results = Results::of(&tally);
            nodes.push(TheoryNode {
                san: San::from_move(&chess, legal).to_string(),
                uci: m.to_string(),
                ply: nodes.len() + 1,
                score: mover_score(&results, chess.turn()),
                results,
            });
            chess.play_unchecked(legal);
            step = if nodes.len() < depth { ranked(&chess)?.into_iter().next() } else { None };
        }
        let end = crate::Position::from_chess(chess).map_err(|err| QueryError::input(err.to_string()))?;
        out.push(TheoryLine { nodes, end_fen: end.to_string() });
    }
    Ok(out)
}
