//! Encoding the positions of a game one after the other: [`KeyEncoder`].

use std::hash::{Hash as _, Hasher as _};

use shakmaty::{Color, Piece, Role};

use super::{
    Key, KeyError, antichess, atomic, chess960, lichess,
    rank::{Frame, place_free_pieces},
};
use crate::{
    codec::{
        combinatorics::{PAWN_SQUARES, binomial, rank_subset},
        material::Material,
        tables::{TURN_EP_STATES, U192, tables},
    },
    position::{Category, Chess960Category, Position, Variant},
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
    earlier: Vec<Block>,
    /// The block of the last Antichess position, whose code is its own.
    antichess: antichess::LastBlock,
}

/// What encoding inside one material block needs, in one cache line: its category and
/// material, the radices of its low digits and its first rank. A game's material changes with
/// every capture, and each change looks a block up in [`KeyEncoder`]'s table: a whole
/// [`Frame`] a slot (four lines) made those look-ups miss the cache.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Block {
    category: Category,
    material: Material,
    white_pawns: u8,
    /// Placements of White's free pieces: the radix of Black's.
    white_placements: u128,
    pawn_placements: u64,
    start: U192,
}

impl Block {
    /// The empty slot: no material has no kings.
    const EMPTY: Block = Block {
        category: match Category::new(0) {
            Some(category) => category,
            None => panic!("category 0 exists"),
        },
        material: Material(shakmaty::ByColor {
            white: shakmaty::ByRole { pawn: 0, knight: 0, bishop: 0, rook: 0, queen: 0, king: 0 },
            black: shakmaty::ByRole { pawn: 0, knight: 0, bishop: 0, rook: 0, queen: 0, king: 0 },
        }),
        white_pawns: 0,
        white_placements: 0,
        pawn_placements: 0,
        start: U192::ZERO,
    };

    /// The block of `category` and `material`, framed.
    fn frame(category: Category, material: Material) -> Result<Block, KeyError> {
        material.check()?;
        let frame = Frame::new(category, &material, tables())?;
        Ok(Block {
            category,
            material,
            white_pawns: material.side(Color::White).pawn,
            white_placements: frame.white_placements,
            pawn_placements: frame.pawn_placements,
            start: frame.block_start(),
        })
    }

    fn is(&self, category: Category, material: Material) -> bool {
        self.category == category && self.material == material
    }
}

// One cache line a slot.
const _: () = assert!(std::mem::size_of::<Block>() == 64);

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
    fn block(&mut self, category: Category, material: Material) -> Result<Block, KeyError> {
        match self.block {
            Some(block) if block.is(category, material) => Ok(block),
            last => {
                let block = match last {
                    None if self.earlier.is_empty() => Block::frame(category, material)?,
                    _ => earlier_block(&mut self.earlier, category, material)?,
                };
                self.block = Some(block);
                Ok(block)
            }
        }
    }

    /// Encodes a position, like [`Key::encode`].
    pub fn encode(&mut self, position: &Position) -> Result<Key, KeyError> {
        if matches!(position.shakmaty(), shakmaty::variant::VariantPosition::Antichess(_)) {
            return antichess::encode(position, &mut self.antichess);
        }
        if let Some(board) = atomic::stand_in_board(position) {
            // An exploded king's position: the board with its stand-in, under its own byte.
            let category = Category::of(position);
            let (byte, layout, offset) = (lichess::ATOMIC_EXPLODED, *category.layout(), lichess::offset(category));
            let digits = Digits { byte, category, layout, offset, turn: position.turn(), ep_square: None };
            return self.encode_board(&digits, &board?);
        }
        // A Chess960 position's digits are those of a standard category's (its representative),
        // its implied pieces where its configurations say, and its rank offset by the Chess960
        // categories before it under its first byte.
        // A lichess variant's, those of its standard category offset by the categories before it.
        let (byte, category, layout, offset) = match Chess960Category::of(position) {
            None => {
                let category = Category::of(position);
                match position.variant() {
                    Variant::Standard | Variant::Chess960 => {
                        (category.index(), category, *category.layout(), U192::ZERO)
                    }
                    variant => (
                        lichess::byte(variant, position.checks_given())
                            .ok_or(KeyError::NonCanonical("a variant without a first byte of lichess's"))?,
                        category,
                        *category.layout(),
                        lichess::offset(category),
                    ),
                }
            }
            Some(chess960) => {
                (chess960::byte(chess960), chess960.representative(), chess960.layout(), chess960::offset(chess960))
            }
        };
        let digits = Digits { byte, category, layout, offset, turn: position.turn(), ep_square: position.ep_square() };
        self.encode_board(&digits, position.board())
    }

    /// The key of `board` with the digits' side to move and en-passant square, in their
    /// category's block under their first byte.
    fn encode_board(&mut self, digits: &Digits, board: &shakmaty::Board) -> Result<Key, KeyError> {
        let Digits { byte, category, layout, offset, turn, ep_square } = *digits;
        let block = self.block(category, Material(board.material()))?;

        let white_pawns = board.by_piece(Piece { color: Color::White, role: Role::Pawn });
        let black_pawns = board.by_piece(Piece { color: Color::Black, role: Role::Pawn });
        let pawn_index = rank_subset(white_pawns, PAWN_SQUARES)
            + binomial(48, u32::from(block.white_pawns)) * rank_subset(black_pawns, PAWN_SQUARES & !white_pawns);

        let mut holes = !(white_pawns | black_pawns | layout.implied_squares());
        let white_index = place_free_pieces(board, Color::White, &layout, &mut holes);
        let black_index = place_free_pieces(board, Color::Black, &layout, &mut holes);

        let turn_ep = 9 * u64::from(turn == Color::Black) + ep_square.map_or(0, |sq| 1 + u64::from(sq.file()));

        // Inside the material's block: pawns, then turn/en passant, then the free pieces.
        let pieces = U192::from(white_index) + U192::from(block.white_placements) * U192::from(black_index);
        let rank = offset
            + block.start
            + U192::from(pawn_index)
            + U192::from(block.pawn_placements) * (U192::from(turn_ep) + U192::from(TURN_EP_STATES) * pieces);
        Ok(Key::from_byte_and_rank(byte, rank))
    }
}

/// What places a board in the key space besides its pieces: the first byte, the standard
/// category whose tables the digits follow, where its implied pieces stand, the rank's offset
/// under the byte, the side to move and the en-passant square.
#[derive(Clone, Copy)]
struct Digits {
    byte: u8,
    category: Category,
    layout: crate::position::Layout,
    offset: U192,
    turn: Color,
    ep_square: Option<shakmaty::Square>,
}

/// The block of `category` and `material` from `earlier` ([`KeyEncoder`]'s table, made here on
/// the first call), framed and put there when its slot holds another.
fn earlier_block(earlier: &mut Vec<Block>, category: Category, material: Material) -> Result<Block, KeyError> {
    if earlier.is_empty() {
        *earlier = vec![Block::EMPTY; FRAME_SLOTS];
    }
    let slot = &mut earlier[slot_of(category, &material)];
    if !slot.is(category, material) {
        *slot = Block::frame(category, material)?;
    }
    Ok(*slot)
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
