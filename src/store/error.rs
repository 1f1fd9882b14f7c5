//! Why the database could not be used: [`StoreError`].

use std::path::PathBuf;

use super::tier::TierError;

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB failed (I/O, a lock held by another writer, ...).
    #[error("{path}: {source}")]
    Rocks {
        /// The database directory.
        path: PathBuf,
        /// What RocksDB said.
        source: rocksdb::Error,
    },
    /// No database at the path.
    #[error("{path}: no tabiya database here (run `tabiya ingest` first)")]
    Missing {
        /// The directory looked at.
        path: PathBuf,
    },
    /// A database of another format version.
    #[error(
        "{path}: database format {found}, this tabiya reads format {expected}: ingest the games again into a new database"
    )]
    Format {
        /// The database directory.
        path: PathBuf,
        /// Its format version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// The staging area of an ingest could not be written or read.
    #[error("{path}: staging area: {source}")]
    Staging {
        /// The database directory.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Stored bytes that do not decode, or a reference to something missing (the data is
    /// corrupt, not the request).
    #[error("{path}: corrupt {what}")]
    DataCorruption {
        /// The database directory.
        path: PathBuf,
        /// What was found corrupt.
        what: String,
    },
    /// A broken invariant of tabiya's own code, found before it could write wrong data.
    #[error("{path}: internal error: {what} (a bug in tabiya: please report it)")]
    Invariant {
        /// The database directory.
        path: PathBuf,
        /// What was found broken.
        what: String,
    },
    /// The single-game tier could not file a commit's positions.
    #[error("{path}: {source}")]
    Tier {
        /// The database directory.
        path: PathBuf,
        /// What failed.
        source: TierError,
    },
}

impl StoreError {
    /// Whether stored data is damaged (bytes that do not decode, or RocksDB finding a table
    /// file corrupt), rather than the database unusable for another reason.
    pub fn is_corruption(&self) -> bool {
        match self {
            StoreError::DataCorruption { .. } | StoreError::Tier { source: TierError::Corrupt(_), .. } => true,
            StoreError::Rocks { source, .. } => source.kind() == rocksdb::ErrorKind::Corruption,
            _ => false,
        }
    }
}
