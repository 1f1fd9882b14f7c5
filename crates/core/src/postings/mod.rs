//! Posting lists: every game that reached a position, as a sorted set of game ids.
//!
//! Stored form (chosen by size, first byte the tag):
//!
//! * `0` + the first id (varint) + the Leapfrog code ([`leapfrog`]) of the ids as bit positions
//!   from the first: about one byte per two ids when ids are close (games sharing positions get
//!   close ids, see the indexer);
//! * `1` + delta varints (the first id, then each gap − 1): for a handful of ids scattered over
//!   millions, where Leapfrog would need a spacer byte per 64 ids of gap.
//!
//! Set operations stream both lists (no decoding into memory first). A list holds [`GameId`]s;
//! the codec functions below it ([`leapfrog`], [`write_deltas`]) work on their numbers.
//!
//! ```
//! use tabiya_core::{model::GameId, postings::PostingList};
//!
//! let ids = |numbers: &[u64]| numbers.iter().copied().map(GameId).collect::<Vec<_>>();
//! let list = PostingList::encode(&ids(&[3, 4, 5, 9, 2_000_000]));
//! assert_eq!(list.to_vec(), ids(&[3, 4, 5, 9, 2_000_000]));
//! let other = PostingList::encode(&ids(&[4, 9, 10]));
//! assert_eq!(list.and(&other).collect::<Vec<_>>(), ids(&[4, 9]));
//! assert_eq!(list.and_not(&other).collect::<Vec<_>>(), ids(&[3, 5, 2_000_000]));
//! ```

pub mod leapfrog;

use crate::{
    model::GameId,
    varint::{get_varint, put_varint},
};

const LEAPFROG: u8 = 0;
const DELTAS: u8 = 1;

/// An encoded posting list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostingList {
    bytes: Vec<u8>,
}

impl PostingList {
    /// Encodes strictly increasing ids in the smaller of the two forms.
    pub fn encode(ids: &[GameId]) -> PostingList {
        let mut bytes = Vec::new();
        PostingList::write(ids, &mut bytes);
        PostingList { bytes }
    }

    /// Appends the encoding of strictly increasing `ids` to `out`.
    pub fn write(ids: &[GameId], out: &mut Vec<u8>) {
        let first = ids.first().map_or(0, |id| id.0);
        if leapfrog_len(ids) <= deltas_len(ids) {
            out.push(LEAPFROG);
            put_varint(out, first);
            leapfrog::encode(ids, first, out);
        } else {
            out.push(DELTAS);
            write_deltas(ids, out);
        }
    }

    /// Wraps stored bytes; `None` when the tag is unknown (any rest decodes).
    pub fn from_bytes(bytes: Vec<u8>) -> Option<PostingList> {
        matches!(bytes.first(), Some(&LEAPFROG | &DELTAS)).then_some(PostingList { bytes })
    }

    /// The stored bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = GameId> + '_ {
        Ids::new(&self.bytes).map(GameId)
    }

    /// Every id, decoded at once (Leapfrog's table-driven path).
    pub fn to_vec(&self) -> Vec<GameId> {
        let mut out = Vec::new();
        match self.bytes.split_first() {
            Some((&LEAPFROG, mut code)) => {
                let decoded = get_varint(&mut code).and_then(|first| leapfrog::decode_into(code, first, &mut out));
                if decoded.is_none() {
                    out.clear();
                }
            }
            _ => out.extend(Ids::new(&self.bytes)),
        }
        out.into_iter().map(GameId).collect()
    }

    /// Ids in both lists.
    pub fn and<'a>(&'a self, other: &'a PostingList) -> impl Iterator<Item = GameId> + 'a {
        intersect(self.iter(), other.iter())
    }

    /// Ids in this list and not in `other`.
    pub fn and_not<'a>(&'a self, other: &'a PostingList) -> impl Iterator<Item = GameId> + 'a {
        difference(self.iter(), other.iter())
    }
}

/// The id numbers of stored posting bytes, streamed.
#[derive(Clone, Debug)]
pub enum Ids<'a> {
    /// The Leapfrog form.
    Leapfrog(leapfrog::Decoder<'a>),
    /// The delta-varint form.
    Deltas {
        /// What is left to read.
        bytes: &'a [u8],
        /// The last id read.
        previous: Option<u64>,
    },
    /// An empty or unreadable list.
    Empty,
}

