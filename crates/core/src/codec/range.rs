//! A binary arithmetic coder with adaptive probabilities: the entropy coder of the stored
//! annotations ([`annotations`](super::annotations)), where short streams of small numbers
//! must cost no more than their model says, whole bytes included.
//!
//! The construction is the carry-less one of the PAQ compressors: a 32-bit interval
//! `[low, high]` split at the probability of a one, its settled top bytes written as soon as
//! `low` and `high` agree on them. The stream ends with at most one byte, and trailing zero
//! bytes are dropped: the decoder reads zeros past the end. A stream is the shortest whose
//! value falls in the final interval, so every sequence of bits has one stream.
//!
//! One description of the bits serves both directions ([`BitCoder`]): the encoder codes the
//! bit it is given and returns it, the decoder ignores it and returns the bit it reads.
//!
//! ```
//! use tabiya_core::codec::range::{BitCoder, Decoder, Encoder, Probability};
//!
//! let bits = [true, true, false, true, true, true, true, false, true, true];
//! let mut encoder = Encoder::default();
//! let mut model = Probability::default();
//! for &bit in &bits {
//!     encoder.bit(&mut model, bit);
//! }
//! let stream = encoder.finish();
//! assert!(stream.len() <= 2);
//!
//! let mut decoder = Decoder::new(&stream);
//! let mut model = Probability::default();
//! let read: Vec<bool> = bits.iter().map(|_| decoder.bit(&mut model, false)).collect();
//! assert_eq!(read, bits);
//! ```

/// The scale of a [`Probability`]: 12 bits.
pub const ONE: u16 = 1 << 12;
/// How fast a probability follows the bits: a 32nd of the way each bit.
const RATE: u32 = 5;

/// An adaptive probability that the next bit is a one, in [`ONE`]ths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probability(u16);

impl Default for Probability {
    /// Even odds.
    fn default() -> Probability {
        Probability(ONE / 2)
    }
}

impl Probability {
    /// A probability of `ones` in [`ONE`]ths, kept within `1..ONE`: no bit is ever impossible.
    pub const fn new(ones: u16) -> Probability {
        Probability(if ones == 0 {
            1
        } else if ones >= ONE {
            ONE - 1
        } else {
            ones
        })
    }

    /// The probability of a one, in [`ONE`]ths.
    pub fn ones(self) -> u16 {
        self.0
    }

    /// Moves toward the bit seen. Stays within `1..ONE`: a 32nd of what is left is 0 before it
    /// would reach either end.
    fn update(&mut self, bit: bool) {
        // Toward ONE on a one, toward 0 on a zero, chosen without a branch.
        let p = u32::from(self.0);
        let one = u32::from(bit).wrapping_neg();
        self.0 = (p + (((u32::from(ONE) - p) >> RATE) & one) - ((p >> RATE) & !one)) as u16;
    }
}

/// Codes bits: given a bit, an encoder writes it and returns it; a decoder returns the bit it
/// reads instead. So a code is written once, as the bits it proposes and the bits it gets back.
pub trait BitCoder {
    /// Codes a bit under an adaptive probability, then adapts it.
    fn bit(&mut self, probability: &mut Probability, bit: bool) -> bool;
    /// Codes a bit at even odds.
    fn even(&mut self, bit: bool) -> bool;
}

/// Where the interval splits: `low` plus the share of a one, at least `low`, below `high`
/// whenever `high > low`.
fn split(low: u32, high: u32, ones: u16) -> u32 {
    low + ((u64::from(high - low) * u64::from(ones)) >> 12) as u32
}

/// The interval after `bit`: a one keeps `[low, middle]`, a zero `(middle, high]`. Without a
/// branch: the bits of a number's low end are at even odds, a branch on them guessed wrong half
/// the time. `middle` is below `high` (as [`split`] gives it), so `middle + 1` never wraps.
fn narrowed(low: u32, high: u32, middle: u32, bit: bool) -> (u32, u32) {
    let one = u32::from(bit).wrapping_neg();
    ((low & one) | ((middle + 1) & !one), (middle & one) | (high & !one))
}

