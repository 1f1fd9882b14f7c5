//! The fixed-length position key: the one file that defines its layout.
//!
//! ```text
//! byte 0       category (0..=80, see `position::Category`)
//! bytes 1..21  big-endian rank of the position inside its category (< 2^160)
//! ```
//!
//! The rank is a mixed-radix number; from most to least significant:
//!
//! ```text
//! rank = pawns_before[pawn pair]                       ← material block start (tables.rs)
//!      + pawn_index                                    ← white pawns, then black, on 48 squares
//!      + pawn_placements · ( turn_ep                   ← 9·turn + (0 | 1 + en-passant file)
//!      + 18 · ( white_before[class_w]                  ← White's non-pawn class
//!             + C(F, n_w) · Z · weight_before[w]       ← White's content inside its class
//!             + white_index                            ← White's free pieces on F squares
//!             + A_w · ( black_before[class_b]          ← Black's non-pawn class
//!                     + C(R, n_b) · weight_before[b]   ← Black's content inside its class
//!                     + black_index )))                ← Black's free pieces on R = F − n_w
//! ```
//!
//! where `F` is the number of squares neither pawns nor implied pieces occupy, `A_w` the
//! number of placements of White's free pieces and `Z` the number of Black placements allowed
//! with White's class. Free pieces are placed kind by kind (king if not implied, queens, rooks
//! not at home, bishops, knights) with the combinatorial number system over the squares still
//! empty. Every (category, material) is therefore one contiguous key range
//! ([`material_range`]), and keys compare bytewise in rank order.
//!
//! The material part is dense (every rank below a category's size names a material the bound
//! admits); codes no position produces are rejected on decode as non-canonical: a rook placed on
//! a home square its category says is rookless, an en-passant file without a legal capture, and
//! illegal placements (kings in contact, the side not to move in check, ...).

use std::{fmt, str::FromStr};

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, Color, EnPassantMode, Piece, Position as _, Rank, Role, Setup, Square,
};

use super::{
    combinatorics::{PAWN_SQUARES, binomial, rank_subset, unrank_subset},
    material::{Material, MaterialError},
    tables::{Class, Implied, SideVector, TURN_EP_STATES, Tables, U192, pawn_placements, tables},
};
use crate::position::{Category, Position, PositionError};

/// Length of a key in bytes.
pub const KEY_LEN: usize = 21;

/// A position key: category byte + 160-bit rank (see the [module documentation](self)).
///
/// ```
/// use tabiya::{Key, Position};
///
/// let start = Position::initial();
/// let key = Key::encode(&start)?;
/// assert_eq!(key.category()?.index(), 0);
/// assert_eq!(key.decode()?, start);
/// assert_eq!(key.to_string().parse::<Key>()?, key);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; KEY_LEN]);

/// The order of the bytes, compared as three integers: sorting and merging keys is a hot path
/// of ingest, where a 21-byte `memcmp` call per comparison cost a few percent of the run.
impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.words().cmp(&other.words())
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A key as three integers ([`Key::words`]): they order as the bytes do, without `memcmp`.
pub type KeyWords = (u64, u64, u64);