impl<'a> Ids<'a> {
    /// Streams stored posting bytes (tag included).
    pub fn new(bytes: &'a [u8]) -> Ids<'a> {
        match bytes.split_first() {
            Some((&LEAPFROG, mut code)) => match get_varint(&mut code) {
                Some(first) => Ids::Leapfrog(leapfrog::Decoder::new(code, first)),
                None => Ids::Empty,
            },
            Some((&DELTAS, rest)) => Ids::Deltas { bytes: rest, previous: None },
            _ => Ids::Empty,
        }
    }
}

impl Iterator for Ids<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            Ids::Leapfrog(decoder) => decoder.next(),
            Ids::Deltas { bytes, previous } => {
                if bytes.is_empty() {
                    return None;
                }
                let value = get_varint(bytes)?;
                let id = match *previous {
                    None => value,
                    Some(p) => p.checked_add(value)?.checked_add(1)?,
                };
                *previous = Some(id);
                Some(id)
            }
            Ids::Empty => None,
        }
    }
}

fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// Bytes of the Leapfrog form without its tag: the first id, then the code from it.
pub fn leapfrog_len<T: Copy + Into<u64>>(ids: &[T]) -> usize {
    let first = ids.first().map_or(0, |&id| id.into());
    varint_len(first) + leapfrog::encoded_len(ids, first)
}

/// Appends the delta-varint form without its tag: the first id, then each gap − 1.
pub fn write_deltas<T: Copy + Into<u64>>(ids: &[T], out: &mut Vec<u8>) {
    let mut previous = None;
    for id in ids.iter().map(|&id| id.into()) {
        put_varint(out, previous.map_or(id, |p: u64| id - p - 1));
        previous = Some(id);
    }
}

/// Bytes of the delta-varint form without its tag.
pub fn deltas_len<T: Copy + Into<u64>>(ids: &[T]) -> usize {
    let mut previous = None;
    ids.iter()
        .map(|&id| id.into())
        .map(|id| {
            let value = previous.map_or(id, |p: u64| id - p - 1);
            previous = Some(id);
            varint_len(value)
        })
        .sum()
}

/// The density classes benchmarks and reports group lists by: ids per id of the list's span.
pub const DENSITY_CLASSES: [&str; 5] = ["single", "< 1%", "1-10%", "10-50%", ">= 50%"];

/// The [`DENSITY_CLASSES`] index of a non-empty ascending list.
pub fn density_class(ids: &[u64]) -> usize {
    match (ids.first(), ids.last()) {
        (Some(first), Some(last)) if ids.len() > 1 => {
            let density = ids.len() as f64 / (last - first + 1) as f64;
            match density {
                d if d < 0.01 => 1,
                d if d < 0.1 => 2,
                d if d < 0.5 => 3,
                _ => 4,
            }
        }
        _ => 0,
    }
}

/// Ids of two ascending streams present in both.
pub fn intersect<T: Ord + Copy>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || {
        loop {
            let (&x, &y) = (a.peek()?, b.peek()?);
            match x.cmp(&y) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next();
                    return Some(x);
                }
            }
        }
    })
}

/// Ids of the first ascending stream absent from the second.
pub fn difference<T: Ord + Copy>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>) -> impl Iterator<Item = T> {
    let mut b = b.peekable();
    a.filter(move |&x| {
        while b.next_if(|&y| y < x).is_some() {}
        b.peek() != Some(&x)
    })
}

