//! Writing: a [`Batch`] gathers puts over every family and commits them atomically. Positions
//! are not written here: they go through the staging area and [`Store::commit_positions`].

use rocksdb::WriteBatch;

use super::{
    RunRecord, Store, StoreError, Totals,
    layout::{encode_facts, encode_game_head, encode_record},
    meta, options, player_name,
};
use crate::model::{Fingerprint, GameFacts, GameId, GameRecord};

/// Writes gathered for one atomic commit.
pub struct Batch<'a> {
    store: &'a Store,
    batch: WriteBatch,
}

impl Batch<'_> {
    pub(super) fn new(store: &Store) -> Batch<'_> {
        Batch { store, batch: WriteBatch::default() }
    }

    /// Stores a game's record under its id: its tags and result, and apart, its mainline.
    pub fn put_game(&mut self, id: GameId, record: &GameRecord) {
        self.batch.put_cf(self.store.cf(options::GAMES), id.to_bytes(), encode_game_head(record));
        self.batch.put_cf(self.store.cf(options::MAINLINES), id.to_bytes(), encode_record(record.line()));
    }

    /// Stores the facts of games of consecutive ids (one value under the first id), which
    /// readers load whole; `None` (nothing stored) for an empty run or one whose ids are not
    /// consecutive.
    pub fn put_facts_run(&mut self, run: &[GameFacts]) -> Option<()> {
        let first = run.first()?.id;
        let consecutive = run.iter().enumerate().all(|(at, facts)| facts.id.0 == first.0 + at as u64);
        consecutive.then_some(())?;
        let bytes: Vec<u8> = run.iter().flat_map(encode_facts).collect();
        self.batch.put_cf(self.store.cf(options::FACTS), first.to_bytes(), bytes);
        Some(())
    }

    /// Indexes each game (id, White, Black) under both players' names. The keys go in sorted:
    /// a memtable inserts a key next to the one before it without a search from the top.
    pub fn put_players<'a>(&mut self, games: impl IntoIterator<Item = (GameId, &'a str, &'a str)>) {
        let mut keys = Vec::new();
        for (id, white, black) in games {
            for (name, side) in [(white, b'w'), (black, b'b')] {
                let mut key = player_name(name).into_bytes();
                key.extend_from_slice(&[0, side]);
                key.extend_from_slice(&id.to_bytes());
                keys.push(key);
            }
        }
        keys.sort_unstable();
        for key in keys {
            self.batch.put_cf(self.store.cf(options::PLAYERS), key, []);
        }
    }

    /// Records that each game with a fingerprint is stored, under its id (sorted, as
    /// [`Batch::put_players`]).
    pub fn put_fingerprints(&mut self, games: impl IntoIterator<Item = (Fingerprint, GameId)>) {
        let mut entries: Vec<_> = games.into_iter().collect();
        entries.sort_unstable_by_key(|(fingerprint, _)| fingerprint.0);
        for (fingerprint, id) in entries {
            self.batch.put_cf(self.store.cf(options::FINGERPRINTS), fingerprint.0, id.to_bytes());
        }
    }

    /// Replaces the database totals (the commit record: only for totals whose games and
    /// positions are committed already, such as the distinct-position counts).
    pub fn put_totals(&mut self, totals: &Totals) {
        self.batch.put_cf(self.store.cf(options::POSITIONS), meta::COMMIT_KEY, encode_record(totals));
    }

    /// Records an ingest run (replacing its earlier record).
    pub fn put_run(&mut self, run: &RunRecord) {
        self.batch.put_cf(self.store.cf(options::META), run.key(), encode_record(run));
    }

    /// Applies every write of the batch, or none.
    pub fn commit(self) -> Result<(), StoreError> {
        self.store.write(self.batch)
    }
}
