//! The packed form of a factorisation (tables ≈ components × weights, with the piece values as
//! an implicit last component): `n` components as u64 bitboards, `n + 1`
//! rows of twelve i8 weights (one per table) and a divisor `d`. Row `n` holds the piece values
//! divided by `d`: its component is implicitly `d` on every square.

use serde::Serialize;

use super::tables::{PieceTables, TABLES, is_masked};

/// Values of the twelve tables, table by table, a1..h8.
pub const CELLS: usize = TABLES * 64;

/// A factorised set of tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PackedTables {
    /// The binary components, bit `sq` (a1 = 0) set where the component applies.
    pub components: Vec<u64>,
    /// `components.len() + 1` rows of one weight per table; the last row is the piece values / `d`.
    pub weights: Vec<[i8; TABLES]>,
    /// The divisor of the piece-value row.
    pub divisor: i32,
}

impl PackedTables {
    /// The 768 values (piece value plus square bonus, table by table, a1..h8) the packed form
    /// stands for: `Σ_j weights[j][t] · bit_j(sq) + weights[n][t] · d`.
    ///
    /// ```
    /// use tabiya_core::psqt::PackedTables;
    ///
    /// let mut row = [0i8; 12];
    /// row[0] = 5;
    /// let mut values = [0i8; 12];
    /// values[0] = 10;
    /// let packed = PackedTables { components: vec![1 << 8], weights: vec![row, values], divisor: 9 };
    /// let unpacked = packed.unpack();
    /// assert_eq!((unpacked[8], unpacked[9], unpacked[64]), (95, 90, 0)); // a2 gets the bonus
    /// ```
    pub fn unpack(&self) -> Vec<i32> {
        let n = self.components.len();
        (0..TABLES * 64)
            .map(|i| {
                let (table, square) = (i / 64, i % 64);
                self.weights
                    .iter()
                    .enumerate()
                    .map(|(j, row)| {
                        let factor = if j == n { self.divisor } else { ((self.components[j] >> square) & 1) as i32 };
                        i32::from(row[table]) * factor
                    })
                    .sum()
            })
            .collect()
    }

    /// Literals a program needs to hold this form: the components, the weight rows (twelve
    /// bytes each, one literal as the original method counts 96-bit decimals) and the divisor.
    pub fn literals(&self) -> usize {
        self.components.len() + self.weights.len() + 1
    }

    /// Bytes of this form: 8 per component, 12 per weight row, 2 for the divisor.
    pub fn bytes(&self) -> usize {
        8 * self.components.len() + TABLES * self.weights.len() + 2
    }

    /// The same figures for the lossless tables: 768 square values and 12 piece values as i16.
    pub const LOSSLESS_LITERALS: usize = TABLES * 64 + TABLES;
    /// Bytes of the lossless tables (i16 values).
    pub const LOSSLESS_BYTES: usize = 2 * (TABLES * 64 + TABLES);
}
/// The packed form's divisor and piece-value row for these values.
fn piece_row(values: &[i32; TABLES]) -> (i32, [i8; TABLES]) {
    let quotient = |v: i32, d: i32| (f64::from(v) / f64::from(d)).round() as i32;
    let divisor = (1..).find(|&d| values.iter().all(|&v| (-128..=127).contains(&quotient(v, d)))).unwrap_or(1);
    (divisor, values.map(|v| quotient(v, divisor) as i8))
}

/// Floor of the mean bonus over the squares the mask keeps (the mean adjustment).
pub fn floor_mean(tables: &PieceTables, table: usize) -> i32 {
    let kept: Vec<i64> =
        (0..64).filter(|&s| !is_masked(table, s)).map(|s| i64::from(tables.squares[table][s])).collect();
    kept.iter().sum::<i64>().div_euclid(kept.len() as i64) as i32
}

/// What the components must approximate: each table's full values less its packed piece value
/// `d · w_q` (zero on masked cells), with the divisor `d` and the row `w_q`.
pub fn target(tables: &PieceTables, mean_adjust: bool) -> (i32, [i8; TABLES], [i32; CELLS]) {
    let adjusted: [i32; TABLES] =
        std::array::from_fn(|t| tables.values[t] + if mean_adjust { floor_mean(tables, t) } else { 0 });
    let (divisor, value_row) = piece_row(&adjusted);
    let full = tables.full_values();
    let target = std::array::from_fn(|i| {
        let t = i / 64;
        if is_masked(t, i % 64) { 0 } else { full[i] - divisor * i32::from(value_row[t]) }
    });
    (divisor, value_row, target)
}
