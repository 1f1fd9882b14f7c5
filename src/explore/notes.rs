//! What the annotated games of a position said, under a filter ([`position_notes`]), and its
//! answer fields: `eval` of the position and of each move row, a move row's `loss` and `time`.

use serde::Serialize;
use shakmaty::Color;

use super::{Admission, QueryError};
use crate::{
    Key,
    model::{EvalSums, MoveSums, NoteSums},
    store::Snapshot,
};

/// The evaluations of a position (those of the games' moves into it), or of the positions a
/// move led to: `cp` the mean of the numeric ones, mates counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EvalAnswer {
    /// Games with an evaluation.
    pub games: u64,
    /// The mean numeric evaluation in centipawns, White's view (`null` when all were mates).
    pub cp: Option<f64>,
    /// Mates, by the side they favour.
    pub mates: Mates,
}

/// Mate scores by the side they favour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mates {
    /// For White.
    pub white: u64,
    /// For Black.
    pub black: u64,
}

/// What the games that played a move gave up by it, by the engine
/// ([`loss`](crate::model::loss)): over the moves with an evaluation before and after.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LossAnswer {
    /// Moves measured.
    pub moves: u64,
    /// Their mean loss in centipawns, from the mover's side.
    pub cp: f64,
    /// The share of them losing 100 centipawns or more.
    pub mistakes: f64,
}

/// How long the players thought over a move.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimeAnswer {
    /// Moves whose time is known.
    pub moves: u64,
    /// Their mean time in seconds.
    pub seconds: f64,
}

/// A position's `eval`, `None` when no game's evaluation counts.
pub fn eval_answer(sums: &EvalSums) -> Option<EvalAnswer> {
    (sums.games > 0).then(|| EvalAnswer {
        games: sums.games,
        cp: sums.mean_centipawns().map(hundredths),
        mates: Mates { white: sums.white_mates, black: sums.black_mates },
    })
}

/// A move row's `eval`, `loss` and `time` (each `None` when no game's notes give it).
pub fn move_answers(sums: Option<&MoveSums>) -> (Option<EvalAnswer>, Option<LossAnswer>, Option<TimeAnswer>) {
    let Some(sums) = sums else { return (None, None, None) };
    let loss = match (sums.mean_loss(), sums.blunder_share()) {
        (Some(cp), Some(share)) => Some(LossAnswer { moves: sums.losses, cp: hundredths(cp), mistakes: share }),
        _ => None,
    };
    let time = sums.mean_seconds().map(|seconds| TimeAnswer { moves: sums.timed, seconds: hundredths(seconds) });
    (eval_answer(&sums.eval), loss, time)
}

/// Rounded to hundredths: JSON without float noise.
fn hundredths(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// What the annotated games of position `key` (where `mover` is to move) that `admission`
/// admits said: the stored sums without a filter, else each game's notes checked.
pub fn position_notes(view: &Snapshot, key: &Key, admission: &Admission, mover: Color) -> Result<NoteSums, QueryError> {
    let positions = view.positions();
    if admission.is_everything() {
        return Ok(positions.note_sums(key, mover)?);
    }
    let entries = positions.note_entries(key)?;
    if entries.is_empty() {
        return Ok(NoteSums::default());
    }
    let facts = view.facts().table()?;
    let mut kept = NoteSums::default();
    for entry in &entries {
        let game =
            facts.get(entry.game).ok_or_else(|| view.corrupt(format!("position {key}: a game without facts")))?;
        if admission.admits(&game) {
            kept.add_entry(entry, mover);
        }
    }
    Ok(kept)
}
