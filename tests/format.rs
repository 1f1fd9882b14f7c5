//! The on-disk format, pinned: the embedded sample ingested into a new database gives exactly
//! these bytes. Format 4 moved the totals from the meta family into the positions family's
//! commit record; its positions, games, fingerprints and players are byte for byte what the
//! format-3 code gave (digests taken with that revision's build, `tools/format-digest.sh`).
//! Format 5 stores each general position value's games by move instead of its slices, and adds
//! the facts family; games, fingerprints, players and the commit record are unchanged. Format 6
//! stores a one-game position as its game and next move only (the game's facts are in the facts
//! family), and a position of at most 64 games without its top and recent games; only the
//! positions family and the format version change. A change
//! to any stored layout fails here until FORMAT_VERSION and these digests change together.

#[path = "../tools/db_digest.rs"]
mod db_digest;

use tabiya::{indexer, store::Store};

#[test]
fn the_sample_database_has_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample.pgn");
    let path = dir.path().join("db");
    {
        let store = Store::open(&path).unwrap();
        indexer::ingest(&store, &[pgn.into()], &mut indexer::SilentObserver).unwrap();
    }
    let got: Vec<(&str, u64, String)> =
        db_digest::digests(&path).unwrap().into_iter().map(|d| (d.family, d.entries, d.hash)).collect();
    let want = [
        ("positions", 134, "77bff133436f7e31f22b6d7e38aa1507"),
        ("games", 5, "c515beb2e605c4ee2ad911cfae9d482e"),
        ("facts", 5, "6285c3741ed2de4191e51a74f8b57f25"),
        ("fingerprints", 5, "5886809214f4441f09ce33055bf40792"),
        ("players", 10, "ae067358bfece9c36ceebe40075fde5f"),
        ("openings", 0, "99aa06d3014798d86001c324468d497f"),
        ("meta", 1, "7a55c3bfb6bb846b21420cad5c7df64c"),
        ("commit", 1, "b756a806c83513586c60e38e1d2bd571"),
    ];
    let want: Vec<(&str, u64, String)> = want.iter().map(|&(f, n, h)| (f, n, h.to_owned())).collect();
    assert_eq!(got, want);
}
