//! The tier's hash index: which games hold a tier position whose key has a given hash.

use serde::{Deserialize, Serialize};
use vers_vecs::{BitVec, EliasFanoVec};

use super::{HASH_BITS, TierError};
use crate::model::GameId;

/// Bits a packed entry ([`HashIndex::entry`]) keeps for the game id, below the hash.
const GAME_BITS: u32 = u64::BITS - HASH_BITS;

/// How an index is written: integers at their full width (the bit vectors' words are random;
/// varints would make them longer).
const BYTES: bincode::config::Configuration<bincode::config::LittleEndian, bincode::config::Fixint> =
    bincode::config::standard().with_fixed_int_encoding();

/// (hash, game) pairs sorted by hash: the hashes as an Elias–Fano sequence (about 2 + log2 of
/// 2^[`HASH_BITS`] / n bits each), the games as fixed-width ids in the same order.
#[derive(Serialize, Deserialize)]
pub struct HashIndex {
    hashes: EliasFanoVec,
    games: BitVec,
    /// Bits of each game id in `games`.
    width: u32,
}

impl HashIndex {
    /// The entry of `game` under `hash`, packed into one integer (half the memory of a pair, and
    /// integers sort fast): what [`HashIndex::build`] takes.
    pub fn entry(hash: u64, game: GameId) -> Result<u64, TierError> {
        if hash >> HASH_BITS != 0 {
            return Err(TierError::Internal(format!("hash {hash} of more than {HASH_BITS} bits")));
        }
        if game.0 >> GAME_BITS != 0 {
            return Err(TierError::Capacity(format!("game id {game}: at most {GAME_BITS} bits")));
        }
        Ok(hash << GAME_BITS | game.0)
    }

    /// The index of `entries` (from [`HashIndex::entry`], any order).
    pub fn build(mut entries: Vec<u64>) -> HashIndex {
        entries.sort_unstable();
        let game_mask = (1u64 << GAME_BITS) - 1;
        let highest = entries.iter().map(|entry| entry & game_mask).max().unwrap_or(0);
        let width = (u64::BITS - highest.leading_zeros()).max(1);
        let games = BitVec::pack_from_iter_u64(entries.iter().map(|entry| entry & game_mask), width as usize);
        // The hashes replace the entries in place: one buffer for both.
        for entry in &mut entries {
            *entry >>= GAME_BITS;
        }
        HashIndex { hashes: EliasFanoVec::from_slice(&entries), games, width }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    fn game(&self, at: usize) -> Option<GameId> {
        self.games.unpack_element(at, self.width as usize).map(GameId)
    }

    /// The games holding a tier position whose key hashes to `hash`, ascending (a game may be
    /// listed once per such position).
    pub fn candidates(&self, hash: u64) -> impl Iterator<Item = GameId> + '_ {
        let first = usize::try_from(self.hashes.rank(hash)).unwrap_or(usize::MAX);
        (first..self.len()).take_while(move |&at| self.hashes.get(at) == Some(hash)).filter_map(|at| self.game(at))
    }

    /// Every (hash, game) pair, by hash.
    #[cfg(test)]
    fn entries(&self) -> impl Iterator<Item = (u64, GameId)> + '_ {
        self.hashes.iter().enumerate().filter_map(|(at, hash)| Some((hash, self.game(at)?)))
    }

    /// Appends the index's bytes to `out` (a checked section: its length, the bytes and their xxh3).
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), TierError> {
        let bytes = bincode::serde::encode_to_vec(self, BYTES).map_err(|err| TierError::Internal(err.to_string()))?;
        super::write_section(&bytes, out);
        Ok(())
    }

    /// Reads an index [`HashIndex::write`] wrote, from the front of `input`. The section's
    /// checksum refuses damaged bytes; the vectors inside are trusted as this program wrote them
    /// (their lengths are checked, not their rank and select tables).
    pub fn read(input: &mut &[u8]) -> Result<HashIndex, TierError> {
        let section = super::read_section(input)?;
        let (index, used): (HashIndex, usize) =
            bincode::serde::decode_from_slice(section, BYTES).map_err(|err| TierError::Corrupt(err.to_string()))?;
        let len = index.hashes.len();
        let consistent = used == section.len()
            && (1..=GAME_BITS).contains(&index.width)
            && Some(index.games.len()) == len.checked_mul(index.width as usize)
            && index.games.heap_size() >= index.games.len().div_ceil(64) * 8
            && (len == 0 || index.hashes.get(len - 1).is_some_and(|last| last >> HASH_BITS == 0));
        if !consistent {
            return Err(TierError::Corrupt("hash and game counts differ".to_owned()));
        }
        Ok(index)
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

    fn build(entries: &[(u64, GameId)]) -> HashIndex {
        HashIndex::build(entries.iter().map(|&(hash, game)| HashIndex::entry(hash, game).expect("fits")).collect())
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
            let index = build(&entries);
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

        /// A cluster of close hashes among spread ones, so that one Elias–Fano bucket holds
        /// many different hashes (a lookup searches inside its bucket), against a naive search.
        #[test]
        fn candidates_in_crowded_buckets(
            entries in prop::collection::vec((prop_oneof![0u64..64, 0u64..1 << 20], 1u64..300), 0..2000),
            probes in prop::collection::vec(prop_oneof![0u64..70, 0u64..1 << 20], 1..60),
        ) {
            let entries: Vec<(u64, GameId)> = entries.into_iter().map(|(h, g)| (h, GameId(g))).collect();
            let index = build(&entries);
            for hash in probes {
                prop_assert_eq!(index.candidates(hash).collect::<Vec<_>>(), naive(&entries, hash));
            }
        }

        /// Cut or altered bytes are refused or read as some index, never a panic.
        #[test]
        fn damaged_bytes_never_panic(cut in 0usize..200, flip in 0usize..200) {
            let entries: Vec<(u64, GameId)> = (0..50).map(|i| ((i * 7919) % (1 << HASH_BITS), GameId(i + 1))).collect();
            let mut bytes = Vec::new();
            build(&entries).write(&mut bytes).expect("written");
            let _ = HashIndex::read(&mut &bytes[..cut.min(bytes.len())]);
            let at = flip % bytes.len();
            bytes[at] ^= 0x5a;
            if let Ok(index) = HashIndex::read(&mut bytes.as_slice()) {
                let _ = index.candidates(7919).count();
            }
        }
    }

    #[test]
    fn an_empty_index_finds_nothing_and_large_values_are_refused() {
        let index = HashIndex::build(Vec::new());
        assert_eq!((index.len(), index.candidates(0).count()), (0, 0));
        let mut bytes = Vec::new();
        index.write(&mut bytes).expect("written");
        let read = HashIndex::read(&mut bytes.as_slice()).expect("read back");
        assert_eq!((read.len(), read.candidates(0).count()), (0, 0));
        assert!(HashIndex::entry(1 << HASH_BITS, GameId(1)).is_err());
        assert!(HashIndex::entry(0, GameId(1 << GAME_BITS)).is_err());
    }

    #[test]
    fn the_largest_hash_and_game_are_kept() {
        let entries = [((1 << HASH_BITS) - 1, GameId((1 << GAME_BITS) - 1)), (0, GameId(1))];
        let index = build(&entries);
        assert_eq!(index.candidates((1 << HASH_BITS) - 1).collect::<Vec<_>>(), [entries[0].1]);
        assert_eq!(index.candidates(0).collect::<Vec<_>>(), [GameId(1)]);
    }
}
