//! What a build spread over machines writes apart from the database: a [`Batch`] gathered by
//! another process (a task) written as one SST file per family ([`Batch::for_files`],
//! [`Batch::write_files`]), which the writing process ingests before its commit
//! ([`Writer::ingest_game_files`](super::Writer::ingest_game_files)); and the names of such
//! files in the records tasks hand on. The games' families are the same whether written into
//! the database or ingested: what a batch puts, sorted, the last put of a key kept.
//!
//! Only the games' families are written so (games, mainlines, annotations, facts, headers, labels,
//! fingerprints, players, names, twins): positions and their totals go through the commit,
//! runs and openings through the writer. Ingested games sit above the committed
//! `next_game_id` until the commit, as written ones do (exactly once, see `commit.rs`).

use std::path::{Component, Path, PathBuf};

use super::batch::{Batch, Writes};
use crate::{
    model::GameId,
    store::{
        Store, StoreError,
        options::{self, GAMES_FAMILIES},
    },
    varint::{get_varint, put_varint},
};

/// An SST file of one family, written apart ([`Batch::write_files`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyFile {
    /// The family (one of the games' families).
    pub family: &'static str,
    /// The file.
    pub path: PathBuf,
}

impl FamilyFile {
    /// The games' family named `name`, else `None`.
    pub fn family(name: &str) -> Option<&'static str> {
        GAMES_FAMILIES.iter().copied().find(|&family| family == name)
    }
}

/// Ingests files written apart ([`Batch::write_files`]) holding the games from `first` on,
/// family by family, the games' own first: a writer removes what a failed run left only when it
/// finds games there (`discard_uncommitted`), so that no fingerprint or player entry is ingested
/// without its game. Files of a family may overlap one another (the name-keyed families': they
/// go to level 0); each family that got some is then compacted over the new entries, so that a
/// build of many batches leaves files of the family's size, not one a batch, and no pile of
/// level-0 files for the commit's flush to wait on. Refused for a family that is not one of the
/// games'.
pub(super) fn ingest_game_files(store: &Store, files: &[FamilyFile], first: GameId) -> Result<(), StoreError> {
    if let Some(other) = files.iter().find(|file| FamilyFile::family(file.family).is_none()) {
        return Err(store.invariant(format!(
            "{}: a file of the family {}, not one of the games'",
            other.path.display(),
            other.family
        )));
    }
    for family in GAMES_FAMILIES {
        let paths: Vec<&Path> =
            files.iter().filter(|file| file.family == family).map(|file| file.path.as_path()).collect();
        let Some(one) = paths.first() else { continue };
        let what = format!("{} files of the family {family} (the first {})", paths.len(), one.display());
        let cf = store.cf(family);
        store
            .db
            .ingest_external_file_cf_opts(cf, &options::ingest_options(), paths)
            .map_err(|err| store.invariant(format!("{what}: {err}")))?;
        match ID_KEYED.contains(&family) {
            // The new ids sort after every stored one: only the new files are rewritten.
            true => store.db.compact_range_cf_opt(cf, Some(first.to_bytes()), None::<&[u8]>, &options::compact_apart()),
            false => store.db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>),
        }
    }
    Ok(())
}

/// The games' families keyed by game id: their files written apart cover disjoint ids.
const ID_KEYED: [&str; 5] =
    [options::GAMES, options::MAINLINES, options::ANNOTATIONS, options::FACTS, options::HEADERS];

/// Writes `path`'s file name into a record of files written apart (a length, then the bytes),
/// for [`read_file_name`] to read in the directory of the record.
pub(crate) fn put_file_name(bytes: &mut Vec<u8>, path: &Path) -> Result<(), StoreError> {
    let name = path.file_name().and_then(|name| name.to_str()).ok_or_else(|| StoreError::Invariant {
        path: path.to_owned(),
        what: "a file written apart without a name".to_owned(),
    })?;
    put_text(bytes, name);
    Ok(())
}

/// Reads a file name [`put_file_name`] wrote, as a path in `dir`: refused unless it is a plain
/// name (never a path that leaves `dir`).
pub(crate) fn read_file_name(input: &mut &[u8], dir: &Path) -> Result<PathBuf, String> {
    let name = read_text(input)?;
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(part)), None) if part == name => Ok(dir.join(name)),
        _ => Err(format!("a file name that is not a plain name: {name:?}")),
    }
}

/// Writes a text with its length.
pub(crate) fn put_text(bytes: &mut Vec<u8>, text: &str) {
    put_varint(bytes, text.len() as u64);
    bytes.extend_from_slice(text.as_bytes());
}

/// Reads a text [`put_text`] wrote.
pub(crate) fn read_text<'a>(input: &mut &'a [u8]) -> Result<&'a str, String> {
    let short = || "a record cut short".to_owned();
    let length = usize::try_from(get_varint(input).ok_or_else(short)?).map_err(|_| short())?;
    let (text, rest) = input.split_at_checked(length).ok_or_else(short)?;
    *input = rest;
    std::str::from_utf8(text).map_err(|_| "a text that is not UTF-8".to_owned())
}

