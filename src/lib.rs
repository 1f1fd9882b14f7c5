//! tabiya: a chess position database indexing engine.
//!
//! tabiya reads PGN game collections, canonicalises every position of every game, encodes each
//! into a fixed-length, exactly decodable [`Key`], and answers position searches. The folders are
//! the architecture (docs/ARCHITECTURE.md walks one game from file to answer); the stored bytes
//! are docs/FORMAT.md's ([`format`](mod@format)).
//!
//! Chess and data, without a database: the `tabiya-core` crate (`crates/core`), re-exported here
//! module by module (each depends only on those above it):
//!
//! - [`position`]: the canonical [`Position`] and its rook/castling [`Category`].
//! - [`codec`]: the 21-byte [`Key`] (memcmp-ordered, material ranges contiguous), the Huffman
//!   packed format, the two-byte move and a game's mainline in about a byte a ply.
//! - [`model`]: the domain records: games, their facets, position statistics and how they add
//!   up.
//! - [`postings`]: posting lists (every game reaching a position), Leapfrog-packed.
//! - [`pattern`]: the pattern language, evaluated with vector attacks on a 0x88 board.
//! - [`psqt`]: piece-square tables: their CSV form, the Texel fit, the factorisation into
//!   bitboard components.
//!
//! Reading user files:
//!
//! - [`input`]: PGN collections (split, checked, parsed, replayed into model records) and
//!   EPD/FEN lists.
//!
//! The database and what runs on it:
//!
//! - [`store`]: the RocksDB database: opening it, its typed read views over one snapshot, the
//!   writer, its families, options and byte layouts.
//! - [`indexer`]: ingesting collections into the store in parallel, exactly once.
//! - [`explore`]: queries: explorer lookups with filters, game lists, material and pattern
//!   search, piece-square statistics; scans split into parts that separate processes or
//!   machines compute and one merges ([`explore::distributed`]).
//! - [`export`]: Polyglot opening books and position exports (EPD, CSV).
//! - [`report`]: the statistics reports, as data.
//! - [`render`]: tables, JSON documents, PGN and the reports as HTML and CSV.
//! - [`server`]: the HTTP API (lichess-explorer compatible) and the explorer page.
//!
//! ```
//! use tabiya::{Key, Position};
//!
//! let position: Position = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".parse()?;
//! let key = Key::encode(&position)?;
//! assert_eq!(key.decode()?, position);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

use tabiya_core::varint;
pub use tabiya_core::{codec, model, pattern, position, postings, psqt};

pub mod explore;
pub mod export;
pub mod indexer;
pub mod input;
pub mod render;
pub mod report;
pub mod server;
pub mod store;

pub use codec::{Key, Material};
pub use position::{Category, Position};

#[doc = include_str!("../docs/FORMAT.md")]
pub mod format {}
