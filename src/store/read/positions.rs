//! The positions view: a position's statistics (from the full-key family, else the single-game
//! tier), as far as a reader asks, what its annotated games said of it, the games that reached it, the games and results of many
//! positions read together, its imported opening name, and counts of the stored positions.

use shakmaty::Color;

use super::{facts::Facts, games::Games};
use crate::{
    codec::{Key, KeyDecoder, KeyRange},
    model::{GameId, NoteEntry, NoteSums, PositionStats},
    position::Position,
    store::{
        Store, StoreError,
        layout::{
            Detail, FactsNeeded, Occurrences, StoredValue, decode_opening,
            keys::{MARKS, NOTE_GAMES, NOTE_SUMS, note_key},
            notes::{decode_entries, decode_sums, each_entry},
        },
        options,
        tier::read::TierReader,
        write::SUMMED_FROM,
    },
    varint::get_varint,
};

/// Distinct positions, counted by [`Positions::count`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PositionCounts {
    /// Distinct positions.
    pub distinct: u64,
    /// Positions reached by exactly one game.
    pub single_game: u64,
}

impl PositionCounts {
    /// Counts one stored value.
    pub(in crate::store) fn add(&mut self, value: &StoredValue) {
        self.distinct += 1;
        self.single_game += u64::from(value.holds_one_game());
    }
}

