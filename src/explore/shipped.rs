//! Partial answers as bytes, for a query spread over processes (each scans some parts, one
//! merges): bincode, zstd-compressed (their game sets are mostly runs of equal words).

use bincode::{Decode, Encode};

/// `value`'s bytes.
pub(crate) fn pack<T: Encode>(value: T) -> Vec<u8> {
    let plain = bincode::encode_to_vec(value, bincode::config::standard()).unwrap_or_default();
    zstd::bulk::compress(&plain, 1).unwrap_or_default()
}

/// The value [`pack`] wrote; `None` for other bytes (or bytes left over).
pub(crate) fn unpack<T: Decode<()>>(bytes: &[u8]) -> Option<T> {
    let plain = zstd::stream::decode_all(bytes).ok()?;
    let (value, read) = bincode::decode_from_slice(&plain, bincode::config::standard()).ok()?;
    (read == plain.len()).then_some(value)
}
