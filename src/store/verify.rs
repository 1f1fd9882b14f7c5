//! `tabiya verify`: every table file's checksums, then the database's own invariants, each
//! problem reported with where it is.
//!
//! The invariants, checked against the games (the one source every other record derives from):
//! every committed game decodes and replays, its annotations decode, its facts are those its
//! record gives, and the commit record's game and ply counts are theirs; every position each
//! game reaches is stored with that game: in the single-game tier at the plies its marks name
//! (the tier's map names that game for the key of that ply), in the full-key family at the
//! others (the posting list holds the game); and the full-key family holds no game beyond these
//! (its posting lists add up to the games' distinct positions there), and its distinct and
//! single-game counts are the commit record's.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use rocksdb::ReadOptions;

use super::{
    COLUMN_FAMILIES, Snapshot, Store, StoreError, Totals,
    memory::scaled,
    tier::{TierIndex, TierReader},
};
use crate::{
    codec::{Key, KeyRange},
    model::{GameAnnotations, GameFacts, GameId, GameRecord, replay_with_moves},
};

/// Games read at a time.
const CHUNK: u64 = 4096;

/// Bytes of tier marks held before they are checked, at the default memory budget (scaled by
/// `--memory`).
const MARKS_BYTES: usize = 128 << 20;

/// Tier marks a task checks against the maps (neighbouring keys, so mostly the same maps).
const MARKS_CHUNK: usize = 1 << 14;
/// Problems reported, at most: a badly damaged database has millions.
const MAX_PROBLEMS: usize = 1000;

/// What [`verify`] found.
#[derive(Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// Entries read with their checksums verified, per column family.
    pub entries: Vec<(&'static str, u64)>,
    /// Games checked (none with `quick`).
    pub games: u64,
    /// Positions of those games checked against the positions family and the tier.
    pub positions: u64,
    /// Each problem: where, and what.
    pub problems: Vec<Problem>,
    /// Problems found beyond the ones listed.
    pub more_problems: u64,
}

/// What the checks of some games found.
#[derive(Default)]
struct GameChecks {
    plies: u64,
    positions: u64,
    /// Distinct (game, position) pairs the stored positions must list.
    pairs: u64,
    /// The full-key positions the games reach: key, game, first ply; checked a key at a time
    /// (a popular position's list is read once, not once a game).
    listed: Vec<(Key, GameId, u32)>,
    /// The tier positions the games' marks give: key, game, ply; checked in key order (a
    /// lookup reads the maps of the ranges its keys are in).
    marked: Vec<(Key, GameId, u32)>,
    problems: Vec<(String, String)>,
    /// Problems beyond those kept.
    dropped: u64,
}

impl GameChecks {
    fn problem(&mut self, place: impl Into<String>, what: impl Into<String>) {
        match self.problems.len() < MAX_PROBLEMS {
            true => self.problems.push((place.into(), what.into())),
            false => self.dropped += 1,
        }
    }
}

/// One problem found.
#[derive(Debug, serde::Serialize)]
pub struct Problem {
    /// Where: a column family and its file, a game, a position.
    pub place: String,
    /// What is wrong.
    pub what: String,
}

impl Verification {
    fn problem(&mut self, place: impl Into<String>, what: impl Into<String>) {
        match self.problems.len() < MAX_PROBLEMS {
            true => self.problems.push(Problem { place: place.into(), what: what.into() }),
            false => self.more_problems += 1,
        }
    }

