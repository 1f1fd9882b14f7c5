//! What annotated games said, as report cells: an evaluation in pawns with its games, a move's
//! loss and time (the explorer page's Eval and Time columns, in words), and their CSV fields.

use super::{csv::opt, html::thousands};
use crate::explore::{EvalAnswer, LossAnswer, TimeAnswer};

/// An evaluation in pawns (White's view) and over how many games: `+0.32 (41 games)`; mates
/// counted apart; a dash without one.
pub fn eval_text(eval: Option<&EvalAnswer>) -> String {
    let Some(eval) = eval else { return "–".to_owned() };
    let shown = match eval.cp {
        Some(cp) => format!("{:+.2}", cp / 100.0 + 0.0),
        None => "mates only".to_owned(),
    };
    let games = match eval.games {
        1 => "1 game".to_owned(),
        n => format!("{} games", thousands(n)),
    };
    let mates = match (eval.mates.white, eval.mates.black) {
        (0, 0) => String::new(),
        (white, black) => format!("; mates {white} for White, {black} for Black"),
    };
    format!("{shown} ({games}{mates})")
}

/// An evaluation for a table cell: `+0.32 (41)`, the games in brackets.
pub fn eval_cell(eval: Option<&EvalAnswer>) -> String {
    let Some(eval) = eval else { return "–".to_owned() };
    match eval.cp {
        Some(cp) => format!("{:+.2} ({})", cp / 100.0 + 0.0, thousands(eval.games)),
        None => format!("mates ({})", thousands(eval.games)),
    }
}

/// A move's mean loss in centipawns and its share of mistakes: `23 (8%)`.
pub fn loss_text(loss: Option<&LossAnswer>) -> String {
    loss.map_or_else(|| "–".to_owned(), |loss| format!("{:.0} ({:.0}%)", loss.cp, 100.0 * loss.mistakes))
}

/// A move's mean time: seconds under a minute, else minutes and seconds.
pub fn time_text(time: Option<&TimeAnswer>) -> String {
    let Some(time) = time else { return "–".to_owned() };
    let whole = time.seconds.round() as u64;
    match whole >= 60 {
        true => format!("{}:{:02}", whole / 60, whole % 60),
        false => format!("{:.1} s", time.seconds),
    }
}

/// The CSV columns of an evaluation: games, mean centipawns, mates for White, for Black.
pub const EVAL_COLUMNS: [&str; 4] = ["evalGames", "evalCp", "whiteMates", "blackMates"];

/// [`EVAL_COLUMNS`]' fields (0 games and empty fields without one).
pub fn eval_fields(eval: Option<&EvalAnswer>) -> [String; 4] {
    let count = |n: Option<u64>| n.unwrap_or(0).to_string();
    [
        count(eval.map(|e| e.games)),
        opt(eval.and_then(|e| e.cp)),
        count(eval.map(|e| e.mates.white)),
        count(eval.map(|e| e.mates.black)),
    ]
}

/// The CSV columns of a move's loss and time.
pub const MOVE_NOTE_COLUMNS: [&str; 5] = ["lossMoves", "lossCp", "mistakeShare", "timedMoves", "seconds"];

/// [`MOVE_NOTE_COLUMNS`]' fields.
pub fn move_note_fields(loss: Option<&LossAnswer>, time: Option<&TimeAnswer>) -> [String; 5] {
    [
        loss.map_or(0, |l| l.moves).to_string(),
        opt(loss.map(|l| l.cp)),
        opt(loss.map(|l| format!("{:.4}", l.mistakes))),
        time.map_or(0, |t| t.moves).to_string(),
        opt(time.map(|t| t.seconds)),
    ]
}
