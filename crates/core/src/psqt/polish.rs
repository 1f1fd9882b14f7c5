//! What makes the genetic algorithm converge: each candidate taken to the nearest point where
//! neither half of the problem can improve alone. For fixed components the weights are a least
//! squares problem per table (solved exactly, rounded, then each weight made the best integer
//! given the others); for fixed weights each square's row of components is a choice among
//! `2^n`, all of them tried (up to 12 components; beyond, 12 drawn at random a square). Alternating the two never raises the error, and stops in a few
//! rounds. The search over components stays the genetic algorithm's ([`super::factorise`]):
//! a final phase breeds polished children (a mutation, then a polish) into a population of
//! polished specimens, replacing the worst.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{
    factorise::Specimen,
    pack::CELLS,
    tables::{TABLES, is_masked},
};

/// Most alternations of a polish (it stops earlier when a round gains nothing).
const ROUNDS: usize = 8;
/// Most components a square's exact row search tries together (`2^12` rows); beyond, each
/// square tries a random subset of this many.
const EXACT_ROWS: usize = 12;

impl Specimen {
    /// Alternates exact weights and exact rows until neither lowers the error.
    pub(super) fn polish(&mut self, n: usize, target: &[i32; CELLS], rng: &mut ChaCha8Rng) {
        let all: Vec<usize> = (0..n).collect();
        for _ in 0..ROUNDS {
            let before = self.error;
            self.solve_weights(n, target);
            for square in 0..64 {
                match n <= EXACT_ROWS {
                    true => self.best_row(n, square, &all),
                    false => self.best_row(n, square, &rand::seq::index::sample(rng, n, EXACT_ROWS).into_vec()),
                }
            }
            if self.error >= before {
                break;
            }
        }
    }

    /// Each table's weights by least squares over its kept squares for the current components,
    /// rounded into the i8 range, then each the best integer given the others (two sweeps);
    /// kept unless they raise the error.
    fn solve_weights(&mut self, n: usize, target: &[i32; CELLS]) {
        let before = (self.weights, self.residual, self.error);
        // Each square's components, read once for the twelve tables.
        let rows: Vec<Vec<usize>> =
            (0..64).map(|square| (0..n).filter(|&j| self.components[j] >> square & 1 == 1).collect()).collect();
        for t in 0..TABLES {
            let mut gram = [[0f64; 16]; 16];
            let mut rhs = [0f64; 16];
            for square in (0..64).filter(|&s| !is_masked(t, s)) {
                let row = &rows[square];
                for &j in row {
                    rhs[j] += f64::from(target[t * 64 + square]);
                    for &k in row {
                        gram[j][k] += 1.0;
                    }
                }
            }
            let solved = solve(&mut gram, &mut rhs, n);
            for (weights, value) in self.weights.iter_mut().zip(&solved).take(n) {
                weights[t] = value.round().clamp(-128.0, 127.0) as i8;
            }
        }
        self.recompute(n, target);
        for _ in 0..2 {
            for j in 0..n {
                for t in 0..TABLES {
                    self.best_weight(j, t);
                }
            }
        }
        if self.error > before.2 {
            (self.weights, self.residual, self.error) = before;
        }
    }

    /// The residual and error from scratch.
    fn recompute(&mut self, n: usize, target: &[i32; CELLS]) {
        self.error = 0;
        for t in 0..TABLES {
            for square in 0..64 {
                let cell = t * 64 + square;
                let r = if is_masked(t, square) {
                    0
                } else {
                    let approx: i32 = (0..n)
                        .filter(|&j| self.components[j] >> square & 1 == 1)
                        .map(|j| i32::from(self.weights[j][t]))
                        .sum();
                    target[cell] - approx
                };
                self.residual[cell] = r;
                self.error += i64::from(r) * i64::from(r);
            }
        }
    }

    /// A jump for the final phase: one component redrawn at random, or a few bits flipped.
    pub(super) fn jump(&mut self, n: usize, rng: &mut ChaCha8Rng) {
        let j = rng.random_range(0..n);
        if rng.random_bool(0.5) {
            let bits: u64 = rng.random();
            for square in 0..64 {
                if (bits ^ self.components[j]) >> square & 1 == 1 {
                    self.flip(j, square);
                }
            }
        } else {
            for _ in 0..rng.random_range(2..=12) {
                self.flip(rng.random_range(0..n), rng.random_range(0..64));
            }
        }
    }
}

