//! The single-game tier's structures: positions reached by exactly one game kept without their
//! keys (how the database stores and reads them: `crate::store`'s tier module).
//!
//! Nearly all of the 19.7M positions of the players collection that one game reaches (of 20.3M)
//! are such positions. As full keys in a sorted table they cost about 17 bytes each before any
//! value; here each costs a short hash and its game's id (about 3.1 bytes), and a mark among
//! its game's plies (kept by the store):
//!
//! * [`HashIndex`]: the [`HASH_BITS`]-bit hash of every tier position's key with its game, as an
//!   Elias–Fano sequence of hashes beside a packed array of game ids. A lookup gets the
//!   candidate games of a key's hash, replays each to its marked plies and keys those
//!   positions: a hash collision costs a replay, never a wrong answer.

mod hash_index;

pub use hash_index::HashIndex;

use crate::codec::Key;

/// Bits of a key's hash in the [`HashIndex`]: with 19.5M positions, a key not in the tier meets
/// 0.073 candidate games on average (measured), and the hashes cost 7.2 bits a position.
pub const HASH_BITS: u32 = 28;

/// The tier's hash of a key: the top [`HASH_BITS`] bits of its xxh3-64.
pub fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()) >> (64 - HASH_BITS)
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
