//! The games of a distributed build and its last step: each batch's game records written
//! apart by a task, as SST files of the games' families ([`write_batch_games`]), and the
//! [`Assembly`] that ingests them in input order, then commits the written key ranges.

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use super::{BatchIds, GameEntry, ReadCounts};
use crate::{
    indexer::{IngestError, Summary, fail_run, finish_run, record_commit, start_run},
    model::{Fingerprint, GameFacts, GameId, GameRecord},
    store::{
        AnnotationCounts, Batch, FamilyFile, GameWrite, RunRecord, Staging, Store, StoreError, Totals, put_file_name,
        put_text, read_file_name, read_text,
    },
    varint::{get_varint, put_varint},
};

/// The name of the file holding a batch's written games' record, beside their SST files.
const GAMES_RECORD: &str = "games.written";

/// What one batch's games wrote apart ([`write_batch_games`]).
#[derive(Debug, PartialEq, Eq)]
struct GamesWritten {
    /// The ids of its first and last kept games (none kept: `None`).
    span: Option<(GameId, GameId)>,
    plies: u64,
    /// Distinct positions of each game, summed.
    positions: u64,
    /// The kept games' annotations, counted.
    annotations: AnnotationCounts,
    files: Vec<FamilyFile>,
}

impl GamesWritten {
    /// Kept games.
    fn games(&self) -> u64 {
        self.span.map_or(0, |(first, last)| last.0 - first.0 + 1)
    }

    /// The record as bytes: its files named by their names alone, all in the directory of
    /// the file the bytes are written to.
    fn to_bytes(&self) -> Result<Vec<u8>, StoreError> {
        let mut bytes = Vec::new();
        let (first, last) = self.span.map_or((0, 0), |(first, last)| (first.0, last.0));
        let a = &self.annotations;
        for number in [first, last, self.plies, self.positions, a.games, a.evaluations, a.clocks, a.move_times]
            .into_iter()
            .chain([a.malformed, self.files.len() as u64])
        {
            put_varint(&mut bytes, number);
        }
        for file in &self.files {
            put_text(&mut bytes, file.family);
            put_file_name(&mut bytes, &file.path)?;
        }
        Ok(bytes)
    }

    /// A record from [`GamesWritten::to_bytes`], its files in `dir`; why not, for other bytes
    /// (a record of games without their files, or of files without games, among them).
    fn read(mut bytes: &[u8], dir: &Path) -> Result<GamesWritten, String> {
        let input = &mut bytes;
        let mut numbers = [0; 10];
        for number in &mut numbers {
            *number = get_varint(input).ok_or_else(|| "not a record of a batch's games".to_owned())?;
        }
        let [first, last, plies, positions, games, evaluations, clocks, move_times, malformed, files] = numbers;
        let annotations = AnnotationCounts { games, evaluations, clocks, move_times, malformed };
        let span = match first {
            0 => None,
            _ if last < first => return Err(format!("games {first} to {last}")),
            _ => Some((GameId(first), GameId(last))),
        };
        // Every batch of games writes the games' own family, none without games any.
        if span.is_some() == (files == 0) {
            return Err(format!("games {first} to {last} in {files} files"));
        }
        let mut written = Vec::new();
        for _ in 0..files {
            let family = read_text(input)?;
            let family = FamilyFile::family(family).ok_or_else(|| format!("a file of the family {family:?}"))?;
            written.push(FamilyFile { family, path: read_file_name(input, dir)? });
        }
        if !input.is_empty() {
            return Err("bytes after a record of a batch's games".to_owned());
        }
        Ok(GamesWritten { span, plies, positions, annotations, files: written })
    }
}

/// Writes one batch's kept games
/// ([`PreparedBatch::games_bytes`](super::PreparedBatch::games_bytes)) under their ids `ids`
/// into `dir`, a directory of its own (a task attempt's): an SST file of each of the
/// games' families, holding what a single-machine ingest writes of them, and a record of the
/// files and the games' counts. `store` is the database the build goes into (opened
/// read-only: it gives the families' options). Returns the file holding the record, for
/// [`Assembly::add_written`].
pub fn write_batch_games(store: &Store, dir: &Path, ids: BatchIds, games: &[u8]) -> Result<PathBuf, StoreError> {
    let written_error = |err: std::io::Error| StoreError::Staging { path: dir.to_owned(), source: err };
    let mut batch = Batch::for_files(store);
    let mut written = put_batch_games(store, &mut batch, ids, games)?;
    std::fs::create_dir_all(dir).map_err(written_error)?;
    written.files = batch.write_files(dir, "games")?;
    let record = dir.join(GAMES_RECORD);
    std::fs::write(&record, written.to_bytes()?).map_err(written_error)?;
    Ok(record)
}

