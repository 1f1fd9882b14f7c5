//! Piece-square-table factorisation: tables ≈ C·W, with C a few binary components (u64 bitboards) shared by all twelve
//! tables and W small integer weights per table, found by a genetic algorithm.
//!
//! The fitness is minus the masked squared error `‖M ⊙ (P − CW)‖²` (M is zero on pawns' first
//! and eighth ranks). Each generation keeps the `elite` best specimens and fills the rest with
//! mutated copies of parents drawn with a bias to the fittest. Components are added one at a
//! time (iteration `i` evolves `i` components; a new one starts all zero with zero weights), so
//! no two components evolve into copies of each other.
//!
//! The piece values ride along as the packed form's implicit component: each table's value
//! (plus, with mean adjustment, the floor mean of its bonuses) is divided by the smallest `d`
//! that fits every quotient in an i8; what that rounding leaves is added to the table's target,
//! so the unpacked values are exactly what the reported error measures.
//!
//! Mutations are the original method's (flip one bit of a component, nudge one weight) plus directed ones
//! that give a child the best choice for some coordinates given the rest: the best integer
//! weight for one (component, table); the best set of components for one square (all `2^n`
//! rows in Gray-code order, or the `2^8` rows of 8 components drawn at random when `n > 8`); a
//! refit, which redraws one component at random and then alternates its best weights and best
//! bits; and, rarely, a restart of all components from random bits, taken to its nearest optimum
//! by alternating best weights and best rows. At the last iteration a final phase breeds children
//! taken to their nearest optimum (the `polish` module: exact weights and exact rows, alternated).
//! docs/DECISIONS.md records what each design measured.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::{
    bound::rank_bound,
    pack::{CELLS, PackedTables, target},
    tables::{KEPT_CELLS, PieceTables, TABLES, is_masked},
};

/// Most components a factorisation may have.
pub const MAX_COMPONENTS: usize = 16;

/// How to factorise.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FactoriseOptions {
    /// Components `n` (1..=16).
    pub components: usize,
    /// Most generations per iteration; an iteration also ends after `generations / 4`
    /// generations without improvement.
    pub generations: u32,
    /// Specimens per generation.
    pub population: usize,
    /// Specimens kept unchanged into the next generation.
    pub elite: usize,
    /// Random seed: the same seed gives the same result.
    pub seed: u64,
    /// Fold each table's floor mean into its piece value before factorising.
    pub mean_adjust: bool,
    /// Also use the directed mutations (best weight, best square row); without, only the original method's
    /// random bit flips and weight nudges.
    pub directed: bool,
    /// Children of the final phase at `components` (with `directed`): each a mutation of a
    /// polished parent, polished in turn (exact weights and exact rows, alternated), replacing the worst specimen when
    /// better. 0: no final phase.
    pub polished_children: u32,
}

impl Default for FactoriseOptions {
    fn default() -> FactoriseOptions {
        FactoriseOptions {
            components: 12,
            generations: 20_000,
            population: 32,
            elite: 4,
            seed: 1,
            mean_adjust: true,
            directed: true,
            polished_children: 1_000,
        }
    }
}

/// What one iteration reached.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Iteration {
    /// Components evolved in this iteration.
    pub components: usize,
    /// Root mean square of the error over the squares the mask keeps.
    pub masked_rms: f64,
    /// Largest absolute error over those squares.
    pub max_error: i32,
    /// Masked RMS error of the best real-valued rank-`n` approximation ([`super::bound`]): what
    /// no `n` components can beat.
    pub rank_bound_rms: f64,
    /// Generations run.
    pub generations: u32,
    /// Polished children bred after the generations (the last iteration only).
    pub polished_children: u32,
    /// Time since the factorisation started.
    pub elapsed_ms: u64,
}

/// A factorisation's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Factorisation {
    /// The packed form: its `unpack()` is the approximation every figure here describes.
    pub packed: PackedTables,
    /// Per iteration, the error reached.
    pub iterations: Vec<Iteration>,
    /// The options used.
    pub options: FactoriseOptions,
}

