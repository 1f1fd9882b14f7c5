//! The players view: the games stored under a player's name (as the players family spells it),
//! and the spellings that hold a word (the names family), what a player lookup reads.

use shakmaty::Color;

use crate::{
    model::GameId,
    store::{
        Store, StoreError,
        layout::keys::{parse_name_key, parse_player_key, player_prefix},
        options,
    },
};

/// Reads the players index ([`Snapshot::players`](crate::store::Snapshot::players)).
pub struct Players<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> Players<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Players<'a> {
        Players { store, committed }
    }

    /// Ids of the games whose player of `color` (either, when `None`) is spelled `name` (as
    /// [`player_name`](crate::model::player_name) normalises it: case, spaces and commas),
    /// ascending. Lookups by any spelling go through [`find_players`](crate::explore::find_players).
    pub fn games(&self, name: &str, color: Option<Color>) -> Result<Vec<GameId>, StoreError> {
        let store = self.store;
        let mut prefix = player_prefix(name);
        prefix.push(0);
        let mut iter = store.db.raw_iterator_cf(store.cf(options::PLAYERS));
        iter.seek(&prefix);
        let mut ids = Vec::new();
        while let Some(key) = iter.key() {
            if !key.starts_with(&prefix) {
                break;
            }
            let (side, id) = parse_player_key(key).ok_or_else(|| store.corrupt("player key"))?;
            if color.is_none_or(|c| c == side) && id.0 < self.committed {
                ids.push(id);
            }
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// The spellings (as the players family holds them) with a folded word equal to `token`,
    /// or starting with it when `prefix`; at most `limit`, in the word's order.
    pub fn spellings(&self, token: &str, prefix: bool, limit: usize) -> Result<Vec<String>, StoreError> {
        let store = self.store;
        let mut start = token.as_bytes().to_vec();
        if !prefix {
            start.push(0);
        }
        let mut iter = store.db.raw_iterator_cf(store.cf(options::NAMES));
        iter.seek(&start);
        let mut names = Vec::new();
        while let Some(key) = iter.key() {
            if !key.starts_with(&start) || names.len() >= limit {
                break;
            }
            let name = parse_name_key(key).ok_or_else(|| store.corrupt("name key"))?;
            let name = String::from_utf8(name.to_vec()).map_err(|_| store.corrupt("name key"))?;
            // Under a prefix, a name may hold two tokens that start with it.
            if !prefix || !names.contains(&name) {
                names.push(name);
            }
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        Ok(names)
    }
}
