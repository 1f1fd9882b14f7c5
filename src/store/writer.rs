//! Writing the database, but for positions: a [`Batch`] gathers games, facts, fingerprints,
//! players entries, totals and run records over every family and applies them atomically (or,
//! gathered apart, writes the games' as SST files for a writer to ingest: `apart.rs`).
//! Positions go through the staging area and [`Store::commit_positions`] instead. Also the
//! opening table's replacement, flushes and compactions, and the removal of what a killed
//! ingest wrote without committing it.

use rocksdb::{FlushOptions, WriteBatch};

use super::{
    RunRecord, Store, StoreError, Totals,
    layout::{
        encode_game_head, encode_headers, encode_opening, encode_record,
        headers::label_key,
        keys::{COMMIT_KEY, name_keys, player_key, player_key_game, twin_key},
    },
    options::{self, COLUMN_FAMILIES},
};
use crate::{
    codec::{KEY_LEN, Key},
    model::{Fingerprint, GameFacts, GameHeaders, GameId, GameRecord, LabelKind, Tags},
};

/// Writes gathered for one atomic commit, or apart from the database: into SST files another
/// process ingests ([`Store::batch_apart`]).
pub struct Batch<'a> {
    pub(super) store: &'a Store,
    pub(super) writes: Writes,
}

