//! The single-game tier as stored: the positions that exactly one game reaches are kept as that
//! game's plies, not as keys (see [`crate::tier`] for why and for its structures). Its records
//! sit in the positions family after every position key, so that a commit ingests them in the
//! same atomic step as the positions it writes:
//!
//! ```text
//! [MARKS]  game id (8)                        the game's tier plies (runs, below)
//! [HASHES] segment (8) range (2)              the range's first key, and a HashIndex: each new
//!                                             tier key's hash → its game
//! [BLOCKS] block (21) segment (8) range (2)   the games with tier positions in the block
//! ```
//!
//! A *segment* is what one commit added, named by the first game id of that commit; a *range* is
//! one of the commit's key ranges (each written by its own worker). A *block* is a (category,
//! material) key range ([`material_range`]), named by its first key: a key-range scan replays
//! the games of the blocks it meets, a lookup the candidate games of its key's hash. A game's
//! marks are its tier plies as runs: varints `count`, then per run the gap from the end of the
//! previous run and the run's length minus one.
//!
//! A position a later commit reaches again moves to the full-key family (the commit writes its
//! summed value there and clears its game's mark): marks are exact, so every tier position is
//! in exactly one place. Hash and block entries of a cleared mark stay, costing a replay at most.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use shakmaty::{Chess, Position as _};

use super::{Store, StoreError, options};
use crate::{
    codec::{CompactMove, KEY_LEN, Key, KeyEncoder, KeyRange, Material, mainline::MainlineReader, material_range},
    model::{GameId, Mainline},
    position::Position,
    store::layout,
    tier::{HashIndex, key_hash},
    varint::{get_varint, put_varint},
};

/// First byte of a game's marks key.
const MARKS: u8 = 0xf0;
/// First byte of a hash segment's key.
const HASHES: u8 = 0xf1;
/// First byte of a block list's key.
const BLOCKS: u8 = 0xf2;

/// Where position keys end (exclusive): tier records start here (a key's first byte, its
/// category, is at most 80).
pub(crate) const POSITIONS_END: &[u8] = &[MARKS];

/// The key ranges of the tier's records, named as `tabiya stats` shows them.
pub(crate) fn record_ranges() -> [(&'static str, &'static [u8], &'static [u8]); 3] {
    [
        ("tier marks", &[MARKS], &[HASHES]),
        ("tier hashes", &[HASHES], &[BLOCKS]),
        ("tier blocks", &[BLOCKS], &[BLOCKS + 1]),
    ]
}

/// Plies past which a game's positions stay in the full-key family (marks beyond would let
/// damaged bytes ask for any amount of memory).
pub(crate) const MAX_PLY: u32 = 1 << 16;

/// Length of a block list's key.
const BLOCK_KEY_LEN: usize = 1 + 21 + 8 + 2;

/// Games a reader replays together (one multi-get of their mainlines, one task).
const REPLAY_CHUNK: usize = 256;

/// Plies a game's marks hold in the commit's bit table; later plies (rare) are listed apart.
const TABLE_PLIES: u32 = 256;

fn marks_key(game: GameId) -> Vec<u8> {
    let mut key = vec![MARKS];
    key.extend_from_slice(&game.to_bytes());
    key
}

fn hashes_key(segment: GameId, range: u16) -> Vec<u8> {
    let mut key = vec![HASHES];
    key.extend_from_slice(&segment.to_bytes());
    key.extend_from_slice(&range.to_be_bytes());
    key
}

fn block_key(block: &Key, segment: GameId, range: u16) -> Vec<u8> {
    let mut key = vec![BLOCKS];
    key.extend_from_slice(block.as_bytes());
    key.extend_from_slice(&segment.to_bytes());
    key.extend_from_slice(&range.to_be_bytes());
    key
}

/// The stored bytes of marked `plies` (ascending, distinct).
pub fn encode_marks(plies: &[u32], out: &mut Vec<u8>) {
    let runs: Vec<&[u32]> = plies.chunk_by(|a, b| a + 1 == *b).collect();
    put_varint(out, runs.len() as u64);
    let mut end = 0;
    for run in runs {
        put_varint(out, u64::from(run[0] - end));
        put_varint(out, (run.len() - 1) as u64);
        end = run[run.len() - 1] + 1;
    }
}

/// The plies of stored marks; `None` unless the bytes are canonical marks ([`encode_marks`]).
pub fn decode_marks(bytes: &[u8]) -> Option<Vec<u32>> {
    let input = &mut &bytes[..];
    let runs = get_varint(input)?;
    let mut plies = Vec::new();
    let mut end = 0u32;
    for index in 0..runs {
        let gap = u32::try_from(get_varint(input)?).ok()?;
        let length = u32::try_from(get_varint(input)?).ok()?.checked_add(1)?;
        // Runs are maximal: a gap between two runs is at least one ply.
        if index > 0 && gap == 0 {
            return None;
        }
        let first = end.checked_add(gap)?;
        end = first.checked_add(length)?;
        if end > MAX_PLY {
            return None;
        }
        plies.extend(first..end);
    }
    (input.is_empty() && runs > 0).then_some(plies)
}

/// A tier position: the game that reached it, the ply it first did, the move it played there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierHit {
    /// The game.
    pub game: GameId,
    /// The ply of the position in the game's mainline (0: its start).
    pub ply: u32,
    /// The move played from it, `None` at the game's end.
    pub next: Option<CompactMove>,
}