/// Why a position has no key, or some bytes are not a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("a key is {KEY_LEN} bytes, got {0}")]
    /// Not 21 bytes.
    Length(usize),
    #[error("not a hexadecimal key: {0:?}")]
    /// Not 42 hexadecimal digits.
    Hex(String),
    #[error("category byte {0} is out of range (0..=80)")]
    /// A category byte above 80.
    Category(u8),
    #[error("rank is beyond the last position of category {0}")]
    /// A rank past the last position of its category.
    OutOfRange(Category),
    #[error("non-canonical key: {0}")]
    /// A key no position encodes to (decoding and encoding again would differ).
    NonCanonical(&'static str),
    #[error("the key decodes to an illegal position: {0}")]
    /// The key decodes to an illegal position.
    Illegal(#[from] PositionError),
    #[error(transparent)]
    /// The material is impossible.
    Material(#[from] MaterialError),
}

/// The keys of every position with one category and material content (both ends included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange {
    /// The first key of the range.
    pub first: Key,
    /// The last key of the range (inclusive).
    pub last: Key,
}

/// A key's position as bitboards, decoded without validation ([`Key::decode_board`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyBoard {
    /// The rook/castling category.
    pub category: Category,
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

/// A key split into its digits: category, material, and the placement indices.
struct Header {
    category: Category,
    material: Material,
    vectors: ByColor<SideVector>,
    pawns: ByColor<u32>,
    pawn_index: u64,
    turn_ep: u64,
    /// Each side's free pieces' mixed-radix index.
    indices: ByColor<u128>,
}

impl Header {
    /// The pawns the digits stand for.
    fn pawns(&self) -> ByColor<Bitboard> {
        let white_count = self.pawns.white;
        let white = unrank_subset(self.pawn_index % binomial(48, white_count), white_count, PAWN_SQUARES);
        let black = unrank_subset(self.pawn_index / binomial(48, white_count), self.pawns.black, PAWN_SQUARES & !white);
        ByColor { white, black }
    }

    /// The placement the digits stand for, as bitboards.
    fn place(&self) -> KeyBoard {
        self.place_with(self.pawns())
    }

    /// The placement, with the pawns already unranked.
    fn place_with(&self, pawns: ByColor<Bitboard>) -> KeyBoard {
        let category = self.category;
        let mut pieces = Pieces::default();
        let (white_pawns, black_pawns) = (pawns.white, pawns.black);
        pieces.add(white_pawns, Color::White, Role::Pawn);
        pieces.add(black_pawns, Color::Black, Role::Pawn);
        for color in Color::ALL {
            pieces.add(category.home_rooks(color), color, Role::Rook);
            if let Some(king) = category.implied_king(color) {
                pieces.add(Bitboard::from(king), color, Role::King);
            }
        }
        let mut holes = !pieces.occupied();
        for color in [Color::White, Color::Black] {
            let (vector, index) = (*self.vectors.get(color), *self.indices.get(color));
            unplace_free_pieces(&mut pieces, color, category, vector, index, &mut holes);
        }
        let turn = if self.turn_ep >= 9 { Color::Black } else { Color::White };
        let ep_square = match self.turn_ep % 9 {
            0 => None,
            file => {
                Some(Square::from_coords(shakmaty::File::new(file as u32 - 1), turn.fold_wb(Rank::Sixth, Rank::Third)))
            }
        };
        KeyBoard {
            category,
            material: self.material,
            by_role: pieces.by_role,
            by_color: pieces.by_color,
            turn,
            ep_square,
        }
    }
}

/// Decodes a run of keys in key order, as a scan meets them: most keys lie in the same
/// (category, material) block as the one before, so the block's bounds and radices are kept
/// and a key inside them is split by two divisions instead of the table searches.
///
/// ```
/// use tabiya::{Key, Position, codec::KeyDecoder};
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
}

/// Entries of the pawn-structure cache (a power of two).
const PAWN_CACHE: usize = 1 << 16;

/// The material block of the last key decoded.
#[derive(Debug)]
struct Block {
    category: Category,
    start: U192,
    end: U192,
    material: Material,
    vectors: ByColor<SideVector>,
    pawns: ByColor<u32>,
    pawn_placements: u64,
    white_placements: u128,
    accepted: bool,
}

