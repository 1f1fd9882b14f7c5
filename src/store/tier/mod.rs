//! The single-game tier: the positions that exactly one game reaches, once, kept as marks on
//! that game's plies instead of as keys (docs/FORMAT.md, "The single-game tier").
//!
//! Most distinct positions of a collection are reached by a single game. As full 21-byte keys in
//! a sorted table each would cost about 17 bytes before any value; here each costs a short hash
//! and its game's id in its commit range's [`HashIndex`], and a mark among its game's plies. A
//! lookup gets the candidate games of its key's hash, replays each to its marked plies and keys
//! those positions: a hash collision costs a replay, never a wrong answer.
//!
//! - `read.rs`: finding a key ([`Store::tier_locate`](crate::store::Store::tier_locate)), and
//!   listing the tier positions of materials or of a run of games for scans, by replaying games;
//! - `write.rs`: what a commit files in the tier and the SST files it writes for it;
//! - `hash_index.rs`: the [`HashIndex`] of one commit range.
//!
//! The records' bytes are [`layout::keys`](super::layout::keys) and
//! [`layout::tier`](super::layout::tier)'s.

mod hash_index;
pub(crate) mod read;
pub(crate) mod write;

pub use hash_index::HashIndex;
pub use read::TierHit;
pub(crate) use read::{TierIndex, tier_candidates};
pub(crate) use write::{RangeTier, TierWrites};

use crate::codec::Key;

/// Bits of a key's hash in a [`HashIndex`]: with some twenty million tier positions, a key not
/// in the tier meets well under one candidate game on average, and the hashes cost about seven
/// bits a position.
pub const HASH_BITS: u32 = 28;

/// The tier's hash of a key: the top [`HASH_BITS`] bits of its xxh3-64.
pub fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()) >> (u64::BITS - HASH_BITS)
}

/// Why the tier could not file or read a position.
#[derive(Debug, thiserror::Error)]
pub enum TierError {
    /// Stored bytes that do not hold a tier structure.
    #[error("corrupt single-game tier: {0}")]
    Corrupt(String),
    /// A value beyond what the tier's structures hold (a game id past their width).
    #[error("the single-game tier cannot hold {0}")]
    Capacity(String),
    /// A broken invariant of tabiya's own code, not of the data.
    #[error("internal error in the single-game tier: {0} (a bug in tabiya: please report it)")]
    Internal(String),
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
    const LENGTH: usize = std::mem::size_of::<u64>();
    const CHECKSUM: usize = std::mem::size_of::<u64>();
    let short = || TierError::Corrupt("section cut short".to_owned());
    let (length, rest) = input.split_first_chunk::<LENGTH>().ok_or_else(short)?;
    let length = usize::try_from(u64::from_le_bytes(*length)).map_err(|_| short())?;
    if rest.len() < length.saturating_add(CHECKSUM) {
        return Err(short());
    }
    let (bytes, rest) = rest.split_at(length);
    let (sum, rest) = rest.split_first_chunk::<CHECKSUM>().ok_or_else(short)?;
    if u64::from_le_bytes(*sum) != xxhash_rust::xxh3::xxh3_64(bytes) {
        return Err(TierError::Corrupt("checksum mismatch".to_owned()));
    }
    *input = rest;
    Ok(bytes)
}
