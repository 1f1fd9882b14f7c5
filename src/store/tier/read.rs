//! Reading the single-game tier: finding a key by replaying the game its range's map names,
//! and listing the tier positions of some materials, or of a run of games, for scans.

use std::{cell::RefCell, sync::Arc};

use rayon::prelude::*;
use rustc_hash::FxHashSet;
use shakmaty::{Color, Position as _};

use super::{TierIndex, block_of, has_pawn_files, material_blocks};
use crate::{
    codec::{CompactMove, Key, KeyDecoder, KeyRange, Material, mainline::MainlineReader},
    model::{GameId, Mainline},
    position::Position,
    store::{
        Store, StoreError,
        layout::{
            StoredValue,
            keys::{marks_key, parse_marks_key},
            tier::decode_marks,
        },
        options,
        read::games::Games,
    },
};

/// Games a reader replays together (one multi-get of their mainlines, one task).
const REPLAY_CHUNK: usize = 256;

/// Games whose marks [`TierReader::entries_where`] holds at a time.
const REPLAY_SLICE: u64 = 1 << 16;

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
    /// The position's stored value: its one game and the move played there.
    pub fn value(&self) -> StoredValue<'static> {
        StoredValue::OneGame { game: self.game, next: self.next }
    }
}

/// A tier position as a scan lists it (millions at a time): its key and its [`TierHit`], packed
/// into 36 bytes instead of a tuple's 40.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TierEntry {
    key: Key,
    game: [u8; 8],
    ply: [u8; 4],
    next: u16,
}

const _: () = assert!(std::mem::size_of::<TierEntry>() == 36);

impl TierEntry {
    fn of((key, hit): (Key, TierHit)) -> TierEntry {
        let next = hit.next.map_or(0, CompactMove::bits);
        TierEntry { key, game: hit.game.0.to_le_bytes(), ply: hit.ply.to_le_bytes(), next }
    }

    /// The position's key.
    pub(crate) fn key(&self) -> Key {
        self.key
    }

    /// Where the tier holds the position.
    pub(crate) fn hit(&self) -> TierHit {
        TierHit {
            game: GameId(u64::from_le_bytes(self.game)),
            ply: u32::from_le_bytes(self.ply),
            // Bits of a move or 0, as packed.
            next: CompactMove::from_bits(self.next),
        }
    }
}

/// Tier positions found by replaying games, in key order, and how many marked plies the replays
/// passed (what a scan counts as passed).
pub(crate) type TierEntries = (Vec<TierEntry>, u64);

