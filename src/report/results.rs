//! Game results as reports show them: counts by outcome, and scores in percent.

use serde::Serialize;
use shakmaty::Color;

use crate::model::{RatingBand, Tally};

/// Results of a set of games.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Results {
    /// Games.
    pub games: u64,
    /// Won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
}

impl Results {
    /// The results a tally counted.
    pub fn of(tally: &Tally) -> Results {
        Results { games: tally.games, white: tally.white, draws: tally.draws, black: tally.black }
    }

    /// White's score in percent (a draw half a point); `None` without games.
    pub fn white_score(&self) -> Option<f64> {
        (self.games > 0).then(|| 100.0 * (self.white as f64 + 0.5 * self.draws as f64) / self.games as f64)
    }
}

/// `white` or `black`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// `part` as a percent of `whole` (0 when `whole` is).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

/// The score of `side` in percent (a draw half a point).
pub fn mover_score(results: &Results, side: Color) -> f64 {
    let wins = if side == Color::White { results.white } else { results.black };
    percent(2 * wins + results.draws, 2 * results.games)
}

/// A rating band's label: `2400-2499`, `3000+` or `unrated`.
pub fn band_label(band: RatingBand) -> String {
    match band.floor() {
        Some(RatingBand::TOP) => format!("{}+", RatingBand::TOP),
        Some(floor) => format!("{floor}-{}", floor + RatingBand::WIDTH - 1),
        None => "unrated".to_owned(),
    }
}