/// Writes a stream of bits.
#[derive(Debug)]
pub struct Encoder {
    low: u32,
    high: u32,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder { low: 0, high: u32::MAX, out: Vec::new() }
    }
}

impl Encoder {
    fn code(&mut self, ones: u16, bit: bool) -> bool {
        let middle = split(self.low, self.high, ones);
        (self.low, self.high) = narrowed(self.low, self.high, middle, bit);
        // The top byte is settled once both ends share it.
        while (self.low ^ self.high) < 1 << 24 {
            self.out.push((self.high >> 24) as u8);
            self.low <<= 8;
            self.high = (self.high << 8) | 0xff;
        }
        bit
    }

    /// The stream: the bytes written, then the shortest end whose value, read with zeros after
    /// it, falls within the interval; trailing zeros dropped.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.push(end_byte(self.low));
        while self.out.last() == Some(&0) {
            self.out.pop();
        }
        self.out
    }
}

impl BitCoder for Encoder {
    fn bit(&mut self, probability: &mut Probability, bit: bool) -> bool {
        self.code(probability.ones(), bit);
        probability.update(bit);
        bit
    }

    fn even(&mut self, bit: bool) -> bool {
        self.code(ONE / 2, bit)
    }
}

/// Reads a stream of bits; past its end it reads zeros.
#[derive(Debug)]
pub struct Decoder<'a> {
    low: u32,
    high: u32,
    value: u32,
    input: &'a [u8],
    /// Bytes taken into `value`, those past the end included.
    taken: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `input`.
    pub fn new(input: &'a [u8]) -> Decoder<'a> {
        let mut decoder = Decoder { low: 0, high: u32::MAX, value: 0, input, taken: 0 };
        for _ in 0..4 {
            decoder.value = (decoder.value << 8) | u32::from(decoder.next_byte());
        }
        decoder
    }

    fn next_byte(&mut self) -> u8 {
        let byte = self.input.get(self.taken).copied().unwrap_or(0);
        self.taken += 1;
        byte
    }

    fn code(&mut self, ones: u16) -> bool {
        let middle = split(self.low, self.high, ones);
        let bit = self.value <= middle;
        (self.low, self.high) = narrowed(self.low, self.high, middle, bit);
        while (self.low ^ self.high) < 1 << 24 {
            self.low <<= 8;
            self.high = (self.high << 8) | 0xff;
            self.value = (self.value << 8) | u32::from(self.next_byte());
        }
        bit
    }

    /// Whether the input is exactly the stream an [`Encoder`] writes for the bits read so far:
    /// no byte more, none less. The bytes an encoder settled are those the decoder shifted out
    /// of its value (the value stays within the interval), so only the end needs checking.
    pub fn is_whole_stream(&self) -> bool {
        let settled = self.taken - 4;
        match end_byte(self.low) {
            0 => self.input.len() <= settled && self.input.last() != Some(&0),
            end => self.input.len() == settled + 1 && self.input[settled] == end,
        }
    }
}

/// The least top byte at or above `low`: `low` and `high` differ in their top byte, so it is at
/// most `high`'s; 0 only when `low` is.
fn end_byte(low: u32) -> u8 {
    ((low >> 24) + u32::from(low & 0x00ff_ffff != 0)) as u8
}

