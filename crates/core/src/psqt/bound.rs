//! The real-valued floor under a factorisation: the masked error of the best rank-`n` real
//! matrix for the same target. `C·W` with `n` binary components has rank at most `n`, so it
//! cannot do better (for `n ≥ 12` the floor is zero: the tables are twelve columns).
//!
//! The masked optimum has no closed form; it is found by the classic imputation loop (truncated
//! SVD, masked cells refilled from the approximation, repeated until stable), which only lowers
//! the masked error at each step.

use nalgebra::DMatrix;

use super::{
    pack::target,
    tables::{KEPT_CELLS, PieceTables, TABLES, is_masked},
};

/// Masked RMS error of the best real rank-`n` approximation of what [`factorise`](fn@super::factorise)
/// approximates with `n` components.
pub fn rank_bound(tables: &PieceTables, mean_adjust: bool, n: usize) -> f64 {
    if n >= TABLES {
        return 0.0;
    }
    let (_, _, target) = target(tables, mean_adjust);
    let observed = DMatrix::from_fn(64, TABLES, |s, t| f64::from(target[t * 64 + s]));
    let mut filled = observed.clone();
    let mut error = f64::INFINITY;
    for _ in 0..2_000 {
        let approx = truncated(&filled, n);
        let mut new_error = 0.0;
        for t in 0..TABLES {
            for s in 0..64 {
                if is_masked(t, s) {
                    filled[(s, t)] = approx[(s, t)];
                } else {
                    new_error += (observed[(s, t)] - approx[(s, t)]).powi(2);
                }
            }
        }
        let settled = error - new_error < 1e-9 * error.max(1.0);
        error = new_error;
        if settled {
            break;
        }
    }
    (error / KEPT_CELLS as f64).sqrt()
}

/// The best rank-`n` approximation (Eckart–Young: the `n` largest singular triplets).
fn truncated(matrix: &DMatrix<f64>, n: usize) -> DMatrix<f64> {
    let mut svd = matrix.clone().svd(true, true);
    // nalgebra orders singular values decreasingly after sorting.
    svd.sort_by_singular_values();
    for (i, value) in svd.singular_values.iter_mut().enumerate() {
        if i >= n {
            *value = 0.0;
        }
    }
    svd.recompose().unwrap_or_else(|_| matrix.clone())
}
