//! The piece-square report: the tables (fitted from a database, or read from a file), where
//! pieces stand and how their owners score (from a database), and the tables' factorisation
//! (rendered by [`crate::render::report::psqt`]).

use serde::Serialize;

use crate::{
    explore::psqt::Derived,
    psqt::{Factorisation, PieceTables},
};

/// What the report shows.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PsqtReport {
    /// Where the tables came from (a file, or a database and its filters).
    pub source: String,
    /// The tables factorised.
    pub tables: PieceTables,
    /// The database statistics, when the tables were derived.
    pub derived: Option<Derived>,
    /// The factorisation of `tables`.
    pub factorisation: Factorisation,
}
