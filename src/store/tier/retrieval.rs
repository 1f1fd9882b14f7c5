//! A static function (a *retrieval* structure): each key of a set maps to a value of `width`
//! bits, in about 1.23 · `width` bits a key, and the keys themselves are not stored. Asked for a
//! key outside the set it answers some value: the tier checks every answer by a replay.
//!
//! Built by peeling a random 3-partite hypergraph (Botelho, Pagh and Ziviani; Belazzougui et
//! al., "Cache-oblivious peeling of random hypergraphs", DCC 2014), as xor filters are: each key
//! names one cell in each third of a table of cells, and the cells are filled so that the three
//! cells of a key XOR to its value. A table of 1.23 cells a key peels with high probability; a
//! seed that does not peel is replaced by the next, and small sets get more room as seeds fail.
//! The cells' hash is xxh3 of the key's bytes, so a stored function reads the same everywhere.

use serde::{Deserialize, Serialize};
use vers_vecs::BitVec;

use super::TierError;
use crate::codec::Key;

/// Seeds a build tries before it gives up (a set of distinct keys peels at the first seed or
/// the second with near certainty; the later ones have more room).
const SEEDS: u32 = 64;

/// A function from a set of keys to `width`-bit values ([`Retrieval::build`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct Retrieval {
    /// The seed of the cells' hash that peeled.
    seed: u32,
    /// Cells in each third of the table (0: the empty function, which answers 0).
    third: u64,
    /// Bits of each value.
    width: u32,
    /// The `3 · third` cells, `width` bits each.
    cells: BitVec,
}

/// The three cells of `key` for `seed`, one in each third of `3 · third` cells.
fn cells_of(key: &Key, seed: u32, third: u64) -> [usize; 3] {
    let hash = xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), u64::from(seed));
    // Each third takes other bits of the hash, mapped onto the third by a multiply-shift.
    let reduce = |bits: u64| ((u128::from(bits) * u128::from(third)) >> 64) as u64;
    [reduce(hash), third + reduce(hash.rotate_left(21)), 2 * third + reduce(hash.rotate_left(42))]
        .map(|cell| cell as usize)
}

impl Retrieval {
    /// The bytes its cells take in memory.
    pub fn heap_size(&self) -> usize {
        self.cells.heap_size()
    }

    /// The function mapping each of `keys` (distinct) to the value at the same place in `values`
    /// (each below 2^`width`, `width` at most 64).
    pub fn build(keys: &[Key], values: &[u64], width: u32) -> Result<Retrieval, TierError> {
        let internal = |what: String| Err(TierError::Internal(what));
        if keys.len() != values.len() || width > u64::BITS {
            return internal(format!("{} keys, {} values of {width} bits", keys.len(), values.len()));
        }
        if width < u64::BITS && values.iter().any(|value| value >> width != 0) {
            return internal(format!("a value wider than {width} bits"));
        }
        if keys.is_empty() || width == 0 {
            return Ok(Retrieval { seed: 0, third: 0, width, cells: BitVec::new() });
        }
        // The peeling counts keys and cells in 32 bits (a commit range holds far fewer).
        if keys.len() > (u32::MAX / 2) as usize {
            return Err(TierError::Capacity(format!("a static function of {} keys", keys.len())));
        }
        for seed in 0..SEEDS {
            // 1.23 cells a key, and 5 % more for every 8 seeds that failed (tiny sets need it).
            let room = 123 + 6 * u64::from(seed / 8);
            let third = (keys.len() as u64 * room).div_ceil(300) + 1;
            if let Some(cells) = peel(keys, values, seed, third) {
                let cells = BitVec::pack_from_iter_u64(cells, width as usize);
                return Ok(Retrieval { seed, third, width, cells });
            }
        }
        internal(format!("no static function for {} keys after {SEEDS} seeds (keys repeated?)", keys.len()))
    }

    /// The value of `key`: its value if it was one of the keys built, some value otherwise.
    pub fn get(&self, key: &Key) -> u64 {
        if self.third == 0 {
            return 0;
        }
        let width = self.width as usize;
        cells_of(key, self.seed, self.third)
            .into_iter()
            .map(|cell| self.cells.unpack_element(cell, width).unwrap_or(0))
            .fold(0, |value, cell| value ^ cell)
    }

    /// Bits of each value.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Whether the parts read back agree with each other (their sizes): what a reader checks
    /// before it answers from stored bytes.
    pub fn is_consistent(&self) -> bool {
        let cells = self.third.checked_mul(3).and_then(|cells| cells.checked_mul(u64::from(self.width)));
        self.width <= u64::BITS
            && cells.is_some_and(|bits| bits == self.cells.len() as u64)
            && self.cells.heap_size() >= self.cells.len().div_ceil(64) * 8
            && (self.third == 0 || self.width > 0)
    }
}

