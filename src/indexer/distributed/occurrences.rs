//! A batch's position occurrences as a file of the build's shared work directory: written by
//! the batch's prepare task, read by every range task, each its own key range's slice of it.
//! That is the build's shuffle, with no scheduler in its data path (through Spark's shuffle the
//! occurrences were pickled by Python: some 1.3 kB a game, a third of a build's time).
//!
//! The file holds the occurrences as run records (`encode_run_records`; a game is its number
//! in the batch, from 1), every [`RESTART_EVERY`]th sharing no key prefix; then an index of
//! those restarts, each its key (21 bytes) and offset (8); then a footer: the records' length
//! and the index's number of entries (8-byte little-endian words), and a magic number. A range's reader
//! reads the footer, finds the restarts around its bounds by a binary search of the index on
//! disk, and reads the records between them: a range task's reads grow with its own part and
//! the logarithm of a batch's size, not with the whole index of every batch.

use std::{
    fs::File,
    io::{self, Write},
    os::unix::fs::FileExt,
    path::Path,
};

use crate::{
    codec::{KEY_LEN, Key},
    model::GameId,
    store::{Occurrence, RunRecords, encode_run_records},
};

/// The last bytes of an occurrences file.
const MAGIC: &[u8; 8] = b"tabiyaOc";
/// An index entry: a restart's key and offset.
const ENTRY: usize = KEY_LEN + 8;
/// The footer: the records' bytes, the index's entries, the magic number.
const FOOTER: usize = 8 + 8 + MAGIC.len();

/// Writes `occurrences` (in (key, game, move) order, games numbered from 1) as the occurrences
/// file `path`, with its index. The records are encoded and written a restart's 64 at a time,
/// so that each restart's place is known as it is written. The file is not synced: the range tasks read it
/// through the page cache, and a write lost or cut short is a corrupt file to them, never
/// another part (a sync took a fifth of the file's writing, 40 ms a batch).
pub fn write_occurrences(path: &Path, occurrences: impl Iterator<Item = (Key, Occurrence)>) -> io::Result<()> {
    let named = |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", path.display()));
    let mut out = io::BufWriter::new(File::create(path).map_err(named)?);
    let mut records = 0u64;
    let mut index = Vec::new();
    let mut occurrences = occurrences.peekable();
    while let Some(&(key, _)) = occurrences.peek() {
        index.extend_from_slice(key.as_bytes());
        index.extend_from_slice(&records.to_le_bytes());
        let restart = encode_occurrences(occurrences.by_ref().take(RESTART_EVERY));
        out.write_all(&restart).map_err(named)?;
        records += restart.len() as u64;
    }
    out.write_all(&index).map_err(named)?;
    out.write_all(&records.to_le_bytes()).map_err(named)?;
    out.write_all(&((index.len() / ENTRY) as u64).to_le_bytes()).map_err(named)?;
    out.write_all(MAGIC).map_err(named)?;
    out.flush().map_err(named)
}