impl TierHit {
    /// The position's stored value (a one-game value).
    pub fn value(&self) -> Vec<u8> {
        self.inline_value(&mut Vec::with_capacity(TIER_VALUE_MAX)).as_slice().to_vec()
    }

    /// The same, held inline (scans list millions), encoded through `scratch`.
    fn inline_value(&self, scratch: &mut Vec<u8>) -> TierValue {
        scratch.clear();
        layout::encode_stored_game(self.game, self.next, scratch);
        let mut value = TierValue { bytes: [0; TIER_VALUE_MAX], len: scratch.len() as u8 };
        value.bytes[..scratch.len()].copy_from_slice(scratch);
        value
    }
}

/// Most bytes of a one-game value: flag, move, a 10-byte varint id.
const TIER_VALUE_MAX: usize = 13;

/// A tier position's stored value, inline.
#[derive(Clone, Copy, Debug)]
pub struct TierValue {
    bytes: [u8; TIER_VALUE_MAX],
    len: u8,
}

impl TierValue {
    /// The value's bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Records of a tier file, in key order (`None` deletes).
type Records = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// A commit's hash indexes, one per range, by the range's first key (`None`: from the first
/// key).
type RangeIndexes = Vec<(Option<Key>, HashIndex)>;

/// The hash segments of every commit, read again once a commit has landed.
#[derive(Default)]
pub(crate) struct TierIndex {
    /// Per commit, its ranges' hash indexes.
    segments: Vec<RangeIndexes>,
    /// The committed `next_game_id` when read.
    through: u64,
}

/// What a commit adds to the tier: its new entries' marks, each range's hash segment and block
/// lists, and the stored tier positions it moved to the full-key family.
pub(crate) struct TierWrites {
    /// The commit's first game id (its segment's name).
    segment: GameId,
    /// Bits per new game (TABLE_PLIES a game, from `segment` on).
    table: Vec<AtomicU64>,
    /// New entries past the table's plies.
    late: std::sync::Mutex<Vec<(GameId, u32)>>,
}

/// What one range of a commit adds to the tier.
#[derive(Default)]
pub(crate) struct RangeTier {
    /// The range's first key (`None`: from the first key): a look-up probes only the range
    /// of its key.
    lower: Option<Key>,
    /// Each new entry's hash and game ([`HashIndex::entry`]), until [`RangeTier::finish`]
    /// indexes them.
    hashes: Vec<u64>,
    /// The hash segment's bytes (the first key, then the index), once finished.
    segment: Vec<u8>,
    /// (block, games ascending as delta varints) of the blocks the range's new entries are in.
    blocks: Vec<(Key, Vec<u8>)>,
    /// The block being filled: its range and games so far.
    open: Option<(KeyRange, Vec<GameId>)>,
    /// Stored entries moved to the full-key family.
    pub promoted: Vec<(GameId, u32)>,
}

impl TierWrites {
    /// Room for the games of a commit from `segment` to `end` (exclusive).
    pub fn new(segment: GameId, end: u64) -> TierWrites {
        let games = end.saturating_sub(segment.0) as usize;
        let words = games * (TABLE_PLIES / 64) as usize;
        TierWrites { segment, table: (0..words).map(|_| AtomicU64::new(0)).collect(), late: Default::default() }
    }