/// Puts one batch's kept games into `batch`, under their ids; returns their counts (no files).
fn put_batch_games(
    store: &Store,
    batch: &mut Batch<'_>,
    ids: BatchIds,
    bytes: &[u8],
) -> Result<GamesWritten, StoreError> {
    let invariant = |what: String| StoreError::Invariant { path: store.path().to_owned(), what };
    let (entries, read): (Vec<GameEntry>, usize) = bincode::decode_from_slice(bytes, bincode::config::standard())
        .map_err(|err| invariant(format!("the games of a batch do not read: {err}")))?;
    if read != bytes.len() {
        return Err(invariant("the games of a batch have bytes left over".to_owned()));
    }
    let (mut span, mut plies, mut positions) = (None, 0, 0);
    let mut annotations = AnnotationCounts::default();
    let mut kept = Vec::with_capacity(entries.len());
    for (number, entry) in entries.into_iter().enumerate() {
        let Some(id) = u32::try_from(number).ok().and_then(|number| ids.id(number)) else { continue };
        let record = GameRecord::from_parts(entry.tags, entry.result, entry.line);
        span = Some((span.map_or(id, |(first, _)| first), id));
        plies += record.plies() as u64;
        positions += entry.positions;
        annotations.add(&entry.annotation_counts);
        let annotations = (!entry.annotations.is_empty()).then_some(entry.annotations);
        kept.push((
            Fingerprint(entry.fingerprint),
            GameFacts::of(id, record.result, &record.tags),
            record,
            annotations,
        ));
    }
    let games: Vec<GameWrite<'_>> = kept
        .iter()
        .map(|(fingerprint, facts, record, annotations)| GameWrite {
            fingerprint: *fingerprint,
            facts: *facts,
            record,
            annotations: annotations.as_deref(),
        })
        .collect();
    batch.put_games(&games)?;
    Ok(GamesWritten { span, plies, positions, annotations, files: Vec::new() })
}

/// The last step of a distributed build, in one process ([`Assembly::begin`],
/// [`Assembly::add_written`] with every batch's games in input order, [`Assembly::finish`], or
/// [`Assembly::abort`] when the build fails): the games written apart are ingested, then the
/// written ranges are committed with the new totals in one atomic step and the run recorded.
pub struct Assembly {
    run: RunRecord,
    totals: Totals,
    started: Instant,
    /// Why adding games failed, if it did: the assembly can only abort.
    failed: Option<String>,
}

impl Assembly {
    /// Starts a build of `inputs` into `store` (recording the run, as an ingest does).
    pub fn begin(store: &Store, inputs: &[PathBuf]) -> Result<Assembly, StoreError> {
        let started = Instant::now();
        let run = start_run(&store.writer()?, inputs)?;
        Ok(Assembly { run, totals: store.totals()?, started, failed: None })
    }

    /// Ingests batches' games written apart (`records`, [`write_batch_games`]' files, in input
    /// order), each batch's first game following the games before it. After an error the
    /// assembly only aborts: [`Assembly::finish`] refuses to commit.
    pub fn add_written(&mut self, store: &Store, records: &[PathBuf]) -> Result<(), StoreError> {
        let added = self.read_written(store, records);
        let added = added.and_then(|(totals, annotations, files)| {
            store.writer()?.ingest_game_files(&files, GameId(self.totals.next_game_id.max(1)))?;
            Ok((totals, annotations))
        });
        match added {
            Ok((totals, annotations)) => {
                let games = totals.games - self.totals.games;
                self.run.counts.indexed += games;
                self.run.counts.annotations.add(&annotations);
                self.run.counts.positions_written += totals.position_occurrences - self.totals.position_occurrences;
                self.totals = totals;
                Ok(())
            }
            Err(err) => {
                self.failed = Some(err.to_string());
                Err(err)
            }
        }
    }

