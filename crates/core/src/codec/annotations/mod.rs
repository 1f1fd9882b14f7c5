//! The stored code of a game's annotations (docs/FORMAT.md, "Annotations"): each column's
//! values as differences, their bits arithmetic-coded ([`range`](super::range)) under
//! probabilities that adapt along the game from priors counted on engine-annotated games
//! (`priors.rs`, written by `tools/data/annotation-priors.rs`).
//!
//! An integer is its zero and sign bits, then its magnitude less one: the part above the
//! column's shift as its bit length in unary and the two bits below its top bit, under models,
//! the bits below that and the shifted-out bits at even odds. Each column chooses the models of
//! its next value by what came before: evaluations by the size of the previous change, clocks
//! by the time left (a player short of time moves fast), move times by the side's previous
//! time. A column's shift is how much wider its values are than those the priors were counted
//! on (noise the models could not learn within a game): none for most games. Changing a
//! context, a rule or the priors changes stored records: the format version goes with them.

mod priors;

use super::range::{BitCoder, Decoder, Encoder, Probability};
use crate::model::{Eval, GameAnnotations, MAX_CENTIS, MoveAnnotation};

/// Bits of the bit-length code: values stay under 2^24 (a clock of 36 hours in centiseconds),
/// a change under 2^25.
const LENGTHS: usize = 25;
/// Models of one integer context: zero, sign, then the bit length's unary bits.
const INTEGER: usize = 2 + LENGTHS;
const ZERO: usize = 0;
const SIGN: usize = 1;
const UNARY: usize = 2;
/// The largest shift, and so the number of its unary models a column.
const MAX_SHIFT: u32 = 15;

/// The first-bit flags: evaluations, clocks, clocks in seconds, move times, move times in
/// seconds.
const FLAGS: usize = 0;
/// Presence per column, by whether the previous move had a value.
const PRESENCE: usize = FLAGS + 5;
const EVAL_CONTEXTS: usize = 9;
const CLOCK_CONTEXTS: usize = 14;
const ELAPSED_CONTEXTS: usize = 9;
const EVALS: usize = PRESENCE + 3 * 2;
const CLOCKS: usize = EVALS + EVAL_CONTEXTS * INTEGER;
const ELAPSED: usize = CLOCKS + CLOCK_CONTEXTS * INTEGER;
/// The two bits below an integer's top bit, per column and bit length: the first, then the
/// second after a 0 or a 1.
const MANTISSA: usize = ELAPSED + ELAPSED_CONTEXTS * INTEGER;
/// Each column's shift, in unary.
const SHIFTS: usize = MANTISSA + 3 * LENGTHS * 3;
/// Every model of the code.
pub const MODELS: usize = SHIFTS + 3 * MAX_SHIFT as usize;

/// The columns, in their order in the code.
#[derive(Clone, Copy)]
enum Column {
    Evals = 0,
    Clocks = 1,
    Elapsed = 2,
}

impl Column {
    /// The bit length of the values the priors were mostly counted on (a column's changes, or
    /// times): a column whose values are longer on average shifts the difference out.
    fn typical_bits(self) -> u32 {
        match self {
            Column::Evals => 5,
            Column::Clocks => 2,
            Column::Elapsed => ELAPSED_TYPICAL_BITS,
        }
    }
}

const ELAPSED_TYPICAL_BITS: u32 = 4;

/// How often each model saw a 0 and a 1: what `tools/data/annotation-priors.rs` counts.
pub type Counts = [[u64; 2]; MODELS];

/// How a column present is written: its unit (centiseconds per unit: 1, or 100 when every
/// value is whole seconds; evaluations 1) and its shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    unit: u32,
    shift: u32,
}

/// What the code says before the values: each column's layout, if it has values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    evals: Option<Layout>,
    clocks: Option<Layout>,
    elapsed: Option<Layout>,
}

