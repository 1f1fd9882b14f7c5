//! Reading positions out of user files: position lists (EPD/FEN lines) and PGN game collections,
//! plain or zstd-compressed.
//!
//! Bad input never aborts a run: each unusable line or game is reported with its file, line or
//! game number and reason, and everything around it is still read.

mod lines;
mod pgn;
mod source;

pub use lines::{LineError, PositionLine, read_position_lines};
pub use pgn::{GameError, MainlineVisitor, read_games};
pub use source::{InputKind, Source};