impl KeyDecoder {
    /// Decodes like [`Key::decode_board`]; `accept` is asked once per material block.
    pub fn decode(
        &mut self,
        key: &Key,
        accept: impl FnOnce(Category, &Material) -> bool,
    ) -> Result<Option<KeyBoard>, KeyError> {
        let category = key.category()?;
        let rank = U192::from_be_slice(&key.0[1..]);
        if let Some(block) = &self.block
            && block.category == category
            && block.start <= rank
            && rank < block.end
        {
            if !block.accepted {
                return Ok(None);
            }
            // rank − start = pawn_index + P·(turn_ep + 18·(white_index + W·black_index)).
            let (pieces, low) = (rank - block.start).div_rem(U192::from(block.pawn_placements * TURN_EP_STATES));
            let low = low.to::<u64>();
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
                category,
                material: block.material,
                vectors: block.vectors,
                pawns: block.pawns,
                pawn_index: low % block.pawn_placements,
                turn_ep: low / block.pawn_placements,
                indices: ByColor { white, black },
            };
            let pawns = self.cached_pawns(&header);
            return Ok(Some(header.place_with(pawns)));
        }
        let header = key.header()?;
        let frame = Frame::new(category, &header.material, tables())?;
        let start = frame.block_start();
        let accepted = accept(category, &header.material);
        self.block = Some(Block {
            category,
            start,
            end: start + frame.block_size(),
            material: header.material,
            vectors: header.vectors,
            pawns: header.pawns,
            pawn_placements: frame.pawn_placements,
            white_placements: frame.white_placements,
            accepted,
        });
        Ok(accepted.then(|| header.place()))
    }

    fn cached_pawns(&mut self, header: &Header) -> ByColor<Bitboard> {
        if self.pawn_cache.is_empty() {
            self.pawn_cache = vec![(u64::MAX, ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY }); PAWN_CACHE];
        }
        // The digits with the pawn counts: 48+ bits of index, then 4 + 4 bits of counts.
        let tag = header.pawn_index << 8 | u64::from(header.pawns.white) << 4 | u64::from(header.pawns.black);
        let slot = (tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as usize % PAWN_CACHE;
        let entry = &mut self.pawn_cache[slot];
        if entry.0 != tag {
            *entry = (tag, header.pawns());
        }
        entry.1
    }

    /// The keys of the material block of the last key decoded.
    pub fn block_range(&self) -> Option<KeyRange> {
        let block = self.block.as_ref()?;
        Some(KeyRange {
            first: Key::from_parts(block.category, block.start),
            last: Key::from_parts(block.category, block.end - U192::from(1u8)),
        })
    }
}

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

impl KeyRange {
    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &Key) -> bool {
        self.first <= *key && *key <= self.last
    }

    /// The smallest byte string after every key of the range (an exclusive upper bound).
    pub fn after_last(&self) -> Vec<u8> {
        let mut bound = self.last.as_bytes().to_vec();
        bound.push(0);
        bound
    }
}

impl Key {
    /// Encodes a position. Fails only for material the scheme cannot express. Encoding the
    /// positions of a game one after the other goes faster through a [`KeyEncoder`].
    pub fn encode(position: &Position) -> Result<Key, KeyError> {
        KeyEncoder::default().encode(position)
    }

    /// Decodes a key back to its position, or says why the bytes are not a key.
    pub fn decode(&self) -> Result<Position, KeyError> {
        let decoded = self.header()?.place();
        let board = Board::try_from_bitboards(decoded.by_role, decoded.by_color)
            .map_err(|_| KeyError::NonCanonical("overlapping pieces"))?;
        let category = decoded.category;
        for color in Color::ALL {
            if !(board.by_piece(Piece { color, role: Role::Rook }) & category.rookless_homes(color)).is_empty() {
                return Err(KeyError::NonCanonical("a rook stands on a home square its category says is empty"));
            }
        }
        let setup = Setup {
            board,
            turn: decoded.turn,
            castling_rights: category.castling_rights(),
            ep_square: decoded.ep_square,
            ..Setup::empty()
        };
        let position = Position::from_setup(setup, format_args!("key {self}"))?;
        if position.chess().ep_square(EnPassantMode::Legal) != decoded.ep_square {
            return Err(KeyError::NonCanonical("en-passant file without a legal en-passant capture"));
        }
        Ok(position)
    }

