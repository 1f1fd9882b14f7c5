//! What the annotated games of a position said, under a filter ([`position_notes`]), and its
//! answer fields: `eval` of the position and of each move row, a move row's `loss` and `time`.

use std::sync::Arc;

use serde::Serialize;
use shakmaty::Color;

use super::{Admission, QueryError, counting::without_facts};
use crate::{
    Key,
    model::{EvalSums, GameFacts, MoveSums, NoteEntry, NoteSlices, NoteSums},
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
/// admits said: the stored sums without a filter; for a filter made only of slices, a popular
/// position's notes summed by slice (kept in memory like its statistics' summary); else each
/// game's notes checked.
pub fn position_notes(view: &Snapshot, key: &Key, admission: &Admission, mover: Color) -> Result<NoteSums, QueryError> {
    let positions = view.positions();
    if admission.is_everything() {
        return Ok(positions.note_sums(key, mover)?);
    }
    if admission.filter.is_by_slices()
        && let Some(slices) = note_slices(view, key, mover)?
    {
        return Ok(slices.kept(|set| admission.filter.covers(set)));
    }
    let mut kept = NoteSums::default();
    each_noted_game(view, key, |game, entry| {
        if admission.admits(game) {
            kept.add_entry(entry, mover);
        }
    })?;
    Ok(kept)
}

/// Hands each of a position's notes entries to `each` with its game's facts; an entry of a
/// game without facts is corrupt data.
fn each_noted_game(view: &Snapshot, key: &Key, mut each: impl FnMut(&GameFacts, &NoteEntry)) -> Result<(), QueryError> {
    let facts = view.facts().table()?;
    let mut unknown = false;
    view.positions().each_note_entry(key, |entry| match facts.get(entry.game) {
        Some(game) => each(&game, entry),
        None => unknown = true,
    })?;
    match unknown {
        true => Err(facts.missing(|| without_facts(view, key)).into()),
        false => Ok(()),
    }
}

/// The notes of a popular position by slice, from memory or built from its games' notes and
/// facts (the second time it is asked for, as [`Summaries`](crate::store::Summaries) does);
/// `None` for another position, or when the summary is not kept.
fn note_slices(view: &Snapshot, key: &Key, mover: Color) -> Result<Option<Arc<NoteSlices>>, QueryError> {
    let summaries = view.summaries();
    if view.positions().note_entry_count(key)? < summaries.min_games() {
        return Ok(None);
    }
    let build = || -> Result<NoteSlices, QueryError> {
        let mut entries = Vec::new();
        each_noted_game(view, key, |game, entry| entries.push((*game, *entry)))?;
        Ok(NoteSlices::of_entries(entries.iter().map(|(game, entry)| (*game, entry)), mover))
    };
    summaries.notes_or_build(key, build)
}
