//! Chess960 keys (docs/FORMAT.md, "Chess960 keys"): their own space of category bytes, after
//! standard chess's.
//!
//! ```text
//! byte 0       81 + White's castling configuration (81..=196, see `position::CastlingConfig`)
//! bytes 1..21  offset(Black's configuration) + the rank inside the (White, Black) category
//! ```
//!
//! The rank inside a category is a standard key's rank in the standard category implying as
//! many pieces ([`Chess960Category::representative`]), with the implied pieces on the squares
//! the configurations name. Black's configurations are stacked in order in front of it: the
//! offset of a configuration is the sum of the sizes of those before it (the sizes depend on
//! how many pieces each side's configuration implies, so five rows of 117 sums serve every
//! White configuration).

use std::sync::OnceLock;

use crate::{
    codec::tables::{IMPLIED, U192, tables},
    position::{CastlingConfig, Chess960Category},
};

use super::{
    Key, KeyError,
    rank::{Header, header_in, last_at_or_below},
};

/// The first category byte of a Chess960 key.
pub const FIRST_BYTE: u8 = 81;
/// The last category byte of a Chess960 key.
pub const LAST_BYTE: u8 = FIRST_BYTE + CastlingConfig::COUNT as u8 - 1;

/// A Chess960 category's first byte.
pub(super) fn byte(category: Chess960Category) -> u8 {
    FIRST_BYTE + category.white.index()
}

/// The rank at which `category`'s positions start, under its first byte.
pub(super) fn offset(category: Chess960Category) -> U192 {
    offsets()[category.white.implied_type()][usize::from(category.black.index())]
}

/// The Chess960 category and digits of a key whose first byte is a Chess960 one.
pub(super) fn header(key: &Key) -> Result<(Chess960Category, Header), KeyError> {
    let byte = key.0[0];
    let white = byte.checked_sub(FIRST_BYTE).and_then(CastlingConfig::new).ok_or(KeyError::Category(byte))?;
    let row = &offsets()[white.implied_type()];
    let rank = key.rank();
    if rank >= row[CastlingConfig::COUNT] {
        return Err(KeyError::OutOfRange(byte));
    }
    let black_index = last_at_or_below(CastlingConfig::COUNT, |i| row[i] <= rank);
    let black = CastlingConfig::new(black_index as u8).ok_or(KeyError::Category(byte))?;
    let category = Chess960Category { white, black };
    let header =
        header_in(category.representative(), category.layout(), rank - row[black_index]).map_err(|err| match err {
            KeyError::OutOfRange(_) => KeyError::OutOfRange(byte),
            other => other,
        })?;
    Ok((category, header))
}

/// `[White's implied type][Black's configuration]`: the sizes of the categories before it
/// under one first byte, the last entry the byte's total.
fn offsets() -> &'static [[U192; CastlingConfig::COUNT + 1]; IMPLIED.len()] {
    static OFFSETS: OnceLock<[[U192; CastlingConfig::COUNT + 1]; IMPLIED.len()]> = OnceLock::new();
    OFFSETS.get_or_init(|| {
        let t = tables();
        let mut rows = [[U192::ZERO; CastlingConfig::COUNT + 1]; IMPLIED.len()];
        for white in (0..CastlingConfig::COUNT as u8).filter_map(CastlingConfig::new) {
            let mut sum = U192::ZERO;
            let mut row = [U192::ZERO; CastlingConfig::COUNT + 1];
            for black in (0..CastlingConfig::COUNT as u8).filter_map(CastlingConfig::new) {
                row[usize::from(black.index())] = sum;
                sum += t.category_size(white.implied_type(), black.implied_type());
            }
            row[CastlingConfig::COUNT] = sum;
            rows[white.implied_type()] = row;
        }
        rows
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::key::RANK_BITS;

    #[test]
    fn every_first_byte_fits_the_ranks_bits() {
        let limit = U192::from(1u8) << RANK_BITS;
        let largest = offsets().iter().map(|row| row[CastlingConfig::COUNT]).max().expect("five rows");
        assert!(largest < limit, "{largest}");
        // The widest byte (White without a right, neither corner rook) needs 158.5 bits, of
        // which Black's no-right configurations are nearly all.
        assert!(largest > U192::from(1u8) << 158, "{largest}");
        assert_eq!(LAST_BYTE, 196);
    }
}
