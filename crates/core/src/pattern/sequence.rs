//! Sequences of positions in one game: `seq(A, B)` holds in a game where B matches at a later
//! ply than A, `seq(A, B, N)` at most N plies later; the second step may be a sequence itself
//! (`seq(A, seq(B, C, 2))`: A, then B, then C within 2 plies of B). A sequence is a question
//! about games, not positions: it is parsed apart from [`Pattern`]s
//! ([`GamePattern`]), and found by scanning for its first step's positions, then replaying
//! only the games reaching them (`explore::SequenceQuery`).
//!
//! ```text
//! game-pattern := sequence | pattern
//! sequence     := "seq(" pattern "," (sequence | pattern) ("," plies)? ")"
//! ```
//!
//! ```
//! use tabiya_core::pattern::{GamePattern, Sequence};
//!
//! let greek_gift: GamePattern = "seq(Bh7 and check and btm, Ng5 and check and btm, 3)".parse()?;
//! let GamePattern::Sequence(sequence) = greek_gift else { unreachable!() };
//! assert_eq!(sequence.steps.len(), 2);
//! assert_eq!(sequence.steps[1].within, Some(3));
//! assert!("seq(check, mate, 0)".parse::<GamePattern>().is_err());
//! # Ok::<_, tabiya_core::pattern::PatternError>(())
//! ```

use crate::Position;

use super::{Pattern, PatternError, Scene};

/// Most steps a sequence has (bounded work per game).
pub const MAX_STEPS: usize = 16;

/// A position pattern, or a sequence of them in one game.
#[derive(Clone, Debug, PartialEq)]
pub enum GamePattern {
    /// One position.
    Position(Pattern),
    /// Positions one after another in a game.
    Sequence(Sequence),
}

impl std::str::FromStr for GamePattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<GamePattern, PatternError> {
        match super::parse::parse_sequence(text)? {
            Some(sequence) => Ok(GamePattern::Sequence(sequence)),
            None => Ok(GamePattern::Position(text.parse()?)),
        }
    }
}

/// Steps matched one after another, each at a later ply than the one before.
#[derive(Clone, Debug, PartialEq)]
pub struct Sequence {
    /// The steps, the first one first (a nested `seq` flattened: `seq(A, seq(B, C, 2))` is A,
    /// B, C with C within 2 plies of B).
    pub steps: Vec<Step>,
    /// The same steps with colours flipped, when the sequence also matches its mirror
    /// ([`Sequence::with_flip`]): every step flipped together, never some of them.
    pub mirror: Option<Vec<Step>>,
}

/// One step of a [`Sequence`].
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// What the position matches.
    pub pattern: Pattern,
    /// At most this many plies after the step before (none for the first step, or no bound).
    pub within: Option<u32>,
}

impl Sequence {
    /// The same sequence with every step's colours flipped when `flip` (see
    /// [`Pattern::with_flip`]).
    pub fn with_flip(self, flip: bool) -> Sequence {
        let mirror = flip.then(|| {
            self.steps.iter().map(|step| Step { pattern: step.pattern.mirrored(), within: step.within }).collect()
        });
        Sequence { mirror, ..self }
    }

    /// The first step as a scan looks for it: with its mirror when the sequence is flipped.
    pub fn first_step(&self) -> Option<Pattern> {
        let first = self.steps.first()?;
        Some(first.pattern.clone().with_flip(self.mirror.is_some()))
    }

    /// The plies at which the steps match in a game whose positions are `positions` (`[0]` its
    /// start): the earliest first step that starts a whole match, then the earliest of each
    /// next step; `None` when the game has no match.
    ///
    /// ```
    /// use shakmaty::{Chess, Position as _, san::San};
    /// use tabiya_core::{Position, pattern::{GamePattern, Sequence}};
    ///
    /// let mut positions = vec![Chess::default()];
    /// for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"] {
    ///     let last = positions.last().expect("a position").clone();
    ///     let m = san.parse::<San>()?.to_move(&last)?;
    ///     positions.push(last.play(m)?);
    /// }
    /// let positions: Vec<Position> = positions.into_iter().map(Position::from_chess).collect::<Result<_, _>>()?;
    /// let GamePattern::Sequence(seq) = "seq(Qh5, seq(Bc4, mate, 2))".parse()? else { unreachable!() };
    /// assert_eq!(seq.find(&positions), Some(vec![3, 5, 7]));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn find(&self, positions: &[Position]) -> Option<Vec<usize>> {
        let plain = find_steps(&self.steps, positions);
        match (&self.mirror, plain) {
            (Some(mirror), plain) => match (plain, find_steps(mirror, positions)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            (None, plain) => plain,
        }
    }
}

