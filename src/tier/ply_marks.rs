//! Which positions of each game's mainline are tier positions: a bit per position, games one
//! after the other.

use sucds::{
    Serializable,
    bit_vectors::{Access, BitVector},
    mii_sequences::{EliasFano, EliasFanoBuilder},
};

use super::TierError;
use crate::model::GameId;

/// Per game `1..=games`, a bit per position of its mainline (ply 0 the start position), set
/// for the positions in the tier; where each game's bits start is an Elias–Fano sequence.
pub struct PlyMarks {
    /// The first bit of game `id` at index `id − 1`, then the total.
    starts: EliasFano,
    bits: BitVector,
}

impl PlyMarks {
    /// Marks from each game's position count and marked plies, in id order from game 1.
    pub fn build<'a>(games: impl IntoIterator<Item = (u32, &'a [u32])>) -> Result<PlyMarks, TierError> {
        let mut bits = BitVector::new();
        let mut starts = vec![0u64];
        for (positions, marked) in games {
            let start = bits.len();
            bits.extend((0..positions).map(|_| false));
            for &ply in marked {
                if ply >= positions {
                    return Err(TierError::Input(format!("ply {ply} of a game of {positions} positions")));
                }
                bits.set_bit(start + ply as usize, true).map_err(TierError::corrupt)?;
            }
            starts.push(bits.len() as u64);
        }
        let total = bits.len();
        let mut builder = EliasFanoBuilder::new(total as u64 + 1, starts.len()).map_err(TierError::corrupt)?;
        builder.extend(starts).map_err(TierError::corrupt)?;
        Ok(PlyMarks { starts: builder.build(), bits })
    }

    /// Games covered.
    pub fn games(&self) -> u64 {
        (self.starts.len() - 1) as u64
    }

    /// The bit range of game `id`, if covered.
    fn range(&self, id: GameId) -> Option<std::ops::Range<usize>> {
        let index = usize::try_from(id.0.checked_sub(1)?).ok()?;
        Some(usize::try_from(self.starts.select(index)?).ok()?..usize::try_from(self.starts.select(index + 1)?).ok()?)
    }

    /// The tier plies of game `id`, ascending (none for a game not covered).
    pub fn marked(&self, id: GameId) -> Vec<u32> {
        let Some(range) = self.range(id) else {
            return Vec::new();
        };
        let start = range.start;
        range.filter(|&bit| self.bits.access(bit) == Some(true)).map(|bit| (bit - start) as u32).collect()
    }

    /// Bytes of the starts and of the bits, as [`PlyMarks::write`] writes them.
    pub fn bytes(&self) -> (usize, usize) {
        (self.starts.size_in_bytes(), self.bits.size_in_bytes())
    }

    /// Appends the marks' bytes to `out` (a checked section, see [`super::write_parts`]).
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), TierError> {
        super::write_parts(&self.starts, &self.bits, out)
    }

    /// Reads marks [`PlyMarks::write`] wrote, from the front of `input`, checking them.
    pub fn read(input: &mut &[u8]) -> Result<PlyMarks, TierError> {
        let (starts, bits): (EliasFano, BitVector) = super::read_parts(input)?;
        let last = starts.len().checked_sub(1).and_then(|at| starts.select(at));
        if last != Some(bits.len() as u64) {
            return Err(TierError::Corrupt("game starts do not end with the bits".to_owned()));
        }
        Ok(PlyMarks { starts, bits })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Every game's marks come back as built, before and after the bytes round trip.
        #[test]
        fn marks_round_trip(games in prop::collection::vec(prop::collection::vec(any::<bool>(), 0..90), 0..60)) {
            let marked: Vec<Vec<u32>> = games
                .iter()
                .map(|bits| bits.iter().enumerate().filter(|(_, set)| **set).map(|(ply, _)| ply as u32).collect())
                .collect();
            let marks = PlyMarks::build(games.iter().zip(&marked).map(|(bits, m)| (bits.len() as u32, m.as_slice())))
                .expect("valid plies");
            let mut bytes = Vec::new();
            marks.write(&mut bytes).expect("written");
            let read = PlyMarks::read(&mut bytes.as_slice()).expect("read back");
            prop_assert_eq!(read.games(), games.len() as u64);
            for (index, want) in marked.iter().enumerate() {
                let id = GameId(index as u64 + 1);
                prop_assert_eq!(&marks.marked(id), want);
                prop_assert_eq!(&read.marked(id), want);
            }
            prop_assert!(read.marked(GameId(0)).is_empty());
            prop_assert!(read.marked(GameId(games.len() as u64 + 1)).is_empty());
        }
    }

    #[test]
    fn a_ply_past_the_game_is_refused_and_damage_is_caught() {
        assert!(PlyMarks::build([(3, &[3u32][..])]).is_err());
        let marks = PlyMarks::build([(3, &[0u32, 2][..]), (2, &[1][..])]).expect("valid");
        let mut bytes = Vec::new();
        marks.write(&mut bytes).expect("written");
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert!(PlyMarks::read(&mut damaged.as_slice()).is_err(), "byte {at}");
        }
    }
}
