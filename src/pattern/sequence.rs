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
//! use tabiya::pattern::{GamePattern, Sequence};
//!
//! let greek_gift: GamePattern = "seq(Bh7 and check and btm, Ng5 and check and btm, 3)".parse()?;
//! let GamePattern::Sequence(sequence) = greek_gift else { unreachable!() };
//! assert_eq!(sequence.steps.len(), 2);
//! assert_eq!(sequence.steps[1].within, Some(3));
//! assert!("seq(check, mate, 0)".parse::<GamePattern>().is_err());
//! # Ok::<_, tabiya::pattern::PatternError>(())
//! ```

use shakmaty::Chess;

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
        let steps = self.steps.into_iter().map(|step| Step { pattern: step.pattern.with_flip(flip), ..step }).collect();
        Sequence { steps }
    }

    /// The plies at which the steps match in a game whose positions are `positions` (`[0]` its
    /// start): the earliest first step that starts a whole match, then the earliest of each
    /// next step; `None` when the game has no match.
    ///
    /// ```
    /// use shakmaty::{Chess, Position as _, san::San};
    /// use tabiya::pattern::{GamePattern, Sequence};
    ///
    /// let mut positions = vec![Chess::default()];
    /// for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"] {
    ///     let last = positions.last().expect("a position").clone();
    ///     let m = san.parse::<San>()?.to_move(&last)?;
    ///     positions.push(last.play(m)?);
    /// }
    /// let GamePattern::Sequence(seq) = "seq(Qh5, seq(Bc4, mate, 2))".parse()? else { unreachable!() };
    /// assert_eq!(seq.find(&positions), Some(vec![3, 5, 7]));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn find(&self, positions: &[Chess]) -> Option<Vec<usize>> {
        let plies = positions.len();
        let steps = self.steps.len();
        // Whether step s matches at ply p, evaluated once when first asked.
        let mut matched: Vec<Vec<Option<bool>>> = vec![vec![None; plies]; steps];
        let mut matches = |s: usize, p: usize| -> bool {
            *matched[s][p].get_or_insert_with(|| self.steps[s].pattern.matches(&mut Scene::of_chess(&positions[p])))
        };
        // completes[s][p]: step s matches at p and the steps after it follow in their windows.
        let mut completes = vec![vec![false; plies]; steps];
        // The first step's plies bound where the others are looked for.
        let first = (0..plies).find(|&p| matches(0, p))?;
        for s in (0..steps).rev() {
            for p in first + s..plies {
                let follows = s + 1 == steps || self.window(s + 1, p, plies).any(|q| completes[s + 1][q]);
                completes[s][p] = follows && matches(s, p);
            }
        }
        let mut at = (first..plies).find(|&p| completes[0][p])?;
        let mut found = vec![at];
        for (s, step) in completes.iter().enumerate().skip(1) {
            at = self.window(s, at, plies).find(|&q| step[q])?;
            found.push(at);
        }
        Some(found)
    }

    /// The plies step `s` may match at when the step before matched at `after`.
    fn window(&self, s: usize, after: usize, plies: usize) -> std::ops::Range<usize> {
        let end = match self.steps[s].within {
            Some(within) => (after + within as usize + 1).min(plies),
            None => plies,
        };
        after + 1..end.max(after + 1)
    }
}
