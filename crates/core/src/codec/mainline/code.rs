//! Canonical prefix codes (Huffman codes given by their lengths) over small alphabets, and the
//! bits they are written in: most significant bit first, so that mainlines sharing their first
//! moves share their first bytes and sort next to each other.

/// The longest code a table may give.
pub const MAX_LEN: usize = 15;

/// A canonical prefix code over the symbols `0..n`: symbol `s` has a code of `lengths[s]` bits,
/// codes of the same length increasing with the symbol. A one-symbol alphabet takes no bits.
#[derive(Debug)]
pub struct PrefixCode {
    /// Per symbol: its code and length.
    codes: Vec<(u16, u8)>,
    /// The symbols by (length, symbol): the order canonical codes are given in.
    sorted: Vec<u16>,
    /// Per length: the end of its codes as a [`MAX_LEN`]-bit window (its last code + 1,
    /// shifted to the window's top), and the place of its first symbol in `sorted` less its
    /// first code. A window below the end of length `l` (and none shorter) holds a code of `l`.
    ends: [(u32, i32); MAX_LEN + 1],
}

/// Bits of a [`FastTable`]'s index.
pub const FAST_BITS: usize = 8;
/// A [`FastTable`] entry's length field for a code longer than [`FAST_BITS`].
pub const LONGER: u16 = 31;

/// By the next [`FAST_BITS`] bits: the symbol and length of a code that short
/// (`symbol << 5 | length`), else [`LONGER`]. Most codes are: one load instead of a search.
/// Tables of many codes are kept side by side ([`PrefixCode::fast_table`]).
pub type FastTable = [u16; 1 << FAST_BITS];

impl PrefixCode {
    /// The code of these lengths, one per symbol; `None` unless they make a complete prefix code
    /// (Kraft's sum exactly 1) of lengths 1 to [`MAX_LEN`], or are the single length 0 of a
    /// one-symbol alphabet.
    pub fn from_lengths(lengths: &[u8]) -> Option<PrefixCode> {
        if lengths == [0] {
            return Some(PrefixCode { codes: vec![(0, 0)], sorted: vec![0], ends: [(0, 0); MAX_LEN + 1] });
        }
        if lengths.len() > usize::from(u16::MAX) || lengths.iter().any(|&l| l == 0 || usize::from(l) > MAX_LEN) {
            return None;
        }
        // Kraft's sum, in units of 2^-MAX_LEN: a complete code sums to exactly 1.
        let kraft: u64 = lengths.iter().map(|&l| 1u64 << (MAX_LEN - usize::from(l))).sum();
        if kraft != 1 << MAX_LEN {
            return None;
        }
        let mut counts = [0u16; MAX_LEN + 1];
        let mut sorted = Vec::with_capacity(lengths.len());
        for len in 1..=MAX_LEN as u8 {
            for (symbol, _) in lengths.iter().enumerate().filter(|(_, l)| **l == len) {
                sorted.push(symbol as u16);
                counts[usize::from(len)] += 1;
            }
        }
        let mut codes = vec![(0u16, 0u8); lengths.len()];
        let mut ends = [(0u32, 0i32); MAX_LEN + 1];
        let (mut code, mut at) = (0u32, 0);
        for (len, &count) in counts.iter().enumerate().skip(1) {
            ends[len].1 = at as i32 - code as i32;
            for _ in 0..count {
                codes[usize::from(sorted[at])] = (code as u16, len as u8);
                code += 1;
                at += 1;
            }
            ends[len].0 = code << (MAX_LEN - len);
            code <<= 1;
        }
        Some(PrefixCode { codes, sorted, ends })
    }

    /// Symbols of the alphabet.
    #[cfg(test)]
    fn alphabet(&self) -> usize {
        self.codes.len()
    }

    /// Writes `symbol`, which must be one of the alphabet's (below the number of lengths).
    pub fn write(&self, symbol: u16, out: &mut BitWriter) {
        let (code, len) = self.codes[usize::from(symbol)];
        out.push(u32::from(code), u32::from(len));
    }

