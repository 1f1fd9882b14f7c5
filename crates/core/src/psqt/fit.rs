//! A Texel-style fit of piece-square tables to game results: White's expected score in a
//! position is `1 / (1 + 10^(−e/400))`, `e` the tapered evaluation (phase from material: knight
//! and bishop 1, rook 2, queen 4, out of 24), and the tables minimise the squared difference to
//! the results of the games that reached each position, every game counted.

use rand::{SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use shakmaty::{Role, Square};

use super::tables::{GamePhase, PieceTables, is_masked, table_index};

/// Full material phase: two knights, two bishops, two rooks and a queen a side.
pub const MAX_PHASE: u32 = 24;
/// Parameters: a value per (piece kind, owner's square) per phase.
const PARAMS: usize = 2 * 6 * 64;
/// Natural-log slope of the logistic: a 400-point lead is ten to one.
const SLOPE: f64 = std::f64::consts::LN_10 / 400.0;
/// Starting values (centipawns) of pawn … king, before the fit moves them.
const START_VALUES: [f64; 6] = [100.0, 300.0, 300.0, 500.0, 900.0, 0.0];

/// A piece as the fit sees it: `(piece kind − 1) · 64 + square from its owner's side`, with the
/// top bit set for Black's pieces.
pub type Feature = u16;

/// The feature of a piece of `role` standing on `own` as its owner sees it
/// ([`owner_square`](super::tables::owner_square)), owned by White (`white`) or Black.
pub fn feature(role: Role, own: Square, white: bool) -> Feature {
    ((role as u16 - 1) << 6 | own as u16) | if white { 0 } else { 0x8000 }
}

/// The material phase of a position from its piece counts (capped at [`MAX_PHASE`]).
pub fn phase(minor_pieces: u32, rooks: u32, queens: u32) -> u32 {
    (minor_pieces + 2 * rooks + 4 * queens).min(MAX_PHASE)
}

/// Positions to fit: their pieces, phase and the results of the games reaching them.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    features: Vec<Feature>,
    ends: Vec<u32>,
    phases: Vec<u8>,
    /// White wins, draws, Black wins.
    results: Vec<[u32; 3]>,
}

impl Samples {
    /// Adds a position.
    pub fn push(&mut self, pieces: &[Feature], phase: u32, results: [u32; 3]) {
        self.features.extend_from_slice(pieces);
        self.ends.push(self.features.len() as u32);
        self.phases.push(phase.min(MAX_PHASE) as u8);
        self.results.push(results);
    }

    /// Distinct positions held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Games summed over the positions.
    pub fn occurrences(&self) -> u64 {
        self.results.iter().map(|r| r.iter().map(|&n| u64::from(n)).sum::<u64>()).sum()
    }

    fn pieces(&self, i: usize) -> &[Feature] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.features[start..self.ends[i] as usize]
    }
}

/// How to fit.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FitOptions {
    /// Passes over the positions.
    pub epochs: u32,
    /// Positions per gradient step.
    pub batch: usize,
    /// Adam's step size (centipawns), decaying linearly to a tenth of it.
    pub learning_rate: f64,
    /// Seed of the order positions are visited in.
    pub seed: u64,
    /// Whether kings are pieces like any other (Antichess: none, or several a side), whose
    /// value the fit reports; elsewhere the two kings' constants cancel and a king's value is 0.
    pub kings_are_pieces: bool,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions { epochs: 10, batch: 4096, learning_rate: 2.0, seed: 1, kings_are_pieces: false }
    }
}

/// A fit's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    /// The fitted tables, rounded to integers (piece value: the mean over the squares the piece
    /// can stand on; king value 0).
    pub tables: PieceTables,
    /// Mean squared error per game of the fitted tables' expected score (what `loss` computes).
    pub loss: f64,
    /// The same for material alone (the starting values, no square bonuses), for comparison.
    pub material_loss: f64,
    /// Distinct positions used.
    pub positions: u64,
    /// Games summed over them: every game reaching a position counts once for it.
    pub occurrences: u64,
    /// The options used.
    pub options: FitOptions,
}

/// White's evaluation of a position's pieces at `phase` under `params` (mg then eg, by feature).
fn evaluate(params: &[f64], pieces: &[Feature], phase: u8) -> f64 {
    let (mg, eg) = (f64::from(phase), f64::from(MAX_PHASE as u8 - phase));
    let mut sum = 0.0;
    for &f in pieces {
        let index = usize::from(f & 0x7fff);
        let value = (mg * params[index] + eg * params[PARAMS / 2 + index]) / f64::from(MAX_PHASE);
        sum += if f & 0x8000 == 0 { value } else { -value };
    }
    sum
}

fn expected(eval: f64) -> f64 {
    1.0 / (1.0 + (-SLOPE * eval).exp())
}

/// Sum over the games of `(result − expected)²`, and the games.
fn squared_error(params: &[f64], samples: &Samples) -> (f64, f64) {
    let (mut error, mut games) = (0.0, 0.0);
    for i in 0..samples.len() {
        let p = expected(evaluate(params, samples.pieces(i), samples.phases[i]));
        let [w, d, b] = samples.results[i].map(f64::from);
        // Σ (r − p)² over w ones, d halves and b zeros.
        error += w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + b * p * p;
        games += w + d + b;
    }
    (error, games)
}

/// Mean squared error per game of `tables` on `samples` (0 when there are none).
pub fn loss(tables: &PieceTables, samples: &Samples) -> f64 {
    let (error, games) = squared_error(&params_of(tables), samples);
    if games > 0.0 { error / games } else { 0.0 }
}

