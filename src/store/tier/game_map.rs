//! The tier's map of one commit range: which game holds a tier position, found from the key
//! without storing it.
//!
//! The range's tier positions are grouped into *blocks* ([`super::block_of`]: the material and
//! each side's pawn files), and each block lists the games with tier positions in it. A game stays in a block for several plies and a block holds few games, so a position
//! is named by its game's index in its block's list: a value of `⌈log2 L⌉` bits for a list of
//! `L` games, kept by a [`Retrieval`] function per width (about 1.23 bits a value bit), instead
//! of a hash and a game id (docs/FORMAT.md, "The single-game tier").

use serde::{Deserialize, Serialize};
use vers_vecs::EliasFanoVec;

use super::{BLOCK_BITS, TierError, retrieval::Retrieval};
use crate::{codec::Key, model::GameId};

/// How a map is written: integers at their full width (the vectors' words are random bits).
const BYTES: bincode::config::Configuration<bincode::config::LittleEndian, bincode::config::Fixint> =
    bincode::config::standard().with_fixed_int_encoding();

/// A commit range's tier positions as blocks of games and a function per width of index.
#[derive(Serialize, Deserialize)]
pub struct GameMap {
    /// The ids of the range's blocks, ascending.
    blocks: EliasFanoVec,
    /// Each block's games in block order: `ordinal · span + (game − base)`, ascending.
    games: EliasFanoVec,
    /// The least game id of the range's lists.
    base: u64,
    /// One more than the largest game id less `base`.
    span: u64,
    /// At `w − 1`, the function giving a position its game's index in a block list of
    /// `2^(w−1) + 1` to `2^w` games (a list of one game needs none).
    functions: Vec<Retrieval>,
}

/// Bits of an index into a list of `len` games (0 for one game).
fn index_width(len: u64) -> u32 {
    u64::BITS - len.saturating_sub(1).leading_zeros()
}

impl GameMap {
    /// The map of a range's tier positions: each (key, its block, its game); keys distinct.
    pub fn build(mut entries: Vec<(Key, u64, GameId)>) -> Result<GameMap, TierError> {
        // Visited in (block, game, key) order. The keys come in key order (a range's merge), so
        // sorting (block, game, place in key order) gives it without comparing or moving keys:
        // those moves and comparisons were most of the map's time.
        if !entries.is_sorted_by_key(|entry| entry.0) {
            entries.sort_unstable_by_key(|entry| entry.0);
        }
        let base = entries.iter().map(|entry| entry.2.0).min().unwrap_or(0);
        let span = entries.iter().map(|entry| entry.2.0 - base + 1).max().unwrap_or(0);
        // Each entry as (block, game offset · 2^32 + place), 16 bytes to sort.
        if span > 1 << 32 || entries.len() > 1 << 32 {
            let what = format!("{} tier positions of games spanning {span} ids in one range", entries.len());
            return Err(TierError::Capacity(what));
        }
        let mut order: Vec<(u64, u64)> =
            entries.iter().zip(0u64..).map(|(&(_, block, game), at)| (block, (game.0 - base) << 32 | at)).collect();
        order.sort_unstable();
        let split = |packed: u64| (packed >> 32, (packed & u64::from(u32::MAX)) as usize);
        // The blocks, and each block's games (distinct, ascending) as a run of `lists`.
        let (mut blocks, mut lists, mut runs) = (Vec::new(), Vec::new(), Vec::new());
        for (at, &(block, packed)) in order.iter().enumerate() {
            if blocks.last() != Some(&block) {
                blocks.push(block);
                runs.push(lists.len());
            }
            let offset = split(packed).0;
            if at == 0 || order[at - 1].0 != block || split(order[at - 1].1).0 != offset {
                let ordinal = blocks.len() as u64 - 1;
                let packed = ordinal.checked_mul(span).and_then(|start| start.checked_add(offset));
                lists.push(packed.ok_or_else(|| {
                    TierError::Capacity(format!("{} blocks of games spanning {span} ids", blocks.len()))
                })?);
            }
        }
        runs.push(lists.len());
        // Each key's index in its block's list, filed under the list's width (the key by its
        // place, so that the keys are copied once the order is freed: a commit's peak memory).
        let mut by_width: Vec<(Vec<u32>, Vec<u64>)> = Vec::new();
        let mut ordinal = 0;
        for &(block, packed) in &order {
            while blocks[ordinal] != block {
                ordinal += 1;
            }
            let (game, at) = split(packed);
            let list = &lists[runs[ordinal]..runs[ordinal + 1]];
            let offset = ordinal as u64 * span + game;
            let index = list.partition_point(|&packed| packed < offset) as u64;
            let width = index_width(list.len() as u64) as usize;
            if width > 0 {
                by_width.resize_with(by_width.len().max(width), Default::default);
                by_width[width - 1].0.push(at as u32);
                by_width[width - 1].1.push(index);
            }
        }
        drop(order);
        let mut functions = Vec::with_capacity(by_width.len());
        for (width, (places, indices)) in (1..).zip(by_width) {
            let keys: Vec<Key> = places.into_iter().map(|at| entries[at as usize].0).collect();
            functions.push(Retrieval::build(&keys, &indices, width)?);
        }
        Ok(GameMap {
            blocks: EliasFanoVec::from_slice(&blocks),
            games: EliasFanoVec::from_slice(&lists),
            base,
            span,
            functions,
        })
    }

