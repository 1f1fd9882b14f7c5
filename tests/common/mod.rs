//! Helpers shared by the integration tests: the binary, a seeded generator, codec round trips.
#![allow(dead_code)]

pub mod browser;
pub mod games;
pub mod oracle;
pub mod server;

use std::{
    path::PathBuf,
    process::{Command, Output},
};

use tabiya::{
    Category, Key, Material, Position,
    codec::{huffman, material_range},
};

/// Round-trips a position through both codecs and checks its key lies in its material range.
pub fn assert_round_trip(position: &Position) -> Key {
    let key = Key::encode(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    assert_eq!(key.decode().as_ref(), Ok(position), "key {key}");
    let material = Material::of(position);
    let range = material_range(Category::of(position), &material).expect("material of a keyed position");
    assert!(range.contains(&key), "{position}: {key} outside {range:?}");
    let packed = huffman::encode(position);
    assert_eq!(huffman::decode(&packed.bytes).as_ref(), Ok(position), "packed {:?}", packed.bytes);
    key
}

/// Every game of `source`, in id order, unfiltered: the game list the tests narrow with `..`.
pub fn every_game(source: tabiya::explore::GameSource) -> tabiya::explore::GamesQuery {
    tabiya::explore::GamesQuery {
        source,
        and: vec![],
        not: vec![],
        sort: tabiya::explore::GameSort::Id,
        offset: 0,
        limit: usize::MAX,
        max_sorted: usize::MAX,
        filter: tabiya::explore::Filter::default(),
        steps: None,
    }
}

/// The `tabiya` binary, ready for arguments.
pub fn command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tabiya"))
}

/// Runs `tabiya ARGS...` to its end.
pub fn tabiya(args: &[&str]) -> Output {
    command().args(args).output().expect("binary runs")
}

/// A small deterministic generator (64-bit LCG, high bits): seeded test data without a
/// dependency.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n`.
    pub fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    /// An index below `n`.
    pub fn index(&mut self, n: usize) -> usize {
        self.next(n as u64) as usize
    }
}

/// The shared real-data sets (`../shared/datasets`, or `TABIYA_DATASETS`); the tests that read
/// them are ignored unless run with `--include-ignored` (tools/ci/test.sh does when it finds them),
/// and fail here when they are missing.
pub fn datasets() -> PathBuf {
    let dir = std::env::var_os("TABIYA_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    assert!(
        dir.is_dir(),
        "no shared datasets at {}: put them beside the checkout or set TABIYA_DATASETS",
        dir.display()
    );
    dir
}

/// Every stored position with its statistics (everything stored, no slices), part by part.
pub fn stored_positions(store: &tabiya::store::Store) -> Vec<(Key, tabiya::model::PositionStats)> {
    let view = store.scan_snapshot();
    view.scanner().each(|position| position.stats()).map(|item| item.expect("a stored position")).collect()
}

/// The answer of `scan` computed as three processes would: each some of its parts, once,
/// shipped as bytes, merged in another order.
pub fn spread<S: tabiya::explore::DistributedScan>(scan: &S, store: &tabiya::store::Store) -> S::Answer {
    use tabiya::explore::distributed::{from_bytes, to_bytes};
    let view = store.scan_snapshot();
    let count = scan.part_count(&view).expect("parts");
    assert!(count > 2, "{count} parts");
    let mut shipped: Vec<Vec<u8>> = (0..3)
        .map(|process| {
            let mine: Vec<usize> = (process..count).step_by(3).collect();
            to_bytes(&scan.partial(&view, &mine, &Default::default()).expect("a partial answer"))
        })
        .collect();
    drop(view);
    shipped.reverse();
    let partials = shipped.iter().map(|bytes| from_bytes(bytes).expect("a partial answer's bytes")).collect();
    scan.answer(&store.snapshot(), partials, std::time::Instant::now()).expect("the answer")
}

/// A naive replay's counts of one position: its games and results (`[games, white, draws,
/// black]`), and per next move (UCI) the same.
pub type NaiveCounts = ([u64; 4], std::collections::BTreeMap<String, [u64; 4]>);

/// Adds one game to a naive replay's counts: `seen` holds each position it stood on with the
/// moves it played from there; a game counts once where it stands more than once. `result`:
/// 0 White won, 1 drawn, 2 Black won.
pub fn tally_game<K: Ord>(
    index: &mut std::collections::BTreeMap<K, NaiveCounts>,
    seen: std::collections::HashMap<K, Vec<String>>,
    result: usize,
) {
    let add = |counts: &mut [u64; 4]| {
        counts[0] += 1;
        counts[1 + result] += 1;
    };
    for (position, mut moves) in seen {
        let entry = index.entry(position).or_default();
        add(&mut entry.0);
        moves.sort();
        moves.dedup();
        for uci in moves {
            add(entry.1.entry(uci).or_default());
        }
    }
}
