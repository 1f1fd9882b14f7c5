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
        // Largest c < upper with C(c, j) <= rank.
        let (mut lo, mut hi) = (j - 1, upper - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if binomial(mid, j) <= rank { lo = mid } else { hi = mid - 1 }
        }
        rank -= binomial(lo, j);
        chosen.add(select_hole(holes, lo));
        upper = lo;
    }
    chosen
}

/// The square of hole number `n` (the `n`-th set bit of `holes`, from 0): a byte-wise skip,
/// then a walk inside the byte.
#[inline]
fn select_hole(holes: Bitboard, mut n: u32) -> Square {
    let mut bits = holes.0;
    let mut base = 0;
    loop {
        let in_byte = (bits & 0xff).count_ones();
        if n < in_byte {
            break;
        }
        n -= in_byte;
        bits >>= 8;
        base += 8;
    }
    for _ in 0..n {
        bits &= bits - 1;
    }
    Square::new(base + bits.trailing_zeros())
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
                let chosen: Bitboard = holes
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .map(|(_, sq)| sq)
                    .collect();
                let rank = rank_subset(chosen, holes);
                assert!(!seen[rank as usize], "rank {rank} twice");
                seen[rank as usize] = true;
                assert_eq!(unrank_subset(rank, k, holes), chosen);
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
