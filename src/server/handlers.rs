//! One function per endpoint. Explorer lookups run inline on the runtime's threads (they are
//! bounded and short); game lists, PGN and material searches, which can read many games or key
//! ranges, run on the blocking pool; whole-database scans run within the scan budget ([`scan`]).

use std::{collections::HashMap, sync::Arc};

use axum::{
    Json,
    extract::{
        Path, Query, State,
        rejection::{PathRejection, QueryRejection},
    },
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::json;

use super::{
    AppState,
    params::{ApiError, Params},
};
use crate::{
    explore::{
        Answer, Filter, GamePage, GameSort, GameSource, GamesQuery, Limits, Lookup, MaterialQuery, MaterialSearch,
        PatternQuery, PatternSearch, QueryError, ResolvedTarget, SequenceQuery, Signature, Target, find_players,
        parse_color, suggest_players,
    },
    export::{BookOptions, BookWeight},
    model::{GameId, RECENT_GAMES, TOP_GAMES},
    pattern::{GamePattern, Pattern, Sequence},
    position::Variant,
    render::{
        json::DatabaseTotals,
        pgn,
        report::{Format, Report},
    },
    report::{
        database::{DatabaseOptions, DatabaseReport},
        opening::{OpeningOptions, OpeningReport, Theme},
        player::{PlayerOptions, PlayerReport},
    },
    store::ScanProgress,
};

pub(super) type Parameters = Result<Query<HashMap<String, String>>, QueryRejection>;

/// A path segment (`/game/{id}`): a segment that is not UTF-8 is a 400 in the JSON shape.
pub(super) type Segment = Result<Path<String>, PathRejection>;

pub(super) fn segment(segment: Segment) -> Result<String, ApiError> {
    segment.map(|Path(value)| value).map_err(|err| ApiError::bad_request(err.body_text()))
}

pub(super) fn params(query: Parameters) -> Result<Params, ApiError> {
    let Query(map) = query.map_err(|err| ApiError::bad_request(err.body_text()))?;
    Params::new(map)
}

/// Runs the whole-database scan `work` within the server's scan budget (`budget.rs`).
pub(super) async fn scan<T: Send + 'static>(
    state: Arc<AppState>,
    work: impl FnOnce(&AppState, &ScanProgress) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let scans = Arc::clone(&state.scans);
    scans.run(move |progress| work(&state, progress)).await
}

/// Runs `work` on the blocking pool.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "request failed".to_owned()))?
}

/// The masters explorer: since/until are years, up to 15 top games, no recent games.
///
/// Lookups run inline: they are bounded (a few hundred microseconds at most on a large
/// database), and a hop to the blocking pool would cost more than it protects.
pub async fn masters(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Json<Answer>, ApiError> {
    let params = params(query)?;
    let lookup =
        Lookup { target: params.target()?, filter: params.filter()?, limits: params.limits(TOP_GAMES, TOP_GAMES, 0)? };
    let mut answer = lookup.run(&state.store)?;
    answer.recent_games = None;
    Ok(Json(answer))
}

/// The lichess explorer: since/until are months, speeds and rating groups, up to 4 top and 4
/// recent games.
pub async fn lichess(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Json<Answer>, ApiError> {
    let params = params(query)?;
    params.variant()?;
    let lookup = Lookup {
        target: params.target()?,
        filter: params.filter()?,
        limits: params.limits(4, 4, 4.min(RECENT_GAMES))?,
    };
    Ok(Json(lookup.run(&state.store)?))
}

/// The lichess player explorer: one player's games from a position as NDJSON (`player`,
/// `color` required; `play`/`fen`, `speeds`, `since`/`until` months, `recentGames` up to 8,
/// `history`). lichess streams lines while it indexes; the games are indexed here already, so
/// the one line it sends is the final answer. `modes` (rated, casual) is checked and not
/// applied: PGN collections do not record whether a game was rated.
pub async fn player(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    params.variant()?;
    let name = params.get("player").ok_or_else(|| ApiError::bad_request("player= is required"))?;
    let color = parse_color(params.get("color").ok_or_else(|| ApiError::bad_request("color= is required"))?)?;
    for mode in params.get("modes").unwrap_or("").split(',').filter(|m| !m.is_empty()) {
        if !matches!(mode, "rated" | "casual") {
            return Err(ApiError::bad_request(format!("bad mode {mode:?}: expected rated or casual")));
        }
    }
    let lookup = Lookup {
        target: params.target()?,
        filter: params.player_filter(Some(name), Some(color))?,
        // lichess lists 8 recent games by default here.
        limits: Limits { recent: params.count("recentGames", RECENT_GAMES, RECENT_GAMES)?, ..params.limits(0, 0, 0)? },
    };
    blocking(move || {
        let answer = lookup.run_for_player(&state.store)?;
        let mut line = serde_json::to_string(&answer).map_err(ApiError::internal)?;
        line.push('\n');
        Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], line).into_response())
    })
    .await
}