impl Header {
    /// The header the code of `game` has.
    fn of(game: &GameAnnotations) -> Header {
        let moves = &game.moves;
        let evals = (moves.iter().any(|m| m.eval.is_some())).then(|| {
            let numbers = moves.iter().filter_map(|m| m.eval.map(Eval::number));
            let changes = numbers.scan(0, |last, number| Some(number - std::mem::replace(last, number)));
            Layout { unit: 1, shift: shift_of(Column::Evals, changes) }
        });
        let clocks = unit_of(moves, |m| m.clock_centis).map(|unit| {
            let mut last: [Option<i64>; 2] = [None, None];
            let changes = moves.iter().enumerate().filter_map(|(ply, m)| {
                let value = i64::from(m.clock_centis? / unit);
                let side = ply % 2;
                let base = clock_base(&last, side);
                last[side] = Some(value);
                // A game's first clock has nothing before it: not a change.
                base.map(|base| value - base)
            });
            Layout { unit, shift: shift_of(Column::Clocks, changes) }
        });
        let elapsed = unit_of(moves, |m| m.elapsed_centis).map(|unit| {
            let times = moves.iter().filter_map(|m| m.elapsed_centis).map(|centis| i64::from(centis / unit));
            Layout { unit, shift: shift_of(Column::Elapsed, times) }
        });
        Header { evals, clocks, elapsed }
    }
}

/// A column's unit, if it has values: whole seconds when every value is.
fn unit_of(moves: &[MoveAnnotation], centis: fn(&MoveAnnotation) -> Option<u32>) -> Option<u32> {
    let mut values = moves.iter().filter_map(centis).peekable();
    values.peek()?;
    Some(if values.all(|c| c % 100 == 0) { 100 } else { 1 })
}

/// The shift of a column of `values`: their mean bit length beyond the column's typical one.
fn shift_of(column: Column, values: impl Iterator<Item = i64>) -> u32 {
    let (mut bits, mut count) = (0u64, 0u64);
    for value in values {
        bits += bit_length(value.unsigned_abs()) as u64;
        count += 1;
    }
    let mean = bits.checked_div(count).unwrap_or(0) as u32;
    mean.saturating_sub(column.typical_bits()).min(MAX_SHIFT)
}

/// The models of one game's code, with what they saw if counting.
struct Coding<'a, C> {
    coder: C,
    models: [Probability; MODELS],
    counts: Option<&'a mut Counts>,
}