/// Solves `gram · x = rhs` (the first `n` rows and columns; symmetric, positive semi-definite)
/// by Gaussian elimination with partial pivoting; a direction the components do not span (a
/// pivot near zero) gets 0.
fn solve(gram: &mut [[f64; 16]; 16], rhs: &mut [f64; 16], n: usize) -> [f64; 16] {
    let mut pivots = [usize::MAX; 16];
    let mut row = 0;
    for col in 0..n {
        let Some(best) = (row..n).max_by(|&a, &b| gram[a][col].abs().total_cmp(&gram[b][col].abs())) else { break };
        if gram[best][col].abs() < 1e-9 {
            continue;
        }
        gram.swap(row, best);
        rhs.swap(row, best);
        for other in 0..n {
            if other != row && gram[other][col] != 0.0 {
                let factor = gram[other][col] / gram[row][col];
                let pivot = gram[row];
                for (cell, p) in gram[other][col..n].iter_mut().zip(&pivot[col..n]) {
                    *cell -= factor * p;
                }
                rhs[other] -= factor * rhs[row];
            }
        }
        pivots[col] = row;
        row += 1;
    }
    let mut x = [0f64; 16];
    for col in 0..n {
        if let Some(&r) = pivots.get(col).filter(|&&r| r != usize::MAX) {
            x[col] = rhs[r] / gram[r][col];
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn least_squares_solve_full_rank_and_singular_systems() {
        // gram = AᵀA for A with columns (1,1,0), (0,1,1): x = (1, 2) gives A x = (1, 3, 2).
        let mut gram = [[0f64; 16]; 16];
        let mut rhs = [0f64; 16];
        (gram[0][0], gram[0][1], gram[1][0], gram[1][1]) = (2.0, 1.0, 1.0, 2.0);
        (rhs[0], rhs[1]) = (4.0, 5.0);
        let x = solve(&mut gram.clone(), &mut rhs.clone(), 2);
        assert!((x[0] - 1.0).abs() < 1e-9 && (x[1] - 2.0).abs() < 1e-9, "{x:?}");
        // A third column equal to the first: singular, and any answer meets the normal equations.
        let mut gram3 = [[0f64; 16]; 16];
        for (j, k) in [(0, 0), (0, 2), (2, 0), (2, 2)] {
            gram3[j][k] = 2.0;
        }
        for (j, k) in [(0, 1), (1, 0), (2, 1), (1, 2)] {
            gram3[j][k] = 1.0;
        }
        gram3[1][1] = 2.0;
        let mut rhs3 = [0f64; 16];
        (rhs3[0], rhs3[1], rhs3[2]) = (4.0, 5.0, 4.0);
        let x = solve(&mut gram3.clone(), &mut rhs3.clone(), 3);
        for j in 0..3 {
            let lhs: f64 = (0..3).map(|k| gram3[j][k] * x[k]).sum();
            assert!((lhs - rhs3[j]).abs() < 1e-9, "row {j}: {lhs} vs {}", rhs3[j]);
        }
    }

    #[test]
    fn a_polish_never_raises_the_error_and_keeps_the_residual_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut target = [0i32; CELLS];
        for (cell, value) in target.iter_mut().enumerate() {
            if !is_masked(cell / 64, cell % 64) {
                *value = rng.random_range(-60..60);
            }
        }
        for n in [1, 5, 13] {
            let mut specimen = Specimen::new(&target);
            for j in 0..n {
                specimen.components[j] = rng.random();
                for t in 0..TABLES {
                    specimen.weights[j][t] = rng.random_range(-20..20);
                }
            }
            specimen.recompute(n, &target);
            let before = specimen.error;
            specimen.polish(n, &target, &mut rng);
            assert!(specimen.error <= before, "n = {n}: {} after {before}", specimen.error);
            assert!(specimen.error < before, "n = {n}: random weights are never optimal");
            let incremental = (specimen.residual, specimen.error);
            specimen.recompute(n, &target);
            assert_eq!((specimen.residual, specimen.error), incremental, "n = {n}");
        }
    }
}
