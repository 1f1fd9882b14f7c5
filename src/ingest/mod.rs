//! Reading user files: PGN game collections and position lists (EPD/FEN lines), plain or
//! compressed.
//!
//! Bad input never aborts a run: each unusable line or game is reported with its file, line or
//! game number and reason, and everything around it is still read.

mod lines;
mod pgn;
mod source;
mod split;
mod syntax;

pub use lines::{LineError, PositionLine, read_position_lines};
pub use pgn::{Game, GameResult, RejectReason, Rejection, Tags, parse_game};
pub use source::{InputKind, Source, is_pgn_name};
pub use split::{GameSplitter, RawGame};

/// Splits and replays every game of `reader` in order, one at a time, handing each game (or why
/// it was rejected) to `each`. The indexer does the same in parallel.
pub fn read_games(reader: impl std::io::Read, mut each: impl FnMut(Result<Game, Rejection>)) -> std::io::Result<()> {
    for raw in GameSplitter::new(reader) {
        each(parse_game(&raw?));
    }
    Ok(())
}
