//! Lookup tables behind the key: every one-side non-pawn content, grouped into classes, and the
//! cumulative block sizes that turn a material content into the start of its key range.
//!
//! Inside a category the rank of a position is ordered, most significant first, by
//!
//! 1. the pawn counts `(white, black)`,
//! 2. White's non-pawn class, then White's non-pawn content inside the class,
//! 3. Black's non-pawn class, then Black's non-pawn content inside the class,
//! 4. the placement, side to move and en-passant file.
//!
//! A *class* gathers the contents with equal excess `x` and non-pawn defect `nd`. All contents
//! of a class have the same number of pieces (`7 + x − nd`), so the placements of a content on
//! `R` free squares number `C(R, n) · M`, with `M` the multinomial of its piece counts; a class's
//! total is `C(R, n) · ΣM`. Black's classes are sorted by `nd − 2x` descending: both halves of
//! the cross-side bound, seen from Black, are lower bounds on `nd − 2x`, so the Black contents
//! allowed with a given White content are a prefix of that order (a sharper form of Tomic's
//! sorting trick, with no relaxation: the material part of the key is dense).
//!
//! The tables hold about 7 MB and are built on first use in a few milliseconds.

use std::{ops::Range, sync::OnceLock};

use super::combinatorics::binomial;

/// 192-bit unsigned integer for the rank arithmetic (ranks stay below 2^160).
pub(crate) type U192 = ruint::Uint<192, 3>;

/// Most queens, rooks/bishops/knights a side can have under the one-side bound.
const MAX_QUEENS: u8 = 9;
const MAX_MINORS: u8 = 10;

/// Sides-to-move × en-passant states (none, or one of eight files) per placement.
pub(crate) const TURN_EP_STATES: u64 = 18;

/// Non-pawn counts of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SideVector {
    pub queens: u8,
    pub rooks: u8,
    pub bishops: u8,
    pub knights: u8,
}

impl SideVector {
    fn excess(self) -> i32 {
        let over = |n: u8, initial: u8| i32::from(n.saturating_sub(initial));
        over(self.queens, 1) + over(self.rooks, 2) + over(self.bishops, 2) + over(self.knights, 2)
    }

    fn nonpawn_defect(self) -> i32 {
        let under = |n: u8, initial: u8| i32::from(initial.saturating_sub(n));
        under(self.queens, 1) + under(self.rooks, 2) + under(self.bishops, 2) + under(self.knights, 2)
    }

    fn lookup_slot(self) -> Option<usize> {
        (self.queens <= MAX_QUEENS
            && self.rooks <= MAX_MINORS
            && self.bishops <= MAX_MINORS
            && self.knights <= MAX_MINORS)
            .then(|| {
                let m = usize::from(MAX_MINORS) + 1;
                ((usize::from(self.queens) * m + usize::from(self.rooks)) * m + usize::from(self.bishops)) * m
                    + usize::from(self.knights)
            })
    }
}

/// Contents with equal excess and non-pawn defect.
#[derive(Clone, Debug)]
pub(crate) struct Class {
    pub excess: i32,
    pub nonpawn_defect: i32,
    /// Indices into [`Tables::vectors`].
    pub vectors: Range<usize>,
}

impl Class {
    /// The class's share of the cross bound's right-hand side: `nd − 2x`.
    fn sort_key(&self) -> i32 {
        self.nonpawn_defect - 2 * self.excess
    }
}

/// What a category implies of one side: rooks on home squares, and the king when the side keeps
/// a castling right. Five combinations exist (a right needs a rook at home).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Implied {
    pub rooks: u8,
    pub king: bool,
}

pub(crate) const IMPLIED: [Implied; 5] = [
    Implied { rooks: 0, king: false },
    Implied { rooks: 1, king: false },
    Implied { rooks: 2, king: false },
    Implied { rooks: 1, king: true },
    Implied { rooks: 2, king: true },
];

impl Implied {
    pub fn index(self) -> usize {
        IMPLIED.iter().position(|&i| i == self).expect("a castling right implies a home rook")
    }

    pub fn squares(self) -> u32 {
        u32::from(self.rooks) + u32::from(self.king)
    }
}