impl BitCoder for Decoder<'_> {
    fn bit(&mut self, probability: &mut Probability, _: bool) -> bool {
        let bit = self.code(probability.ones());
        probability.update(bit);
        bit
    }

    fn even(&mut self, _: bool) -> bool {
        self.code(ONE / 2)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Bits with the probability each is coded under (`None`: even odds, not adapted).
    fn round_trip(bits: &[(bool, Option<u16>)]) -> Vec<u8> {
        let mut encoder = Encoder::default();
        for &(bit, ones) in bits {
            match ones {
                Some(ones) => encoder.bit(&mut Probability::new(ones), bit),
                None => encoder.even(bit),
            };
        }
        let stream = encoder.finish();
        let mut decoder = Decoder::new(&stream);
        for (at, &(bit, ones)) in bits.iter().enumerate() {
            let read = match ones {
                Some(ones) => decoder.bit(&mut Probability::new(ones), !bit),
                None => decoder.even(!bit),
            };
            assert_eq!(read, bit, "bit {at} of {bits:?}");
        }
        assert!(decoder.is_whole_stream(), "{stream:?}");
        stream
    }

    /// Whether `input` read as `bits` is the whole stream of them.
    fn is_whole(input: &[u8], bits: &[(bool, Option<u16>)]) -> bool {
        let mut decoder = Decoder::new(input);
        for &(bit, ones) in bits {
            let read = match ones {
                Some(ones) => decoder.bit(&mut Probability::new(ones), bit),
                None => decoder.even(bit),
            };
            if read != bit {
                return false;
            }
        }
        decoder.is_whole_stream()
    }

    proptest! {
        #[test]
        fn decodes_what_it_encodes(bits in proptest::collection::vec((any::<bool>(), proptest::option::of(0u16..=ONE)), 0..400)) {
            let stream = round_trip(&bits);
            prop_assert_ne!(stream.last(), Some(&0));
            // No other stream is whole for the same bits: one byte more, one less, a trailing
            // zero, one byte changed.
            for longer in [0u8, 1, 0xff] {
                prop_assert!(!is_whole(&[stream.as_slice(), &[longer]].concat(), &bits));
            }
            if let Some((_, shorter)) = stream.split_last() {
                prop_assert!(!is_whole(shorter, &bits));
            }
            for at in 0..stream.len() {
                for flip in [1u8, 0x80] {
                    let mut other = stream.clone();
                    other[at] ^= flip;
                    prop_assert!(!is_whole(&other, &bits));
                }
            }
        }

        #[test]
        fn skewed_bits_cost_what_their_probability_says(ones in 1u16..ONE, count in 200usize..2000, seed in any::<u64>()) {
            // Bits drawn at the probability they are coded under: the stream is within a few
            // bytes of their information.
            let mut state = seed | 1;
            let bits: Vec<(bool, Option<u16>)> = (0..count)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (((state >> 20) % u64::from(ONE)) < u64::from(ones), Some(ones))
                })
                .collect();
            let p = f64::from(ones) / f64::from(ONE);
            let information: f64 = bits.iter().map(|&(bit, _)| -(if bit { p } else { 1.0 - p }).log2()).sum();
            let stream = round_trip(&bits);
            prop_assert!((stream.len() as f64) <= information / 8.0 * 1.01 + 4.0, "{} bytes for {information} bits", stream.len());
        }
    }

    #[test]
    fn exhaustive_short_sequences_round_trip_at_every_probability() {
        for ones in [1, 2, 7, 100, 2048, 3000, 4094, 4095] {
            for length in 0..=12 {
                for pattern in 0u32..1 << length {
                    let bits: Vec<_> = (0..length).map(|i| (pattern >> i & 1 == 1, Some(ones))).collect();
                    round_trip(&bits);
                }
            }
        }
    }

    #[test]
    fn a_probability_adapts_and_never_reaches_either_end() {
        let mut p = Probability::default();
        for _ in 0..10_000 {
            p.update(true);
        }
        assert_eq!(p.ones(), ONE - 31);
        for _ in 0..10_000 {
            p.update(false);
        }
        assert_eq!(p.ones(), 31);
        assert_eq!(Probability::new(0).ones(), 1);
        assert_eq!(Probability::new(ONE).ones(), ONE - 1);
    }

    #[test]
    fn nearly_certain_bits_cost_at_most_a_byte() {
        assert!(Encoder::default().finish().is_empty());
        assert_eq!(round_trip(&[(true, Some(ONE - 1)); 8]), []);
        assert_eq!(round_trip(&[(false, Some(1)); 8]).len(), 1);
    }
}
