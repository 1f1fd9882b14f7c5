//! The staging area's runs: writing, merging, ranges and corruption.

use super::*;
use crate::{codec::KEY_LEN, store::layout::run::read_record};

fn key(n: u8) -> Key {
    let mut bytes = [0u8; KEY_LEN];
    bytes[KEY_LEN - 1] = n;
    bytes[0] = 1;
    Key::from_bytes(bytes)
}

fn occurrence(game: u64) -> Occurrence {
    let pawn_files = PawnFiles(game as u16 ^ 0x5a5a);
    Occurrence {
        game: GameId(game),
        next: CompactMove::from_bits(12 | 28 << 6),
        ply: game as u32 % 7,
        pawn_files,
        notes: PlyNotes::default(),
    }
}

/// Every position of `range` merged, as (key, games).
fn merge_all(staging: &Staging, range: KeyRange) -> Vec<(Key, Vec<u64>)> {
    let mut merged = staging.merged(range).unwrap();
    let mut out = Vec::new();
    while let Some((key, group)) = merged.next_group().unwrap() {
        out.push((key, group.iter().map(|o| o.game.0).collect()));
    }
    out
}

#[test]
fn runs_merge_in_key_order_with_every_occurrence_of_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let mut staging = Staging::create(dir.path()).unwrap();
    // Position 3 is in all three runs, 5 in two, the others in one; run 2 holds games 10
    // and 11 of position 3, and run 3 game 6 of it, out of the runs' order.
    let runs: [&[(u8, u64)]; 3] =
        [&[(1, 1), (3, 2), (5, 3)], &[(3, 10), (3, 11), (4, 5)], &[(2, 6), (3, 7), (5, 8), (9, 9)]];
    for run in runs {
        staging.add_run(GameId(1), run.iter().map(|&(k, game)| (key(k), occurrence(game)))).unwrap();
    }
    let got: Vec<(u8, Vec<u64>)> =
        merge_all(&staging, KeyRange::ALL).into_iter().map(|(k, games)| (k.as_bytes()[KEY_LEN - 1], games)).collect();
    let want: Vec<(u8, Vec<u64>)> =
        vec![(1, vec![1]), (2, vec![6]), (3, vec![2, 7, 10, 11]), (4, vec![5]), (5, vec![3, 8]), (9, vec![9])];
    assert_eq!(got, want);
    // Moves and plies come back as written.
    let mut merged = staging.merged(KeyRange::ALL).unwrap();
    let (_, group) = merged.next_group().unwrap().unwrap();
    assert_eq!(group, [occurrence(1)]);
    staging.clear().unwrap();
    assert!(staging.is_empty());
    assert_eq!(std::fs::read_dir(staging.dir()).unwrap().count(), 0);
}

#[test]
fn ranges_split_the_merge_into_parts_that_concatenate_to_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut staging = Staging::create(dir.path()).unwrap();
    // Three runs of 10,000 keys from overlapping strides, so that many keys are shared and
    // each run has several samples.
    for (run, stride) in [(0u64, 3u32), (1, 5), (2, 7)] {
        staging
            .add_run(
                GameId(1),
                (0..10_000u32).map(|i| {
                    let mut bytes = [0u8; KEY_LEN];
                    bytes[1..5].copy_from_slice(&(i * stride).to_be_bytes());
                    (Key::from_bytes(bytes), occurrence(run * 100_000 + u64::from(i) + 1))
                }),
            )
            .unwrap();
    }
    // A hot key (the start position's case): more occurrences in one run than a sample
    // spans, so samples and range bounds land on it.
    let mut hot = [0u8; KEY_LEN];
    hot[1..5].copy_from_slice(&21_000u32.to_be_bytes());
    let hot = Key::from_bytes(hot);
    staging.add_run(GameId(1), (0..3 * SAMPLE_EVERY as u64).map(|i| (hot, occurrence(400_000 + i)))).unwrap();
    let whole = merge_all(&staging, KeyRange::ALL);
    assert!(whole.windows(2).all(|pair| pair[0].0 < pair[1].0));
    assert!(whole.iter().any(|(_, games)| games.len() == 3));
    assert_eq!(whole.iter().map(|(_, games)| games.len()).sum::<usize>(), 30_000 + 3 * SAMPLE_EVERY);
    let hot_games = &whole.iter().find(|(key, _)| *key == hot).expect("the hot key").1;
    assert_eq!(hot_games.len(), 3 * SAMPLE_EVERY + 3);
    assert!(hot_games.is_sorted());
    for count in [1, 2, 3, 8, 64] {
        let ranges = staging.ranges(count);
        assert!(ranges.len() <= count && (count == 1 || ranges.len() > 1), "{count}: {}", ranges.len());
        let parts: Vec<_> = ranges.into_iter().flatten().flat_map(|range| merge_all(&staging, range)).collect();
        assert_eq!(parts, whole, "{count} ranges");
    }
}

