//! The database report spread over processes: its work in numbered parts (runs of game ids for
//! the pass over games, then the endgame scan's parts of [`Store::scan_parts`]), what some of
//! them hold ([`DatabasePartial`], shipped as bytes), and the report from all of them
//! ([`DatabaseReport::answer`]). A single-process report is the same three steps in one process.

use std::{collections::BTreeMap, ops::Range};

use rustc_hash::FxHashMap as HashMap;

use super::{
    DatabaseOptions, DatabaseReport, MAX_PLIES,
    endgames::{self, ClassGames},
    games::{self, Counts, PlayerSums},
};
use crate::{
    Key,
    codec::KEY_LEN,
    explore::{QueryError, shipped},
    model::{GameId, Tally},
    store::{ScanPart, Store},
};

/// Game ids a part of the pass over games reads.
const GAME_RUN: u64 = 4_096;

/// What a report found in some of its parts ([`DatabaseReport::partial`]).
#[derive(Default)]
pub struct DatabasePartial {
    pub(super) counts: Counts,
    /// Endgame classes; each class's games ascending and once.
    pub(super) classes: BTreeMap<String, ClassGames>,
}

/// A report's parts: runs of game ids, then the endgame scan's parts.
struct Parts {
    games: Vec<Range<u64>>,
    scan: Vec<ScanPart>,
}

impl Parts {
    fn of(store: &Store) -> Result<Parts, QueryError> {
        let next = store.totals()?.next_game_id;
        let games = (0..next.div_ceil(GAME_RUN)).map(|i| i * GAME_RUN..((i + 1) * GAME_RUN).min(next)).collect();
        Ok(Parts { games, scan: store.scan_parts()? })
    }

    fn len(&self) -> usize {
        self.games.len() + self.scan.len()
    }
}

impl DatabaseOptions {
    /// Whether the options can be answered (positions by ply go at most [`MAX_PLIES`] deep).
    pub fn check(&self) -> Result<(), QueryError> {
        if self.plies > MAX_PLIES {
            return Err(QueryError::input(format!("positions by ply go at most {MAX_PLIES} plies deep")));
        }
        Ok(())
    }
}

impl DatabaseReport {
    /// The number of parts the report's work is split in (the same for the same database): a
    /// report spread over processes has each compute some of them ([`DatabaseReport::partial`])
    /// and one merge them all ([`DatabaseReport::answer`]).
    pub fn part_count(store: &Store) -> Result<usize, QueryError> {
        Ok(Parts::of(store)?.len())
    }

    /// What the parts numbered `numbers` (below [`DatabaseReport::part_count`]) hold.
    pub fn partial(store: &Store, options: &DatabaseOptions, numbers: &[usize]) -> Result<DatabasePartial, QueryError> {
        options.check()?;
        let parts = Parts::of(store)?;
        let (mut runs, mut scan) = (Vec::new(), Vec::new());
        // A part named twice is counted once.
        let mut numbers = numbers.to_vec();
        numbers.sort_unstable();
        numbers.dedup();
        for number in numbers {
            match number.checked_sub(parts.games.len()) {
                None => runs.push(parts.games[number].clone()),
                Some(i) => scan.push(
                    parts
                        .scan
                        .get(i)
                        .cloned()
                        .ok_or_else(|| QueryError::input(format!("no part {number} of {}", parts.len())))?,
                ),
            }
        }
        let openings = opening_names(store)?;
        let counts = games::count(store, &runs, &openings, options.plies)?;
        let classes = endgames::classes(store, &scan)?;
        Ok(DatabasePartial { counts, classes })
    }
}

/// The opening table by position.
pub(super) fn opening_names(store: &Store) -> Result<HashMap<Key, (String, String)>, QueryError> {
    Ok(store.openings()?.into_iter().map(|(key, eco, name)| (key, (eco, name))).collect())
}

impl DatabasePartial {
    /// Both partial answers in one (a class's games are then ascending once sorted: see
    /// [`DatabasePartial::merged`]).
    fn merge(mut self, other: DatabasePartial) -> DatabasePartial {
        self.counts = std::mem::take(&mut self.counts).merge(other.counts);
        for (class, part) in other.classes {
            let entry = self.classes.entry(class).or_default();
            entry.men = part.men;
            entry.positions += part.positions;
            entry.games.extend(part.games);
        }
        self
    }