/// Per-[`Implied`] weights of the side contents.
#[derive(Debug)]
pub(crate) struct SideTables {
    /// Multinomial of the free pieces (king when not implied, queens, rooks not at home,
    /// bishops, knights); 0 when the content has fewer rooks than the category implies.
    pub weight: Vec<u64>,
    /// Sum of the weights of the contents before this one in its class.
    pub weight_before: Vec<u64>,
    /// Sum of the weights of a class.
    pub class_weight: Vec<u64>,
    /// Number of free pieces of a class's contents.
    pub class_free: Vec<u32>,
}

#[derive(Debug)]
pub(crate) struct Tables {
    /// Every one-side non-pawn content with excess ≤ 8, class by class.
    pub vectors: Vec<SideVector>,
    vector_slot: Vec<u16>,
    pub class_of: Vec<u8>,
    /// Sorted by `nd − 2x` descending, then excess ascending.
    pub classes: Vec<Class>,
    pub sides: [SideTables; 5],
    /// `[black implied][black pawns][class 0..=K][free squares 0..=64]`: total placements of
    /// Black's non-pawn contents in the classes before `class`.
    black_before: Vec<u128>,
    /// `[white implied][black implied][white pawns][black pawns][class 0..=K]`: total of the
    /// blocks of White's classes before `class`, in units of pawn placements × turn/ep states.
    white_before: Vec<U192>,
    /// `[white implied][black implied][pawn pair 0..=81]`: start of each pawn pair's block.
    pawns_before: Vec<U192>,
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// The tables, built on first use.
pub(crate) fn tables() -> &'static Tables {
    TABLES.get_or_init(Tables::build)
}

/// Placements of `white` and `black` pawns on the 48 pawn squares.
#[inline]
pub(crate) fn pawn_placements(white: u32, black: u32) -> u64 {
    binomial(48, white) * binomial(48 - white, black)
}

const FREE_SQUARES: usize = 65;
const PAWN_PAIRS: usize = 81;

impl Tables {
    fn build() -> Tables {
        let mut vectors = Vec::new();
        for queens in 0..=MAX_QUEENS {
            for rooks in 0..=MAX_MINORS {
                for bishops in 0..=MAX_MINORS {
                    for knights in 0..=MAX_MINORS {
                        let v = SideVector { queens, rooks, bishops, knights };
                        if v.excess() <= 8 {
                            vectors.push(v);
                        }
                    }
                }
            }
        }
        // Group by class in class order; inside a class keep the lexicographic order.
        let class_order = |v: &SideVector| (-(v.nonpawn_defect() - 2 * v.excess()), v.excess());
        vectors.sort_by_key(|v| class_order(v));
        let mut classes: Vec<Class> = Vec::new();
        let mut class_of = Vec::with_capacity(vectors.len());
        for (i, v) in vectors.iter().enumerate() {
            match classes.last_mut() {
                Some(c) if c.excess == v.excess() && c.nonpawn_defect == v.nonpawn_defect() => c.vectors.end = i + 1,
                _ => classes.push(Class { excess: v.excess(), nonpawn_defect: v.nonpawn_defect(), vectors: i..i + 1 }),
            }
            class_of.push((classes.len() - 1) as u8);
        }
        let mut vector_slot = vec![u16::MAX; 10 * 11 * 11 * 11];
        for (i, v) in vectors.iter().enumerate() {
            vector_slot[v.lookup_slot().expect("enumerated within bounds")] = i as u16;
        }
        let sides = IMPLIED.map(|implied| SideTables::build(&vectors, &classes, implied));
        let mut tables = Tables {
            vectors,
            vector_slot,
            class_of,
            classes,
            sides,
            black_before: Vec::new(),
            white_before: Vec::new(),
            pawns_before: Vec::new(),
        };
        tables.build_black_before();
        tables.build_white_before();
        tables.build_pawns_before();
        tables
    }

    fn build_black_before(&mut self) {
        let k = self.classes.len() + 1;
        let mut table = vec![0u128; IMPLIED.len() * 9 * k * FREE_SQUARES];
        for (implied, side) in self.sides.iter().enumerate() {
            for pawns in 0..9 {
                for free_squares in 0..FREE_SQUARES {
                    let mut sum = 0u128;
                    for (class_index, class) in self.classes.iter().enumerate() {
                        table[((implied * 9 + pawns) * k + class_index) * FREE_SQUARES + free_squares] = sum;
                        if class.excess + pawns as i32 <= 8 {
                            let placements = binomial(free_squares as u32, side.class_free[class_index]);
                            sum += u128::from(placements) * u128::from(side.class_weight[class_index]);
                        }
                    }
                    table[((implied * 9 + pawns) * k + k - 1) * FREE_SQUARES + free_squares] = sum;
                }
            }
        }
        self.black_before = table;
    }

