//! Encoding the positions of a game one after the other: [`KeyEncoder`].

use std::hash::{Hash as _, Hasher as _};

use shakmaty::{Color, EnPassantMode, Piece, Position as _, Role};

use super::{
    Key, KeyError,
    rank::{Frame, place_free_pieces},
};
use crate::{
    codec::{
        combinatorics::{PAWN_SQUARES, binomial, rank_subset},
        material::Material,
        tables::{TURN_EP_STATES, U192, tables},
    },
    position::{Category, Position},
};

/// Encodes positions one after the other, game after game: consecutive positions mostly share
/// their category and material (only captures, promotions and the loss of castling rights change
/// them), and games pass through the same materials, so each material block's frame is kept
/// (the last one, and a small table of earlier ones) and a position inside it costs only its
/// placement. The keys are those of [`Key::encode`].
///
/// ```
/// use tabiya_core::{Key, Position, codec::KeyEncoder};
///
/// let mut encoder = KeyEncoder::default();
/// for fen in ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"] {
///     let position: Position = fen.parse()?;
///     assert_eq!(encoder.encode(&position)?, Key::encode(&position)?);
/// }
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct KeyEncoder {
    /// The last block encoded into.
    block: Option<Block>,
    /// Earlier blocks, by a hash of their category and material ([`FRAME_SLOTS`] slots, made
    /// when a second block is met, so that keying one position allocates nothing): building a
    /// frame costs several wide multiplications, and a game's materials are mostly those of the
    /// games before it.
    earlier: Vec<Option<Block>>,
}

/// A material block's category, material, frame and first rank.
type Block = (Category, Material, Frame, U192);

/// Slots of [`KeyEncoder`]'s table of earlier blocks.
const FRAME_SLOTS: usize = 4096;

thread_local! {
    static THREAD_ENCODER: std::cell::RefCell<KeyEncoder> = std::cell::RefCell::default();
}

impl KeyEncoder {
    /// Runs `f` with this thread's encoder, kept from call to call with the blocks it has
    /// framed (for code that keys game after game, and for [`Key::encode`]). Inside `f`, or
    /// while the thread ends, a call gets a fresh encoder instead.
    pub fn with_thread_encoder<R>(f: impl FnOnce(&mut KeyEncoder) -> R) -> R {
        // One thread: nothing can take the encoder between the check and the borrow.
        let free = THREAD_ENCODER.try_with(|cell| cell.try_borrow_mut().is_ok()).unwrap_or(false);
        if free { THREAD_ENCODER.with_borrow_mut(f) } else { f(&mut KeyEncoder::default()) }
    }

    /// The block of `category` and `material`, made the last one.
    fn block(&mut self, category: Category, material: Material) -> Result<&Block, KeyError> {
        if !matches!(&self.block, Some((c, m, _, _)) if *c == category && *m == material) {
            self.block = Some(match self.block {
                None if self.earlier.is_empty() => frame_block(category, material)?,
                _ => earlier_block(&mut self.earlier, category, material)?,
            });
        }
        self.block.as_ref().ok_or(KeyError::NonCanonical("no material block"))
    }

    /// Encodes a position, like [`Key::encode`].
    pub fn encode(&mut self, position: &Position) -> Result<Key, KeyError> {
        let category = Category::of(position);
        let chess = position.chess();
        let (_, _, frame, block_start) = self.block(category, Material::of(position))?;
        let block_start = *block_start;
        let board = chess.board();

        let white_pawns = board.by_piece(Piece { color: Color::White, role: Role::Pawn });
        let black_pawns = board.by_piece(Piece { color: Color::Black, role: Role::Pawn });
        let pawn_index = rank_subset(white_pawns, PAWN_SQUARES)
            + binomial(48, frame.pawns.white) * rank_subset(black_pawns, PAWN_SQUARES & !white_pawns);

        let mut holes = !(white_pawns | black_pawns | category.implied_squares());
        let white_index = place_free_pieces(board, Color::White, category, &mut holes);
        let black_index = place_free_pieces(board, Color::Black, category, &mut holes);

        let turn_ep = 9 * u64::from(chess.turn() == Color::Black)
            + chess.ep_square(EnPassantMode::Legal).map_or(0, |sq| 1 + u64::from(sq.file()));

        // Inside the material's block: pawns, then turn/en passant, then the free pieces.
        let pieces = U192::from(white_index) + U192::from(frame.white_placements) * U192::from(black_index);
        let rank = block_start
            + U192::from(pawn_index)
            + U192::from(frame.pawn_placements) * (U192::from(turn_ep) + U192::from(TURN_EP_STATES) * pieces);
        Ok(Key::from_parts(category, rank))
    }
}

/// The block of `category` and `material` from `earlier` ([`KeyEncoder`]'s table, made here on
/// the first call), framed and put there when its slot holds another.
fn earlier_block(earlier: &mut Vec<Option<Block>>, category: Category, material: Material) -> Result<Block, KeyError> {
    if earlier.is_empty() {
        *earlier = vec![None; FRAME_SLOTS];
    }
    let slot = &mut earlier[slot_of(category, &material)];
    match *slot {
        Some(block @ (c, m, _, _)) if c == category && m == material => Ok(block),
        _ => Ok(*slot.insert(frame_block(category, material)?)),
    }
}

/// The block of `category` and `material`, framed.
fn frame_block(category: Category, material: Material) -> Result<Block, KeyError> {
    material.check()?;
    let frame = Frame::new(category, &material, tables())?;
    Ok((category, material, frame, frame.block_start()))
}

/// The slot of a block in [`KeyEncoder`]'s table of earlier blocks.
fn slot_of(category: Category, material: &Material) -> usize {
    let mut hasher = rustc_hash::FxHasher::default();
    category.hash(&mut hasher);
    material.hash(&mut hasher);
    (hasher.finish() >> 32) as usize % FRAME_SLOTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_inside_the_thread_encoder_gets_a_fresh_one() {
        let position: Position = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -".parse().expect("FEN");
        let fresh = KeyEncoder::default().encode(&position);
        let (outer, inner) =
            KeyEncoder::with_thread_encoder(|encoder| (encoder.encode(&position), Key::encode(&position)));
        assert_eq!(outer, fresh);
        assert_eq!(inner, fresh);
        assert!(fresh.is_ok());
    }

    #[test]
    fn keying_one_position_makes_no_table() {
        let mut encoder = KeyEncoder::default();
        let position = Position::initial();
        encoder.encode(&position).expect("the initial position has a key");
        encoder.encode(&position).expect("the initial position has a key");
        assert!(encoder.earlier.is_empty());
        let fewer: Position = "4k3/8/8/8/8/8/8/4K3 w - -".parse().expect("FEN");
        encoder.encode(&fewer).expect("two kings have a key");
        assert_eq!(encoder.earlier.len(), FRAME_SLOTS);
    }
}