    /// Whether nothing was found wrong.
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Reads every entry of every column family of `store` with its checksums verified; then,
/// unless `quick`, checks the invariants (the module's documentation) game by game, on one
/// snapshot.
pub fn verify(store: &Store, quick: bool) -> Verification {
    let mut found = Verification::default();
    for family in COLUMN_FAMILIES {
        let mut reads = ReadOptions::default();
        reads.fill_cache(false);
        reads.set_verify_checksums(true);
        let mut iter = store.db.raw_iterator_cf_opt(store.cf(family), reads);
        iter.seek_to_first();
        let mut entries = 0;
        while iter.valid() {
            entries += 1;
            iter.next();
        }
        if let Err(err) = iter.status() {
            found.problem(format!("column family {family}"), store.rocks(err).to_string());
        }
        found.entries.push((family, entries));
    }
    if quick || !found.is_sound() {
        return found;
    }
    let view = store.scan_snapshot();
    let checks = Checks { view: &view, tier: TierReader::at(store, store.committed()) };
    if let Err(err) = checks.games(&mut found) {
        found.problem("database", err.to_string());
    }
    found
}

/// The invariants' checks over one snapshot.
struct Checks<'v, 's> {
    view: &'v Snapshot<'s>,
    tier: TierReader<'s>,
}

impl Checks<'_, '_> {
    /// The invariants, game by game (see the module's documentation), on every core.
    fn games(&self, found: &mut Verification) -> Result<(), StoreError> {
        let totals = self.view.totals()?;
        let facts = self.view.facts().table()?;
        let tier = self.tier.index()?;
        let (mut games, mut sum) = (0, GameChecks::default());
        // The tier's marks wait for a few chunks: each check in key order passes over the maps
        // once, and a budget keeps fewer maps than a large database has.
        let marks_held = scaled(MARKS_BYTES) / size_of::<(Key, GameId, u32)>();
        let mut marked: Vec<(Key, GameId, u32)> = Vec::with_capacity(marks_held);
        let end = totals.next_game_id.max(1);
        let mut first = 1;
        while first < end {
            let ids: Vec<GameId> = (first..end.min(first + CHUNK)).map(GameId).collect();
            first += CHUNK;
            let records = self.view.games().get_many(&ids)?;
            let annotations = self.view.games().annotation_values(&ids)?;
            let marks: HashMap<GameId, Vec<u32>> = self.tier.marks_of(&ids)?.into_iter().collect();
            let checked: Vec<GameChecks> = ids
                .par_iter()
                .zip(records)
                .zip(annotations)
                .filter_map(|((id, record), annotations)| Some((*id, record?, annotations)))
                .map(|(id, record, annotations)| {
                    let tier_plies = marks.get(&id).map_or(&[][..], Vec::as_slice);
                    let mut checks = Self::game(id, &record, facts.get(id), tier_plies)?;
                    if annotations.is_some_and(|bytes| GameAnnotations::decode(&bytes, record.plies()).is_none()) {
                        checks.problem(format!("game {id}"), "its annotations do not decode");
                    }
                    Ok(checks)
                })
                .collect::<Result<_, StoreError>>()?;
            // Facts whose page could not be read are the database's error, as a table's.
            let checked: Vec<GameChecks> = facts.checked(checked)?;
            let mut listed: Vec<(Key, GameId, u32)> =
                checked.iter().flat_map(|game| game.listed.iter().copied()).collect();
            listed.sort_unstable();
            for (place, what) in self.listed(&listed)? {
                found.problem(place, what);
            }
            let incoming: usize = checked.iter().map(|game| game.marked.len()).sum();
            if marked.len() + incoming > marks_held {
                self.marked(&tier, &mut marked, found)?;
            }
            marked.extend(checked.iter().flat_map(|game| game.marked.iter().copied()));
            if first >= end {
                self.marked(&tier, &mut marked, found)?;
            }
            games += checked.len() as u64;
            for game in checked {
                sum.plies += game.plies;
                sum.positions += game.positions;
                sum.pairs += game.pairs;
                for (place, what) in game.problems {
                    found.problem(place, what);
                }
                found.more_problems += game.dropped;
            }
        }
        // A map no mark reached is read all the same: a lookup may reach it.
        for err in self.tier.unreadable_maps(&tier) {
            found.problem("tier maps", err.to_string());
        }
        (found.games, found.positions) = (games, sum.positions);
        if (games, sum.plies) != (totals.games, totals.plies) {
            found.problem(
                "commit record",
                format!(
                    "{} games and {} plies, where the games add up to {} and {}",
                    totals.games, totals.plies, games, sum.plies
                ),
            );
        }
        for (place, what) in self.view.positions().note_problems(totals.next_game_id)? {
            found.problem(place, what);
        }
        self.positions(found, sum.pairs, &totals)
    }

