//! Sums by slice, summed again in a tree: what a position's games add up to in each slice (month
//! × speed × rating band), and the nodes above, each the sum of [`FANOUT`] below. A filter
//! made only of slices keeps whole subtrees ([`Coverage`]), so that a query adds up a few
//! dozen nodes rather than every slice. Shared by [`SliceSummary`](super::SliceSummary) (the
//! games' statistics) and [`NoteSlices`](super::NoteSlices) (their notes).

use super::SliceKey;
use super::facets::Month;

/// Nodes summed into one of the level above.
pub(super) const FANOUT: usize = 16;

/// The slices a node sums: the range of their months, their speeds and rating bands as bit
/// sets (bit = [`Speed`](super::Speed) and [`RatingBand`](super::RatingBand) index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSet {
    /// The earliest month.
    pub first_month: Month,
    /// The latest month.
    pub last_month: Month,
    /// The speeds.
    pub speeds: u8,
    /// The rating bands.
    pub bands: u32,
}

impl SliceSet {
    /// The set of one slice.
    pub fn of(key: &SliceKey) -> SliceSet {
        SliceSet {
            first_month: key.month,
            last_month: key.month,
            speeds: 1 << key.speed as u8,
            bands: 1 << key.band.index(),
        }
    }

    /// Widened to hold `other`'s slices too.
    pub(super) fn widen(&mut self, other: &SliceSet) {
        self.first_month = self.first_month.min(other.first_month);
        self.last_month = self.last_month.max(other.last_month);
        self.speeds |= other.speeds;
        self.bands |= other.bands;
    }
}

/// How many of a [`SliceSet`]'s slices a filter keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// None of them.
    Excluded,
    /// Some, maybe: each is asked on its own.
    Mixed,
    /// Every one.
    Included,
}

/// A node of a tree: the slices it sums, and the sum of the nodes below.
pub(super) trait TreeNode: Sized {
    /// The slices it sums.
    fn set(&self) -> &SliceSet;
    /// The sum of neighbouring nodes (at least one).
    fn sum(nodes: &[Self]) -> Self;
}

/// The levels of a tree over `leaves` (sorted so that neighbours share a speed and band and a
/// range of months): `levels[0]` the leaves, each next level the sums of [`FANOUT`] nodes of
/// the one below, the last of at most [`FANOUT`] nodes.
pub(super) fn levels_of<N: TreeNode>(leaves: Vec<N>) -> Vec<Vec<N>> {
    let mut levels = vec![leaves];
    while let Some(below) = levels.last().filter(|level| level.len() > FANOUT) {
        let above = below.chunks(FANOUT).map(N::sum).collect();
        levels.push(above);
    }
    levels
}

/// Calls `each` with every node `cover` keeps whole (and every slice it is unsure of),
/// walking down from the top level: the node, its level and its index in the level.
pub(super) fn walk<N: TreeNode>(
    levels: &[Vec<N>],
    mut cover: impl FnMut(&SliceSet) -> Coverage,
    mut each: impl FnMut(&N, usize, usize),
) {
    let Some(top) = levels.len().checked_sub(1) else { return };
    let mut pending: Vec<(usize, usize)> = (0..levels[top].len()).rev().map(|at| (top, at)).collect();
    while let Some((level, at)) = pending.pop() {
        let node = &levels[level][at];
        match cover(node.set()) {
            Coverage::Excluded => {}
            Coverage::Included => each(node, level, at),
            // A slice is kept whole or not at all: a filter unsure of one keeps it.
            Coverage::Mixed if level == 0 => each(node, level, at),
            Coverage::Mixed => {
                let below = levels[level - 1].len();
                let children = at * FANOUT..((at + 1) * FANOUT).min(below);
                pending.extend(children.rev().map(|child| (level - 1, child)));
            }
        }
    }
}
