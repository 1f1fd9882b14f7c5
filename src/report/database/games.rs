//! The database report's pass over every game: read once (in parallel), replayed only for its
//! opening plies (positions by ply, the deepest named position).

use std::{collections::BTreeMap, ops::Range};

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use super::OPENING_PLIES;
use crate::{
    Key,
    explore::{QueryError, key_of},
    model::{GameFacts, GameId, GameRecord, GameResult, Tally},
    position::Variant,
    store::Snapshot,
};

/// Games read at a time.
const CHUNK: u64 = 1024;

/// A player's games.
#[derive(Clone, Copy, Debug, Default, bincode::Encode, bincode::Decode)]
pub struct PlayerSums {
    /// Games with either colour.
    pub games: u64,
    /// With White.
    pub white: u64,
    /// Points, doubled (a win 2, a draw 1).
    pub points: u64,
}

/// What the pass counts.
#[derive(Default, bincode::Encode, bincode::Decode)]
pub struct Counts {
    pub total: Tally,
    pub plies: u64,
    pub years: BTreeMap<u16, Tally>,
    pub bands: BTreeMap<u8, Tally>,
    pub speeds: [u64; 7],
    pub openings: HashMap<(String, String), Tally>,
    pub unnamed: u64,
    pub players: HashMap<String, PlayerSums>,
    /// Per ply (index 0: after the first move), games standing on each position.
    pub by_ply: Vec<HashMap<Key, u64>>,
    pub unreplayable: u64,
    /// Games of the variant not reported on, left out of every count above.
    pub other_variant: u64,
}

impl Counts {
    pub fn merge(mut self, other: Counts) -> Counts {
        self.total.add(&other.total);
        self.plies += other.plies;
        for (year, tally) in other.years {
            self.years.entry(year).or_default().add(&tally);
        }
        for (band, tally) in other.bands {
            self.bands.entry(band).or_default().add(&tally);
        }
        for (mine, theirs) in self.speeds.iter_mut().zip(other.speeds) {
            *mine += theirs;
        }
        for (opening, tally) in other.openings {
            self.openings.entry(opening).or_default().add(&tally);
        }
        self.unnamed += other.unnamed;
        for (name, theirs) in other.players {
            let mine = self.players.entry(name).or_default();
            mine.games += theirs.games;
            mine.white += theirs.white;
            mine.points += theirs.points;
        }
        if self.by_ply.len() < other.by_ply.len() {
            self.by_ply.resize_with(other.by_ply.len(), HashMap::default);
        }
        for (mine, theirs) in self.by_ply.iter_mut().zip(other.by_ply) {
            for (key, n) in theirs {
                *mine.entry(key).or_default() += n;
            }
        }
        self.unreplayable += other.unreplayable;
        self.other_variant += other.other_variant;
        self
    }

    fn add(&mut self, facts: &GameFacts, record: &GameRecord, wanted: &Wanted) {
        // The report is one variant's, as its position scans are.
        if record.variant() != wanted.variant {
            self.other_variant += 1;
            return;
        }
        let (openings, plies) = (wanted.openings, wanted.plies);
        let tally = Tally::game(facts.result, facts.ratings);
        self.total.add(&tally);
        self.plies += record.plies() as u64;
        self.years.entry(facts.month.year().unwrap_or(0)).or_default().add(&tally);
        self.bands.entry(facts.band().index()).or_default().add(&tally);
        self.speeds[facts.speed as usize] += 1;
        for (name, white, points) in [
            (
                &record.tags.white,
                1,
                match facts.result {
                    GameResult::WhiteWins => 2,
                    GameResult::Draw => 1,
                    _ => 0,
                },
            ),
            (
                &record.tags.black,
                0,
                match facts.result {
                    GameResult::BlackWins => 2,
                    GameResult::Draw => 1,
                    _ => 0,
                },
            ),
        ] {
            let sums = self.players.entry(name.trim().to_owned()).or_default();
            sums.games += 1;
            sums.white += white;
            sums.points += points;
        }
        let Some(mut mainline) = record.mainline() else {
            self.unreplayable += 1;
            return;
        };
        // Positions by ply count games from the standard setup only (Chess960's start 518).
        let by_ply = if record.from_standard_setup() { plies } else { 0 };
        let depth = if openings.is_empty() { by_ply } else { by_ply.max(OPENING_PLIES) };
        let mut named = None;
        if !openings.is_empty() {
            named = key_of(mainline.current()).ok().and_then(|key| openings.get(&key));
        }
        for ply in 0..depth {
            match mainline.next() {
                None => break,
                Some(None) => {
                    self.unreplayable += 1;
                    break;
                }
                Some(Some(_)) => {}
            }
            let Ok(key) = key_of(mainline.current()) else { break };
            if ply < by_ply {
                if self.by_ply.len() <= ply {
                    self.by_ply.resize_with(ply + 1, HashMap::default);
                }
                *self.by_ply[ply].entry(key).or_default() += 1;
            }
            if let Some(opening) = openings.get(&key) {
                named = Some(opening);
            }
        }
        match named {
            Some(opening) => self.openings.entry(opening.clone()).or_default().add(&tally),
            None => self.unnamed += 1,
        }
    }
}

/// What the games are counted for: the variant reported on, the opening table, and the plies
/// of the positions-by-ply table.
pub struct Wanted<'a> {
    pub variant: Variant,
    pub openings: &'a HashMap<Key, (String, String)>,
    pub plies: usize,
}

/// Reads the games of `runs` (ranges of ids) once each.
pub fn count(view: &Snapshot, runs: &[Range<u64>], wanted: &Wanted) -> Result<Counts, QueryError> {
    let starts: Vec<(u64, u64)> = runs
        .iter()
        .flat_map(|run| run.clone().step_by(CHUNK as usize).map(move |first| (first, (first + CHUNK).min(run.end))))
        .collect();
    starts
        .par_iter()
        .map(|&(first, end)| -> Result<Counts, QueryError> {
            let ids: Vec<GameId> = (first..end).map(GameId).collect();
            let mut counts = Counts::default();
            for (&id, record) in ids.iter().zip(view.games().get_many(&ids)?) {
                let Some(record) = record else { continue };
                let facts = GameFacts::of(id, record.result, &record.tags);
                counts.add(&facts, &record, wanted);
            }
            Ok(counts)
        })
        .try_reduce(Counts::default, |a, b| Ok(a.merge(b)))
}