/// One game as PGN.
pub async fn game_pgn(State(state): State<Arc<AppState>>, id: Segment) -> Result<Response, ApiError> {
    let id = segment(id)?;
    let id: u64 = id.parse().map_err(|_| ApiError::bad_request(format!("bad game id {id:?}")))?;
    blocking(move || {
        let snapshot = state.store.snapshot();
        let record = snapshot.games().get(GameId(id)).map_err(QueryError::from)?;
        let record = record.ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no game {id}")))?;
        let annotations = snapshot.games().annotations(&[(GameId(id), &record)]).map_err(QueryError::from)?;
        let annotations = annotations.into_iter().next().flatten();
        let pgn = pgn::game(&record, annotations.as_ref())
            .ok_or_else(|| ApiError::internal(pgn::Unreplayable(GameId(id))))?;
        Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response())
    })
    .await
}

/// Games per page of `/games`.
const PER_PAGE: usize = 100;
/// Most games `/games` orders by date or rating (each is read to order them).
const MAX_SORTED: usize = 100_000;

/// A games request with every parameter checked (before any wait for a scan's place): `fen`/`play`
/// or `pattern` (with `flip=true`), `and`/`not` (FENs, several allowed, `;`-separated), `page`
/// (from 1), `perPage` (≤ 100), `sort` (id, date, rating).
struct GamesRequest {
    source: RequestedSource,
    and: Vec<ResolvedTarget>,
    not: Vec<ResolvedTarget>,
    sort: GameSort,
    offset: usize,
    limit: usize,
    filter: Filter,
}

/// Where a games request starts: a position, or the games of a pattern (found by a scan).
enum RequestedSource {
    Position(ResolvedTarget),
    Pattern(PatternQuery),
    Sequence(Sequence, Variant),
}

impl GamesRequest {
    fn of(params: &Params) -> Result<GamesRequest, ApiError> {
        let page = params.count("page", 1, usize::MAX)?;
        if page == 0 {
            return Err(ApiError::bad_request("page counts from 1"));
        }
        let per_page = params.count("perPage", 20, PER_PAGE)?;
        let variant = params.variant()?;
        let fens = |name: &str| -> Result<Vec<_>, ApiError> {
            let list = params.get(name).unwrap_or("");
            let targets = list.split(';').filter(|f| !f.trim().is_empty()).map(|f| Target::fen(f).resolve_in(variant));
            Ok(targets.collect::<Result<Vec<_>, _>>()?)
        };
        let offset = (page - 1).checked_mul(per_page).ok_or_else(|| ApiError::bad_request("page out of range"))?;
        let source = match params.get("pattern") {
            Some(text) => {
                if params.get("fen").is_some() || params.get("play").is_some() {
                    return Err(ApiError::bad_request(
                        "pattern asks for games of every matching position: drop fen and play",
                    ));
                }
                match text.parse::<GamePattern>().map_err(|err| ApiError::bad_request(err.to_string()))? {
                    GamePattern::Position(_) => RequestedSource::Pattern(pattern_query(params, "pattern", 0)?),
                    GamePattern::Sequence(sequence) => {
                        if params.get("material").is_some() || params.get("side").is_some() {
                            return Err(ApiError::bad_request(
                                "material and side go with a position pattern: put them in a sequence's steps",
                            ));
                        }
                        RequestedSource::Sequence(sequence.with_flip(params.flag("flip")?), variant)
                    }
                }
            }
            None => RequestedSource::Position(params.target()?),
        };
        Ok(GamesRequest {
            source,
            and: fens("and")?,
            not: fens("not")?,
            sort: params.get("sort").unwrap_or("id").parse::<GameSort>()?,
            offset,
            limit: per_page,
            filter: search_filter(params)?,
        })
    }

