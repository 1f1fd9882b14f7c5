//! The 240-entry vector table: for every square difference on a 0x88 board, which piece kinds
//! can attack along it and the unit step of the ray that joins the two squares.
//!
//! On a 0x88 board (`index = 16·rank + file`) the difference of two square indices keeps their
//! file and rank difference, so `to − from + 119` (in `0..239`) indexes one table for every
//! pair of squares, instead of a 64×64 one.

/// Bit of a kind in [`Vector::kinds`]: pawns are split by colour (they attack forward only).
pub const WHITE_PAWN: u8 = 1 << 0;
/// Black pawns attack towards rank 1.
pub const BLACK_PAWN: u8 = 1 << 1;
/// Knights.
pub const KNIGHT: u8 = 1 << 2;
/// Bishops (and queens, through [`QUEEN`]).
pub const BISHOP: u8 = 1 << 3;
/// Rooks.
pub const ROOK: u8 = 1 << 4;
/// Queens.
pub const QUEEN: u8 = 1 << 5;
/// Kings.
pub const KING: u8 = 1 << 6;
/// The kinds that slide along a ray (their attack needs empty squares between).
pub const SLIDERS: u8 = BISHOP | ROOK | QUEEN;

/// What one square difference allows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vector {
    /// The kinds (bits above) whose attack spans this difference on an empty board.
    pub kinds: u8,
    /// The unit step along the ray from the first square to the second, 0 when the squares
    /// share no line.
    pub step: i8,
}

/// Offset added to `to − from` so that every difference is a valid index.
pub const OFFSET: i16 = 119;

/// The table, built at compile time.
pub static VECTORS: [Vector; 240] = build();

/// The entry for a move from `from` to `to`, both 0x88 indices.
#[inline]
pub fn vector(from: u8, to: u8) -> Vector {
    VECTORS[(i16::from(to) - i16::from(from) + OFFSET) as usize]
}

const fn build() -> [Vector; 240] {
    let mut table = [Vector { kinds: 0, step: 0 }; 240];
    let mut dr: i16 = -7;
    while dr <= 7 {
        let mut df: i16 = -7;
        while df <= 7 {
            let (af, ar) = (df.abs(), dr.abs());
            let mut kinds = 0;
            let mut step = 0;
            if df == 0 && dr == 0 {
                df += 1;
                continue;
            }
            if af == ar || df == 0 || dr == 0 {
                step = (df.signum() + 16 * dr.signum()) as i8;
                kinds |= QUEEN | if af == ar { BISHOP } else { ROOK };
            }
            if (af == 1 && ar == 2) || (af == 2 && ar == 1) {
                kinds |= KNIGHT;
            }
            if af <= 1 && ar <= 1 {
                kinds |= KING;
            }
            if af == 1 && dr == 1 {
                kinds |= WHITE_PAWN;
            }
            if af == 1 && dr == -1 {
                kinds |= BLACK_PAWN;
            }
            table[(16 * dr + df + OFFSET) as usize] = Vector { kinds, step };
            df += 1;
        }
        dr += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_geometry() {
        // e4 = 0x34; f6 (knight), e8 (rook/queen), h7 (bishop/queen), f5 (king, white pawn, bishop).
        assert_eq!(vector(0x34, 0x55).kinds, KNIGHT);
        assert_eq!(vector(0x34, 0x74), Vector { kinds: ROOK | QUEEN, step: 16 });
        assert_eq!(vector(0x34, 0x67), Vector { kinds: BISHOP | QUEEN, step: 17 });
        assert_eq!(vector(0x34, 0x45).kinds, KING | WHITE_PAWN | BISHOP | QUEEN);
        assert_eq!(vector(0x34, 0x23).kinds, KING | BLACK_PAWN | BISHOP | QUEEN);
        assert_eq!(vector(0x34, 0x34).kinds, 0);
        // Exhaustive: every pair of squares, against coordinates.
        for from in 0..64u8 {
            for to in 0..64u8 {
                let (f, t) = (from + (from & !7), to + (to & !7));
                let (df, dr) = (i16::from(to % 8) - i16::from(from % 8), i16::from(to / 8) - i16::from(from / 8));
                let aligned = from != to && (df == 0 || dr == 0 || df.abs() == dr.abs());
                assert_eq!(vector(f, t).step != 0, aligned, "{from} {to}");
                if aligned {
                    let step = i16::from(vector(f, t).step);
                    let n = df.abs().max(dr.abs());
                    assert_eq!(i16::from(f) + n * step, i16::from(t));
                }
            }
        }
    }
}
