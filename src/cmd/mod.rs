//! One module per subcommand: argument struct + `run`.

pub mod args;
pub mod check;
pub mod checkpoint;
pub mod demo;
pub mod games;
pub mod ingest;
pub mod key;
pub mod openings;
pub mod psqt;
pub mod query;
pub mod report;
pub mod search;
pub mod serve;
pub mod stats;