/// Reads positions ([`Snapshot::positions`](crate::store::Snapshot::positions)).
pub struct Positions<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> Positions<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Positions<'a> {
        Positions { store, committed }
    }

    /// A position's statistics, decoded as far as `detail` says (its slices are derived by the
    /// queries that want them, from its games' facts); `None` when no game reached it.
    pub fn get(&self, key: &Key, detail: Detail) -> Result<Option<PositionStats>, StoreError> {
        self.with_value(key, |value| self.decode(key, value, detail))
    }

    /// The games that reached a position, ascending (none when none did).
    pub fn game_ids(&self, key: &Key) -> Result<Vec<GameId>, StoreError> {
        let ids = |value: &StoredValue| value.game_ids().ok_or_else(|| self.store.corrupt(format!("position {key}")));
        Ok(self.with_value(key, ids)?.unwrap_or_default())
    }

    /// The games and results of each of `keys` the full-key family holds (`None` for the others:
    /// positions one game reached, in the single-game tier, or none), read together in one
    /// batched read, without decoding more of their values.
    pub fn family_occurrences(&self, keys: &[Key]) -> Result<Vec<Option<Occurrences>>, StoreError> {
        let store = self.store;
        let cf = store.cf(options::POSITIONS);
        let found = store.db.batched_multi_get_cf(cf, keys.iter().map(Key::as_bytes), false);
        let mut facts = None;
        keys.iter()
            .zip(found)
            .map(|(key, found)| {
                let corrupt = || store.corrupt(format!("position {key}"));
                let mut occurrences = |value: &StoredValue| -> Result<Option<Occurrences>, StoreError> {
                    let table = match &facts {
                        Some(table) => table,
                        None => facts.insert(self.facts().table()?),
                    };
                    value.occurrences(|id| table.get(id)).map(Some).ok_or_else(|| table.missing(corrupt))
                };
                // The value is read where it lies (a popular position's is large): not copied.
                match found.map_err(|err| store.rocks(err))? {
                    Some(bytes) => occurrences(&StoredValue::parse(&bytes).ok_or_else(corrupt)?),
                    None => Ok(None),
                }
            })
            .collect()
    }

    /// Each annotated game's notes at a position ([`NoteEntry`], in (game, move) order; none
    /// without notes): the full-key family's, else the tier game's annotations at its ply.
    pub fn note_entries(&self, key: &Key) -> Result<Vec<NoteEntry>, StoreError> {
        let mut entries = Vec::new();
        self.each_note_entry(key, |entry| entries.push(*entry))?;
        Ok(entries)
    }

    /// Hands each of [`Positions::note_entries`] to `each` as it is read, without a list.
    pub fn each_note_entry(&self, key: &Key, each: impl FnMut(&NoteEntry)) -> Result<(), StoreError> {
        let store = self.store;
        if let Some(bytes) = self.pinned(&note_key(NOTE_GAMES, key))? {
            return each_entry(&bytes, each).ok_or_else(|| store.corrupt(format!("notes of position {key}")));
        }
        if self.pinned(key.as_bytes())?.is_some() {
            return Ok(());
        }
        let Some(hit) = self.tier().locate(key)? else { return Ok(()) };
        Games::at(store, self.committed).tier_note(&hit)?.iter().for_each(each);
        Ok(())
    }

    /// How many entries a position's notes stored with its full key hold, without reading them
    /// (0 when none are stored: a tier position's one entry, if any, is its game's).
    pub fn note_entry_count(&self, key: &Key) -> Result<u64, StoreError> {
        let Some(bytes) = self.pinned(&note_key(NOTE_GAMES, key))? else { return Ok(0) };
        get_varint(&mut &bytes[..]).ok_or_else(|| self.store.corrupt(format!("notes of position {key}")))
    }

    /// The sums of a position's notes ([`Positions::note_entries`]), where `mover` is to move:
    /// stored with a full-key position, summed for another.
    pub fn note_sums(&self, key: &Key, mover: Color) -> Result<NoteSums, StoreError> {
        match self.pinned(&note_key(NOTE_SUMS, key))? {
            Some(bytes) => decode_sums(&bytes).ok_or_else(|| self.store.corrupt(format!("notes of position {key}"))),
            None => Ok(NoteSums::of_entries(self.note_entries(key)?.iter(), mover)),
        }
    }

    /// The problems of the stored notes (place, what), for `verify`: each position's entries
    /// decode, name committed games and sum to its stored sums (stored past
    /// [`SUMMED_FROM`] entries), and it is a stored position.
    pub(in crate::store) fn note_problems(&self, next_game_id: u64) -> Result<Vec<(String, String)>, StoreError> {
        let store = self.store;
        let mut problems = Vec::new();
        let (mut decoder, mut sums_records, mut summed) = (KeyDecoder::default(), 0u64, 0u64);
        let mut iter = store.db.raw_iterator_cf(store.cf(options::POSITIONS));
        iter.seek([NOTE_SUMS]);
        while let Some(record) = iter.key().filter(|record| record[0] < MARKS).map(<[u8]>::to_vec) {
            let (kind, key) = (record[0], Key::try_from(&record[1..]).ok());
            iter.next();
            let Some(key) = key.filter(|_| kind == NOTE_SUMS || kind == NOTE_GAMES) else {
                problems.push(("notes".to_owned(), format!("a record under {record:02x?}")));
                continue;
            };
            if kind == NOTE_SUMS {
                sums_records += 1;
                continue;
            }
            let place = format!("notes of position {key}");
            let Some(entries) = self.pinned(&note_key(NOTE_GAMES, &key))?.and_then(|bytes| decode_entries(&bytes))
            else {
                problems.push((place, "the games' notes do not decode".to_owned()));
                continue;
            };
            if let Some(entry) = entries.iter().find(|entry| entry.game.0 >= next_game_id) {
                problems.push((place.clone(), format!("game {} is not committed", entry.game)));
            }
            if self.pinned(key.as_bytes())?.is_none() {
                problems.push((place, "no such position is stored".to_owned()));
                continue;
            }
            let stored = self.pinned(&note_key(NOTE_SUMS, &key))?.map(|bytes| decode_sums(&bytes));
            let mover = decoder.pawns_and_turn(&key).map(|(_, _, turn)| turn);
            summed += u64::from(stored.is_some());
            match (stored, mover) {
                (None, Ok(_)) if entries.len() <= SUMMED_FROM => {}
                (Some(Some(sums)), Ok(mover)) if sums == NoteSums::of_entries(entries.iter(), mover) => {}
                _ => problems.push((place, "the sums are not the games' notes' sums".to_owned())),
            }
        }
        iter.status().map_err(|err| store.rocks(err))?;
        if sums_records != summed {
            problems
                .push(("notes".to_owned(), format!("{sums_records} records of sums, {summed} of positions' notes")));
        }
        Ok(problems)
    }

    /// The positions family's value of `key`, read where it lies.
    fn pinned(&self, key: &[u8]) -> Result<Option<rocksdb::DBPinnableSlice<'a>>, StoreError> {
        let store = self.store;
        store.db.get_pinned_cf(store.cf(options::POSITIONS), key).map_err(|err| store.rocks(err))
    }

    /// The position of a key read from the database, or keyed from a stored game's replay: one
    /// that does not decode is corrupt data.
    pub fn position(&self, key: &Key) -> Result<Position, StoreError> {
        key.decode().map_err(|err| self.store.corrupt(format!("position key {key}: {err}")))
    }

    /// The imported opening (ECO code, name) of a position.
    pub fn opening(&self, key: &Key) -> Result<Option<(String, String)>, StoreError> {
        let store = self.store;
        let found =
            store.db.get_pinned_cf(store.cf(options::OPENINGS), key.as_bytes()).map_err(|err| store.rocks(err))?;
        Ok(found.and_then(|bytes| decode_opening(&bytes)))
    }

    /// The whole imported opening table: (position, ECO code, name), in key order.
    pub fn openings(&self) -> Result<Vec<(Key, String, String)>, StoreError> {
        let store = self.store;
        let mut iter = store.db.raw_iterator_cf(store.cf(options::OPENINGS));
        iter.seek_to_first();
        let mut found = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let key = Key::try_from(key).map_err(|_| store.corrupt("opening key"))?;
            let (eco, name) = decode_opening(value).ok_or_else(|| store.corrupt(format!("opening {key}")))?;
            found.push((key, eco, name));
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        Ok(found)
    }

    /// Counts the distinct positions, and those reached by a single game, by walking the
    /// positions family and the single-game tier's marks.
    pub fn count(&self) -> Result<PositionCounts, StoreError> {
        let store = self.store;
        let mut counts = PositionCounts::default();
        let mut iter = super::scan::family_iterator(store, &KeyRange::ALL);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let value = StoredValue::parse(value).ok_or_else(|| store.corrupt(format!("position {key:02x?}")))?;
            counts.add(&value);
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        let tier = self.in_tier()?;
        counts.distinct += tier;
        counts.single_game += tier;
        Ok(counts)
    }

    /// Positions in the single-game tier (marked plies), counted from the marks.
    pub fn in_tier(&self) -> Result<u64, StoreError> {
        self.tier().count()
    }

    /// The estimated number of stored positions (for progress display).
    pub fn estimated(&self) -> u64 {
        let store = self.store;
        let totals = store.totals().unwrap_or_default();
        let family = store
            .db
            .property_int_value_cf(store.cf(options::POSITIONS), rocksdb::properties::ESTIMATE_NUM_KEYS)
            .ok()
            .flatten()
            .unwrap_or(0);
        totals.distinct_positions.unwrap_or(family + totals.games * 40)
    }

    /// Decodes the stored value of `key` as far as `detail` says, with the facts its layout
    /// needs (a one-game value's game's, a few-games value's games').
    pub(in crate::store) fn decode(
        &self,
        key: &Key,
        value: &StoredValue,
        detail: Detail,
    ) -> Result<PositionStats, StoreError> {
        let decoded = match value.facts_needed() {
            FactsNeeded::None => value.decode(detail, |_| None),
            FactsNeeded::One(id) => {
                let facts = self.facts().of(id)?;
                value.decode(detail, |_| Some(facts))
            }
            FactsNeeded::Several => {
                let facts = self.facts().table()?;
                let decoded = value.decode(detail, |id| facts.get(id));
                return decoded.ok_or_else(|| facts.missing(|| self.store.corrupt(format!("position {key}"))));
            }
        };
        decoded.ok_or_else(|| self.store.corrupt(format!("position {key}")))
    }

    /// `read` of the stored value of a position, `None` when none is stored: from the full-key
    /// family, read where it lies (a popular position's is large: not copied), else the
    /// single-game tier.
    fn with_value<T>(
        &self,
        key: &Key,
        read: impl Fn(&StoredValue) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let store = self.store;
        let found =
            store.db.get_pinned_cf(store.cf(options::POSITIONS), key.as_bytes()).map_err(|err| store.rocks(err))?;
        if let Some(bytes) = found {
            let value = StoredValue::parse(&bytes).ok_or_else(|| store.corrupt(format!("position {key}")))?;
            return read(&value).map(Some);
        }
        match self.tier().locate(key)? {
            Some(hit) => read(&hit.value()).map(Some),
            None => Ok(None),
        }
    }

    fn facts(&self) -> Facts<'a> {
        Facts::at(self.store, self.committed)
    }

    fn tier(&self) -> TierReader<'a> {
        TierReader::at(self.store, self.committed)
    }
}
