//! The single-game tier: the positions that exactly one game reaches, once, kept as marks on
//! that game's plies instead of as keys (docs/FORMAT.md, "The single-game tier").
//!
//! Most distinct positions of a collection are reached by a single game. As full 21-byte keys in
//! a sorted table each would cost about 17 bytes before any value; here each costs a mark among
//! its game's plies and under two bytes in its commit range's [`GameMap`], which names the one
//! game that may hold a key: a lookup replays that game to its marked plies and keys those
//! positions, so a key the tier does not hold costs a replay, never a wrong answer.
//!
//! - `read.rs`: finding a key (`TierReader::locate`), and listing the tier positions of
//!   materials or of a run of games for scans, by replaying games;
//! - `write.rs`: what a commit files in the tier and the SST files it writes for it;
//! - `index.rs`: where each commit range's map is stored, and the maps read so far, kept up to
//!   a number of bytes the memory budget scales;
//! - `game_map.rs`: the [`GameMap`] of one commit range, its blocks of games and the functions
//!   from a key to its game's place in its block;
//! - `retrieval.rs`: those functions (`Retrieval`).
//!
//! The records' bytes are [`layout::keys`](super::layout::keys) and
//! [`layout::tier`](super::layout::tier)'s.

mod game_map;
mod index;
pub(crate) mod read;
mod retrieval;
pub(crate) mod write;

pub use game_map::GameMap;
pub(crate) use index::TierIndex;
pub use read::TierHit;
pub(crate) use read::TierReader;
pub(crate) use write::{RangeTier, TierWrites};

use shakmaty::{Bitboard, ByColor, Color};

use crate::codec::{Key, KeyDecoder, KeyError};

/// Bits of a block id ([`block_of`]): 24 of the material's tag, then 16 of the pawn files.
pub const BLOCK_BITS: u32 = 24 + PAWN_FILE_BITS;

/// Bits of a block id below its material's tag: White's and Black's pawn files, a bit a file.
const PAWN_FILE_BITS: u32 = 16;

/// The block of a tier position, by its key, with its side to move: the top 24 bits of the
/// xxh3-64 of its (category, material) range's first key, then White's and Black's pawn files,
/// most significant first. Two materials of one tag share their blocks: that costs bits, not
/// answers. The side to move is no part of the block: a game passes through a block on both
/// sides' moves, and splitting it would list the game twice.
pub fn block_of(decoder: &mut KeyDecoder, key: &Key) -> Result<(u64, Color), KeyError> {
    let (material, pawns, turn) = decoder.pawns_and_turn(key)?;
    Ok((block_in(&material.first, PawnFiles::of_pawns(pawns)), turn))
}

/// The block of the positions of the material whose range starts at `first` with pawns on
/// `files`: what [`block_of`] finds from a key, for a writer that knows the files already.
pub fn block_in(first: &Key, files: PawnFiles) -> u64 {
    material_blocks(first).start | u64::from(files.0)
}

/// The files each side's pawns stand on, a bit a file: White's in the high byte, Black's in the
/// low one (bit 0: the a-file). The low 16 bits of a block id; ingest notes them
/// with each position it stages, where it has the board, so that filing a position in the
/// tier needs no unranking of its key's pawns.
///
/// ```
/// use tabiya::store::tier::PawnFiles;
///
/// let board = shakmaty::Board::default();
/// assert_eq!(PawnFiles::of(&board), PawnFiles(0xffff));
/// let board: shakmaty::Board = "4k3/p7/8/8/8/8/4P3/4K3".parse().expect("a board");
/// assert_eq!(PawnFiles::of(&board), PawnFiles(1 << 12 | 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PawnFiles(pub u16);

impl PawnFiles {
    /// The pawn files of `board`.
    pub fn of(board: &shakmaty::Board) -> PawnFiles {
        PawnFiles::of_pawns(ByColor { white: board.white() & board.pawns(), black: board.black() & board.pawns() })
    }

