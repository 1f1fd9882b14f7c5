//! What the games' annotations say of a position and of each move played from it, summed over
//! games: [`NoteSums`]. Each game's part is a [`NoteEntry`]: at its arrival on the position, the
//! evaluation its move into the position carried, the evaluation after the move it played from
//! there and the time that move took ([`PlyNotes`]).
//!
//! ```
//! use shakmaty::Color;
//! use tabiya_core::model::{Eval, GameId, NoteEntry, NoteSums, PlyNotes};
//!
//! let notes = PlyNotes { before: Some(Eval::Centipawns(30)), after: Some(Eval::Centipawns(-120)), spent_centis: Some(500), first: true };
//! let sums = NoteSums::of_entries([NoteEntry { game: GameId(1), next: None, notes }].iter(), Color::White);
//! assert_eq!(sums.eval.mean_centipawns(), Some(30.0));
//! let (_, played) = &sums.moves[0];
//! assert_eq!((played.losses, played.loss_centipawns, played.blunders), (1, 150, 1));
//! ```

use shakmaty::Color;

use super::{Eval, GameId};
use crate::codec::CompactMove;

/// Centipawns beyond which an evaluation counts as decided when a move's loss is measured
/// (a mate counts as this much): as lichess's average centipawn loss caps them.
pub const LOSS_CAP: i32 = 1_000;
/// A move giving up at least this many centipawns is a mistake counted apart.
pub const MISTAKE_CENTIPAWNS: u32 = 100;

/// What a game's annotations say of one move: the evaluation after it (White's view) and the
/// time it took in centiseconds ([`GameAnnotations::move_notes`](super::GameAnnotations::move_notes)).
pub type MoveNote = (Option<Eval>, Option<u32>);

/// One game's annotations at one arrival on a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlyNotes {
    /// The evaluation the move into the position carried (the position's own), White's view.
    pub before: Option<Eval>,
    /// The evaluation after the move played from the position, White's view.
    pub after: Option<Eval>,
    /// The time the move played from the position took, in centiseconds.
    pub spent_centis: Option<u32>,
    /// Whether this is the game's first arrival on the position: the one whose `before`
    /// counts for the position (a game counts once there, as in its totals).
    pub first: bool,
}

impl PlyNotes {
    /// A game's notes at its ply `ply` (not marked first), from its moves' evaluations and
    /// times ([`GameAnnotations::move_notes`](super::GameAnnotations::move_notes)).
    pub fn at(moves: &[MoveNote], ply: usize) -> PlyNotes {
        let before = ply.checked_sub(1).and_then(|into| moves.get(into)).and_then(|(eval, _)| *eval);
        let (after, spent_centis) = moves.get(ply).copied().unwrap_or_default();
        PlyNotes { before, after, spent_centis, first: false }
    }

    /// Whether the annotations said nothing here.
    pub fn is_empty(&self) -> bool {
        self.before.is_none() && self.after.is_none() && self.spent_centis.is_none()
    }
}

/// A game's part in a position's notes: the move it played (`None`: it ended there) and what
/// its annotations said of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoteEntry {
    /// The game.
    pub game: GameId,
    /// The move it played from the position.
    pub next: Option<CompactMove>,
    /// What its annotations said.
    pub notes: PlyNotes,
}

/// Evaluations summed: numeric ones as a sum of centipawns, mates counted by the side they
/// favour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalSums {
    /// Evaluations counted.
    pub games: u64,
    /// Of those, numeric ones.
    pub centipawn_games: u64,
    /// Their sum, White's view.
    pub centipawns: i64,
    /// Mates for White.
    pub white_mates: u64,
    /// Mates for Black.
    pub black_mates: u64,
}

impl EvalSums {
    /// Counts one evaluation.
    pub fn add_eval(&mut self, eval: Eval) {
        self.games += 1;
        match eval {
            Eval::Centipawns(cp) => {
                self.centipawn_games += 1;
                self.centipawns += i64::from(cp);
            }
            Eval::Mate(moves) if moves > 0 => self.white_mates += 1,
            Eval::Mate(_) => self.black_mates += 1,
        }
    }

    /// Adds other sums.
    pub fn add(&mut self, other: &EvalSums) {
        self.games += other.games;
        self.centipawn_games += other.centipawn_games;
        self.centipawns += other.centipawns;
        self.white_mates += other.white_mates;
        self.black_mates += other.black_mates;
    }

    /// The mean of the numeric evaluations, in centipawns from White's view.
    pub fn mean_centipawns(&self) -> Option<f64> {
        (self.centipawn_games > 0).then(|| self.centipawns as f64 / self.centipawn_games as f64)
    }
}

/// What the games that played one move from a position said of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveSums {
    /// The evaluations after the move.
    pub eval: EvalSums,
    /// Moves with an evaluation before and after.
    pub losses: u64,
    /// What those moves gave up, summed ([`loss`]).
    pub loss_centipawns: u64,
    /// Those giving up [`MISTAKE_CENTIPAWNS`] or more.
    pub blunders: u64,
    /// Moves whose time is known.
    pub timed: u64,
    /// Their time, summed, in centiseconds.
    pub time_centis: u64,
}

impl MoveSums {
    /// Adds other sums.
    pub fn add(&mut self, other: &MoveSums) {
        self.eval.add(&other.eval);
        self.losses += other.losses;
        self.loss_centipawns += other.loss_centipawns;
        self.blunders += other.blunders;
        self.timed += other.timed;
        self.time_centis += other.time_centis;
    }