/// Occurrences of 20,000 keys, two games each: enough for a few dozen range bounds.
fn many_occurrences() -> Vec<(Key, Occurrence)> {
    (0..20_000u32)
        .flat_map(|i| {
            let mut bytes = [0u8; KEY_LEN];
            bytes[1..5].copy_from_slice(&(i * 11).to_be_bytes());
            let key = Key::from_bytes(bytes);
            [(key, occurrence(u64::from(i) + 1)), (key, occurrence(u64::from(i) + 30_001))]
        })
        .collect()
}

#[test]
fn ranges_depend_on_the_staged_keys_alone_not_on_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let occurrences = many_occurrences();
    let mut whole = Staging::create(&dir.path().join("whole")).unwrap();
    whole.add_run(GameId(1), occurrences.iter().copied()).unwrap();
    // The same occurrences as three runs of games: the first half of each key's games, the
    // second half, and nothing but one game in a third.
    let mut cut = Staging::create(&dir.path().join("cut")).unwrap();
    for part in [0, 1] {
        let run: Vec<_> = occurrences.iter().copied().filter(|(_, o)| (o.game.0 > 30_000) == (part == 1)).collect();
        cut.add_run(GameId(1), run).unwrap();
    }
    for count in [1, 4, 16, 64] {
        let ranges = whole.ranges(count);
        assert_eq!(ranges, cut.ranges(count), "{count} ranges");
        assert!(ranges.len() >= count.min(8), "{count}: {}", ranges.len());
        let parts: Vec<_> = ranges.into_iter().flatten().flat_map(|range| merge_all(&cut, range)).collect();
        assert_eq!(parts, merge_all(&whole, KeyRange::ALL), "{count} ranges");
    }
}

#[test]
fn records_round_trip_and_bad_ones_are_refused() {
    let base = GameId(1000);
    let previous = *key(7).as_bytes();
    let mut next_key = previous;
    next_key[KEY_LEN - 2] = 9;
    for game in [1000, 1001, 1 << 40, u64::MAX] {
        for next in [None, CompactMove::from_bits(1 | 2 << 6 | 5 << 12)] {
            for (ply, files) in [(0, 0), (300, 0x8001), (u32::MAX, u16::MAX)] {
                // Notes on some records: the ply's low bit says they follow.
                let notes = match ply {
                    300 => PlyNotes {
                        before: Some(crate::model::Eval::Mate(-3)),
                        after: Some(crate::model::Eval::Centipawns(42)),
                        spent_centis: Some(1234),
                        first: false,
                    },
                    _ => PlyNotes::default(),
                };
                let written = Occurrence { game: GameId(game), next, ply, pawn_files: PawnFiles(files), notes };
                for shared in [0, KEY_LEN - 2, KEY_LEN] {
                    let key = if shared == KEY_LEN { previous } else { next_key };
                    let mut bytes = Vec::new();
                    write_record(&Key::from_bytes(key), &written, shared, base, &mut bytes).unwrap();
                    let mut read_key = previous;
                    let mut input = bytes.as_slice();
                    assert_eq!(read_record(&mut input, &mut read_key, false, base), Some(written));
                    assert_eq!((read_key, input.len()), (key, 0));
                    // Every cut is refused.
                    for cut in 0..bytes.len() {
                        assert_eq!(read_record(&mut &bytes[..cut], &mut read_key, false, base), None);
                    }
                    // A reader starting here has no previous key to share.
                    assert_eq!(read_record(&mut bytes.as_slice(), &mut read_key, true, base).is_some(), shared == 0);
                }
            }
        }
    }
    assert_eq!(write_record(&key(1), &occurrence(1), 0, GameId(2), &mut Vec::new()), None);
    let mut bytes = Vec::new();
    write_record(&key(1), &occurrence(1), 0, GameId(1), &mut bytes).unwrap();
    let mut buffer = [0u8; KEY_LEN];
    // Game 0, a prefix longer than a key, bad move bits.
    assert_eq!(read_record(&mut bytes.as_slice(), &mut buffer, true, GameId(0)), None);
    let mut long_prefix = bytes.clone();
    long_prefix[0] = KEY_LEN as u8 + 1;
    assert_eq!(read_record(&mut long_prefix.as_slice(), &mut buffer, false, GameId(1)), None);
    let mut bad_move = bytes.clone();
    bad_move[1 + KEY_LEN + 1..][..2].copy_from_slice(&0xffffu16.to_le_bytes());
    assert_eq!(read_record(&mut bad_move.as_slice(), &mut buffer, true, GameId(1)), None);
}

