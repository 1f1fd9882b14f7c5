//! The explorer page (`GET /`) and what it asks beyond the explorer API: `GET /move` (legal
//! moves, SAN and the position after a move, so the page needs no chess rules of its own) and
//! `GET /game/{id}` (a game ply by ply, for its viewer). The page's HTML, CSS and JavaScript (ES
//! modules, `GET /page/{file}`) are compiled into the binary: it fetches nothing but this
//! server's answers.

use std::sync::Arc;

use axum::{
    Json,
    extract::State,
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};

use super::{
    AppState,
    handlers::{Parameters, Segment, blocking, params, segment},
    params::ApiError,
};
use crate::{
    explore::{BoardAnswer, GameView, play},
    model::GameId,
};

const INDEX: &str = include_str!("page/index.html");
/// The script's ES modules by file name: `app.js` is the entry, which imports the others by
/// relative paths (`./state.js`), so all are served side by side under `/page/`.
const MODULES: &[(&str, &str)] = &[
    ("app.js", include_str!("page/app.js")),
    ("board.js", include_str!("page/board.js")),
    ("explorer.js", include_str!("page/explorer.js")),
    ("line.js", include_str!("page/line.js")),
    ("search.js", include_str!("page/search.js")),
    ("state.js", include_str!("page/state.js")),
    ("url.js", include_str!("page/url.js")),
    ("viewer.js", include_str!("page/viewer.js")),
];
const STYLE: &str = include_str!("page/app.css");

/// The page.
pub async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

/// One of its script's modules, by file name; 404 (the API's JSON error) for any other name.
pub async fn module(name: Segment) -> Result<Response, ApiError> {
    let name = segment(name)?;
    match MODULES.iter().find(|&&(file, _)| file == name) {
        Some(&(_, body)) => Ok(asset("text/javascript; charset=utf-8", body)),
        None => Err(ApiError(StatusCode::NOT_FOUND, format!("no page file {name:?}"))),
    }
}

/// Its stylesheet.
pub async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

/// A compiled-in file; revalidated on each load, so a new binary's page is never mixed with an
/// old cached script.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// `fen` (the initial position when absent), `play` (UCI moves, comma-separated), `uci` (one
/// more move) and `variant` (`standard`, `chess960`): the position they lead to, each move's
/// SAN and position, and the legal moves there ([`BoardAnswer`]); 400 with the reason for a bad
/// FEN or an illegal move.
pub async fn board(query: Parameters) -> Result<Json<BoardAnswer>, ApiError> {
    let params = params(query)?;
    let moves = [params.get("play"), params.get("uci")].into_iter().flatten().collect::<Vec<_>>().join(",");
    Ok(Json(play(params.get("fen"), &moves, params.variant()?)?))
}

/// Game `id` ply by ply ([`GameView`]).
pub async fn game(State(state): State<Arc<AppState>>, id: Segment) -> Result<Json<GameView>, ApiError> {
    let id = segment(id)?;
    let id: u64 = id.parse().map_err(|_| ApiError::bad_request(format!("bad game id {id:?}")))?;
    blocking(move || {
        let view = GameView::read(&state.store, GameId(id))?;
        Ok(Json(view.ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no game {id}")))?))
    })
    .await
}
