//! Decoding keys into boards without validation, for scans over stored keys: [`KeyBoard`],
//! and [`KeyDecoder`], which keeps the material block of the last key decoded.

use shakmaty::{Bitboard, ByColor, ByRole, Color, Piece, Square};

use super::{
    Key, KeyError, KeyRange,
    rank::{Frame, Header, turn_of, unrank_pawns},
};
use crate::{
    codec::{
        material::Material,
        tables::{SideVector, TURN_EP_STATES, U192, tables},
    },
    position::{Category, Layout},
};

/// A key's position as bitboards, decoded without validation ([`Key::decode_board`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyBoard {
    /// The rook/castling category (of a Chess960 key, the standard category implying as many
    /// pieces, `Chess960Category::representative`).
    pub category: Category,
    /// The castling rights, as rook squares.
    pub castling_rights: Bitboard,
    /// The material.
    pub material: Material,
    /// Squares by piece kind.
    pub by_role: ByRole<Bitboard>,
    /// Squares by colour.
    pub by_color: ByColor<Bitboard>,
    /// The side to move.
    pub turn: Color,
    /// The en-passant square, when a legal en-passant capture exists.
    pub ep_square: Option<Square>,
}

impl KeyBoard {
    /// Every occupied square.
    pub fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    /// The squares of one piece.
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        *self.by_role.get(piece.role) & *self.by_color.get(piece.color)
    }
}

/// Decodes a run of keys in key order, as a scan meets them: most keys lie in the same
/// (category, material) block as the one before, so the block's bounds and radices are kept
/// and a key inside them is split by two divisions instead of the table searches.
///
/// ```
/// use tabiya_core::{Key, Position, codec::KeyDecoder};
///
/// let mut decoder = KeyDecoder::default();
/// for fen in ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -", "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -"] {
///     let key = Key::encode(&fen.parse::<Position>()?)?;
///     let board = decoder.decode(&key, |_, _| true)?.expect("accepted");
///     assert_eq!(Some(board), key.decode_board(|_, _| true)?);
/// }
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct KeyDecoder {
    block: Option<Block>,
    /// Pawn structures recently unranked, direct-mapped by their digits: many positions of a
    /// collection share a pawn structure, and unranking 16 pawns is most of a decode.
    pawn_cache: Vec<(u64, ByColor<Bitboard>)>,
    /// The material block of the last Antichess key, and whether it was accepted: Antichess's
    /// keys are decoded whole (`super::antichess`).
    antichess: Option<(KeyRange, bool)>,
}

/// Entries of the pawn-structure cache (a power of two).
const PAWN_CACHE: usize = 1 << 16;

/// The material block of the last key decoded.
#[derive(Debug)]
struct Block {
    /// The keys' first byte.
    byte: u8,
    category: Category,
    layout: Layout,
    start: U192,
    end: U192,
    material: Material,
    vectors: ByColor<SideVector>,
    pawns: ByColor<u32>,
    pawn_placements: u64,
    white_placements: u128,
    accepted: bool,
}

impl Block {
    /// Whether the rank of a key with first byte `byte` lies in the block.
    fn holds(&self, byte: u8, rank: U192) -> bool {
        self.byte == byte && self.start <= rank && rank < self.end
    }

    /// The digits of `rank` (the block holds it): rank − start = pawn_index + P·(turn_ep +
    /// 18·pieces), as (pieces, pawn_index, turn_ep).
    fn digits(&self, rank: U192) -> (U192, u64, u64) {
        let (pieces, low) = (rank - self.start).div_rem(U192::from(self.pawn_placements * TURN_EP_STATES));
        let low = low.to::<u64>();
        (pieces, low % self.pawn_placements, low / self.pawn_placements)
    }
}

impl KeyDecoder {
    /// Decodes like [`Key::decode_board`]; `accept` is asked once per material block.
    pub fn decode(
        &mut self,
        key: &Key,
        accept: impl FnOnce(Category, &Material) -> bool,
    ) -> Result<Option<KeyBoard>, KeyError> {
        if !self.admits(key, accept)? {
            return Ok(None);
        }
        self.place(key).map(Some)
    }

    /// Whether `accept` admits the material block of `key` (asked once per block), without
    /// placing its pieces: a scan that needs a key's board only now and then asks this first,
    /// then [`KeyDecoder::decode`] places the pieces from the block kept.
    pub fn admits(&mut self, key: &Key, accept: impl FnOnce(Category, &Material) -> bool) -> Result<bool, KeyError> {
        if super::antichess::is_antichess(key) {
            return self.admits_antichess(key, accept);
        }
        self.antichess = None;
        let (byte, rank) = (key.0[0], key.rank());
        if let Some(block) = &self.block
            && block.holds(byte, rank)
        {
            return Ok(block.accepted);
        }
        let (offset, header) = key.any_header()?;
        let category = header.category;
        let frame = Frame::new(category, &header.material, tables())?;
        let start = offset + frame.block_start();
        let accepted = accept(category, &header.material);
        self.block = Some(Block {
            byte,
            category,
            layout: header.layout,
            start,
            end: start + frame.block_size(),
            material: header.material,
            vectors: header.vectors,
            pawns: header.pawns,
            pawn_placements: frame.pawn_placements,
            white_placements: frame.white_placements,
            accepted,
        });
        Ok(accepted)
    }

