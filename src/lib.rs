//! tabiya: a chess position database indexing engine.
//!
//! tabiya reads PGN game collections, canonicalises every position of every game, encodes each
//! into a fixed-length, exactly decodable [`Key`], and answers position searches.
//!
//! - [`position`]: the canonical [`Position`] and its rook/castling [`Category`].
//! - [`codec`]: the 21-byte [`Key`] (memcmp-ordered, material ranges contiguous) and the Huffman
//!   packed format.
//! - [`ingest`]: reading user files: PGN collections (split, parsed, replayed) and EPD/FEN lists.
//! - [`store`]: the RocksDB database: positions, games, fingerprints, meta.
//! - [`indexer`]: ingesting collections into the store in parallel, exactly once.
//! - [`postings`]: posting lists (every game reaching a position), Leapfrog-packed.
//! - [`explore`]: position search: explorer answers with filters, material search, openings.
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

pub mod codec;
pub mod explore;
pub mod indexer;
pub mod ingest;
pub mod position;
pub mod postings;
pub mod server;
pub mod store;
pub mod varint;

pub use codec::{Key, Material};
pub use position::{Category, Position};
