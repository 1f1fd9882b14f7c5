//! A build spread over machines (`indexer::distributed`), its parts run here in one process in
//! a shuffled order, gives byte for byte the database a single-machine ingest of the same files
//! gives (every family's digest), whatever its number of key ranges; and a single-machine
//! ingest gives the same bytes on every run (its batches are cut by the input alone).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use tabiya::{
    Key,
    indexer::{
        self,
        distributed::{
            BatchIds, PreparedBatch, ReadCounts, assemble, fingerprint_parts, later_twins, occurrence_parts,
            read_batches, write_range_run,
        },
    },
    model::GameId,
    store::Store,
};

use crate::{common::games::openings, db_digest};

/// Two files of short games (a third of them copies of earlier ones, some across files), each
/// spanning several batches.
fn collection(dir: &Path) -> Vec<PathBuf> {
    let games = openings(40_000);
    let pgn: Vec<String> = games.iter().map(|game| game.pgn()).collect();
    let mut first = String::new();
    let mut second = String::new();
    for (index, text) in pgn.iter().enumerate() {
        let out = if index < 22_000 { &mut first } else { &mut second };
        out.push_str(text);
        out.push('\n');
        if index % 3 == 0 {
            // A copy, a little later or in the other file.
            let copy = &pgn[(index * 7) % pgn.len()];
            out.push_str(copy);
            out.push('\n');
        }
    }
    let paths = vec![dir.join("a.pgn"), dir.join("b.pgn")];
    std::fs::write(&paths[0], first).unwrap();
    std::fs::write(&paths[1], second).unwrap();
    paths
}

fn single_machine(files: &[PathBuf], db: &Path) -> indexer::Summary {
    let store = Store::open(db).unwrap();
    indexer::ingest(&store, files, &mut indexer::SilentObserver).unwrap()
}

/// What a cluster does, in one process: batches prepared out of order, duplicates dropped
/// across batches, ids by a prefix sum, `ranges` key ranges written in reverse order.
fn distributed(files: &[PathBuf], db: &Path, ranges: usize, work: &Path) -> indexer::Summary {
    // Split and prepare, each batch on its own, in reverse input order.
    let mut raw = Vec::new();
    for (file, path) in files.iter().enumerate() {
        let mut batch = 0;
        assert!(read_batches(path, |games| {
            raw.push(((file, batch), games.unwrap()));
            batch += 1;
            true
        }));
    }
    let mut prepared: BTreeMap<(usize, usize), PreparedBatch> = BTreeMap::new();
    for (at, games) in raw.into_iter().rev() {
        prepared.insert(at, PreparedBatch::prepare(games, |_| false));
    }
    // Duplicates across batches, shuffled by fingerprint to 3 parts: the first in input order
    // stays.
    let order = |(file, batch): (usize, usize)| (file as u64) << 32 | batch as u64;
    let mut shuffled: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 3];
    for (&at, batch) in &prepared {
        let fingerprints: Vec<u8> = batch.fingerprints().flat_map(|fingerprint| fingerprint.0).collect();
        for (part, bytes) in fingerprint_parts(&fingerprints, order(at), 3).unwrap() {
            shuffled[part].push(bytes);
        }
    }
    let mut dropped: BTreeMap<(usize, usize), Vec<u32>> = BTreeMap::new();
    for part in &shuffled {
        let records: Vec<&[u8]> = part.iter().map(Vec::as_slice).collect();
        for (place, number) in later_twins(&records).unwrap() {
            let at = ((place >> 32) as usize, (place & 0xffff_ffff) as usize);
            dropped.entry(at).or_default().push(number);
        }
    }
    for numbers in dropped.values_mut() {
        numbers.sort_unstable();
    }
    let mut ids = BTreeMap::new();
    let mut next = 1;
    let mut counts = ReadCounts::default();
    for (&at, batch) in &prepared {
        let dropped = dropped.remove(&at).unwrap_or_default();
        let kept = batch.fingerprints().count() - dropped.len();
        counts.games_read += batch.games_read;
        counts.duplicates += batch.duplicates + dropped.len() as u64;
        ids.insert(at, BatchIds { first: GameId(next), dropped });
        next += kept as u64;
    }
    // Range bounds from the batches' samples, then each range's run, the last range first.
    let mut samples: Vec<Key> = prepared.values().flat_map(PreparedBatch::bound_keys).collect();
    samples.sort();
    samples.dedup();
    let bounds: Vec<Key> = (1..ranges).map(|part| samples[part * samples.len() / ranges]).collect();
    let occurrences: BTreeMap<_, _> = prepared.iter().map(|(&at, batch)| (at, batch.occurrences_bytes())).collect();
    let mut parts: Vec<Vec<(BatchIds, Vec<u8>)>> = vec![Vec::new(); ranges];
    for (at, bytes) in &occurrences {
        for (range, part) in occurrence_parts(bytes, &bounds).unwrap() {
            parts[range].push((ids[at].clone(), part));
        }
    }
    let mut runs = Vec::new();
    for (range, parts) in parts.iter().enumerate().rev() {
        let path = work.join(format!("range-{range}.run"));
        let parts: Vec<(BatchIds, &[u8])> = parts.iter().map(|(ids, bytes)| (ids.clone(), bytes.as_slice())).collect();
        write_range_run(&path, &parts).unwrap();
        runs.push(path);
    }
    let store = Store::open(db).unwrap();
    let games = prepared.iter().map(|(at, batch)| (ids[at].clone(), batch.games_bytes()));
    assemble(&store, files, games, &runs, &counts).unwrap()
}

