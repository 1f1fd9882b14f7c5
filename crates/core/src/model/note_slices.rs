//! A popular position's notes summed by slice ([`NoteSlices`]): what its annotated games said
//! (their [`NoteSums`]) in each month × speed × rating band, in the tree a
//! [`SliceSummary`](super::SliceSummary) sums its statistics in. A filter made only of slices
//! is then answered from the slices it keeps, exactly as if each kept game's notes were
//! counted on their own, in the time of a few dozen sums rather than one per game.

use std::collections::HashMap;

use shakmaty::Color;

use crate::codec::CompactMove;

use super::{
    GameFacts, MoveSums, NoteEntry, NoteSums, SliceKey,
    slice_tree::{Coverage, SliceSet, TreeNode, levels_of, walk},
};

/// A position's notes by slice, summed again in a tree.
///
/// ```
/// use shakmaty::Color;
/// use tabiya_core::{codec::CompactMove, model::*};
///
/// let facts = |id: GameId| GameFacts {
///     id, result: GameResult::Draw, ratings: [Some(2500), Some(2500)],
///     month: Month::parse_bound(if id.0 == 1 { "1990-05" } else { "2015-01" }, false).unwrap(), speed: Speed::Unknown,
/// };
/// let noted = |game, cp| NoteEntry {
///     game: GameId(game), next: None,
///     notes: PlyNotes { before: Some(Eval::Centipawns(cp)), after: None, spent_centis: None, first: true },
/// };
/// let entries = [noted(1, 40), noted(2, -20)];
/// let slices = NoteSlices::of_entries(entries.iter().map(|entry| (facts(entry.game), entry)), Color::White);
/// let since = Month::parse_bound("2000", false).unwrap();
/// let kept = slices.kept(|set| match (set.first_month >= since, set.last_month >= since) {
///     (true, _) => Coverage::Included,
///     (false, true) => Coverage::Mixed,
///     (false, false) => Coverage::Excluded,
/// });
/// assert_eq!((kept.eval.games, kept.eval.mean_centipawns()), (1, Some(-20.0)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoteSlices {
    /// `levels[0]`: the slices, ascending by (speed, band, month); the levels above their sums.
    levels: Vec<Vec<Node>>,
}

/// A slice's notes, or the sum of neighbouring ones.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Node {
    set: SliceSet,
    sums: NoteSums,
}

impl TreeNode for Node {
    fn set(&self) -> &SliceSet {
        &self.set
    }

    fn sum(nodes: &[Node]) -> Node {
        let mut node = nodes[0].clone();
        for other in &nodes[1..] {
            node.set.widen(&other.set);
            node.sums.add(&other.sums);
        }
        node.sums.moves.shrink_to_fit();
        node
    }
}

impl NoteSlices {
    /// The notes of a position's `entries` (each with its game's facts), where `mover` is to
    /// move, summed by slice.
    pub fn of_entries<'a>(entries: impl IntoIterator<Item = (GameFacts, &'a NoteEntry)>, mover: Color) -> NoteSlices {
        let mut by_slice: HashMap<SliceKey, NoteSums, rustc_hash::FxBuildHasher> = HashMap::default();
        for (game, entry) in entries {
            by_slice.entry(SliceKey::of(&game)).or_default().add_entry(entry, mover);
        }
        let mut slices: Vec<(SliceKey, NoteSums)> = by_slice.into_iter().collect();
        slices.sort_unstable_by_key(|(key, _)| (key.speed, key.band, key.month));
        let leaves = slices.into_iter().map(|(key, mut sums)| {
            sums.moves.shrink_to_fit();
            Node { set: SliceSet::of(&key), sums }
        });
        NoteSlices { levels: levels_of(leaves.collect()) }
    }

    /// The sums of the notes of the slices `cover` keeps (asked of every node's [`SliceSet`];
    /// of a single slice, [`Coverage::Mixed`] keeps it).
    pub fn kept(&self, cover: impl FnMut(&SliceSet) -> Coverage) -> NoteSums {
        let mut kept = NoteSums::default();
        walk(&self.levels, cover, |node, _, _| kept.add(&node.sums));
        kept
    }

    /// How many slices it sums.
    pub fn slice_count(&self) -> usize {
        self.levels.first().map_or(0, Vec::len)
    }

    /// About the bytes it holds in memory.
    pub fn heap_bytes(&self) -> usize {
        let node =
            |node: &Node| size_of::<Node>() + node.sums.moves.capacity() * size_of::<(Option<CompactMove>, MoveSums)>();
        size_of::<NoteSlices>() + self.levels.iter().flatten().map(node).sum::<usize>()
    }
}
