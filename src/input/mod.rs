//! Reading user files: PGN game collections and position lists (EPD/FEN lines), plain or
//! compressed. The files to read ([`expand`]), opened ([`Source`]), split into games
//! ([`GameSplitter`]), each game's text read in one pass and replayed into model records
//! ([`parse_game`]); position lists line by line ([`read_position_lines`]). And the round trip of
//! every position of such files through both codecs ([`codec_check`], `tabiya codec check`).
//!
//! Bad input never aborts a run: each unusable line or game is reported with its file, line or
//! game number and reason, and everything around it is still read.

pub mod annotations;
pub mod codec_check;
mod lines;
mod pgn;
mod san;
mod source;
mod split;
mod tokens;

pub use lines::{LineError, PositionLine, read_position_lines};
pub use pgn::{Game, MAX_GAME_PLIES, RejectReason, Rejection, parse_game};
pub use san::resolve as resolve_san;
pub use source::{Expansion, InputKind, Source, Wanted, expand, is_pgn_name};
pub use split::{GameSplitter, RawGame};

use std::path::PathBuf;

/// Why an input could not be read (a bad game or line is not an error: see [`Rejection`] and
/// [`LineError`]).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A path that names nothing.
    #[error("{}: no such file or directory", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// A file that cannot be opened.
    #[error("cannot open {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A directory that cannot be listed.
    #[error("cannot list {}: {source}", path.display())]
    List {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A PGN file whose reading stopped partway (an I/O error, a broken compressed stream):
    /// the games before the break were read.
    #[error("reading stopped {}: {source}", after(*after_game))]
    Stopped {
        /// The file.
        path: PathBuf,
        /// The number of the last game read whole (0: none).
        after_game: u64,
        /// Why.
        source: std::io::Error,
    },
    /// A file that could not be read to its end (an I/O error, a broken compressed stream).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn after(game: u64) -> String {
    match game {
        0 => "before the first game".to_owned(),
        n => format!("after game {n}"),
    }
}

/// Splits and replays every game of `reader` in order, one at a time, handing each game (or why
/// it was rejected) to `each`. The indexer does the same in parallel.
pub fn read_games(reader: impl std::io::Read, mut each: impl FnMut(Result<Game, Rejection>)) -> std::io::Result<()> {
    for raw in GameSplitter::new(reader) {
        each(parse_game(&raw?));
    }
    Ok(())
}
