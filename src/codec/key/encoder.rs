//! Encoding the positions of a game one after the other: [`KeyEncoder`].

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

/// Encodes the positions of a game one after the other: consecutive positions mostly share
/// their category and material (only captures, promotions and the loss of castling rights change
/// them), so the material block's frame is kept and a position inside it costs only its
/// placement. The keys are those of [`Key::encode`].
///
/// ```
/// use tabiya::{Key, Position, codec::KeyEncoder};
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
    /// The last block encoded into: its category, material, frame and first rank.
    block: Option<(Category, Material, Frame, U192)>,
}

impl KeyEncoder {
    /// Encodes a position, like [`Key::encode`].
    pub fn encode(&mut self, position: &Position) -> Result<Key, KeyError> {
        let category = Category::of(position);
        let chess = position.chess();
        let material = Material::of(position);
        let (frame, block_start) = match &self.block {
            Some((last_category, last_material, frame, start))
                if *last_category == category && *last_material == material =>
            {
                (frame, *start)
            }
            _ => {
                material.check()?;
                let frame = Frame::new(category, &material, tables())?;
                let start = frame.block_start();
                let (_, _, frame, start) = self.block.insert((category, material, frame, start));
                (&*frame, *start)
            }
        };
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
