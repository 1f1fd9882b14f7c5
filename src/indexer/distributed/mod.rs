//! An ingest spread over machines: the parts of [`ingest`](super::ingest) that can run apart,
//! for a cluster scheduler (the Python package's Spark job) to place, giving the database a
//! single-machine ingest of the same files gives.
//!
//! 1. **Split** ([`read_batches`]): each input into pieces of up to [`BATCH_GAMES`] raw games
//!    (only reading a compressed stream is sequential); the scheduler, knowing every piece's
//!    count, cuts the batches one machine cuts, across files, from slices of them
//!    ([`batch_plan`]).
//! 2. **Prepare** ([`PreparedBatch::prepare`]): parse, replay and key each batch's games (on any
//!    machine), drop its copies and games stored already, order them as they get ids; its games
//!    ([`PreparedBatch::games_bytes`]) and position occurrences (written as a file of the
//!    shared work directory, [`PreparedBatch::write_occurrences`], `occurrences.rs`) are
//!    numbered in the batch, since ids are not known yet.
//! 3. **Ids**: the scheduler drops duplicates across batches (the first in input order stays;
//!    [`later_twins`]), or for a build that skips twins, duplicates and twins (`twins.rs`,
//!    [`skipped_twins`]), and gives each batch its first id, a prefix sum of the kept counts in
//!    input order ([`BatchIds`]): the ids a single-machine ingest gives.
//! 4. **Ranges** ([`RangeWriter`], `ranges.rs`): the occurrences are cut into the key ranges a
//!    single-machine commit of the same positions cuts, more for a larger build ([`range_count`],
//!    [`commit_pivots`](crate::store::commit_pivots)); each range's task reads its part of every
//!    batch's file ([`occurrences_in_range`]) and writes what a commit writes of it: its
//!    positions' SST files and its single-game tier records, summed with the database's stored
//!    positions; the new games' facts
//!    ([`kept_facts`]) go to every range.
//! 5. **Games** ([`write_batch_games`]): each batch's game records written as SST files of the
//!    games' families (on any machine, once the batch has its ids).
//! 6. **Assemble** ([`Assembly`], [`assemble`]): one process ingests the games' files in
//!    input order, gathers the ranges' tier marks, and ingests every range's files with the
//!    new totals in one atomic step.

mod games;
mod occurrences;
mod ranges;
mod twins;

use std::{
    ops::Range,
    path::{Path, PathBuf},
};

use bincode::{Decode, Encode};
use rustc_hash::FxHashSet;

pub use games::{Assembly, assemble, write_batch_games};
pub use occurrences::{RESTART_EVERY, occurrence_parts, occurrences_in_range, write_occurrences};
pub use ranges::{RANGE_OCCURRENCES, RUN_BYTES, RangeWriter, range_count};
pub use twins::{Skipped, kept_bound_keys, skipped_twins, twin_parts};

use super::{
    BATCH_GAMES, FileChunk, Prepared, PreparedGame, SortedOccurrences, batch::mainline_order, copies::Copies,
    prepare::prepare_chunk, read_chunks,
};
use crate::{
    codec::Key,
    input::{InputError, InputKind, RawGame, Rejection, Source},
    model::{Fingerprint, GameId, GameResult, Mainline, Tags},
    store::{AnnotationCounts, facts_records, pack_facts},
    varint::{get_varint, put_varint},
};

/// Reads the PGN file `path` (plain or compressed) piece by piece (each [`BATCH_GAMES`] games,
/// fewer at the end), handing each piece's raw games to `send`, then the error that stopped
/// reading early, if any. Returns `false` when `send` stopped it.
pub fn read_batches(path: &Path, send: impl FnMut(Result<Vec<RawGame>, InputError>) -> bool) -> bool {
    batches_of(path, Source::open(path, Some(InputKind::Pgn)), send)
}

