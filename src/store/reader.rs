//! Reading the database: a position's statistics (from the full-key family, else the
//! single-game tier), its games, stored games and their mainlines, the players index, the
//! opening table, the totals and runs, and what the database takes on disk. Scans over many
//! positions are [`scan`](super::scan)'s.

use shakmaty::Color;

use super::{
    RunRecord, Store, StoreError, Totals,
    layout::{
        Detail, FactsNeeded, Occurrences, StoredValue, decode_game_record, decode_opening, decode_record,
        headers::{label_prefix, parse_label_key},
        keys::{
            COMMIT_KEY, RUN_PREFIX, parse_name_key, parse_player_key, parse_twin_key, player_prefix, tier_record_ranges,
        },
    },
    options::{self, COLUMN_FAMILIES},
};
use crate::{
    codec::{Key, KeyRange},
    model::{
        Fingerprint, GameFacts, GameId, GameRecord, LabelHash, LabelKind, Mainline, PositionStats, replay_with_moves,
    },
    position::Position,
    postings::PostingList,
};

/// A stored game replayed ([`Store::replayed_game`]): its record, its positions from the start,
/// the moves played.
pub type ReplayedGame = (GameRecord, Vec<shakmaty::Chess>, Vec<shakmaty::Move>);

/// Distinct positions, counted by [`Store::count_positions`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PositionCounts {
    /// Distinct positions.
    pub distinct: u64,
    /// Positions reached by exactly one game.
    pub single_game: u64,
}

impl PositionCounts {
    /// Counts one stored value.
    pub(super) fn add(&mut self, value: &StoredValue) {
        self.distinct += 1;
        self.single_game += u64::from(value.holds_one_game());
    }
}