    /// The totals with the games of `records` added, their annotations counted, and their
    /// files, each record checked.
    fn read_written(
        &self,
        store: &Store,
        records: &[PathBuf],
    ) -> Result<(Totals, AnnotationCounts, Vec<FamilyFile>), StoreError> {
        let mut totals = self.totals.clone();
        let mut annotations = AnnotationCounts::default();
        let mut files = Vec::new();
        for path in records {
            let refused = |what: String| StoreError::Invariant {
                path: store.path().to_owned(),
                what: format!("the written games {}: {what}", path.display()),
            };
            let bytes = std::fs::read(path).map_err(|err| refused(err.to_string()))?;
            let written = GamesWritten::read(&bytes, path.parent().unwrap_or(Path::new("."))).map_err(refused)?;
            let next = GameId(totals.next_game_id.max(1));
            if let Some((first, last)) = written.span {
                if first != next {
                    return Err(refused(format!("its games start at id {first} where {next} is next")));
                }
                totals.next_game_id = last.0.checked_add(1).ok_or_else(|| refused(format!("a game {last}")))?;
            }
            let overflow = || refused("counts beyond any database".to_owned());
            totals.games = totals.games.checked_add(written.games()).ok_or_else(overflow)?;
            totals.plies = totals.plies.checked_add(written.plies).ok_or_else(overflow)?;
            totals.position_occurrences =
                totals.position_occurrences.checked_add(written.positions).ok_or_else(overflow)?;
            annotations.add(&written.annotations);
            files.extend(written.files);
        }
        Ok((totals, annotations, files))
    }

    /// Commits the ranges written apart (`records`,
    /// [`RangeWriter::finish`](super::RangeWriter::finish)'s files: one a range holding some
    /// position) with the new totals, then records the run with `counts`. A commit that fails
    /// (or follows games that failed to be added) records the run as failed, as a failed ingest
    /// does.
    pub fn finish(mut self, store: &Store, records: &[PathBuf], counts: &ReadCounts) -> Result<Summary, IngestError> {
        let mut skipped = counts.skipped.clone();
        skipped.sort();
        self.run.counts.games_read = counts.games_read;
        self.run.counts.duplicates = counts.duplicates;
        self.run.counts.twins = counts.twins;
        self.run.counts.skipped = skipped;
        let mut staging = None;
        let committed = match self.failed.take() {
            Some(why) => {
                let what = format!("adding the games failed ({why}): the build cannot commit");
                Err(StoreError::Invariant { path: store.path().to_owned(), what })
            }
            None => self.commit(store, records, &mut staging),
        };
        let writer = store.writer()?;
        if let Err(err) = committed {
            fail_run(&writer, staging, &mut self.run, &err);
            return Err(err.into());
        }
        let Assembly { mut run, mut totals, started, .. } = self;
        finish_run(&writer, &mut totals, &mut run)?;
        Ok(Summary { run, totals, read_errors: counts.read_errors, elapsed: started.elapsed() })
    }

    /// Commits the written ranges, the tier's files written into `staging` (kept there for
    /// a failed run's cleanup).
    fn commit(&mut self, store: &Store, records: &[PathBuf], staging: &mut Option<Staging>) -> Result<(), StoreError> {
        // No range holds a position when no game is new (as an ingest that staged nothing).
        if records.is_empty() {
            if self.totals.next_game_id != store.totals()?.next_game_id {
                let what = "new games, but no written range holds their positions".to_owned();
                return Err(StoreError::Invariant { path: store.path().to_owned(), what });
            }
            return Ok(());
        }
        let writer = store.writer()?;
        let dir = staging.insert(Staging::create(store.path())?).dir().to_owned();
        let clock = Instant::now();
        writer.commit_written(records, &mut self.totals, &dir)?;
        record_commit(&writer, &self.totals, &self.run, clock)?;
        // Committed: what is left of the staging area goes, or the next writer removes it.
        let _ = staging.take().map(Staging::remove);
        Ok(())
    }

