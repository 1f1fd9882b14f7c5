//! The opening report of a position: overview, popularity by year, score by rating band, the
//! move table, theory lines, move orders, themes, endings, game lengths, players and notable
//! games. Every figure is exact over every game matching the filter: the games of the
//! position's posting list are each read and replayed once (`games.rs`); theory lines walk the
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
mod subset;
mod themes;
mod theory;

use serde::Serialize;
use shakmaty::Position as _;

use games::Probe;
pub use themes::{DEFAULT_THEMES, Theme};

pub use crate::report::results::Results;
use crate::report::results::color_name;
use crate::{
    explore::{
        Admission, EvalAnswer, GameSummary, LossAnswer, Opening, QueryError, Reached, ResolvedTarget, TimeAnswer,
    },
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
    /// The position (canonical FEN; X-FEN in Chess960).
    pub fen: String,
    /// Its variant: `standard` or `chess960` (whose games alone the report counts).
    pub variant: &'static str,
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
    /// The evaluations the subset's games arrived with, when annotated games reach it (as a
    /// lookup's `eval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<EvalAnswer>,
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
    /// The position it leads to, under the subset's filter, by any move order.
    pub reached: Reached,
    /// The evaluations after it, from annotated games (as a lookup's move row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<EvalAnswer>,
    /// What the mover gave up by it, by the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossAnswer>,
    /// How long the movers thought over it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeAnswer>,
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
        // Every game reaching the position is replayed: a scan's snapshot.
        let view = &store.scan_snapshot();
        let chess = target.position.shakmaty();
        let mut selections = vec![(Admission::resolve(view, &options.filter)?, options.label.clone())];
        if let Some((filter, label)) = &options.versus {
            selections.push((Admission::resolve(view, filter)?, label.clone()));
        }
        let variant = crate::position::Variant::of(&target.position);
        let probe = Probe::new(&target.position, &target.key, &options.themes, options.within);
        let ids = view.positions().game_ids(&target.key)?;
        let refs: Vec<&Admission> = selections.iter().map(|(s, _)| s).collect();
        let tallies = games::tally(view, &ids, &refs, &probe)?;
        let mut subsets = Vec::new();
        for ((selection, label), tallies) in selections.iter().zip(tallies) {
            let year_games = subset::year_games(view, selection, variant)?;
            subsets.push(subset::subset(view, target, (label, selection), tallies, &year_games)?);
            selection.checked(())?;
        }
        Ok(OpeningReport {
            fen: target.position.to_string(),
            variant: variant.name(),
            opening: crate::explore::opening_of(view, target)?,
            turn: color_name(chess.turn()),
            move_order_method: "posting list: every game reaching the position replayed, the position before each \
                                arrival keyed",
            themes: options.themes.clone(),
            theme_plies: options.within,
            subsets,
            theory: selections[0].0.checked(theory::theory(
                view,
                &target.position,
                &selections[0].0,
                options.depth,
                options.lines,
            )?)?,
        })
    }
}
