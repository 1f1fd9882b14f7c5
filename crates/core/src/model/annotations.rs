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

use crate::varint::{get_varint, put_varint, take_byte, unzigzag, zigzag};

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

/// The columns byte: which columns follow, and in which unit.
const EVALS: u8 = 1;
const CLOCKS: u8 = 2;
const CLOCKS_IN_SECONDS: u8 = 4;
const ELAPSED: u8 = 8;
const ELAPSED_IN_SECONDS: u8 = 16;

impl GameAnnotations {
    /// A game of `plies` moves with nothing annotated.
    pub fn new(plies: usize) -> GameAnnotations {
        GameAnnotations { moves: vec![MoveAnnotation::default(); plies] }
    }

    /// Whether no move carries anything.
    pub fn is_empty(&self) -> bool {
        self.moves.iter().all(|m| *m == MoveAnnotation::default())
    }

    /// The stored code (docs/FORMAT.md, "Annotations"); `None` when no move carries anything
    /// (nothing is stored) or a value is out of range.
    pub fn encode(&self) -> Option<Vec<u8>> {
        let valid = |m: &MoveAnnotation| {
            m.eval.is_none_or(Eval::is_valid)
                && m.clock_centis.is_none_or(|c| c <= MAX_CENTIS)
                && m.elapsed_centis.is_none_or(|c| c <= MAX_CENTIS)
        };
        if self.is_empty() || !self.moves.iter().all(valid) {
            return None;
        }
        let evals: Vec<Option<i64>> = self.moves.iter().map(|m| m.eval.map(Eval::number)).collect();
        let clocks: Vec<Option<u32>> = self.moves.iter().map(|m| m.clock_centis).collect();
        let elapsed: Vec<Option<u32>> = self.moves.iter().map(|m| m.elapsed_centis).collect();
        let in_seconds = |column: &[Option<u32>]| column.iter().flatten().all(|c| c % 100 == 0);
        let mut columns = 0;
        for (column, present, seconds) in
            [(&clocks, CLOCKS, CLOCKS_IN_SECONDS), (&elapsed, ELAPSED, ELAPSED_IN_SECONDS)]
        {
            if column.iter().any(Option::is_some) {
                columns |= present | if in_seconds(column) { seconds } else { 0 };
            }
        }
        if evals.iter().any(Option::is_some) {
            columns |= EVALS;
        }
        let mut out = Vec::with_capacity(2 * self.moves.len() + 8);
        out.push(columns);
        if columns & EVALS != 0 {
            put_presence(&mut out, &evals);
            let mut last = 0;
            for &number in evals.iter().flatten() {
                put_varint(&mut out, zigzag(number - last));
                last = number;
            }
        }
        if columns & CLOCKS != 0 {
            let unit = if columns & CLOCKS_IN_SECONDS != 0 { 100 } else { 1 };
            put_presence(&mut out, &clocks);
            // Each side's clock from its own last one: the difference is about the move's time.
            let mut last = [0i64; 2];
            for (ply, clock) in clocks.iter().enumerate() {
                if let Some(clock) = clock {
                    let value = i64::from(clock / unit);
                    put_varint(&mut out, zigzag(value - last[ply % 2]));
                    last[ply % 2] = value;
                }
            }
        }
        if columns & ELAPSED != 0 {
            let unit = if columns & ELAPSED_IN_SECONDS != 0 { 100 } else { 1 };
            put_presence(&mut out, &elapsed);
            for &centis in elapsed.iter().flatten() {
                put_varint(&mut out, u64::from(centis / unit));
            }
        }
        Some(out)
    }