/// [`read_batches`] of a file fetched by other means (from a cluster's file system) and named
/// by `name` (its URL, whose suffix says how it is compressed) in what is reported: its bytes,
/// or a local copy.
pub fn read_fetched_batches(
    name: &Path,
    fetched: Fetched,
    send: impl FnMut(Result<Vec<RawGame>, InputError>) -> bool,
) -> bool {
    let raw: Result<Box<dyn std::io::Read + Send>, InputError> = match fetched {
        Fetched::Bytes(bytes) => Ok(bytes),
        Fetched::Copy(copy) => match std::fs::File::open(&copy) {
            Ok(file) => Ok(Box::new(file)),
            // Named by its URL, the copy's path said.
            Err(err) => Err(InputError::Open {
                path: name.to_owned(),
                source: std::io::Error::new(err.kind(), format!("its copy {}: {err}", copy.display())),
            }),
        },
    };
    batches_of(name, raw.and_then(|raw| Source::from_reader(name, raw, Some(InputKind::Pgn))), send)
}

/// Where a file fetched from a cluster's file system is.
pub enum Fetched {
    /// Its bytes, in memory (a cursor over them).
    Bytes(Box<dyn std::io::Read + Send>),
    /// A local copy.
    Copy(PathBuf),
}

fn batches_of(
    name: &Path,
    source: Result<Source, InputError>,
    mut send: impl FnMut(Result<Vec<RawGame>, InputError>) -> bool,
) -> bool {
    // The split is the only work of its task: its file is decompressed on a thread of its own.
    let source = match source {
        Ok(source) => source.read_ahead(),
        Err(error) => return send(Err(error)),
    };
    read_chunks(name, source.reader, BATCH_GAMES, &mut 0, |chunk| match chunk {
        FileChunk::Games { games, .. } => games.is_empty() || send(Ok(games)),
        FileChunk::Stopped(error) => send(Err(error)),
    })
}

/// Raw games as bytes, to ship between machines ([`decode_raw_games`] reads them): a zstd
/// frame (at a fast level: a batch is written once and read once, and a file system shared
/// by a cluster holds a month of PGN this way) of each game's number, line and text.
pub fn encode_raw_games(games: &[RawGame]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(games.iter().map(|game| game.text.len() + 12).sum());
    for game in games {
        put_varint(&mut out, game.number);
        put_varint(&mut out, game.line);
        put_varint(&mut out, game.text.len() as u64);
        out.extend_from_slice(&game.text);
    }
    zstd::bulk::compress(&out, BATCH_LEVEL)
}

/// zstd's level for shipped batches: 2.7 times smaller than the PGN (players), at several
/// hundred MB/s.
const BATCH_LEVEL: i32 = 1;

/// The raw games [`encode_raw_games`] wrote; `None` for bytes it did not write.
pub fn decode_raw_games(bytes: &[u8]) -> Option<Vec<RawGame>> {
    let plain = zstd::stream::decode_all(bytes).ok()?;
    let mut bytes = plain.as_slice();
    let mut games = Vec::new();
    while !bytes.is_empty() {
        let number = get_varint(&mut bytes)?;
        let line = get_varint(&mut bytes)?;
        let length = usize::try_from(get_varint(&mut bytes)?).ok()?;
        let (text, rest) = bytes.split_at_checked(length)?;
        games.push(RawGame { number, line, text: text.to_vec() });
        bytes = rest;
    }
    Some(games)
}

/// One game slice of a batch: games `games` (numbered from 0) of piece `piece`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The piece's place among all the pieces of a build's inputs, in input order.
    pub piece: usize,
    /// Its games in the batch.
    pub games: Range<usize>,
}

/// The batches a single-machine ingest cuts from inputs whose pieces ([`read_batches`], in
/// input order, read errors left out) hold `piece_games` games: every [`BATCH_GAMES`] games of
/// the stream they make, each as the slices of the pieces it takes.
///
/// ```
/// use tabiya::indexer::{BATCH_GAMES, distributed::{Slice, batch_plan}};
///
/// // Two small files, then one of a batch and a half.
/// let plan = batch_plan(&[10, 20, BATCH_GAMES, BATCH_GAMES / 2]);
/// assert_eq!(plan.len(), 2);
/// assert_eq!(plan[0][2], Slice { piece: 2, games: 0..BATCH_GAMES - 30 });
/// assert_eq!(plan[1][0], Slice { piece: 2, games: BATCH_GAMES - 30..BATCH_GAMES });
/// assert_eq!(plan[1].iter().map(|slice| slice.games.len()).sum::<usize>(), BATCH_GAMES / 2 + 30);
/// ```
pub fn batch_plan(piece_games: &[usize]) -> Vec<Vec<Slice>> {
    let mut batches = Vec::new();
    let mut batch: Vec<Slice> = Vec::new();
    let mut in_batch = 0;
    for (piece, &games) in piece_games.iter().enumerate() {
        let mut from = 0;
        while from < games {
            let to = games.min(from + BATCH_GAMES - in_batch);
            batch.push(Slice { piece, games: from..to });
            in_batch += to - from;
            from = to;
            if in_batch == BATCH_GAMES {
                batches.push(std::mem::take(&mut batch));
                in_batch = 0;
            }
        }
    }
    if !batch.is_empty() {
        batches.push(batch);
    }
    batches
}

