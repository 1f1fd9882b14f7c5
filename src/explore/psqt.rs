//! Piece-square statistics of a database, from every distinct stored position once, weighted by
//! the games reaching it: where each piece kind stands (from its owner's side) and how its owner
//! scored, per phase; and a fit of tables to the results ([`crate::psqt::fit`]) on a sample of
//! the positions.
//!
//! The sample is the `sample` positions whose keys hash lowest under the seed: the same for a
//! given database and seed however the scan is split between threads.

use std::time::Instant;

use serde::Serialize;
use shakmaty::{Color, Role};

use super::{
    Admission, Filter, QueryError,
    distributed::{DistributedScan, chosen, run_whole},
};
use crate::{
    Key,
    codec::KeyBoard,
    model::Tally,
    position::Variant,
    psqt::{
        fit::{self, Feature, Fit, FitOptions, Samples, feature, phase},
        tables::{GamePhase, TABLES, owner_square, table_index, table_of},
    },
    store::{FactsTable, ScanFilter, ScanProgress, ScannedPosition, Snapshot, Store, StoreError},
};

/// Positions whose material phase is at most this count as endgame positions (a queen or two
/// rooks a side, or less).
pub const ENDGAME_PHASE: u32 = 8;

/// What to derive.
#[derive(Clone, Debug, Default)]
pub struct DeriveOptions {
    /// Which games count (dates, speeds, ratings; not a player).
    pub filter: Filter,
    /// Distinct positions the fit uses (0: every position).
    pub sample: usize,
    /// Seed of the sample and of the fit.
    pub seed: u64,
    /// The fit's options (its seed is replaced by `seed`).
    pub fit: FitOptions,
    /// The variant whose positions are read.
    pub variant: Variant,
}

impl DeriveOptions {
    /// Refuses what a derivation cannot answer (a player filter: the scan reads positions, not
    /// games).
    pub fn check(&self) -> Result<(), QueryError> {
        match self.filter.player {
            Some(_) => Err(QueryError::input(
                "piece-square tables take the game filters (dates, speeds, ratings, headers), not a player",
            )),
            None => Ok(()),
        }
    }
}

/// Where pieces stand and how their owners scored, per table (piece kind × phase) and square
/// from the owner's side.
#[derive(Clone, Debug, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "camelCase")]
pub struct Occupancy {
    /// Games × positions with such a piece on the square (a game reaching two such positions
    /// counts twice).
    #[serde(serialize_with = "serialize_tables")]
    pub occurrences: [[u64; 64]; TABLES],
    /// The owner's points in those games, in half points (a win 2, a draw 1).
    #[serde(serialize_with = "serialize_tables")]
    pub half_points: [[u64; 64]; TABLES],
    /// Position occurrences per phase (middlegame, endgame).
    pub positions: [u64; 2],
}

fn serialize_tables<S: serde::Serializer>(tables: &[[u64; 64]; TABLES], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(tables.iter().map(|t| t.as_slice()))
}

impl Default for Occupancy {
    fn default() -> Occupancy {
        Occupancy { occurrences: [[0; 64]; TABLES], half_points: [[0; 64]; TABLES], positions: [0; 2] }
    }
}

impl Occupancy {
    /// The owner's mean score (0..1) of table `t`'s piece on `square`, if it ever stood there.
    pub fn score(&self, t: usize, square: usize) -> Option<f64> {
        let n = self.occurrences[t][square];
        (n > 0).then(|| self.half_points[t][square] as f64 / (2 * n) as f64)
    }

    /// Occurrences of table `t`'s piece on `square` per 1000 positions of that phase.
    pub fn per_mille(&self, t: usize, square: usize) -> f64 {
        let total = self.positions[table_of(t).1 as usize];
        if total == 0 { 0.0 } else { 1000.0 * self.occurrences[t][square] as f64 / total as f64 }
    }

    fn add(&mut self, other: &Occupancy) {
        for t in 0..TABLES {
            for s in 0..64 {
                self.occurrences[t][s] += other.occurrences[t][s];
                self.half_points[t][s] += other.half_points[t][s];
            }
        }
        self.positions[0] += other.positions[0];
        self.positions[1] += other.positions[1];
    }
}

/// A derivation's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Derived {
    /// Distinct positions reached by a counted game.
    pub positions: u64,
    /// Games summed over them.
    pub occurrences: u64,
    /// Where pieces stood and how their owners scored.
    pub occupancy: Occupancy,
    /// Tables fitted to the results.
    pub fit: Fit,
    /// Wall time.
    pub elapsed_ms: u64,
}

/// A sampled position: its key's hash, the key, its pieces, phase and results.
type Sampled = (u64, Key, Vec<Feature>, u32, [u32; 3]);

/// One scan part's contribution.
#[derive(bincode::Encode, bincode::Decode)]
struct Partial {
    positions: u64,
    occurrences: u64,
    occupancy: Occupancy,
    /// Sampled positions with their hashes.
    sample: Vec<Sampled>,
    /// The largest hash kept so far, once the sample is full: only lower ones can enter it.
    threshold: u64,
}

impl Default for Partial {
    fn default() -> Partial {
        Partial {
            positions: 0,
            occurrences: 0,
            occupancy: Occupancy::default(),
            sample: Vec::new(),
            threshold: u64::MAX,
        }
    }
}

/// Derives statistics and fitted tables from `store`.
pub fn derive(store: &Store, options: &DeriveOptions) -> Result<Derived, QueryError> {
    run_whole(options, store, &ScanProgress::default())
}

impl DistributedScan for DeriveOptions {
    type Partial = PsqtPartial;
    type Answer = Derived;

    fn check(&self) -> Result<(), QueryError> {
        DeriveOptions::check(self)
    }