/// Ids in either of two ascending streams, once.
pub fn union<T: Ord + Copy>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek().copied(), b.peek().copied()) {
        (Some(x), Some(y)) if x == y => {
            a.next();
            b.next();
            Some(x)
        }
        (Some(x), Some(y)) if x < y => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

/// Ids in any of ascending `lists`, ascending, once: the shortest merged first, so that the
/// usual case, one long list and a few short ones, costs about one pass over the long one
/// (sorting them all together costs a dozen comparisons an id). Many lists, whose merges one by
/// one could cost a pass each, are sorted together.
pub fn union_all<T: Ord + Copy>(mut lists: Vec<&[T]>) -> Vec<T> {
    if lists.len() > 8 {
        let mut all: Vec<T> = lists.concat();
        all.sort_unstable();
        all.dedup();
        return all;
    }
    lists.sort_unstable_by_key(|list| list.len());
    let mut lists = lists.into_iter();
    let mut all: Vec<T> = lists.next().map(<[T]>::to_vec).unwrap_or_default();
    for list in lists {
        let mut merged = Vec::with_capacity(all.len() + list.len());
        merged.extend(union(all.iter().copied(), list.iter().copied()));
        all = merged;
    }
    all
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    /// A Leapfrog list starting next to `u64::MAX` cannot hold a pair: it decodes as empty
    /// (whole) or stops (streamed), without overflowing.
    #[test]
    fn ids_past_u64_max_never_overflow() {
        let mut bytes = vec![LEAPFROG];
        crate::varint::put_varint(&mut bytes, u64::MAX - 1);
        bytes.push(0);
        let list = PostingList::from_bytes(bytes).expect("a known tag");
        assert!(list.to_vec().is_empty());
        assert!(list.iter().count() <= 1);
    }

    fn ids(numbers: &[u64]) -> Vec<GameId> {
        numbers.iter().copied().map(GameId).collect()
    }

    fn arb_ids() -> impl Strategy<Value = Vec<GameId>> {
        // Dense runs, sparse scatter, and far outliers.
        let dense = proptest::collection::btree_set(0u64..300, 0..200);
        let sparse = proptest::collection::btree_set(0u64..5_000_000, 0..20);
        (dense, sparse, 0u64..1 << 40).prop_map(|(dense, sparse, offset)| {
            let mut all: BTreeSet<u64> = dense.into_iter().map(|id| id + offset).collect();
            all.extend(sparse);
            all.into_iter().map(GameId).collect()
        })
    }

    proptest! {
        #[test]
        fn round_trips_and_picks_the_smaller_form(ids in arb_ids()) {
            let list = PostingList::encode(&ids);
            prop_assert_eq!(list.iter().collect::<Vec<_>>(), ids.clone());
            prop_assert_eq!(list.to_vec(), ids.clone());
            let size = 1 + leapfrog_len(&ids).min(deltas_len(&ids));
            prop_assert_eq!(list.as_bytes().len(), size);
        }

        #[test]
        fn set_operations_equal_btreeset(a in arb_ids(), b in arb_ids()) {
            let (x, y) = (PostingList::encode(&a), PostingList::encode(&b));
            let (sa, sb): (BTreeSet<GameId>, BTreeSet<GameId>) = (a.iter().copied().collect(), b.iter().copied().collect());
            prop_assert_eq!(x.and(&y).collect::<Vec<_>>(), sa.intersection(&sb).copied().collect::<Vec<_>>());
            prop_assert_eq!(x.and_not(&y).collect::<Vec<_>>(), sa.difference(&sb).copied().collect::<Vec<_>>());
            prop_assert_eq!(union(x.iter(), y.iter()).collect::<Vec<_>>(), sa.union(&sb).copied().collect::<Vec<_>>());
        }

        #[test]
        fn a_union_of_many_lists_equals_btreeset(lists in proptest::collection::vec(arb_ids(), 0..12)) {
            let all: BTreeSet<GameId> = lists.iter().flatten().copied().collect();
            let slices: Vec<&[GameId]> = lists.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(union_all(slices), all.into_iter().collect::<Vec<_>>());
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(list) = PostingList::from_bytes(bytes) {
                let ids: Vec<GameId> = list.iter().collect();
                prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }

    #[test]
    fn a_lone_id_costs_a_few_bytes_and_scatter_falls_back_to_deltas() {
        assert_eq!(PostingList::encode(&ids(&[7])).as_bytes(), [DELTAS, 7]);
        assert_eq!(PostingList::encode(&ids(&[300_000])).as_bytes().len(), 4);
        // Close ids far from 0: the first id, then one byte per pair.
        assert_eq!(
            PostingList::encode(&ids(&[300_000, 300_001, 300_003, 300_004])).as_bytes(),
            [LEAPFROG, 0xe0, 0xa7, 0x12, 0, 2]
        );
        let scattered = PostingList::encode(&ids(&[5, 1_000_000, 3_000_000]));
        assert_eq!(scattered.as_bytes()[0], DELTAS);
        let dense: Vec<GameId> = (1000..2000).map(GameId).collect();
        let list = PostingList::encode(&dense);
        assert_eq!(list.as_bytes()[0], LEAPFROG);
        assert!(list.as_bytes().len() < 520, "{}", list.as_bytes().len());
    }
}
