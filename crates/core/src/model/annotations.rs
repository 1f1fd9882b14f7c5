//! What a game's moves carried besides the moves: the engine evaluation after each, the mover's
//! clock and the time the move took ([`GameAnnotations`]), as ingest reads them from comments,
//! and their stored code (docs/FORMAT.md, "Annotations").
//!
//! Evaluations are kept from White's view whatever view the comment took; times in
//! centiseconds. How long a move took is what the comment says (`[%emt]`, Arena's seconds,
//! TCEC's `mt`), else the mover's clock before it, plus the increment, less the clock after it
//! ([`GameAnnotations::time_spent`], with the game's [`TimeControl`]).
//!
//! ```
//! use tabiya_core::model::{Eval, GameAnnotations, MoveAnnotation, TimeControl};
//!
//! let mut game = GameAnnotations::new(2);
//! game.moves[0] = MoveAnnotation { eval: Some(Eval::Centipawns(25)), clock_centis: Some(17_800), elapsed_centis: None };
//! game.moves[1] = MoveAnnotation { eval: Some(Eval::Mate(-3)), clock_centis: Some(17_500), elapsed_centis: None };
//! let bytes = game.encode().expect("something to store");
//! assert_eq!(GameAnnotations::decode(&bytes, 2), Some(game.clone()));
//! // 180+2: White took 180 + 2 − 178 seconds, Black 5.
//! let control = TimeControl::parse("180+2");
//! assert_eq!(game.time_spent(control.as_ref()), [Some(400), Some(700)]);
//! ```

/// An engine's evaluation of a position, from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Eval {
    /// Centipawns, at most [`Eval::MAX_CENTIPAWNS`] either way.
    Centipawns(i32),
    /// Mate in this many moves, at most [`Eval::MAX_MATE`] (negative: Black mates; never 0).
    Mate(i16),
}

impl Eval {
    /// The largest centipawn score kept: a thousand pawns' worth (engines print more only
    /// for mates or errors).
    pub const MAX_CENTIPAWNS: i32 = 100_000;
    /// The longest mate kept, in moves.
    pub const MAX_MATE: i16 = 500;

    /// Whether the score is one the code holds.
    pub fn is_valid(self) -> bool {
        match self {
            Eval::Centipawns(cp) => cp.abs() <= Eval::MAX_CENTIPAWNS,
            Eval::Mate(moves) => moves != 0 && moves.abs() <= Eval::MAX_MATE,
        }
    }

    /// The score from the other side's view.
    pub fn flipped(self) -> Eval {
        match self {
            Eval::Centipawns(cp) => Eval::Centipawns(-cp),
            Eval::Mate(moves) => Eval::Mate(-moves),
        }
    }

    /// One ordered number for stored codes: centipawns as they are, mates beyond every
    /// centipawn score, the shorter the larger.
    pub fn number(self) -> i64 {
        match self {
            Eval::Centipawns(cp) => i64::from(cp),
            Eval::Mate(moves) => i64::from(moves.signum()) * (MATE_NUMBER - i64::from(moves.abs())),
        }
    }

    /// The evaluation of a [`Eval::number`]; `None` for a number no evaluation has.
    pub fn of_number(number: i64) -> Option<Eval> {
        let eval = match number.unsigned_abs() {
            n if n <= Eval::MAX_CENTIPAWNS as u64 => Eval::Centipawns(number as i32),
            n if n < MATE_NUMBER as u64 && n >= (MATE_NUMBER - i64::from(Eval::MAX_MATE)) as u64 => {
                Eval::Mate((number.signum() * (MATE_NUMBER - n as i64)) as i16)
            }
            _ => return None,
        };
        eval.is_valid().then_some(eval)
    }
}

/// Mate in `n` is coded as `±(MATE_NUMBER − n)`.
const MATE_NUMBER: i64 = 200_000;
/// The longest clock or move time kept, in centiseconds: a day and a half.
pub const MAX_CENTIS: u32 = 36 * 3600 * 100;

/// What one move's comments said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveAnnotation {
    /// The evaluation of the position after the move, from White's view.
    pub eval: Option<Eval>,
    /// The mover's clock after the move, in centiseconds.
    pub clock_centis: Option<u32>,
    /// The time the move took as the comment states it, in centiseconds.
    pub elapsed_centis: Option<u32>,
}

/// The annotations of a game's mainline: one entry a move, in order (`moves[i]` is the move
/// played from the game's ply `i`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameAnnotations {
    /// One entry a move of the mainline.
    pub moves: Vec<MoveAnnotation>,
}

/// A game's time control, as far as a move's time needs it: the time each side starts with
/// and the increment after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// The first period's time, in centiseconds.
    pub base_centis: u32,
    /// Added to the mover's clock after each move, in centiseconds.
    pub increment_centis: u32,
}

