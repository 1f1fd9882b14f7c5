//! What people and programs read, in one place for the command line and the HTTP server:
//! terminal tables ([`table`]), the JSON documents that are not explorer answers ([`json`]),
//! PGN ([`pgn`]), piece-square tables as text ([`psqt`]) and the statistics reports as HTML,
//! JSON and CSV ([`report`]).

pub mod json;
pub mod pgn;
pub mod psqt;
pub mod report;
pub mod table;