/// Where a [`Batch`]'s writes go.
pub(super) enum Writes {
    /// The database, in one atomic write.
    Database(WriteBatch),
    /// Entries per family, in the order written.
    Apart(std::collections::BTreeMap<&'static str, Vec<Entry>>),
}

/// A key and its value.
pub(super) type Entry = (Vec<u8>, Vec<u8>);

impl Batch<'_> {
    /// One write into `family`.
    fn put(&mut self, family: &'static str, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        match &mut self.writes {
            Writes::Database(batch) => batch.put_cf(self.store.cf(family), key, value),
            Writes::Apart(families) => {
                families.entry(family).or_default().push((key.as_ref().to_vec(), value.as_ref().to_vec()))
            }
        }
    }

    /// Stores a game's record under its id: its tags and result, and apart, its mainline.
    pub fn put_game(&mut self, id: GameId, record: &GameRecord) {
        self.put(options::GAMES, id.to_bytes(), encode_game_head(record));
        self.put(options::MAINLINES, id.to_bytes(), encode_record(record.line()));
    }

    /// Stores games of consecutive ids, each with its fingerprint and facts (whose `id` is the
    /// game's), in every games' family: their records, fingerprints, players and twins entries,
    /// and their facts and header facts as runs.
    pub fn put_games(&mut self, games: &[(Fingerprint, GameFacts, &GameRecord)]) -> Result<(), StoreError> {
        for (_, facts, record) in games {
            self.put_game(facts.id, record);
        }
        self.put_fingerprints(games.iter().map(|(fingerprint, facts, _)| (*fingerprint, facts.id)));
        self.put_players(games.iter().map(|(_, facts, record)| (facts.id, &*record.tags.white, &*record.tags.black)));
        self.put_twins(games.iter().map(|(_, facts, record)| (crate::model::twins::TwinKey::of(record), facts.id)));
        let facts: Vec<GameFacts> = games.iter().map(|(_, facts, _)| *facts).collect();
        self.put_facts_run(&facts)?;
        if let Some((_, first, _)) = games.first() {
            let headers =
                games.iter().map(|(_, _, record)| (GameHeaders::of(&record.tags, record.plies()), &record.tags));
            self.put_headers_run(first.id, headers);
        }
        Ok(())
    }

    /// Stores the facts of games of consecutive ids (one value under the first id), which
    /// readers load whole; nothing for no game. Ids that are not consecutive are refused: the
    /// stored run names only its first.
    pub fn put_facts_run(&mut self, run: &[GameFacts]) -> Result<(), StoreError> {
        let Some(first) = run.first().map(|facts| facts.id) else { return Ok(()) };
        if !run.iter().enumerate().all(|(at, facts)| facts.id.0 == first.0 + at as u64) {
            let what = format!("the facts of a run from game {first} are not of consecutive games");
            return Err(StoreError::Invariant { path: self.store.path.clone(), what });
        }
        self.put(options::FACTS, first.to_bytes(), super::pack_facts(run));
        Ok(())
    }

    /// Stores the header facts of games `first`, `first + 1`, ... (one value, as
    /// [`Batch::put_facts_run`]), and lists their event and site texts in the labels family.
    pub fn put_headers_run<'a>(&mut self, first: GameId, games: impl IntoIterator<Item = (GameHeaders, &'a Tags)>) {
        let mut bytes = Vec::new();
        let mut labels = rustc_hash::FxHashSet::default();
        for (headers, tags) in games {
            bytes.extend_from_slice(&encode_headers(&headers));
            for kind in LabelKind::ALL {
                labels.insert(label_key(kind, kind.of(tags)));
            }
        }
        if bytes.is_empty() {
            return;
        }
        self.put(options::HEADERS, first.to_bytes(), bytes);
        let mut labels: Vec<Vec<u8>> = labels.into_iter().collect();
        labels.sort_unstable();
        for key in labels {
            self.put(options::LABELS, key, []);
        }
    }

    /// Indexes each game (id, White, Black) under both players' names, and each name under its
    /// folded tokens (the names family). The keys go in sorted: a memtable inserts a key next
    /// to the one before it without a search from the top.
    pub fn put_players<'a>(&mut self, games: impl IntoIterator<Item = (GameId, &'a str, &'a str)>) {
        let mut keys = Vec::new();
        let mut names = rustc_hash::FxHashSet::default();
        for (id, white, black) in games {
            keys.push(player_key(white, shakmaty::Color::White, id));
            keys.push(player_key(black, shakmaty::Color::Black, id));
            names.insert(white);
            names.insert(black);
        }
        keys.sort_unstable();
        for key in keys {
            self.put(options::PLAYERS, key, []);
        }
        let mut tokens: Vec<Vec<u8>> = names.into_iter().flat_map(name_keys).collect();
        tokens.sort_unstable();
        tokens.dedup();
        for key in tokens {
            self.put(options::NAMES, key, []);
        }
    }

    /// Indexes each game under its [`TwinKey`](crate::model::twins::TwinKey) (sorted, as
    /// [`Batch::put_players`]).
    pub fn put_twins(&mut self, games: impl IntoIterator<Item = (crate::model::twins::TwinKey, GameId)>) {
        let mut keys: Vec<[u8; 12]> = games.into_iter().map(|(twin, id)| twin_key(twin, id)).collect();
        keys.sort_unstable();
        for key in keys {
            self.put(options::TWINS, key, []);
        }
    }

    /// Records that each game with a fingerprint is stored, under its id (sorted, as
    /// [`Batch::put_players`]).
    pub fn put_fingerprints(&mut self, games: impl IntoIterator<Item = (Fingerprint, GameId)>) {
        let mut entries: Vec<_> = games.into_iter().collect();
        entries.sort_unstable_by_key(|(fingerprint, _)| fingerprint.0);
        for (fingerprint, id) in entries {
            self.put(options::FINGERPRINTS, fingerprint.0, id.to_bytes());
        }
    }

    /// Replaces the database totals (the commit record: only for totals whose games and
    /// positions are committed already, such as the distinct-position counts).
    pub fn put_totals(&mut self, totals: &Totals) {
        self.put(options::POSITIONS, COMMIT_KEY, encode_record(totals));
    }

    /// Records an ingest run (replacing its earlier record).
    pub fn put_run(&mut self, run: &RunRecord) {
        self.put(options::META, run.key(), encode_record(run));
    }

    /// Applies every write of the batch, or none; refused for a batch gathered apart.
    pub fn commit(self) -> Result<(), StoreError> {
        match self.writes {
            Writes::Database(batch) => self.store.write(batch),
            Writes::Apart(_) => Err(StoreError::Invariant {
                path: self.store.path.clone(),
                what: "a batch gathered apart committed to the database".to_owned(),
            }),
        }
    }
}

