//! The scanner: passes over many stored positions, the one loop every whole-database or
//! per-material pass uses (pattern search, material search, the endgame table, piece-square
//! statistics).
//!
//! A scan is split into [`ScanPart`]s that hold each position once and run on every core: the
//! full-key family by key ranges, whose keys are decoded in key order (a (category, material)
//! block the [`ScanFilter`] refuses is skipped with one seek), and the single-game tier by runs
//! of games (or the games of some materials' blocks), each game replayed once and only the
//! positions the filter admits keyed. Each position reaches the visitor as a
//! [`ScannedPosition`]: its key and typed [`StoredValue`].

use std::sync::{
    Arc,
    atomic::{AtomicBool, AtomicU64, Ordering},
};

use rayon::prelude::*;

use super::{positions::Positions, records::FactsTable};
use crate::{
    codec::{Key, KeyBoard, KeyDecoder, KeyError, KeyRange, Material, material_range},
    model::{GameFacts, GameId, PositionStats},
    position::{Position, Variant},
    postings::PostingList,
    store::{
        Store, StoreError,
        layout::{
            Detail, Occurrences, StoredValue,
            keys::{FIRST_POSITION, POSITIONS_END},
        },
        options,
        tier::read::{TierEntry, TierHit, TierReader, Wanted},
    },
};

/// Games a part of a whole-database scan replays for the single-game tier.
const TIER_GAMES_PER_PART: u64 = 2048;
/// Full-key positions a part passes between two progress updates.
const PROGRESS_EVERY: u64 = 1 << 14;

/// A part of a scan over stored positions ([`Scanner::parts`], [`ScanPart::of_materials`]):
/// the parts of a scan hold each position once, so scans run them in parallel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanPart {
    /// The full-key family's positions in a key range.
    Family(KeyRange),
    /// The single-game tier's positions in material ranges (each one material's range in a
    /// category), found by replaying each game of their blocks once.
    TierMaterials(Arc<Vec<KeyRange>>),
    /// The single-game tier's positions of the games from the first id to the second
    /// (exclusive), found by replaying them.
    TierGames(GameId, GameId),
}

impl ScanPart {
    /// The parts holding every position in `ranges` (each one material's range in a
    /// category): the full-key family's range by range, the tier's in one part.
    pub fn of_materials(ranges: Vec<KeyRange>) -> Vec<ScanPart> {
        let mut parts: Vec<ScanPart> = ranges.iter().copied().map(ScanPart::Family).collect();
        parts.push(ScanPart::TierMaterials(Arc::new(ranges)));
        parts
    }
}

/// Live counters of a running scan, for progress display and interruption.
#[derive(Debug, Default)]
pub struct ScanProgress {
    /// Stored positions passed so far (visited, or skipped by material).
    pub passed: AtomicU64,
    /// Set to stop the scan early: the scan's caller then reports it interrupted.
    pub stop: AtomicBool,
}