    fn part_count(&self, view: &Snapshot) -> Result<usize, QueryError> {
        Ok(view.scanner().of_variant(self.variant).parts()?.len())
    }

    /// What a derivation finds in some parts of the scan.
    fn partial(&self, view: &Snapshot, numbers: &[usize], progress: &ScanProgress) -> Result<PsqtPartial, QueryError> {
        self.check()?;
        let scanner = view.scanner().of_variant(self.variant);
        let parts = chosen(&scanner.parts()?, numbers)?;
        let limit = sample_limit(self);
        // One-game values take their results from their games' facts, and so does a filter.
        let facts = view.facts().table()?;
        let admission = Admission::resolve(view, &self.filter)?;
        let partial = scanner.run(
            &parts,
            &ScanFilter::all(),
            progress,
            |partial: &mut Partial, mut position| partial.add(&mut position, &facts, (self, &admission), limit),
            |a, b| a.merge(b, limit),
        )?;
        Ok(PsqtPartial(partial))
    }

    /// The derivation: the fit on the merged sample reads no store.
    fn answer(&self, _view: &Snapshot, partials: Vec<PsqtPartial>, started: Instant) -> Result<Derived, QueryError> {
        let limit = sample_limit(self);
        let partial = partials.into_iter().fold(Partial::default(), |all, part| all.merge(part.0, limit));
        let mut chosen = partial.sample;
        chosen.sort_unstable_by_key(|a| (a.0, a.1));
        chosen.truncate(limit);
        let mut samples = Samples::default();
        for (_, _, pieces, phase, results) in &chosen {
            samples.push(pieces, *phase, *results);
        }
        drop(chosen);
        let kings_are_pieces = self.variant == Variant::Antichess;
        let fit = fit::fit(&samples, &FitOptions { seed: self.seed, kings_are_pieces, ..self.fit.clone() });
        Ok(Derived {
            positions: partial.positions,
            occurrences: partial.occurrences,
            occupancy: partial.occupancy,
            fit,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

fn sample_limit(options: &DeriveOptions) -> usize {
    if options.sample == 0 { usize::MAX } else { options.sample }
}

/// What a derivation found in some parts ([`DistributedScan::partial`]), shipped between
/// processes as bytes ([`to_bytes`](super::distributed::to_bytes)).
#[derive(bincode::Encode, bincode::Decode)]
pub struct PsqtPartial(Partial);

/// Keeps the `limit` lowest hashes (ties broken by key) once the list is twice that long.
fn keep_lowest(sample: &mut Vec<Sampled>, limit: usize) {
    if limit != usize::MAX && sample.len() > 2 * limit.max(1) {
        sample.select_nth_unstable_by(limit, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        sample.truncate(limit);
    }
}

impl Partial {
    fn merge(mut self, other: Partial, limit: usize) -> Partial {
        self.positions += other.positions;
        self.occurrences += other.occurrences;
        self.occupancy.add(&other.occupancy);
        self.sample.extend(other.sample);
        keep_lowest(&mut self.sample, limit);
        self
    }

    /// Counts a position with the games `options` keeps, and samples it.
    fn add(
        &mut self,
        position: &mut ScannedPosition,
        facts: &FactsTable,
        (options, admission): (&DeriveOptions, &Admission),
        limit: usize,
    ) -> Result<(), StoreError> {
        let results = counted_results(position, facts, admission)?;
        let games: u64 = results.iter().map(|&n| u64::from(n)).sum();
        if games == 0 {
            return Ok(());
        }
        let key = position.key;
        let board = position.board()?;
        let phase = board_phase(board);
        let phase_index = usize::from(phase <= ENDGAME_PHASE);
        self.positions += 1;
        self.occurrences += games;
        self.occupancy.positions[phase_index] += games;
        let [white, draws, black] = results.map(u64::from);
        let mut pieces = Vec::with_capacity(32);
        for color in Color::ALL {
            let points = if color == Color::White { 2 * white + draws } else { 2 * black + draws };
            for role in Role::ALL {
                let t = table_index(role, GamePhase::ALL[phase_index]);
                for square in board.by_piece(role.of(color)) {
                    let own = owner_square(square, color);
                    self.occupancy.occurrences[t][own as usize] += games;
                    self.occupancy.half_points[t][own as usize] += points;
                    pieces.push(feature(role, own, color == Color::White));
                }
            }
        }
        // Only hashes below the largest kept so far can enter the sample.
        let hash = xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), options.seed);
        if hash < self.threshold || limit == usize::MAX {
            self.sample.push((hash, key, pieces, phase, results));
            if self.sample.len() > 2 * limit.max(1) {
                keep_lowest(&mut self.sample, limit);
                self.threshold = self.sample.iter().map(|s| s.0).max().unwrap_or(u64::MAX);
            }
        }
        Ok(())
    }
}

/// White wins, draws and Black wins among the counted games reaching a stored position: every
/// game, or those the filter admits.
fn counted_results(
    position: &ScannedPosition,
    facts: &FactsTable,
    admission: &Admission,
) -> Result<[u32; 3], StoreError> {
    if admission.is_everything() {
        let seen = position.results(facts)?;
        return Ok([seen.white, seen.draws, seen.black].map(|n| n as u32));
    }
    let mut tally = Tally::default();
    for id in position.games()?.iter() {
        let game = position.facts(facts, id)?;
        if admission.admits(&game) {
            tally.add(&Tally::game(game.result, game.ratings));
        }
    }
    Ok([tally.white, tally.draws, tally.black].map(|n| n as u32))
}

/// The material phase of a decoded board.
fn board_phase(board: &KeyBoard) -> u32 {
    let count = |role: Role| board.by_role.get(role).count() as u32;
    phase(count(Role::Knight) + count(Role::Bishop), count(Role::Rook), count(Role::Queen))
}