impl Store {
    /// Starts a batch of writes, applied atomically by [`Batch::commit`].
    pub fn batch(&self) -> Batch<'_> {
        Batch { store: self, writes: Writes::Database(WriteBatch::default()) }
    }

    fn write(&self, batch: WriteBatch) -> Result<(), StoreError> {
        self.db.write_opt(batch, &options::write_options()).map_err(|err| self.rocks(err))
    }

    /// Writes the format version of a new database.
    pub(super) fn write_format(&self, version: u32) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        batch.put_cf(self.cf(options::META), super::layout::keys::FORMAT_KEY, version.to_be_bytes());
        self.write(batch)?;
        self.flush()
    }

    /// Replaces the opening table.
    pub fn put_openings(&self, openings: &[(Key, String, String)]) -> Result<(), StoreError> {
        let cf = self.cf(options::OPENINGS);
        let mut batch = WriteBatch::default();
        batch.delete_range_cf(cf, [0u8].as_slice(), [0xffu8; KEY_LEN + 1].as_slice());
        for (key, eco, name) in openings {
            batch.put_cf(cf, key.as_bytes(), encode_opening(eco, name));
        }
        self.write(batch)?;
        self.flush()
    }

    /// Persists every family's memtable, atomically.
    pub fn flush(&self) -> Result<(), StoreError> {
        let families: Vec<_> = COLUMN_FAMILIES.iter().map(|&name| self.cf(name)).collect();
        self.db.flush_cfs_opt(&families, &FlushOptions::default()).map_err(|err| self.rocks(err))
    }

    /// Compacts every family fully (dropping the values later commits replaced).
    pub fn compact(&self) {
        for name in COLUMN_FAMILIES {
            self.db.compact_range_cf(self.cf(name), None::<&[u8]>, None::<&[u8]>);
        }
    }

    /// Removes what a killed or failed run wrote (or ingested) before its commit: games at or
    /// above the committed `next_game_id`, their mainlines, facts, header facts, players and
    /// twins entries and fingerprints (only when some such game is found: the games' family is
    /// written or ingested first). Returns how many games it removed.
    pub fn discard_uncommitted(&self) -> Result<u64, StoreError> {
        let first = GameId(self.committed.load(std::sync::atomic::Ordering::Acquire).max(1));
        let games = self.cf(options::GAMES);
        let mut iter = self.db.raw_iterator_cf(games);
        iter.seek(first.to_bytes());
        let mut removed = 0;
        let mut batch = WriteBatch::default();
        while let Some(key) = iter.key() {
            batch.delete_cf(games, key);
            removed += 1;
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        if removed == 0 {
            return Ok(0);
        }
        batch.delete_range_cf(self.cf(options::FACTS), first.to_bytes(), GameId(u64::MAX).to_bytes());
        // Their labels stay: a text no game names matches no game.
        batch.delete_range_cf(self.cf(options::HEADERS), first.to_bytes(), GameId(u64::MAX).to_bytes());
        batch.delete_range_cf(self.cf(options::MAINLINES), first.to_bytes(), GameId(u64::MAX).to_bytes());
        let uncommitted = |id: Option<GameId>| id.is_some_and(|id| id >= first);
        self.delete_where(options::PLAYERS, &mut batch, |key, _| uncommitted(player_key_game(key)))?;
        self.delete_where(options::TWINS, &mut batch, |key, _| uncommitted(player_key_game(key)))?;
        // A fingerprint's value is its game's id.
        self.delete_where(options::FINGERPRINTS, &mut batch, |_, value| uncommitted(GameId::from_bytes(value)))?;
        self.write(batch)?;
        self.flush()?;
        Ok(removed)
    }

    /// Adds to `batch` the deletion of every entry of `family` that `doomed` picks.
    fn delete_where(
        &self,
        family: &str,
        batch: &mut WriteBatch,
        doomed: impl Fn(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        let cf = self.cf(family);
        let mut iter = self.db.raw_iterator_cf(cf);
        iter.seek_to_first();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if doomed(key, value) {
                batch.delete_cf(cf, key);
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))
    }
}