/// The cells (one value each) that give each key its value with `seed` and `third` cells a
/// third; `None` when the hypergraph does not peel.
fn peel(keys: &[Key], values: &[u64], seed: u32, third: u64) -> Option<Vec<u64>> {
    let cells = usize::try_from(third.checked_mul(3)?).ok().filter(|&cells| cells <= u32::MAX as usize)?;
    // Indices in 32 bits, and each cell's count and XOR side by side: the peeling's time is
    // its random accesses to these tables.
    let edges: Vec<[u32; 3]> = keys.iter().map(|key| cells_of(key, seed, third).map(|cell| cell as u32)).collect();
    // Per cell, its keys not yet peeled: how many, and their indices XORed together (the one
    // index left when the count is one).
    let mut state = vec![(0u32, 0u32); cells];
    for (edge, cells) in edges.iter().enumerate() {
        for &cell in cells {
            let (count, xor) = &mut state[cell as usize];
            *count += 1;
            *xor ^= edge as u32;
        }
    }
    let mut ready: Vec<u32> = (0..cells as u32).filter(|&cell| state[cell as usize].0 == 1).collect();
    // Keys in the order they were peeled, each with the cell it alone held then.
    let mut order: Vec<(u32, u32)> = Vec::with_capacity(keys.len());
    while let Some(cell) = ready.pop() {
        let (count, edge) = state[cell as usize];
        if count != 1 {
            continue;
        }
        order.push((edge, cell));
        for &other in &edges[edge as usize] {
            let (count, xor) = &mut state[other as usize];
            *count -= 1;
            *xor ^= edge;
            if *count == 1 {
                ready.push(other);
            }
        }
    }
    if order.len() != keys.len() {
        return None;
    }
    // In reverse: a key's own cell is set last among its three, when the other two are final.
    let mut table = vec![0u64; cells];
    for &(edge, own) in order.iter().rev() {
        let [a, b, c] = edges[edge as usize].map(|cell| table[cell as usize]);
        table[own as usize] = values[edge as usize] ^ a ^ b ^ c;
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn keys(seeds: &[u64]) -> Vec<Key> {
        seeds
            .iter()
            .map(|&seed| {
                let mut bytes = [0u8; crate::codec::KEY_LEN];
                bytes[13..].copy_from_slice(&seed.to_be_bytes());
                Key::from_bytes(bytes)
            })
            .collect()
    }

    fn round_trip(function: &Retrieval) -> Retrieval {
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(function, config).expect("encoded");
        bincode::serde::decode_from_slice(&bytes, config).expect("decoded").0
    }

    proptest! {
        /// Every key gets its value back, before and after the bytes round trip, at every width
        /// and for sets of every size from one key up.
        #[test]
        fn every_key_gets_its_value(
            seeds in prop::collection::btree_set(any::<u64>(), 1..600),
            width in 1u32..=64,
            salt in any::<u64>(),
        ) {
            let seeds: Vec<u64> = seeds.into_iter().collect();
            let keys = keys(&seeds);
            let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
            let values: Vec<u64> = seeds.iter().map(|seed| (seed ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15) & mask).collect();
            let function = Retrieval::build(&keys, &values, width).expect("built");
            prop_assert!(function.is_consistent());
            let read = round_trip(&function);
            prop_assert!(read.is_consistent());
            for (key, value) in keys.iter().zip(&values) {
                prop_assert_eq!(function.get(key), *value);
                prop_assert_eq!(read.get(key), *value);
            }
        }
    }

    #[test]
    fn a_large_set_takes_about_one_and_a_quarter_bits_a_value_bit() {
        let seeds: Vec<u64> = (0..200_000u64).map(|i| i.wrapping_mul(0x2545_f491_4f6c_dd1d)).collect();
        let keys = keys(&seeds);
        let values: Vec<u64> = seeds.iter().map(|seed| seed % 61).collect();
        let function = Retrieval::build(&keys, &values, 6).expect("built");
        assert!(keys.iter().zip(&values).all(|(key, value)| function.get(key) == *value));
        let bits_a_key = function.cells.len() as f64 / keys.len() as f64;
        assert!((7.3..7.5).contains(&bits_a_key), "{bits_a_key} bits a key for 6-bit values");
    }

    #[test]
    fn empty_and_zero_width_functions_answer_zero() {
        let keys = keys(&[1, 2, 3]);
        for function in [Retrieval::build(&[], &[], 5), Retrieval::build(&keys, &[0, 0, 0], 0)] {
            let function = function.expect("built");
            assert!(function.is_consistent());
            assert!(keys.iter().all(|key| function.get(key) == 0));
        }
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let keys = keys(&[1, 2, 3]);
        assert!(Retrieval::build(&keys, &[1, 2], 4).is_err());
        assert!(Retrieval::build(&keys, &[1, 2, 16], 4).is_err());
        assert!(Retrieval::build(&keys, &[1, 2, 3], 65).is_err());
        // The same key twice with two values cannot peel.
        let twice = [keys[0], keys[0]];
        assert!(Retrieval::build(&twice, &[1, 2], 4).is_err());
    }

    #[test]
    fn parts_that_disagree_are_found() {
        let keys = keys(&[1, 2, 3, 4]);
        let mut function = Retrieval::build(&keys, &[1, 2, 3, 4], 3).expect("built");
        function.third += 1;
        assert!(!function.is_consistent());
    }
}
