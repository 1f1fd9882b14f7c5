//! Writing the single-game tier: what a commit files there (each new position a single new game
//! reaches once: a mark on the game's ply, and its key, block and game in the range's
//! [`GameMap`]) and the SST files it writes for it, ingested with the commit's positions.

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use rustc_hash::FxHashMap;

use super::{GameMap, TierError, block_in};
use crate::{
    codec::{Key, KeyError, KeyRange},
    model::GameId,
    store::{
        Store, StoreError,
        layout::{
            keys::{map_key, marks_key},
            tier::{MAX_PLY, encode_marks, read_segment_head, write_segment_head},
        },
        options,
        write::Occurrence,
    },
    varint::{get_varint, put_varint},
};

/// Plies a game's marks hold in the commit's bit table; later plies (rare) are listed apart.
const TABLE_PLIES: u32 = 256;
/// Words of the bit table per game.
const TABLE_WORDS: usize = (TABLE_PLIES / u64::BITS) as usize;

/// Records of a tier file, in key order (`None` deletes).
type Records = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// What a commit adds to the tier: its new entries' marks, each range's map, and the stored tier
/// positions it moved to the full-key family.
pub(crate) struct TierWrites {
    /// The commit's first game id (its segment's name).
    segment: GameId,
    /// [`TABLE_WORDS`] words of bits per new game, from `segment` on; empty when the commit's
    /// ranges are written apart ([`TierWrites::apart`]).
    table: Vec<AtomicU64>,
    /// Whether each range lists its own new marks ([`RangeTier`]'s `marks`), for ranges written
    /// by different processes: a table per range would take its bits for every new game.
    apart: bool,
    /// New entries past the table's plies.
    late: std::sync::Mutex<Vec<(GameId, u32)>>,
}

/// What one range of a commit adds to the tier.
#[derive(Default)]
pub(crate) struct RangeTier {
    /// The range's first key (`None`: from the first key): a look-up probes only the range
    /// of its key.
    lower: Option<Key>,
    /// Each new entry's key, block and game, until [`RangeTier::finish`] maps them.
    entries: Vec<(Key, u64, GameId)>,
    /// The keys of the last entry's material (keys come in key order: one material after
    /// another).
    material: Option<KeyRange>,
    /// The map record's bytes (the first key, then the [`GameMap`]), once finished.
    segment: Vec<u8>,
    /// Stored entries moved to the full-key family.
    pub promoted: Vec<(GameId, u32)>,
    /// The range's new entries (game, ply) when it is written apart from the commit's others.
    marks: Vec<(GameId, u32)>,
}

impl TierWrites {
    /// Room for the games of a commit from `segment` to `end` (exclusive).
    pub fn new(segment: GameId, end: u64) -> TierWrites {
        let games = end.saturating_sub(segment.0) as usize;
        let words = games * TABLE_WORDS;
        let table = (0..words).map(|_| AtomicU64::new(0)).collect();
        TierWrites { segment, table, apart: false, late: Default::default() }
    }

    /// For the ranges of a commit from `segment` on written apart (by different processes): each
    /// lists its new marks in its [`RangeTier`], and the commit marks them in its own table as
    /// it reads the ranges' records ([`RangeTier::read`]).
    pub fn apart(segment: GameId) -> TierWrites {
        TierWrites { segment, table: Vec::new(), apart: true, late: Default::default() }
    }

    /// Files `key`, first reached by new game `game` at `ply` (with the pawn files staged with
    /// it) and by no other game, in the tier.
    pub fn add(&self, range: &mut RangeTier, key: &Key, occurrence: &Occurrence) -> Result<(), TierError> {
        let Occurrence { game, ply, pawn_files, .. } = *occurrence;
        match self.apart {
            true => range.marks.push((game, ply)),
            false => self.mark(game, ply).map_err(|_| {
                TierError::Internal(format!("staged game {game} of position {key} is not one of the commit's"))
            })?,
        }
        // A staged key is one the commit's own encoder wrote: one without a block is a bug.
        let material =
            range.material_of(key).map_err(|err| TierError::Internal(format!("staged position {key}: {err}")))?;
        range.entries.push((*key, block_in(&material.first, pawn_files), game));
        Ok(())
    }

