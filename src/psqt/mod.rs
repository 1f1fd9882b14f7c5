//! Piece-square tables: read and written in PeSTO's CSV shape ([`PieceTables`]), derived from a
//! database ([`derive`]: occupancy frequencies, scores and a Texel-style fit), and compressed
//! the way seed 003 describes ([`factorise`]: binary bitboard components times small integer
//! weights, found by a genetic algorithm, kept in a [`PackedTables`]).
//!
//! ```
//! use tabiya::psqt::{FactoriseOptions, PieceTables, factorise};
//!
//! let mut tables = PieceTables::default();
//! tables.values = [100, 110, 300, 280, 320, 300, 500, 520, 900, 950, 0, 0];
//! for square in 0..64 {
//!     tables.squares[1][square] = if square / 8 == 6 { 40 } else { 0 }; // endgame pawns on the 7th
//! }
//! let options = FactoriseOptions { components: 1, generations: 2_000, ..FactoriseOptions::default() };
//! let found = factorise(&tables, &options);
//! // One component (the 7th rank) and one weight reproduce the table exactly.
//! assert_eq!(found.iterations[0].max_error, 0);
//! assert_eq!(found.packed.unpack(), tables.full_values());
//! ```

pub mod bound;
pub mod derive;
pub mod factorise;
pub mod fit;
pub mod pack;
pub mod tables;

pub use derive::{DeriveOptions, Derived, Occupancy};
pub use factorise::{Factorisation, FactoriseOptions, Iteration, factorise};
pub use fit::{Fit, FitOptions};
pub use pack::PackedTables;
pub use tables::{GamePhase, PieceTables, PsqtError, TABLES, is_masked, table_label};