    fn build_white_before(&mut self) {
        let k = self.classes.len() + 1;
        let mut table = vec![U192::ZERO; IMPLIED.len() * IMPLIED.len() * PAWN_PAIRS * k];
        for (wi, white_implied) in IMPLIED.iter().enumerate() {
            for (bi, black_implied) in IMPLIED.iter().enumerate() {
                for pawn_pair in 0..PAWN_PAIRS {
                    let (white_pawns, black_pawns) = ((pawn_pair / 9) as u32, (pawn_pair % 9) as u32);
                    let squares = 64 - white_pawns - black_pawns - white_implied.squares() - black_implied.squares();
                    let base = ((wi * IMPLIED.len() + bi) * PAWN_PAIRS + pawn_pair) * k;
                    let mut sum = U192::ZERO;
                    for (class_index, class) in self.classes.iter().enumerate() {
                        table[base + class_index] = sum;
                        if class.excess + white_pawns as i32 <= 8 {
                            let free = self.sides[wi].class_free[class_index];
                            let black_total = self.black_total(bi, black_pawns, white_pawns, class, squares - free);
                            sum += U192::from(self.sides[wi].class_weight[class_index])
                                * U192::from(binomial(squares, free))
                                * U192::from(black_total);
                        }
                    }
                    table[base + k - 1] = sum;
                }
            }
        }
        self.white_before = table;
    }

    fn build_pawns_before(&mut self) {
        let mut table = vec![U192::ZERO; IMPLIED.len() * IMPLIED.len() * (PAWN_PAIRS + 1)];
        for wi in 0..IMPLIED.len() {
            for bi in 0..IMPLIED.len() {
                let base = (wi * IMPLIED.len() + bi) * (PAWN_PAIRS + 1);
                let mut sum = U192::ZERO;
                for pawn_pair in 0..PAWN_PAIRS {
                    table[base + pawn_pair] = sum;
                    let (white_pawns, black_pawns) = ((pawn_pair / 9) as u32, (pawn_pair % 9) as u32);
                    let classes_total = self.white_before(wi, bi, white_pawns, black_pawns, self.classes.len());
                    sum += U192::from(pawn_placements(white_pawns, black_pawns) * TURN_EP_STATES) * classes_total;
                }
                table[base + PAWN_PAIRS] = sum;
            }
        }
        self.pawns_before = table;
    }

    /// Index of a side's non-pawn content, if it is within the one-side bound.
    pub fn vector_index(&self, v: SideVector) -> Option<usize> {
        v.lookup_slot().map(|slot| self.vector_slot[slot]).filter(|&i| i != u16::MAX).map(usize::from)
    }

    /// First class (in class order) whose contents Black may not have when White's content is
    /// of `white_class`. Both halves of the cross bound are upper bounds on Black's `2x − nd`:
    ///
    /// ```text
    /// wx ≤ 2·bpd + bnd + wd  ⇔  2·bx − bnd ≤ 16 − 2·bp − wx + wd
    /// bx ≤ 2·wpd + wnd + bd  ⇔  2·bx − bnd ≤ 2·wpd + wnd + 8 − bp
    /// ```
    ///
    /// so the allowed classes are a prefix of the class order.
    pub fn black_class_limit(&self, white_class: &Class, white_pawns: u32, black_pawns: u32) -> usize {
        let (wp, bp) = (white_pawns as i32, black_pawns as i32);
        let threshold = 2 * white_class.excess - white_class.nonpawn_defect - 24 + wp + bp + wp.max(bp);
        self.classes.partition_point(|c| c.sort_key() >= threshold)
    }

    /// Placements of Black's non-pawn contents allowed with a White content of `white_class`, on
    /// `free_squares` squares.
    pub fn black_total(
        &self,
        black_implied: usize,
        black_pawns: u32,
        white_pawns: u32,
        white_class: &Class,
        free_squares: u32,
    ) -> u128 {
        let limit = self.black_class_limit(white_class, white_pawns, black_pawns);
        self.black_before(black_implied, black_pawns, limit, free_squares)
    }

