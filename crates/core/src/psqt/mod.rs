//! Piece-square tables, the maths: read and written in PeSTO's CSV shape ([`PieceTables`]), fitted
//! to results (a Texel-style fit, [`fit`]), and compressed by piece-square-table factorisation
//! ([`factorise`](fn@factorise): binary bitboard components times small integer weights, found by
//! a genetic algorithm, kept in a [`PackedTables`]). Deriving them from a database is a query:
//! `explore::psqt` in the `tabiya` crate.
//!
//! ```
//! use tabiya_core::psqt::{FactoriseOptions, PieceTables, factorise, is_masked};
//!
//! let mut tables = PieceTables::default();
//! // Multiples of 8, the smallest divisor that fits every value in an i8: no rounding left.
//! tables.values = [96, 112, 296, 280, 320, 304, 496, 520, 896, 952, 0, 0];
//! for square in 48..56 {
//!     tables.squares[1][square] = 40; // endgame pawns on the 7th rank
//! }
//! let options = FactoriseOptions { components: 1, mean_adjust: false, ..FactoriseOptions::default() };
//! let found = factorise(&tables, &options);
//! // One component (the 7th rank; ranks 1 and 8 are free, since pawns never stand there) and
//! // one weight reproduce the tables exactly.
//! assert_eq!(found.packed.components[0] & 0x00ff_ffff_ffff_ff00, 0x00ff_0000_0000_0000);
//! assert_eq!(found.iterations[0].max_error, 0);
//! let (unpacked, full) = (found.packed.unpack(), tables.full_values());
//! assert!((0..768).all(|i| is_masked(i / 64, i % 64) || unpacked[i] == full[i]));
//! ```

pub mod bound;
pub mod factorise;
pub mod fit;
pub mod pack;
mod polish;
pub mod tables;

pub use factorise::{Factorisation, FactoriseOptions, Iteration, factorise};
pub use fit::{Fit, FitOptions};
pub use pack::PackedTables;
pub use tables::{GamePhase, KEPT_CELLS, PieceTables, PsqtError, TABLES, is_masked, owner_square, table_label};