/// The part of the occurrences file `path` in key range `range` of those `bounds` (ascending)
/// cut, as [`occurrence_parts`] cuts it; `None` when the range holds none of them. It reads the
/// footer, two restarts found by a binary search of the index on disk (some 2 × 16 reads of an
/// entry for a batch's 20,000), and the records between them. An error of kind `InvalidData`
/// for a file that is not an occurrences file or not whole, or whose index is damaged (the two
/// restarts are checked against the records they name, so that a part is never cut short);
/// other I/O errors as they come. Records damaged inside (a game, a move) are not caught: they
/// carry no checksum, as a staged run does not.
pub fn occurrences_in_range(path: &Path, bounds: &[Key], range: usize) -> io::Result<Option<Vec<u8>>> {
    let broken = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("occurrences file: {what}"));
    let file = File::open(path)?;
    let length = file.metadata()?.len();
    let footer_at = length.checked_sub(FOOTER as u64).ok_or_else(|| broken("too short"))?;
    let mut footer = [0u8; FOOTER];
    file.read_exact_at(&mut footer, footer_at)?;
    let word = |at: usize| u64::from_le_bytes(footer[at..at + 8].try_into().unwrap_or_default());
    let (records, entries) = (word(0), word(8));
    // Every restart is a record of a few bytes, the first at 0: none exactly when no record.
    let whole = entries.checked_mul(ENTRY as u64).and_then(|index| records.checked_add(index)) == Some(footer_at)
        && &footer[16..] == MAGIC
        && (entries == 0) == (records == 0)
        && entries <= records;
    if !whole {
        return Err(broken("its footer"));
    }
    let entry = |number: u64| -> io::Result<(Key, u64)> {
        let mut bytes = [0u8; ENTRY];
        file.read_exact_at(&mut bytes, records + number * ENTRY as u64)?;
        let (key, offset) = bytes.split_at(KEY_LEN);
        let offset = u64::from_le_bytes(offset.try_into().unwrap_or_default());
        let key = Key::from_bytes(key.try_into().unwrap_or([0; KEY_LEN]));
        match offset < records && (number > 0 || offset == 0) {
            true => Ok((key, offset)),
            false => Err(broken("its index")),
        }
    };
    // The restarts before `bound`, by a binary search.
    let before = |bound: &Key| -> io::Result<u64> {
        let (mut low, mut high) = (0, entries);
        while low < high {
            let middle = low + (high - low) / 2;
            match entry(middle)?.0 < *bound {
                true => low = middle + 1,
                false => high = middle,
            }
        }
        Ok(low)
    };
    // From the last restart below the range (a key repeated across a restart starts before
    // it) to the first at or past its end.
    let low = range.checked_sub(1).and_then(|before| bounds.get(before));
    let high = bounds.get(range);
    let first = match low {
        Some(low) => before(low)?.saturating_sub(1),
        None => 0,
    };
    let last = high.map_or(Ok(entries), before)?;
    if entries == 0 {
        return Ok(None);
    }
    // The slice starts at a restart below the range (or the first) and ends at one at or past
    // its end (or the records' end), each checked against the record there: a damaged index
    // would otherwise cut the part short without a word.
    let restart_at = |at: u64, key: &Key| -> io::Result<bool> {
        let mut head = [0u8; 1 + KEY_LEN];
        match at.checked_add(head.len() as u64).is_some_and(|end| end <= records) {
            true => file.read_exact_at(&mut head, at).map(|()| head[0] == 0 && head[1..] == key.as_bytes()[..]),
            false => Ok(false),
        }
    };
    let (first_key, from) = entry(first)?;
    let starts_below = first == 0 || low.is_none_or(|low| first_key < *low);
    if !starts_below || !restart_at(from, &first_key)? {
        return Err(broken("its index"));
    }
    let to = match last < entries {
        true => {
            let (last_key, to) = entry(last)?;
            if high.is_none_or(|high| last_key < *high) || !restart_at(to, &last_key)? {
                return Err(broken("its index"));
            }
            to
        }
        false => records,
    };
    // The first record at or past the range's end: none in it.
    if last == 0 {
        return Ok(None);
    }
    if first >= last || from >= to {
        return Err(broken("its index"));
    }
    let mut slice = vec![0u8; (to - from) as usize];
    file.read_exact_at(&mut slice, from)?;
    let parts = occurrence_parts(&slice, bounds).ok_or_else(|| broken("its records"))?;
    // In key order, each range once, this one's among them (its first restart is below it).
    let ranges: Vec<usize> = parts.iter().map(|(part_range, _)| *part_range).collect();
    if ranges.windows(2).any(|pair| pair[0] >= pair[1]) || ranges.first().is_some_and(|&first| first > range) {
        return Err(broken("its records"));
    }
    Ok(parts.into_iter().find(|(part_range, _)| *part_range == range).map(|(_, part)| part))
}

/// Records between two that share no key prefix in an occurrences file: where a range's reader
/// may start.
pub const RESTART_EVERY: usize = 64;

/// Occurrences (games numbered from 1) as run records, restarting every [`RESTART_EVERY`].
pub(super) fn encode_occurrences(occurrences: impl Iterator<Item = (Key, Occurrence)>) -> Vec<u8> {
    encode_run_records(occurrences, GameId(1), RESTART_EVERY)
}