/// One batch prepared on its own.
pub struct PreparedBatch {
    /// Games read, whatever became of them.
    pub games_read: u64,
    /// Games skipped: their place in the raw games prepared, and their text as in the file.
    pub rejected: Vec<(usize, Rejection, Vec<u8>)>,
    /// Games dropped as duplicates: stored already, or copies of a game read before them in the
    /// batch.
    pub duplicates: u64,
    /// The batch's other games, in the order they get ids; their `facts.id` is their number
    /// in the batch, from 1.
    games: Vec<PreparedGame>,
    /// Each game's place among the batch's games as read (what twins are decided by).
    read_order: Vec<u32>,
    /// Their occurrences.
    sorted: SortedOccurrences,
}

/// What [`PreparedBatch::games_bytes`] holds of a game.
#[derive(Encode, Decode)]
struct GameEntry {
    fingerprint: [u8; 16],
    tags: Tags,
    result: GameResult,
    line: Mainline,
    /// Its annotations' code (empty: none).
    annotations: Vec<u8>,
    /// The distinct positions it reaches (the totals count them).
    positions: u64,
    /// Its annotations, counted (the run's record sums them).
    annotation_counts: AnnotationCounts,
}

impl PreparedBatch {
    /// Parses, replays and keys `raw` (one batch, as [`batch_plan`] cuts it) on every core;
    /// `stored` says whether a fingerprint is in the database the batch goes into.
    pub fn prepare(raw: Vec<RawGame>, stored: impl Fn(&Fingerprint) -> bool + Sync) -> PreparedBatch {
        let games_read = raw.len() as u64;
        // Chunk by chunk as ingest prepares them, so that verbatim copies cost no parse here
        // either (a batch of one player's file holds copies of its earlier games).
        // A batch's own table: across batches, a copy of a game skipped as a twin is a twin.
        let mut copies = Copies::with_room(raw.len());
        let mut prepared: Vec<Prepared> = Vec::with_capacity(raw.len());
        let mut raw = raw.into_iter();
        loop {
            let chunk: Vec<RawGame> = raw.by_ref().take(super::CHUNK_GAMES).collect();
            if chunk.is_empty() {
                break;
            }
            prepared.extend(prepare_chunk(chunk, Some(&mut copies), &stored));
        }
        let mut batch = PreparedBatch {
            games_read,
            rejected: Vec::new(),
            duplicates: 0,
            games: Vec::with_capacity(prepared.len()),
            read_order: Vec::new(),
            sorted: SortedOccurrences::default(),
        };
        // Copies in the order read, the first staying (as an ingest's batch finds them), each
        // game's place as read held in its id until the games are in id order.
        let mut seen = FxHashSet::default();
        for (at, item) in prepared.into_iter().enumerate() {
            match item {
                Prepared::Game(mut game) if seen.insert(game.fingerprint) => {
                    game.facts.id = GameId(at as u64);
                    batch.games.push(*game);
                }
                Prepared::Game(_) | Prepared::Stored => batch.duplicates += 1,
                Prepared::Rejected { rejection, raw } => batch.rejected.push((at, rejection, raw)),
            }
        }
        mainline_order(&mut batch.games);
        batch.read_order = batch.games.iter().map(|game| game.facts.id.0 as u32).collect();
        for (index, game) in batch.games.iter_mut().enumerate() {
            game.facts.id = GameId(index as u64 + 1);
        }
        batch.sorted.sort(&batch.games);
        batch
    }

