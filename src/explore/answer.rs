//! A position's explorer answer, and the [`Explorer`] that computes it from the store.

use serde::Serialize;
use shakmaty::{Color, Position as _, san::San};

use super::{Filter, QueryError, Target};
use crate::{
    Key,
    codec::CompactMove,
    ingest::GameResult,
    store::{GameFacts, GameId, GameRecord, GameRef, PositionStats, RECENT_GAMES, Store, TOP_GAMES, Tally, replay},
};

/// How much of an answer to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Next moves, most played first.
    pub moves: usize,
    /// Best-rated games, at most [`TOP_GAMES`].
    pub top: usize,
    /// Most recent games, at most [`RECENT_GAMES`].
    pub recent: usize,
}

impl Default for Limits {
    /// The lichess explorer's defaults: 12 moves, 4 top games, 4 recent games.
    fn default() -> Limits {
        Limits { moves: 12, top: 4, recent: 4 }
    }
}

/// Most games a player filter replays (bounded work per query).
pub const MAX_PLAYER_GAMES: usize = 100_000;

/// Positions with at most this many games get their filtered top and recent games from their
/// posting list (exact); others from their slices (exact for up to 4 top games).
pub const EXACT_GAMES_LIMIT: usize = 64;

/// What an opening explorer shows for a position. Its JSON uses the lichess explorer's field
/// names (`white`, `draws`, `black`, `moves[].uci`, `topGames`, `opening`, ...) plus totals.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub fen: String,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub average_rating: Option<u64>,
    pub min_year: Option<u16>,
    pub max_year: Option<u16>,
    pub moves: Vec<MoveRow>,
    pub top_games: Vec<GameSummary>,
    /// `None` where an API has no recent games (the masters explorer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<GameSummary>>,
    pub opening: Option<Opening>,
}

/// One next move.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveRow {
    pub uci: String,
    pub san: String,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub average_rating: Option<u64>,
    /// The mover's performance rating (see [`Tally::performance`]).
    pub performance: Option<i64>,
    /// The game, when exactly one played the move and it is among the listed games.
    pub game: Option<GameSummary>,
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
    pub white: PlayerSummary,
    pub black: PlayerSummary,
    pub year: Option<u16>,
    /// `YYYY-MM` when the month is known.
    pub month: Option<String>,
    pub date: String,
    pub event: String,
    pub site: String,
    pub round: String,
    pub result: String,
    pub speed: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlayerSummary {
    pub name: String,
    pub rating: Option<u16>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Opening {
    pub eco: String,
    pub name: String,
}

/// Answers lookups from a store.
pub struct Explorer<'a> {
    store: &'a Store,
}

