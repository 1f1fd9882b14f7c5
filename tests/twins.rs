//! Twins on a constructed collection whose twins are known by construction: one game copied
//! under other spellings and another round, and cut short; beside it, games that share all
//! but one thing with it (another game of the day, another date, other players, a copy cut too
//! short). `tabiya twins` groups exactly the copies; an ingest that skips twins skips exactly
//! them, in a later file and within one.

use shakmaty::{CastlingMode, Chess, Move, Position as _};
use tabiya::{
    explore::TwinSearch,
    indexer::{self, IngestOptions},
    store::Store,
};

use crate::common::{Lcg, games::movetext, tabiya};

/// A random legal game of `plies` plies (fewer if it ends), from `seed`.
pub fn random_moves(seed: u64, plies: usize) -> Vec<Move> {
    let mut rng = Lcg(seed);
    let mut position = Chess::default();
    let mut moves = Vec::new();
    while moves.len() < plies {
        let mut legal: Vec<Move> = position.legal_moves().into_iter().collect();
        if legal.is_empty() {
            break;
        }
        legal.sort_by_key(|m| m.to_uci(CastlingMode::Standard).to_string());
        let m = legal[rng.next(legal.len() as u64) as usize];
        position.play_unchecked(m);
        moves.push(m);
    }
    moves
}

/// A game's PGN text.
pub fn game(white: &str, black: &str, date: &str, round: &str, result: &str, moves: &[Move]) -> String {
    format!(
        "[Event \"Twins\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{}{result}\n\n",
        movetext(moves)
    )
}

#[test]
fn twins_are_the_copies_and_only_them() {
    let a = random_moves(1, 60);
    let other = random_moves(2, 50);
    let dir = tempfile::tempdir().unwrap();
    let date = "1985.09.03";
    // Games 1-6 of the first file: the original and five near misses.
    let first = [
        game("Kasparov, Garry", "Karpov, Anatoly", date, "1", "1-0", &a),
        game("Kasparov, Garry", "Karpov, Anatoly", date, "2", "1/2-1/2", &other),
        game("Kasparov, Garry", "Karpov, Anatoly", "1985.09.04", "3", "1-0", &a),
        game("Kasparov, Garry", "Karpov, Anatoly", date, "4", "*", &a[..12]),
        game("Kasparov, Garry", "Sokolov, Andrei", date, "5", "1-0", &a),
        game("Karpov, Anatoly", "Kasparov, Garry", date, "6", "1-0", &a),
    ]
    .concat();
    // The copies: other spellings and round, the same moves; a copy cut at ply 40.
    let copies = [
        game("Kasparov,G", "Karpov,A", date, "?", "1-0", &a),
        game("Garry Kasparov", "KARPOV, A.", date, "1.1", "*", &a[..40]),
        game("Short, Nigel", "Timman, Jan", "1993.01.01", "1", "0-1", &other),
        game("Short,N", "Timman,J", "1993.01.01", "2", "0-1", &other),
    ]
    .concat();
    let (first_path, copies_path) = (dir.path().join("first.pgn"), dir.path().join("copies.pgn"));
    std::fs::write(&first_path, &first).unwrap();
    std::fs::write(&copies_path, &copies).unwrap();

    // Every game indexed: the search groups the copies with the original.
    let store = Store::open(&dir.path().join("all")).unwrap();
    for path in [&first_path, &copies_path] {
        indexer::ingest(&store, std::slice::from_ref(path), &mut indexer::SilentObserver).unwrap();
    }
    let found = TwinSearch::default().run(&store, &Default::default()).unwrap();
    let rounds: Vec<Vec<String>> =
        found.groups.iter().map(|g| g.games.iter().map(|game| game.round.clone()).collect()).collect();
    // Ids follow a batch's mainline order: the copy cut short before the whole one.
    assert_eq!(rounds, [vec!["1", "1.1", "?"], vec!["1", "2"]], "{found:#?}");
    assert_eq!(found.extra_copies, 3);
    let reasons: Vec<&str> = found.groups[0].pairs.iter().map(|p| p.reason).collect();
    assert_eq!(reasons.iter().filter(|r| **r == "same moves").count(), 1);
    assert_eq!(reasons.iter().filter(|r| **r == "prefix").count(), 2);
    let cut = found.groups[0].games.iter().find(|g| g.round == "1.1").unwrap();
    assert!(found.groups[0].pairs.iter().filter(|p| p.reason == "prefix").all(|p| p.first == cut.id));
    // A longest prefix requirement above the cut copy's plies leaves it out.
    let strict = TwinSearch { min_prefix: 41 }.run(&store, &Default::default()).unwrap();
    assert_eq!(strict.groups[0].games.len(), 2);
    drop(store);

    // Skipping twins at ingest: in a later file, and within one file.
    let store = Store::open(&dir.path().join("skipping")).unwrap();
    let skip = IngestOptions { skip_twins: Some(tabiya::model::twins::MIN_PREFIX_PLIES) };
    let summary =
        indexer::ingest_with(&store, std::slice::from_ref(&first_path), &skip, &mut indexer::SilentObserver).unwrap();
    assert_eq!((summary.run.counts.indexed, summary.run.counts.twins), (6, 0));
    let summary =
        indexer::ingest_with(&store, std::slice::from_ref(&copies_path), &skip, &mut indexer::SilentObserver).unwrap();
    assert_eq!((summary.run.counts.indexed, summary.run.counts.twins), (1, 3));
    assert!(TwinSearch::default().run(&store, &Default::default()).unwrap().groups.is_empty());
    drop(store);
    let both = dir.path().join("both.pgn");
    std::fs::write(&both, [first.as_str(), copies.as_str()].concat()).unwrap();
    let db = dir.path().join("one-file");
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), "--skip-twins", "--json", both.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((json["indexed"].as_u64(), json["twins"].as_u64()), (Some(7), Some(3)), "{json}");
    let out = tabiya(&["twins", "--db", db.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["groups"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["games"].as_u64(), Some(7));
}