    /// The query, a pattern's games found first (a scan, or the list kept from an earlier one).
    fn into_query(self, state: &AppState, progress: &ScanProgress) -> Result<GamesQuery, ApiError> {
        let generation = || Ok::<_, ApiError>(state.store.totals().map_err(QueryError::from)?.next_game_id);
        let mut steps = None;
        let source = match self.source {
            RequestedSource::Position(target) => GameSource::Position(target),
            RequestedSource::Pattern(query) => {
                // The parsed query, so that spellings of one search share a list.
                let key = format!(
                    "{} {:?} {:?} {:?} {:?} {:?}",
                    generation()?,
                    query.pattern,
                    query.material,
                    query.side,
                    query.pattern.flip_colours,
                    query.variant
                );
                GameSource::Games(
                    state.pattern_games.get_or_scan(key, || Ok(query.run_with(&state.store, progress)?.game_ids))?,
                )
            }
            RequestedSource::Sequence(sequence, variant) => {
                steps = Some(sequence.clone());
                let key = format!("{} {sequence:?} {variant:?}", generation()?);
                // Scanned for every game once: each request's filters apply to the list.
                let query = SequenceQuery { sequence, filter: Filter::default(), variant };
                GameSource::Games(state.pattern_games.get_or_scan(key, || {
                    Ok(query.run_with(&state.store, progress)?.games.into_iter().map(|game| game.id).collect())
                })?)
            }
        };
        Ok(GamesQuery {
            source,
            and: self.and,
            not: self.not,
            sort: self.sort,
            offset: self.offset,
            limit: self.limit,
            max_sorted: MAX_SORTED,
            filter: self.filter,
            steps,
        })
    }
}

/// The games reaching a position, as JSON: `{"total", "games": [{id, white, black, whiteElo,
/// blackElo, date, event, site, round, result}]}`.
pub async fn games(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Json<GamePage>, ApiError> {
    let params = params(query)?;
    games_work(state, params, |state, query| Ok(Json(query.run(&state.store)?))).await
}

/// The same page of games as PGN.
pub async fn games_pgn(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    games_work(state, params, |state, query| {
        let page = query.run(&state.store)?;
        let annotations = page.annotations(&state.store.snapshot())?;
        let pgn = pgn::page(&page, &annotations).map_err(ApiError::internal)?;
        Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response())
    })
    .await
}

/// `answer` to a games query: within the scan budget when it is a pattern's (its list may have
/// to be found by a scan), on the blocking pool otherwise.
async fn games_work<T: Send + 'static>(
    state: Arc<AppState>,
    params: Params,
    answer: impl FnOnce(&AppState, GamesQuery) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let request = GamesRequest::of(&params)?;
    match request.source {
        RequestedSource::Position(_) => {
            blocking(move || answer(&state, request.into_query(&state, &ScanProgress::default())?)).await
        }
        _ => scan(state, move |state, progress| answer(state, request.into_query(state, progress)?)).await,
    }
}