impl TimeControl {
    /// Reads a `TimeControl` tag: `180+2`, `180`, or the first period of `40/7200:3600`
    /// (a later period's added time shows as a clock going up, a move whose time is unknown).
    /// `None` for `-`, `?`, a sandclock (`*60`) or anything else.
    pub fn parse(tag: &str) -> Option<TimeControl> {
        let period = tag.trim().split(':').next()?;
        let period = period.split_once('/').map_or(period, |(_, time)| time);
        let (base, increment) = period.split_once('+').unwrap_or((period, "0"));
        let seconds = |text: &str| -> Option<u32> {
            let centis = (text.parse::<f64>().ok()? * 100.0).round();
            (text.bytes().all(|b| b.is_ascii_digit() || b == b'.') && (0.0..=f64::from(MAX_CENTIS)).contains(&centis))
                .then_some(centis as u32)
        };
        Some(TimeControl { base_centis: seconds(base)?, increment_centis: seconds(increment)? })
    }
}

impl GameAnnotations {
    /// A game of `plies` moves with nothing annotated.
    pub fn new(plies: usize) -> GameAnnotations {
        GameAnnotations { moves: vec![MoveAnnotation::default(); plies] }
    }

    /// Whether no move carries anything.
    pub fn is_empty(&self) -> bool {
        self.moves.iter().all(|m| *m == MoveAnnotation::default())
    }

    /// The stored code (docs/FORMAT.md, "Annotations"; [`codec::annotations`]); `None` when
    /// no move carries anything (nothing is stored) or a value is out of range.
    ///
    /// [`codec::annotations`]: crate::codec::annotations
    pub fn encode(&self) -> Option<Vec<u8>> {
        crate::codec::annotations::encode(self)
    }

    /// The annotations of a game of `plies` moves from their stored code; `None` unless the
    /// bytes are exactly what [`encode`](Self::encode) writes for such a game.
    pub fn decode(bytes: &[u8], plies: usize) -> Option<GameAnnotations> {
        crate::codec::annotations::decode(bytes, plies)
    }

    /// Per move, the evaluation after it and the time it took ([`GameAnnotations::time_spent`]):
    /// what its positions' notes are made of ([`PlyNotes::at`](super::PlyNotes::at)).
    pub fn move_notes(&self, control: Option<&TimeControl>) -> Vec<super::MoveNote> {
        self.moves.iter().zip(self.time_spent(control)).map(|(annotation, spent)| (annotation.eval, spent)).collect()
    }

    /// How long each move took, in centiseconds: the stated time, else the mover's clock
    /// before the move (the time control's base at the side's first move) plus the increment,
    /// less its clock after it. `None` where neither is known, the clocks go up more than
    /// the increment (a new period), or the time would be over [`MAX_CENTIS`].
    pub fn time_spent(&self, control: Option<&TimeControl>) -> Vec<Option<u32>> {
        (0..self.moves.len())
            .map(|ply| {
                let here = &self.moves[ply];
                if let Some(elapsed) = here.elapsed_centis {
                    return Some(elapsed);
                }
                let (clock, control) = (here.clock_centis?, control?);
                let before = match ply.checked_sub(2) {
                    Some(earlier) => self.moves[earlier].clock_centis?,
                    None => control.base_centis,
                };
                // A move longer than the longest time kept is no time (a base of days and a
                // clock at zero, or a clock of days in a short game).
                (before + control.increment_centis).checked_sub(clock).filter(|&spent| spent <= MAX_CENTIS)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_have_one_ordered_number() {
        // Mate 0 and a thousand pawns and a centipawn are no scores.
        assert_eq!(Eval::of_number(MATE_NUMBER), None);
        assert_eq!(Eval::of_number(i64::from(Eval::MAX_CENTIPAWNS) + 1), None);
        // Between the centipawns and the mates no number is a score (134,461 is no mate in 3).
        assert_eq!(Eval::of_number(134_461), None);
        assert_eq!(Eval::of_number(-(MATE_NUMBER - 3)), Some(Eval::Mate(-3)));
        assert_eq!(Eval::of_number(MATE_NUMBER - 501), None);
        assert!(Eval::Mate(-2).number() < Eval::Centipawns(-Eval::MAX_CENTIPAWNS).number());
        assert!(Eval::Mate(1).number() > Eval::Mate(2).number());
        let odd = GameAnnotations { moves: vec![MoveAnnotation { eval: Some(Eval::Mate(0)), ..Default::default() }] };
        assert_eq!(odd.encode(), None);
    }
    #[test]
    fn time_spent_from_clocks_increments_and_stated_times() {
        let control = TimeControl::parse("180+2").expect("a time control");
        assert_eq!(control, TimeControl { base_centis: 18_000, increment_centis: 200 });
        let at = |clock: Option<u32>, elapsed: Option<u32>| MoveAnnotation {
            eval: None,
            clock_centis: clock,
            elapsed_centis: elapsed,
        };
        let game = GameAnnotations {
            moves: vec![
                at(Some(18_000), None),
                at(Some(17_000), None),
                at(Some(17_500), Some(300)),
                at(None, None),
                at(Some(17_900), None),
                at(Some(16_000), None),
            ],
        };
        assert_eq!(game.time_spent(Some(&control)), [Some(200), Some(1_200), Some(300), None, None, None]);
        // Without a time control only stated times are known.
        assert_eq!(game.time_spent(None), [None, None, Some(300), None, None, None]);
        assert_eq!(TimeControl::parse("40/7200:3600").map(|c| c.base_centis), Some(720_000));
        for odd in ["-", "?", "*60", "", "+5", "1e9", "180+-2"] {
            assert_eq!(TimeControl::parse(odd), None, "{odd}");
        }
    }
}