    /// The partial answers merged, each class's games ascending and once.
    pub(super) fn merged(partials: impl IntoIterator<Item = DatabasePartial>) -> DatabasePartial {
        let mut all = partials.into_iter().reduce(DatabasePartial::merge).unwrap_or_default();
        for part in all.classes.values_mut() {
            part.games.sort_unstable();
            part.games.dedup();
        }
        all
    }

    /// Its bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = &self.counts;
        let bytes = PartialBytes {
            total: tally_words(&c.total),
            plies: c.plies,
            years: c.years.iter().map(|(&year, t)| (year, tally_words(t))).collect(),
            bands: c.bands.iter().map(|(&band, t)| (band, tally_words(t))).collect(),
            speeds: c.speeds,
            openings: c.openings.iter().map(|((eco, name), t)| (eco.clone(), name.clone(), tally_words(t))).collect(),
            unnamed: c.unnamed,
            players: c.players.iter().map(|(name, p)| (name.clone(), [p.games, p.white, p.points])).collect(),
            by_ply: c.by_ply.iter().map(|at| at.iter().map(|(key, &n)| (*key.as_bytes(), n)).collect()).collect(),
            unreplayable: c.unreplayable,
            classes: self
                .classes
                .iter()
                .map(|(class, part)| {
                    // Ascending ids as gaps: small numbers, a byte or two each.
                    let gaps =
                        part.games.iter().scan(0, |last, id| Some(id.0 - std::mem::replace(last, id.0))).collect();
                    (class.clone(), part.men as u64, part.positions, gaps)
                })
                .collect(),
        };
        shipped::pack(bytes)
    }

    /// The partial answer [`DatabasePartial::to_bytes`] wrote; `None` for other bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<DatabasePartial> {
        let b: PartialBytes = shipped::unpack(bytes)?;
        let counts = Counts {
            total: tally_of(b.total),
            plies: b.plies,
            years: b.years.into_iter().map(|(year, t)| (year, tally_of(t))).collect(),
            bands: b.bands.into_iter().map(|(band, t)| (band, tally_of(t))).collect(),
            speeds: b.speeds,
            openings: b.openings.into_iter().map(|(eco, name, t)| ((eco, name), tally_of(t))).collect(),
            unnamed: b.unnamed,
            players: b
                .players
                .into_iter()
                .map(|(name, [games, white, points])| (name, PlayerSums { games, white, points }))
                .collect(),
            by_ply: b
                .by_ply
                .into_iter()
                .map(|at| at.into_iter().map(|(key, n)| (Key::from_bytes(key), n)).collect())
                .collect(),
            unreplayable: b.unreplayable,
        };
        let mut classes = BTreeMap::new();
        for (class, men, positions, gaps) in b.classes {
            let mut id = 0u64;
            let mut games = Vec::with_capacity(gaps.len());
            for gap in gaps {
                id = id.checked_add(gap)?;
                games.push(GameId(id));
            }
            // Ids written ascending and once: anything else is not this format.
            if !games.windows(2).all(|pair| pair[0] < pair[1]) {
                return None;
            }
            classes.insert(class, ClassGames { men: usize::try_from(men).ok()?, positions, games });
        }
        Some(DatabasePartial { counts, classes })
    }
}

/// [`DatabasePartial`] as bytes: tallies as words, keys as bytes, class game ids as gaps.
#[derive(bincode::Encode, bincode::Decode)]
struct PartialBytes {
    total: [u64; 8],
    plies: u64,
    years: Vec<(u16, [u64; 8])>,
    bands: Vec<(u8, [u64; 8])>,
    speeds: [u64; 7],
    openings: Vec<(String, String, [u64; 8])>,
    unnamed: u64,
    players: Vec<(String, [u64; 3])>,
    by_ply: Vec<Vec<([u8; KEY_LEN], u64)>>,
    unreplayable: u64,
    classes: Vec<(String, u64, u64, Vec<u64>)>,
}

fn tally_words(t: &Tally) -> [u64; 8] {
    [t.games, t.white, t.draws, t.black, t.white_rating_sum, t.white_rated, t.black_rating_sum, t.black_rated]
}

fn tally_of(
    [games, white, draws, black, white_rating_sum, white_rated, black_rating_sum, black_rated]: [u64; 8],
) -> Tally {
    Tally { games, white, draws, black, white_rating_sum, white_rated, black_rating_sum, black_rated }
}
