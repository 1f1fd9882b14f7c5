//! The single-game tier (storage v2, in progress): positions reached by exactly one game, once,
//! kept without their keys.
//!
//! 19.5M of the 20.3M distinct positions of the players collection are such positions (19.7M
//! are reached by one game; a game repeats the rest). As full keys in a sorted table they cost
//! about 17 bytes each before any value; here each costs a short hash and its game's id (about
//! 3.5 bytes), and a bit among its game's plies:
//!
//! * [`HashIndex`]: the [`HASH_BITS`]-bit hash of every tier position's key with its game, as an
//!   Elias–Fano sequence of hashes beside a packed array of game ids. A lookup gets the
//!   candidate games of a key's hash;
//! * [`PlyMarks`]: per game, one bit per position of its mainline, set for tier positions.
//!
//! A lookup replays each candidate game and keys its marked positions: a hash collision costs a
//! replay, never a wrong answer. Scans enumerate the tier by replaying games, which also gives
//! each position's board without decoding a key.
//!
//! Not yet wired into ingest and the readers: `tools/tier_budget.rs` builds the tier from a
//! database and measures its bytes and lookups.

mod hash_index;
mod ply_marks;

pub use hash_index::HashIndex;
pub use ply_marks::PlyMarks;

use sucds::Serializable;

use crate::{
    Position,
    codec::{Key, KeyEncoder},
    model::{GameId, GameRecord, replay},
};

/// Bits of a key's hash in the [`HashIndex`]: with 19.5M positions, a key not in the tier meets
/// 0.073 candidate games on average (measured), and the hashes cost 7.2 bits a position.
pub const HASH_BITS: u32 = 28;

/// The tier's hash of a key: the top [`HASH_BITS`] bits of its xxh3-64.
pub fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()) >> (64 - HASH_BITS)
}

/// The keys of the positions of `record`'s mainline at `plies` (ascending; ply 0 is the start
/// position), by replaying it; `None` if the record does not replay or a position does not key.
pub fn keys_at(record: &GameRecord, plies: &[u32]) -> Option<Vec<(u32, Key)>> {
    let mut encoder = KeyEncoder::default();
    let positions = replay(record)?;
    plies
        .iter()
        .map(|&ply| {
            let chess = positions.get(ply as usize)?.clone();
            Some((ply, encoder.encode(&Position::from_chess(chess).ok()?).ok()?))
        })
        .collect()
}

/// Where the tier holds `key`: its game and ply, found among the candidates of its hash by
/// `keys_of` (the keys of a game's marked plies, see [`keys_at`]); also how many games were
/// replayed. `None` when the key is not in the tier.
pub fn locate<E>(
    key: &Key,
    index: &HashIndex,
    mut keys_of: impl FnMut(GameId) -> Result<Vec<(u32, Key)>, E>,
) -> Result<(Option<(GameId, u32)>, usize), E> {
    let mut replayed = 0;
    let mut previous = None;
    for game in index.candidates(key_hash(key)) {
        // A game holding several positions of this hash is replayed once.
        if previous.replace(game) == Some(game) {
            continue;
        }
        replayed += 1;
        if let Some(&(ply, _)) = keys_of(game)?.iter().find(|(_, found)| found == key) {
            return Ok((Some((game, ply)), replayed));
        }
    }
    Ok((None, replayed))
}

/// Why tier bytes could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum TierError {
    /// Bytes that do not hold a tier structure.
    #[error("corrupt tier: {0}")]
    Corrupt(String),
    /// Input a structure cannot hold.
    #[error("tier input: {0}")]
    Input(String),
}

impl TierError {
    fn corrupt(err: impl std::fmt::Display) -> TierError {
        TierError::Corrupt(err.to_string())
    }
}

/// Appends two structures to `out` as one checked section ([`write_section`]).
fn write_parts<A: Serializable, B: Serializable>(a: &A, b: &B, out: &mut Vec<u8>) -> Result<(), TierError> {
    let mut bytes = Vec::with_capacity(a.size_in_bytes() + b.size_in_bytes());
    a.serialize_into(&mut bytes).map_err(TierError::corrupt)?;
    b.serialize_into(&mut bytes).map_err(TierError::corrupt)?;
    write_section(&bytes, out);
    Ok(())
}

/// Takes two structures [`write_parts`] wrote from the front of `input`.
fn read_parts<A: Serializable, B: Serializable>(input: &mut &[u8]) -> Result<(A, B), TierError> {
    let mut section = read_section(input)?;
    let a = A::deserialize_from(&mut section).map_err(TierError::corrupt)?;
    let b = B::deserialize_from(&mut section).map_err(TierError::corrupt)?;
    Ok((a, b))
}

/// Appends `bytes` to `out` as a checked section: its length (u64 little-endian), the bytes and
/// their xxh3-64 (little-endian), so that damaged bytes are refused before they are decoded.
fn write_section(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(bytes).to_le_bytes());
}

/// Takes a section [`write_section`] wrote from the front of `input`.
fn read_section<'a>(input: &mut &'a [u8]) -> Result<&'a [u8], TierError> {
    let short = || TierError::Corrupt("section cut short".to_owned());
    let (length, rest) = input.split_first_chunk::<8>().ok_or_else(short)?;
    let length = usize::try_from(u64::from_le_bytes(*length)).map_err(|_| short())?;
    if rest.len() < length.saturating_add(8) {
        return Err(short());
    }
    let (bytes, rest) = rest.split_at(length);
    let (sum, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
    if u64::from_le_bytes(*sum) != xxhash_rust::xxh3::xxh3_64(bytes) {
        return Err(TierError::Corrupt("checksum mismatch".to_owned()));
    }
    *input = rest;
    Ok(bytes)
}
