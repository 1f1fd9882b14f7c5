//! Query-string parameters of the explorer endpoints, parsed with bounds, and the JSON error
//! they answer with.

use std::collections::HashMap;

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::json;

use shakmaty::Color;

use crate::{
    explore::{Filter, FilterSpec, Limits, QueryError, ResolvedTarget, Target},
    position::{UnknownVariant, Variant},
};

/// The header filters' parameters, the command line's options in camelCase.
pub const HEADER_PARAMS: [&str; 9] =
    ["minElo", "maxElo", "event", "site", "result", "eco", "dateFrom", "dateTo", "minPlies"];

/// Longest parameter value accepted (a FEN is under 100 bytes; `play` of 600 moves ~3 KB).
const MAX_VALUE: usize = 4096;

/// A request failure: status and message, answered as `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    /// 400 with this message.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, message.into())
    }

    /// 500 for data the server cannot serve (logged; the message says what).
    pub fn internal(err: impl std::fmt::Display) -> ApiError {
        tracing::error!("{err}");
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, err.to_string())
    }
}

impl From<QueryError> for ApiError {
    fn from(err: QueryError) -> ApiError {
        match err {
            QueryError::Input(message) => ApiError(StatusCode::BAD_REQUEST, message),
            QueryError::Store(err) => {
                tracing::error!("{err}");
                ApiError(StatusCode::INTERNAL_SERVER_ERROR, "database error".to_owned())
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.0, Json(json!({ "error": self.1 }))).into_response();
        if self.0 == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, super::budget::RETRY_AFTER_SECONDS.into());
        }
        response
    }
}

/// The parameters of one request.
pub struct Params(pub HashMap<String, String>);

impl Params {
    /// The parameters, refused when a value is too long.
    pub fn new(map: HashMap<String, String>) -> Result<Params, ApiError> {
        if let Some((name, _)) = map.iter().find(|(_, value)| value.len() > MAX_VALUE) {
            return Err(ApiError::bad_request(format!("parameter {name} is longer than {MAX_VALUE} bytes")));
        }
        Ok(Params(map))
    }

    /// A parameter's value, `None` when absent or empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// A count parameter, clamped to `max` like the lichess API does.
    pub fn count(&self, name: &str, default: usize, max: usize) -> Result<usize, ApiError> {
        match self.get(name) {
            None => Ok(default),
            Some(text) => crate::explore::unsigned::<usize>(text)
                .map(|n| n.min(max))
                .ok_or_else(|| ApiError::bad_request(format!("{name} must be a non-negative integer, not {text:?}"))),
        }
    }

    /// An optional number parameter: digits alone ([`unsigned`](crate::explore::unsigned)).
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiError> {
        self.get(name)
            .map(|text| {
                crate::explore::unsigned(text)
                    .ok_or_else(|| ApiError::bad_request(format!("bad {name} {text:?}: expected a number")))
            })
            .transpose()
    }

    /// A `true`/`false` parameter, in any case (Python clients send `True`); false when absent.
    pub fn flag(&self, name: &str) -> Result<bool, ApiError> {
        match self.get(name).map(str::to_ascii_lowercase).as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!("bad {name} {other:?}: expected true or false"))),
        }
    }

    /// `variant`, as lichess names it: `standard` (the default, also `chess`), `chess960`,
    /// `kingOfTheHill`, `threeCheck`, `racingKings`, `atomic` or `antichess`; lichess's other variants are refused,
    /// being no games' here.
    pub fn variant(&self) -> Result<Variant, ApiError> {
        match self.get("variant") {
            None => Ok(Variant::Standard),
            Some(name) => name.parse().map_err(|err: UnknownVariant| ApiError::bad_request(err.to_string())),
        }
    }

    /// `fen` then `play` (comma-separated UCI), in the rules of `variant`.
    pub fn target(&self) -> Result<ResolvedTarget, ApiError> {
        let from = self.get("fen").map(str::to_owned);
        let variant = self.variant()?;
        Ok(Target::Uci { from, moves: self.get("play").unwrap_or("").to_owned() }.resolve_in(variant)?)
    }

    /// `moves`, `topGames` (at most `max_top`, `default_top` when absent) and `recentGames`.
    pub fn limits(&self, max_top: usize, default_top: usize, max_recent: usize) -> Result<Limits, ApiError> {
        Ok(Limits {
            moves: self.count("moves", 12, 256)?,
            top: self.count("topGames", default_top, max_top)?,
            recent: self.count("recentGames", max_recent.min(4), max_recent)?,
            history: self.flag("history")?,
        })
    }

    /// The filter parameters given, in words (`since=2020, ratings=2200,2500`), or `all games`.
    pub fn filter_label(&self) -> String {
        let names = ["since", "until", "speeds", "ratings", "player", "color", "opponent"];
        let given: Vec<String> = names
            .iter()
            .chain(&HEADER_PARAMS)
            .filter_map(|name| self.get(name).map(|value| format!("{name}={value}")))
            .collect();
        if given.is_empty() { "all games".to_owned() } else { given.join(", ") }
    }

    /// `since`, `until`, `speeds`, `ratings` and the header filters ([`HEADER_PARAMS`]); an
    /// `opponent` is refused here (see [`Params::player_filter`]).
    pub fn filter(&self) -> Result<Filter, ApiError> {
        if self.get("opponent").is_some() {
            return Err(ApiError::bad_request("opponent= needs player="));
        }
        self.base_filter()
    }

    /// [`Params::filter`] with a player (and `color`, `opponent`).
    pub fn player_filter(&self, player: Option<&str>, color: Option<Color>) -> Result<Filter, ApiError> {
        Ok(self.base_filter()?.with_player(player, color)?.with_opponent(self.get("opponent"))?)
    }

    fn base_filter(&self) -> Result<Filter, ApiError> {
        let elo = |name: &str| -> Result<Option<u16>, ApiError> {
            self.number::<u32>(name)?
                .map(|n| u16::try_from(n).map_err(|_| ApiError::bad_request(format!("bad {name} {n}: too large"))))
                .transpose()
        };
        let text = |name: &str| self.get(name).map(str::to_owned);
        let spec = FilterSpec {
            since: text("since"),
            until: text("until"),
            speed: text("speeds"),
            min_elo: elo("minElo")?,
            max_elo: elo("maxElo")?,
            event: text("event"),
            site: text("site"),
            result: text("result"),
            eco: text("eco"),
            date_from: text("dateFrom"),
            date_to: text("dateTo"),
            min_plies: self.number("minPlies")?,
            ..FilterSpec::default()
        };
        // Average ratings go by lichess's groups here, not by a range.
        Ok(spec.filter()?.with_rating_groups(self.get("ratings"))?)
    }
}