impl Store {
    /// The aggregated statistics of a position, if any game reached it.
    pub fn position(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::All, true)
    }

    /// A position's statistics without its slices and games: all an unfiltered lookup needs.
    pub fn position_head(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::Head, false)
    }

    /// The games and results of each of `keys` the full-key family holds (`None` for the others:
    /// positions one game reached, in the single-game tier, or none), read together in one
    /// batched read, without decoding more of their values.
    pub fn family_totals(&self, keys: &[Key]) -> Result<Vec<Option<Occurrences>>, StoreError> {
        let cf = self.cf(options::POSITIONS);
        let found = self.db.batched_multi_get_cf(cf, keys.iter().map(Key::as_bytes), false);
        let mut facts = None;
        keys.iter()
            .zip(found)
            .map(|(key, found)| {
                let corrupt = || self.corrupt(format!("position {key}"));
                let mut occurrences = |value: &StoredValue| -> Result<Option<Occurrences>, StoreError> {
                    let table = match &facts {
                        Some(table) => table,
                        None => facts.insert(self.committed_facts()?),
                    };
                    value.occurrences(|id| self.facts_of(Some(table), id)).map(Some).ok_or_else(corrupt)
                };
                // The value is read where it lies (a popular position's is large): not copied.
                match found.map_err(|err| self.rocks(err))? {
                    Some(bytes) => occurrences(&StoredValue::parse(&bytes).ok_or_else(corrupt)?),
                    None => Ok(None),
                }
            })
            .collect()
    }

    /// A position's statistics with its slices, without its games (its monthly history).
    pub fn position_slices(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        Ok(self
            .read_position(key, Detail::ByMove, true)?
            .map(|stats| PositionStats { games_by_move: Vec::new(), ..stats }))
    }

    /// A position's statistics with its games by move, without slices: what a filtered lookup
    /// reads.
    pub fn position_games(&self, key: &Key) -> Result<Option<PositionStats>, StoreError> {
        self.read_position(key, Detail::ByMove, false)
    }

    /// A stored position, read as far as `detail` says, with its slices when `slices`.
    fn read_position(&self, key: &Key, detail: Detail, slices: bool) -> Result<Option<PositionStats>, StoreError> {
        self.with_position_value(key, |value| self.decode_position(key, value, detail, slices))
    }

    /// `read` of the stored value of a position, `None` when none is stored: from the full-key
    /// family, read where it lies (a popular position's is large: not copied), else the
    /// single-game tier.
    fn with_position_value<T>(
        &self,
        key: &Key,
        read: impl Fn(&StoredValue) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        if let Some(found) = self.with_family_value(key, &read)? {
            return Ok(Some(found));
        }
        if let Some(hit) = self.tier_locate(key)? {
            return read(&hit.value()).map(Some);
        }
        // A secondary catching up between the two reads may have moved the position from the
        // tier to the family (a later commit reached it again): read the family once more.
        self.with_family_value(key, &read)
    }

    /// `read` of the stored value of a position in the full-key family.
    fn with_family_value<T>(
        &self,
        key: &Key,
        read: &impl Fn(&StoredValue) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let found =
            self.db.get_pinned_cf(self.cf(options::POSITIONS), key.as_bytes()).map_err(|err| self.rocks(err))?;
        let Some(bytes) = found else { return Ok(None) };
        let value = StoredValue::parse(&bytes).ok_or_else(|| self.corrupt(format!("position {key}")))?;
        read(&value).map(Some)
    }

    /// Decodes the stored value of `key`, as far as `detail` says, and derives its slices when
    /// `slices` (from its games by move: not with [`Detail::Head`]).
    pub fn decode_position(
        &self,
        key: &Key,
        value: &StoredValue,
        detail: Detail,
        slices: bool,
    ) -> Result<PositionStats, StoreError> {
        let what = || format!("position {key}");
        let decoded = match value.facts_needed() {
            FactsNeeded::None => value.decode(detail, |_| None),
            FactsNeeded::One(id) => {
                let facts = self.game_facts(id)?;
                value.decode(detail, |_| Some(facts))
            }
            FactsNeeded::Several => {
                let facts = self.committed_facts()?;
                value.decode(detail, |id| self.facts_of(Some(&facts), id))
            }
        };
        let mut stats = decoded.ok_or_else(|| self.corrupt(what()))?;
        if slices {
            self.derive_slices(&mut stats, &what())?;
        }
        Ok(stats)
    }

    /// The position of a key read from the database, or keyed from a stored game's replay: one
    /// that does not decode is corrupt data.
    pub fn stored_position(&self, key: &Key) -> Result<Position, StoreError> {
        key.decode().map_err(|err| self.corrupt(format!("position key {key}: {err}")))
    }

    /// The games that reached a position (empty when none did).
    pub fn postings(&self, key: &Key) -> Result<PostingList, StoreError> {
        Ok(PostingList::encode(&self.game_ids(key)?))
    }

    /// The games that reached a position, ascending (empty when none did): its posting list
    /// as ids, without encoding it.
    pub fn game_ids(&self, key: &Key) -> Result<Vec<GameId>, StoreError> {
        let ids = |value: &StoredValue| value.game_ids().ok_or_else(|| self.corrupt(format!("position {key}")));
        Ok(self.with_position_value(key, ids)?.unwrap_or_default())
    }

    /// The facts of a committed game: from the in-memory table when loaded ([`Store::facts`]),
    /// else read alone.
    pub fn game_facts(&self, id: GameId) -> Result<GameFacts, StoreError> {
        let missing = || self.corrupt(format!("facts of game {id}"));
        let loaded = self.facts.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(id);
        if let Some(facts) = loaded {
            return Ok(facts);
        }
        if id.0 >= self.committed_for(id)? {
            return Err(missing());
        }
        self.read_facts(id)?.ok_or_else(missing)
    }

    /// Stored games by id, in the order asked (`None` for an id not stored).
    pub fn games(&self, ids: &[GameId]) -> Result<Vec<Option<GameRecord>>, StoreError> {
        // One cut-off for both parts: a catch-up between them must not split a game.
        self.games_below(ids, self.committed_for_all(ids)?)
    }

    /// The games of `ids` below id `committed` (`None` for the others).
    fn games_below(&self, ids: &[GameId], committed: u64) -> Result<Vec<Option<GameRecord>>, StoreError> {
        let heads = self.committed_values(options::GAMES, ids, committed)?;
        let lines = self.committed_values(options::MAINLINES, ids, committed)?;
        heads.into_iter().zip(lines).zip(ids).map(|((head, line), id)| self.game_of(*id, head, line)).collect()
    }

    /// The stored games a posting list or the players index names, in the order asked: each must
    /// be stored, so a missing one is corrupt data.
    pub fn listed_games(&self, ids: &[GameId]) -> Result<Vec<GameRecord>, StoreError> {
        let records = self.games(ids)?;
        let missing = |id: &GameId| self.corrupt(format!("game {id} of a posting list or index is missing"));
        records.into_iter().zip(ids).map(|(record, id)| record.ok_or_else(|| missing(id))).collect()
    }

    /// Game `id` replayed: its record, every position from its start and the moves played; `None`
    /// when there is no such game. A stored game that does not replay is corrupt data.
    pub fn replayed_game(&self, id: GameId) -> Result<Option<ReplayedGame>, StoreError> {
        let Some(record) = self.game(id)? else { return Ok(None) };
        let (positions, moves) =
            replay_with_moves(&record).ok_or_else(|| self.corrupt(format!("game {id} does not replay")))?;
        Ok(Some((record, positions, moves)))
    }

    /// The start and mainline of each of `ids` (what replaying them needs, without their tags);
    /// `None` for an id with no committed game.
    pub fn mainlines(&self, ids: &[GameId]) -> Result<Vec<Option<Mainline>>, StoreError> {
        let lines = self.committed_values(options::MAINLINES, ids, self.committed_for_all(ids)?)?;
        lines
            .into_iter()
            .zip(ids)
            .map(|(line, id)| match line {
                None => Ok(None),
                Some(bytes) => {
                    decode_record(&bytes).map(Some).ok_or_else(|| self.corrupt(format!("mainline of game {id}")))
                }
            })
            .collect()
    }

    /// The committed `next_game_id` for reading `ids` ([`Store::committed_for`] of the highest).
    fn committed_for_all(&self, ids: &[GameId]) -> Result<u64, StoreError> {
        self.committed_for(ids.iter().copied().max().unwrap_or(GameId(0)))
    }

    /// The values of `family` (keyed by game id) of each of `ids`, `None` for an id at or above
    /// `committed`, the committed `next_game_id` (written for a commit still to come).
    fn committed_values(
        &self,
        family: &str,
        ids: &[GameId],
        committed: u64,
    ) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        let cf = self.cf(family);
        self.db
            .multi_get_cf(ids.iter().map(|id| (cf, id.to_bytes())))
            .into_iter()
            .zip(ids)
            .map(|(found, id)| Ok(found.map_err(|err| self.rocks(err))?.filter(|_| id.0 < committed)))
            .collect()
    }

    /// A game from its two stored parts: both or neither.
    fn game_of(
        &self,
        id: GameId,
        head: Option<Vec<u8>>,
        line: Option<Vec<u8>>,
    ) -> Result<Option<GameRecord>, StoreError> {
        match (head, line) {
            (None, None) => Ok(None),
            (Some(head), Some(line)) => {
                decode_game_record(&head, &line).map(Some).ok_or_else(|| self.corrupt(format!("game {id}")))
            }
            _ => Err(self.corrupt(format!("game {id}: its tags or its mainline is missing"))),
        }
    }

    /// Ids of the games whose player of `color` (either, when `None`) is spelled `name` (as
    /// [`player_name`](crate::model::player_name) normalises it: case, spaces and commas),
    /// ascending. Lookups by any spelling go through [`find_players`](crate::explore::find_players).
    pub fn player_games(&self, name: &str, color: Option<Color>) -> Result<Vec<GameId>, StoreError> {
        let mut prefix = player_prefix(name);
        prefix.push(0);
        let mut iter = self.db.raw_iterator_cf(self.cf(options::PLAYERS));
        iter.seek(&prefix);
        let mut ids = Vec::new();
        while let Some(key) = iter.key() {
            if !key.starts_with(&prefix) {
                break;
            }
            let (side, id) = parse_player_key(key).ok_or_else(|| self.corrupt("player key"))?;
            if color.is_none_or(|c| c == side) {
                ids.push(id);
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        ids.sort_unstable();
        ids.dedup();
        let committed = self.committed_for(ids.last().copied().unwrap_or(GameId(0)))?;
        ids.retain(|id| id.0 < committed);
        Ok(ids)
    }

    /// The games stored under twin key `twin`, committed or staged by the running ingest (only
    /// a writer, which removed what a crashed run left, may ask), ascending.
    pub(crate) fn twin_ids(&self, twin: crate::model::twins::TwinKey) -> Result<Vec<GameId>, StoreError> {
        let prefix = twin.0.to_be_bytes();
        let mut iter = self.db.raw_iterator_cf(self.cf(options::TWINS));
        iter.seek(prefix);
        let mut ids = Vec::new();
        while let Some(key) = iter.key().filter(|key| key.starts_with(&prefix)) {
            ids.push(parse_twin_key(key).ok_or_else(|| self.corrupt("twin key"))?.1);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        Ok(ids)
    }

    /// Games by id, committed or staged by the running ingest (see [`Store::twin_ids`]).
    pub(crate) fn staged_games(&self, ids: &[GameId]) -> Result<Vec<Option<GameRecord>>, StoreError> {
        self.games_below(ids, u64::MAX)
    }

    /// The committed games sharing a [`TwinKey`](crate::model::twins::TwinKey) with another, in
    /// buckets of one key each (ascending ids); `progress` counts the games passed.
    pub fn twin_buckets(&self, progress: &std::sync::atomic::AtomicU64) -> Result<Vec<Vec<GameId>>, StoreError> {
        let committed = self.committed.load(std::sync::atomic::Ordering::Acquire);
        let mut iter = self.db.raw_iterator_cf(self.cf(options::TWINS));
        iter.seek_to_first();
        let (mut buckets, mut bucket, mut last) = (Vec::new(), Vec::new(), None);
        while let Some(key) = iter.key() {
            let (twin, id) = parse_twin_key(key).ok_or_else(|| self.corrupt("twin key"))?;
            if last != Some(twin) {
                if bucket.len() > 1 {
                    buckets.push(std::mem::take(&mut bucket));
                }
                bucket.clear();
                last = Some(twin);
            }
            if id.0 < committed {
                bucket.push(id);
            }
            progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        if bucket.len() > 1 {
            buckets.push(bucket);
        }
        Ok(buckets)
    }

    /// The spellings (as the players family holds them) with a folded token equal to `token`,
    /// or starting with it when `prefix`; at most `limit`, in the token's order.
    pub fn names_with_token(&self, token: &str, prefix: bool, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut start = token.as_bytes().to_vec();
        if !prefix {
            start.push(0);
        }
        let mut iter = self.db.raw_iterator_cf(self.cf(options::NAMES));
        iter.seek(&start);
        let mut names = Vec::new();
        while let Some(key) = iter.key() {
            if !key.starts_with(&start) || names.len() >= limit {
                break;
            }
            let name = parse_name_key(key).ok_or_else(|| self.corrupt("name key"))?;
            let name = String::from_utf8(name.to_vec()).map_err(|_| self.corrupt("name key"))?;
            // Under a prefix, a name may hold two tokens that start with it.
            if !prefix || !names.contains(&name) {
                names.push(name);
            }
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        Ok(names)
    }

    /// Hands `visit` every distinct text of the `kind` tag the games give, with its hash, in
    /// hash order (texts of one hash one after another), streamed; texts of games an
    /// interrupted ingest did not commit may be among them.
    pub fn for_each_label(&self, kind: LabelKind, mut visit: impl FnMut(LabelHash, &str)) -> Result<(), StoreError> {
        let prefix = label_prefix(kind);
        let reads = options::sequential_reads(&[prefix[0] + 1]);
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(options::LABELS), reads);
        iter.seek(prefix);
        while let Some(key) = iter.key() {
            if !key.starts_with(&prefix) {
                break;
            }
            let (hash, text) = parse_label_key(kind, key).ok_or_else(|| self.corrupt("label key"))?;
            visit(hash, &text);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))
    }

    /// The imported opening (ECO code, name) of a position.
    pub fn opening(&self, key: &Key) -> Result<Option<(String, String)>, StoreError> {
        let found = self.db.get_pinned_cf(self.cf(options::OPENINGS), key.as_bytes()).map_err(|err| self.rocks(err))?;
        Ok(found.and_then(|bytes| decode_opening(&bytes)))
    }

    /// The whole imported opening table: (position, ECO code, name), in key order.
    pub fn openings(&self) -> Result<Vec<(Key, String, String)>, StoreError> {
        let mut iter = self.db.raw_iterator_cf(self.cf(options::OPENINGS));
        iter.seek_to_first();
        let mut found = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let key = Key::try_from(key).map_err(|_| self.corrupt("opening key"))?;
            let (eco, name) = decode_opening(value).ok_or_else(|| self.corrupt(format!("opening {key}")))?;
            found.push((key, eco, name));
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        Ok(found)
    }

    /// A stored game.
    pub fn game(&self, id: GameId) -> Result<Option<GameRecord>, StoreError> {
        Ok(self.games(&[id])?.pop().flatten())
    }

    /// Whether a game with this fingerprint is stored, committed or written by this writer's
    /// ingest before its commit (the writer's duplicate check; [`Store::discard_uncommitted`]
    /// removes what a killed writer left first).
    pub fn has_fingerprint(&self, fingerprint: &Fingerprint) -> Result<bool, StoreError> {
        let found =
            self.db.get_pinned_cf(self.cf(options::FINGERPRINTS), fingerprint.0).map_err(|err| self.rocks(err))?;
        Ok(found.is_some())
    }

    /// Which of `fingerprints` are stored already.
    pub fn known_fingerprints(&self, fingerprints: &[Fingerprint]) -> Result<Vec<bool>, StoreError> {
        let cf = self.cf(options::FINGERPRINTS);
        self.db
            .multi_get_cf(fingerprints.iter().map(|fp| (cf, fp.0)))
            .into_iter()
            .map(|found| found.map(|value| value.is_some()).map_err(|err| self.rocks(err)))
            .collect()
    }

    /// The database totals as last committed (all zero for a new database).
    pub fn totals(&self) -> Result<Totals, StoreError> {
        let found = self.db.get_pinned_cf(self.cf(options::POSITIONS), COMMIT_KEY).map_err(|err| self.rocks(err))?;
        match found {
            None => Ok(Totals::default()),
            Some(bytes) => decode_record(&bytes).ok_or_else(|| self.corrupt("totals")),
        }
    }

    /// The ingest runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let mut runs = Vec::new();
        let mode = rocksdb::IteratorMode::From(RUN_PREFIX, rocksdb::Direction::Forward);
        for item in self.db.iterator_cf(self.cf(options::META), mode) {
            let (key, value) = item.map_err(|err| self.rocks(err))?;
            if !key.starts_with(RUN_PREFIX) {
                break;
            }
            runs.push(decode_record(&value).ok_or_else(|| self.corrupt("ingest run record"))?);
        }
        Ok(runs)
    }

    /// Counts the distinct positions, and those reached by a single game, by walking the
    /// positions family and the single-game tier's marks.
    pub fn count_positions(&self) -> Result<PositionCounts, StoreError> {
        let mut counts = PositionCounts::default();
        let mut iter = self.family_iterator(&KeyRange::ALL);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let value = StoredValue::parse(value).ok_or_else(|| self.corrupt(format!("position {key:02x?}")))?;
            counts.add(&value);
            iter.next();
        }
        iter.status().map_err(|err| self.rocks(err))?;
        let tier = self.tier_positions()?;
        counts.distinct += tier;
        counts.single_game += tier;
        Ok(counts)
    }

    /// The estimated number of stored positions (for progress display).
    pub fn estimated_positions(&self) -> u64 {
        let totals = self.totals().unwrap_or_default();
        let family = self
            .db
            .property_int_value_cf(self.cf(options::POSITIONS), rocksdb::properties::ESTIMATE_NUM_KEYS)
            .ok()
            .flatten()
            .unwrap_or(0);
        totals.distinct_positions.unwrap_or(family + totals.games * 40)
    }

    /// Bytes of live SST files per column family, the positions family split into its full-key
    /// positions (`positions`) and the single-game tier's records (`tier marks`, `tier maps`;
    /// RocksDB's estimates of their key ranges).
    pub fn family_bytes(&self) -> Result<Vec<(&'static str, u64)>, StoreError> {
        let mut bytes = Vec::with_capacity(COLUMN_FAMILIES.len() + 2);
        for name in COLUMN_FAMILIES {
            let cf = self.cf(name);
            let total = self
                .db
                .property_int_value_cf(cf, rocksdb::properties::LIVE_SST_FILES_SIZE)
                .map_err(|err| self.rocks(err))?
                .unwrap_or(0);
            if name != options::POSITIONS {
                bytes.push((name, total));
                continue;
            }
            let tier = tier_record_ranges();
            let ranges: Vec<rocksdb::Range> = tier.iter().map(|(_, from, to)| rocksdb::Range::new(from, to)).collect();
            let sizes = self.db.get_approximate_sizes_cf(cf, &ranges);
            let in_tier: u64 = sizes.iter().sum();
            bytes.push((name, total.saturating_sub(in_tier)));
            bytes.extend(tier.iter().zip(sizes).map(|((label, _, _), size)| (*label, size)));
        }
        Ok(bytes)
    }
}