    /// Decodes the placement of a key without building or validating a [`Position`]: the fast
    /// path of scans over stored keys, which a database only holds valid. `accept` sees the
    /// category and material first; when it says no, the placement is not decoded (`Ok(None)`).
    /// Scans over many keys use a [`KeyDecoder`], which reuses the material block's frame.
    ///
    /// Errors are those of the rank itself (out of range, material outside the category);
    /// overlapping pieces or illegal placements are only caught by [`Key::decode`].
    ///
    /// ```
    /// use tabiya::{Key, Position};
    ///
    /// let key = Key::encode(&Position::initial())?;
    /// let board = key.decode_board(|_, material| material.to_string() == "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP")?;
    /// assert_eq!(board.expect("accepted").occupied().count(), 32);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_board(&self, accept: impl FnOnce(Category, &Material) -> bool) -> Result<Option<KeyBoard>, KeyError> {
        let header = self.header()?;
        if !accept(header.category, &header.material) {
            return Ok(None);
        }
        Ok(Some(header.place()))
    }

    /// The key's category and material, without placing its pieces: what names the material
    /// block ([`material_range`]) it lies in.
    ///
    /// ```
    /// use tabiya::{Key, Position};
    ///
    /// let (category, material) = Key::encode(&Position::initial())?.category_and_material()?;
    /// assert_eq!((category.index(), material.men()), (0, 32));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn category_and_material(&self) -> Result<(Category, Material), KeyError> {
        self.header().map(|header| (header.category, header.material))
    }

    /// The key's category and material, with the digits of its placement: searches over the
    /// tables from the most significant digit down.
    fn header(&self) -> Result<Header, KeyError> {
        let category = self.category()?;
        let rank = U192::from_be_slice(&self.0[1..]);
        let t = tables();
        let (white_implied, black_implied) = implied_of(category);
        let (wi, bi) = (white_implied.index(), black_implied.index());
        if rank >= t.category_size(wi, bi) {
            return Err(KeyError::OutOfRange(category));
        }
        // 1. Pawn pair: the last block starting at or below the rank.
        let pawn_pair = last_at_or_below(81, |i| t.pawns_before(wi, bi, i) <= rank);
        let (white_pawn_count, black_pawn_count) = ((pawn_pair / 9) as u32, (pawn_pair % 9) as u32);
        let pawn_count = pawn_placements(white_pawn_count, black_pawn_count);
        // P·18 < 2^60: one wide division, then 64-bit arithmetic.
        let (t_value, low) =
            (rank - t.pawns_before(wi, bi, pawn_pair)).div_rem(U192::from(pawn_count * TURN_EP_STATES));
        let low = low.to::<u64>();
        let (pawn_index, turn_ep) = (low % pawn_count, low / pawn_count);

        // 2. White's class and content.
        let white_class = last_at_or_below(t.classes.len(), |c| {
            t.white_before(wi, bi, white_pawn_count, black_pawn_count, c) <= t_value
        });
        let mut value = t_value - t.white_before(wi, bi, white_pawn_count, black_pawn_count, white_class);
        let squares = 64 - white_pawn_count - black_pawn_count - white_implied.squares() - black_implied.squares();
        let white_free = t.sides[wi].class_free[white_class];
        let class = &t.classes[white_class];
        let black_limit = t.black_class_limit(class, white_pawn_count, black_pawn_count);
        let black_squares = squares - white_free;
        let black_total = t.black_before(bi, black_pawn_count, black_limit, black_squares);
        let content_unit = U192::from(binomial(squares, white_free)) * U192::from(black_total);
        let white_vector = content_in_class(t, wi, class, |before| content_unit * U192::from(before) <= value)?;
        value -= content_unit * U192::from(t.sides[wi].weight_before[white_vector]);
        let white_placements = u128::from(binomial(squares, white_free)) * u128::from(t.sides[wi].weight[white_vector]);
        let (inner, white_index) = value.div_rem(U192::from(white_placements));
        let (mut inner, white_index) = (inner.to::<u128>(), white_index.to::<u128>());

        // 3. Black's class and content.
        let black_class =
            last_at_or_below(black_limit, |c| t.black_before(bi, black_pawn_count, c, black_squares) <= inner);
        inner -= t.black_before(bi, black_pawn_count, black_class, black_squares);
        let black_free = t.sides[bi].class_free[black_class];
        let unit = u128::from(binomial(black_squares, black_free));
        let black_vector =
            content_in_class(t, bi, &t.classes[black_class], |before| unit * u128::from(before) <= inner)?;
        let black_index = inner - unit * u128::from(t.sides[bi].weight_before[black_vector]);

        let vectors = ByColor { white: t.vectors[white_vector], black: t.vectors[black_vector] };
        let material = material_of(vectors.white, vectors.black, white_pawn_count as u8, black_pawn_count as u8);
        material.check().map_err(|_| KeyError::NonCanonical("material violates the cross-side bound"))?;
        Ok(Header {
            category,
            material,
            vectors,
            pawns: ByColor { white: white_pawn_count, black: black_pawn_count },
            pawn_index,
            turn_ep,
            indices: ByColor { white: white_index, black: black_index },
        })
    }

    /// The category byte, or an error when it is above 80.
    pub fn category(&self) -> Result<Category, KeyError> {
        Category::new(self.0[0]).ok_or(KeyError::Category(self.0[0]))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The bytes as three big-endian integers, which order as the bytes do: sorts and merges of
    /// millions of keys compare these instead of calling `memcmp` (24 bytes, 8-byte aligned).
    pub fn words(&self) -> KeyWords {
        let mut bytes = [0u8; 24];
        bytes[..KEY_LEN].copy_from_slice(&self.0);
        let word = |at: usize| {
            let mut chunk = [0u8; 8];
            chunk.copy_from_slice(&bytes[at..at + 8]);
            u64::from_be_bytes(chunk)
        };
        (word(0), word(8), word(16))
    }

    /// The key of [`Key::words`]' integers (the last word's last three bytes are ignored).
    pub fn from_words((first, second, third): (u64, u64, u64)) -> Key {
        let mut bytes = [0u8; 24];
        bytes[..8].copy_from_slice(&first.to_be_bytes());
        bytes[8..16].copy_from_slice(&second.to_be_bytes());
        bytes[16..].copy_from_slice(&third.to_be_bytes());
        let mut key = [0u8; KEY_LEN];
        key.copy_from_slice(&bytes[..KEY_LEN]);
        Key(key)
    }

    /// Wraps raw bytes; [`Key::decode`] checks them.
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Key {
        Key(bytes)
    }

    fn from_parts(category: Category, rank: U192) -> Key {
        let mut bytes = [0u8; KEY_LEN];
        bytes[0] = category.index();
        bytes[1..].copy_from_slice(&rank.to_be_bytes::<24>()[4..]);
        Key(bytes)
    }
}

