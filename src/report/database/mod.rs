//! The database report: totals, games per year, the rating histogram, results, speeds, the most
//! common openings and players, the most common positions by ply (one pass over every game,
//! each replayed for its opening plies), and the endgame frequency table (from material key
//! ranges and posting-list unions, no game replayed: [`endgames`]).
//!
//! ```no_run
//! use tabiya::report::database::{DatabaseOptions, DatabaseReport};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let report = DatabaseReport::build(&store, &DatabaseOptions::default())?;
//! println!("{} games, {} endgame classes", report.totals.games, report.endgames.len());
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod distributed;
pub mod endgames;
mod games;

use serde::Serialize;

pub use super::results::Results;
use super::results::{band_label, percent};
use crate::{
    explore::{QueryError, distributed::run_whole},
    model::{RatingBand, Speed},
    position::Variant,
    store::{ScanProgress, Snapshot, Store},
};
pub use distributed::DatabasePartial;

/// How much the report lists.
#[derive(Clone, Debug)]
pub struct DatabaseOptions {
    /// Most common positions listed per ply, for plies 1 to `plies`.
    pub plies: usize,
    /// Positions listed per ply.
    pub positions_per_ply: usize,
    /// Openings and players listed.
    pub top: usize,
    /// The variant whose games and positions are counted (the others' games only counted).
    pub variant: Variant,
}

impl Default for DatabaseOptions {
    /// Standard chess: plies 1 to 10, 5 positions each, 30 openings and players.
    fn default() -> DatabaseOptions {
        DatabaseOptions { plies: 10, positions_per_ply: 5, top: 30, variant: Variant::Standard }
    }
}

/// Deepest ply openings are named at (the imported table's lines are shorter).
pub const OPENING_PLIES: usize = 40;
/// Deepest ply of the most-common-positions table (every game's position at each ply is held
/// in memory while counting).
pub const MAX_PLIES: usize = 20;

/// A database report; JSON field names are camelCase, the doc comments are its schema.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseReport {
    /// Database totals.
    pub totals: Totals,
    /// Results of every game.
    pub results: Results,
    /// Games with no result (`*`).
    pub unfinished: u64,
    /// Average game length in plies.
    pub average_plies: Option<f64>,
    /// Games per year (games without a year left out; see `undated`).
    pub years: Vec<YearCount>,
    /// Games without a year.
    pub undated: u64,
    /// Games per rating band of their average rating.
    pub ratings: Vec<BandCount>,
    /// Games per speed.
    pub speeds: Vec<SpeedCount>,
    /// Whether an opening table was imported (`tabiya openings import`).
    pub opening_table: bool,
    /// Most common openings: each game counted under the deepest named position of its first
    /// [`OPENING_PLIES`] plies.
    pub openings: Vec<OpeningCount>,
    /// Games that reached no named position.
    pub unnamed: u64,
    /// Most frequent players (either colour).
    pub players: Vec<PlayerCount>,
    /// Endgame classes (at most [`endgames::MAX_MEN`] men), most games first.
    pub endgames: Vec<EndgameClass>,
    /// The most common positions at each ply.
    pub positions_by_ply: Vec<PlyPositions>,
    /// Games whose stored moves did not replay (corrupt data).
    pub unreplayable: u64,
    /// The variant reported on: `standard` or `chess960`.
    pub variant: &'static str,
    /// Games of the other variant: in the totals, left out of the rest.
    pub other_variant_games: u64,
}

/// The database's totals.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Games indexed.
    pub games: u64,
    /// Plies of those games.
    pub plies: u64,
    /// Position occurrences (per game, its distinct positions).
    pub position_occurrences: u64,
    /// Distinct positions (counted at the end of the last ingest).
    pub distinct_positions: Option<u64>,
    /// Of those, reached by one game.
    pub single_game_positions: Option<u64>,
}

/// Games of one year.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct YearCount {
    /// The year.
    pub year: u16,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
}

/// Games of one rating band.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BandCount {
    /// Lowest average rating of the band; `null` for unrated games.
    pub floor: Option<u16>,
    /// `2400-2499`, `3000+` or `unrated`.
    pub label: String,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
}

/// Games of one speed.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeedCount {
    /// The lichess name (`unknown` without a time control).
    pub speed: &'static str,
    /// Games.
    pub games: u64,
    /// Percent of all games.
    pub share: f64,
}

/// An opening and its games.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningCount {
    /// ECO code.
    pub eco: String,
    /// Name.
    pub name: String,
    /// Games and results.
    #[serde(flatten)]
    pub results: Results,
    /// Percent of all games.
    pub share: f64,
}

/// A player and their games.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerCount {
    /// The name as in the tags.
    pub name: String,
    /// Games with either colour.
    pub games: u64,
    /// With White.
    pub white: u64,
    /// The player's score in percent.
    pub score: f64,
}

