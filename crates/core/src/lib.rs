//! tabiya's chess and data layers: everything about positions, games and their encodings that
//! needs no database and no I/O. The `tabiya` crate re-exports each module under the same name
//! (`tabiya_core::codec`, `tabiya_core::model`, …) and builds the database and the queries on them; this
//! crate cannot name them, so the compiler keeps the layering.
//!
//! Each depends only on those above it:
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
//! - [`varint`]: LEB128 varints, as the stored layouts use them.
//!
//! ```
//! use tabiya_core::{Key, Position};
//!
//! let position: Position = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".parse()?;
//! let key = Key::encode(&position)?;
//! assert_eq!(key.decode()?, position);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod codec;
pub mod model;
pub mod pattern;
pub mod position;
pub mod postings;
pub mod psqt;
pub mod varint;

pub use codec::{Key, Material};
pub use position::{Category, Position};
