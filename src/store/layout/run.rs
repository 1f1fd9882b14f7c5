//! A staged sorted run's bytes (a plain file in the staging area, not a RocksDB record).
//!
//! The run's base game id (u64 little-endian), then per [`Occurrence`] record, in strictly
//! increasing (key, game, move) order:
//!
//! ```text
//! shared   1 byte   bytes of key shared with the previous record's (0 to 21; 0 where a
//!                   reader may start: the first record and every sampled one)
//! suffix   21 − shared bytes of the key
//! game     varint   the game id minus the base
//! move     2 bytes  the next move's CompactMove bits, little-endian (0: the game ended there)
//! files    2 bytes  the position's pawn files (PawnFiles), little-endian
//! ply      varint   the ply it first reached the position with this move, times two, plus
//!                   one when notes follow
//! notes             what the game's annotations said there (layout::notes), if any
//! ```

use crate::{
    codec::{CompactMove, KEY_LEN, Key},
    model::{GameId, PlyNotes},
    store::{
        layout::notes::{get_notes, put_notes},
        tier::PawnFiles,
        write::Occurrence,
    },
    varint::{get_varint, put_varint},
};

/// Bytes of a run file's header (its base game id).
pub const HEADER_LEN: usize = std::mem::size_of::<u64>();

/// Most bytes a varint takes.
const VARINT_MAX: usize = 10;

/// Most bytes a record takes: the prefix length, a whole key, a game offset, a move, pawn
/// files, a ply and notes (varints of up to ten bytes, as the reader accepts them).
pub const RECORD_MAX: usize = 1 + KEY_LEN + VARINT_MAX + 2 * std::mem::size_of::<u16>() + VARINT_MAX + NOTES_MAX;

/// Most bytes notes take: the flags, two evaluations and a time.
const NOTES_MAX: usize = 1 + 3 * VARINT_MAX;

/// A run file's header: its base game id.
pub fn header(base: GameId) -> [u8; HEADER_LEN] {
    base.0.to_le_bytes()
}

/// The base game id of a run file's header.
pub fn read_header(bytes: [u8; HEADER_LEN]) -> GameId {
    GameId(u64::from_le_bytes(bytes))
}

/// Appends the record of `key` and `occurrence`, sharing `shared` bytes of key with the
/// previous record, its game counted from `base`; `None` for a game before `base`.
pub fn write_record(key: &Key, occurrence: &Occurrence, shared: usize, base: GameId, out: &mut Vec<u8>) -> Option<()> {
    let offset = occurrence.game.0.checked_sub(base.0)?;
    out.push(shared as u8);
    out.extend_from_slice(&key.as_bytes()[shared..]);
    put_varint(out, offset);
    out.extend_from_slice(&occurrence.next.map_or(0, CompactMove::bits).to_le_bytes());
    out.extend_from_slice(&occurrence.pawn_files.0.to_le_bytes());
    let noted = !occurrence.notes.is_empty();
    put_varint(out, u64::from(occurrence.ply) << 1 | u64::from(noted));
    if noted {
        put_notes(out, &occurrence.notes);
    }
    Some(())
}

/// Reads a record from `input` into `key` (which holds the previous record's key, or anything
/// when `fresh`); `None` unless it is whole and valid: a shared prefix of at most a key (0 when
/// `fresh`), a game id not 0, move bits 0 or a move's, a ply that fits.
pub fn read_record(input: &mut &[u8], key: &mut [u8; KEY_LEN], fresh: bool, base: GameId) -> Option<Occurrence> {
    let (&shared, rest) = input.split_first()?;
    let shared = usize::from(shared);
    if shared > KEY_LEN || (fresh && shared > 0) {
        return None;
    }
    let (suffix, rest) = rest.split_at_checked(KEY_LEN - shared)?;
    key[shared..].copy_from_slice(suffix);
    *input = rest;
    let game = GameId(base.0.checked_add(get_varint(input)?)?);
    let (bits, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    let next = match u16::from_le_bytes(*bits) {
        0 => None,
        bits => Some(CompactMove::from_bits(bits)?),
    };
    let (files, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    let pawn_files = PawnFiles(u16::from_le_bytes(*files));
    let ply_and_noted = get_varint(input)?;
    let ply = u32::try_from(ply_and_noted >> 1).ok()?;
    let notes = match ply_and_noted & 1 {
        0 => PlyNotes::default(),
        _ => get_notes(input).filter(|notes| !notes.is_empty())?,
    };
    (game.0 != 0).then_some(Occurrence { game, next, ply, pawn_files, notes })
}
