//! Why the database could not be used: [`StoreError`].

use std::path::{Path, PathBuf};

use super::tier::TierError;

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB failed (I/O, a lock held by another writer, ...).
    #[error("{}", rocks_message(path, error))]
    Rocks {
        /// The database directory.
        path: PathBuf,
        /// What RocksDB said (shown in the message, so not a separate cause).
        error: rocksdb::Error,
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
    /// A request the database cannot do as asked, the user's to change (a checkpoint into a
    /// directory that exists).
    #[error("{path}: {what}")]
    Refused {
        /// The path the request named.
        path: PathBuf,
        /// What to change.
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
    /// The same error again, for a second part of a query that met it (an I/O error's source
    /// cannot be copied: its kind and message are).
    pub(crate) fn again(&self) -> StoreError {
        match self {
            StoreError::Rocks { path, error } => StoreError::Rocks { path: path.clone(), error: error.clone() },
            StoreError::Missing { path } => StoreError::Missing { path: path.clone() },
            StoreError::Format { path, found, expected } => {
                StoreError::Format { path: path.clone(), found: *found, expected: *expected }
            }
            StoreError::Staging { path, source } => StoreError::Staging {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            StoreError::DataCorruption { path, what } => {
                StoreError::DataCorruption { path: path.clone(), what: what.clone() }
            }
            StoreError::Refused { path, what } => StoreError::Refused { path: path.clone(), what: what.clone() },
            StoreError::Invariant { path, what } => StoreError::Invariant { path: path.clone(), what: what.clone() },
            StoreError::Tier { path, source } => {
                let source = match source {
                    TierError::Corrupt(what) => TierError::Corrupt(what.clone()),
                    TierError::Capacity(what) => TierError::Capacity(what.clone()),
                    TierError::Internal(what) => TierError::Internal(what.clone()),
                };
                StoreError::Tier { path: path.clone(), source }
            }
        }
    }

    /// Whether stored data is damaged (bytes that do not decode, or RocksDB finding a table
    /// file corrupt), rather than the database unusable for another reason.
    pub fn is_corruption(&self) -> bool {
        match self {
            StoreError::DataCorruption { .. } | StoreError::Tier { source: TierError::Corrupt(_), .. } => true,
            StoreError::Rocks { error, .. } => error.kind() == rocksdb::ErrorKind::Corruption,
            _ => false,
        }
    }
}

/// RocksDB's message for `path`, said once: RocksDB repeats a status's name ("Corruption:
/// Corruption: IO error: ..."), and names a second writer's lock by its file.
fn rocks_message(path: &Path, error: &rocksdb::Error) -> String {
    let text = error.as_ref();
    if error.kind() == rocksdb::ErrorKind::IOError && text.contains("lock") && text.contains("LOCK") {
        return format!(
            "{}: another tabiya process is writing this database (an ingest, or a build's assembly); \
             wait for it to end ({})",
            path.display(),
            text.trim()
        );
    }
    let mut said = text.trim();
    while let Some(rest) = said.strip_prefix("Corruption: ").filter(|rest| rest.starts_with("Corruption: ")) {
        said = rest;
    }
    format!("{}: {}", path.display(), said.split_whitespace().collect::<Vec<_>>().join(" "))
}
