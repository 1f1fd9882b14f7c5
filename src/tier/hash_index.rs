//! The tier's hash index: which games hold a tier position whose key has a given hash.

use sucds::{
    Serializable,
    int_vectors::{Access, CompactVector},
    mii_sequences::{EliasFano, EliasFanoBuilder},
};

use super::{HASH_BITS, TierError};
use crate::model::GameId;

/// (hash, game) pairs sorted by hash: the hashes as an Elias–Fano sequence (about 2 + log2 of
/// 2^[`HASH_BITS`] / n bits each), the games as fixed-width ids in the same order.
pub struct HashIndex {
    hashes: EliasFano,
    games: CompactVector,
}

impl HashIndex {
    /// The index of `entries` (hashes below 2^[`HASH_BITS`], games from 1; any order).
    pub fn build(mut entries: Vec<(u64, GameId)>) -> Result<HashIndex, TierError> {
        entries.sort_unstable();
        let universe = 1u64 << HASH_BITS;
        if let Some(&(hash, _)) = entries.last().filter(|(hash, _)| *hash >= universe) {
            return Err(TierError::Input(format!("hash {hash} of more than {HASH_BITS} bits")));
        }
        let highest = entries.iter().map(|(_, game)| game.0).max().unwrap_or(0);
        let width = (u64::BITS - highest.leading_zeros()).max(1) as usize;
        // The builder wants at least one value: an empty index holds one unused zero.
        let mut hashes = EliasFanoBuilder::new(universe, entries.len().max(1)).map_err(TierError::corrupt)?;
        let mut games = CompactVector::with_capacity(entries.len(), width).map_err(TierError::corrupt)?;
        for &(hash, game) in &entries {
            hashes.push(hash).map_err(TierError::corrupt)?;
            games.push_int(game.0).map_err(TierError::corrupt)?;
        }
        if entries.is_empty() {
            hashes.push(0).map_err(TierError::corrupt)?;
        }
        Ok(HashIndex { hashes: hashes.build().enable_rank(), games })
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.games.len() == 0
    }

    /// The games holding a tier position whose key hashes to `hash`, ascending (a game may be
    /// listed once per such position).
    pub fn candidates(&self, hash: u64) -> impl Iterator<Item = GameId> + '_ {
        let first = self.hashes.rank(hash).unwrap_or(self.len());
        (first..self.len())
            .take_while(move |&at| self.hashes.select(at) == Some(hash))
            .filter_map(|at| self.games.access(at).map(GameId))
    }

    /// Every (hash, game) pair, by hash.
    pub fn entries(&self) -> impl Iterator<Item = (u64, GameId)> + '_ {
        self.hashes.iter(0).zip(self.games.iter()).take(self.len()).map(|(hash, id)| (hash, GameId(id)))
    }

    /// Bytes of the hashes and of the game ids, as [`HashIndex::write`] writes them.
    pub fn bytes(&self) -> (usize, usize) {
        (self.hashes.size_in_bytes(), self.games.size_in_bytes())
    }

    /// Appends the index's bytes to `out` (a checked section, see [`super::write_parts`]).
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), TierError> {
        super::write_parts(&self.hashes, &self.games, out)
    }

    /// Reads an index [`HashIndex::write`] wrote, from the front of `input`, checking it.
    pub fn read(input: &mut &[u8]) -> Result<HashIndex, TierError> {
        let (hashes, games): (EliasFano, CompactVector) = super::read_parts(input)?;
        let consistent = hashes.len() == games.len().max(1) && hashes.universe() == 1 << HASH_BITS;
        if !consistent {
            return Err(TierError::Corrupt("hash and game counts differ".to_owned()));
        }
        Ok(HashIndex { hashes: hashes.enable_rank(), games })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn naive(entries: &[(u64, GameId)], hash: u64) -> Vec<GameId> {
        let mut found: Vec<GameId> = entries.iter().filter(|(h, _)| *h == hash).map(|(_, game)| *game).collect();
        found.sort_unstable();
        found
    }

    proptest! {
        /// Candidates are exactly the games filed under a hash, before and after the bytes
        /// round trip; hashes are drawn from a small range so that they collide.
        #[test]
        fn candidates_are_the_games_of_a_hash(
            entries in prop::collection::vec((0u64..64, 1u64..5000), 0..300),
            probes in prop::collection::vec(0u64..70, 1..40),
        ) {
            let entries: Vec<(u64, GameId)> = entries.into_iter().map(|(h, g)| (h << (HASH_BITS - 6), GameId(g))).collect();
            let index = HashIndex::build(entries.clone()).expect("valid entries");
            let mut bytes = Vec::new();
            index.write(&mut bytes).expect("written");
            let read = HashIndex::read(&mut bytes.as_slice()).expect("read back");
            prop_assert_eq!(read.len(), entries.len());
            for probe in probes {
                let hash = probe << (HASH_BITS - 6);
                for built in [&index, &read] {
                    prop_assert_eq!(built.candidates(hash).collect::<Vec<_>>(), naive(&entries, hash));
                    // A hash next to a filed one holds nothing.
                    prop_assert_eq!(built.candidates(hash + 1).count(), 0);
                }
            }
            let mut sorted = entries.clone();
            sorted.sort_unstable();
            prop_assert_eq!(read.entries().collect::<Vec<_>>(), sorted);
        }

        /// Cut or altered bytes are refused or read as some index, never a panic.
        #[test]
        fn damaged_bytes_never_panic(cut in 0usize..200, flip in 0usize..200) {
            let entries = (0..50).map(|i| ((i * 7919) % (1 << HASH_BITS), GameId(i + 1))).collect();
            let mut bytes = Vec::new();
            HashIndex::build(entries).expect("valid").write(&mut bytes).expect("written");
            let _ = HashIndex::read(&mut &bytes[..cut.min(bytes.len())]);
            let at = flip % bytes.len();
            bytes[at] ^= 0x5a;
            if let Ok(index) = HashIndex::read(&mut bytes.as_slice()) {
                let _ = index.candidates(7919).count();
            }
        }
    }

    #[test]
    fn an_empty_index_finds_nothing_and_large_hashes_are_refused() {
        let index = HashIndex::build(Vec::new()).expect("empty");
        assert_eq!((index.len(), index.candidates(0).count()), (0, 0));
        assert!(HashIndex::build(vec![(1 << HASH_BITS, GameId(1))]).is_err());
    }
}
