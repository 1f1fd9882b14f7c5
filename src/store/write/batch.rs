//! A [`Batch`] gathers games, facts, fingerprints, players entries, totals and run records
//! over every family and applies them atomically (or, gathered for files, writes the games' as
//! SST files for a writer to ingest: `distributed.rs`). Positions go through the staging area
//! and [`Writer::commit`](super::Writer::commit) instead.

use rocksdb::WriteBatch;

use crate::{
    model::{Fingerprint, GameFacts, GameHeaders, GameId, GameRecord, LabelKind, Tags},
    store::{
        RunRecord, Store, StoreError, Totals,
        layout::{
            encode_headers, encode_record, game_values,
            headers::label_key,
            keys::{COMMIT_KEY, name_keys, player_key, twin_key},
        },
        options,
        read::pack_facts,
    },
};

/// Writes gathered for one atomic commit ([`Writer::batch`](super::Writer::batch)), or for
/// SST files another process ingests ([`Batch::for_files`]).
pub struct Batch<'a> {
    pub(super) store: &'a Store,
    pub(super) writes: Writes,
}

/// Where a [`Batch`]'s writes go.
pub(super) enum Writes {
    /// The database, in one atomic write.
    Database(WriteBatch),
    /// Entries per family, in the order written, for SST files.
    Files(std::collections::BTreeMap<&'static str, Vec<Entry>>),
}

/// One game as [`Batch::put_games`] stores it.
pub struct GameWrite<'a> {
    /// What makes it count once.
    pub fingerprint: Fingerprint,
    /// Its facts; their `id` is the game's.
    pub facts: GameFacts,
    /// Its tags, result and mainline.
    pub record: &'a GameRecord,
    /// Its annotations' code, when it has any.
    pub annotations: Option<&'a [u8]>,
}

/// A key and its value.
pub(super) type Entry = (Vec<u8>, Vec<u8>);

impl Batch<'_> {
    /// One write into `family`.
    fn put(&mut self, family: &'static str, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        match &mut self.writes {
            Writes::Database(batch) => batch.put_cf(self.store.cf(family), key, value),
            Writes::Files(families) => {
                families.entry(family).or_default().push((key.as_ref().to_vec(), value.as_ref().to_vec()))
            }
        }
    }

    /// Stores a game's record under its id: its tags and result, and apart, its mainline and
    /// its annotations' code ([`GameAnnotations::encode`](crate::model::GameAnnotations::encode),
    /// when it has any).
    pub fn put_game(&mut self, id: GameId, record: &GameRecord, annotations: Option<&[u8]>) {
        let (head, line) = game_values(record);
        self.put(options::GAMES, id.to_bytes(), head);
        self.put(options::MAINLINES, id.to_bytes(), line);
        if let Some(annotations) = annotations {
            self.put(options::ANNOTATIONS, id.to_bytes(), annotations);
        }
    }

    /// Stores games of consecutive ids, each with its fingerprint and facts (whose `id` is the
    /// game's), in every games' family: their records, fingerprints, players and twins entries,
    /// and their facts and header facts as runs.
    pub fn put_games(&mut self, games: &[GameWrite<'_>]) -> Result<(), StoreError> {
        for game in games {
            self.put_game(game.facts.id, game.record, game.annotations);
        }
        let games: Vec<(Fingerprint, GameFacts, &GameRecord)> =
            games.iter().map(|game| (game.fingerprint, game.facts, game.record)).collect();
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
            return Err(self
                .store
                .invariant(format!("the facts of a run from game {first} are not of consecutive games")));
        }
        self.put(options::FACTS, first.to_bytes(), pack_facts(run));
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

    /// Applies every write of the batch, or none; refused for a batch gathered for files.
    pub fn commit(self) -> Result<(), StoreError> {
        match self.writes {
            Writes::Database(batch) => super::write(self.store, batch),
            Writes::Files(_) => Err(self.store.invariant("a batch gathered for files committed to the database")),
        }
    }
}
