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
        memory::scaled,
        tier::{TierHit, TierReader, read::TierEntry},
    },
};

/// Staged occurrences per stored game from which the commit replays every stored game once:
/// a key looked up alone replays part of a game (about 7 µs on players), a stored game replayed
/// with every tier position keyed takes about 35.
const OCCURRENCES_PER_STORED_GAME: u64 = 8;

/// Stored games up to which every tier position is kept, without filtering by the staged keys
/// (some 60,000 positions, 2 MB).
const KEEP_ALL_GAMES: u64 = 1 << 10;

/// Bytes of kept positions at the default memory budget (scaled by `--memory`): beyond them (an
/// append overlapping much of what is stored), the commit looks each key up instead.
const KEPT_BYTES: usize = 256 << 20;

/// The stored tier's positions that a commit's staged keys may reach, by key.
pub(crate) struct StoredTierHits {
    /// In key order.
    entries: Vec<TierEntry>,
}

impl StoredTierHits {
    /// The stored tier positions the keys staged in `ranges` of `staging` may reach, when
    /// finding them all at once costs less than looking each key up and they fit in memory;
    /// `None` otherwise, and when no game is stored. The staged runs are read on `pool` (the
    /// commit's, sized to the files it may keep open).
    pub(crate) fn find(
        store: &Store,
        staging: &Staging,
        ranges: &[Option<KeyRange>],
        pool: &rayon::ThreadPool,
    ) -> Result<Option<StoredTierHits>, StoreError> {
        // Game ids start at 1: the committed id is one past the last stored game.
        let (staged, stored_games) = (staging.records() as u64, store.committed().saturating_sub(1));
        if stored_games == 0 || staged < stored_games.saturating_mul(OCCURRENCES_PER_STORED_GAME) {
            return Ok(None);
        }
        let staged_keys = match stored_games <= KEEP_ALL_GAMES {
            true => None,
            false => Some(pool.install(|| staged_keys(staging, ranges)).map_err(|err| store.staging_error(err))?),
        };
        let kept_at_most = scaled(KEPT_BYTES) / size_of::<TierEntry>();
        let keep = |key: &Key| staged_keys.as_ref().is_none_or(|keys| keys.contains_hash(key_hash(key)));
        let entries = TierReader::at(store, store.committed()).entries_where(keep, kept_at_most)?;
        tracing::debug!(
            stored_games,
            staged,
            kept = entries.as_ref().map(Vec::len),
            "stored tier positions found at once"
        );
        Ok(entries.map(|entries| StoredTierHits { entries }))
    }

    /// Where the stored tier holds `key`, if it does.
    pub(crate) fn get(&self, key: &Key) -> Option<TierHit> {
        let at = self.entries.binary_search_by(|entry| entry.key().cmp(key)).ok()?;
        Some(self.entries[at].hit())
    }
}

/// A Bloom filter of the keys staged in `ranges` (1 % false positives at most: it is sized for
/// every staged record, and keys repeat), the ranges merged on every thread of the pool.
fn staged_keys(staging: &Staging, ranges: &[Option<KeyRange>]) -> std::io::Result<AtomicBloomFilter> {
    let keys = AtomicBloomFilter::with_false_pos(0.01).expected_items(staging.records().max(1));
    ranges.par_iter().flatten().try_for_each(|range| -> std::io::Result<()> {
        let mut merged = staging.merged(*range)?;
        while let Some((key, _)) = merged.next_group()? {
            keys.insert_hash(key_hash(&key));
        }
        Ok(())
    })?;
    Ok(keys)
}

fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}