    /// The kept games' fingerprints, in order.
    pub fn fingerprints(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.games.iter().map(|game| game.fingerprint)
    }

    /// The kept games' position occurrences (in [`PreparedBatch::write_occurrences`]'s file):
    /// summed over a build's batches, what [`range_count`] cuts ranges for.
    pub fn occurrence_count(&self) -> u64 {
        self.sorted.len() as u64
    }

    /// The kept games' facts, in order (the facts family's records, [`pack_facts`]): what the
    /// ranges of the build need of its new games ([`kept_facts`]).
    pub fn facts_bytes(&self) -> Vec<u8> {
        pack_facts(self.games.iter().map(|game| &game.facts))
    }

    /// The kept games as [`write_batch_games`] writes them.
    pub fn games_bytes(&self) -> Vec<u8> {
        let mut positions = vec![0u64; self.games.len()];
        let mut previous = None;
        for (key, occurrence) in self.sorted.iter(&self.games) {
            if previous != Some((key, occurrence.game)) {
                positions[(occurrence.game.0 - 1) as usize] += 1;
            }
            previous = Some((key, occurrence.game));
        }
        let entries: Vec<GameEntry> = self
            .games
            .iter()
            .zip(positions)
            .map(|(game, positions)| GameEntry {
                fingerprint: game.fingerprint.0,
                tags: game.record.tags.clone(),
                result: game.record.result,
                line: game.record.line().clone(),
                annotations: game.annotations.clone().unwrap_or_default(),
                positions,
                annotation_counts: game.annotation_counts,
            })
            .collect();
        bincode::encode_to_vec(entries, bincode::config::standard()).unwrap_or_default()
    }

    /// Writes the kept games' position occurrences, in (key, game, move) order, as the
    /// occurrences file `path` ([`write_occurrences`]; a game is its number in the batch from 1),
    /// which range tasks read their parts of ([`occurrences_in_range`]).
    pub fn write_occurrences(&self, path: &Path) -> std::io::Result<()> {
        write_occurrences(path, self.sorted.iter(&self.games))
    }

    /// The distinct keys of its occurrences that are candidate bounds of key ranges (about one
    /// in a thousand, chosen by the key alone): a sample to cut a build's ranges from.
    pub fn bound_keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> =
            self.sorted.iter(&self.games).map(|(key, _)| key).filter(crate::store::is_range_bound).collect();
        keys.dedup();
        keys
    }
}

/// The ids of one batch's games: from `first` on, in order, but for the games `dropped` (their
/// numbers in the batch, from 0, ascending: duplicates of games in earlier batches, and twins
/// in a build that skips them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchIds {
    /// The id of its first kept game.
    pub first: GameId,
    /// Numbers of dropped games, ascending.
    pub dropped: Vec<u32>,
}

impl BatchIds {
    /// The id of game `number` of the batch, `None` when it is dropped (or when the ids are
    /// not a batch's: dropped numbers repeated, ids past the last).
    pub fn id(&self, number: u32) -> Option<GameId> {
        let before = self.dropped.partition_point(|&dropped| dropped < number);
        match self.dropped.get(before) {
            Some(&dropped) if dropped == number => None,
            _ => self.first.0.checked_add(u64::from(number))?.checked_sub(before as u64).map(GameId),
        }
    }
}

/// The facts of every kept game of a build's batches, in id order: each batch's
/// ([`PreparedBatch::facts_bytes`]) without its dropped games, batches in input order; `None`
/// when a batch's bytes are not whole records.
pub fn kept_facts<'a>(batches: impl IntoIterator<Item = (&'a BatchIds, &'a [u8])>) -> Option<Vec<u8>> {
    let mut kept = Vec::new();
    for (ids, bytes) in batches {
        for (number, record) in facts_records(bytes)?.iter().enumerate() {
            if ids.id(u32::try_from(number).ok()?).is_some() {
                kept.extend_from_slice(record);
            }
        }
    }
    Some(kept)
}

/// Bytes of a fingerprint record of [`fingerprint_parts`]: the fingerprint, the batch's place
/// in input order (big-endian), the game's number in its batch (big-endian).
const FINGERPRINT_RECORD: usize = 16 + 8 + 4;

