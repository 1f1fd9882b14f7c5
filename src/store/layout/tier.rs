//! The single-game tier's values (their keys are in [`super::keys`]).
//!
//! - **Marks** (a game's tier plies): varints `count`, then per run of consecutive plies the gap
//!   from the end of the previous run and the run's length minus one.
//! - **Map**: a flag byte, 1 when the range starts at a key (then its 21 bytes follow), 0 when
//!   it starts at the first key; then the range's [`GameMap`](crate::store::tier::GameMap) as a
//!   checked section.

use crate::{
    codec::{KEY_LEN, Key},
    varint::{get_varint, put_varint},
};

/// Plies past which a game's positions stay in the full-key family (marks beyond would let
/// damaged bytes ask for any amount of memory).
pub const MAX_PLY: u32 = 1 << 16;

/// The stored bytes of marked `plies` (ascending, distinct).
pub fn encode_marks(plies: &[u32], out: &mut Vec<u8>) {
    let runs: Vec<&[u32]> = plies.chunk_by(|a, b| a + 1 == *b).collect();
    put_varint(out, runs.len() as u64);
    let mut end = 0;
    for run in runs {
        put_varint(out, u64::from(run[0] - end));
        put_varint(out, (run.len() - 1) as u64);
        end = run[run.len() - 1] + 1;
    }
}

/// The plies of stored marks; `None` unless the bytes are canonical marks ([`encode_marks`]).
pub fn decode_marks(bytes: &[u8]) -> Option<Vec<u32>> {
    let input = &mut &bytes[..];
    let runs = get_varint(input)?;
    let mut plies = Vec::new();
    let mut end = 0u32;
    for index in 0..runs {
        let gap = u32::try_from(get_varint(input)?).ok()?;
        let length = u32::try_from(get_varint(input)?).ok()?.checked_add(1)?;
        // Runs are maximal: a gap between two runs is at least one ply.
        if index > 0 && gap == 0 {
            return None;
        }
        let first = end.checked_add(gap)?;
        end = first.checked_add(length)?;
        if end > MAX_PLY {
            return None;
        }
        plies.extend(first..end);
    }
    (input.is_empty() && runs > 0).then_some(plies)
}

/// Appends a tier map's head: the first key of its range (`None`: the first key).
pub fn write_segment_head(lower: Option<&Key>, out: &mut Vec<u8>) {
    match lower {
        Some(lower) => {
            out.push(1);
            out.extend_from_slice(lower.as_bytes());
        }
        None => out.push(0),
    }
}

/// Takes a tier map's head from the front of `value`: the first key of its range.
pub fn read_segment_head(value: &mut &[u8]) -> Option<Option<Key>> {
    match value.split_first()? {
        (0, rest) => {
            *value = rest;
            Some(None)
        }
        (1, rest) => {
            let (key, rest) = rest.split_first_chunk::<KEY_LEN>()?;
            *value = rest;
            Some(Some(Key::from_bytes(*key)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn marks_round_trip(plies in prop::collection::btree_set(0u32..600, 1..80)) {
            let plies: Vec<u32> = plies.into_iter().collect();
            let mut bytes = Vec::new();
            encode_marks(&plies, &mut bytes);
            prop_assert_eq!(decode_marks(&bytes), Some(plies));
        }

        #[test]
        fn damaged_marks_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..12)) {
            if let Some(plies) = decode_marks(&bytes) {
                let mut canonical = Vec::new();
                encode_marks(&plies, &mut canonical);
                prop_assert_eq!(canonical, bytes);
            }
        }
    }

    #[test]
    fn marks_are_runs() {
        let mut bytes = Vec::new();
        encode_marks(&[3, 4, 5, 6, 9, 10], &mut bytes);
        assert_eq!(bytes, [2, 3, 3, 2, 1]);
    }

    #[test]
    fn segment_heads_read_back() {
        let key = Key::from_bytes([3; KEY_LEN]);
        for lower in [None, Some(key)] {
            let mut bytes = Vec::new();
            write_segment_head(lower.as_ref(), &mut bytes);
            bytes.push(9);
            let mut rest = bytes.as_slice();
            assert_eq!(read_segment_head(&mut rest), Some(lower));
            assert_eq!(rest, [9]);
        }
        assert_eq!(read_segment_head(&mut [2u8].as_slice()), None);
    }
}