impl ScanProgress {
    /// Whether the scan was told to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Which positions a scan visits: three tests, compiled into the scan's loops (they run on every
/// position of a whole-database scan).
pub struct ScanFilter<M, B, G> {
    /// Materials worth visiting among the full-key positions: a (category, material) block of
    /// another is skipped with one seek.
    pub material: M,
    /// Whether a tier position is worth visiting, tested on its board (and told its one game)
    /// as its game's replay reaches it, before keying: a position it refuses is not visited (a
    /// pattern is tested there, where the board costs nothing to get). It decides alone for
    /// the tier, so it also refuses the positions whose material `material` refuses (by the
    /// cheapest test that does, such as a count of men).
    pub board: B,
    /// Whether a tier game is worth replaying at all (a game filter): the positions only a
    /// refused game reaches are not visited. Full-key positions, which several games share,
    /// are visited whatever it says.
    pub game: G,
}

/// The filter of [`ScanFilter::all`].
pub type EveryPosition = ScanFilter<fn(&Material) -> bool, fn(&Position, GameId) -> bool, fn(GameId) -> bool>;

impl EveryPosition {
    /// Every position.
    pub fn all() -> EveryPosition {
        ScanFilter { material: |_| true, board: |_, _| true, game: |_| true }
    }
}

/// A stored position as a scan visits it.
pub struct ScannedPosition<'s> {
    /// Its key.
    pub key: Key,
    /// Its stored value.
    pub value: StoredValue<'s>,
    /// Whether [`ScanFilter::board`] admitted it already: a tier position, tested on its
    /// replayed board (a full-key position is not: test it on [`ScannedPosition::board`]).
    pub board_tested: bool,
    /// Its board, once decoded ([`ScannedPosition::board`]).
    board: Option<KeyBoard>,
    /// A tier position's game, ply and move, as its replay found them.
    tier: Option<TierHit>,
    decoder: &'s mut KeyDecoder,
    positions: &'s Positions<'s>,
    store: &'s Store,
}

impl ScannedPosition<'_> {
    /// Its board, decoded from its key when first asked for (a full-key position's from the
    /// material block the scan kept, in a few divisions).
    pub fn board(&mut self) -> Result<&KeyBoard, StoreError> {
        if self.board.is_none() {
            self.board = Some(decode_board(self.store, self.decoder, &self.key)?);
        }
        self.board.as_ref().ok_or_else(|| self.store.corrupt(format!("position key {}", self.key)))
    }

    /// The facts of game `id`, one of its games, from `facts` (the snapshot's table).
    pub fn facts(&self, facts: &FactsTable, id: GameId) -> Result<GameFacts, StoreError> {
        let without = || self.store.corrupt(format!("position {}: game {id} without facts", self.key));
        facts.get(id).ok_or_else(|| facts.missing(without))
    }

    /// The games reaching it and their results, a one-game value's result from its game's facts
    /// (`facts`, the snapshot's table).
    pub fn results(&self, facts: &FactsTable) -> Result<Occurrences, StoreError> {
        let corrupt = || self.store.corrupt(format!("position {}", self.key));
        self.value.occurrences(|id| facts.get(id)).ok_or_else(|| facts.missing(corrupt))
    }

    /// Every game that reached it (its posting list).
    pub fn games(&self) -> Result<PostingList, StoreError> {
        self.value.postings().ok_or_else(|| self.store.corrupt(format!("position {}", self.key)))
    }

    /// The one game that reached it, when only one did and its value says so without decoding.
    pub fn single_game(&self) -> Option<GameId> {
        match self.value {
            StoredValue::OneGame { game, .. } => Some(game),
            StoredValue::General(_) => None,
        }
    }

    /// A single-game tier position's game, the ply it stood there and its move (what the
    /// tier's replay found); `None` for a full-key position.
    pub fn tier_hit(&self) -> Option<&TierHit> {
        self.tier.as_ref()
    }

    /// The (category, material) block it lies in: the block's key range, and its material.
    pub fn block(&self) -> Result<(KeyRange, Material), StoreError> {
        let corrupt = |err: KeyError| self.store.corrupt(format!("position key {}: {err}", self.key));
        match &self.board {
            // Another variant's block is under its own first byte (a Chess960 board's category
            // is its representative's): its block is the key's.
            Some(board) if self.key.variant() == Some(Variant::Standard) => {
                Ok((material_range(board.category, &board.material).map_err(corrupt)?, board.material))
            }
            _ => self.key.material_block().map_err(corrupt),
        }
    }

    /// Its statistics, everything stored (its slices are the queries' to derive).
    pub fn stats(&self) -> Result<PositionStats, StoreError> {
        self.positions.decode(&self.key, &self.value, Detail::All)
    }
}