impl Factorisation {
    /// The approximation as tables: piece values `d · w_q`, square bonuses the components' sum.
    pub fn approximation(&self) -> PieceTables {
        let unpacked = self.packed.unpack();
        let n = self.packed.components.len();
        let mut tables = PieceTables::default();
        for t in 0..TABLES {
            tables.values[t] = i32::from(self.packed.weights[n][t]) * self.packed.divisor;
            for s in 0..64 {
                tables.squares[t][s] = unpacked[t * 64 + s] - tables.values[t];
            }
        }
        tables
    }
}

/// One candidate: components, weights, and the residual `target − CW` it leaves (zero on masked
/// cells), with its squared sum.
#[derive(Clone)]
pub(super) struct Specimen {
    pub(super) components: [u64; MAX_COMPONENTS],
    pub(super) weights: [[i8; TABLES]; MAX_COMPONENTS],
    pub(super) residual: [i32; CELLS],
    pub(super) error: i64,
}

impl Specimen {
    pub(super) fn new(target: &[i32; CELLS]) -> Specimen {
        let residual = *target;
        let error = residual.iter().map(|&r| i64::from(r) * i64::from(r)).sum();
        Specimen { components: [0; MAX_COMPONENTS], weights: [[0; TABLES]; MAX_COMPONENTS], residual, error }
    }

    /// Flips bit `square` of component `j`.
    pub(super) fn flip(&mut self, j: usize, square: usize) {
        let adding = self.components[j] >> square & 1 == 0;
        self.components[j] ^= 1 << square;
        for t in 0..TABLES {
            if is_masked(t, square) {
                continue;
            }
            let w = i32::from(self.weights[j][t]);
            let cell = &mut self.residual[t * 64 + square];
            let new = if adding { *cell - w } else { *cell + w };
            self.error += i64::from(new) * i64::from(new) - i64::from(*cell) * i64::from(*cell);
            *cell = new;
        }
    }

    /// Adds `delta` to weight (j, t), clamped to the i8 range.
    fn nudge(&mut self, j: usize, t: usize, delta: i32) {
        let old = i32::from(self.weights[j][t]);
        let new = (old + delta).clamp(-128, 127);
        let delta = new - old;
        if delta == 0 {
            return;
        }
        self.weights[j][t] = new as i8;
        let mut bits = self.components[j];
        while bits != 0 {
            let square = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if is_masked(t, square) {
                continue;
            }
            let cell = &mut self.residual[t * 64 + square];
            let new = *cell - delta;
            self.error += i64::from(new) * i64::from(new) - i64::from(*cell) * i64::from(*cell);
            *cell = new;
        }
    }

    /// Sets weight (j, t) to the best integer given everything else.
    pub(super) fn best_weight(&mut self, j: usize, t: usize) {
        let (mut sum, mut count) = (0i64, 0i64);
        let mut bits = self.components[j];
        while bits != 0 {
            let square = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if !is_masked(t, square) {
                sum += i64::from(self.residual[t * 64 + square]);
                count += 1;
            }
        }
        if count > 0 {
            // Rounded to nearest: the squared error is a parabola in the weight.
            let delta = (sum as f64 / count as f64).round() as i32;
            self.nudge(j, t, delta);
        }
    }