    /// Files `key`, first reached by new game `game` at `ply` and by no other game, in the tier.
    pub fn add(&self, range: &mut RangeTier, key: &Key, game: GameId, ply: u32) -> Result<(), String> {
        let index = game.0.checked_sub(self.segment.0).map(|i| i as usize);
        let words = (TABLE_PLIES / 64) as usize;
        match index {
            Some(index) if index * words < self.table.len() => {
                if ply < TABLE_PLIES {
                    let word = &self.table[index * words + (ply / 64) as usize];
                    word.fetch_or(1 << (ply % 64), Ordering::Relaxed);
                } else {
                    self.late.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((game, ply));
                }
            }
            _ => return Err(format!("staged game {game} of position {key} is not one of the commit's")),
        }
        range.hashes.push(HashIndex::entry(key_hash(key), game).map_err(|err| format!("position {key}: {err}"))?);
        let in_open = range.open.as_ref().is_some_and(|(block, _)| block.contains(key));
        if !in_open {
            range.close_block();
            let block = block_of(key).map_err(|err| format!("position {key}: {err}"))?;
            range.open = Some((block, Vec::new()));
        }
        if let Some((_, games)) = &mut range.open {
            games.push(game);
        }
        Ok(())
    }

    /// The marked plies of each new game, ascending by game.
    fn new_marks(&self) -> Vec<(GameId, Vec<u32>)> {
        let words = (TABLE_PLIES / 64) as usize;
        let mut late = std::mem::take(&mut *self.late.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        late.sort_unstable();
        let mut marks = Vec::new();
        for (index, game_words) in self.table.chunks(words).enumerate() {
            let game = GameId(self.segment.0 + index as u64);
            let mut plies = Vec::new();
            for (at, word) in game_words.iter().enumerate() {
                let mut bits = word.load(Ordering::Relaxed);
                while bits != 0 {
                    plies.push(at as u32 * 64 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            let first = late.partition_point(|(g, _)| *g < game);
            let last = late.partition_point(|(g, _)| *g <= game);
            plies.extend(late[first..last].iter().map(|(_, ply)| *ply));
            if !plies.is_empty() {
                marks.push((game, plies));
            }
        }
        marks
    }
}

impl RangeTier {
    /// What the range from `lower` on adds, with room for `entries` new entries.
    pub fn new(lower: Option<Key>, entries: usize) -> RangeTier {
        RangeTier { lower, hashes: Vec::with_capacity(entries), ..RangeTier::default() }
    }

    fn close_block(&mut self) {
        if let Some((block, mut games)) = self.open.take() {
            games.sort_unstable();
            games.dedup();
            let mut bytes = Vec::with_capacity(games.len() * 2);
            let mut previous = 0;
            for game in games {
                put_varint(&mut bytes, game.0 - previous);
                previous = game.0;
            }
            self.blocks.push((block.first, bytes));
        }
    }

    /// Closes the range: its last block, and its hash segment built (in the range's worker,
    /// so that only the segment's bytes wait for the commit's tier files).
    pub fn finish(&mut self) -> Result<(), String> {
        self.close_block();
        if !self.hashes.is_empty() {
            let index = HashIndex::build(std::mem::take(&mut self.hashes));
            match &self.lower {
                Some(lower) => {
                    self.segment.push(1);
                    self.segment.extend_from_slice(lower.as_bytes());
                }
                None => self.segment.push(0),
            }
            index.write(&mut self.segment).map_err(|err| err.to_string())?;
        }
        Ok(())
    }
}

/// A hash segment's value: the range's first key (a flag byte, then the key if any) and its
/// [`HashIndex`].
fn read_range_index(mut value: &[u8]) -> Result<(Option<Key>, HashIndex), String> {
    let lower = match value.split_first() {
        Some((0, rest)) => {
            value = rest;
            None
        }
        Some((1, rest)) => {
            let (key, rest) = rest.split_first_chunk::<KEY_LEN>().ok_or("first key cut short")?;
            value = rest;
            Some(Key::from_bytes(*key))
        }
        _ => return Err("no range flag".to_owned()),
    };
    let index = HashIndex::read(&mut value).map_err(|err| err.to_string())?;
    Ok((lower, index))
}

/// The block of `key`: its (category, material) key range.
fn block_of(key: &Key) -> Result<KeyRange, String> {
    let (category, material) = key.category_and_material().map_err(|err| err.to_string())?;
    material_range(category, &material).map_err(|err| err.to_string())
}

/// Whether a replay wants a position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Yes,
    No,
    /// Neither this position nor any later one of the game (say, too few men left).
    NoMore,
}

impl From<bool> for Wanted {
    fn from(wanted: bool) -> Wanted {
        match wanted {
            true => Wanted::Yes,
            false => Wanted::No,
        }
    }
}

/// Replays `line` (game `game`) to its marked `plies` (ascending) and appends to `found` the
/// key and tier entry of each whose position `wanted` admits; `None` when the mainline does not
/// replay to its marks (corrupt data).
fn walk_marked(
    line: &Mainline,
    game: GameId,
    plies: &[u32],
    wanted: impl Fn(&Chess) -> Wanted,
    found: &mut Vec<(Key, TierHit)>,
) -> Option<()> {
    let mut reader = line.reader()?;
    let mut encoder = KeyEncoder::default();
    let mut ply = 0;
    // A position keyed, waiting for the move played from it.
    let mut pending: Option<(Key, u32)> = None;
    // Plays the next move (filing the pending position with it); whether there was one.
    let mut step = |reader: &mut MainlineReader, pending: &mut Option<(Key, u32)>| -> Option<bool> {
        let next = match reader.next() {
            Some(Some(m)) => Some(CompactMove::from_move(&m)),
            Some(None) => return None,
            None => None,
        };
        if let Some((key, at)) = pending.take() {
            found.push((key, TierHit { game, ply: at, next }));
        }
        Some(next.is_some())
    };
    for &mark in plies {
        while ply < mark {
            if !step(&mut reader, &mut pending)? {
                return None;
            }
            ply += 1;
        }
        match wanted(reader.position()) {
            Wanted::Yes => {
                let position = Position::from_chess(reader.position().clone()).ok()?;
                pending = Some((encoder.encode(&position).ok()?, mark));
            }
            Wanted::No => {}
            Wanted::NoMore => break,
        }
    }
    if pending.is_some() {
        step(&mut reader, &mut pending)?;
    }
    Some(())
}

impl Store {
    /// The hash segments of every commit, read again when a commit has landed since.
    pub(crate) fn tier_index(&self) -> Result<Arc<TierIndex>, StoreError> {
        let committed = self.committed.load(Ordering::Acquire);
        let loaded = self.tier.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(index) = loaded.filter(|index| index.through == committed) {
            return Ok(index);
        }
        let mut segments: Vec<(GameId, RangeIndexes)> = Vec::new();
        let mut iter = self.db.raw_iterator_cf(self.cf(options::POSITIONS));
        iter.seek([HASHES]);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if key.first() != Some(&HASHES) {
                break;
            }
            // A segment of a commit whose record this store has not read yet (a secondary
            // catching up) waits for it.
            let segment =
                GameId::from_bytes(key.get(1..9).unwrap_or_default()).ok_or_else(|| self.corrupt("tier key"))?;
            if segment.0 < committed {
                let range = read_range_index(value).map_err(|err| self.corrupt(format!("tier hashes: {err}")))?;
                match segments.last_mut() {
                    Some((last, ranges)) if *last == segment => ranges.push(range),
                    _ => segments.push((segment, vec![range])),
                }
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        let segments = segments.into_iter().map(|(_, ranges)| ranges).collect();
        let index = Arc::new(TierIndex { segments, through: committed });
        *self.tier.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(index.clone());
        Ok(index)
    }

    /// The marks of each of `games` that has some.
    fn marks_of(&self, games: &[GameId]) -> Result<Vec<(GameId, Vec<u32>)>, StoreError> {
        let cf = self.cf(options::POSITIONS);
        let mut marked = Vec::with_capacity(games.len());
        let found = self.db.multi_get_cf(games.iter().map(|&game| (cf, marks_key(game))));
        for (&game, found) in games.iter().zip(found) {
            if let Some(bytes) = found.map_err(|err| self.rocks(err))? {
                let plies = decode_marks(&bytes).ok_or_else(|| self.corrupt(format!("tier marks of game {game}")))?;
                marked.push((game, plies));
            }
        }
        Ok(marked)
    }

    /// Where the tier holds `key`, if it does: each candidate game of its hash is replayed to
    /// its marked plies, so a hash collision costs a replay, never a wrong answer.
    pub fn tier_locate(&self, key: &Key) -> Result<Option<TierHit>, StoreError> {
        self.tier_locate_in(&*self.tier_index()?, key)
    }

    /// [`Store::tier_locate`] with the hash segments read already (a commit looks up millions
    /// of keys).
    pub(crate) fn tier_locate_in(&self, index: &TierIndex, key: &Key) -> Result<Option<TierHit>, StoreError> {
        let hash = key_hash(key);
        // Of each commit, the range whose keys include `key`.
        let ranges = index.segments.iter().filter_map(|ranges| {
            let after = ranges.partition_point(|(lower, _)| lower.as_ref().is_none_or(|lower| lower <= key));
            ranges.get(after.checked_sub(1)?).map(|(_, index)| index)
        });
        let mut games: Vec<GameId> = ranges.flat_map(|range| range.candidates(hash)).collect();
        if games.is_empty() {
            // Most keys a later commit stages end here.
            return Ok(None);
        }
        games.sort_unstable();
        games.dedup();
        // Only a position of the key's material can be it: the others are not keyed. A key
        // naming no material (asked for, never stored) is in no game.
        let Ok((_, material)) = key.category_and_material() else { return Ok(None) };
        let same_material = |chess: &Chess| Wanted::from(Material(chess.board().material()) == material);
        let mut hit = None;
        self.walk_games(&self.marks_of(&games)?, same_material, |found| {
            hit = found.iter().find(|(k, _)| k == key).map(|(_, hit)| *hit);
            hit.is_none()
        })?;
        Ok(hit)
    }

    /// Replays each of `marked` (games with their marks) to its marked plies, keying the
    /// positions of a board `wanted` admits, and hands `each` a game's positions; stops when
    /// `each` says `false`.
    fn walk_games(
        &self,
        marked: &[(GameId, Vec<u32>)],
        wanted: impl Fn(&Chess) -> Wanted,
        mut each: impl FnMut(&[(Key, TierHit)]) -> bool,
    ) -> Result<(), StoreError> {
        let ids: Vec<GameId> = marked.iter().map(|(game, _)| *game).collect();
        let mut found = Vec::new();
        for ((game, plies), line) in marked.iter().zip(self.mainlines(&ids)?) {
            let line = line.ok_or_else(|| self.corrupt(format!("game {game} of the tier")))?;
            found.clear();
            walk_marked(&line, *game, plies, &wanted, &mut found)
                .ok_or_else(|| self.corrupt(format!("tier position of game {game}")))?;
            if !each(&found) {
                break;
            }
        }
        Ok(())
    }

    /// The tier positions of `games` (with their marks) of a board `wanted` admits (checked
    /// before keying) and a key `keep` admits, in key order with their stored values; the games
    /// are replayed on every core.
    fn tier_entries(
        &self,
        games: Vec<(GameId, Vec<u32>)>,
        wanted: impl Fn(&Chess) -> Wanted + Sync,
        keep: impl Fn(&Key) -> bool + Sync,
    ) -> Result<Vec<(Key, TierValue)>, StoreError> {
        let chunks: Vec<Vec<(Key, TierValue)>> = games
            .par_chunks(REPLAY_CHUNK)
            .map(|chunk| {
                let mut entries = Vec::new();
                let mut scratch = Vec::with_capacity(TIER_VALUE_MAX);
                self.walk_games(chunk, &wanted, |found| {
                    entries.extend(
                        found
                            .iter()
                            .filter(|(key, _)| keep(key))
                            .map(|(key, hit)| (*key, hit.inline_value(&mut scratch))),
                    );
                    true
                })?;
                Ok(entries)
            })
            .collect::<Result<_, StoreError>>()?;
        let mut entries: Vec<(Key, TierValue)> = chunks.into_iter().flatten().collect();
        entries.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    /// Appends to `games` those listed in `block` (a material range's first key), in every
    /// committed segment.
    fn block_games(&self, block: &Key, games: &mut Vec<GameId>) -> Result<(), StoreError> {
        let mut prefix = vec![BLOCKS];
        prefix.extend_from_slice(block.as_bytes());
        let mut iter = self.db.raw_iterator_cf(self.cf(options::POSITIONS));
        iter.seek(&prefix);
        let committed = self.committed.load(Ordering::Acquire);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if !key.starts_with(&prefix) {
                break;
            }
            if key.len() != BLOCK_KEY_LEN {
                return Err(self.corrupt("tier block key"));
            }
            let segment = GameId::from_bytes(&key[22..30]).ok_or_else(|| self.corrupt("tier block key"))?;
            if segment.0 < committed {
                let mut input = value;
                let mut previous = 0u64;
                while !input.is_empty() {
                    let gap = get_varint(&mut input).ok_or_else(|| self.corrupt("tier block"))?;
                    previous = previous.checked_add(gap).ok_or_else(|| self.corrupt("tier block"))?;
                    games.push(GameId(previous));
                }
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))
    }

    /// The tier positions in any of `ranges` (each one material's range in a category) whose
    /// board `admits` admits, in key order with their stored values: each game of their blocks
    /// is replayed once, and only its positions of those materials are keyed.
    pub(crate) fn tier_entries_of_materials(
        &self,
        ranges: &[KeyRange],
        admits: &(dyn Fn(&Chess) -> bool + Sync),
    ) -> Result<Vec<(Key, TierValue)>, StoreError> {
        let mut games = Vec::new();
        let mut materials = FxHashSet::default();
        for range in ranges {
            self.block_games(&range.first, &mut games)?;
            let (_, material) = range
                .first
                .category_and_material()
                .map_err(|err| self.corrupt(format!("key range {}: {err}", range.first)))?;
            materials.insert(material);
        }
        games.sort_unstable();
        games.dedup();
        // Thousands of point reads: on every core, in runs of neighbouring games.
        let marked: Vec<(GameId, Vec<u32>)> = games
            .par_chunks(REPLAY_CHUNK)
            .map(|chunk| self.marks_of(chunk))
            .collect::<Result<Vec<_>, StoreError>>()?
            .into_iter()
            .flatten()
            .collect();
        // Men are never added: a game with fewer than the wanted materials' least is done.
        let mut counts = [false; 33];
        for material in &materials {
            counts[material.men().min(32) as usize] = true;
        }
        let fewest = counts.iter().position(|&wanted| wanted).unwrap_or(0) as u32;
        let wanted = |chess: &Chess| {
            let men = chess.board().occupied().count() as u32;
            if men < fewest {
                Wanted::NoMore
            } else if counts[men.min(32) as usize]
                && materials.contains(&Material(chess.board().material()))
                && admits(chess)
            {
                Wanted::Yes
            } else {
                Wanted::No
            }
        };
        let mut sorted = ranges.to_vec();
        sorted.sort_unstable_by_key(|a| a.first);
        let inside = |key: &Key| {
            let after = sorted.partition_point(|range| range.first <= *key);
            after > 0 && sorted[after - 1].contains(key)
        };
        self.tier_entries(marked, wanted, inside)
    }

    /// The tier positions of the games from `first` to `end` (exclusive) whose board `wanted`
    /// admits (checked before keying), in key order with their stored values.
    pub(crate) fn tier_entries_of_games(
        &self,
        first: GameId,
        end: GameId,
        wanted: &(dyn Fn(&Chess) -> bool + Sync),
    ) -> Result<Vec<(Key, TierValue)>, StoreError> {
        let mut marked = Vec::new();
        self.each_marks(first, end, |game, plies| marked.push((game, plies)))?;
        self.tier_entries(marked, |chess: &Chess| Wanted::from(wanted(chess)), |_| true)
    }

    /// Positions in the single-game tier (marked plies), counted from the marks.
    pub fn tier_positions(&self) -> Result<u64, StoreError> {
        let mut count = 0;
        self.each_marks(GameId(0), GameId(u64::MAX), |_, plies| count += plies.len() as u64)?;
        Ok(count)
    }

    /// Calls `each` with the marks of every committed game from `first` to `end` (exclusive)
    /// that has some, in id order.
    fn each_marks(&self, first: GameId, end: GameId, mut each: impl FnMut(GameId, Vec<u32>)) -> Result<(), StoreError> {
        let mut read = rocksdb::ReadOptions::default();
        read.fill_cache(false);
        read.set_iterate_upper_bound(marks_key(end));
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(options::POSITIONS), read);
        iter.seek(marks_key(first));
        let committed = self.committed.load(Ordering::Acquire);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let game = GameId::from_bytes(&key[1..]).ok_or_else(|| self.corrupt("tier marks key"))?;
            if game.0 >= committed {
                break;
            }
            each(game, decode_marks(value).ok_or_else(|| self.corrupt(format!("tier marks of game {game}")))?);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))
    }

    /// Writes the tier records of a commit into SST files in `dir`, in parallel: the marks of
    /// its new games and of the stored games it took positions from, each range's hash segment,
    /// and the block lists. Returns the files written, in key order.
    pub(crate) fn write_tier_files(
        &self,
        writes: &TierWrites,
        ranges: &mut [RangeTier],
        dir: &std::path::Path,
    ) -> Result<Vec<std::path::PathBuf>, StoreError> {
        let mut hashes = Vec::new();
        let mut blocks = Vec::new();
        for (index, range) in ranges.iter_mut().enumerate() {
            let index = u16::try_from(index).map_err(|_| self.corrupt("more than 65,536 commit ranges"))?;
            if !range.segment.is_empty() {
                hashes.push((hashes_key(writes.segment, index), Some(std::mem::take(&mut range.segment))));
            }
            for (block, games) in std::mem::take(&mut range.blocks) {
                blocks.push((block_key(&block, writes.segment, index), Some(games)));
            }
        }
        let compressed = options::positions_sst(&self.cache);
        // Hash segments are random bits: compressing them costs time and saves nothing.
        let mut raw = options::positions_sst(&self.cache);
        raw.set_compression_type(rocksdb::DBCompressionType::None);
        raw.set_bottommost_compression_type(rocksdb::DBCompressionType::None);
        let write = |name: &str, records: Records, options: &rocksdb::Options| {
            let path = dir.join(name);
            self.write_records(records, options, &path).map(|written| written.then_some(path))
        };
        let (marks, (hashes, blocks)) = rayon::join(
            || {
                self.tier_marks_records(writes, ranges)
                    .and_then(|records| write("tier-marks.sst", records, &compressed))
            },
            || {
                rayon::join(
                    || write("tier-hashes.sst", hashes, &raw),
                    || {
                        blocks.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                        write("tier-blocks.sst", blocks, &compressed)
                    },
                )
            },
        );
        Ok([marks?, hashes?, blocks?].into_iter().flatten().collect())
    }

    /// The marks records of a commit, by game: the stored games that lost positions to the
    /// full-key family (their marks without them, or deleted), then the new games.
    fn tier_marks_records(&self, writes: &TierWrites, ranges: &[RangeTier]) -> Result<Records, StoreError> {
        let mut records = Vec::new();
        let mut promoted: FxHashMap<GameId, Vec<u32>> = FxHashMap::default();
        for range in ranges {
            for &(game, ply) in &range.promoted {
                promoted.entry(game).or_default().push(ply);
            }
        }
        let mut promoted: Vec<(GameId, Vec<u32>)> = promoted.into_iter().collect();
        promoted.sort_unstable_by_key(|(game, _)| *game);
        let ids: Vec<GameId> = promoted.iter().map(|(game, _)| *game).collect();
        let stored: FxHashMap<GameId, Vec<u32>> = self.marks_of(&ids)?.into_iter().collect();
        for (game, gone) in promoted {
            let kept: Vec<u32> =
                stored.get(&game).into_iter().flatten().copied().filter(|ply| !gone.contains(ply)).collect();
            let value = (!kept.is_empty()).then(|| {
                let mut bytes = Vec::new();
                encode_marks(&kept, &mut bytes);
                bytes
            });
            records.push((marks_key(game), value));
        }
        for (game, plies) in writes.new_marks() {
            let mut bytes = Vec::new();
            encode_marks(&plies, &mut bytes);
            records.push((marks_key(game), Some(bytes)));
        }
        Ok(records)
    }

    /// Writes `records` (in key order; `None` deletes) into a new SST file at `path`; `false`
    /// (no file) when there are none.
    fn write_records(
        &self,
        records: Records,
        options: &rocksdb::Options,
        path: &std::path::Path,
    ) -> Result<bool, StoreError> {
        if records.is_empty() {
            return Ok(false);
        }
        let mut writer = self.sst_writer(options, path)?;
        for (key, value) in records {
            match value {
                Some(value) => writer.put(&key, &value),
                None => writer.delete(&key),
            }
            .map_err(|err| self.rocks(err))?;
        }
        writer.finish().map_err(|err| self.rocks(err))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn marks_round_trip(plies in prop::collection::btree_set(0u32..600, 1..80)) {
            let plies: Vec<u32> = plies.into_iter().collect();
            let mut bytes = Vec::new();
            encode_marks(&plies, &mut bytes);
            prop_assert_eq!(decode_marks(&bytes), Some(plies));
        }

        #[test]
        fn damaged_marks_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..12)) {
            if let Some(plies) = decode_marks(&bytes) {
                let mut canonical = Vec::new();
                encode_marks(&plies, &mut canonical);
                prop_assert_eq!(canonical, bytes);
            }
        }
    }

    #[test]
    fn marks_are_runs() {
        let mut bytes = Vec::new();
        encode_marks(&[3, 4, 5, 6, 9, 10], &mut bytes);
        assert_eq!(bytes, [2, 3, 3, 2, 1]);
    }
}