impl TryFrom<&[u8]> for Key {
    type Error = KeyError;

    fn try_from(bytes: &[u8]) -> Result<Key, KeyError> {
        <[u8; KEY_LEN]>::try_from(bytes).map(Key).map_err(|_| KeyError::Length(bytes.len()))
    }
}

impl fmt::Display for Key {
    /// Lowercase hexadecimal, 42 digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({self})")
    }
}

impl FromStr for Key {
    type Err = KeyError;

    /// Parses 42 hexadecimal digits (surrounding whitespace and a `0x` prefix are allowed).
    fn from_str(text: &str) -> Result<Key, KeyError> {
        let digits = text.trim();
        let digits = digits.strip_prefix("0x").unwrap_or(digits);
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) || !digits.len().is_multiple_of(2) {
            return Err(KeyError::Hex(text.to_owned()));
        }
        let bytes: Vec<u8> = (0..digits.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&digits[i..i + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| KeyError::Hex(text.to_owned()))?;
        Key::try_from(bytes.as_slice())
    }
}

/// The key range of every position of `category` with `material`: a material search is one
/// range scan per category.
///
/// ```
/// use tabiya::{Category, Key, Material, Position};
/// use tabiya::codec::material_range;
///
/// let p: Position = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse()?;
/// let range = material_range(Category::of(&p), &"KPvK".parse()?)?;
/// assert!(range.contains(&Key::encode(&p)?));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn material_range(category: Category, material: &Material) -> Result<KeyRange, KeyError> {
    material.check()?;
    let t = tables();
    let frame = Frame::new(category, material, t)?;
    let (start, size) = (frame.block_start(), frame.block_size());
    Ok(KeyRange {
        first: Key::from_parts(category, start),
        last: Key::from_parts(category, start + size - U192::from(1u8)),
    })
}

/// Where one side's content sits in the tables.
#[derive(Clone, Copy, Debug)]
struct SideSlot {
    class: usize,
    free: u32,
    weight: u64,
    weight_before: u64,
}

