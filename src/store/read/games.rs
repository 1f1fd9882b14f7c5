//! The games view: stored games by id (their tags and result, and apart, their mainlines and
//! annotations), and
//! the twins index (games under a hash of what their twins share).

use crate::{
    model::{
        Fingerprint, GameAnnotations, GameId, GameRecord, Mainline, MoveNote, NoteEntry, PlyNotes, TimeControl,
        twins::TwinKey,
    },
    store::{
        Store, StoreError,
        layout::{decode_game_record, decode_record, keys::parse_twin_key},
        options,
        tier::TierHit,
    },
};

/// Reads stored games ([`Snapshot::games`](crate::store::Snapshot::games)).
pub struct Games<'a> {
    store: &'a Store,
    committed: u64,
}

impl<'a> Games<'a> {
    pub(in crate::store) fn at(store: &'a Store, committed: u64) -> Games<'a> {
        Games { store, committed }
    }

    /// A stored game; `None` when there is none of this id.
    pub fn get(&self, id: GameId) -> Result<Option<GameRecord>, StoreError> {
        Ok(self.get_many(&[id])?.pop().flatten())
    }

    /// Stored games by id, in the order asked (`None` for an id not stored).
    pub fn get_many(&self, ids: &[GameId]) -> Result<Vec<Option<GameRecord>>, StoreError> {
        below(self.store, ids, self.committed)
    }

    /// The stored games a posting list or an index names, in the order asked: each must be
    /// stored, so a missing one is corrupt data.
    pub fn listed(&self, ids: &[GameId]) -> Result<Vec<GameRecord>, StoreError> {
        let records = self.get_many(ids)?;
        let missing = |id: &GameId| self.store.corrupt(format!("game {id} of a posting list or index is missing"));
        records.into_iter().zip(ids).map(|(record, id)| record.ok_or_else(|| missing(id))).collect()
    }

    /// The start and mainline of each of `ids` (what replaying them needs, without their tags);
    /// `None` for an id with no committed game.
    pub fn mainlines(&self, ids: &[GameId]) -> Result<Vec<Option<Mainline>>, StoreError> {
        let store = self.store;
        let lines = values_below(store, options::MAINLINES, ids, self.committed)?;
        lines
            .into_iter()
            .zip(ids)
            .map(|(line, id)| match line {
                None => Ok(None),
                Some(bytes) => {
                    decode_record(&bytes).map(Some).ok_or_else(|| store.corrupt(format!("mainline of game {id}")))
                }
            })
            .collect()
    }

    /// The annotations of each of `games` (ids with their records, whose mainlines give the
    /// plies); `None` for a game without any.
    pub fn annotations(&self, games: &[(GameId, &GameRecord)]) -> Result<Vec<Option<GameAnnotations>>, StoreError> {
        let store = self.store;
        let ids: Vec<GameId> = games.iter().map(|(id, _)| *id).collect();
        let values = self.annotation_values(&ids)?;
        values
            .into_iter()
            .zip(games)
            .map(|(value, (id, record))| value.map(|bytes| decode_annotations(store, *id, &bytes, record)).transpose())
            .collect()
    }

    /// Whether any game the view sees has annotations (a reader of many positions looks for
    /// their notes only then).
    pub fn any_annotations(&self) -> Result<bool, StoreError> {
        let store = self.store;
        let mut iter = store.db.raw_iterator_cf(store.cf(options::ANNOTATIONS));
        iter.seek_to_first();
        let first = iter.key().map(|key| key < GameId(self.committed).to_bytes().as_slice());
        iter.status().map_err(|err| store.rocks(err))?;
        Ok(first == Some(true))
    }

    /// What game `id`'s annotations said at its ply `ply` ([`PlyNotes::at`]; empty without
    /// annotations): a single-game tier position's notes, which are not stored apart.
    pub fn notes_at(&self, id: GameId, ply: u32) -> Result<PlyNotes, StoreError> {
        let moves = self.move_notes(id)?.unwrap_or_default();
        Ok(PlyNotes::at(&moves, ply as usize))
    }

    /// Per move of game `id`, the evaluation after it and the time it took
    /// ([`GameAnnotations::move_notes`]), what [`PlyNotes::at`] reads; `None` without
    /// annotations. A scan of many tier positions keeps them by game rather than ask
    /// [`Games::notes_at`] position by position.
    pub fn move_notes(&self, id: GameId) -> Result<Option<Vec<MoveNote>>, StoreError> {
        let Some(bytes) = self.annotation_values(&[id])?.pop().flatten() else {
            return Ok(None);
        };
        let record =
            self.get(id)?.ok_or_else(|| self.store.corrupt(format!("game {id}: annotations without a game")))?;
        let annotations = decode_annotations(self.store, id, &bytes, &record)?;
        let control = TimeControl::parse(&record.tags.time_control);
        Ok(Some(annotations.move_notes(control.as_ref())))
    }

    /// The notes entry of a single-game tier position, `hit` (its game's first and only
    /// arrival there); `None` when its game's annotations say nothing there.
    pub(in crate::store) fn tier_note(&self, hit: &TierHit) -> Result<Option<NoteEntry>, StoreError> {
        let notes = self.notes_at(hit.game, hit.ply)?;
        let entry = NoteEntry { game: hit.game, next: hit.next, notes: PlyNotes { first: true, ..notes } };
        Ok((!notes.is_empty()).then_some(entry))
    }

    /// The annotations family's values of `ids`, undecoded (what `verify` checks game by game).
    pub(in crate::store) fn annotation_values(&self, ids: &[GameId]) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        values_below(self.store, options::ANNOTATIONS, ids, self.committed)
    }