/// `material` (signature), optional `side` (w/b), `castling` (KQkq, HAha or -), `variant`,
/// `limit` (≤ 1000), and the
/// explorer's filters with `player`, `color`, `opponent` (positions counted with the games kept).
pub async fn material(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Json<MaterialSearch>, ApiError> {
    let params = params(query)?;
    blocking(move || {
        let signature = params.get("material").ok_or_else(|| ApiError::bad_request("missing parameter material"))?;
        let query = MaterialQuery {
            signature: signature.parse::<Signature>()?,
            side: params.get("side").map(parse_color).transpose()?,
            castling: params.get("castling").map(MaterialQuery::parse_castling).transpose()?,
            limit: params.count("limit", 20, 1000)?,
            filter: search_filter(&params)?,
            variant: params.variant()?,
        };
        let found = query.run(&state.store)?;
        Ok(Json(found))
    })
    .await
}

/// The filters of a search: the explorer's, with `player`, `color` and `opponent`.
fn search_filter(params: &Params) -> Result<Filter, ApiError> {
    params.player_filter(params.get("player"), params.get("color").map(parse_color).transpose()?)
}

/// A pattern query from `name` (the expression), `material`, `side` (w/b), `flip` (true/false),
/// counting every game.
fn pattern_query(params: &Params, name: &str, limit: usize) -> Result<PatternQuery, ApiError> {
    let text = params.get(name).ok_or_else(|| ApiError::bad_request(format!("missing parameter {name}")))?;
    let flip = params.flag("flip")?;
    Ok(PatternQuery {
        pattern: text.parse::<Pattern>().map_err(|err| ApiError::bad_request(err.to_string()))?.with_flip(flip),
        material: params.get("material").map(str::parse::<Signature>).transpose()?,
        side: params.get("side").map(parse_color).transpose()?,
        limit,
        filter: Filter::default(),
        variant: params.variant()?,
    })
}

/// `q` (the pattern), optional `material` (signature), `side` (w/b), `flip` (true/false), `variant`,
/// `limit` (≤ 1000), and the explorer's filters with `player`, `color`, `opponent` (positions
/// counted with the games kept): the matching positions and their games (`{"positions", "occurrences",
/// "games", "white", "draws", "black", "scanned", "elapsedMs", "hits"}`).
///
/// A scan reads every stored position: when the client goes away, the request's future is
/// dropped and the scan stops at its next progress check instead of running to the end (so do
/// `/games?pattern=` scans).
pub async fn pattern(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Json<PatternSearch>, ApiError> {
    let params = params(query)?;
    // Every parameter is checked before the wait for a scan's place.
    let query = PatternQuery {
        filter: search_filter(&params)?,
        ..pattern_query(&params, "q", params.count("limit", 20, 1000)?)?
    };
    scan(state, move |state, progress| Ok(Json(query.run_with(&state.store, progress)?))).await
}

/// The opening report of a position (`fen`, `play`) under the explorer's filters plus `player`
/// and `color`: `format=html` (default), `json`, or `csv` with `table=` one of its tables;
/// `depth`, `lines` and an extra `theme` expression as the command takes them; `versus` the
/// second subset's filters as a query string (`versus=since%3D2020`). It reads every matching
/// game, so it runs on the blocking pool.
pub async fn opening_report(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    blocking(move || {
        let format = check_format(&params, OpeningReport::CSV_TABLES)?;
        let color = params.get("color").map(parse_color).transpose()?;
        let filter = params.player_filter(params.get("player"), color)?;
        let mut options = OpeningOptions::new(filter);
        options.depth = params.count("depth", options.depth, crate::report::opening::MAX_DEPTH)?;
        options.lines = params.count("lines", options.lines, crate::report::opening::MAX_LINES)?;
        if let Some(expression) = params.get("theme") {
            let theme = Theme::parse(expression, expression)
                .map_err(|err| ApiError::bad_request(format!("theme {expression:?}: {err}")))?;
            options.themes.push(theme);
        }
        options.label = params.filter_label();
        if let Some(versus) = params.get("versus") {
            // The second subset's filters, as a query string of their own.
            let map: HashMap<String, String> = serde_urlencoded::from_str(versus)
                .map_err(|err| ApiError::bad_request(format!("bad versus {versus:?}: {err}")))?;
            let other = Params::new(map)?;
            let color = other.get("color").map(parse_color).transpose()?;
            let filter = other.player_filter(other.get("player"), color)?;
            options.versus = Some((filter, other.filter_label()));
        }
        let report = OpeningReport::build(&state.store, &params.target()?, &options)?;
        respond(format, &params, &report)
    })
    .await
}

/// The player report of `name` (a prefix) under the explorer's filters and `color`; `depth`,
/// `minShare`; `format` as `/report/opening`.
pub async fn player_report(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    blocking(move || {
        let name = params.get("name").ok_or_else(|| ApiError::bad_request("name= is required"))?;
        let format = check_format(&params, PlayerReport::CSV_TABLES)?;
        let mut options = PlayerOptions::new(params.filter()?);
        options.color = params.get("color").map(parse_color).transpose()?;
        options.depth = params.count("depth", options.depth, crate::report::player::MAX_DEPTH)?;
        if let Some(share) = params.get("minShare") {
            options.min_share = share
                .parse::<f64>()
                .ok()
                .filter(|s| (0.0..=100.0).contains(s))
                .ok_or_else(|| ApiError::bad_request(format!("bad minShare {share:?}: a percent, 0 to 100")))?;
        }
        options.label = params.filter_label();
        options.variant = params.variant()?;
        let report = PlayerReport::build(&state.store, name, &options)?;
        respond(format, &params, &report)
    })
    .await
}

/// The database report (`plies`, `top`; `format` as `/report/opening`). It reads every game:
/// a scan of the budget.
pub async fn database_report(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    let format = check_format(&params, DatabaseReport::CSV_TABLES)?;
    let defaults = DatabaseOptions::default();
    let options = DatabaseOptions {
        plies: params.count("plies", defaults.plies, crate::report::database::MAX_PLIES)?,
        top: params.count("top", defaults.top, 1000)?,
        variant: params.variant()?,
        ..defaults
    };
    scan(state, move |state, _| {
        let report = DatabaseReport::build(&state.store, &options)?;
        respond(format, &params, &report)
    })
    .await
}

/// Refuses a bad `format`, or `format=csv` without `table=` one of `tables`, before any work.
fn check_format(params: &Params, tables: &[&str]) -> Result<Format, ApiError> {
    let format: Format = params.get("format").unwrap_or("html").parse().map_err(ApiError::bad_request)?;
    if format == Format::Csv && !params.get("table").is_some_and(|table| tables.contains(&table)) {
        return Err(ApiError::bad_request(format!("format=csv needs table= one of {}", tables.join(", "))));
    }
    Ok(format)
}

/// A report in the `format` asked for (checked by [`check_format`] before the work): html, json,
/// or csv with `table=` one of its tables.
fn respond(format: Format, params: &Params, report: &impl Report) -> Result<Response, ApiError> {
    Ok(match format {
        Format::Html => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], report.html()).into_response(),
        Format::Json => ([(header::CONTENT_TYPE, "application/json")], report.json()).into_response(),
        Format::Csv => {
            // `check_format` made sure the table is one of the report's.
            let wanted = format!("{}.csv", params.get("table").unwrap_or(""));
            let files = report.csv();
            let text = files.into_iter().find(|(name, _)| *name == wanted).map(|(_, text)| text).unwrap_or_default();
            ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response()
        }
    })
}