/// The per-material quantities shared by encode and [`material_range`].
struct Frame {
    pawns: ByColor<u32>,
    pawns_before: U192,
    pawn_placements: u64,
    white: SideSlot,
    black: SideSlot,
    white_before: U192,
    /// Free squares for White's pieces.
    squares: u32,
    black_squares: u32,
    black_total: u128,
    black_before: u128,
    white_placements: u128,
    black_placements: u128,
}

impl Frame {
    fn new(category: Category, material: &Material, t: &Tables) -> Result<Frame, KeyError> {
        let (white_implied, black_implied) = implied_of(category);
        let (wi, bi) = (white_implied.index(), black_implied.index());
        let slot = |color: Color, implied: usize| -> Result<SideSlot, KeyError> {
            let counts = material.side(color);
            let vector =
                SideVector { queens: counts.queen, rooks: counts.rook, bishops: counts.bishop, knights: counts.knight };
            let index = t.vector_index(vector).ok_or(MaterialError::OneSide(color, *material))?;
            let side = &t.sides[implied];
            if side.weight[index] == 0 {
                return Err(KeyError::NonCanonical("fewer rooks than the category puts on home squares"));
            }
            let class = usize::from(t.class_of[index]);
            Ok(SideSlot {
                class,
                free: side.class_free[class],
                weight: side.weight[index],
                weight_before: side.weight_before[index],
            })
        };
        let white = slot(Color::White, wi)?;
        let black = slot(Color::Black, bi)?;
        let pawns = ByColor {
            white: u32::from(material.side(Color::White).pawn),
            black: u32::from(material.side(Color::Black).pawn),
        };
        let squares = 64 - pawns.white - pawns.black - white_implied.squares() - black_implied.squares();
        let black_squares = squares - white.free;
        let white_class: &Class = &t.classes[white.class];
        let black_total = t.black_total(bi, pawns.black, pawns.white, white_class, black_squares);
        Ok(Frame {
            pawns,
            pawns_before: t.pawns_before(wi, bi, (pawns.white * 9 + pawns.black) as usize),
            pawn_placements: pawn_placements(pawns.white, pawns.black),
            white,
            black,
            white_before: t.white_before(wi, bi, pawns.white, pawns.black, white.class),
            squares,
            black_squares,
            black_total,
            black_before: t.black_before(bi, pawns.black, black.class, black_squares),
            white_placements: u128::from(binomial(squares, white.free)) * u128::from(white.weight),
            black_placements: u128::from(binomial(black_squares, black.free)) * u128::from(black.weight),
        })
    }

    /// First rank of the material's block (every placement index zero).
    fn block_start(&self) -> U192 {
        let black = self.black_before
            + u128::from(binomial(self.black_squares, self.black.free)) * u128::from(self.black.weight_before);
        let white = self.white_before
            + self.white_content_unit() * U192::from(self.white.weight_before)
            + U192::from(self.white_placements) * U192::from(black);
        self.pawns_before + U192::from(self.pawn_placements) * U192::from(TURN_EP_STATES) * white
    }

    /// Number of ranks of the material's block.
    fn block_size(&self) -> U192 {
        U192::from(self.pawn_placements)
            * U192::from(TURN_EP_STATES)
            * U192::from(self.white_placements)
            * U192::from(self.black_placements)
    }

    /// Size of the block of one unit of White content weight: `C(F, n_w) · Z`.
    fn white_content_unit(&self) -> U192 {
        U192::from(binomial(self.squares, self.white.free)) * U192::from(self.black_total)
    }
}

fn implied_of(category: Category) -> (Implied, Implied) {
    let side = |color| Implied {
        rooks: category.home_rooks(color).count() as u8,
        king: category.implied_king(color).is_some(),
    };
    (side(Color::White), side(Color::Black))
}

/// Free pieces in placement order.
const FREE_ROLES: [Role; 5] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Mixed-radix index of one side's free pieces on `holes`; removes their squares from `holes`.
fn place_free_pieces(board: &Board, color: Color, category: Category, holes: &mut Bitboard) -> u128 {
    let implied = category.implied_squares();
    let mut index = 0u128;
    let mut radix = 1u128;
    for role in FREE_ROLES {
        let squares = board.by_piece(Piece { color, role }) & !implied;
        let count = squares.count() as u32;
        index += radix * u128::from(rank_subset(squares, *holes));
        radix *= u128::from(binomial(holes.count() as u32, count));
        *holes &= !squares;
    }
    index
}

