//! Exact copies: a game whose text is, byte for byte, that of a game accepted earlier in the
//! run is a duplicate, known without parsing it.
//!
//! Collections merged from several sources (one file per player, say, where a game between two
//! of them is in both files) repeat most of their duplicates verbatim: in the players
//! collection, 75,370 of its 75,426 duplicates. Parsing and replaying such a copy only to find
//! its fingerprint stored is most of what a duplicate costs. The same text parses to the same
//! game and fingerprint, so the copy is counted as the duplicate it would have been found to be.
//! Only accepted texts are remembered: a copy of a rejected game is read again and reported
//! with its own number and line.
//!
//! The memory is bounded: a set-associative table of 128-bit text hashes that forgets the oldest
//! text of a full set. A forgotten text only costs its copy the parse that finds its
//! fingerprint, as before. The hash is seeded at random for each run, so that no file can be
//! crafted to make a new game's text collide with an earlier one's.

/// Hashes a set holds.
const WAYS: usize = 4;

/// Texts of accepted games, by their 128-bit hashes.
pub struct Copies {
    sets: Vec<[u128; WAYS]>,
    /// The run's seed of the hash.
    seed: u64,
}

impl Copies {
    /// Room for about `texts` texts (at least one set).
    pub fn with_room(texts: usize) -> Copies {
        use std::hash::{BuildHasher, RandomState};
        let sets = (texts / WAYS).max(1).next_power_of_two();
        Copies { sets: vec![[0; WAYS]; sets], seed: RandomState::new().hash_one(texts) }
    }

    /// The hash a game's text is remembered by.
    pub fn hash(&self, text: &[u8]) -> u128 {
        // 0 marks an empty way: a text hashing to 0 is remembered as 1 (a second text hashing
        // to 1 as well is as unlikely as any other collision of 128 bits).
        xxhash_rust::xxh3::xxh3_128_with_seed(text, self.seed).max(1)
    }

    fn set(&self, hash: u128) -> usize {
        (hash as usize) & (self.sets.len() - 1)
    }

    /// Whether the text of `hash` was remembered (and not forgotten since).
    pub fn contains(&self, hash: u128) -> bool {
        self.sets[self.set(hash)].contains(&hash)
    }

    /// Remembers the text of `hash`, forgetting the oldest of its set when the set is full.
    pub fn insert(&mut self, hash: u128) {
        let at = self.set(hash);
        let set = &mut self.sets[at];
        if set.contains(&hash) {
            return;
        }
        set.rotate_right(1);
        set[0] = hash;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_what_it_was_told_and_forgets_the_oldest_of_a_full_set() {
        let mut copies = Copies::with_room(4);
        assert_eq!(copies.sets.len(), 1);
        for hash in 1..=4 {
            copies.insert(hash);
        }
        copies.insert(2);
        assert!((1..=4).all(|hash| copies.contains(hash)));
        assert!(!copies.contains(5));
        copies.insert(5);
        assert!(!copies.contains(1), "the oldest is forgotten");
        assert!((2..=5).all(|hash| copies.contains(hash)));
    }

    #[test]
    fn texts_hash_apart_and_runs_hash_apart() {
        let (run, other) = (Copies::with_room(8), Copies::with_room(8));
        assert_ne!(run.hash(b"1. e4 e5 1-0\n"), run.hash(b"1. e4 e5 0-1\n"));
        assert_eq!(run.hash(b"1. e4 1-0\n"), run.hash(b"1. e4 1-0\n"));
        assert_ne!(run.hash(b"1. e4 1-0\n"), other.hash(b"1. e4 1-0\n"), "each run has a seed of its own");
        assert_ne!(run.hash(b""), 0);
    }
}