    /// Ends a build that failed (`why`) before [`Assembly::finish`]: removes the games it wrote
    /// and records the run as failed, as a failed ingest does.
    pub fn abort(mut self, store: &Store, why: &str) {
        match store.writer() {
            Ok(writer) => fail_run(&writer, None, &mut self.run, &why),
            Err(err) => tracing::warn!("the failed build could not be recorded: {err}"),
        }
    }
}

/// A whole assembly in one call (see [`Assembly`]): `games` the batches' written games in
/// input order, `records` the written ranges'.
pub fn assemble(
    store: &Store,
    inputs: &[PathBuf],
    games: &[PathBuf],
    records: &[PathBuf],
    counts: &ReadCounts,
) -> Result<Summary, IngestError> {
    let mut assembly = Assembly::begin(store, inputs)?;
    if let Err(err) = assembly.add_written(store, games) {
        assembly.abort(store, &err.to_string());
        return Err(err.into());
    }
    assembly.finish(store, records, counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{COLUMN_FAMILIES, RunStatus};

    #[test]
    fn an_assembly_whose_games_failed_to_be_added_refuses_to_commit() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = Store::open(&dir.path().join("db")).expect("a store");
        let mut assembly = Assembly::begin(&store, &[]).expect("begun");
        let record = dir.path().join("games.written");
        std::fs::write(&record, [1, 2]).expect("written");
        let error = assembly.add_written(&store, &[record]).err();
        assert!(error.is_some_and(|error| error.to_string().contains("not a record of a batch's games")));
        let error = assembly.finish(&store, &[], &ReadCounts::default()).err();
        assert!(error.is_some_and(|error| error.to_string().contains("cannot commit")));
        let runs = store.runs().expect("runs");
        assert_eq!(runs.last().map(|run| run.status), Some(RunStatus::Failed));
    }

    fn written(dir: &Path) -> GamesWritten {
        let files = ["games", "players"]
            .into_iter()
            .map(|family| FamilyFile {
                family: FamilyFile::family(family).expect("a games' family"),
                path: dir.join(format!("games-{family}.sst")),
            })
            .collect();
        let annotations = AnnotationCounts { games: 3, evaluations: 120, clocks: 200, move_times: 7, malformed: 1 };
        GamesWritten { span: Some((GameId(5), GameId(9))), plies: 300, positions: 250, annotations, files }
    }

    #[test]
    fn a_record_of_written_games_reads_back_and_damage_is_refused_never_a_panic() {
        let dir = tempfile::tempdir().expect("a directory");
        let bytes = written(dir.path()).to_bytes().expect("bytes");
        assert_eq!(GamesWritten::read(&bytes, dir.path()), Ok(written(dir.path())));
        assert_eq!(written(dir.path()).games(), 5);
        for cut in 0..bytes.len() {
            assert!(GamesWritten::read(&bytes[..cut], dir.path()).is_err(), "{cut}");
        }
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                let _ = GamesWritten::read(&damaged, dir.path());
            }
        }
        // A file of a family that is not the games', and a name that would leave the directory.
        for family in COLUMN_FAMILIES.into_iter().filter(|&family| FamilyFile::family(family).is_none()) {
            let mut other = written(dir.path());
            other.files[1].family = family;
            let error = GamesWritten::read(&other.to_bytes().expect("bytes"), dir.path()).err();
            assert!(error.is_some_and(|error| error.contains(family)), "{family}");
        }
        let name = b"games-games.sst";
        let at = bytes.windows(name.len()).position(|window| window == name).expect("the name") - 1;
        for escaping in [&b"\x02.."[..], b"\x04../a", b"\x00"] {
            let crafted = [&bytes[..at], escaping, &bytes[at + 1 + name.len()..]].concat();
            let error = GamesWritten::read(&crafted, dir.path()).err();
            assert!(error.is_some_and(|error| error.contains("plain name")), "{escaping:?}");
        }
        // Games without files, files without games.
        for (span, files) in [(Some((GameId(5), GameId(9))), 0), (None, 2)] {
            let mut odd = written(dir.path());
            odd.span = span;
            odd.files.truncate(files);
            assert!(GamesWritten::read(&odd.to_bytes().expect("bytes"), dir.path()).is_err());
        }
    }
}