    /// One game's checks: its facts (`stored`), its replay, and each position it reaches,
    /// in the tier at `tier_plies`, in the full-key family at the others.
    fn game(
        id: GameId,
        record: &GameRecord,
        stored: Option<GameFacts>,
        tier_plies: &[u32],
    ) -> Result<GameChecks, StoreError> {
        let game = format!("game {id}");
        let mut checks = GameChecks { plies: record.plies() as u64, ..GameChecks::default() };
        match stored {
            Some(stored) if stored == GameFacts::of(id, record.result, &record.tags) => {}
            Some(_) => checks.problem(&game, "its stored facts (result, ratings, month, speed) differ from its tags"),
            None => checks.problem(&game, "it has no facts"),
        }
        let Some((positions, _)) = replay_with_moves(record) else {
            checks.problem(&game, "its moves do not replay");
            return Ok(checks);
        };
        // A game reaching a position again is listed once (the tier keeps the first ply).
        let mut reached = HashSet::new();
        for (ply, position) in positions.into_iter().enumerate() {
            checks.positions += 1;
            let key = match Key::encode(&position) {
                Ok(key) => key,
                _ => {
                    checks.problem(&game, format!("the position at ply {ply} has no key"));
                    continue;
                }
            };
            let first_time = reached.insert(key);
            if tier_plies.contains(&(ply as u32)) {
                checks.marked.push((key, id, ply as u32));
            } else if first_time {
                checks.listed.push((key, id, ply as u32));
            }
        }
        checks.pairs = reached.len() as u64;
        Ok(checks)
    }

    /// Whether each full-key position of `listed` (sorted by key, then game) lists its games:
    /// each key's posting list read once, on every core.
    fn listed(&self, listed: &[(Key, GameId, u32)]) -> Result<Vec<(String, String)>, StoreError> {
        let groups: Vec<&[(Key, GameId, u32)]> = listed.chunk_by(|a, b| a.0 == b.0).collect();
        let problems: Vec<Vec<(String, String)>> = groups
            .par_iter()
            .map(|group| {
                let key = group[0].0;
                let ids = self.view.positions().game_ids(&key)?;
                let mut stored = ids.iter().copied().peekable();
                let mut problems = Vec::new();
                for (_, id, ply) in group.iter() {
                    while stored.next_if(|listed| listed < id).is_some() {}
                    if stored.peek() != Some(id) {
                        let what = "its game is not listed there".to_owned();
                        problems.push((format!("game {id}, ply {ply} (position {key})"), what));
                    }
                }
                Ok(problems)
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(problems.into_iter().flatten().collect())
    }

    /// The tier's `marked` positions against its maps, in key order (emptied): the game's own
    /// replay gives the key at its mark, and the map must name the game (a lookup replays the
    /// game it names to the same marks). The problems beyond those kept are counted, not
    /// written.
    fn marked(
        &self,
        tier: &TierIndex,
        marked: &mut Vec<(Key, GameId, u32)>,
        found: &mut Verification,
    ) -> Result<(), StoreError> {
        marked.par_sort_unstable();
        let chunks: Vec<GameChecks> = marked
            .par_chunks(MARKS_CHUNK)
            .map(|chunk| {
                let mut checks = GameChecks::default();
                for (key, id, ply) in chunk {
                    if !self.tier.candidates(tier, key)?.contains(id) {
                        let what = "marked in the tier, whose map does not name its game";
                        checks.problem(format!("game {id}, ply {ply} (position {key})"), what);
                    }
                }
                Ok(checks)
            })
            .collect::<Result<_, StoreError>>()?;
        marked.clear();
        for checks in chunks {
            for (place, what) in checks.problems {
                found.problem(place, what);
            }
            found.more_problems += checks.dropped;
        }
        Ok(())
    }

    /// Every stored position against the games' positions: no game listed beyond them, and
    /// the commit record's counts.
    fn positions(&self, found: &mut Verification, pairs: u64, totals: &Totals) -> Result<(), StoreError> {
        let mut listed = 0u64;
        // Every variant's positions: the games' pairs count them all.
        for entry in self.view.scanner().over(KeyRange::ALL).each(|position| position.games()) {
            let (key, postings) = entry?;
            let mut count = 0u64;
            for id in postings.iter() {
                count += 1;
                if id.0 >= totals.next_game_id {
                    found.problem(format!("position {key}"), format!("it lists game {id}, which is not committed"));
                }
            }
            listed += count;
        }
        if listed != pairs {
            found.problem(
                "positions",
                format!("they list {listed} (position, game) pairs, where the games reach {pairs}"),
            );
        }
        let counts = self.view.positions().count()?;
        let recorded = (totals.distinct_positions, totals.single_game_positions);
        if recorded.0.is_some_and(|distinct| distinct != counts.distinct)
            || recorded.1.is_some_and(|single| single != counts.single_game)
        {
            found.problem(
                "commit record",
                format!(
                    "{recorded:?} distinct and single-game positions, where {} and {} are stored",
                    counts.distinct, counts.single_game
                ),
            );
        }
        Ok(())
    }
}