#[test]
fn a_truncated_corrupt_or_unordered_run_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut staging = Staging::create(dir.path()).unwrap();
    staging.add_run(GameId(1), [(key(1), occurrence(1)), (key(2), occurrence(1))]).unwrap();
    let path = staging.runs[0].path.clone();
    let bytes = std::fs::read(&path).unwrap();
    let records = &bytes[HEADER_LEN..];
    // The second record shares all but the last byte of its key. A record: the shared
    // length, the key's rest, the game, the move, the pawn files, the ply.
    let first = 1 + KEY_LEN + 1 + 2 + 2 + 1;
    assert_eq!(records.len(), first + 1 + 1 + 1 + 2 + 2 + 1);
    let cut = bytes[..bytes.len() - 2].to_vec();
    let mut bad_move = bytes.clone();
    bad_move[HEADER_LEN + first + 3..][..2].copy_from_slice(&0xffffu16.to_le_bytes());
    let mut second_alone = bytes[..HEADER_LEN].to_vec();
    second_alone.extend_from_slice(&records[first..]);
    // The second record's key made the first's: the same (key, game, move) again.
    let mut repeated = bytes.clone();
    repeated[HEADER_LEN + first + 1] = 1;
    let no_header = bytes[..4].to_vec();
    let written = bytes.len() as u64;
    // The file's own length stays as written, so that the record checks are reached.
    let pad = |mut bytes: Vec<u8>| {
        bytes.resize(written as usize, 0);
        bytes
    };
    // The last record claims a whole key, which the file's end cuts.
    let mut cut_record = bytes.clone();
    cut_record[HEADER_LEN + first] = 0;
    for (what, corrupt, message) in [
        ("cut", cut, "bytes where"),
        ("cut at a record", bytes[..HEADER_LEN + first].to_vec(), "bytes where"),
        ("cut inside a record", cut_record, "not valid"),
        ("bad move", bad_move, "not valid"),
        ("shares a prefix with nothing", pad(second_alone), "not valid"),
        ("repeated", repeated, "out of order"),
        ("no header", no_header, "bytes where"),
    ] {
        std::fs::write(&path, &corrupt).unwrap();
        let merged = staging.merged(KeyRange::ALL).and_then(|mut merged| {
            while merged.next_group()?.is_some() {}
            Ok(())
        });
        let error = merged.expect_err(what).to_string();
        assert!(
            error.contains(&path.display().to_string())
                && error.contains("corrupt staged run")
                && error.contains(message),
            "{what}: {error}"
        );
    }
    // Occurrences handed over out of order are refused as they are written.
    let unordered = staging.add_run(GameId(1), [(key(2), occurrence(1)), (key(1), occurrence(1))]);
    assert!(unordered.expect_err("out of order").to_string().contains("out of order"));
}

#[test]
fn a_game_staged_twice_for_a_position_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut staging = Staging::create(dir.path()).unwrap();
    staging.add_run(GameId(1), [(key(1), occurrence(5))]).unwrap();
    staging.add_run(GameId(1), [(key(1), occurrence(2)), (key(1), occurrence(5))]).unwrap();
    let mut merged = staging.merged(KeyRange::ALL).unwrap();
    let error = merged.next_group().expect_err("a game twice").to_string();
    assert!(error.contains("staged twice"), "{error}");
}