/// Players by any spelling: `name=` gives what a player filter matches (`tabiya players
/// search`'s JSON); `prefix=` gives the players whose spellings have a word starting with it,
/// most played first (`limit`, default 10, at most 50), for a player box's suggestions.
pub async fn players(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    blocking(move || match (params.get("name"), params.get("prefix")) {
        (Some(name), None) => Ok(Json(find_players(&state.store.snapshot(), name)?).into_response()),
        (None, Some(prefix)) => {
            let limit = params.count("limit", 10, 50)?;
            Ok(Json(suggest_players(&state.store, prefix, limit)?).into_response())
        }
        _ => Err(ApiError::bad_request("give name= (a player's matches) or prefix= (suggestions)")),
    })
    .await
}

/// A Polyglot opening book of the explorer's filters (`tabiya export book`): from the position
/// (`fen`, `play`), with `since`, `until`, `speeds`, `ratings`, `player` and `color`, and the
/// book's `minGames` (default 3), `maxPly`, `only` (white, black), `minScore`, `weight` (score,
/// games, uniform). Walked within the scan budget.
pub async fn book(State(state): State<Arc<AppState>>, query: Parameters) -> Result<Response, ApiError> {
    let params = params(query)?;
    let player = params.get("player");
    let color = player.and(params.get("color")).map(parse_color).transpose()?;
    let options = BookOptions {
        root: params.target()?.position,
        filter: params.player_filter(player, color)?,
        min_games: params.number::<u64>("minGames")?.unwrap_or(3),
        max_ply: params.number::<u64>("maxPly")?.map(|ply| u32::try_from(ply).unwrap_or(u32::MAX)),
        only: params.get("only").map(parse_color).transpose()?,
        min_score: params
            .get("minScore")
            .map(|text| text.parse().map_err(|_| ApiError::bad_request(format!("bad minScore {text:?}"))))
            .transpose()?,
        weight: match params.get("weight") {
            None | Some("score") => BookWeight::Score,
            Some("games") => BookWeight::Games,
            Some("uniform") => BookWeight::Uniform,
            Some(other) => return Err(ApiError::bad_request(format!("bad weight {other:?}: score, games or uniform"))),
        },
    };
    options.check()?;
    scan(state, move |state, progress| {
        let book = options.make(&state.store, progress)?;
        let headers = [
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"tabiya-book.bin\""),
        ];
        Ok((headers, book.to_bytes()).into_response())
    })
    .await
}

/// The database totals.
pub async fn totals(State(state): State<Arc<AppState>>) -> Result<Json<DatabaseTotals>, ApiError> {
    blocking(move || {
        // Read from a snapshot, never during a catch-up: a catch-up shows the new commit record
        // before the store has taken in its commit, and a client that saw the new totals would
        // then look up positions in the view before it.
        let totals = state.store.snapshot().totals().map_err(QueryError::from)?;
        Ok(Json(DatabaseTotals::new(&totals)))
    })
    .await
}

/// `{"status": "ok"}`, or 503 with `{"status": "damaged", "error": ...}` once a read has found
/// the database damaged (a load balancer then sends requests to another replica).
pub async fn health(State(state): State<Arc<AppState>>) -> Response {
    match state.store.damage() {
        None => Json(json!({ "status": "ok" })).into_response(),
        Some(damage) => {
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "damaged", "error": damage }))).into_response()
        }
    }
}

/// 404 for any other path.
pub async fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such endpoint".to_owned())
}
