//! What one core spends on each of ingest's per-game stages, against a plain pgn-reader +
//! shakmaty replay of the same games: the floor under `tools/bench/ingest.sh`'s ratio. The
//! file is read and split into games first (timed apart); then, each over every game in
//! memory: the replay (`tools/examples/replay.rs`'s, of the games' texts as one stream),
//! tabiya's parse (the one pass over its text, SAN resolution, the replay and the mainline's
//! code), and the whole prepare (the parse, the fingerprint and every position keyed). Prints
//! JSON, seconds.
//!
//! `cargo run --release --example ingest-stages -- FILE.pgn[.zst|.bz2|.gz]`

use std::{io::Cursor, time::Instant};

use pgn_reader::Reader;
use tabiya::{
    indexer::{Prepared, prepare},
    input::{GameSplitter, Source, parse_game},
};

/// The replay of `tools/examples/replay.rs` (its `main` unused here).
#[path = "replay.rs"]
#[allow(dead_code)]
mod replay;

fn main() -> anyhow::Result<()> {
    let path = std::env::args_os().nth(1).ok_or_else(|| anyhow::anyhow!("usage: ingest-stages FILE.pgn[.zst]"))?;
    let clock = Instant::now();
    let source = Source::open(path.as_ref(), None)?;
    let games = GameSplitter::new(source.reader).collect::<Result<Vec<_>, _>>()?;
    let split = clock.elapsed().as_secs_f64();

    // The replay reads the games' texts as one stream, as tools/examples/replay.rs reads the file.
    let text: Vec<u8> = games.iter().flat_map(|game| game.text.iter().copied()).collect();
    let clock = Instant::now();
    let mut reader = Reader::new(Cursor::new(&text));
    while reader.read_game(&mut replay::Replay { plies: 0 })?.is_some() {}
    let replay = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let parsed = games.iter().filter(|game| parse_game(game).is_ok()).count();
    let parse = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let mut positions = 0;
    for game in games.iter().cloned() {
        if let Prepared::Game(game) = prepare(game, |_| false) {
            positions += game.positions.len();
        }
    }
    let prepared = clock.elapsed().as_secs_f64();
    println!(
        "{{\"games\": {}, \"parsed\": {parsed}, \"positions\": {positions}, \"readAndSplitSeconds\": {split:.3}, \
         \"replaySeconds\": {replay:.3}, \"parseSeconds\": {parse:.3}, \"prepareSeconds\": {prepared:.3}}}",
        games.len()
    );
    Ok(())
}
