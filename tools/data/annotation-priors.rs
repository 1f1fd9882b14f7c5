//! Writes `crates/core/src/codec/annotations/priors.rs`: the first probability of each model
//! of the annotations code (`tabiya_core::codec::annotations`), counted on the annotations of
//! PGN files' games as ingest reads them.
//!
//! Count on games other than those the code is measured on (docs/PERFORMANCE.md says which). It
//! also says, on standard error, how many bytes the code built in takes for the files' games.
//! Changing the priors changes every stored annotations record: bump the format version with
//! them.
//!
//! `cargo run --release --example annotation-priors -- GAMES.pgn[.zst]... > crates/core/src/codec/annotations/priors.rs`
//!
//! The priors in the repository were counted on players games 1,000 to 1,599 in lichess's shape
//! and 1,000 to 1,099 in Arena's and TCEC's (the test files and the measured files are the
//! first games):
//!
//! ```text
//! for shape in lichess:600 arena:100 tcec:100; do
//!   python3 tools/data/annotated-games.py ../shared/datasets/players.pgn.zst \
//!     --shape ${shape%:*} --skip 1000 --games ${shape#*:} > target/priors-${shape%:*}.pgn
//! done
//! cargo run --release --example annotation-priors -- target/priors-*.pgn \
//!   > crates/core/src/codec/annotations/priors.rs
//! ```

use std::fmt::Write as _;

use tabiya_core::codec::annotations::{Counts, MODELS, count, prior};

fn main() -> anyhow::Result<()> {
    let files: Vec<_> = std::env::args_os().skip(1).collect();
    anyhow::ensure!(!files.is_empty(), "usage: annotation-priors GAMES.pgn[.zst]...");
    let mut counts: Box<Counts> = Box::new([[0; 2]; MODELS]);
    let (mut games, mut plies, mut coded) = (0u64, 0u64, 0u64);
    for path in &files {
        let source = tabiya::input::Source::open(path.as_ref(), None)?;
        tabiya::input::read_games(source.reader, |game| {
            let Ok(game) = game else { return };
            if let Some(annotations) = &game.annotations {
                games += 1;
                plies += annotations.moves.len() as u64;
                count(annotations, &mut counts);
                coded += annotations.encode().map_or(0, |bytes| bytes.len() as u64);
            }
        })?;
    }
    let mut out = String::new();
    writeln!(out, "//! The first probability of each model of the annotations code (in 4,096ths, the order of")?;
    writeln!(out, "//! `super::MODELS`' layout), counted on {games} annotated games ({plies} plies).")?;
    writeln!(out, "//!")?;
    writeln!(out, "//! Written by `tools/data/annotation-priors.rs`; part of the format (docs/FORMAT.md).")?;
    writeln!(out)?;
    writeln!(out, "/// Each model's probability of a one before the game's first bit.")?;
    writeln!(out, "#[rustfmt::skip]")?;
    writeln!(out, "pub(super) const PRIORS: [u16; super::MODELS] = [")?;
    let priors: Vec<String> = counts.iter().map(|&[zeros, ones]| prior(zeros, ones).to_string()).collect();
    for line in priors.chunks(20) {
        writeln!(out, "    {},", line.join(", "))?;
    }
    writeln!(out, "];")?;
    print!("{out}");
    // What the code compiled in makes of these games: with priors counted on other games, what
    // it will store.
    eprintln!(
        "{games} annotated games, {plies} plies: {coded} bytes with the current priors ({:.3} a ply)",
        coded as f64 / plies.max(1) as f64
    );
    Ok(())
}
