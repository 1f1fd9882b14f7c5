//! Piece-square statistics of a database, from every distinct stored position once, weighted by
//! the games reaching it: where each piece kind stands (from its owner's side) and how its owner
//! scored, per phase; and a fit of tables to the results ([`crate::psqt::fit`]) on a sample of
//! the positions.
//!
//! The sample is the `sample` positions whose keys hash lowest under the seed: the same for a
//! given database and seed however the scan is split between threads.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use rayon::prelude::*;
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
        if self.filter.player.is_some() {
            return Err(QueryError::input(
                "piece-square tables take the game filters (dates, speeds, ratings, headers), not a player",
            ));
        }
        match crate::store::memory_budget() {
            Some(budget) if self.sample == 0 => Err(QueryError::input(format!(
                "a fit on every position (sample 0) is not bounded by a memory budget: sample at most {} positions under {} MiB",
                largest_sample(budget),
                budget >> 20
            ))),
            Some(budget) if sample_bytes(self.sample) > budget => Err(QueryError::input(format!(
                "a sample of {} positions needs about {} MiB, more than the memory budget of {} MiB: sample at most {} positions, or give more memory",
                self.sample,
                sample_bytes(self.sample).div_ceil(1 << 20),
                budget >> 20,
                largest_sample(budget)
            ))),
            _ => Ok(()),
        }
    }
}

/// What a derivation holds besides its sample, and for each sampled position (the sample kept
/// while scanning, then its pieces and the fit's state): measured on players under
/// `--memory 256M`, 163 MiB at the peak for half a million positions, 250 for a million, 430
/// for two.
const SAMPLE_BASE_BYTES: u64 = 72 << 20;
const SAMPLED_BYTES: u64 = 200;

/// Bytes a derivation of a sample of `sample` positions holds at its peak.
fn sample_bytes(sample: usize) -> u64 {
    (sample as u64).saturating_mul(SAMPLED_BYTES).saturating_add(SAMPLE_BASE_BYTES)
}

