//! The Leapfrog run-length byte code for sparse bitmaps (from the Leapfrog tablebase
//! generator, where it packs lists of lost positions).
//!
//! A bitmap is a sorted set of positions; a *run* is the number of zero bits before the next
//! one bit, counted from a cursor (initially `start`: 0 in the original code; a posting list starts at
//! its first id). Each byte codes zero, one or two positions:
//!
//! * `0..=189`: two positions whose runs `r1`, `r2` total at most 18, as
//!   `s(s+1)/2 + r1` with `s = r1 + r2` (0 = `0+0`, 1 = `0+1`, 2 = `1+0`, ..., 189 = `18+0`);
//! * `190`: 64 zero bits (a spacer, for runs beyond 64);
//! * `191..=255`: one position with run `code − 191` (0..=64). A run `r ≤ 18` also implies the
//!   `19 − r` zero bits after the position that made a pair code impossible (the encoder uses a
//!   pair whenever it can), so the next run starts after them.

/// Pair codes: for each code below 190, its two runs.
const PAIRS: [(u8, u8); 190] = {
    let mut table = [(0u8, 0u8); 190];
    let mut sum = 0;
    let mut code = 0;
    while sum <= 18 {
        let mut first = 0;
        while first <= sum {
            table[code] = (first as u8, (sum - first) as u8);
            code += 1;
            first += 1;
        }
        sum += 1;
    }
    table
};

const SPACER: u8 = 190;
const SINGLE: u8 = 191;
/// The longest run a pair can hold in total.
const PAIR_RUNS: u64 = 18;
/// The longest run a single code holds.
const SINGLE_RUN: u64 = 64;

/// Appends the code of `positions` (strictly increasing, none below `start`) to `out`.
pub fn encode<T: Copy + Into<u64>>(positions: &[T], start: u64, out: &mut Vec<u8>) {
    let at = |i: usize| positions.get(i).map(|&p| p.into());
    let mut cursor = start;
    let mut i = 0;
    while let Some(position) = at(i) {
        let mut run = position - cursor;
        while run > SINGLE_RUN {
            out.push(SPACER);
            run -= 64;
        }
        if let Some(next) = at(i + 1) {
            let second = next - position - 1;
            if run + second <= PAIR_RUNS {
                let sum = run + second;
                out.push((sum * (sum + 1) / 2 + run) as u8);
                cursor = next + 1;
                i += 2;
                continue;
            }
        }
        out.push(SINGLE + run as u8);
        cursor = position + 1 + implied_zeros(run);
        i += 1;
    }
}

/// The zeros a single code of run `run` implies after its position.
#[inline]
fn implied_zeros(run: u64) -> u64 {
    if run <= PAIR_RUNS { PAIR_RUNS + 1 - run } else { 0 }
}

/// The encoded size of `positions` from `start`, without encoding them.
pub fn encoded_len<T: Copy + Into<u64>>(positions: &[T], start: u64) -> usize {
    let at = |i: usize| positions.get(i).map(|&p| p.into());
    let mut len = 0;
    let mut cursor = start;
    let mut i = 0;
    while let Some(position) = at(i) {
        let mut run = position - cursor;
        if run > SINGLE_RUN {
            let spacers = (run - 1) / 64;
            len += spacers as usize;
            run -= spacers * 64;
        }
        if let Some(next) = at(i + 1)
            && run + (next - position - 1) <= PAIR_RUNS
        {
            len += 1;
            cursor = next + 1;
            i += 2;
            continue;
        }
        len += 1;
        cursor = position + 1 + implied_zeros(run);
        i += 1;
    }
    len
}

/// Streams the positions of a code. Stops (with [`Decoder::failed`] set) at a position beyond
/// `u64`, which only corrupt bytes produce.
#[derive(Clone, Debug)]
pub struct Decoder<'a> {
    bytes: std::slice::Iter<'a, u8>,
    cursor: u64,
    /// The second position of a pair, not yet returned.
    pending: Option<u64>,
    failed: bool,
}

impl<'a> Decoder<'a> {
    /// Decodes `bytes`, bit positions counted from `start`.
    pub fn new(bytes: &'a [u8], start: u64) -> Decoder<'a> {
        Decoder { bytes: bytes.iter(), cursor: start, pending: None, failed: false }
    }

    /// Whether the code turned out malformed (decoding stopped early).
    pub fn failed(&self) -> bool {
        self.failed
    }
}

impl Iterator for Decoder<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if let Some(position) = self.pending.take() {
            return Some(position);
        }
        loop {
            let &code = self.bytes.next()?;
            let step = match code {
                SPACER => {
                    self.cursor = self.cursor.checked_add(64).or_else(|| self.fail())?;
                    continue;
                }
                SINGLE.. => {
                    let run = u64::from(code - SINGLE);
                    let position = self.cursor.checked_add(run).or_else(|| self.fail())?;
                    (position, position.checked_add(1 + implied_zeros(run)).or_else(|| self.fail())?, None)
                }
                _ => {
                    let (first, second) = PAIRS[usize::from(code)];
                    let position = self.cursor.checked_add(u64::from(first)).or_else(|| self.fail())?;
                    let next = position.checked_add(1 + u64::from(second)).or_else(|| self.fail())?;
                    (position, next.checked_add(1).or_else(|| self.fail())?, Some(next))
                }
            };
            self.cursor = step.1;
            self.pending = step.2;
            return Some(step.0);
        }
    }
}

