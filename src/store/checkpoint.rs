//! Consistent copies of a database, for replicas: a RocksDB checkpoint (hard links to the table
//! files where the file system allows, copies elsewhere) of a read-only view of the database,
//! which another process may be ingesting into meanwhile.
//!
//! The view holds the files of one moment; what it makes visible is the last commit before it
//! (a commit is one atomic file ingestion), and games written after that commit are above the
//! committed id, where readers do not look (a writer opening the copy removes them). If the
//! ingest deletes a file of the view (a compaction, a log file after a flush) before it is
//! linked, the checkpoint fails and is taken again from a new view.

use std::path::Path;

use rocksdb::checkpoint::Checkpoint;

use super::{Store, StoreError, Totals};

/// Views taken before a checkpoint gives up, and the pause between two: an ingest renames and
/// deletes files as it flushes, so a view may lose one before it is linked.
const ATTEMPTS: usize = 100;
const PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// Writes a consistent copy of the database at `source` into the new directory `dest` and
/// returns the totals of the commit it holds. `dest` must not exist; it is on the same file
/// system as `source` for the copy to be made of hard links.
///
/// ```
/// use tabiya::{indexer, store::{self, Store}};
///
/// let dir = tempfile::tempdir()?;
/// let pgn = dir.path().join("games.pgn");
/// std::fs::write(&pgn, "1. e4 e5 2. Nf3 1-0\n\n1. d4 d5 0-1\n")?;
/// let store = Store::open(&dir.path().join("db"))?;
/// indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver)?;
/// // The writer may stay open: the copy is taken from a read-only view.
/// let totals = store::checkpoint(&dir.path().join("db"), &dir.path().join("copy"))?;
/// assert_eq!(totals.games, 2);
/// assert_eq!(Store::open_read_only(&dir.path().join("copy"))?.totals()?, totals);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn checkpoint(source: &Path, dest: &Path) -> Result<Totals, StoreError> {
    if dest.exists() {
        let what = "the checkpoint's directory exists already: name a new one".to_owned();
        return Err(StoreError::Refused { path: dest.to_owned(), what });
    }
    let taken = on_a_view(source, |source| {
        let taken = checkpoint_once(source, dest);
        if taken.is_err() {
            let _ = std::fs::remove_dir_all(dest);
        }
        taken
    });
    taken?;
    Store::open_read_only(dest)?.totals()
}

/// `work` on a read-only view of the database at `path`, done again on a new view (up to
/// [`ATTEMPTS`] views) when RocksDB fails: a writer renames and deletes files as it flushes
/// and compacts, so a view may lose one while it is opened or used. A database that fails
/// every time is damaged; the last error says how.
pub(super) fn on_a_view<T>(path: &Path, mut work: impl FnMut(&Path) -> Result<T, StoreError>) -> Result<T, StoreError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match work(path) {
            // A file gone (or going) under the view; a damaged block is not taken again.
            Err(StoreError::Rocks { error: err, .. })
                if attempt < ATTEMPTS
                    && (err.kind() == rocksdb::ErrorKind::IOError || err.as_ref().contains("No such file")) =>
            {
                tracing::info!(attempt, %err, "taken again on a new view: the database changed under it");
                std::thread::sleep(PAUSE);
            }
            other => return other,
        }
    }
}

/// One view, one checkpoint of it.
fn checkpoint_once(source: &Path, dest: &Path) -> Result<(), StoreError> {
    let view = Store::open_read_only(source)?;
    // A read-only view has nothing to flush: no log size asks for a flush.
    Checkpoint::new(&view.db)
        .and_then(|checkpoint| checkpoint.create_checkpoint_with_log_size(dest, u64::MAX))
        .map_err(|err| view.rocks(err))
}
