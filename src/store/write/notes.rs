//! A commit's position notes: for each position it writes to the full-key family that an
//! annotated game reaches, its games' notes and, past [`SUMMED_FROM`] of them, their sums
//! (`layout::notes`), built from the
//! staged occurrences' notes and the notes it had (a later commit's), in two files of the range
//! that sort after its positions. A position of the single-game tier keeps no notes of its own:
//! its one game's annotations give them when it is read.

use std::path::{Path, PathBuf};

use super::{Occurrence, sst_writer};
use crate::{
    codec::{Key, KeyDecoder},
    model::{NoteEntry, NoteSums, PlyNotes},
    store::{
        Store, StoreError,
        layout::{
            keys::{NOTE_GAMES, NOTE_SUMS, note_key},
            notes::{decode_entries, encode_entries, encode_sums},
        },
        options,
        read::games::Games,
        tier::TierHit,
    },
};
use rocksdb::{Options, SstFileWriter};

/// Entries up to which a position's notes have no record of sums (readers sum its entries).
pub const SUMMED_FROM: usize = 64;

/// The notes of one commit range, written as its positions are.
pub(super) struct NoteFiles<'o> {
    dir: PathBuf,
    index: usize,
    options: &'o Options,
    /// The sums' file and the entries' file, each opened at its first record.
    writers: [Option<SstFileWriter<'o>>; 2],
    files: Vec<PathBuf>,
    decoder: KeyDecoder,
}

impl<'o> NoteFiles<'o> {
    /// The notes of range `index`, to be written in `dir` with `options`.
    pub(super) fn new(dir: &Path, index: usize, options: &'o Options) -> NoteFiles<'o> {
        NoteFiles {
            dir: dir.to_owned(),
            index,
            options,
            writers: [None, None],
            files: Vec::new(),
            decoder: KeyDecoder::default(),
        }
    }

    /// Writes the notes of position `key` (positions in increasing key order), whose new
    /// occurrences are `group`: with its stored notes when it was `stored` in the full-key
    /// family, and its tier game's when it leaves the tier (`promoted`). Nothing when no new
    /// game (or tier game) has notes: the stored ones hold.
    pub(super) fn add(
        &mut self,
        store: &Store,
        key: &Key,
        group: &[Occurrence],
        stored: bool,
        promoted: Option<&TierHit>,
    ) -> Result<(), StoreError> {
        let mut added = new_entries(group);
        let tier_game = match promoted {
            Some(hit) => Games::at(store, store.committed()).tier_note(hit)?,
            None => None,
        };
        if added.is_empty() && tier_game.is_none() {
            return Ok(());
        }
        let mut entries = match stored {
            true => stored_entries(store, key)?,
            false => Vec::new(),
        };
        // Every new game's id is above the stored ones' and the tier game's.
        entries.extend(tier_game);
        entries.append(&mut added);
        let corrupt = |err| store.corrupt(format!("position key {key}: {err}"));
        let (_, _, mover) = self.decoder.pawns_and_turn(key).map_err(corrupt)?;
        // Few entries are summed when read: a record of sums would cost more than it saves.
        if entries.len() > SUMMED_FROM {
            let sums = NoteSums::of_entries(entries.iter(), mover);
            self.put(store, 0, &note_key(NOTE_SUMS, key), &encode_sums(&sums))?;
        }
        self.put(store, 1, &note_key(NOTE_GAMES, key), &encode_entries(&entries))
    }

    /// Writes a record into file `which` (0 the sums', 1 the entries'), opened at its first.
    fn put(&mut self, store: &Store, which: usize, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let writer = match self.writers[which].take() {
            Some(writer) => writer,
            None => {
                let kind = ["sums", "notes"][which];
                let path = self.dir.join(format!("range-{:03}-{kind}.sst", self.index));
                let writer = sst_writer(store, self.options, &path)?;
                self.files.push(path);
                writer
            }
        };
        self.writers[which].insert(writer).put(key, value).map_err(|err| store.rocks(err))
    }

    /// Closes the files; their paths (none when no position had notes).
    pub(super) fn finish(self, store: &Store) -> Result<Vec<PathBuf>, StoreError> {
        for mut writer in self.writers.into_iter().flatten() {
            writer.finish().map_err(|err| store.rocks(err))?;
        }
        Ok(self.files)
    }
}

/// Whether any of a position's new occurrences carries notes (or it leaves the tier, whose
/// game may have some): whether [`NoteFiles::add`] has anything to do.
pub(super) fn may_note(group: &[Occurrence], promoted: bool) -> bool {
    promoted || group.iter().any(|occurrence| !occurrence.notes.is_empty())
}

/// The noted occurrences of `group` (in (game, move) order) as entries, each game's first
/// arrival (its lowest ply there) marked.
fn new_entries(group: &[Occurrence]) -> Vec<NoteEntry> {
    let mut entries = Vec::new();
    for game in group.chunk_by(|a, b| a.game == b.game) {
        let first = game.iter().map(|occurrence| occurrence.ply).min();
        for occurrence in game.iter().filter(|occurrence| !occurrence.notes.is_empty()) {
            let notes = PlyNotes { first: Some(occurrence.ply) == first, ..occurrence.notes };
            entries.push(NoteEntry { game: occurrence.game, next: occurrence.next, notes });
        }
    }
    entries
}

/// The stored entries of position `key` (none when it has none).
fn stored_entries(store: &Store, key: &Key) -> Result<Vec<NoteEntry>, StoreError> {
    let cf = store.cf(options::POSITIONS);
    let found = store.db.get_pinned_cf(cf, note_key(NOTE_GAMES, key)).map_err(|err| store.rocks(err))?;
    match found {
        Some(bytes) => decode_entries(&bytes).ok_or_else(|| store.corrupt(format!("notes of position {key}"))),
        None => Ok(Vec::new()),
    }
}