    /// The table of this code's short codes, for [`PrefixCode::read`].
    pub fn fast_table(&self) -> FastTable {
        let mut fast = [LONGER; 1 << FAST_BITS];
        if self.codes.len() == 1 {
            // One symbol, no bits.
            fast.fill(0);
        }
        for (symbol, &(code, len)) in self.codes.iter().enumerate().filter(|(_, (_, len))| *len > 0) {
            let len = usize::from(len);
            if len <= FAST_BITS {
                let first = usize::from(code) << (FAST_BITS - len);
                fast[first..first + (1 << (FAST_BITS - len))].fill((symbol as u16) << 5 | len as u16);
            }
        }
        fast
    }

    /// Reads a symbol, `fast` being this code's [`PrefixCode::fast_table`]; `None` at the end of
    /// the bits.
    #[inline(always)]
    pub fn read(&self, fast: &FastTable, bits: &mut BitReader) -> Option<u16> {
        let window = bits.peek();
        let short = fast[(window >> (MAX_LEN - FAST_BITS)) as usize];
        if short & 31 != LONGER {
            bits.consume(u32::from(short & 31))?;
            return Some(short >> 5);
        }
        self.read_long(window, bits)
    }

    /// [`PrefixCode::read`] of a code longer than the fast table's: canonical codes of a length
    /// are consecutive, and end below the next length's, so the first length whose end is
    /// above the window's bits is the code's.
    #[cold]
    fn read_long(&self, window: u32, bits: &mut BitReader) -> Option<u16> {
        for len in FAST_BITS + 1..=MAX_LEN {
            let (end, offset) = self.ends[len];
            if window < end {
                bits.consume(len as u32)?;
                let code = (window >> (MAX_LEN - len)) as i32;
                return self.sorted.get((offset + code) as usize).copied();
            }
        }
        None
    }
}

/// Bits written most significant first into bytes; the last byte is padded with zeros.
#[derive(Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    pending: u64,
    count: u32,
}

impl BitWriter {
    /// Appends the low `len` bits of `value` (`len` at most 32).
    pub fn push(&mut self, value: u32, len: u32) {
        self.pending = (self.pending << len) | u64::from(value);
        self.count += len;
        while self.count >= 8 {
            self.count -= 8;
            self.bytes.push((self.pending >> self.count) as u8);
        }
        self.pending &= (1 << self.count) - 1;
    }

    /// The bytes, the last one padded.
    pub fn finish(mut self) -> Vec<u8> {
        if self.count > 0 {
            self.bytes.push((self.pending << (8 - self.count)) as u8);
        }
        self.bytes
    }
}

/// Reads bits most significant first, a word at a time.
#[derive(Clone)]
pub struct BitReader<'a> {
    /// The bytes not yet loaded into `buffer`.
    rest: &'a [u8],
    /// The next `count` bits, from the top; zeros below them.
    buffer: u64,
    count: u32,
}

impl<'a> BitReader<'a> {
    /// A reader of `bytes` from their first bit.
    pub fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut reader = BitReader { rest: bytes, buffer: 0, count: 0 };
        reader.refill();
        reader
    }

    /// Loads whole bytes while they fit.
    #[inline]
    fn refill(&mut self) {
        while self.count <= 56 {
            let Some((&byte, rest)) = self.rest.split_first() else { break };
            self.buffer |= u64::from(byte) << (56 - self.count);
            self.count += 8;
            self.rest = rest;
        }
    }

    /// The next bit; `None` past the last byte.
    pub fn bit(&mut self) -> Option<u32> {
        let bit = (self.buffer >> 63) as u32;
        self.consume(1)?;
        Some(bit)
    }

    /// The next [`MAX_LEN`] bits, without reading them (zeros past the last byte).
    #[inline]
    fn peek(&mut self) -> u32 {
        if self.count < MAX_LEN as u32 {
            self.refill();
        }
        (self.buffer >> (64 - MAX_LEN)) as u32
    }

    /// Reads `len` bits peeked at; `None` when fewer are left.
    #[inline]
    fn consume(&mut self, len: u32) -> Option<()> {
        if self.count < len {
            self.refill();
            if self.count < len {
                return None;
            }
        }
        self.buffer <<= len;
        self.count -= len;
        Some(())
    }

    /// The next `len` bits as a number (`len` at most 32).
    pub fn bits(&mut self, len: u32) -> Option<u32> {
        (0..len).try_fold(0u32, |value, _| Some(value << 1 | self.bit()?))
    }

    /// Whether every bit left is a zero of the last byte's padding.
    #[cfg(test)]
    fn only_padding_left(&self) -> bool {
        self.rest.is_empty() && self.count < 8 && self.buffer == 0
    }
}