/// The largest sample a derivation holds within `budget` bytes.
fn largest_sample(budget: u64) -> usize {
    usize::try_from(budget.saturating_sub(SAMPLE_BASE_BYTES) / SAMPLED_BYTES).unwrap_or(usize::MAX)
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

/// A sampled position: its key's hash, the key and its results. Its pieces and phase are read
/// again from the key once the sample is chosen: 48 bytes a position instead of some 140 with
/// its pieces (a players derivation of 2 million positions took 3.8 GB).
type Sampled = (u64, Key, [u32; 3]);

/// One scan part's contribution.
#[derive(Default, bincode::Encode, bincode::Decode)]
struct Partial {
    positions: u64,
    occurrences: u64,
    occupancy: Occupancy,
    /// Sampled positions with their hashes: a part's, until handed to the scan's [`Sample`].
    sample: Vec<Sampled>,
}

/// Sampled positions a part holds before it hands them to the scan's [`Sample`].
const HANDED_AT: usize = 1 << 16;

/// The sample of one scan, which every part hands its sampled positions to: some twice `limit`
/// positions at once however many parts are under way, beside each part's own until it hands
/// them over ([`HANDED_AT`]); each part holding its own sample, a players derivation held 1.3 GB.
struct Sample {
    limit: usize,
    kept: Mutex<Vec<Sampled>>,
    /// The largest hash kept once the sample was full: none above it can be among the lowest
    /// `limit`, so no part keeps one (one equal to it can, by its key).
    bound: AtomicU64,
}

impl Sample {
    fn new(limit: usize) -> Sample {
        Sample { limit, kept: Mutex::new(Vec::new()), bound: AtomicU64::new(u64::MAX) }
    }

    /// Whether a position of `hash` may be among the lowest.
    fn admits(&self, hash: u64) -> bool {
        self.limit == usize::MAX || hash <= self.bound.load(Ordering::Relaxed)
    }

    /// Takes a part's sampled positions.
    fn take(&self, sampled: &mut Vec<Sampled>) {
        let mut kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match kept.is_empty() {
            true => std::mem::swap(&mut *kept, sampled),
            false => kept.append(sampled),
        }
        if kept.len() > self.limit.saturating_mul(2).max(2) {
            keep_lowest(&mut kept, self.limit);
            self.bound.fetch_min(kept.iter().map(|s| s.0).max().unwrap_or(u64::MAX), Ordering::Relaxed);
        }
    }

    /// Takes a part's sampled positions once they are [`HANDED_AT`] or more.
    fn take_many(&self, sampled: &mut Vec<Sampled>) {
        if sampled.len() >= HANDED_AT {
            self.take(sampled);
        }
    }

    /// The lowest `limit` positions taken, in order.
    fn into_lowest(self) -> Vec<Sampled> {
        let mut kept = self.kept.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.sort_unstable_by_key(|a| (a.0, a.1));
        kept.truncate(self.limit);
        kept.shrink_to_fit();
        kept
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
        let sample = Sample::new(sample_limit(self));
        // One-game values take their results from their games' facts, and so does a filter.
        let facts = view.facts().table()?;
        let admission = Admission::resolve(view, &self.filter)?;
        let partial = scanner.run(
            &parts,
            &ScanFilter::all(),
            progress,
            |partial: &mut Partial, mut position| partial.add(&mut position, &facts, (self, &admission), &sample),
            |a, b| a.merge(b, &sample),
        )?;
        let mut partial = admission.checked(facts.checked(partial)?)?;
        sample.take(&mut partial.sample);
        partial.sample = sample.into_lowest();
        Ok(PsqtPartial(partial))
    }

    /// The derivation: the fit on the merged sample, whose pieces are read from its keys.
    fn answer(&self, view: &Snapshot, partials: Vec<PsqtPartial>, started: Instant) -> Result<Derived, QueryError> {
        let sample = Sample::new(sample_limit(self));
        let mut partial = partials.into_iter().fold(Partial::default(), |all, part| all.merge(part.0, &sample));
        sample.take(&mut partial.sample);
        let chosen = sample.into_lowest();
        let mut samples = Samples::default();
        // Decoded in parallel a slice at a time, so that only a slice's pieces wait at once.
        for slice in chosen.chunks(1 << 16) {
            let decoded: Vec<_> = slice.par_iter().map(|(_, key, _)| pieces_of(view, key)).collect::<Result<_, _>>()?;
            for ((pieces, phase), (_, _, results)) in decoded.iter().zip(slice) {
                samples.push(pieces, *phase, *results);
            }
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

/// Keeps the `limit` lowest hashes (ties broken by key).
fn keep_lowest(sample: &mut Vec<Sampled>, limit: usize) {
    if sample.len() > limit {
        sample.select_nth_unstable_by(limit, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        sample.truncate(limit);
    }
}

impl Partial {
    fn merge(mut self, mut other: Partial, sample: &Sample) -> Partial {
        self.positions += other.positions;
        self.occurrences += other.occurrences;
        self.occupancy.add(&other.occupancy);
        self.sample.append(&mut other.sample);
        sample.take_many(&mut self.sample);
        self
    }

    /// Counts a position with the games `options` keeps, and samples it.
    fn add(
        &mut self,
        position: &mut ScannedPosition,
        facts: &FactsTable,
        (options, admission): (&DeriveOptions, &Admission),
        sample: &Sample,
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
        for color in Color::ALL {
            let points = if color == Color::White { 2 * white + draws } else { 2 * black + draws };
            for role in Role::ALL {
                let t = table_index(role, GamePhase::ALL[phase_index]);
                for square in board.by_piece(role.of(color)) {
                    let own = owner_square(square, color);
                    self.occupancy.occurrences[t][own as usize] += games;
                    self.occupancy.half_points[t][own as usize] += points;
                }
            }
        }
        // Only hashes up to the largest kept, once the sample was full, can enter it.
        let hash = xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), options.seed);
        if sample.admits(hash) {
            self.sample.push((hash, key, results));
            sample.take_many(&mut self.sample);
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

/// The pieces of `key`'s position as the fit's features (by colour, role and square) and its
/// material phase.
fn pieces_of(view: &Snapshot, key: &Key) -> Result<(Vec<Feature>, u32), StoreError> {
    let corrupt = |what: String| view.corrupt(format!("sampled position key {key}: {what}"));
    let board = key.decode_board(|_, _| true).map_err(|err| corrupt(err.to_string()))?;
    let board = board.ok_or_else(|| corrupt("no board".to_owned()))?;
    let mut pieces = Vec::with_capacity(32);
    for color in Color::ALL {
        for role in Role::ALL {
            for square in board.by_piece(role.of(color)) {
                pieces.push(feature(role, owner_square(square, color), color == Color::White));
            }
        }
    }
    Ok((pieces, board_phase(&board)))
}

/// The material phase of a decoded board.
fn board_phase(board: &KeyBoard) -> u32 {
    let count = |role: Role| board.by_role.get(role).count() as u32;
    phase(count(Role::Knight) + count(Role::Bishop), count(Role::Rook), count(Role::Queen))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts handing their positions over in small batches from several threads keep, between
    /// them, exactly the lowest hashes (ties by key) a sort of every position gives, and the
    /// bound turns most positions away once the sample has been full.
    #[test]
    fn the_sample_keeps_the_lowest_hashes_whatever_the_parts() {
        let entries: Vec<Sampled> = (0..20_000u32)
            .map(|i| {
                let mut key = [0; crate::codec::KEY_LEN];
                key[..4].copy_from_slice(&i.wrapping_mul(2_654_435_761).to_be_bytes());
                // A hash in a small range, so that ties are broken by the (distinct) keys.
                (xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()) % 5_000, Key::from_bytes(key), [i, 0, 0])
            })
            .collect();
        for limit in [1, 7, 1_000, usize::MAX] {
            let sample = Sample::new(limit);
            let admitted = AtomicU64::new(0);
            std::thread::scope(|scope| {
                for part in entries.chunks(2_500) {
                    let (sample, admitted) = (&sample, &admitted);
                    scope.spawn(move || {
                        let mut local = Vec::new();
                        for entry in part {
                            if sample.admits(entry.0) {
                                admitted.fetch_add(1, Ordering::Relaxed);
                                local.push(*entry);
                                if local.len() >= 50 {
                                    sample.take(&mut local);
                                }
                            }
                        }
                        sample.take(&mut local);
                    });
                }
            });
            let mut expected = entries.clone();
            expected.sort_unstable_by_key(|a| (a.0, a.1));
            expected.truncate(limit);
            let kept = sample.into_lowest();
            assert!(kept == expected, "limit {limit}: {} kept, {} expected", kept.len(), expected.len());
            let admitted = admitted.into_inner();
            match limit {
                usize::MAX => assert_eq!(admitted, 20_000),
                _ => assert!(admitted < 20_000, "limit {limit}: {admitted} admitted"),
            }
        }
    }
}
