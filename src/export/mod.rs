//! Exports: the database's positions in the formats other tools read.
//!
//! - [`BookOptions`]: a Polyglot opening book (`.bin`), the tree of the moves played often
//!   enough from a root, weighed as Polyglot's `make-book` weighs them;
//! - [`PositionExport`]: distinct positions with their statistics, streamed as EPD (training
//!   data for evaluation tuning), CSV or Parquet.

mod book;
mod positions;

pub use book::{Book, BookEntry, BookOptions, BookWeight, ENTRY_LEN, polyglot_key, polyglot_move};
pub use positions::{ExportError, ExportSummary, PARQUET_ROWS, PositionExport, PositionFormat};