    /// Gives `square` the best choice of the components in `searched` (the others as they are),
    /// given the weights: all `2^|searched|` rows, walked in Gray-code order.
    pub(super) fn best_row(&mut self, n: usize, square: usize, searched: &[usize]) {
        // The target at this square, and the current row's approximation.
        let mut approx = [0i32; TABLES];
        let mut target = [0i32; TABLES];
        let mut current = 0u32;
        for j in 0..n {
            if self.components[j] >> square & 1 == 1 {
                current |= 1 << j;
            }
        }
        for t in 0..TABLES {
            for j in 0..n {
                if current >> j & 1 == 1 {
                    approx[t] += i32::from(self.weights[j][t]);
                }
            }
            target[t] = if is_masked(t, square) { 0 } else { self.residual[t * 64 + square] + approx[t] };
        }
        let cost = |approx: &[i32; TABLES]| -> i64 {
            (0..TABLES)
                .filter(|&t| !is_masked(t, square))
                .map(|t| {
                    let r = i64::from(target[t] - approx[t]);
                    r * r
                })
                .sum()
        };
        let (mut best, mut best_cost) = (current, cost(&approx));
        // One bit changes per step.
        let mut row = current;
        for step in 1u32..(1 << searched.len()) {
            let j = searched[step.trailing_zeros() as usize];
            row ^= 1 << j;
            let sign = if row >> j & 1 == 1 { 1 } else { -1 };
            for (a, w) in approx.iter_mut().zip(self.weights[j]) {
                *a += sign * i32::from(w);
            }
            let c = cost(&approx);
            if c < best_cost {
                (best, best_cost) = (row, c);
            }
        }
        for j in 0..n {
            if (best ^ current) >> j & 1 == 1 {
                self.flip(j, square);
            }
        }
    }

    /// Sets bit `square` of component `j` to whichever value leaves less error.
    fn best_bit(&mut self, j: usize, square: usize) {
        let set = self.components[j] >> square & 1 == 1;
        // Change in squared error if the bit flipped: (r ± w)² − r² per table.
        let change: i64 = (0..TABLES)
            .filter(|&t| !is_masked(t, square))
            .map(|t| {
                let (r, w) = (i64::from(self.residual[t * 64 + square]), i64::from(self.weights[j][t]));
                let flipped = if set { r + w } else { r - w };
                flipped * flipped - r * r
            })
            .sum();
        if change < 0 {
            self.flip(j, square);
        }
    }

    /// Replaces component `j` by random bits, then alternately gives it its best weights and
    /// its best bits: a long jump that lands on a local optimum.
    fn refit(&mut self, j: usize, rng: &mut ChaCha8Rng) {
        let bits: u64 = rng.random();
        for square in 0..64 {
            if (bits ^ self.components[j]) >> square & 1 == 1 {
                self.flip(j, square);
            }
        }
        for _ in 0..2 {
            for t in 0..TABLES {
                self.best_weight(j, t);
            }
            for square in 0..64 {
                self.best_bit(j, square);
            }
        }
        for t in 0..TABLES {
            self.best_weight(j, t);
        }
    }

    /// Redraws every component at random, then alternates best weights and best rows: a
    /// restart from a random point, taken to its nearest optimum.
    fn restart(&mut self, n: usize, rng: &mut ChaCha8Rng) {
        for j in 0..n {
            let bits: u64 = rng.random();
            for square in 0..64 {
                if (bits ^ self.components[j]) >> square & 1 == 1 {
                    self.flip(j, square);
                }
            }
        }
        for _ in 0..4 {
            for _ in 0..2 {
                for j in 0..n {
                    for t in 0..TABLES {
                        self.best_weight(j, t);
                    }
                }
            }
            for square in 0..64 {
                self.best_row(n, square, &searched(n, rng));
            }
        }
    }

    fn mutate(&mut self, n: usize, directed: bool, rng: &mut ChaCha8Rng) {
        // A restart costs hundreds of plain mutations, more as n grows: drawn that much more
        // rarely (1 in 64 · 2^n).
        if directed && rng.random_ratio(1, 64 << n) {
            self.restart(n, rng);
            return;
        }
        let j = rng.random_range(0..n);
        // Out of 16: the original method's mutations 8, the directed ones 8 (a refit, the costliest, 1).
        match rng.random_range(0..if directed { 16 } else { 8 }) {
            0..3 => self.flip(j, rng.random_range(0..64)),
            3..6 => self.nudge(j, rng.random_range(0..TABLES), nudge(rng)),
            6..8 => {
                self.flip(j, rng.random_range(0..64));
                self.nudge(j, rng.random_range(0..TABLES), nudge(rng));
            }
            8..12 => self.best_weight(j, rng.random_range(0..TABLES)),
            12..15 => {
                let square = rng.random_range(0..64);
                self.best_row(n, square, &searched(n, rng));
            }
            _ => self.refit(j, rng),
        }
    }
}