    /// Whether a game with this fingerprint is stored (the fingerprints family's value is the
    /// game's id: one the snapshot does not see, such as a game an interrupted ingest wrote,
    /// is not).
    pub fn is_stored(&self, fingerprint: &Fingerprint) -> Result<bool, StoreError> {
        let store = self.store;
        let found =
            store.db.get_pinned_cf(store.cf(options::FINGERPRINTS), fingerprint.0).map_err(|err| store.rocks(err))?;
        Ok(found.and_then(|id| GameId::from_bytes(&id)).is_some_and(|id| id.0 < self.committed))
    }

    /// The committed games under twin key `twin` (a hash: twins of a game are among them, the
    /// caller compares), ascending by id.
    pub fn under_twin_key(&self, twin: TwinKey) -> Result<Vec<GameRecord>, StoreError> {
        let ids = twin_ids_below(self.store, twin, self.committed)?;
        self.listed(&ids)
    }

    /// The committed games sharing a [`TwinKey`](crate::model::twins::TwinKey) with another, in
    /// buckets of one key each (ascending ids); `progress` counts the games passed.
    pub fn twin_buckets(&self, progress: &std::sync::atomic::AtomicU64) -> Result<Vec<Vec<GameId>>, StoreError> {
        let store = self.store;
        let mut iter = store.db.raw_iterator_cf(store.cf(options::TWINS));
        iter.seek_to_first();
        let (mut buckets, mut bucket, mut last) = (Vec::new(), Vec::new(), None);
        while let Some(key) = iter.key() {
            let (twin, id) = parse_twin_key(key).ok_or_else(|| store.corrupt("twin key"))?;
            if last != Some(twin) {
                if bucket.len() > 1 {
                    buckets.push(std::mem::take(&mut bucket));
                }
                bucket.clear();
                last = Some(twin);
            }
            if id.0 < self.committed {
                bucket.push(id);
            }
            progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            iter.next();
        }
        iter.status().map_err(|err| store.rocks(err))?;
        if bucket.len() > 1 {
            buckets.push(bucket);
        }
        Ok(buckets)
    }
}

/// The ids of the games stored under twin key `twin` below id `committed`, ascending.
pub(in crate::store) fn twin_ids_below(
    store: &Store,
    twin: TwinKey,
    committed: u64,
) -> Result<Vec<GameId>, StoreError> {
    let prefix = twin.0.to_be_bytes();
    let mut iter = store.db.raw_iterator_cf(store.cf(options::TWINS));
    iter.seek(prefix);
    let mut ids = Vec::new();
    while let Some(key) = iter.key().filter(|key| key.starts_with(&prefix)) {
        let (_, id) = parse_twin_key(key).ok_or_else(|| store.corrupt("twin key"))?;
        if id.0 < committed {
            ids.push(id);
        }
        iter.next();
    }
    iter.status().map_err(|err| store.rocks(err))?;
    Ok(ids)
}

/// The games of `ids` below id `committed` (`None` for the others): a reader's committed
/// games, or a writer's staged ones too.
pub(in crate::store) fn below(
    store: &Store,
    ids: &[GameId],
    committed: u64,
) -> Result<Vec<Option<GameRecord>>, StoreError> {
    let heads = values_below(store, options::GAMES, ids, committed)?;
    let lines = values_below(store, options::MAINLINES, ids, committed)?;
    heads.into_iter().zip(lines).zip(ids).map(|((head, line), id)| game_of(store, *id, head, line)).collect()
}

/// The values of `family` (keyed by game id) of each of `ids`, `None` for an id at or above
/// `committed` (written for a commit still to come).
fn values_below(
    store: &Store,
    family: &str,
    ids: &[GameId],
    committed: u64,
) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
    let cf = store.cf(family);
    store
        .db
        .multi_get_cf(ids.iter().map(|id| (cf, id.to_bytes())))
        .into_iter()
        .zip(ids)
        .map(|(found, id)| Ok(found.map_err(|err| store.rocks(err))?.filter(|_| id.0 < committed)))
        .collect()
}

/// A game from its two stored parts: both or neither.
fn game_of(
    store: &Store,
    id: GameId,
    head: Option<Vec<u8>>,
    line: Option<Vec<u8>>,
) -> Result<Option<GameRecord>, StoreError> {
    match (head, line) {
        (None, None) => Ok(None),
        (Some(head), Some(line)) => {
            decode_game_record(&head, &line).map(Some).ok_or_else(|| store.corrupt(format!("game {id}")))
        }
        _ => Err(store.corrupt(format!("game {id}: its tags or its mainline is missing"))),
    }
}

/// Game `id`'s annotations from their stored code, as long as its record's mainline.
fn decode_annotations(
    store: &Store,
    id: GameId,
    bytes: &[u8],
    record: &GameRecord,
) -> Result<GameAnnotations, StoreError> {
    GameAnnotations::decode(bytes, record.plies()).ok_or_else(|| store.corrupt(format!("annotations of game {id}")))
}