    /// Marks ply `ply` of new game `game` in the table; `Err` for a game not of the commit.
    fn mark(&self, game: GameId, ply: u32) -> Result<(), ()> {
        let index = game.0.checked_sub(self.segment.0).and_then(|index| usize::try_from(index).ok()).ok_or(())?;
        if index >= self.table.len() / TABLE_WORDS || ply >= MAX_PLY {
            return Err(());
        }
        if ply < TABLE_PLIES {
            let word = &self.table[index * TABLE_WORDS + (ply / u64::BITS) as usize];
            word.fetch_or(1 << (ply % u64::BITS), Ordering::Relaxed);
        } else {
            self.late.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((game, ply));
        }
        Ok(())
    }

    /// The marked plies of each new game, ascending by game.
    pub(crate) fn new_marks(&self) -> Vec<(GameId, Vec<u32>)> {
        let mut late = std::mem::take(&mut *self.late.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        late.sort_unstable();
        // Ranges written apart may name a late ply twice (a damaged record): once is a mark.
        late.dedup();
        let mut marks = Vec::new();
        for (index, game_words) in self.table.chunks(TABLE_WORDS).enumerate() {
            let game = GameId(self.segment.0 + index as u64);
            let mut plies = Vec::new();
            for (at, word) in game_words.iter().enumerate() {
                let mut bits = word.load(Ordering::Relaxed);
                while bits != 0 {
                    plies.push(at as u32 * u64::BITS + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            let first = late.partition_point(|(g, _)| *g < game);
            let last = late.partition_point(|(g, _)| *g <= game);
            plies.extend(late[first..last].iter().map(|(_, ply)| *ply));
            if !plies.is_empty() {
                marks.push((game, plies));
            }
        }
        marks
    }
}

/// Appends (game, ply) `entries` as a checked section: by game and ply, each the game's gap from
/// the one before and the ply, as varints.
fn write_entries(entries: &[(GameId, u32)], out: &mut Vec<u8>) {
    let mut sorted = entries.to_vec();
    sorted.sort_unstable();
    let mut bytes = Vec::with_capacity(sorted.len() * 3);
    let mut previous = 0;
    for (game, ply) in sorted {
        put_varint(&mut bytes, game.0 - previous);
        put_varint(&mut bytes, u64::from(ply));
        previous = game.0;
    }
    super::write_section(&bytes, out);
}

/// Hands `each` the entries of a section [`write_entries`] wrote, from the front of `input`.
fn read_entries(
    input: &mut &[u8],
    mut each: impl FnMut(GameId, u32) -> Result<(), TierError>,
) -> Result<(), TierError> {
    let corrupt = || TierError::Corrupt("a range's tier entries do not read".to_owned());
    let mut section = super::read_section(input)?;
    let mut previous = 0u64;
    while !section.is_empty() {
        let gap = get_varint(&mut section).ok_or_else(corrupt)?;
        let ply = get_varint(&mut section).and_then(|ply| u32::try_from(ply).ok()).ok_or_else(corrupt)?;
        previous = previous.checked_add(gap).ok_or_else(corrupt)?;
        each(GameId(previous), ply)?;
    }
    Ok(())
}

impl RangeTier {
    /// What the commit range from `lower` on (`None`: from the first key) adds, with room for
    /// `entries` new entries.
    pub fn new(lower: Option<Key>, entries: usize) -> RangeTier {
        RangeTier { lower, entries: Vec::with_capacity(entries), ..RangeTier::default() }
    }

    /// The range of keys of `key`'s (category, material), found again only when a key leaves
    /// the last one.
    fn material_of(&mut self, key: &Key) -> Result<KeyRange, KeyError> {
        if let Some(material) = self.material
            && material.contains(key)
        {
            return Ok(material);
        }
        let (material, _) = key.material_block()?;
        self.material = Some(material);
        Ok(material)
    }

    /// Appends a finished range's records to `out`, to hand them from the process that wrote
    /// the range to the one that commits ([`RangeTier::read`] reads them): its first key, its
    /// map record, the stored entries it promoted and its new entries.
    pub fn write(&self, out: &mut Vec<u8>) {
        debug_assert!(self.entries.is_empty(), "a range's records written before finish");
        write_segment_head(self.lower.as_ref(), out);
        super::write_section(&self.segment, out);
        write_entries(&self.promoted, out);
        write_entries(&self.marks, out);
    }

    /// Reads a range's records [`RangeTier::write`] wrote from the front of `input`, its new
    /// entries marked in `commit`'s table as they are read (never held as a list).
    pub fn read(input: &mut &[u8], commit: &TierWrites) -> Result<RangeTier, TierError> {
        let corrupt = |what: &str| TierError::Corrupt(format!("a range's tier records: {what}"));
        let lower = read_segment_head(input).ok_or_else(|| corrupt("no first key"))?;
        let segment = super::read_section(input)?.to_vec();
        let mut promoted = Vec::new();
        // A promoted entry is a stored game's, before the commit's new ones.
        read_entries(input, |game, ply| {
            if game >= commit.segment || ply >= MAX_PLY {
                return Err(corrupt(&format!("ply {ply} of game {game} promoted, not a stored game's")));
            }
            promoted.push((game, ply));
            Ok(())
        })?;
        read_entries(input, |game, ply| {
            commit.mark(game, ply).map_err(|()| corrupt(&format!("ply {ply} of game {game}, not a new game's")))
        })?;
        Ok(RangeTier { lower, segment, promoted, ..RangeTier::default() })
    }

    /// Closes the range: its map built (in the range's worker, so that only the map's bytes
    /// wait for the commit's tier files).
    pub fn finish(&mut self) -> Result<(), TierError> {
        if !self.entries.is_empty() {
            let map = GameMap::build(std::mem::take(&mut self.entries))?;
            write_segment_head(self.lower.as_ref(), &mut self.segment);
            map.write(&mut self.segment)?;
        }
        Ok(())
    }
}

impl TierWrites {
    /// Writes the tier records of the commit into SST files of `store` in `dir`, in parallel:
    /// the marks of its new games and of the stored games it took positions from, and each
    /// range's map. Returns the files written, in key order.
    pub(crate) fn write_files(
        &self,
        store: &Store,
        ranges: &mut [RangeTier],
        dir: &Path,
    ) -> Result<Vec<PathBuf>, StoreError> {
        let writes = self;
        let mut maps = Vec::new();
        let count = ranges.len();
        for (index, range) in ranges.iter_mut().enumerate() {
            let index = u16::try_from(index)
                .map_err(|_| store.tier_error(TierError::Capacity(format!("{count} commit ranges"))))?;
            if !range.segment.is_empty() {
                maps.push((map_key(writes.segment, index), Some(std::mem::take(&mut range.segment))));
            }
        }
        let compressed = options::family_sst(options::POSITIONS, &store.cache);
        let raw = options::tier_maps_sst(&store.cache);
        let write = |name: &str, records: Records, options: &rocksdb::Options| {
            let path = dir.join(name);
            write_records(store, records, options, &path).map(|written| written.then_some(path))
        };
        let (marks, maps) = rayon::join(
            || marks_records(store, writes, ranges).and_then(|records| write("tier-marks.sst", records, &compressed)),
            || write("tier-maps.sst", maps, &raw),
        );
        Ok([marks?, maps?].into_iter().flatten().collect())
    }
}

/// The marks records of a commit, by game: the stored games that lost positions to the
/// full-key family (their marks without them, or deleted), then the new games.
fn marks_records(store: &Store, writes: &TierWrites, ranges: &[RangeTier]) -> Result<Records, StoreError> {
    let mut records = Vec::new();
    let mut promoted: FxHashMap<GameId, Vec<u32>> = FxHashMap::default();
    for range in ranges {
        for &(game, ply) in &range.promoted {
            promoted.entry(game).or_default().push(ply);
        }
    }
    let mut promoted: Vec<(GameId, Vec<u32>)> = promoted.into_iter().collect();
    promoted.sort_unstable_by_key(|(game, _)| *game);
    let ids: Vec<GameId> = promoted.iter().map(|(game, _)| *game).collect();
    let tier = super::read::TierReader::at(store, store.committed());
    let stored: FxHashMap<GameId, Vec<u32>> = tier.marks_of(&ids)?.into_iter().collect();
    for (game, gone) in promoted {
        let kept: Vec<u32> =
            stored.get(&game).into_iter().flatten().copied().filter(|ply| !gone.contains(ply)).collect();
        let value = (!kept.is_empty()).then(|| {
            let mut bytes = Vec::new();
            encode_marks(&kept, &mut bytes);
            bytes
        });
        records.push((marks_key(game), value));
    }
    for (game, plies) in writes.new_marks() {
        let mut bytes = Vec::new();
        encode_marks(&plies, &mut bytes);
        records.push((marks_key(game), Some(bytes)));
    }
    Ok(records)
}

/// Writes `records` (in key order; `None` deletes) into a new SST file at `path`; `false`
/// (no file) when there are none.
fn write_records(store: &Store, records: Records, options: &rocksdb::Options, path: &Path) -> Result<bool, StoreError> {
    if records.is_empty() {
        return Ok(false);
    }
    let mut writer = crate::store::write::sst_writer(store, options, path)?;
    for (key, value) in records {
        match value {
            Some(value) => writer.put(&key, &value),
            None => writer.delete(&key),
        }
        .map_err(|err| store.rocks(err))?;
    }
    writer.finish().map_err(|err| store.rocks(err))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::{Position, store::tier::PawnFiles};

    fn key(fen: &str) -> Key {
        Key::encode(&fen.parse::<Position>().expect("a position")).expect("a key")
    }

    /// A range's records read back as written: its first key, map and promoted entries; its new
    /// entries marked in the commit's table; stored games' entries only as promoted ones.
    #[test]
    fn a_ranges_records_read_back() {
        let writes = TierWrites::apart(GameId(10));
        let mut range = RangeTier::new(Some(key("4k3/8/8/8/8/8/8/4K2R w K - 0 1")), 0);
        for (fen, game, ply) in [
            ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 11, 7),
            ("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", 12, 400),
            ("4k3/8/8/8/8/3P4/8/4K3 w - - 0 1", 11, 9),
        ] {
            let pawn_files = PawnFiles::of(fen.parse::<Position>().expect("a position").board());
            let occurrence = Occurrence { game: GameId(game), next: None, ply, pawn_files, notes: Default::default() };
            writes.add(&mut range, &key(fen), &occurrence).expect("filed");
        }
        range.promoted.extend([(GameId(3), 5), (GameId(1), 2)]);
        range.finish().expect("finished");
        let mut bytes = Vec::new();
        range.write(&mut bytes);
        let commit = TierWrites::new(GameId(10), 13);
        let read = RangeTier::read(&mut bytes.as_slice(), &commit).expect("read back");
        assert_eq!(read.lower, range.lower);
        assert_eq!(read.segment, range.segment);
        assert!(!read.segment.is_empty());
        assert_eq!(read.promoted, [(GameId(1), 2), (GameId(3), 5)]);
        assert_eq!(commit.new_marks(), [(GameId(11), vec![7, 9]), (GameId(12), vec![400])]);
        // A commit whose first new game is 3: game 3's entry is no stored game's to promote.
        let error = RangeTier::read(&mut bytes.as_slice(), &TierWrites::new(GameId(3), 13)).err();
        assert!(error.is_some_and(|error| error.to_string().contains("ply 5 of game 3 promoted")));
    }
}
