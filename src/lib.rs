//! tabiya: a chess position database indexing engine.
//!
//! tabiya reads PGN game collections, canonicalises every position of every game, encodes each
//! into a fixed-length, exactly decodable [`Key`], and answers position searches.
//!
//! The modules, from the bottom up (each depends only on those above it in this list):
//!
//! - [`position`]: the canonical [`Position`] and its rook/castling [`Category`].
//! - [`codec`]: the 21-byte [`Key`] (memcmp-ordered, material ranges contiguous), the Huffman
//!   packed format, the two-byte move and a game's mainline in about a byte a ply. Pure: no I/O.
//! - [`model`]: the domain records: games, their facets, position statistics and how they add
//!   up.
//! - [`postings`]: posting lists (every game reaching a position), Leapfrog-packed.
//! - [`input`]: reading user files: PGN collections (split, checked, parsed, replayed into
//!   model records) and EPD/FEN lists.
//! - [`store`]: the RocksDB database: its families, options and byte layouts.
//! - [`indexer`]: ingesting collections into the store in parallel, exactly once.
//! - [`verify`]: round-tripping real positions through both codecs.
//! - [`explore`]: position search: explorer lookups with filters, game lists, material search,
//!   openings.
//! - [`psqt`]: piece-square tables derived from the stored positions, and their factorisation
//!   into bitboard components.
//! - [`report`]: self-contained HTML reports (inline SVG), with JSON and CSV forms.
//! - [`output`]: tables, JSON documents and PGN, for the command line and the server.
//! - [`server`]: the HTTP API (lichess-explorer compatible).
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

pub mod attacks;
pub mod codec;
pub mod explore;
pub mod indexer;
pub mod input;
pub mod model;
pub mod output;
pub mod pattern;
pub mod position;
pub mod postings;
pub mod psqt;
pub mod report;
pub mod server;
pub mod store;
pub mod tier;
mod varint;
pub mod verify;

pub use codec::{Key, Material};
pub use position::{Category, Position};
