//! The tier's index: which range of which commit each stored [`GameMap`] covers, and the maps
//! read so far, kept in memory up to a number of bytes that the memory budget scales.
//!
//! A lookup needs, in each commit's segment, the map of the range that holds its key; a
//! material's search needs the maps of the ranges that overlap the material's keys. A large
//! database's maps do not all fit a budget (the players collection's take 85 MB in memory), so
//! the index keeps only each range's first key and reads a map the first time it is used. The
//! maps used most stay (`quick_cache`'s policy). A map heavier than the memory holds is read
//! for each use and then dropped. The maps of committed ranges never change, so an index read
//! again after a commit keeps the maps already read.

use std::{ops::Range, sync::Arc};

use quick_cache::{Weighter, sync::Cache};

use super::GameMap;
use crate::{
    codec::{Key, KeyRange},
    model::GameId,
    store::{
        Store, StoreError,
        layout::{
            keys::{map_key, parse_map_key},
            tier::read_segment_head,
        },
        memory::scaled,
        options,
    },
};

/// Bytes of tier maps kept in memory at the default budget, scaled by `--memory` (256 MiB at
/// the default; 64 MiB at `--memory 256M`).
const KEPT_MAPS_BYTES: usize = 256 << 20;

/// The tier maps of every commit: where each is stored, and those read so far.
pub(crate) struct TierIndex {
    /// Per commit, in commit order, its ranges in key order.
    segments: Vec<Segment>,
    /// The committed `next_game_id` when read.
    through: u64,
    /// The maps read so far, by their record's key; shared with the index read before.
    maps: Arc<KeptMaps>,
}

/// The maps kept in memory, by their record's key.
type KeptMaps = Cache<Vec<u8>, Arc<GameMap>, ByHeap>;

/// One commit's ranges.
#[derive(Clone)]
struct Segment {
    /// The commit's first game: the segment's id.
    first: GameId,
    /// Its ranges in key order.
    ranges: Vec<RangeSlot>,
}

/// One commit range's map, where it is stored.
#[derive(Clone)]
struct RangeSlot {
    /// The range's first key (`None`: from the first key).
    lower: Option<Key>,
    /// The key of the map's record in the positions family.
    record: Vec<u8>,
}

/// Weighs a kept map by the memory it takes.
#[derive(Clone)]
struct ByHeap;

impl Weighter<Vec<u8>, Arc<GameMap>> for ByHeap {
    fn weight(&self, record: &Vec<u8>, map: &Arc<GameMap>) -> u64 {
        (map.heap_size() + record.len() + size_of::<GameMap>()) as u64
    }
}

impl TierIndex {
    /// Reads where each map of the commits below `committed` is stored (the maps themselves
    /// wait for their first use). The commits `before` has read are taken from it, with the
    /// maps it kept: only later commits' records are read.
    pub(super) fn read(store: &Store, committed: u64, before: Option<&TierIndex>) -> Result<TierIndex, StoreError> {
        let Some(before) = before else {
            return TierIndex::read_keeping(store, committed, Arc::new(kept_maps(scaled(KEPT_MAPS_BYTES) as u64)));
        };
        let from = committed.min(before.through);
        let known = before.segments.iter().filter(|segment| segment.first.0 < from).cloned().collect();
        TierIndex::read_after(store, (known, from), committed, before.maps.clone())
    }

    /// [`TierIndex::read`] of every commit, keeping the maps in `maps`.
    fn read_keeping(store: &Store, committed: u64, maps: Arc<KeptMaps>) -> Result<TierIndex, StoreError> {
        TierIndex::read_after(store, (Vec::new(), 0), committed, maps)
    }

