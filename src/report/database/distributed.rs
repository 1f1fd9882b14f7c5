//! The database report spread over processes: its work in numbered parts (runs of game ids for
//! the pass over games, then the endgame scan's parts of
//! [`Scanner::parts`](crate::store::read::Scanner::parts)), what some of them hold
//! ([`DatabasePartial`]), and the report from all of them: the database report is a
//! [`DistributedScan`] of its [`DatabaseOptions`]. A single-process report is the same three
//! steps in one process.

use std::{collections::BTreeMap, ops::Range, time::Instant};

use rustc_hash::FxHashMap as HashMap;

use super::{
    DatabaseOptions, DatabaseReport, MAX_PLIES,
    endgames::{self, ClassGames},
    games::{self, Counts},
};
use crate::{
    Key,
    explore::{
        QueryError,
        distributed::{DistributedScan, chosen},
    },
    position::Variant,
    store::{ScanPart, ScanProgress, Snapshot},
};

/// Game ids a part of the pass over games reads.
const GAME_RUN: u64 = 4_096;

/// What a report found in some of its parts ([`DistributedScan::partial`]), shipped between
/// processes as bytes.
#[derive(Default, bincode::Encode, bincode::Decode)]
pub struct DatabasePartial {
    pub(super) counts: Counts,
    /// Endgame classes; each class's games ascending and once.
    pub(super) classes: BTreeMap<String, ClassGames>,
}

/// One part of a report: a run of game ids, or a part of the endgame scan.
#[derive(Clone)]
enum Part {
    Games(Range<u64>),
    Scan(ScanPart),
}

/// A report's parts: runs of game ids, then the endgame scan's parts (over `variant`'s keys).
fn parts(view: &Snapshot, variant: Variant) -> Result<Vec<Part>, QueryError> {
    let next = view.totals()?.next_game_id;
    let games = (0..next.div_ceil(GAME_RUN)).map(|i| Part::Games(i * GAME_RUN..((i + 1) * GAME_RUN).min(next)));
    let scan = view.scanner().of_variant(variant).parts()?;
    Ok(games.chain(scan.into_iter().map(Part::Scan)).collect())
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

impl DistributedScan for DatabaseOptions {
    type Partial = DatabasePartial;
    type Answer = DatabaseReport;

    fn check(&self) -> Result<(), QueryError> {
        DatabaseOptions::check(self)
    }

    /// The number of parts the report's work is split in (the same for the same database).
    fn part_count(&self, view: &Snapshot) -> Result<usize, QueryError> {
        self.check()?;
        Ok(parts(view, self.variant)?.len())
    }

    fn partial(&self, view: &Snapshot, numbers: &[usize], _: &ScanProgress) -> Result<DatabasePartial, QueryError> {
        self.check()?;
        let (mut runs, mut scan) = (Vec::new(), Vec::new());
        for part in chosen(&parts(view, self.variant)?, numbers)? {
            match part {
                Part::Games(run) => runs.push(run),
                Part::Scan(part) => scan.push(part),
            }
        }
        let openings = opening_names(view)?;
        let wanted = games::Wanted { variant: self.variant, openings: &openings, plies: self.plies };
        let counts = games::count(view, &runs, &wanted)?;
        let classes = endgames::classes(view, &scan, self.variant)?;
        Ok(DatabasePartial { counts, classes })
    }

    fn answer(
        &self,
        view: &Snapshot,
        partials: Vec<DatabasePartial>,
        _started: Instant,
    ) -> Result<DatabaseReport, QueryError> {
        self.check()?;
        DatabaseReport::of(view, self, DatabasePartial::merged(partials))
    }
}

/// The opening table by position.
pub(super) fn opening_names(view: &Snapshot) -> Result<HashMap<Key, (String, String)>, QueryError> {
    Ok(view.positions().openings()?.into_iter().map(|(key, eco, name)| (key, (eco, name))).collect())
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
}