impl Decoder<'_> {
    #[cold]
    fn fail(&mut self) -> Option<u64> {
        self.failed = true;
        self.bytes = [].iter();
        None
    }
}

/// Decodes a whole code from `start` into `out` (the fast path of full decoding: a table
/// lookup per byte).
pub fn decode_into(bytes: &[u8], start: u64, out: &mut Vec<u64>) -> Option<()> {
    out.reserve(bytes.len() * 2);
    let mut cursor = start;
    for &code in bytes {
        if code < SPACER {
            let (first, second) = PAIRS[usize::from(code)];
            let position = cursor.checked_add(u64::from(first))?;
            let next = position.checked_add(1 + u64::from(second))?;
            out.push(position);
            out.push(next);
            cursor = next.checked_add(1)?;
        } else if code == SPACER {
            cursor = cursor.checked_add(64)?;
        } else {
            let run = u64::from(code - SINGLE);
            let position = cursor.checked_add(run)?;
            out.push(position);
            cursor = position.checked_add(1 + implied_zeros(run))?;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(positions: &[u64]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode(positions, 0, &mut bytes);
        assert_eq!(encoded_len(positions, 0), bytes.len(), "{positions:?}");
        assert_eq!(Decoder::new(&bytes, 0).collect::<Vec<_>>(), positions);
        let mut all = Vec::new();
        decode_into(&bytes, 0, &mut all).expect("decodes");
        assert_eq!(all, positions);
        // From a start: the same code as the shifted positions.
        let shifted: Vec<u64> = positions.iter().map(|p| p + 1000).collect();
        let mut from_start = Vec::new();
        encode(&shifted, 1000, &mut from_start);
        assert_eq!(from_start, bytes);
        assert_eq!(Decoder::new(&bytes, 1000).collect::<Vec<_>>(), shifted);
        bytes
    }

    #[test]
    fn the_codes_documented_examples() {
        // 0+0: two immediate ones; 0+1 is 101; 1+0 is 011; 18+0 is 18 zeros then 11.
        assert_eq!(round_trip(&[0, 1]), [0]);
        assert_eq!(round_trip(&[0, 2]), [1]);
        assert_eq!(round_trip(&[1, 2]), [2]);
        assert_eq!(round_trip(&[18, 19]), [189]);
        // 0+18 is the first pair of sum 18.
        assert_eq!(round_trip(&[0, 19]), [171]);
        // A single at run 2 implies 17 zeros after it: the next run counts from there.
        assert_eq!(round_trip(&[2, 22]), [193, 193]);
        assert_eq!(round_trip(&[2, 23]), [193, 194]);
        assert_eq!(round_trip(&[64]), [255]);
        assert_eq!(round_trip(&[65]), [190, 192]);
        assert_eq!(round_trip(&[128]), [190, 255]);
        assert_eq!(round_trip(&[]), [] as [u8; 0]);
    }

    #[test]
    fn every_boundary_of_the_code() {
        // Pair sums of 18 and 19, single runs of 18, 19, 64 and 65, spacers, long gaps.
        for first in 0..=70u64 {
            for gap in 1..=70u64 {
                round_trip(&[first, first + gap]);
                round_trip(&[first, first + gap, first + gap + 1]);
                round_trip(&[first, first + gap, first + 2 * gap + 200]);
            }
        }
        let bytes = round_trip(&[0, 1, 2, 3, 4, 5, 100_000, 100_019, 100_038]);
        assert_eq!(bytes.len(), 3 + (100_000 - 25) / 64 + 1 + 2);
    }

    #[test]
    fn corrupt_bytes_never_panic() {
        // Every byte string decodes to a strictly increasing sequence (a cursor beyond u64,
        // which would take 2^58 spacers, stops the decoder instead).
        let mut bytes = vec![SPACER; 8];
        bytes.push(SINGLE);
        assert_eq!(Decoder::new(&bytes, 0).collect::<Vec<_>>(), [512]);
        for code in 0..=255u8 {
            let bytes = [code, code, SPACER, code];
            let streamed: Vec<_> = Decoder::new(&bytes, 0).collect();
            let mut all = Vec::new();
            decode_into(&bytes, 0, &mut all).expect("small cursors");
            assert_eq!(streamed, all);
            assert!(streamed.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