    /// The index of the commits below `committed`: `known`, the commits below `from`, then
    /// those read from `from` on.
    fn read_after(
        store: &Store,
        (mut segments, from): (Vec<Segment>, u64),
        committed: u64,
        maps: Arc<KeptMaps>,
    ) -> Result<TierIndex, StoreError> {
        // A segment of a commit whose record this store has not read yet (a secondary catching
        // up) waits for it.
        let reads = options::scan_reads(&map_key(GameId(committed), 0));
        let mut iter = store.db.raw_iterator_cf_opt(store.cf(options::POSITIONS), reads);
        iter.seek(map_key(GameId(from), 0));
        while let (Some(key), Some(mut value)) = (iter.key(), iter.value()) {
            let first = parse_map_key(key).ok_or_else(|| store.corrupt("tier key"))?;
            let lower = read_segment_head(&mut value).ok_or_else(|| store.corrupt("tier map: no range flag"))?;
            let slot = RangeSlot { lower, record: key.to_vec() };
            match segments.last_mut() {
                Some(segment) if segment.first == first => segment.ranges.push(slot),
                _ => segments.push(Segment { first, ranges: vec![slot] }),
            }
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        Ok(TierIndex { segments, through: committed, maps })
    }

    /// The committed `next_game_id` the index was read under.
    pub(super) fn through(&self) -> u64 {
        self.through
    }

    /// The games that may hold `key` of block `block` ([`super::block_of`]): in each commit's
    /// segment, the one game that the map of the range holding `key` names.
    pub(super) fn candidates(&self, store: &Store, key: &Key, block: u64) -> Result<Vec<GameId>, StoreError> {
        let mut games = Vec::new();
        for Segment { ranges, .. } in &self.segments {
            let after = ranges.partition_point(|slot| slot.lower.as_ref().is_none_or(|lower| lower <= key));
            let Some(slot) = after.checked_sub(1).and_then(|at| ranges.get(at)) else { continue };
            games.extend(self.map(store, slot)?.candidate(key, block));
        }
        Ok(games)
    }

    /// Appends to `games` those of `blocks` (one material's: [`super::material_blocks`]) in
    /// the maps of every range that overlaps `keys` (the material's keys): a range whose keys
    /// all lie outside holds none of the material's positions.
    pub(super) fn games_of_blocks(
        &self,
        store: &Store,
        keys: &KeyRange,
        blocks: Range<u64>,
        games: &mut Vec<GameId>,
    ) -> Result<(), StoreError> {
        for Segment { ranges, .. } in &self.segments {
            for (at, slot) in ranges.iter().enumerate() {
                let starts_after = slot.lower.as_ref().is_some_and(|lower| *lower > keys.last);
                let ends_before = ranges.get(at + 1).and_then(|next| next.lower).is_some_and(|next| next <= keys.first);
                if starts_after || ends_before {
                    continue;
                }
                self.map(store, slot)?
                    .games_of_blocks(blocks.clone(), games)
                    .ok_or_else(|| store.corrupt("tier map's lists"))?;
            }
        }
        Ok(())
    }

    /// The map of `slot`: the one kept, else read from the store.
    fn map(&self, store: &Store, slot: &RangeSlot) -> Result<Arc<GameMap>, StoreError> {
        self.maps.get_or_insert_with(&slot.record, || slot.read(store).map(Arc::new))
    }

    /// The error of each map that does not read: every map not kept is read.
    pub(super) fn unreadable(&self, store: &Store) -> Vec<StoreError> {
        self.slots().filter_map(|slot| self.map(store, slot).err()).collect()
    }

    /// Every range of every commit.
    fn slots(&self) -> impl Iterator<Item = &RangeSlot> {
        self.segments.iter().flat_map(|segment| &segment.ranges)
    }
}

impl RangeSlot {
    /// Reads the map from the store.
    fn read(&self, store: &Store) -> Result<GameMap, StoreError> {
        let what = || format!("tier map {}", hex(&self.record));
        let value = store
            .db
            .get_pinned_cf_opt(store.cf(options::POSITIONS), &self.record, &options::kept_reads())
            .map_err(|err| store.rocks(err))?
            .ok_or_else(|| store.corrupt(format!("{}: missing", what())))?;
        let mut bytes = &value[..];
        read_segment_head(&mut bytes).ok_or_else(|| store.corrupt(format!("{}: no range flag", what())))?;
        GameMap::read(&mut bytes).map_err(|err| store.corrupt(format!("{}: {err}", what())))
    }
}

/// A memory of `bytes` for maps, in one shard (a map may weigh a few megabytes, and a shard
/// keeps nothing heavier than its share).
fn kept_maps(bytes: u64) -> KeptMaps {
    let options = quick_cache::OptionsBuilder::new()
        .shards(1)
        .estimated_items_capacity(1 << 10)
        .weight_capacity(bytes)
        .build()
        .expect("the tier maps' cache options are valid");
    Cache::with_options(options, ByHeap, Default::default(), Default::default())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use std::{
        collections::{BTreeMap, BTreeSet},
        fmt::Write as _,
    };

    use shakmaty::{Chess, Position as _, san::SanPlus};

    use super::*;
    use crate::{
        indexer,
        store::tier::{TierReader, block_of, material_blocks},
    };

    /// `count` games of random legal moves (a fixed seed), as PGN.
    fn random_games(count: usize, seed: u64) -> String {
        let mut state = seed;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut pgn = String::new();
        for _ in 0..count {
            let mut chess = Chess::default();
            for ply in 0..20 + next(60) {
                let moves = chess.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let chosen = moves[next(moves.len())];
                let san = SanPlus::from_move_and_play_unchecked(&mut chess, chosen);
                match ply % 2 {
                    0 => write!(pgn, "{}. {san} ", ply / 2 + 1),
                    _ => write!(pgn, "{san} "),
                }
                .expect("a string");
            }
            pgn.push_str("*\n\n");
        }
        pgn
    }

    /// Under a memory that keeps at most one map (or none), every tier position's map still
    /// names its game, and a material's games read from the ranges overlapping its keys are
    /// those every map lists: the answers of an index that keeps every map.
    #[test]
    fn maps_read_on_use_answer_as_maps_kept() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = Store::open(&dir.path().join("db")).expect("a store");
        // Two commits: two segments of ranges; an index read between them, then read again.
        let mut between = None;
        for (at, seed) in [(0, 7), (1, 11)] {
            let pgn = dir.path().join(format!("games-{at}.pgn"));
            std::fs::write(&pgn, random_games(600, seed)).expect("written");
            indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).expect("ingested");
            between = between.or_else(|| Some(TierIndex::read(&store, store.committed(), None).expect("an index")));
        }
        let committed = store.committed();
        let again = TierIndex::read(&store, committed, between.as_ref()).expect("an index");
        let reader = TierReader::at(&store, committed);
        let entries = reader.entries_where(|_| true, usize::MAX).expect("read").expect("all");
        let all = TierIndex::read_keeping(&store, committed, Arc::new(kept_maps(u64::MAX))).expect("an index");
        assert_eq!(all.segments.len(), 2);
        assert!(all.segments.iter().all(|segment| segment.ranges.len() > 4), "{}", all.segments[0].ranges.len());
        let records = |index: &TierIndex| -> Vec<(GameId, Option<Key>, Vec<u8>)> {
            let mut all = Vec::new();
            for segment in &index.segments {
                all.extend(segment.ranges.iter().map(|slot| (segment.first, slot.lower, slot.record.clone())));
            }
            all
        };
        assert_eq!(records(&again), records(&all));
        assert!(Arc::ptr_eq(&again.maps, &between.expect("read").maps));
        let largest = all.slots().map(|slot| all.map(&store, slot).expect("a map").heap_size()).max();
        let mut decoder = crate::codec::KeyDecoder::default();
        for capacity in [0, largest.expect("maps") as u64 * 2] {
            let few = TierIndex::read_keeping(&store, committed, Arc::new(kept_maps(capacity))).expect("an index");
            let mut materials = BTreeMap::new();
            for entry in &entries {
                let (key, game) = (entry.key(), entry.hit().game);
                let (block, _) = block_of(&mut decoder, &key).expect("a block");
                let named = few.candidates(&store, &key, block).expect("candidates");
                assert!(named.contains(&game), "{key}: {named:?} lacks {game}");
                assert_eq!(named, all.candidates(&store, &key, block).expect("candidates"));
                let (range, _, _) = decoder.pawns_and_turn(&key).expect("a material");
                materials.insert(range.first, range);
                assert!(few.maps.weight() <= capacity);
            }
            assert!(materials.len() > 10, "{} materials", materials.len());
            for range in materials.values() {
                let blocks = material_blocks(&range.first);
                let (mut overlapping, mut every) = (Vec::new(), Vec::new());
                few.games_of_blocks(&store, range, blocks.clone(), &mut overlapping).expect("games");
                for slot in all.slots() {
                    all.map(&store, slot).expect("a map").games_of_blocks(blocks.clone(), &mut every).expect("games");
                }
                let wanted: BTreeSet<GameId> =
                    entries.iter().filter(|entry| range.contains(&entry.key())).map(|entry| entry.hit().game).collect();
                let overlapping: BTreeSet<GameId> = overlapping.into_iter().collect();
                assert!(overlapping.is_superset(&wanted), "{range:?}");
                assert!(overlapping.is_subset(&every.into_iter().collect()), "{range:?}");
            }
        }
    }
}