/// A batch's fingerprints ([`PreparedBatch::fingerprints`], 16 bytes each) cut into `parts`
/// parts by fingerprint, as records naming the batch by its place in input order (`order`):
/// `(part, bytes)` for each part holding some, for a shuffle that finds duplicates across
/// batches ([`later_twins`]). `None` when the bytes are not whole fingerprints.
pub fn fingerprint_parts(fingerprints: &[u8], order: u64, parts: usize) -> Option<Vec<(usize, Vec<u8>)>> {
    if !fingerprints.len().is_multiple_of(16) || parts == 0 {
        return None;
    }
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); parts];
    for (number, fingerprint) in fingerprints.chunks_exact(16).enumerate() {
        let part = (u64::from_be_bytes(fingerprint[..8].try_into().ok()?) % parts as u64) as usize;
        out[part].extend_from_slice(fingerprint);
        out[part].extend_from_slice(&order.to_be_bytes());
        out[part].extend_from_slice(&(number as u32).to_be_bytes());
    }
    Some(out.into_iter().enumerate().filter(|(_, bytes)| !bytes.is_empty()).collect())
}

/// The games of one part's fingerprint records (several [`fingerprint_parts`] outputs) that
/// have a twin earlier in input order: (the batch's place, the game's number), ascending.
pub fn later_twins(records: &[&[u8]]) -> Option<Vec<(u64, u32)>> {
    let mut all: Vec<&[u8]> = Vec::new();
    for bytes in records {
        if !bytes.len().is_multiple_of(FINGERPRINT_RECORD) {
            return None;
        }
        all.extend(bytes.chunks_exact(FINGERPRINT_RECORD));
    }
    // By fingerprint, then input order: each fingerprint's first record stays.
    all.sort_unstable();
    let mut twins: Vec<(u64, u32)> = all
        .windows(2)
        .filter(|pair| pair[0][..16] == pair[1][..16])
        .filter_map(|pair| {
            let record = pair[1];
            let order = u64::from_be_bytes(record[16..24].try_into().ok()?);
            Some((order, u32::from_be_bytes(record[24..28].try_into().ok()?)))
        })
        .collect();
    twins.sort_unstable();
    Some(twins)
}

/// What a distributed build read, counted over all its batches (the run record's counts;
/// [`assemble`] counts the games it indexes).
#[derive(Clone, Debug, Default)]
pub struct ReadCounts {
    /// Games read.
    pub games_read: u64,
    /// Duplicates dropped: within batches, across them, and of stored games.
    pub duplicates: u64,
    /// Twins skipped (a build that skips them, as `tabiya ingest --skip-twins`).
    pub twins: u64,
    /// Games skipped, by reason ([`RejectReason::name`](crate::input::RejectReason::name)).
    pub skipped: Vec<(String, u64)>,
    /// Inputs that could not be read to their end.
    pub read_errors: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_cuts_the_stream_of_pieces_every_batch_as_a_naive_count_does() {
        let cases: [&[usize]; 6] = [
            &[],
            &[0, 0],
            &[1],
            &[BATCH_GAMES],
            &[BATCH_GAMES, 3, BATCH_GAMES, BATCH_GAMES - 3, 0, 7],
            &[5_000, 5_000, 5_000, 5_000, BATCH_GAMES, 1, BATCH_GAMES - 1, 2],
        ];
        for pieces in cases {
            // Each game as (piece, number in it), batched by counting.
            let stream: Vec<(usize, usize)> =
                pieces.iter().enumerate().flat_map(|(piece, &games)| (0..games).map(move |n| (piece, n))).collect();
            let naive: Vec<Vec<(usize, usize)>> = stream.chunks(BATCH_GAMES).map(<[_]>::to_vec).collect();
            let plan = batch_plan(pieces);
            let planned: Vec<Vec<(usize, usize)>> = plan
                .iter()
                .map(|batch| batch.iter().flat_map(|slice| slice.games.clone().map(|n| (slice.piece, n))).collect())
                .collect();
            assert_eq!(planned, naive, "{pieces:?}");
            assert!(plan.iter().flatten().all(|slice| !slice.games.is_empty()), "{pieces:?}");
        }
    }
}