impl<'a, C: BitCoder> Coding<'a, C> {
    /// A game's coding from the priors.
    fn new(coder: C, counts: Option<&'a mut Counts>) -> Coding<'a, C> {
        Coding { coder, models: START, counts }
    }

    fn bit(&mut self, model: usize, bit: bool) -> bool {
        let bit = self.coder.bit(&mut self.models[model], bit);
        if let Some(counts) = self.counts.as_deref_mut() {
            counts[model][usize::from(bit)] += 1;
        }
        bit
    }

    /// An integer under the models from `context`: zero and sign when `signed`, else a value
    /// of 0 or more. `value` is the encoder's; the decoder's is ignored.
    fn integer(&mut self, column: Column, context: usize, shift: u32, value: i64, signed: bool) -> Option<i64> {
        let negative = if signed {
            if !self.bit(context + ZERO, value != 0) {
                return Some(0);
            }
            self.bit(context + SIGN, value < 0)
        } else {
            false
        };
        // What is left to write: 0 or more (a signed value's magnitude less one).
        let rest = value.unsigned_abs().saturating_sub(u64::from(signed));
        let magnitude = (rest >> shift) + 1;
        let top = magnitude.ilog2() as usize;
        let mut length = 0;
        while self.bit(context + UNARY + length, length < top) {
            length += 1;
            if length == LENGTHS {
                return None;
            }
        }
        let mantissa = MANTISSA + (column as usize * LENGTHS + length) * 3;
        let mut read = 1u64;
        for at in (0..length).rev() {
            let bit = magnitude >> at & 1 == 1;
            let bit = match length - 1 - at {
                0 => self.bit(mantissa, bit),
                1 => self.bit(mantissa + 1 + (read & 1) as usize, bit),
                _ => self.coder.even(bit),
            };
            read = read << 1 | u64::from(bit);
        }
        for at in (0..shift).rev() {
            let bit = self.coder.even(rest >> at & 1 == 1);
            read = read << 1 | u64::from(bit);
        }
        // `read` is (magnitude << shift) | low bits; the rest is that less 1 << shift.
        let rest = i64::try_from(read - (1 << shift)).ok()?;
        Some(match (signed, negative) {
            (false, _) => rest,
            (true, false) => rest + 1,
            (true, true) => -(rest + 1),
        })
    }

    /// A column's layout: its unit when it can be whole seconds, then its shift.
    fn layout(&mut self, column: Column, units: Option<usize>, given: Option<Layout>) -> Layout {
        let given = given.unwrap_or(Layout { unit: 1, shift: 0 });
        let unit = match units {
            Some(model) if self.bit(model, given.unit == 100) => 100,
            _ => 1,
        };
        let models = SHIFTS + column as usize * MAX_SHIFT as usize;
        let mut shift = 0;
        while shift < MAX_SHIFT && self.bit(models + shift as usize, shift < given.shift) {
            shift += 1;
        }
        Layout { unit, shift }
    }

    /// The game's code. Encoding, `game` is what to write (and is left as it is); decoding,
    /// it is the game of the right length with nothing annotated, filled as read. `None`
    /// when what is read is no game's code.
    fn game(&mut self, game: &mut GameAnnotations) -> Option<Header> {
        let given = Header::of(game);
        let evals = self.bit(FLAGS, given.evals.is_some()).then(|| self.layout(Column::Evals, None, given.evals));
        let clocks = self
            .bit(FLAGS + 1, given.clocks.is_some())
            .then(|| self.layout(Column::Clocks, Some(FLAGS + 2), given.clocks));
        let elapsed = self
            .bit(FLAGS + 3, given.elapsed.is_some())
            .then(|| self.layout(Column::Elapsed, Some(FLAGS + 4), given.elapsed));
        let header = Header { evals, clocks, elapsed };
        if header == (Header { evals: None, clocks: None, elapsed: None }) {
            return None;
        }
        if let Some(layout) = evals {
            self.evals(game, layout)?;
        }
        if let Some(layout) = clocks {
            self.clocks(game, layout)?;
        }
        if let Some(layout) = elapsed {
            self.elapsed(game, layout)?;
        }
        Some(header)
    }

    fn present(&mut self, column: Column, previous: &mut bool, present: bool) -> bool {
        *previous = self.bit(PRESENCE + column as usize * 2 + usize::from(*previous), present);
        *previous
    }

    fn evals(&mut self, game: &mut GameAnnotations, layout: Layout) -> Option<()> {
        let (mut previous, mut last, mut change) = (true, 0i64, 0i64);
        for annotation in &mut game.moves {
            if !self.present(Column::Evals, &mut previous, annotation.eval.is_some()) {
                continue;
            }
            let context = EVALS + bit_length(change.unsigned_abs() >> layout.shift).min(EVAL_CONTEXTS - 1) * INTEGER;
            let given = annotation.eval.map_or(0, Eval::number);
            change = self.integer(Column::Evals, context, layout.shift, given - last, true)?;
            last = last.checked_add(change)?;
            annotation.eval = Some(Eval::of_number(last)?);
        }
        Some(())
    }

    /// Each clock from the side's previous one, the first of a side from the other side's.
    fn clocks(&mut self, game: &mut GameAnnotations, layout: Layout) -> Option<()> {
        let Layout { unit, shift } = layout;
        let mut previous = true;
        let mut last: [Option<i64>; 2] = [None, None];
        for (ply, annotation) in game.moves.iter_mut().enumerate() {
            if !self.present(Column::Clocks, &mut previous, annotation.clock_centis.is_some()) {
                continue;
            }
            let side = ply % 2;
            let base = clock_base(&last, side);
            // A game's first clock is no change: written whole, under models of its own.
            let (context, shift) = match base {
                None => (0, 0),
                Some(base) => {
                    (1 + bit_length(base.unsigned_abs() * u64::from(unit) / 100).min(CLOCK_CONTEXTS - 2), shift)
                }
            };
            let given = annotation.clock_centis.map_or(0, |centis| i64::from(centis / unit));
            let base = base.unwrap_or(0);
            let change = self.integer(Column::Clocks, CLOCKS + context * INTEGER, shift, given - base, true)?;
            let value = base.checked_add(change)?;
            annotation.clock_centis = Some(centis_of(value, unit)?);
            last[side] = Some(value);
        }
        Some(())
    }

    fn elapsed(&mut self, game: &mut GameAnnotations, layout: Layout) -> Option<()> {
        let Layout { unit, shift } = layout;
        let mut previous = true;
        let mut last = [0i64; 2];
        for (ply, annotation) in game.moves.iter_mut().enumerate() {
            if !self.present(Column::Elapsed, &mut previous, annotation.elapsed_centis.is_some()) {
                continue;
            }
            let side = ply % 2;
            let context = bit_length(last[side].unsigned_abs() * u64::from(unit) / 100).min(ELAPSED_CONTEXTS - 1);
            let given = annotation.elapsed_centis.map_or(0, |centis| i64::from(centis / unit));
            let value = self.integer(Column::Elapsed, ELAPSED + context * INTEGER, shift, given, false)?;
            annotation.elapsed_centis = Some(centis_of(value, unit)?);
            last[side] = value;
        }
        Some(())
    }
}

/// What a side's clock is written from: its previous clock, else the other side's last one
/// (`None` before the game's first clock).
fn clock_base(last: &[Option<i64>; 2], side: usize) -> Option<i64> {
    last[side].or(last[1 - side])
}

fn bit_length(value: u64) -> usize {
    (u64::BITS - value.leading_zeros()) as usize
}

fn centis_of(value: i64, unit: u32) -> Option<u32> {
    let centis = u32::try_from(value).ok()?.checked_mul(unit)?;
    (centis <= MAX_CENTIS).then_some(centis)
}

/// The models at the start of every game: the priors.
const START: [Probability; MODELS] = {
    let mut models = [Probability::new(0); MODELS];
    let mut at = 0;
    while at < MODELS {
        models[at] = Probability::new(priors::PRIORS[at]);
        at += 1;
    }
    models
};

fn is_storable(game: &GameAnnotations) -> bool {
    !game.is_empty()
        && game.moves.iter().all(|m| {
            m.eval.is_none_or(Eval::is_valid)
                && m.clock_centis.is_none_or(|c| c <= MAX_CENTIS)
                && m.elapsed_centis.is_none_or(|c| c <= MAX_CENTIS)
        })
}

/// The stored code of `game`; `None` when no move carries anything (nothing is stored) or a
/// value is out of range. See [`GameAnnotations::encode`].
pub fn encode(game: &GameAnnotations) -> Option<Vec<u8>> {
    if !is_storable(game) {
        return None;
    }
    let mut coding = Coding::new(Encoder::default(), None);
    coding.game(&mut game.clone())?;
    let mut bytes = coding.coder.finish();
    // Never empty: a game stores nothing only when it has nothing (a distributed build's
    // batches say so with no bytes). A zero byte reads as the end does.
    if bytes.is_empty() {
        bytes.push(0);
    }
    Some(bytes)
}

/// The annotations of a game of `plies` moves from their stored code; `None` unless `bytes`
/// are exactly what [`encode`] writes for such a game. See [`GameAnnotations::decode`].
pub fn decode(bytes: &[u8], plies: usize) -> Option<GameAnnotations> {
    if bytes.is_empty() {
        return None;
    }
    // A lone zero byte is how an empty stream is stored.
    let stream = if bytes == [0] { &[][..] } else { bytes };
    let mut game = GameAnnotations::new(plies);
    let mut coding = Coding::new(Decoder::new(stream), None);
    let header = coding.game(&mut game)?;
    // Canonical bytes only: the columns, units and shifts are those the values choose, and the
    // stream is the one the encoder writes (each value has one code, so nothing else can
    // differ).
    (header == Header::of(&game) && coding.coder.is_whole_stream()).then_some(game)
}

/// Adds what each model sees while coding `game` to `counts` (nothing for a game [`encode`]
/// stores nothing of): how `tools/data/annotation-priors.rs` counts the priors.
pub fn count(game: &GameAnnotations, counts: &mut Counts) {
    if is_storable(game) {
        let mut coding = Coding::new(Encoder::default(), Some(counts));
        coding.game(&mut game.clone());
    }
}

/// The prior of a model that saw `zeros` and `ones`: the share of ones, kept clear of either
/// end so that an unseen value stays cheap enough.
pub fn prior(zeros: u64, ones: u64) -> u16 {
    let share = (ones as f64 + 0.4) / ((zeros + ones) as f64 + 0.8);
    (share * f64::from(super::range::ONE)).round().clamp(31.0, f64::from(super::range::ONE - 31)) as u16
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
            match encode(&game) {
                Some(bytes) => prop_assert_eq!(decode(&bytes, game.moves.len()), Some(game)),
                None => prop_assert!(game.is_empty()),
            }
        }