/// Whether a replay wants a position.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wanted {
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
    wanted: impl Fn(&Position, GameId) -> Wanted,
    found: &mut Vec<(Key, TierHit)>,
) -> Option<()> {
    let mut reader = line.reader()?;
    let mut ply = 0;
    // A position keyed, waiting for the move played from it.
    let mut pending: Option<(Key, u32)> = None;
    // Plays the next move (filing the pending position with it); whether there was one.
    let mut step = |reader: &mut MainlineReader, pending: &mut Option<(Key, u32)>| -> Option<bool> {
        let next = match reader.next() {
            // The castling mode stays the start's all game long.
            Some(Some(m)) => Some(CompactMove::from_move_in(&m, reader.current().castles().mode())),
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
        match wanted(reader.current(), game) {
            Wanted::Yes => {
                // Through the thread's encoder, which keeps the frames of the games before.
                pending = Some((Key::encode(reader.current()).ok()?, mark));
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

thread_local! {
    /// Finds the blocks of the keys a thread looks up: it keeps the material block of the last
    /// key, and a commit looks its keys up in key order.
    static DECODER: RefCell<KeyDecoder> = RefCell::new(KeyDecoder::default());
}

/// The block of `key` and its side to move ([`block_of`]); `None` for a key of no material
/// block.
fn key_block(key: &Key) -> Option<(u64, Color)> {
    DECODER.with_borrow_mut(|decoder| block_of(decoder, key)).ok()
}

/// Reads the single-game tier as it stands for the games below a committed id: a snapshot's, or
/// the writer's own.
pub(crate) struct TierReader<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> TierReader<'a> {
    pub(crate) fn at(store: &'a Store, committed: u64) -> TierReader<'a> {
        TierReader { store, committed }
    }

    /// The tier maps of every commit, read again when a commit has landed since.
    pub(crate) fn index(&self) -> Result<Arc<TierIndex>, StoreError> {
        let (store, committed) = (self.store, self.committed);
        let loaded = store.tier.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(index) = loaded.as_ref().filter(|index| index.through() == committed) {
            return Ok(index.clone());
        }
        let index = Arc::new(TierIndex::read(store, committed, loaded.as_deref())?);
        *store.tier.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(index.clone());
        Ok(index)
    }

    /// The games that may hold `key`: in each commit's segment, the one game the map of the
    /// range holding `key` names. A key that names no material block (asked for, never stored)
    /// has none.
    pub(crate) fn candidates(&self, index: &TierIndex, key: &Key) -> Result<Vec<GameId>, StoreError> {
        match key_block(key) {
            Some((block, _)) => index.candidates(self.store, key, block),
            None => Ok(Vec::new()),
        }
    }

    /// The error of each map of `index` that does not read (those not kept are read).
    pub(crate) fn unreadable_maps(&self, index: &TierIndex) -> Vec<StoreError> {
        index.unreadable(self.store)
    }

    /// The marks of each of `games` that has some.
    pub(crate) fn marks_of(&self, games: &[GameId]) -> Result<Vec<(GameId, Vec<u32>)>, StoreError> {
        let store = self.store;
        let cf = store.cf(options::POSITIONS);
        let mut marked = Vec::with_capacity(games.len());
        let found = store.db.multi_get_cf(games.iter().map(|&game| (cf, marks_key(game))));
        for (&game, found) in games.iter().zip(found) {
            if let Some(bytes) = found.map_err(|err| store.rocks(err))? {
                let plies = decode_marks(&bytes).ok_or_else(|| store.corrupt(format!("tier marks of game {game}")))?;
                marked.push((game, plies));
            }
        }
        Ok(marked)
    }

    /// Where the tier holds `key`, if it does: the game each commit's map names is replayed to
    /// its marked plies, so a key the tier does not hold costs a replay, never a wrong answer.
    pub(crate) fn locate(&self, key: &Key) -> Result<Option<TierHit>, StoreError> {
        self.locate_in(&*self.index()?, key)
    }

    /// [`TierReader::locate`] with the tier maps read already (a commit looks up millions of
    /// keys).
    pub(crate) fn locate_in(&self, index: &TierIndex, key: &Key) -> Result<Option<TierHit>, StoreError> {
        // A key naming no material block (asked for, never stored) is in no game.
        let Some((block, turn)) = key_block(key) else { return Ok(None) };
        let mut games = index.candidates(self.store, key, block)?;
        if games.is_empty() {
            // The keys of blocks no map lists end here.
            return Ok(None);
        }
        games.sort_unstable();
        games.dedup();
        let Ok(material) = key.material() else { return Ok(None) };
        // Only a position of the key's block and side to move can be it: the others are not
        // keyed.
        let same_block = |position: &Position, _: GameId| {
            let chess = position.shakmaty();
            let board = chess.board();
            Wanted::from(chess.turn() == turn && has_pawn_files(board, block) && Material(board.material()) == material)
        };
        let mut hit = None;
        self.walk_games(&self.marks_of(&games)?, same_block, |found| {
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
        wanted: impl Fn(&Position, GameId) -> Wanted,
        mut each: impl FnMut(&[(Key, TierHit)]) -> bool,
    ) -> Result<(), StoreError> {
        let ids: Vec<GameId> = marked.iter().map(|(game, _)| *game).collect();
        let mut found = Vec::new();
        let lines = Games::at(self.store, self.committed).mainlines(&ids)?;
        for ((game, plies), line) in marked.iter().zip(lines) {
            let line = line.ok_or_else(|| self.store.corrupt(format!("game {game} of the tier")))?;
            found.clear();
            walk_marked(&line, *game, plies, &wanted, &mut found)
                .ok_or_else(|| self.store.corrupt(format!("tier position of game {game}")))?;
            if !each(&found) {
                break;
            }
        }
        Ok(())
    }

    /// The tier positions of `games` (with their marks) of a board `wanted` admits (checked
    /// before keying) and a key `keep` admits, in key order; the games are replayed on every
    /// core.
    fn tier_entries(
        &self,
        games: Vec<(GameId, Vec<u32>)>,
        wanted: impl Fn(&Position, GameId) -> Wanted + Sync,
        keep: impl Fn(&Key) -> bool + Sync,
    ) -> Result<TierEntries, StoreError> {
        let marked = games.iter().map(|(_, plies)| plies.len() as u64).sum();
        let chunks: Vec<Vec<TierEntry>> = games
            .par_chunks(REPLAY_CHUNK)
            .map(|chunk| {
                let mut entries = Vec::new();
                self.walk_games(chunk, &wanted, |found| {
                    entries.extend(found.iter().filter(|(key, _)| keep(key)).copied().map(TierEntry::of));
                    true
                })?;
                Ok(entries)
            })
            .collect::<Result<_, StoreError>>()?;
        let mut entries: Vec<TierEntry> = chunks.into_iter().flatten().collect();
        entries.par_sort_unstable_by(|a, b| a.key.cmp(&b.key));
        Ok((entries, marked))
    }

    /// The tier positions in any of `ranges` (each one material's range in a category) whose
    /// board `admits` admits, in key order: each game of their blocks that `game` admits is
    /// replayed once, and only its positions of those materials are keyed.
    pub(crate) fn entries_of_materials(
        &self,
        ranges: &[KeyRange],
        game: &(impl Fn(GameId) -> bool + Sync),
        admits: &(impl Fn(&Position, GameId) -> Wanted + Sync),
    ) -> Result<TierEntries, StoreError> {
        let mut games = Vec::new();
        let mut materials = FxHashSet::default();
        let index = self.index()?;
        for range in ranges {
            index.games_of_blocks(self.store, range, material_blocks(&range.first), &mut games)?;
            let material = range
                .first
                .material()
                .map_err(|err| self.store.corrupt(format!("key range {}: {err}", range.first)))?;
            materials.insert(material);
        }
        games.sort_unstable();
        games.dedup();
        games.retain(|&id| game(id));
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
        let wanted = |position: &Position, game: GameId| {
            let board = position.board();
            let men = board.occupied().count() as u32;
            if men < fewest {
                Wanted::NoMore
            } else if counts[men.min(32) as usize] && materials.contains(&Material(board.material())) {
                admits(position, game)
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

    /// The tier positions of the games from `first` to `end` (exclusive) that `game` admits
    /// whose board `wanted` admits (checked before keying), in key order.
    pub(crate) fn entries_of_games(
        &self,
        first: GameId,
        end: GameId,
        game: &(impl Fn(GameId) -> bool + Sync),
        wanted: &(impl Fn(&Position, GameId) -> Wanted + Sync),
    ) -> Result<TierEntries, StoreError> {
        let (mut marked, mut skipped) = (Vec::new(), 0);
        self.each_marks(first, end, |id, plies| match game(id) {
            true => marked.push((id, plies)),
            false => skipped += plies.len() as u64,
        })?;
        let (entries, passed) = self.tier_entries(marked, wanted, |_| true)?;
        // The refused games' positions count as passed (for progress), unseen.
        Ok((entries, passed + skipped))
    }

    /// Every tier position whose key `keep` admits, in key order, or `None` once more than
    /// `at_most` are: each game with marks replayed once, [`REPLAY_SLICE`] games at a time
    /// (their marks in memory).
    pub(crate) fn entries_where(
        &self,
        keep: impl Fn(&Key) -> bool + Sync,
        at_most: usize,
    ) -> Result<Option<Vec<TierEntry>>, StoreError> {
        let mut entries = Vec::new();
        let mut first = 0;
        while first < self.committed {
            let end = first.saturating_add(REPLAY_SLICE).min(self.committed);
            let mut marked = Vec::new();
            self.each_marks(GameId(first), GameId(end), |id, plies| marked.push((id, plies)))?;
            entries.extend(self.tier_entries(marked, |_: &Position, _| Wanted::Yes, &keep)?.0);
            if entries.len() > at_most {
                return Ok(None);
            }
            first = end;
        }
        entries.par_sort_unstable_by_key(|entry| entry.key);
        Ok(Some(entries))
    }

    /// Positions in the single-game tier (marked plies), counted from the marks.
    pub(crate) fn count(&self) -> Result<u64, StoreError> {
        let mut count = 0;
        self.each_marks(GameId(0), GameId(u64::MAX), |_, plies| count += plies.len() as u64)?;
        Ok(count)
    }

    /// Calls `each` with the marks of every committed game from `first` to `end` (exclusive)
    /// that has some, in id order.
    fn each_marks(&self, first: GameId, end: GameId, mut each: impl FnMut(GameId, Vec<u32>)) -> Result<(), StoreError> {
        let store = self.store;
        let mut iter = store.db.raw_iterator_cf_opt(store.cf(options::POSITIONS), options::scan_reads(&marks_key(end)));
        iter.seek(marks_key(first));
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let game = parse_marks_key(key).ok_or_else(|| store.corrupt("tier marks key"))?;
            if game.0 >= self.committed {
                break;
            }
            each(game, decode_marks(value).ok_or_else(|| store.corrupt(format!("tier marks of game {game}")))?);
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))
    }
}