/// Code lengths for `counts` (one per symbol, each at least 1): Huffman's, flattened until
/// none is longer than [`MAX_LEN`]. What the tables of [`super::tables`] were made with.
pub fn huffman_lengths(counts: &[u64]) -> Vec<u8> {
    let mut weights: Vec<u64> = counts.to_vec();
    loop {
        let lengths = unlimited_lengths(&weights);
        if lengths.iter().all(|&l| usize::from(l) <= MAX_LEN) {
            return lengths;
        }
        for weight in weights.iter_mut().filter(|w| **w > 0) {
            *weight = *weight / 2 + 1;
        }
    }
}

fn unlimited_lengths(weights: &[u64]) -> Vec<u8> {
    use std::{cmp::Reverse, collections::BinaryHeap};
    let mut lengths = vec![0u8; weights.len()];
    let used: Vec<usize> = (0..weights.len()).filter(|&s| weights[s] > 0).collect();
    if used.len() < 2 {
        return lengths;
    }
    // Nodes: leaves first, then internal ones; each internal node remembers its parent.
    let mut parent = vec![usize::MAX; used.len() * 2];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        used.iter().enumerate().map(|(node, &s)| Reverse((weights[s], node))).collect();
    let mut next = used.len();
    while heap.len() > 1 {
        let (Some(Reverse((a, x))), Some(Reverse((b, y)))) = (heap.pop(), heap.pop()) else { break };
        parent[x] = next;
        parent[y] = next;
        heap.push(Reverse((a + b, next)));
        next += 1;
    }
    for (node, &symbol) in used.iter().enumerate() {
        let (mut depth, mut at) = (0u8, node);
        while parent[at] != usize::MAX {
            depth += 1;
            at = parent[at];
        }
        lengths[symbol] = depth;
    }
    lengths
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn huffman_lengths_make_codes_that_round_trip(
            counts in proptest::collection::vec(1u64..1_000_000, 1..40),
            message in proptest::collection::vec(any::<u16>(), 0..200),
        ) {
            let lengths = huffman_lengths(&counts);
            let code = PrefixCode::from_lengths(&lengths).expect("a complete code");
            let symbols: Vec<u16> = message.iter().map(|m| m % counts.len() as u16).collect();
            let mut out = BitWriter::default();
            for &s in &symbols {
                code.write(s, &mut out);
            }
            let bytes = out.finish();
            let mut reader = BitReader::new(&bytes);
            let fast = code.fast_table();
            for &s in &symbols {
                prop_assert_eq!(code.read(&fast, &mut reader), Some(s));
            }
            prop_assert!(reader.only_padding_left());
        }

        #[test]
        fn lengths_that_are_no_complete_code_are_refused(lengths in proptest::collection::vec(0u8..20, 1..12)) {
            if let Some(code) = PrefixCode::from_lengths(&lengths) {
                // Whatever is accepted reads any bits without a panic.
                let mut reader = BitReader::new(&[0xa5, 0x3c, 0xff]);
                let fast = code.fast_table();
                for _ in 0..24 {
                    if let Some(symbol) = code.read(&fast, &mut reader) {
                        prop_assert!(usize::from(symbol) < code.alphabet());
                    }
                }
            }
        }
    }

    #[test]
    fn codes_are_canonical_and_lengths_bounded() {
        let code = PrefixCode::from_lengths(&[2, 1, 3, 3]).unwrap();
        let mut out = BitWriter::default();
        for s in [1, 0, 2, 3] {
            code.write(s, &mut out);
        }
        // 1 → 0, 0 → 10, 2 → 110, 3 → 111.
        assert_eq!(out.finish(), vec![0b0101_1011, 0b1000_0000]);
        assert!(PrefixCode::from_lengths(&[1, 1, 1]).is_none());
        assert!(PrefixCode::from_lengths(&[2, 2, 2]).is_none());
        let skewed: Vec<u64> = (0..40).map(|i| 1u64 << i).collect();
        assert!(huffman_lengths(&skewed).iter().all(|&l| (1..=MAX_LEN as u8).contains(&l)));
        assert_eq!(huffman_lengths(&[7]), vec![0]);
        assert!(PrefixCode::from_lengths(&[0]).is_some_and(|code| code.alphabet() == 1));
    }
}