    /// The annotations of a game of `plies` moves from their stored code; `None` unless the
    /// bytes are exactly what [`encode`](Self::encode) writes for such a game.
    pub fn decode(bytes: &[u8], plies: usize) -> Option<GameAnnotations> {
        let mut input = bytes;
        let columns = take_byte(&mut input)?;
        if columns == 0 || columns >= 32 {
            return None;
        }
        let mut game = GameAnnotations::new(plies);
        if columns & EVALS != 0 {
            let present = get_presence(&mut input, plies)?;
            let mut last = 0i64;
            for ply in present {
                last = last.checked_add(unzigzag(get_varint(&mut input)?))?;
                game.moves[ply].eval = Some(Eval::of_number(last)?);
            }
        }
        if columns & CLOCKS != 0 {
            let unit = if columns & CLOCKS_IN_SECONDS != 0 { 100 } else { 1 };
            let mut last = [0i64; 2];
            for ply in get_presence(&mut input, plies)? {
                let value = last[ply % 2].checked_add(unzigzag(get_varint(&mut input)?))?;
                last[ply % 2] = value;
                game.moves[ply].clock_centis = Some(centis_of(value, unit)?);
            }
        }
        if columns & ELAPSED != 0 {
            let unit = if columns & ELAPSED_IN_SECONDS != 0 { 100 } else { 1 };
            for ply in get_presence(&mut input, plies)? {
                let value = i64::try_from(get_varint(&mut input)?).ok()?;
                game.moves[ply].elapsed_centis = Some(centis_of(value, unit)?);
            }
        }
        // Canonical bytes only: the units are chosen by the values, nothing trails.
        (input.is_empty() && game.encode().as_deref() == Some(bytes)).then_some(game)
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

fn centis_of(value: i64, unit: u32) -> Option<u32> {
    let centis = u32::try_from(value).ok()?.checked_mul(unit)?;
    (centis <= MAX_CENTIS).then_some(centis)
}

/// Which plies carry a value: alternating runs, absent first (that run may be empty), as a
/// varint count then each run's length.
fn put_presence<T>(out: &mut Vec<u8>, column: &[Option<T>]) {
    let mut runs: Vec<u64> = vec![0];
    for value in column {
        let present = runs.len().is_multiple_of(2);
        match value.is_some() == present {
            true => *runs.last_mut().expect("never empty") += 1,
            false => runs.push(1),
        }
    }
    put_varint(out, runs.len() as u64);
    for run in runs {
        put_varint(out, run);
    }
}

/// The plies [`put_presence`] wrote as present, if its runs cover exactly `plies`.
fn get_presence(input: &mut &[u8], plies: usize) -> Option<Vec<usize>> {
    let count = get_varint(input)?;
    if count == 0 || count > input.len() as u64 {
        return None;
    }
    let (mut at, mut present) = (0usize, Vec::new());
    for run in 0..count {
        let length = usize::try_from(get_varint(input)?).ok()?;
        let end = at.checked_add(length).filter(|&end| end <= plies)?;
        if run % 2 == 1 {
            present.extend(at..end);
        }
        at = end;
    }
    (at == plies).then_some(present)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn eval() -> impl Strategy<Value = Eval> {
        prop_oneof![
            (-300i32..300).prop_map(Eval::Centipawns),
            (-Eval::MAX_CENTIPAWNS..=Eval::MAX_CENTIPAWNS).prop_map(Eval::Centipawns),
            (1i16..=Eval::MAX_MATE, any::<bool>()).prop_map(|(n, black)| Eval::Mate(if black { -n } else { n })),
        ]
    }

    fn centis() -> impl Strategy<Value = u32> {
        prop_oneof![(0u32..=10_800).prop_map(|s| s * 100), 0..=MAX_CENTIS]
    }

    fn annotation() -> impl Strategy<Value = MoveAnnotation> {
        (proptest::option::of(eval()), proptest::option::of(centis()), proptest::option::of(centis()))
            .prop_map(|(eval, clock_centis, elapsed_centis)| MoveAnnotation { eval, clock_centis, elapsed_centis })
    }

    proptest! {
        #[test]
        fn round_trips(moves in proptest::collection::vec(annotation(), 0..120)) {
            let game = GameAnnotations { moves };
            match game.encode() {
                Some(bytes) => prop_assert_eq!(GameAnnotations::decode(&bytes, game.moves.len()), Some(game)),
                None => prop_assert!(game.is_empty()),
            }
        }

        #[test]
        fn refuses_other_bytes_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..64), plies in 0usize..80) {
            if let Some(game) = GameAnnotations::decode(&bytes, plies) {
                prop_assert_eq!(game.encode(), Some(bytes));
            }
        }
    }

    #[test]
    fn a_lichess_game_costs_about_two_bytes_a_move() {
        // Evaluations drifting by tens of centipawns, clocks in whole seconds.
        let mut game = GameAnnotations::new(80);
        let mut clock = [18_000u32; 2];
        for (ply, m) in game.moves.iter_mut().enumerate() {
            clock[ply % 2] = clock[ply % 2] + 200 - 100 * (ply as u32 % 13);
            *m = MoveAnnotation {
                eval: Some(Eval::Centipawns(20 + (ply as i32 % 7) * 9 - 30)),
                clock_centis: Some(clock[ply % 2]),
                elapsed_centis: None,
            };
        }
        let bytes = game.encode().expect("annotated");
        assert!(bytes.len() <= 2 * 80 + 10, "{} bytes", bytes.len());
        assert_eq!(bytes[0], EVALS | CLOCKS | CLOCKS_IN_SECONDS);
        assert_eq!(GameAnnotations::decode(&bytes, 80), Some(game));
    }

    #[test]
    fn refuses_non_canonical_and_out_of_range_values() {
        let mut game = GameAnnotations::new(3);
        game.moves[1].clock_centis = Some(6_000);
        let bytes = game.encode().expect("a clock");
        assert_eq!(bytes, [CLOCKS | CLOCKS_IN_SECONDS, 3, 1, 1, 1, 120]);
        // The same clock in centiseconds is not canonical; a wrong ply count is refused.
        assert_eq!(GameAnnotations::decode(&[CLOCKS, 3, 1, 1, 1, 0xe0, 0x5d], 3), None);
        assert_eq!(GameAnnotations::decode(&bytes, 4), None);
        assert_eq!(
            GameAnnotations::decode(&[EVALS, 2, 0, 1, 0], 1),
            Some(GameAnnotations {
                moves: vec![MoveAnnotation { eval: Some(Eval::Centipawns(0)), ..Default::default() }]
            })
        );
        // Mate 0 and a thousand pawns and a centipawn are no scores.
        assert_eq!(Eval::of_number(MATE_NUMBER), None);
        assert_eq!(Eval::of_number(i64::from(Eval::MAX_CENTIPAWNS) + 1), None);
        // Between the centipawns and the mates no number is a score (134,461 is no mate in 3).
        assert_eq!(Eval::of_number(134_461), None);
        assert_eq!(Eval::of_number(-(MATE_NUMBER - 3)), Some(Eval::Mate(-3)));
        assert_eq!(Eval::of_number(MATE_NUMBER - 501), None);
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