        #[test]
        fn refuses_other_bytes_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..64), plies in 0usize..80) {
            if let Some(game) = decode(&bytes, plies) {
                prop_assert_eq!(encode(&game), Some(bytes));
            }
        }

        #[test]
        fn a_changed_byte_is_another_game_or_refused(moves in proptest::collection::vec(annotation(), 1..60), at in any::<prop::sample::Index>(), flip in 1u8..) {
            let game = GameAnnotations { moves };
            // A stored code is never empty.
            if let Some(mut bytes) = encode(&game) {
                let at = at.index(bytes.len());
                bytes[at] ^= flip;
                if let Some(other) = decode(&bytes, game.moves.len()) {
                    prop_assert_ne!(&other, &game);
                    prop_assert_eq!(encode(&other), Some(bytes));
                }
            }
        }
    }

    #[test]
    fn every_extreme_value_round_trips_alone_and_in_a_run() {
        let evals = [
            Eval::Centipawns(0),
            Eval::Centipawns(1),
            Eval::Centipawns(-1),
            Eval::Centipawns(Eval::MAX_CENTIPAWNS),
            Eval::Centipawns(-Eval::MAX_CENTIPAWNS),
            Eval::Mate(1),
            Eval::Mate(-1),
            Eval::Mate(Eval::MAX_MATE),
            Eval::Mate(-Eval::MAX_MATE),
        ];
        let times = [0, 1, 99, 100, 12_345, MAX_CENTIS - 1, MAX_CENTIS];
        let mut games = Vec::new();
        for &first in &evals {
            for &second in &evals {
                let mut game = GameAnnotations::new(3);
                game.moves[0].eval = Some(first);
                game.moves[2].eval = Some(second);
                games.push(game);
            }
        }
        for &first in &times {
            for &second in &times {
                for column in 0..2 {
                    let mut game = GameAnnotations::new(4);
                    for (ply, value) in [(1, first), (2, second), (3, first)] {
                        match column {
                            0 => game.moves[ply].clock_centis = Some(value),
                            _ => game.moves[ply].elapsed_centis = Some(value),
                        }
                    }
                    games.push(game);
                }
            }
        }
        for game in games {
            let bytes = encode(&game).expect("storable");
            assert_eq!(decode(&bytes, game.moves.len()), Some(game.clone()), "{bytes:?}");
            // A byte more reads as another game or none: a stream is the only one of its bits.
            // (A game's length is the mainline's: the same bytes may read as a longer game
            // whose last moves carry nothing.)
            let longer = [bytes.as_slice(), &[1]].concat();
            if let Some(other) = decode(&longer, game.moves.len()) {
                assert_ne!(other, game);
                assert_eq!(encode(&other), Some(longer));
            }
        }
        // Out of range: nothing is stored.
        let mut game = GameAnnotations::new(1);
        game.moves[0].clock_centis = Some(MAX_CENTIS + 1);
        assert_eq!(encode(&game), None);
        assert_eq!(encode(&GameAnnotations::new(5)), None);
    }

    #[test]
    fn a_stored_code_is_never_empty() {
        let mut games = Vec::new();
        for seconds in 0..2_000 {
            let mut game = GameAnnotations::new(1);
            game.moves[0].clock_centis = Some(seconds * 100);
            games.push(game);
        }
        for cp in -2_000..2_000 {
            let mut game = GameAnnotations::new(2);
            game.moves[1].eval = Some(Eval::Centipawns(cp));
            games.push(game);
        }
        for game in games {
            let bytes = encode(&game).expect("storable");
            assert!(!bytes.is_empty());
            assert_eq!(decode(&bytes, game.moves.len()), Some(game));
        }
        assert_eq!(decode(&[], 1), None);
    }

    #[test]
    fn a_lichess_game_costs_well_under_two_bytes_a_move() {
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
        let bytes = encode(&game).expect("annotated");
        assert!(bytes.len() <= 3 * 80 / 2, "{} bytes", bytes.len());
        assert_eq!(decode(&bytes, 80), Some(game));
    }

    #[test]
    fn counting_sees_every_bit_the_code_writes() {
        let mut game = GameAnnotations::new(6);
        for (ply, m) in game.moves.iter_mut().enumerate() {
            m.eval = Some(Eval::Centipawns(ply as i32 * 37 - 80));
            m.clock_centis = Some(6_000 - ply as u32 * 100);
        }
        let mut counts: Box<Counts> = Box::new([[0; 2]; MODELS]);
        count(&game, &mut counts);
        // 5 flags less the one for the move times' unit, 6 presence bits and a value a move
        // in each column: some bits from each.
        let seen = |range: std::ops::Range<usize>| counts[range].iter().map(|c| c[0] + c[1]).sum::<u64>();
        assert_eq!(seen(FLAGS..PRESENCE), 4);
        assert_eq!(seen(PRESENCE..EVALS), 12);
        assert!(seen(EVALS..CLOCKS) >= 6 && seen(CLOCKS..ELAPSED) >= 6);
        assert_eq!(seen(ELAPSED..MANTISSA), 0);
        assert_eq!(prior(0, 0), 2048);
        assert_eq!(prior(1_000_000, 0), 31);
    }
}
