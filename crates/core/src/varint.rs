//! LEB128 varints, as the stored layouts use them.

/// Appends `n` as a LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads a LEB128 varint from the front of `input`, advancing it; `None` when the bytes end
/// first or the value passes 64 bits.
#[inline]
pub fn get_varint(input: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = take_byte(input)?;
        n |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

/// Takes the first byte of `input`.
#[inline]
pub fn take_byte(input: &mut &[u8]) -> Option<u8> {
    let (&first, rest) = input.split_first()?;
    *input = rest;
    Some(first)
}

/// Zigzag: 0, −1, 1, −2, … as 0, 1, 2, 3, … (small magnitudes, small varints).
pub fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// The number [`zigzag`] mapped to `n`.
pub fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}