impl<'a> Explorer<'a> {
    pub fn new(store: &'a Store) -> Explorer<'a> {
        Explorer { store }
    }

    /// The answer for `target` under `filter`.
    pub fn lookup(&self, target: &Target, filter: &Filter, limits: &Limits) -> Result<Answer, QueryError> {
        let stats = self.stats(&target.key, filter)?;
        let chess = target.position.chess();
        let mover = chess.turn();
        let mut moves: Vec<_> = stats.moves.iter().collect();
        moves.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
        moves.truncate(limits.moves);
        let top = self.summaries(&stats.top, limits.top.min(TOP_GAMES), target)?;
        let recent = self.summaries(&stats.recent, limits.recent.min(RECENT_GAMES), target)?;
        let moves = moves
            .into_iter()
            .map(|(m, tally)| {
                let uci = m.to_string();
                let game = (tally.games == 1)
                    .then(|| top.iter().chain(&recent).find(|g| g.uci.as_deref() == Some(uci.as_str())).cloned())
                    .flatten();
                MoveRow {
                    san: san(chess, *m),
                    uci,
                    games: tally.games,
                    white: tally.white,
                    draws: tally.draws,
                    black: tally.black,
                    average_rating: tally.average_rating(),
                    performance: tally.performance(mover),
                    game,
                }
            })
            .collect();
        let year = |y: u16| (y != 0).then_some(y);
        Ok(Answer {
            fen: target.position.to_string(),
            games: stats.total.games,
            white: stats.total.white,
            draws: stats.total.draws,
            black: stats.total.black,
            average_rating: stats.total.average_rating(),
            min_year: year(stats.min_year),
            max_year: year(stats.max_year),
            moves,
            top_games: top,
            recent_games: Some(recent),
            opening: self.opening(target)?,
        })
    }

    /// The position's statistics restricted to `filter` (slices and player games dropped).
    pub fn stats(&self, key: &Key, filter: &Filter) -> Result<PositionStats, QueryError> {
        if filter.player.is_some() {
            return self.player_stats(key, filter);
        }
        if filter.is_unfiltered() {
            return Ok(self.store.position_head(key)?.unwrap_or_default());
        }
        let stats = self.store.position_slices(key)?.unwrap_or_default();
        let mut filtered = PositionStats::default();
        for slice in stats.slices.iter().filter(|slice| filter.matches_slice(&slice.key)) {
            let year = slice.key.month.year().unwrap_or(0);
            filtered.merge(&PositionStats {
                total: slice.total,
                min_year: year,
                max_year: year,
                moves: slice.moves.clone(),
                top: slice.games.clone(),
                recent: slice.games.clone(),
                slices: Vec::new(),
                game_ids: Vec::new(),
            });
        }
        // A rare position's few games are cheaper to read than to approximate: its top and
        // recent games under the filter then come from its posting list, exactly.
        if stats.total.games <= EXACT_GAMES_LIMIT as u64 {
            let ids: Vec<GameId> = self.store.postings(key)?.iter().map(GameId).collect();
            let mut refs = Vec::new();
            for (id, record) in ids.iter().zip(self.store.games(&ids)?) {
                let Some(record) = record else { continue };
                let facts = GameFacts::of(id.0, record.result, &record.tags);
                if filter.matches_game(&facts) {
                    refs.push(GameRef::of(&facts));
                }
            }
            refs.sort_by_key(GameRef::by_rating);
            filtered.top = refs.iter().take(TOP_GAMES).copied().collect();
            refs.sort_by_key(GameRef::by_recency);
            filtered.recent = refs.iter().take(RECENT_GAMES).copied().collect();
        }
        Ok(filtered)
    }

    /// Replays the player's games (the players index intersected with the position's posting list)
    /// that pass the filter.
    fn player_stats(&self, key: &Key, filter: &Filter) -> Result<PositionStats, QueryError> {
        let name = filter.player.as_deref().unwrap_or("");
        let player = self.store.player_games(name, filter.color)?;
        // Only the player's games that reached the position (the posting list says which) are
        // read and replayed.
        let postings = self.store.postings(key)?;
        let ids: Vec<GameId> =
            crate::postings::intersect(player.iter().map(|id| id.0), postings.iter()).map(GameId).collect();
        if ids.len() > MAX_PLAYER_GAMES {
            return Err(QueryError::input(format!(
                "player {name:?} reached this position in {} games, more than {MAX_PLAYER_GAMES}: give more \
                 of the name or a deeper position",
                ids.len()
            )));
        }
        let target = key.decode().map_err(|err| QueryError::input(err.to_string()))?;
        let mut stats = PositionStats::default();
        for id in ids {
            let Some(record) = self.store.game(id)? else { continue };
            let facts = GameFacts::of(id.0, record.result, &record.tags);
            if !filter.matches_game(&facts) {
                continue;
            }
            let Some(next) = moves_from(&record, target.chess(), key) else { continue };
            stats.merge(&PositionStats::game(&facts, &next));
        }
        stats.slices.clear();
        stats.game_ids.clear();
        Ok(stats)
    }

    fn summaries(&self, refs: &[GameRef], limit: usize, target: &Target) -> Result<Vec<GameSummary>, QueryError> {
        let mut summaries = Vec::with_capacity(limit);
        for game in refs.iter().take(limit) {
            let id = GameId(game.id);
            let record = self.store.game(id)?.ok_or_else(|| {
                self.store.corrupt(format!("game {id} referenced by position {} is missing", target.key))
            })?;
            summaries.push(summarize(id, &record, Some(target)));
        }
        Ok(summaries)
    }

    /// The opening of the deepest named position of the target's line.
    fn opening(&self, target: &Target) -> Result<Option<Opening>, QueryError> {
        for key in std::iter::once(&target.key).chain(&target.line) {
            if let Some((eco, name)) = self.store.opening(key)? {
                return Ok(Some(Opening { eco, name }));
            }
        }
        Ok(None)
    }
}

/// The moves a game played from the position `key` (empty when it ended there); `None` when it
/// never reached it.
fn moves_from(record: &GameRecord, target: &shakmaty::Chess, key: &Key) -> Option<Vec<CompactMove>> {
    let positions = replay(record)?;
    let mut moves = record.moves();
    let mut reached = false;
    let mut next = Vec::new();
    for position in &positions {
        let played = moves.next().flatten();
        // Cheap board and turn comparison first; the key decides (castling and en passant
        // rights as canonicalised).
        if position.board() == target.board()
            && position.turn() == target.turn()
            && crate::Position::from_chess(position.clone()).ok().and_then(|p| Key::encode(&p).ok()).as_ref()
                == Some(key)
        {
            reached = true;
            next.extend(played);
        }
    }
    reached.then_some(next)
}

/// A game's headers, and the move it played from the target position.
pub fn summarize(id: GameId, record: &GameRecord, target: Option<&Target>) -> GameSummary {
    let tags = &record.tags;
    let facts = GameFacts::of(id.0, record.result, tags);
    let uci = target
        .and_then(|target| moves_from(record, target.position.chess(), &target.key)?.first().map(|m| m.to_string()));
    GameSummary {
        id: id.to_string(),
        uci,
        winner: match record.result {
            GameResult::WhiteWins => Some("white"),
            GameResult::BlackWins => Some("black"),
            _ => None,
        },
        white: PlayerSummary { name: tags.white.clone(), rating: tags.white_elo },
        black: PlayerSummary { name: tags.black.clone(), rating: tags.black_elo },
        year: facts.month.year(),
        month: facts.month.month().map(|_| facts.month.to_string()),
        date: tags.date.clone(),
        event: tags.event.clone(),
        site: tags.site.clone(),
        round: tags.round.clone(),
        result: record.result.tag().to_owned(),
        speed: facts.speed.name(),
    }
}

fn san(chess: &shakmaty::Chess, m: CompactMove) -> String {
    m.to_move(chess).map(|m| San::from_move(chess, m).to_string()).unwrap_or_else(|| m.to_string())
}

impl Answer {
    /// The human-readable table `tabiya query` prints.
    pub fn to_table(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.fen);
        if let Some(opening) = &self.opening {
            let _ = writeln!(out, "{} {}", opening.eco, opening.name);
        }
        let years = match (self.min_year, self.max_year) {
            (Some(a), Some(b)) => format!(", {a}-{b}"),
            _ => String::new(),
        };
        let total =
            Tally { games: self.games, white: self.white, draws: self.draws, black: self.black, ..Tally::default() };
        let rating = self.average_rating.map_or(String::new(), |r| format!(", average rating {r}"));
        let _ = writeln!(out, "{}{rating}{years}", describe(&total));
        if !self.moves.is_empty() {
            let _ = writeln!(
                out,
                "\n  {:<8} {:>7}  {:>6} {:>6} {:>6}  {:>6}  {:>5}",
                "move", "games", "white", "draw", "black", "rating", "perf"
            );
            for row in &self.moves {
                let pct = |n: u64| 100.0 * n as f64 / row.games.max(1) as f64;
                let number = |n: Option<i64>| n.map_or("-".to_owned(), |n| n.to_string());
                let _ = writeln!(
                    out,
                    "  {:<8} {:>7}  {:>5.1}% {:>5.1}% {:>5.1}%  {:>6}  {:>5}",
                    row.san,
                    row.games,
                    pct(row.white),
                    pct(row.draws),
                    pct(row.black),
                    number(row.average_rating.map(|r| r as i64)),
                    number(row.performance)
                );
            }
        }
        let recent = self.recent_games.as_deref().unwrap_or_default();
        for (title, games) in [("top games", self.top_games.as_slice()), ("recent games", recent)] {
            if games.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title}:");
            for game in games {
                let rating = |r: Option<u16>| r.map_or(String::new(), |r| format!(" ({r})"));
                let _ = writeln!(
                    out,
                    "  #{:<7} {}{} - {}{}  {}  {}  {}  {}",
                    game.id,
                    game.white.name,
                    rating(game.white.rating),
                    game.black.name,
                    rating(game.black.rating),
                    game.result,
                    game.date,
                    game.event,
                    game.uci.as_deref().unwrap_or("")
                );
            }
        }
        out
    }
}

fn describe(t: &Tally) -> String {
    let pct = |n: u64| if t.games == 0 { 0.0 } else { 100.0 * n as f64 / t.games as f64 };
    format!("{} games: white {:.1}%, draws {:.1}%, black {:.1}%", t.games, pct(t.white), pct(t.draws), pct(t.black))
}

/// The colour of a `white`/`black`/`w`/`b` argument.
pub fn parse_color(text: &str) -> Result<Color, QueryError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        _ => Err(QueryError::input(format!("bad colour {text:?}: expected white or black"))),
    }
}