    /// The pieces of `key`, whose block [`KeyDecoder::admits`] kept: the rank less the block's
    /// start split by two divisions instead of the tables' searches.
    fn place(&mut self, key: &Key) -> Result<KeyBoard, KeyError> {
        if super::antichess::is_antichess(key) {
            return super::antichess::board(key);
        }
        let digits = self.place_digits(key)?;
        super::atomic::placed(key, digits)
    }

    /// The board the key's digits place (an exploded Atomic king's stand-in included).
    fn place_digits(&mut self, key: &Key) -> Result<KeyBoard, KeyError> {
        let rank = key.rank();
        let Some(block) = self.block.as_ref().filter(|block| block.holds(key.0[0], rank)) else {
            return key.any_header().map(|(_, header)| header.place());
        };
        // pieces = white_index + W·black_index.
        let (pieces, pawn_index, turn_ep) = block.digits(rank);
        // White's placements times Black's can pass 2^128 (many promoted pieces, no pawns):
        // split in 192 bits; each side's index fits 128.
        let (black, white) = match u128::try_from(pieces) {
            Ok(small) => (small / block.white_placements, small % block.white_placements),
            Err(_) => {
                let (black, white) = pieces.div_rem(U192::from(block.white_placements));
                (black.to::<u128>(), white.to::<u128>())
            }
        };
        let header = Header {
            category: block.category,
            layout: block.layout,
            material: block.material,
            vectors: block.vectors,
            pawns: block.pawns,
            pawn_index,
            turn_ep,
            indices: ByColor { white, black },
        };
        let pawns = self.cached_pawns(header.pawn_index, header.pawns);
        Ok(header.place_with(pawns))
    }

    /// The material block of `key`, its pawns and its side to move, without placing its other
    /// pieces: the single-game tier files a position under these (`store::tier`), for every
    /// position a commit files, so this costs a division and the pawns' unranking, not a decode.
    /// The pawn-structure cache is left alone: lookups call this on many threads, each with a
    /// decoder of its own, and a commit's keys come in key order, where the pawn digit changes
    /// fastest.
    ///
    /// ```
    /// use shakmaty::{Color, Role};
    /// use tabiya_core::{Key, Position, codec::KeyDecoder};
    ///
    /// let position: Position = "4k3/pp6/8/8/8/8/5PPP/4K3 b - - 0 1".parse()?;
    /// let key = Key::encode(&position)?;
    /// let (block, pawns, turn) = KeyDecoder::default().pawns_and_turn(&key)?;
    /// assert!(block.contains(&key));
    /// let board = key.decode_board(|_, _| true)?.expect("accepted");
    /// assert_eq!(pawns.white, *board.by_role.get(Role::Pawn) & board.by_color.white);
    /// assert_eq!(pawns.black.count(), 2);
    /// assert_eq!(turn, Color::Black);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn pawns_and_turn(&mut self, key: &Key) -> Result<(KeyRange, ByColor<Bitboard>, Color), KeyError> {
        if super::antichess::is_antichess(key) {
            let (range, pawns, turn) = super::antichess::pawns_and_turn(key)?;
            // Kept as `admits` keeps a block it is asked about the first time.
            if !self.antichess.is_some_and(|(kept, _)| kept.contains(key)) {
                (self.block, self.antichess) = (None, Some((range, true)));
            }
            return Ok((range, pawns, turn));
        }
        // `admits` keeps the key's block.
        self.admits(key, |_, _| true)?;
        let (Some(block), Some(range)) = (self.block.as_ref(), self.block_range()) else {
            return Err(KeyError::NonCanonical("no material block"));
        };
        let (_, pawn_index, turn_ep) = block.digits(key.rank());
        Ok((range, unrank_pawns(pawn_index, block.pawns), turn_of(turn_ep)))
    }

    fn cached_pawns(&mut self, pawn_index: u64, counts: ByColor<u32>) -> ByColor<Bitboard> {
        if self.pawn_cache.is_empty() {
            self.pawn_cache = vec![(u64::MAX, ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY }); PAWN_CACHE];
        }
        // The digits with the pawn counts: 48+ bits of index, then 4 + 4 bits of counts.
        let tag = pawn_index << 8 | u64::from(counts.white) << 4 | u64::from(counts.black);
        let slot = (tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as usize % PAWN_CACHE;
        let entry = &mut self.pawn_cache[slot];
        if entry.0 != tag {
            *entry = (tag, unrank_pawns(pawn_index, counts));
        }
        entry.1
    }

    /// [`KeyDecoder::admits`] for an Antichess key: its block's range kept with the answer.
    fn admits_antichess(
        &mut self,
        key: &Key,
        accept: impl FnOnce(Category, &Material) -> bool,
    ) -> Result<bool, KeyError> {
        if let Some((range, accepted)) = self.antichess
            && range.contains(key)
        {
            return Ok(accepted);
        }
        let (range, material) = super::antichess::material_block(key)?;
        // A block holds every placement of its rooks: `accept` sees the category of none at
        // home (a board's own is its `KeyBoard::category`).
        let accepted = accept(super::antichess::block_category(), &material);
        (self.block, self.antichess) = (None, Some((range, accepted)));
        Ok(accepted)
    }

    /// The keys of the material block of the last key decoded.
    pub fn block_range(&self) -> Option<KeyRange> {
        if let Some((range, _)) = self.antichess {
            return Some(range);
        }
        let block = self.block.as_ref()?;
        Some(KeyRange {
            first: Key::from_byte_and_rank(block.byte, block.start),
            last: Key::from_byte_and_rank(block.byte, block.end - U192::from(1u8)),
        })
    }
}