/// Games reaching one endgame class.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndgameClass {
    /// The material, stronger side first: `KRPvKR` (either colour).
    pub class: String,
    /// Men on the board.
    pub men: usize,
    /// Games reaching a position of the class.
    pub games: u64,
    /// Percent of all games.
    pub share: f64,
    /// Distinct positions of the class.
    pub positions: u64,
}

/// The most common positions at one ply.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlyPositions {
    /// Plies from the initial position.
    pub ply: usize,
    /// Games from the initial position that lasted this long.
    pub games: u64,
    /// Most games first.
    pub positions: Vec<PositionCount>,
}

/// A position and the games standing on it at a ply.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionCount {
    /// Canonical FEN.
    pub fen: String,
    /// Games.
    pub games: u64,
    /// Percent of the games that reached the ply.
    pub share: f64,
}

impl DatabaseReport {
    /// The report of the whole database.
    pub fn build(store: &Store, options: &DatabaseOptions) -> Result<DatabaseReport, QueryError> {
        // The parts are read in one scan snapshot of a database that another process may be
        // ingesting into: a server's catch-up waits for the scan (seconds on a large
        // database), and scans asked for meanwhile wait behind it.
        run_whole(options, store, &ScanProgress::default())
    }

    /// The report from what every part held, merged; its positions and totals read from `view`.
    fn of(view: &Snapshot, options: &DatabaseOptions, merged: DatabasePartial) -> Result<DatabaseReport, QueryError> {
        let DatabasePartial { counts, classes } = merged;
        let totals = view.totals()?;
        let games = counts.total.games;
        let mut endgames: Vec<EndgameClass> = classes
            .into_iter()
            .map(|(class, part)| EndgameClass {
                class,
                men: part.men,
                games: part.games.len() as u64,
                share: percent(part.games.len() as u64, games),
                positions: part.positions,
            })
            .collect();
        endgames.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.class.cmp(&b.class)));
        let mut openings: Vec<OpeningCount> = counts
            .openings
            .iter()
            .map(|((eco, name), tally)| OpeningCount {
                eco: eco.clone(),
                name: name.clone(),
                results: Results::of(tally),
                share: percent(tally.games, games),
            })
            .collect();
        openings.sort_by(|a, b| {
            b.results.games.cmp(&a.results.games).then_with(|| a.eco.cmp(&b.eco)).then_with(|| a.name.cmp(&b.name))
        });
        openings.truncate(options.top);
        let mut players: Vec<PlayerCount> = counts
            .players
            .iter()
            .map(|(name, p)| PlayerCount {
                name: name.clone(),
                games: p.games,
                white: p.white,
                score: percent(p.points, 2 * p.games),
            })
            .collect();
        players.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        players.truncate(options.top);
        let mut positions_by_ply = Vec::new();
        for (ply, at) in counts.by_ply.iter().enumerate() {
            let reached: u64 = at.values().sum();
            let mut top: Vec<_> = at.iter().collect();
            top.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let mut positions = Vec::new();
            for (key, &n) in top.into_iter().take(options.positions_per_ply) {
                let fen = view.positions().position(key)?;
                positions.push(PositionCount { fen: fen.to_string(), games: n, share: percent(n, reached) });
            }
            positions_by_ply.push(PlyPositions { ply: ply + 1, games: reached, positions });
        }
        Ok(DatabaseReport {
            totals: Totals {
                games: totals.games,
                plies: totals.plies,
                position_occurrences: totals.position_occurrences,
                distinct_positions: totals.distinct_positions,
                single_game_positions: totals.single_game_positions,
            },
            results: Results::of(&counts.total),
            unfinished: games.saturating_sub(counts.total.white + counts.total.draws + counts.total.black),
            average_plies: (games > 0).then(|| counts.plies as f64 / games as f64),
            years: counts
                .years
                .iter()
                .filter(|(year, _)| **year != 0)
                .map(|(&year, tally)| YearCount { year, results: Results::of(tally) })
                .collect(),
            undated: counts.years.get(&0).map_or(0, |t| t.games),
            ratings: counts
                .bands
                .iter()
                .map(|(&index, tally)| {
                    let band = RatingBand::from_index(index).unwrap_or(RatingBand::UNRATED);
                    BandCount { floor: band.floor(), label: band_label(band), results: Results::of(tally) }
                })
                .collect(),
            speeds: Speed::ALL
                .iter()
                .zip(counts.speeds)
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| SpeedCount { speed: s.name(), games: n, share: percent(n, games) })
                .collect(),
            opening_table: !distributed::opening_names(view)?.is_empty(),
            unnamed: counts.unnamed,
            openings,
            players,
            endgames,
            positions_by_ply,
            unreplayable: counts.unreplayable,
            variant: options.variant.name(),
            other_variant_games: counts.other_variant,
        })
    }
}