/// Inverse of [`place_free_pieces`].
fn unplace_free_pieces(
    pieces: &mut Pieces,
    color: Color,
    category: Category,
    v: SideVector,
    mut index: u128,
    holes: &mut Bitboard,
) {
    let king_free = category.implied_king(color).is_none();
    let counts = [
        u32::from(king_free),
        u32::from(v.queens),
        u32::from(v.rooks) - category.home_rooks(color).count() as u32,
        u32::from(v.bishops),
        u32::from(v.knights),
    ];
    for (role, count) in FREE_ROLES.into_iter().zip(counts) {
        if count == 0 {
            continue; // radix 1: no digit
        }
        let radix = binomial(holes.count() as u32, count);
        // Most indices fit 64 bits, where division is several times cheaper.
        let digit = match u64::try_from(index) {
            Ok(small) => {
                index = u128::from(small / radix);
                small % radix
            }
            Err(_) => {
                let digit = (index % u128::from(radix)) as u64;
                index /= u128::from(radix);
                digit
            }
        };
        let squares = unrank_subset(digit, count, *holes);
        pieces.add(squares, color, role);
        *holes &= !squares;
    }
}

/// A board under construction, as bitboards.
#[derive(Default)]
struct Pieces {
    by_role: ByRole<Bitboard>,
    by_color: ByColor<Bitboard>,
}

impl Pieces {
    fn add(&mut self, squares: Bitboard, color: Color, role: Role) {
        *self.by_role.get_mut(role) |= squares;
        *self.by_color.get_mut(color) |= squares;
    }

    fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }
}

/// Largest `i < n` with `at_or_below(i)`, for a predicate true on a prefix starting at 0.
fn last_at_or_below(n: usize, at_or_below: impl Fn(usize) -> bool) -> usize {
    // Branch-free: the comparisons are unpredictable.
    let (mut lo, mut len) = (0, n);
    while len > 1 {
        let half = len / 2;
        lo = if at_or_below(lo + half) { lo + half } else { lo };
        len -= half;
    }
    lo
}

/// The content of a class whose cumulative weight range holds the value, skipping zero-weight
/// contents (too few rooks for the category).
/// Zero-weight contents share their successor's `weight_before`, so the last content at or
/// below the value has a weight unless the value lies past the class (a corrupt key).
fn content_in_class(
    t: &Tables,
    implied: usize,
    class: &Class,
    at_or_below: impl Fn(u64) -> bool,
) -> Result<usize, KeyError> {
    let side = &t.sides[implied];
    let range = class.vectors.clone();
    let index = range.start + last_at_or_below(range.len(), |i| at_or_below(side.weight_before[range.start + i]));
    if side.weight[index] == 0 {
        return Err(KeyError::NonCanonical("material outside the category"));
    }
    Ok(index)
}

fn material_of(white: SideVector, black: SideVector, white_pawns: u8, black_pawns: u8) -> Material {
    let side = |v: SideVector, pawns| ByRole {
        pawn: pawns,
        knight: v.knights,
        bishop: v.bishops,
        rook: v.rooks,
        queen: v.queens,
        king: 1,
    };
    Material(ByColor { white: side(white, white_pawns), black: side(black, black_pawns) })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn keys_and_words_order_as_the_bytes(a in any::<[u8; KEY_LEN]>(), b in any::<[u8; KEY_LEN]>(), shared in 0..KEY_LEN) {
            // Keys sharing a prefix, as neighbours in a sort do.
            let mut b = b;
            b[..shared].copy_from_slice(&a[..shared]);
            let (a, b) = (Key::from_bytes(a), Key::from_bytes(b));
            prop_assert_eq!(a.words().cmp(&b.words()), a.as_bytes().cmp(b.as_bytes()));
            prop_assert_eq!(a.cmp(&b), a.as_bytes().cmp(b.as_bytes()));
            prop_assert_eq!(a.words() == b.words(), a == b);
            prop_assert_eq!(Key::from_words(a.words()), a);
        }
    }
}
