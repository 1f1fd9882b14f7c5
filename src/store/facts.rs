//! The facts family and its in-memory table: each game's result, ratings, month and speed, eight
//! bytes a game ([`layout::encode_facts`]), stored in runs of consecutive games (one value a
//! writer batch, under its first game's id), so that loading the table reads a value per
//! twelve thousand games or so rather than one per game.
//!
//! Filtered lookups need the facts of every game of a position: the month × speed × rating-band
//! slices are derived from them instead of being stored with each position. Readers hold the
//! committed games' facts in memory (8 MB per million games), loaded on first use and extended
//! when later commits add games.

use std::sync::{Arc, PoisonError, RwLock};

use super::{Store, StoreError, layout, options};
use crate::model::{GameFacts, GameId};

/// The facts of games `first..first + len`, packed as the facts family stores them: a store's
/// table of committed games (from game 1), or a commit's new games ([`Store::new_facts`]).
#[derive(Debug)]
pub struct FactsTable {
    first: GameId,
    packed: Vec<[u8; layout::FACTS_LEN]>,
}

impl Default for FactsTable {
    fn default() -> FactsTable {
        FactsTable { first: GameId(1), packed: Vec::new() }
    }
}

impl FactsTable {
    /// The facts of game `id`, if loaded.
    pub fn get(&self, id: GameId) -> Option<GameFacts> {
        let index = usize::try_from(id.0.checked_sub(self.first.0)?).ok()?;
        // Checked when loaded.
        layout::unpack_facts(id, *self.packed.get(index)?)
    }

    /// Games loaded.
    pub fn len(&self) -> u64 {
        self.packed.len() as u64
    }

    /// Whether no game is loaded.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }
}

/// One value of the facts family: the facts of games of consecutive ids from its key's.
struct FactsRun<'a> {
    first: u64,
    bytes: &'a [u8],
}

impl<'a> FactsRun<'a> {
    /// A stored run; `None` unless its key is a game id and its bytes whole facts.
    fn read(key: &[u8], bytes: &'a [u8]) -> Option<FactsRun<'a>> {
        let first = GameId::from_bytes(key)?.0;
        (first > 0 && !bytes.is_empty() && bytes.len().is_multiple_of(layout::FACTS_LEN))
            .then_some(FactsRun { first, bytes })
    }

    /// The id after its last game.
    fn end(&self) -> u64 {
        self.first + (self.bytes.len() / layout::FACTS_LEN) as u64
    }

    fn holds(&self, id: GameId) -> bool {
        (self.first..self.end()).contains(&id.0)
    }

    /// The checked facts bytes of game `id`; `None` outside the run or for bytes that are not
    /// valid facts.
    fn get(&self, id: GameId) -> Option<[u8; layout::FACTS_LEN]> {
        let at = usize::try_from(id.0.checked_sub(self.first)?).ok()? * layout::FACTS_LEN;
        let bytes: [u8; layout::FACTS_LEN] = self.bytes.get(at..at + layout::FACTS_LEN)?.try_into().ok()?;
        layout::decode_facts(id, &bytes).map(|_| bytes)
    }
}

/// The shared table a [`Store`] keeps.
pub(super) type SharedFacts = RwLock<Arc<FactsTable>>;

impl Store {
    /// The facts of every committed game up to at least `highest` (when committed): loads what
    /// the table lacks.
    pub fn facts(&self, highest: GameId) -> Result<Arc<FactsTable>, StoreError> {
        let current = self.facts.read().unwrap_or_else(PoisonError::into_inner).clone();
        // The store's table starts at game 1.
        if highest.0 <= current.len() {
            return Ok(current);
        }
        let committed = self.committed_for(highest)?;
        let mut guard = self.facts.write().unwrap_or_else(PoisonError::into_inner);
        let loaded = guard.len();
        if loaded + 1 >= committed {
            return Ok(guard.clone());
        }
        let mut packed = guard.packed.clone();
        self.load_facts(loaded + 1, committed, &mut packed)?;
        *guard = Arc::new(FactsTable { first: GameId(1), packed });
        Ok(guard.clone())
    }

    /// The facts of the games a commit adds, `first..end` (written, not committed yet).
    pub(super) fn new_facts(&self, first: GameId, end: GameId) -> Result<FactsTable, StoreError> {
        let mut packed = Vec::with_capacity(end.0.saturating_sub(first.0).min(1 << 24) as usize);
        self.load_facts(first.0, end.0, &mut packed)?;
        Ok(FactsTable { first, packed })
    }

    /// Appends to `packed` the facts of games `first..end`, every one of them, in one pass.
    fn load_facts(&self, first: u64, end: u64, packed: &mut Vec<[u8; layout::FACTS_LEN]>) -> Result<(), StoreError> {
        // One sequential pass: read ahead, and leave the block cache to lookups.
        let mut read = rocksdb::ReadOptions::default();
        read.fill_cache(false);
        read.set_readahead_size(4 << 20);
        read.set_iterate_upper_bound(GameId(end).to_bytes());
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(options::FACTS), read);
        iter.seek_for_prev(GameId(first).to_bytes());
        let mut next = first;
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if next >= end {
                break;
            }
            let run = FactsRun::read(key, value).ok_or_else(|| self.corrupt(format!("facts of game {next}")))?;
            // Runs follow each other without a gap.
            if !run.holds(GameId(next)) {
                return Err(self.corrupt(format!("facts of game {next}: missing")));
            }
            for id in next..run.end().min(end) {
                let bytes = run.get(GameId(id)).ok_or_else(|| self.corrupt(format!("facts of game {id}")))?;
                packed.push(bytes);
            }
            next = run.end().min(end);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        if next < end {
            return Err(self.corrupt(format!("facts of game {next}: missing")));
        }
        Ok(())
    }

    /// The facts of game `id` read from the facts family (its run), unchecked for commitment.
    pub(super) fn read_facts(&self, id: GameId) -> Result<Option<GameFacts>, StoreError> {
        let mut iter = self.db.raw_iterator_cf(self.cf(options::FACTS));
        iter.seek_for_prev(id.to_bytes());
        iter.status().map_err(|err| self.rocks(err))?;
        let (Some(key), Some(value)) = (iter.key(), iter.value()) else { return Ok(None) };
        let run = FactsRun::read(key, value).ok_or_else(|| self.corrupt(format!("facts of game {id}")))?;
        Ok(run.get(id).and_then(|bytes| layout::unpack_facts(id, bytes)))
    }

    /// Fills the slices of `stats` (read with its games by move) from its games' facts.
    pub(crate) fn derive_slices(&self, stats: &mut crate::model::PositionStats, what: &str) -> Result<(), StoreError> {
        let Some(highest) = stats.highest_game() else {
            return Ok(());
        };
        let facts = self.facts(highest)?;
        stats.derive_slices(|id| facts.get(id)).ok_or_else(|| self.corrupt(format!("{what}: a game without facts")))
    }
}
