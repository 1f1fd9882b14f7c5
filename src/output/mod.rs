//! Rendering, in one place for the command line and the HTTP server: terminal tables
//! ([`table`]), the JSON documents that are not explorer answers ([`json`]), and PGN ([`pgn`]).

pub mod json;
pub mod pgn;
pub mod table;
