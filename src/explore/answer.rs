//! What an explorer lookup answers ([`Answer`]), in the lichess explorer's shape.

use serde::Serialize;

/// How much of an answer to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Next moves, most played first.
    pub moves: usize,
    /// Best-rated games, at most [`TOP_GAMES`](crate::model::TOP_GAMES).
    pub top: usize,
    /// Most recent games, at most [`RECENT_GAMES`](crate::model::RECENT_GAMES).
    pub recent: usize,
    /// Whether to answer the games month by month ([`Answer::history`]).
    pub history: bool,
}

impl Default for Limits {
    /// The lichess explorer's defaults: 12 moves, 4 top games, 4 recent games.
    fn default() -> Limits {
        Limits { moves: 12, top: 4, recent: 4, history: false }
    }
}

/// What an opening explorer shows for a position. Its JSON uses the lichess explorer's field
/// names (`white`, `draws`, `black`, `moves[].uci`, `topGames`, `opening`, ...) plus totals.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The position (canonical FEN, without counters).
    pub fen: String,
    /// Games reaching it.
    pub games: u64,
    /// Of those, won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Average rating of the rated players.
    pub average_rating: Option<u64>,
    /// Earliest year of a game.
    pub min_year: Option<u16>,
    /// Latest year of a game.
    pub max_year: Option<u16>,
    /// Next moves, most played first.
    pub moves: Vec<MoveRow>,
    /// Best-rated games.
    pub top_games: Vec<GameSummary>,
    /// `None` where an API has no recent games (the masters explorer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<GameSummary>>,
    /// The deepest named position of the line asked about.
    pub opening: Option<Opening>,
    /// What the games' evaluations of the position say (tabiya's own field; absent when no
    /// game's move into it carries one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<super::EvalAnswer>,
    /// The games month by month, when asked for ([`Limits::history`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// With a player filter: the spellings the name matched (tabiya's own field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<super::PlayerMatch>,
}

/// The games of a position over time (`history=true`): `history`, the lichess explorer's entries,
/// every month from the first to the last game dated to the month (zeros included); and
/// tabiya's `historyYearOnly`, the games whose date gives only the year (common in older
/// master games), by year. Undated games are in neither.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct History {
    /// By month.
    #[serde(rename = "history")]
    pub months: Vec<HistoryMonth>,
    /// By year, for the games dated by year alone.
    #[serde(rename = "historyYearOnly")]
    pub year_only: Vec<HistoryMonth>,
}

/// One entry of a [`History`].
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HistoryMonth {
    /// `YYYY-MM` (`YYYY` in [`History::year_only`]).
    pub month: String,
    /// Games won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
}

/// What the lichess player explorer (`/player`) answers: one player's games from a position,
/// with each move's results, the opponents' average rating and the player's performance.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerAnswer {
    /// Games won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Next moves, most played first.
    pub moves: Vec<PlayerMoveRow>,
    /// The player's most recent games.
    pub recent_games: Vec<GameSummary>,
    /// The deepest named position of the line asked about.
    pub opening: Option<Opening>,
    /// What the games' evaluations of the position say (tabiya's own field; absent when no
    /// game's move into it carries one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<super::EvalAnswer>,
    /// The games month by month, when asked for.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// Always 0: the games are indexed already (lichess queues its indexing).
    pub queue_position: u32,
    /// The spellings the player name matched (tabiya's own field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<super::PlayerMatch>,
}

/// One next move of a [`PlayerAnswer`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerMoveRow {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// Average rating of the player's rated opponents in these games.
    pub average_opponent_rating: Option<u64>,
    /// The player's performance rating in these games.
    pub performance: Option<i64>,
    /// Games won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// The game, when exactly one played the move and it is among the listed games.
    pub game: Option<GameSummary>,
    /// The evaluations after the move (tabiya's own fields, absent without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<super::EvalAnswer>,
    /// What the move gave up by the engine, where the games carry evaluations before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<super::LossAnswer>,
    /// How long the movers thought, where the games carry clocks or move times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<super::TimeAnswer>,
}

/// One next move.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveRow {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// Games that played it.
    pub games: u64,
    /// Of those, won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Average rating of their rated players.
    pub average_rating: Option<u64>,
    /// The mover's performance rating (see [`crate::model::Tally::performance`]).
    pub performance: Option<i64>,
    /// The game, when exactly one played the move and it is among the listed games.
    pub game: Option<GameSummary>,
    /// The opening the move leads to: the imported table's name of the position after it
    /// (`null` when the table names none), as the lichess explorer gives.
    pub opening: Option<Opening>,
    /// The evaluations after the move (tabiya's own fields, absent without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<super::EvalAnswer>,
    /// What the move gave up by the engine, where the games carry evaluations before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<super::LossAnswer>,
    /// How long the movers thought, where the games carry clocks or move times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<super::TimeAnswer>,

    /// The position the move leads to, under the same filter, by any move order (tabiya's own
    /// field: lichess clients ignore it).
    pub reached: Reached,
}

/// The games reaching a position by any move order, with their results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reached {
    /// Games in all (with those of an unknown result).
    pub games: u64,
    /// Won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
}

impl Reached {
    /// The games and results of `tally`.
    pub fn of(tally: &crate::model::Tally) -> Reached {
        Reached { games: tally.games, white: tally.white, draws: tally.draws, black: tally.black }
    }
}

/// A game reaching the position, with its headers.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    /// The game id, as a string (the lichess API's type).
    pub id: String,
    /// The move this game played from the position.
    pub uci: Option<String>,
    /// `white`, `black`, or null for a draw or unknown result.
    pub winner: Option<&'static str>,
    /// The white player.
    pub white: PlayerSummary,
    /// The black player.
    pub black: PlayerSummary,
    /// The year, when known.
    pub year: Option<u16>,
    /// `YYYY-MM` when the month is known.
    pub month: Option<String>,
    /// The `Date` tag.
    pub date: String,
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The `Round` tag.
    pub round: String,
    /// The result token (`1-0`, `1/2-1/2`, `0-1`, `*`).
    pub result: String,
    /// The speed's lichess name.
    pub speed: &'static str,
}

/// A player of a listed game.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerSummary {
    /// The name as in the `White`/`Black` tag.
    pub name: String,
    /// The rating, when given.
    pub rating: Option<u16>,
}

/// An opening's code and name, from an imported table.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Opening {
    /// ECO code.
    pub eco: String,
    /// Name.
    pub name: String,
}

/// One position a search found: material and pattern searches list these, most frequent first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionHit {
    /// The position.
    pub fen: String,
    /// Its key, in hexadecimal.
    pub key: String,
    /// Games reaching it.
    pub games: u64,
    /// Of those, won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
}

impl PositionHit {
    /// The hit of a key the snapshot `view` holds, with its counts (games, White wins, draws,
    /// Black wins).
    pub fn of(
        view: &crate::store::Snapshot,
        key: &crate::Key,
        [games, white, draws, black]: [u64; 4],
    ) -> Result<PositionHit, crate::store::StoreError> {
        let fen = view.positions().position(key)?.to_string();
        Ok(PositionHit { fen, key: key.to_string(), games, white, draws, black })
    }
}