#[test]
fn a_distributed_build_gives_the_bytes_of_a_single_machine_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let files = collection(dir.path());
    let single = single_machine(&files, &dir.path().join("single"));
    assert!(single.run.counts.duplicates > 10_000, "{:?}", single.run.counts);
    let again = single_machine(&files, &dir.path().join("again"));
    let want = db_digest::digests(&dir.path().join("single")).unwrap();
    assert_eq!(db_digest::digests(&dir.path().join("again")).unwrap(), want, "a second single-machine ingest");
    for ranges in [1, 3, 8] {
        let db = dir.path().join(format!("spread-{ranges}"));
        let work = dir.path().join(format!("work-{ranges}"));
        std::fs::create_dir_all(&work).unwrap();
        let spread = distributed(&files, &db, ranges, &work);
        assert_eq!(spread.run.counts.games_read, single.run.counts.games_read);
        assert_eq!(spread.run.counts.indexed, single.run.counts.indexed);
        assert_eq!(spread.run.counts.duplicates, single.run.counts.duplicates);
        assert_eq!(spread.totals, single.totals, "{ranges} ranges");
        assert_eq!(db_digest::digests(&db).unwrap(), want, "{ranges} ranges");
    }
    assert_eq!(again.totals, single.totals);
}

/// `--threads` sets the workers of an ingest, not what it writes: one thread and three give
/// the same bytes; a count of 0 is refused before anything is opened.
#[test]
fn ingest_writes_the_same_bytes_whatever_its_threads() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    let games = crate::common::games::generate(3_000);
    std::fs::write(&pgn, games.iter().map(|game| game.pgn()).collect::<String>()).unwrap();
    let mut digests = Vec::new();
    for threads in ["1", "3"] {
        let db = dir.path().join(format!("db-{threads}"));
        let out = crate::common::tabiya(&[
            "--threads",
            threads,
            "ingest",
            "--db",
            db.to_str().unwrap(),
            pgn.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        digests.push(db_digest::digests(&db).unwrap());
    }
    assert_eq!(digests[0], digests[1]);
    let out = crate::common::tabiya(&["--threads", "0", "stats", "--db", dir.path().join("none").to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--threads"));
    assert!(!dir.path().join("none").exists());
}
