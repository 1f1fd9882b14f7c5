//! Rendering, in one place for the command line and the HTTP server: terminal tables
//! ([`table`]), the JSON documents that are not explorer answers ([`json`]), PGN ([`pgn`]) and
//! piece-square tables ([`psqt`]).

pub mod json;
pub mod pgn;
pub mod psqt;
pub mod table;