    /// The ordinal of `block` in the range, if it has one.
    fn ordinal(&self, block: u64) -> Option<u64> {
        let ordinal = self.blocks.rank(block);
        (self.blocks.get(usize::try_from(ordinal).ok()?)? == block).then_some(ordinal)
    }

    /// Where the games of the block at `ordinal` are in `games`.
    fn list(&self, ordinal: u64) -> Option<std::ops::Range<usize>> {
        let start = self.games.rank(ordinal.checked_mul(self.span)?);
        let end = self.games.rank(ordinal.checked_add(1)?.checked_mul(self.span)?);
        Some(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// The game at `at` of `games`, the list of the block at `ordinal`.
    fn game(&self, ordinal: u64, at: usize) -> Option<GameId> {
        let offset = self.games.get(at)?.checked_sub(ordinal.checked_mul(self.span)?)?;
        Some(GameId(self.base.checked_add(offset)?))
    }

    /// The one game that may hold `key`, of block `block` ([`super::block_of`]): the game that
    /// does when the range holds it in its tier, some game of the block (or none) otherwise.
    pub fn candidate(&self, key: &Key, block: u64) -> Option<GameId> {
        let ordinal = self.ordinal(block)?;
        let list = self.list(ordinal)?;
        let width = index_width(list.len() as u64);
        let index = match width {
            0 => 0,
            _ => self.functions.get(width as usize - 1)?.get(key),
        };
        let at = list.start.checked_add(usize::try_from(index).ok()?).filter(|&at| at < list.end)?;
        self.game(ordinal, at)
    }

    /// Appends to `games` those of the blocks whose ids lie in `blocks` (say, every block of
    /// one material: [`super::material_blocks`]), ascending within each block.
    pub fn games_of_blocks(&self, blocks: std::ops::Range<u64>, games: &mut Vec<GameId>) -> Option<()> {
        for ordinal in self.blocks.rank(blocks.start)..self.blocks.rank(blocks.end) {
            for at in self.list(ordinal)? {
                games.push(self.game(ordinal, at)?);
            }
        }
        Some(())
    }

    /// The bytes the map's vectors take in memory.
    pub fn heap_size(&self) -> usize {
        let functions: usize = self.functions.iter().map(Retrieval::heap_size).sum();
        self.blocks.heap_size()
            + self.games.heap_size()
            + functions
            + self.functions.capacity() * size_of::<Retrieval>()
    }

    /// Appends the map's bytes to `out` (a checked section: its length, the bytes and their xxh3).
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), TierError> {
        let bytes = bincode::serde::encode_to_vec(self, BYTES).map_err(|err| TierError::Internal(err.to_string()))?;
        super::write_section(&bytes, out);
        Ok(())
    }

    /// Reads a map [`GameMap::write`] wrote, from the front of `input`. The section's checksum
    /// refuses damaged bytes; the vectors inside are trusted as this program wrote them (their
    /// sizes are checked, not their rank and select tables).
    pub fn read(input: &mut &[u8]) -> Result<GameMap, TierError> {
        let section = super::read_section(input)?;
        let (map, used): (GameMap, usize) =
            bincode::serde::decode_from_slice(section, BYTES).map_err(|err| TierError::Corrupt(err.to_string()))?;
        let blocks = map.blocks.len() as u64;
        let consistent = used == section.len()
            && map
                .functions
                .iter()
                .enumerate()
                .all(|(at, function)| function.width() == at as u32 + 1 && function.is_consistent())
            && map.functions.len() < u64::BITS as usize
            && blocks.checked_mul(map.span).is_some()
            && (blocks == 0 || map.blocks.get(blocks as usize - 1).is_some_and(|last| last >> BLOCK_BITS == 0))
            && (map.games.is_empty()
                || map.games.get(map.games.len() - 1).is_some_and(|last| last < blocks * map.span));
        if !consistent {
            return Err(TierError::Corrupt("a tier map's parts disagree".to_owned()));
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn key(seed: u64) -> Key {
        let mut bytes = [0u8; crate::codec::KEY_LEN];
        bytes[13..].copy_from_slice(&seed.to_be_bytes());
        Key::from_bytes(bytes)
    }

    proptest! {
        /// Every filed key names its own game, before and after the bytes round trip; a block's
        /// games are its entries' games; a block not filed names no game.
        #[test]
        fn every_key_names_its_game(
            entries in prop::collection::btree_map(any::<u64>(), (0u64..40, 1000u64..1400), 0..400),
        ) {
            let entries: Vec<(Key, u64, GameId)> =
                entries.into_iter().map(|(seed, (block, game))| (key(seed), block, GameId(game))).collect();
            let map = GameMap::build(entries.clone()).expect("built");
            let mut bytes = Vec::new();
            map.write(&mut bytes).expect("written");
            let read = GameMap::read(&mut bytes.as_slice()).expect("read back");
            for built in [&map, &read] {
                for &(key, block, game) in &entries {
                    prop_assert_eq!(built.candidate(&key, block), Some(game));
                }
                prop_assert_eq!(built.candidate(&key(7), 41), None);
                for block in 0..41 {
                    let mut expected: Vec<GameId> =
                        entries.iter().filter(|entry| entry.1 == block).map(|entry| entry.2).collect();
                    expected.sort_unstable();
                    expected.dedup();
                    let mut games = Vec::new();
                    built.games_of_blocks(block..block + 1, &mut games).expect("listed");
                    prop_assert_eq!(games, expected);
                }
            }
        }

        /// A map whose bytes were damaged anywhere (length, contents or checksum) is refused,
        /// never decoded: the vectors inside are trusted only as written.
        #[test]
        fn damaged_maps_are_refused(at in any::<prop::sample::Index>(), bit in 0u8..8) {
            let entries = (0..50).map(|seed| (key(seed), seed % 7, GameId(seed / 3))).collect();
            let mut bytes = Vec::new();
            GameMap::build(entries).expect("built").write(&mut bytes).expect("written");
            let at = at.index(bytes.len());
            bytes[at] ^= 1 << bit;
            prop_assert!(GameMap::read(&mut bytes.as_slice()).is_err());
        }
    }

    #[test]
    fn an_empty_map_names_nothing() {
        let map = GameMap::build(Vec::new()).expect("built");
        assert_eq!(map.candidate(&key(1), 0), None);
        let mut games = Vec::new();
        map.games_of_blocks(0..u64::MAX, &mut games).expect("listed");
        assert!(games.is_empty());
    }

    #[test]
    fn index_widths() {
        assert_eq!([1, 2, 3, 4, 5, 8, 9].map(index_width), [0, 1, 2, 2, 3, 3, 4]);
    }
}