/// The parts of `occurrences` (records as an occurrences file holds them) in each key
/// range that `bounds` (ascending) cut: `(range, bytes)` for each range holding some, range
/// `i` being the keys from `bounds[i - 1]` up to `bounds[i]` (exclusive). A part is the
/// whole's records as they are but its first, written again to share no key prefix. `None` for
/// bytes that are not such occurrences.
pub fn occurrence_parts(occurrences: &[u8], bounds: &[Key]) -> Option<Vec<(usize, Vec<u8>)>> {
    let mut parts: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut records = RunRecords::new(occurrences, GameId(1));
    // The current part's range and where its records after the first start.
    let mut current: Option<(usize, usize)> = None;
    let mut range = 0;
    loop {
        let start = records.offset();
        let Some(record) = records.next() else { break };
        let (key, occurrence) = record?;
        while bounds.get(range).is_some_and(|bound| key >= *bound) {
            range += 1;
        }
        if current.is_some_and(|(part_range, _)| part_range == range) {
            continue;
        }
        if let (Some((_, from)), Some((_, part))) = (current, parts.last_mut()) {
            part.extend_from_slice(&occurrences[from..start]);
        }
        parts.push((range, encode_occurrences(std::iter::once((key, occurrence)))));
        current = Some((range, records.offset()));
    }
    if let (Some((_, from)), Some((_, part))) = (current, parts.last_mut()) {
        part.extend_from_slice(&occurrences[from..]);
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{decode_run_records, tier::PawnFiles};

    /// Occurrences of keys sharing long prefixes (a part's first record must be written anew),
    /// three of each key (games 1 to 3), in order.
    fn occurrences(count: u32) -> Vec<(Key, Occurrence)> {
        let mut all: Vec<(Key, Occurrence)> = (0..count)
            .map(|n| {
                let mut bytes = [7u8; 21];
                bytes[18..].copy_from_slice(&(n / 3).to_be_bytes()[1..]);
                let occurrence = Occurrence {
                    game: GameId(u64::from(n % 3) + 1),
                    next: None,
                    ply: n % 7,
                    pawn_files: PawnFiles(1),
                    notes: Default::default(),
                };
                (Key::from_bytes(bytes), occurrence)
            })
            .collect();
        all.sort();
        all
    }

    #[test]
    fn parts_hold_each_range_s_occurrences_as_a_naive_split_does() {
        let all = occurrences(3_000);
        let bytes = encode_occurrences(all.iter().copied());
        let key = |n: u32| all[n as usize * 3].0;
        let bound_sets =
            [vec![], vec![Key::MIN], vec![key(0)], vec![key(1), key(500), key(501), key(999)], vec![Key::MAX]];
        for bounds in bound_sets {
            let parts = occurrence_parts(&bytes, &bounds).expect("parts");
            let mut naive: Vec<(usize, Vec<(Key, Occurrence)>)> = Vec::new();
            for &(key, occurrence) in &all {
                let range = bounds.partition_point(|bound| *bound <= key);
                match naive.last_mut() {
                    Some((last, part)) if *last == range => part.push((key, occurrence)),
                    _ => naive.push((range, vec![(key, occurrence)])),
                }
            }
            let decoded: Vec<(usize, Vec<(Key, Occurrence)>)> = parts
                .iter()
                .map(|(range, part)| (*range, decode_run_records(part, GameId(1)).expect("a part reads")))
                .collect();
            assert_eq!(decoded, naive, "bounds {bounds:?}");
        }
        assert_eq!(occurrence_parts(b"\x05abc", &[]), None);
        assert_eq!(occurrence_parts(&bytes[..bytes.len() - 1], &[key(10)]), None);
    }

    #[test]
    fn a_range_read_from_a_file_is_its_part_of_the_whole() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("occurrences");
        let all = occurrences(5_000);
        let bytes = encode_occurrences(all.iter().copied());
        write_occurrences(&path, all.iter().copied()).expect("written");
        // The records as one encoding writes them, then the index and footer.
        assert_eq!(std::fs::read(&path).expect("read")[..bytes.len()], bytes[..]);
        let key = |n: usize| all[n * 3].0;
        // Bounds on restarts, between them, repeated keys across a restart (64 = 3 * 21 + 1).
        let bound_sets =
            [vec![], vec![key(0)], vec![key(21), key(22), key(700)], vec![key(1), key(1_666)], vec![Key::MAX]];
        for bounds in bound_sets {
            let whole = occurrence_parts(&bytes, &bounds).expect("parts");
            for range in 0..=bounds.len() {
                let want = whole.iter().find(|(part, _)| *part == range).map(|(_, part)| part.clone());
                let read = occurrences_in_range(&path, &bounds, range).expect("read");
                assert_eq!(read, want, "bounds {bounds:?}, range {range}");
            }
        }
        // An empty batch's file.
        let empty = dir.path().join("empty");
        write_occurrences(&empty, std::iter::empty()).expect("written");
        assert_eq!(occurrences_in_range(&empty, &[key(5)], 1).expect("read"), None);
        // Cut short, or any byte of its footer changed: an error naming the file.
        let whole = std::fs::read(&path).expect("read");
        for cut in [whole.len() - 1, whole.len() - FOOTER, 3] {
            std::fs::write(&path, &whole[..cut]).expect("written");
            let err = occurrences_in_range(&path, &[], 0).expect_err("cut short");
            assert!(err.to_string().contains("occurrences"), "{err}");
        }
        for at in whole.len() - FOOTER..whole.len() {
            let mut changed = whole.clone();
            changed[at] ^= 0x40;
            std::fs::write(&path, &changed).expect("written");
            assert!(occurrences_in_range(&path, &[], 0).is_err(), "byte {at}");
        }
        // Any bit of an index entry's offset changed: each range's part as it was, or an error,
        // never another part nor a panic.
        let index_at = bytes.len();
        for bounds in [vec![key(21), key(22), key(700), key(1_200)], vec![key(64)]] {
            let parts = occurrence_parts(&bytes, &bounds).expect("parts");
            // Offsets' bits (3, 4 and 8 can land on another record's start), then keys' bits.
            let bits =
                [0, 3, 4, 5, 8, 13, 20, 40, 63].map(|bit| KEY_LEN * 8 + bit).into_iter().chain([0, 7, 150, 160, 167]);
            for entry in [0, 1, 2, 3, 13, 30, 32, 33, 40, 78] {
                for bit in bits.clone() {
                    let mut changed = whole.clone();
                    let at = index_at + entry * ENTRY + bit / 8;
                    changed[at] ^= 1 << (bit % 8);
                    std::fs::write(&path, &changed).expect("written");
                    for range in 0..=bounds.len() {
                        let want = parts.iter().find(|(part, _)| *part == range).map(|(_, part)| part.clone());
                        if let Ok(read) = occurrences_in_range(&path, &bounds, range) {
                            assert_eq!(read, want, "entry {entry}, bit {bit}, range {range}");
                        }
                    }
                }
            }
        }
        assert!(occurrences_in_range(&dir.path().join("gone"), &[], 0).is_err());
    }
}