    /// The mean loss in centipawns.
    pub fn mean_loss(&self) -> Option<f64> {
        (self.losses > 0).then(|| self.loss_centipawns as f64 / self.losses as f64)
    }

    /// The share of moves giving up [`MISTAKE_CENTIPAWNS`] or more.
    pub fn blunder_share(&self) -> Option<f64> {
        (self.losses > 0).then(|| self.blunders as f64 / self.losses as f64)
    }

    /// The mean time in seconds.
    pub fn mean_seconds(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.time_centis as f64 / self.timed as f64 / 100.0)
    }
}

/// An evaluation as the mover sees it, capped at [`LOSS_CAP`] either way (a mate is the cap).
fn mover_centipawns(eval: Eval, mover: Color) -> i32 {
    let white = match eval {
        Eval::Centipawns(cp) => cp.clamp(-LOSS_CAP, LOSS_CAP),
        Eval::Mate(moves) => LOSS_CAP * i32::from(moves.signum()),
    };
    mover.fold_wb(white, -white)
}

/// What a move gave up, in centipawns: the evaluation before it less the one after it, as
/// `mover` sees them, each capped at [`LOSS_CAP`]; 0 when the move gained.
pub fn loss(before: Eval, after: Eval, mover: Color) -> u32 {
    (mover_centipawns(before, mover) - mover_centipawns(after, mover)).max(0) as u32
}

/// What a position's annotated games said: of the position, and per move played from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoteSums {
    /// The evaluations the games arrived with (a game once, at its first arrival).
    pub eval: EvalSums,
    /// Per move (`None`: the games ended there), ascending by move bits, those with notes.
    pub moves: Vec<(Option<CompactMove>, MoveSums)>,
}

impl NoteSums {
    /// The sums of `entries` in a position where `mover` is to move.
    pub fn of_entries<'a>(entries: impl Iterator<Item = &'a NoteEntry>, mover: Color) -> NoteSums {
        let mut sums = NoteSums::default();
        for entry in entries {
            sums.add_entry(entry, mover);
        }
        sums
    }

    /// Counts one game's entry.
    pub fn add_entry(&mut self, entry: &NoteEntry, mover: Color) {
        let notes = &entry.notes;
        if let Some(before) = notes.before.filter(|_| notes.first) {
            self.eval.add_eval(before);
        }
        if notes.after.is_none() && notes.spent_centis.is_none() {
            return;
        }
        let sums = self.move_sums(entry.next);
        if let Some(after) = notes.after {
            sums.eval.add_eval(after);
            if let Some(before) = notes.before {
                let lost = loss(before, after, mover);
                sums.losses += 1;
                sums.loss_centipawns += u64::from(lost);
                sums.blunders += u64::from(lost >= MISTAKE_CENTIPAWNS);
            }
        }
        if let Some(spent) = notes.spent_centis {
            sums.timed += 1;
            sums.time_centis += u64::from(spent);
        }
    }

    /// Adds other sums (of other games).
    pub fn add(&mut self, other: &NoteSums) {
        self.eval.add(&other.eval);
        for (next, sums) in &other.moves {
            self.move_sums(*next).add(sums);
        }
    }

    /// The sums of move `next`, made empty if there were none.
    fn move_sums(&mut self, next: Option<CompactMove>) -> &mut MoveSums {
        let bits = |m: &Option<CompactMove>| m.map_or(0, CompactMove::bits);
        let at = match self.moves.binary_search_by_key(&bits(&next), |(m, _)| bits(m)) {
            Ok(at) => at,
            Err(at) => {
                self.moves.insert(at, (next, MoveSums::default()));
                at
            }
        };
        &mut self.moves[at].1
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.eval.games == 0 && self.moves.is_empty()
    }

    /// The sums of move `next`, if any game that played it had notes.
    pub fn of_move(&self, next: Option<CompactMove>) -> Option<&MoveSums> {
        self.moves.iter().find(|(m, _)| *m == next).map(|(_, sums)| sums)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_are_the_movers_and_capped() {
        let (cp, mate) = (Eval::Centipawns, Eval::Mate);
        assert_eq!(loss(cp(50), cp(-50), Color::White), 100);
        assert_eq!(loss(cp(50), cp(-50), Color::Black), 0);
        assert_eq!(loss(cp(-50), cp(80), Color::Black), 130);
        assert_eq!(loss(mate(3), cp(200), Color::White), 800);
        assert_eq!(loss(cp(5_000), cp(-5_000), Color::White), 2_000);
        assert_eq!(loss(mate(-2), mate(-1), Color::Black), 0);
    }

    #[test]
    fn a_game_counts_once_for_the_position_and_once_a_move() {
        let notes = |before, first| PlyNotes {
            before: Some(Eval::Centipawns(before)),
            after: None,
            spent_centis: Some(100),
            first,
        };
        let e4 = CompactMove::from_bits(12 | 28 << 6);
        let entries = [
            NoteEntry { game: GameId(1), next: e4, notes: notes(10, true) },
            NoteEntry { game: GameId(1), next: None, notes: notes(30, false) },
            NoteEntry { game: GameId(2), next: e4, notes: notes(-40, true) },
        ];
        let sums = NoteSums::of_entries(entries.iter(), Color::White);
        assert_eq!((sums.eval.games, sums.eval.centipawns), (2, -30));
        assert_eq!(sums.of_move(e4).map(|m| (m.timed, m.time_centis)), Some((2, 200)));
        assert_eq!(sums.of_move(None).map(|m| m.timed), Some(1));
    }
}
