//! Binomial coefficients and the combinatorial number system that ranks a set of squares.
//!
//! A set of `k` squares chosen from `n` free squares ("holes", numbered in square order) is
//! ranked as `Σ C(c_j, j+1)` over its hole numbers `c_0 < c_1 < … < c_{k-1}` (Tomic's formula
//! (8)): a bijection onto `0..C(n, k)`.

use shakmaty::{Bitboard, Square};

/// `BINOMIAL[n][k] = C(n, k)` for `n, k ≤ 64`; every entry fits a `u64` (`C(64, 32) < 2^61`).
static BINOMIAL: [[u64; 65]; 65] = binomial_table();

const fn binomial_table() -> [[u64; 65]; 65] {
    let mut table = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}

/// `C(n, k)`, zero when `k > n`. Both must be at most 64.
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The hole number of every square of `chosen` inside `holes`, combined into its rank among
/// the `C(|holes|, |chosen|)` subsets. `chosen` must be a subset of `holes`.
#[inline]
pub fn rank_subset(chosen: Bitboard, holes: Bitboard) -> u64 {
    let mut rank = 0;
    for (j, square) in chosen.into_iter().enumerate() {
        let below = holes & Bitboard(Bitboard::from(square).0 - 1);
        rank += binomial(below.count() as u32, j as u32 + 1);
    }
    rank
}

/// Inverse of [`rank_subset`]: the `k` squares of `holes` whose rank is `rank`
/// (`rank < C(|holes|, k)`, which the caller guarantees).
#[inline]
pub fn unrank_subset(mut rank: u64, k: u32, holes: Bitboard) -> Bitboard {
    let mut chosen = Bitboard::EMPTY;
    let mut upper = holes.count() as u32;
    for j in (1..=k).rev() {
        let c = largest_below(rank, j, upper);
        rank -= binomial(c, j);
        chosen.add(select_hole(holes, c));
        upper = c;
    }
    chosen
}

/// Largest `c < upper` with `C(c, j) ≤ rank` (`j ≥ 1`; the caller guarantees one exists).
///
/// `C(c, 1) = c` needs no search and `C(c, 2)` a square root. Otherwise a branch-free binary search: the comparisons are
/// unpredictable, and mispredicted branches dominated decoding.
#[inline]
fn largest_below(rank: u64, j: u32, upper: u32) -> u32 {
    if j == 1 {
        return rank as u32;
    }
    if j == 2 {
        // c(c−1)/2 ≤ rank: the root of the quadratic, then corrected for rounding.
        let mut c = ((1.0 + (1.0 + 8.0 * rank as f64).sqrt()) / 2.0) as u32;
        c = c.min(upper - 1);
        while binomial(c, 2) > rank {
            c -= 1;
        }
        while c + 1 < upper && binomial(c + 1, 2) <= rank {
            c += 1;
        }
        return c;
    }
    let (mut lo, mut len) = (j - 1, upper - (j - 1));
    while len > 1 {
        let half = len / 2;
        let mid = lo + half;
        lo = if binomial(mid, j) <= rank { mid } else { lo };
        len -= half;
    }
    lo
}

/// `SELECT_IN_BYTE[b][r]`: position of the `r`-th set bit of byte `b`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = select_in_byte_table();

const fn select_in_byte_table() -> [[u8; 8]; 256] {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut rank) = (0, 0);
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte][rank] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// The square of hole number `n` (the `n`-th set bit of `holes`, from 0), by Vigna's
/// branch-free broadword select: byte-wise prefix counts locate the byte, a table the bit.
#[inline]
fn select_hole(holes: Bitboard, n: u32) -> Square {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = holes.0;
    let mut counts = x - ((x >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    let cumulative = counts.wrapping_mul(ONES); // byte i: set bits in bytes 0..=i
    let at_or_below = (((u64::from(n) * ONES) | HIGHS) - cumulative) & HIGHS;
    let shift = at_or_below.count_ones() * 8; // bit offset of the byte holding the answer
    let before = ((cumulative << 8) >> shift) & 0xff;
    let byte = (x >> shift) & 0xff;
    Square::new(shift + u32::from(SELECT_IN_BYTE[byte as usize][(u64::from(n) - before) as usize]))
}

/// The squares a pawn can stand on (ranks 2 to 7).
pub const PAWN_SQUARES: Bitboard = Bitboard(0x00ff_ffff_ffff_ff00);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_identities() {
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(48, 8), 377_348_994);
        assert_eq!(binomial(3, 5), 0);
        for n in 1..=64 {
            let row: u128 = (0..=n).map(|k| binomial(n, k) as u128).sum();
            assert_eq!(row, 1u128 << n);
        }
    }

    /// Exhaustive on small hole sets: ranks are a bijection onto 0..C(n, k).
    #[test]
    fn subsets_rank_densely() {
        let holes = Bitboard(0b1011_0110_1101_0011_0000_0001); // 11 holes
        let n = holes.count() as u32;
        for k in 0..=n {
            let mut seen = vec![false; binomial(n, k) as usize];
            for mask in 0u32..(1 << n) {
                if mask.count_ones() != k {
                    continue;
                }
                let chosen: Bitboard =
                    holes.into_iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, sq)| sq).collect();
                let rank = rank_subset(chosen, holes);
                assert!(!seen[rank as usize], "rank {rank} twice");
                seen[rank as usize] = true;
                assert_eq!(unrank_subset(rank, k, holes), chosen);
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn select_matches_a_walk() {
        for holes in
            [Bitboard(u64::MAX), Bitboard(0x8000_0000_0000_0001), Bitboard(0x00ff_00f0_0f00_ff10), PAWN_SQUARES]
        {
            for (n, square) in holes.into_iter().enumerate() {
                assert_eq!(select_hole(holes, n as u32), square);
            }
        }
    }
}