/// A worker's key decoders. The full-key family's admits each material block once by the
/// scan's filter and keeps the answer; tier positions' boards are decoded by the other, which
/// admits every block, so that neither's kept answers stand for the other's.
#[derive(Default)]
struct Decoders {
    family: KeyDecoder,
    boards: KeyDecoder,
}

/// The entries of one part, in key order: the full-key family's, or the tier's replayed ones
/// with the number of tier positions the replays passed.
enum PartEntries<'a> {
    Family(rocksdb::DBRawIteratorWithThreadMode<'a, rocksdb::DB>),
    Tier(Vec<TierEntry>, u64),
}

/// Passes over many positions ([`Snapshot::scanner`](crate::store::Snapshot::scanner)): those
/// of standard chess, unless [`Scanner::over`] names other keys.
#[derive(Clone, Copy)]
pub struct Scanner<'a> {
    store: &'a Store,
    committed: u64,
    /// The keys passed over: standard chess's (what searches, reports and exports answer for),
    /// or every key (what `verify` checks).
    keys: KeyRange,
}

impl<'a> Scanner<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Scanner<'a> {
        Scanner { store, committed, keys: KeyRange::STANDARD }
    }

    /// The scanner over the positions of `keys` instead: [`KeyRange::ALL`] for every variant's.
    pub fn over(self, keys: KeyRange) -> Scanner<'a> {
        Scanner { keys, ..self }
    }

    /// The scanner over `variant`'s positions.
    pub fn of_variant(self, variant: Variant) -> Scanner<'a> {
        self.over(KeyRange::of_variant(variant))
    }

    /// Every stored position split into parts for parallel scans: the full-key family in key
    /// ranges of similar size (between the first keys of its table files), and the single-game
    /// tier by runs of games (each replayed once).
    pub fn parts(&self) -> Result<Vec<ScanPart>, StoreError> {
        let store = self.store;
        let files = store.db.live_files().map_err(|err| store.rocks(err))?;
        let mut splits: Vec<Key> = files
            .into_iter()
            .filter(|file| file.column_family_name == options::POSITIONS)
            .filter_map(|file| Key::try_from(file.start_key?.as_slice()).ok())
            .filter(|key| *key > self.keys.first && self.keys.contains(key))
            .collect();
        splits.sort_unstable();
        splits.dedup();
        let mut parts = Vec::with_capacity(splits.len() + 1);
        let mut first = self.keys.first;
        for split in splits {
            parts.extend(KeyRange::until(first, split).map(ScanPart::Family));
            first = split;
        }
        parts.push(ScanPart::Family(KeyRange { first, last: self.keys.last }));
        let committed = self.committed.max(1);
        let mut first = 1;
        while first < committed {
            let end = (first + TIER_GAMES_PER_PART).min(committed);
            parts.push(ScanPart::TierGames(GameId(first), GameId(end)));
            first = end;
        }
        Ok(parts)
    }

    /// Visits every position of `parts` that `filter` admits, part by part on every core, each
    /// part in key order: `visit` adds a position to its part's result, `merge` joins the parts'
    /// results. A scan told to stop (`progress`) ends early with what it has.
    pub fn run<P, E, M, B, G>(
        &self,
        parts: &[ScanPart],
        filter: &ScanFilter<M, B, G>,
        progress: &ScanProgress,
        visit: impl Fn(&mut P, ScannedPosition<'_>) -> Result<(), E> + Sync,
        merge: impl Fn(P, P) -> P + Sync,
    ) -> Result<P, E>
    where
        P: Default + Send,
        E: From<StoreError> + Send,
        M: Fn(&Material) -> bool + Sync,
        B: Fn(&Position, GameId) -> bool + Sync,
        G: Fn(GameId) -> bool + Sync,
    {
        parts
            .par_iter()
            // Decoders (and their pawn-structure caches) per worker, not per part: a material
            // search has a part per (category, material).
            .map_init(Decoders::default, |decoders, part| {
                let mut partial = P::default();
                self.part(part, filter, progress, decoders, &mut |position| visit(&mut partial, position))?;
                Ok(partial)
            })
            .try_reduce(P::default, |a, b| Ok(merge(a, b)))
    }

    /// What `read` reads of every position, part by part (each part read whole when reached),
    /// each in key order.
    pub fn each<T: Send + 'static>(
        &self,
        read: impl Fn(&ScannedPosition) -> Result<T, StoreError> + Sync + 'static,
    ) -> Box<dyn Iterator<Item = Result<(Key, T), StoreError>> + 'a> {
        let parts = match self.parts() {
            Ok(parts) => parts,
            Err(err) => return Box::new(std::iter::once(Err(err))),
        };
        let scanner = *self;
        Box::new(parts.into_iter().flat_map(move |part| {
            let found = scanner.run(
                std::slice::from_ref(&part),
                &ScanFilter::all(),
                &ScanProgress::default(),
                |found: &mut Vec<(Key, T)>, position| {
                    found.push((position.key, read(&position)?));
                    Ok::<_, StoreError>(())
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            );
            let items: Box<dyn Iterator<Item = _>> = match found {
                Ok(found) => Box::new(found.into_iter().map(Ok)),
                Err(err) => Box::new(std::iter::once(Err(err))),
            };
            items
        }))
    }

    /// Visits the positions of one part (see [`Scanner::run`]).
    fn part<E: From<StoreError>>(
        &self,
        part: &ScanPart,
        filter: &ScanFilter<
            impl Fn(&Material) -> bool + Sync,
            impl Fn(&Position, GameId) -> bool + Sync,
            impl Fn(GameId) -> bool + Sync,
        >,
        progress: &ScanProgress,
        decoders: &mut Decoders,
        visit: &mut dyn FnMut(ScannedPosition<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let store = self.store;
        let positions = Positions::at(store, self.committed);
        // A stopped scan replays on without testing anything.
        let admits = |position: &Position, game: GameId| !progress.stopped() && (filter.board)(position, game);
        match self.entries(part, &filter.game, &admits)? {
            PartEntries::Family(mut iter) => {
                let passed =
                    scan_family(store, &positions, &mut iter, &filter.material, progress, &mut decoders.family, visit)?;
                progress.passed.fetch_add(passed % PROGRESS_EVERY, Ordering::Relaxed);
                iter.status().map_err(|err| store.rocks(err))?;
            }
            PartEntries::Tier(entries, passed) => {
                for entry in entries {
                    let (key, hit) = (entry.key(), entry.hit());
                    visit(ScannedPosition {
                        key,
                        value: hit.value(),
                        board_tested: true,
                        board: None,
                        tier: Some(hit),
                        decoder: &mut decoders.boards,
                        positions: &positions,
                        store,
                    })?;
                }
                progress.passed.fetch_add(passed, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// The entries of one part: a raw iterator over the family's range, or the tier positions
    /// the replay of its games (those `game` admits) finds (those `admits` admits).
    fn entries(
        &self,
        part: &ScanPart,
        game: &(impl Fn(GameId) -> bool + Sync),
        admits: &(impl Fn(&Position, GameId) -> bool + Sync),
    ) -> Result<PartEntries<'a>, StoreError> {
        let tier = TierReader::at(self.store, self.committed);
        // A game's positions are in the scan's keys when its variant's are (the tier's games
        // are replayed, not keyed, before this test): a game of another variant is left at its
        // first marked position.
        let in_keys = Variant::ALL.map(|variant| {
            let range = KeyRange::of_variant(variant);
            range.first <= self.keys.last && self.keys.first <= range.last
        });
        let admits = &|position: &Position, id: GameId| {
            let variant = position.variant();
            match Variant::ALL.iter().zip(in_keys).any(|(v, in_keys)| *v == variant && in_keys) {
                true => Wanted::from(admits(position, id)),
                false => Wanted::NoMore,
            }
        };
        Ok(match part {
            ScanPart::Family(range) => PartEntries::Family(family_iterator(self.store, range)),
            ScanPart::TierMaterials(ranges) => {
                let (entries, passed) = tier.entries_of_materials(ranges, game, admits)?;
                PartEntries::Tier(entries, passed)
            }
            ScanPart::TierGames(first, end) => {
                let (entries, passed) = tier.entries_of_games(*first, *end, game, admits)?;
                PartEntries::Tier(entries, passed)
            }
        })
    }
}

/// Visits a full-key part's entries, skipping the blocks of refused materials; returns the
/// entries passed.
fn scan_family<'s, E: From<StoreError>>(
    store: &'s Store,
    positions: &'s Positions<'s>,
    iter: &mut rocksdb::DBRawIteratorWithThreadMode<'_, rocksdb::DB>,
    material: impl Fn(&Material) -> bool,
    progress: &ScanProgress,
    decoder: &mut KeyDecoder,
    visit: &mut dyn FnMut(ScannedPosition<'_>) -> Result<(), E>,
) -> Result<u64, E> {
    let mut passed = 0u64;
    // The first key after a block whose material the filter refused.
    let mut skip_until: Option<Key> = None;
    while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
        passed += 1;
        if passed.is_multiple_of(PROGRESS_EVERY) {
            progress.passed.fetch_add(PROGRESS_EVERY, Ordering::Relaxed);
            if progress.stopped() {
                break;
            }
        }
        let key = Key::try_from(key).map_err(|_| store.corrupt("position key"))?;
        // A second key in a block already refused: jump past the block.
        if let Some(bound) = skip_until.take()
            && key < bound
        {
            iter.seek(bound.as_bytes());
            continue;
        }
        let admitted = decoder
            .admits(&key, |_, block| material(block))
            .map_err(|err| store.corrupt(format!("position key {key}: {err}")))?;
        if !admitted {
            skip_until = decoder.block_range().map(|range| range.after_last());
            iter.next();
            continue;
        }
        let value = StoredValue::parse(value).ok_or_else(|| store.corrupt(format!("position {key}")))?;
        visit(ScannedPosition {
            key,
            value,
            board_tested: false,
            board: None,
            tier: None,
            decoder: &mut *decoder,
            positions,
            store,
        })?;
        iter.next();
    }
    Ok(passed)
}

/// A raw iterator over the full-key family's positions in `range`, without filling the block
/// cache, positioned at its first entry.
pub(in crate::store) fn family_iterator<'a>(
    store: &'a Store,
    range: &KeyRange,
) -> rocksdb::DBRawIteratorWithThreadMode<'a, rocksdb::DB> {
    // The last range ends where the tier's records start: a key past the last category (a
    // damaged one) is read, and refused as corrupt, rather than passed over.
    let after = range.after_last();
    let upper = match range.last == Key::MAX {
        true => POSITIONS_END,
        false => after.as_bytes().as_slice().min(POSITIONS_END),
    };
    let mut iter = store.db.raw_iterator_cf_opt(store.cf(options::POSITIONS), options::scan_reads(upper));
    iter.seek(range.first.as_bytes().as_slice().max(FIRST_POSITION));
    iter
}

/// The board of a stored key, decoded through `decoder` (keys in order decode faster).
fn decode_board(store: &Store, decoder: &mut KeyDecoder, key: &Key) -> Result<KeyBoard, StoreError> {
    let corrupt = |err: KeyError| store.corrupt(format!("position key {key}: {err}"));
    // A block the scan's filter refused stays refused in the decoder: decode such a key alone.
    let decoded = match decoder.decode(key, |_, _| true).map_err(corrupt)? {
        Some(board) => Some(board),
        None => key.decode_board(|_, _| true).map_err(corrupt)?,
    };
    decoded.ok_or_else(|| store.corrupt(format!("position key {key}")))
}
