//! The floor for any indexer: a plain single-thread pgn-reader + shakmaty replay of a PGN file
//! (every mainline move parsed and played from the game's `FEN`, by Chess960's castling rules
//! when its `Variant` tag names Chess960; nothing else). `tools/bench/ingest.sh` runs it beside
//! `tabiya ingest`.
//!
//! `cargo run --release --example replay -- FILE.pgn[.zst|.bz2|.gz]`

use std::{ops::ControlFlow, time::Instant};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen};

/// The replay, shared with `tools/examples/ingest-stages.rs`: plays every mainline move,
/// counting them.
pub struct Replay {
    pub plies: u64,
}

/// A game's `FEN` tag and whether its `Variant` tag names Chess960.
#[derive(Default)]
pub struct StartTags {
    fen: Option<Fen>,
    chess960: bool,
}

impl Visitor for Replay {
    type Tags = StartTags;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), StartTags> {
        ControlFlow::Continue(StartTags::default())
    }
    fn tag(&mut self, tags: &mut StartTags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        match name {
            b"FEN" => tags.fen = Fen::from_ascii(value.as_bytes()).ok(),
            b"Variant" => {
                let variant = value.decode_utf8_lossy().to_lowercase();
                tags.chess960 = ["960", "fischer", "freestyle"].iter().any(|name| variant.contains(name));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: StartTags) -> ControlFlow<(), Chess> {
        let mode = if tags.chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
        let Some(fen) = tags.fen else {
            return ControlFlow::Continue(Chess::default());
        };
        match fen.into_position(mode) {
            Ok(position) => ControlFlow::Continue(position),
            Err(_) => ControlFlow::Break(()),
        }
    }
    fn san(&mut self, position: &mut Chess, san_plus: SanPlus) -> ControlFlow<()> {
        match san_plus.san.to_move(position) {
            Ok(m) => {
                position.play_unchecked(m);
                self.plies += 1;
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(()),
        }
    }
    fn begin_variation(&mut self, _position: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }
    fn end_game(&mut self, _position: Chess) {}
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args_os().nth(1).ok_or_else(|| anyhow::anyhow!("usage: replay FILE.pgn[.zst]"))?;
    let started = Instant::now();
    let source = tabiya::input::Source::open(path.as_ref(), None)?;
    let mut reader = Reader::new(source.reader);
    let mut visitor = Replay { plies: 0 };
    let mut games = 0u64;
    while reader.read_game(&mut visitor)?.is_some() {
        games += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{{\"games\": {games}, \"plies\": {}, \"seconds\": {seconds:.3}, \"gamesPerSecond\": {:.0}}}",
        visitor.plies,
        games as f64 / seconds
    );
    Ok(())
}
