//! The facts family and its in-memory table: each game's result, ratings, month and speed, eight
//! bytes a game ([`layout::encode_facts`]), under its id.
//!
//! Filtered lookups need the facts of every game of a position: the month × speed × rating-band
//! slices are derived from them instead of being stored with each position. Readers hold the
//! committed games' facts in memory (8 MB per million games), loaded on first use and extended
//! when later commits add games.

use std::sync::{Arc, PoisonError, RwLock};

use super::{Store, StoreError, layout, options};
use crate::model::{GameFacts, GameId};

/// The facts of games `1..=len`, packed as the facts family stores them.
#[derive(Debug, Default)]
pub struct FactsTable {
    packed: Vec<[u8; layout::FACTS_LEN]>,
}

impl FactsTable {
    /// The facts of game `id`, if loaded.
    pub fn get(&self, id: GameId) -> Option<GameFacts> {
        let index = usize::try_from(id.0.checked_sub(1)?).ok()?;
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

/// The shared table a [`Store`] keeps.
pub(super) type SharedFacts = RwLock<Arc<FactsTable>>;

impl Store {
    /// The facts of every committed game up to at least `highest` (when committed): loads what
    /// the table lacks.
    pub fn facts(&self, highest: GameId) -> Result<Arc<FactsTable>, StoreError> {
        let current = self.facts.read().unwrap_or_else(PoisonError::into_inner).clone();
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
        let mut iter = self.db.raw_iterator_cf(self.cf(options::FACTS));
        iter.seek(GameId(loaded + 1).to_bytes());
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let next = packed.len() as u64 + 1;
            if next >= committed {
                break;
            }
            let bytes = <[u8; layout::FACTS_LEN]>::try_from(value).ok();
            match (GameId::from_bytes(key), bytes) {
                (Some(id), Some(bytes)) if id.0 == next && layout::decode_facts(id, &bytes).is_some() => {
                    packed.push(bytes)
                }
                _ => return Err(self.corrupt(format!("facts of game {next}"))),
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        if packed.len() as u64 + 1 < committed {
            return Err(self.corrupt(format!("facts of game {}: missing", packed.len() + 1)));
        }
        *guard = Arc::new(FactsTable { packed });
        Ok(guard.clone())
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