    /// The files of each side's `pawns`.
    fn of_pawns(pawns: ByColor<Bitboard>) -> PawnFiles {
        let files = |pawns: Bitboard| {
            let ranks = pawns.0 | pawns.0 >> 32;
            let ranks = ranks | ranks >> 16;
            ((ranks | ranks >> 8) & 0xff) as u16
        };
        PawnFiles(files(pawns.white) << 8 | files(pawns.black))
    }
}

/// Whether a board's pawns stand on the files of block `block`: a replay looking for a key
/// keys only such positions.
pub(crate) fn has_pawn_files(board: &shakmaty::Board, block: u64) -> bool {
    u64::from(PawnFiles::of(board).0) == block & ((1 << PAWN_FILE_BITS) - 1)
}

/// The ids of every block of the material whose (category, material) range starts at `first`.
pub fn material_blocks(first: &Key) -> std::ops::Range<u64> {
    let tag = xxhash_rust::xxh3::xxh3_64(first.as_bytes()) >> (u64::BITS - (BLOCK_BITS - PAWN_FILE_BITS));
    tag << PAWN_FILE_BITS..(tag + 1) << PAWN_FILE_BITS
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

#[cfg(test)]
mod tests {
    use shakmaty::Position as _;

    use super::*;
    use crate::Position;

    fn key(fen: &str) -> Key {
        Key::encode(&fen.parse::<Position>().expect("a position")).expect("a key")
    }

    fn block(fen: &str) -> u64 {
        block_of(&mut KeyDecoder::default(), &key(fen)).expect("a block").0
    }

    #[test]
    fn a_block_is_the_material_and_the_pawn_files() {
        let start = "4k3/p7/8/8/8/8/4P3/4K3 w - - 0 1";
        let block_of_start = block(start);
        // White's pawn on the e-file (bit 4), Black's on the a-file (bit 0).
        assert_eq!(block_of_start & ((1 << PAWN_FILE_BITS) - 1), 1 << 12 | 1);
        // The kings elsewhere, the pawns further up their files, the other side to move: the
        // same block, and the side to move given beside it.
        assert_eq!(block("3k4/8/p7/8/8/4P3/8/3K4 w - - 0 1"), block_of_start);
        let black = "4k3/p7/8/8/8/8/4P3/4K3 b - - 0 1";
        assert_eq!(block_of(&mut KeyDecoder::default(), &key(black)).expect("a block"), (block_of_start, Color::Black));
        // A pawn on another file, another material: other blocks.
        assert_ne!(block("4k3/1p6/8/8/8/8/4P3/4K3 w - - 0 1"), block_of_start);
        let queen = block("4k3/p7/8/8/8/8/4P3/3QK3 w - - 0 1");
        assert_ne!(queen >> PAWN_FILE_BITS, block_of_start >> PAWN_FILE_BITS);
        // Every block of a material lies in its material's range of ids.
        let (material, _, _) = KeyDecoder::default().pawns_and_turn(&key(start)).expect("a block");
        assert!(material_blocks(&material.first).contains(&block_of_start));
        assert!(!material_blocks(&material.first).contains(&queen));
        assert!(block_of_start >> BLOCK_BITS == 0);
        // A replay's board is checked against the block the same way.
        let fen: shakmaty::fen::Fen = start.parse().expect("a FEN");
        let chess: shakmaty::Chess = fen.into_position(shakmaty::CastlingMode::Standard).expect("legal");
        assert!(has_pawn_files(chess.board(), block_of_start));
        assert!(!has_pawn_files(chess.board(), block_of_start ^ 1));
        assert!(!has_pawn_files(chess.board(), block_of_start ^ 1 << 12));
    }

    #[test]
    fn a_key_of_no_position_has_no_block() {
        let mut bytes = [0xff; crate::codec::KEY_LEN];
        bytes[0] = 3;
        assert!(block_of(&mut KeyDecoder::default(), &Key::from_bytes(bytes)).is_err());
    }
}