/// [`Sequence::find`] for one orientation of the steps.
fn find_steps(steps_of: &[Step], positions: &[Position]) -> Option<Vec<usize>> {
    let plies = positions.len();
    let steps = steps_of.len();
    // Whether step s matches at ply p, evaluated once when first asked.
    let mut matched: Vec<Vec<Option<bool>>> = vec![vec![None; plies]; steps];
    let mut matches = |s: usize, p: usize| -> bool {
        *matched[s][p].get_or_insert_with(|| steps_of[s].pattern.matches(&mut Scene::of_position(&positions[p])))
    };
    // completes[s][p]: step s matches at p and the steps after it follow in their windows.
    let mut completes = vec![vec![false; plies]; steps];
    // The first step's plies bound where the others are looked for.
    let first = (0..plies).find(|&p| matches(0, p))?;
    // next[q]: the first ply at or after q where the step after completes (plies if none),
    // so that a window is checked in one read, not ply by ply.
    let mut next = vec![plies; plies + 1];
    for s in (0..steps).rev() {
        for p in first + s..plies {
            let follows = s + 1 == steps || next[p + 1] < window_end(&steps_of[s + 1], p, plies);
            completes[s][p] = follows && matches(s, p);
        }
        for p in (0..plies).rev() {
            next[p] = if completes[s][p] { p } else { next[p + 1] };
        }
    }
    let mut at = (first..plies).find(|&p| completes[0][p])?;
    let mut found = vec![at];
    for (s, step) in completes.iter().enumerate().skip(1) {
        at = (at + 1..window_end(&steps_of[s], at, plies)).find(|&q| step[q])?;
        found.push(at);
    }
    Some(found)
}

/// The ply after the last one `step` may match at when the step before matched at `after`.
fn window_end(step: &Step, after: usize, plies: usize) -> usize {
    match step.within {
        Some(within) => (after + within as usize + 1).min(plies),
        None => plies,
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::san::San;

    use super::*;

    fn positions(sans: &[&str]) -> Vec<crate::Position> {
        let mut positions = vec![crate::Position::initial()];
        for san in sans {
            let mut next = positions.last().expect("a position").clone();
            let m = san.parse::<San>().expect("SAN").to_move(next.shakmaty()).expect("legal");
            next.play_legal(m);
            positions.push(next);
        }
        positions
    }

    fn sequence(text: &str) -> Sequence {
        match text.parse::<GamePattern>().expect("a sequence") {
            GamePattern::Sequence(sequence) => sequence,
            GamePattern::Position(_) => panic!("{text} is not a sequence"),
        }
    }

    #[test]
    fn windows_and_nesting() {
        let game = positions(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
        assert_eq!(sequence("seq(Qh5, mate)").find(&game), Some(vec![3, 7]));
        assert_eq!(sequence("seq(Qh5, mate, 4)").find(&game), Some(vec![3, 7]));
        // The queen stands on h5 at plies 3 to 6: the first that mate follows within 3 is 4.
        assert_eq!(sequence("seq(Qh5, mate, 3)").find(&game), Some(vec![4, 7]));
        assert_eq!(sequence("seq(Qh5, mate, 1)").find(&game), Some(vec![6, 7]));
        assert_eq!(sequence("seq(Qh5, Qh5, 4)").find(&game), Some(vec![3, 4]));
        assert_eq!(sequence("seq(Pe4, seq(Bc4, mate, 2), 2)").find(&game), Some(vec![3, 5, 7]));
        assert_eq!(sequence("seq(Pe4, seq(Bc4, mate, 2), 4)").find(&game), Some(vec![1, 5, 7]));
        // The earliest next step that the rest follows: Bc4 at 5 is too early for mate within 1.
        assert_eq!(sequence("seq(Pe4, seq(Bc4, mate, 1))").find(&game), Some(vec![1, 6, 7]));
        assert_eq!(sequence("seq(mate, check)").find(&game), None);
        // The earliest first step that starts a whole match: e4 stands from ply 1 on.
        assert_eq!(sequence("seq(Pe4, Bc4)").find(&game), Some(vec![1, 5]));
    }

    #[test]
    fn a_flipped_sequence_flips_every_step_together() {
        // White's queen leaves d1 for h5; Black's stays on d8.
        let game = positions(&["e4", "e5", "Qh5", "Nc6"]);
        let mixed = sequence("seq(Qh5, qd8)");
        assert_eq!(mixed.find(&game), Some(vec![3, 4]));
        // Qh5 then Qd1 matches neither as it is nor mirrored (qh4 then qd8): no step of one
        // orientation may pair with a step of the other.
        let flipped = sequence("seq(Qh5, Qd1)").with_flip(true);
        assert_eq!(flipped.find(&game), None);
        let mirrored = positions(&["e4", "e5", "Nc3", "Qh4", "Nf3"]);
        assert_eq!(flipped.find(&mirrored), None);
        let back = positions(&["e4", "e5", "Nc3", "Qh4", "Nf3", "Qd8"]);
        assert_eq!(flipped.find(&back), Some(vec![4, 6]));
    }
}