/// Most components one row search tries together (`2^8` rows).
const ROW_SEARCH: usize = 8;

/// The components a row search tries: all of them, or [`ROW_SEARCH`] drawn at random.
fn searched(n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    if n <= ROW_SEARCH { (0..n).collect() } else { rand::seq::index::sample(rng, n, ROW_SEARCH).into_vec() }
}

/// A small weight change: ±1..±4.
fn nudge(rng: &mut ChaCha8Rng) -> i32 {
    let size = rng.random_range(1..=4);
    if rng.random_bool(0.5) { size } else { -size }
}

/// Factorises `tables` by the genetic algorithm; deterministic for given options.
pub fn factorise(tables: &PieceTables, options: &FactoriseOptions) -> Factorisation {
    let started = Instant::now();
    let n_max = options.components.clamp(1, MAX_COMPONENTS);
    let population = options.population.max(2);
    let elite = options.elite.clamp(1, population - 1);
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);

    let (divisor, value_row, target) = target(tables, options.mean_adjust);
    let mut current = vec![Specimen::new(&target); population];
    let mut next = current.clone();
    let mut iterations = Vec::with_capacity(n_max);
    for n in 1..=n_max {
        let patience = (options.generations / 4).max(1);
        let (mut best_error, mut last_better, mut generations) = (current[0].error, 0, 0);
        for generation in 0..options.generations {
            generations = generation + 1;
            for (i, child) in next.iter_mut().enumerate() {
                if i < elite {
                    child.clone_from(&current[i]);
                    continue;
                }
                // Rank-biased choice: the square of a uniform variable favours the front.
                let u: f64 = rng.random();
                let parent = ((u * u) * population as f64) as usize;
                child.clone_from(&current[parent.min(population - 1)]);
                child.mutate(n, options.directed, &mut rng);
            }
            std::mem::swap(&mut current, &mut next);
            current.sort_by_key(|s| s.error);
            if current[0].error == 0 {
                break;
            }
            if current[0].error < best_error {
                (best_error, last_better) = (current[0].error, generation);
            } else if generation - last_better >= patience {
                break;
            }
        }
        let mut polished_children = 0;
        if n == n_max && options.directed && options.polished_children > 0 {
            polished_children = breed_polished(&mut current, n, &target, options.polished_children, &mut rng);
        }
        let best = &current[0];
        iterations.push(Iteration {
            components: n,
            masked_rms: (best.error as f64 / KEPT_CELLS as f64).sqrt(),
            max_error: best.residual.iter().map(|r| r.abs()).max().unwrap_or(0),
            rank_bound_rms: rank_bound(tables, options.mean_adjust, n),
            generations,
            polished_children,
            elapsed_ms: started.elapsed().as_millis() as u64,
        });
    }

    let best = &current[0];
    let mut weights: Vec<[i8; TABLES]> = best.weights[..n_max].to_vec();
    weights.push(value_row);
    Factorisation {
        packed: PackedTables { components: best.components[..n_max].to_vec(), weights, divisor },
        iterations,
        options: options.clone(),
    }
}

/// The final phase: every specimen polished, then `children` polished children bred from
/// rank-biased parents, each replacing the worst specimen when it is better and its error is
/// not one the population has (which keeps it diverse). Returns the children bred.
fn breed_polished(
    population: &mut [Specimen],
    n: usize,
    target: &[i32; CELLS],
    children: u32,
    rng: &mut ChaCha8Rng,
) -> u32 {
    for specimen in population.iter_mut() {
        specimen.polish(n, target, rng);
    }
    population.sort_by_key(|s| s.error);
    for _ in 0..children {
        let u: f64 = rng.random();
        let parent = (((u * u) * population.len() as f64) as usize).min(population.len() - 1);
        let mut child = population[parent].clone();
        child.jump(n, rng);
        child.polish(n, target, rng);
        let worst = population.len() - 1;
        if child.error < population[worst].error && population.iter().all(|s| s.error != child.error) {
            population[worst] = child;
            population.sort_by_key(|s| s.error);
        }
    }
    children
}
