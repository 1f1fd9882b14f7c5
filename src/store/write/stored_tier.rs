//! A later commit's new keys looked up in the stored single-game tier all at once.
//!
//! The tier holds no keys: looking one key up replays the game its map names
//! ([`TierReader::locate_in`]), a few microseconds whether the key is there or not. A commit
//! into a database holding few games next to what it stages (the second half of a collection,
//! a commit of a run under a small `--memory`) would replay each stored game thousands of
//! times over. It replays each once instead: the commit's keys go into a Bloom filter, every
//! stored tier position is keyed, and those the filter may hold are kept, sorted, for the
//! ranges to look up. A key the filter wrongly admits costs a few bytes, never an answer.

use fastbloom::AtomicBloomFilter;
use rayon::prelude::*;

use super::staging::Staging;
use crate::{
    codec::{Key, KeyRange},
    store::{
        Store, StoreError,
        tier::{TierHit, TierReader, read::TierEntry},
    },
};

/// Staged occurrences per stored game from which the commit replays every stored game once:
/// a key looked up alone replays part of a game (about 7 µs on players), a stored game replayed
/// with every tier position keyed takes about 35.
const OCCURRENCES_PER_STORED_GAME: u64 = 8;

/// The stored tier's positions that a commit's staged keys may reach, by key.
pub(crate) struct StoredTierHits {
    /// In key order.
    entries: Vec<TierEntry>,
}

impl StoredTierHits {
    /// The stored tier positions the keys staged in `ranges` of `staging` may reach, when
    /// finding them all at once costs less than looking each key up; `None` otherwise (and for
    /// a store without positions).
    pub(crate) fn find(
        store: &Store,
        staging: &Staging,
        ranges: &[Option<KeyRange>],
    ) -> Result<Option<StoredTierHits>, StoreError> {
        let (staged, stored_games) = (staging.records() as u64, store.committed());
        if stored_games == 0 || staged < stored_games.saturating_mul(OCCURRENCES_PER_STORED_GAME) {
            return Ok(None);
        }
        let staged_keys = AtomicBloomFilter::with_false_pos(0.01).expected_items(staging.records().max(1));
        ranges
            .par_iter()
            .flatten()
            .try_for_each(|range| {
                let mut merged = staging.merged(*range)?;
                while let Some((key, _)) = merged.next_group()? {
                    staged_keys.insert_hash(key_hash(&key));
                }
                Ok(())
            })
            .map_err(|err| store.staging_error(err))?;
        let entries =
            TierReader::at(store, stored_games).entries_where(|key| staged_keys.contains_hash(key_hash(key)))?;
        tracing::debug!(stored_games, staged, kept = entries.len(), "stored tier positions found at once");
        Ok(Some(StoredTierHits { entries }))
    }

    /// Where the stored tier holds `key`, if it does.
    pub(crate) fn get(&self, key: &Key) -> Option<TierHit> {
        let at = self.entries.binary_search_by(|entry| entry.key().cmp(key)).ok()?;
        Some(self.entries[at].hit())
    }
}

fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}