/// Parameters standing for `tables`.
fn params_of(tables: &PieceTables) -> Vec<f64> {
    let mut params = vec![0.0; PARAMS];
    for (r, role) in Role::ALL.into_iter().enumerate() {
        for (p, phase) in GamePhase::ALL.into_iter().enumerate() {
            let t = table_index(role, phase);
            for s in 0..64 {
                params[p * PARAMS / 2 + r * 64 + s] = f64::from(tables.values[t] + tables.squares[t][s]);
            }
        }
    }
    params
}

/// Rounded tables from parameters.
fn tables_of(params: &[f64], kings_are_pieces: bool) -> PieceTables {
    let mut tables = PieceTables::default();
    for (r, role) in Role::ALL.into_iter().enumerate() {
        for (p, phase) in GamePhase::ALL.into_iter().enumerate() {
            let t = table_index(role, phase);
            let raw = |s: usize| params[p * PARAMS / 2 + r * 64 + s].round() as i32;
            let kept: Vec<usize> = (0..64).filter(|&s| !is_masked(t, s)).collect();
            let mean = kept.iter().map(|&s| f64::from(raw(s))).sum::<f64>() / kept.len() as f64;
            let value = mean.round() as i32;
            // A king's constant cancels between the two kings of a standard board: it carries no
            // information there. Antichess's kings are counted like any piece: theirs does.
            tables.values[t] = if role == Role::King && !kings_are_pieces { 0 } else { value };
            for &s in &kept {
                tables.squares[t][s] = raw(s) - value;
            }
        }
    }
    tables
}

/// Fits tables to `samples`; deterministic for the same samples (in the same order) and options.
pub fn fit(samples: &Samples, options: &FitOptions) -> Fit {
    let mut params = vec![0.0; PARAMS];
    for half in 0..2 {
        for (r, value) in START_VALUES.iter().enumerate() {
            params[half * PARAMS / 2 + r * 64..][..64].fill(*value);
        }
    }
    let start = tables_of(&params, options.kings_are_pieces);
    let (mut m, mut v) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
    let (beta1, beta2) = (0.9f64, 0.999f64);
    let mut order: Vec<u32> = (0..samples.len() as u32).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let batch = options.batch.max(1);
    let steps = (options.epochs as usize * order.len().div_ceil(batch)).max(1);
    let mut step = 0usize;
    let mut gradient = vec![0.0; PARAMS];
    for _ in 0..options.epochs {
        order.shuffle(&mut rng);
        for chunk in order.chunks(batch) {
            gradient.fill(0.0);
            let mut games = 0.0;
            for &i in chunk {
                let i = i as usize;
                let (pieces, phase) = (samples.pieces(i), samples.phases[i]);
                let p = expected(evaluate(&params, pieces, phase));
                let [w, d, b] = samples.results[i].map(f64::from);
                let n = w + d + b;
                // d/de Σ (r − p)² = −2 (Σr − n p) · p (1 − p) · slope.
                let de = -2.0 * (w + 0.5 * d - n * p) * p * (1.0 - p) * SLOPE;
                let mg = de * f64::from(phase) / f64::from(MAX_PHASE);
                let eg = de * f64::from(MAX_PHASE as u8 - phase) / f64::from(MAX_PHASE);
                for &f in pieces {
                    let (index, sign) = (usize::from(f & 0x7fff), if f & 0x8000 == 0 { 1.0 } else { -1.0 });
                    gradient[index] += sign * mg;
                    gradient[PARAMS / 2 + index] += sign * eg;
                }
                games += n;
            }
            if games == 0.0 {
                continue;
            }
            step += 1;
            let rate = options.learning_rate * (1.0 - 0.9 * step as f64 / steps as f64);
            let (c1, c2) = (1.0 - beta1.powi(step as i32), 1.0 - beta2.powi(step as i32));
            for k in 0..PARAMS {
                let g = gradient[k] / games;
                m[k] = beta1 * m[k] + (1.0 - beta1) * g;
                v[k] = beta2 * v[k] + (1.0 - beta2) * g * g;
                params[k] -= rate * (m[k] / c1) / ((v[k] / c2).sqrt() + 1e-12);
            }
        }
    }
    let tables = tables_of(&params, options.kings_are_pieces);
    Fit {
        loss: loss(&tables, samples),
        material_loss: loss(&start, samples),
        tables,
        positions: samples.len() as u64,
        occurrences: samples.occurrences(),
        options: options.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kings_value_is_reported_where_kings_are_pieces() {
        // Every king square worth 300 in both phases, the other pieces 100.
        let mut params = vec![100.0; PARAMS];
        for p in 0..2 {
            let king = Role::ALL.iter().position(|&role| role == Role::King).expect("a king");
            params[p * PARAMS / 2 + king * 64..p * PARAMS / 2 + (king + 1) * 64].fill(300.0);
        }
        for (kings_are_pieces, value) in [(false, 0), (true, 300)] {
            let tables = tables_of(&params, kings_are_pieces);
            for phase in GamePhase::ALL {
                let t = table_index(Role::King, phase);
                assert_eq!(tables.values[t], value);
                // Value and square bonus still add up to the fitted parameter where the king stands.
                let square = (0..64).find(|&s| !is_masked(t, s)).expect("a square");
                assert_eq!(tables.values[t] + tables.squares[t][square], if kings_are_pieces { 300 } else { 0 });
                assert_eq!(tables.values[table_index(Role::Queen, phase)], 100);
            }
        }
    }
}