impl<'a> Batch<'a> {
    /// Starts a batch of writes gathered for SST files another process ingests
    /// ([`Batch::write_files`]): a task of a build spread over machines writes its games so,
    /// from the database opened read-only (which gives the families' options).
    pub fn for_files(store: &'a Store) -> Batch<'a> {
        Batch { store, writes: Writes::Files(Default::default()) }
    }

    /// Writes a batch gathered for files ([`Batch::for_files`]) into `dir`, an SST file a
    /// family it wrote (`STEM-FAMILY.sst`), for
    /// [`Writer::ingest_game_files`](super::Writer::ingest_game_files); refused for a batch of
    /// the database, or one that wrote beyond the games' families.
    pub fn write_files(self, dir: &Path, stem: &str) -> Result<Vec<FamilyFile>, StoreError> {
        let store = self.store;
        let Writes::Files(families) = self.writes else {
            return Err(store.invariant("a batch of the database written to files"));
        };
        if families.keys().any(|family| FamilyFile::family(family).is_none()) {
            return Err(store.invariant("a batch written to files holds more than games"));
        }
        let mut files = Vec::with_capacity(families.len());
        for (family, mut entries) in families {
            // Sorted as a file must be, the last put of a key kept (as a write batch keeps it).
            entries.reverse();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, earlier| later.0 == earlier.0);
            let path = dir.join(format!("{stem}-{family}.sst"));
            let options = options::family_sst(family, &store.cache);
            let mut writer = super::sst_writer(store, &options, &path)?;
            for (key, value) in &entries {
                writer.put(key, value).map_err(|err| store.rocks(err))?;
            }
            writer.finish().map_err(|err| store.rocks(err))?;
            files.push(FamilyFile { family, path });
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        model::{GameFacts, GameRecord, GameResult, Tags},
        store::write::batch::Entry,
    };

    fn record(white: &str) -> GameRecord {
        let tags = Tags { white: white.to_owned(), black: "Black, B".to_owned(), ..Tags::default() };
        GameRecord::new(tags, GameResult::WhiteWins, None, (Vec::new(), 0))
    }

    /// The same writes, into the database or apart then ingested, give the same entries.
    #[test]
    fn a_batch_written_apart_and_ingested_holds_what_a_written_one_holds() {
        let dir = tempfile::tempdir().expect("a directory");
        let written = Store::open(&dir.path().join("written")).expect("a store");
        let ingested = Store::open(&dir.path().join("ingested")).expect("a store");
        let fill = |batch: &mut Batch<'_>| {
            let games: Vec<(GameId, GameRecord)> = (1..=3)
                .map(|id| (GameId(id), record(["Carlsen, M", "Anand, V", "Carlsen, M"][id as usize - 1])))
                .collect();
            for (id, game) in &games {
                batch.put_game(*id, game, None);
            }
            let facts: Vec<GameFacts> =
                games.iter().map(|(id, game)| GameFacts::of(*id, game.result, &game.tags)).collect();
            batch.put_facts_run(&facts).expect("consecutive");
            batch.put_players(games.iter().map(|(id, game)| (*id, game.tags.white.as_str(), game.tags.black.as_str())));
        };
        let mut batch = written.writer().expect("a writer").batch();
        fill(&mut batch);
        batch.commit().expect("written");
        let mut batch = Batch::for_files(&ingested);
        fill(&mut batch);
        let files = batch.write_files(dir.path(), "batch").expect("files");
        let families: Vec<&str> = files.iter().map(|file| file.family).collect();
        assert_eq!(families, [options::FACTS, options::GAMES, options::MAINLINES, options::NAMES, options::PLAYERS]);
        ingested.writer().expect("a writer").ingest_game_files(&files, GameId(1)).expect("ingested");
        for family in GAMES_FAMILIES {
            let entries = |store: &Store| -> Vec<Entry> {
                let iter = store.db.iterator_cf(store.cf(family), rocksdb::IteratorMode::Start);
                iter.map(|entry| entry.expect("an entry")).map(|(key, value)| (key.into(), value.into())).collect()
            };
            assert_eq!(entries(&ingested), entries(&written), "{family}");
        }
        // A batch of the database is not written to files, nor one holding positions.
        assert!(written.writer().expect("a writer").batch().write_files(dir.path(), "no").is_err());
        let mut batch = Batch::for_files(&ingested);
        batch.put_totals(&Default::default());
        assert!(batch.write_files(dir.path(), "no").is_err());
        let positions = FamilyFile { family: options::POSITIONS, path: dir.path().join("x.sst") };
        assert!(ingested.writer().expect("a writer").ingest_game_files(&[positions], GameId(1)).is_err());
    }
}