    #[inline]
    pub fn black_before(&self, black_implied: usize, black_pawns: u32, class: usize, free_squares: u32) -> u128 {
        let k = self.classes.len() + 1;
        self.black_before
            [((black_implied * 9 + black_pawns as usize) * k + class) * FREE_SQUARES + free_squares as usize]
    }

    #[inline]
    pub fn white_before(
        &self,
        white_implied: usize,
        black_implied: usize,
        white_pawns: u32,
        black_pawns: u32,
        class: usize,
    ) -> U192 {
        let k = self.classes.len() + 1;
        let pawn_pair = (white_pawns * 9 + black_pawns) as usize;
        self.white_before[((white_implied * IMPLIED.len() + black_implied) * PAWN_PAIRS + pawn_pair) * k + class]
    }

    /// Start of the block of a pawn pair (`pawn_pair = 9·white + black`; 81 gives the total).
    #[inline]
    pub fn pawns_before(&self, white_implied: usize, black_implied: usize, pawn_pair: usize) -> U192 {
        self.pawns_before[(white_implied * IMPLIED.len() + black_implied) * (PAWN_PAIRS + 1) + pawn_pair]
    }

    /// Number of ranks used by a category with these implied sides.
    pub fn category_size(&self, white_implied: usize, black_implied: usize) -> U192 {
        self.pawns_before(white_implied, black_implied, PAWN_PAIRS)
    }
}

impl SideTables {
    fn build(vectors: &[SideVector], classes: &[Class], implied: Implied) -> SideTables {
        let mut weight = vec![0u64; vectors.len()];
        let mut weight_before = vec![0u64; vectors.len()];
        let mut class_weight = vec![0u64; classes.len()];
        let mut class_free = vec![0u32; classes.len()];
        for (c, class) in classes.iter().enumerate() {
            let pieces = 7 + class.excess - class.nonpawn_defect;
            class_free[c] = (pieces + 1 - i32::from(implied.rooks) - i32::from(implied.king)).max(0) as u32;
            let mut sum = 0u64;
            for i in class.vectors.clone() {
                weight_before[i] = sum;
                weight[i] = free_piece_multinomial(vectors[i], implied);
                sum += weight[i];
            }
            class_weight[c] = sum;
        }
        SideTables { weight, weight_before, class_weight, class_free }
    }
}

/// Ways to give the free pieces of a content their kinds once their squares are chosen.
fn free_piece_multinomial(v: SideVector, implied: Implied) -> u64 {
    let Some(free_rooks) = v.rooks.checked_sub(implied.rooks) else {
        return 0;
    };
    let kinds = [
        u32::from(!implied.king),
        u32::from(v.queens),
        u32::from(free_rooks),
        u32::from(v.bishops),
        u32::from(v.knights),
    ];
    let mut remaining: u32 = kinds.iter().sum();
    let mut product = 1u64;
    for count in kinds {
        product *= binomial(remaining, count);
        remaining -= count;
    }
    product
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumeration_matches_tomics_counts() {
        let t = tables();
        // One-side states (with pawns) number 8,694 in Tomic's enumeration.
        let one_side: usize = (0..=8).map(|pawns| t.vectors.iter().filter(|v| v.excess() + pawns <= 8).count()).sum();
        assert_eq!(one_side, 8694);
        for (i, v) in t.vectors.iter().enumerate() {
            assert_eq!(t.vector_index(*v), Some(i));
            let class = &t.classes[t.class_of[i] as usize];
            assert!(class.vectors.contains(&i));
            assert_eq!(7 + class.excess - class.nonpawn_defect, i32::from(v.queens + v.rooks + v.bishops + v.knights));
        }
    }

    #[test]
    fn every_category_fits_the_ranks_bits() {
        let t = tables();
        let limit = U192::from(1u8) << crate::codec::key::RANK_BITS;
        for wi in 0..IMPLIED.len() {
            for bi in 0..IMPLIED.len() {
                assert!(t.category_size(wi, bi) < limit, "{wi} {bi}: {}", t.category_size(wi, bi));
            }
        }
        // The category without implied pieces holds every material placement: 18 turn/en-passant
        // states times the design figure N = 24,639,467,089,379,915,386,890,365,075,260,915,223,928,803,040
        // (kings placed like any piece, pawns on 48 squares, full cross-side bound).
        let n: U192 = "24639467089379915386890365075260915223928803040".parse().unwrap();
        assert_eq!(t.category_size(0, 0), n * U192::from(TURN_EP_STATES));
    }
}
