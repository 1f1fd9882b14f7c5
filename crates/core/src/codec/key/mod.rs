//! The fixed-length position key: this module defines its layout (docs/FORMAT.md, "The key");
//! [`rank`] computes the rank's digits, [`KeyEncoder`] and [`KeyDecoder`] run them over many
//! positions in a row.
//!
//! ```text
//! byte 0       category (0..=80, see `position::Category`); 81..=196 for Chess960 ([`chess960`]);
//!              197..=216 for King of the Hill, Racing Kings, Three-check and Atomic ([`lichess`]);
//!              217..=219 for Antichess, whose code is its own ([`antichess`])
//! bytes 1..21  big-endian rank of the position inside its category (< 2^160)
//! ```
//!
//! The rank is a mixed-radix number (Tomic's enumerative code), here as the encoder adds up its
//! digits, each line's digit plus the next lines' times its radix:
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
//! empty. The material (pawn counts, then each side's class and content) is the most
//! significant part, so every (category, material) is one contiguous key range
//! ([`material_range`]); inside it Black's free pieces are the most significant digit and the
//! pawn placement the least. Keys compare bytewise in rank order.
//!
//! The material part is dense (every rank below a category's size names a material the bound
//! admits); codes no position produces are rejected on decode as non-canonical: a rook placed on
//! a home square its category says is rookless, an en-passant file without a legal capture, and
//! illegal placements (kings in contact, the side not to move in check, ...).

use std::{fmt, str::FromStr};

use shakmaty::{Board, ByColor, Color, Piece, Role, Setup};

use crate::position::{Category, Position, PositionError, Variant, remaining_checks};

use super::{
    material::{Material, MaterialError},
    tables::{U192, tables},
};
use rank::Frame;

pub mod antichess;
mod atomic;
pub mod chess960;
mod decoder;
mod encoder;
pub mod lichess;
mod rank;

pub use decoder::{KeyBoard, KeyDecoder};
pub use encoder::KeyEncoder;

/// Bits of a key's rank: every category's positions number fewer than 2^160 (the largest, with
/// no implied piece, holds about 2^154.1 placements times 18 turn and en-passant states:
/// 2^158.3).
pub const RANK_BITS: usize = 160;
/// Length of a key in bytes: the category's byte, then the rank's.
pub const KEY_LEN: usize = 1 + RANK_BITS / 8;

/// A position key: category byte + 160-bit rank (docs/FORMAT.md, "The key").
///
/// ```
/// use tabiya_core::{Key, Position};
///
/// let start = Position::initial();
/// let key = Key::encode(&start)?;
/// assert_eq!(key.category()?.index(), 0);
/// assert_eq!(key.decode()?, start);
/// assert_eq!(key.to_string().parse::<Key>()?, key);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode)]
pub struct Key([u8; KEY_LEN]);

/// The order of the bytes, compared as three integers: sorting and merging keys is a hot path
/// of ingest, where a 21-byte `memcmp` call per comparison cost a few percent of the run.
impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.words().cmp(&other.words())
    }
}

impl PartialOrd for Key {
    #[inline]
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
    #[error(
        "category byte {0} is out of range (0..=80 for standard chess, 81..=196 for Chess960, 197..=219 for lichess's variants)"
    )]
    /// A first byte of no key (above 219).
    Category(u8),
    #[error("a Chess960 key (category byte {0}) where a standard chess key is expected")]
    /// A Chess960 key given to what reads standard keys only.
    Chess960(u8),
    #[error("a {1} key (category byte {0}) where a standard chess key is expected")]
    /// A lichess variant's key given to what reads standard keys only.
    Variant(u8, Variant),
    #[error("rank is beyond the last position of category byte {0}")]
    /// A rank past the last position of its category (by its first byte).
    OutOfRange(u8),
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

/// A range of keys, both ends included: the block of one category and material content
/// ([`material_range`]), a part of a scan, a commit's share of the key space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange {
    /// The first key of the range.
    pub first: Key,
    /// The last key of the range (inclusive).
    pub last: Key,
}

impl KeyRange {
    /// Every key a position can have: from standard category 0's first to the last key of
    /// lichess's variants.
    pub const ALL: KeyRange = KeyRange { first: Key::MIN, last: Key::MAX };

    /// Standard chess's keys (first bytes 0 to 80).
    pub const STANDARD: KeyRange = KeyRange { first: Key::MIN, last: Key::LAST_STANDARD };

    /// Chess960's keys (first bytes 81 to 196).
    pub const CHESS960: KeyRange =
        KeyRange { first: Key::FIRST_CHESS960, last: Key::last_of_byte(chess960::LAST_BYTE) };

    /// The keys of a variant's positions.
    pub fn of_variant(variant: Variant) -> KeyRange {
        let bytes = |first: u8, last: u8| KeyRange { first: Key::first_of_byte(first), last: Key::last_of_byte(last) };
        match variant {
            Variant::Standard => KeyRange::STANDARD,
            Variant::Chess960 => KeyRange::CHESS960,
            Variant::KingOfTheHill => bytes(lichess::KING_OF_THE_HILL, lichess::KING_OF_THE_HILL),
            Variant::RacingKings => bytes(lichess::RACING_KINGS, lichess::RACING_KINGS),
            Variant::ThreeCheck => bytes(lichess::THREE_CHECK, lichess::THREE_CHECK_LAST),
            Variant::Atomic => bytes(lichess::ATOMIC, lichess::ATOMIC_EXPLODED),
            Variant::Antichess => bytes(antichess::FIRST_BYTE, antichess::LAST_BYTE),
        }
    }

    /// The keys from `first` up to `end`, `end` excluded; `None` when there are none.
    pub fn until(first: Key, end: Key) -> Option<KeyRange> {
        (first < end).then(|| KeyRange { first, last: end.previous() })
    }

    /// Whether `key` lies in the range.
    #[inline]
    pub fn contains(&self, key: &Key) -> bool {
        self.first <= *key && *key <= self.last
    }

    /// The first key after the range (an exclusive upper bound).
    pub fn after_last(&self) -> Key {
        self.last.next()
    }
}

impl Key {
    /// Encodes a position. Fails only for material the scheme cannot express. Goes through
    /// this thread's [`KeyEncoder`], which keeps the frames of the material blocks it met.
    pub fn encode(position: &Position) -> Result<Key, KeyError> {
        KeyEncoder::with_thread_encoder(|encoder| encoder.encode(position))
    }

    /// Decodes a key back to its position, or says why the bytes are not a key.
    pub fn decode(&self) -> Result<Position, KeyError> {
        let (decoded, layout) = match antichess::is_antichess(self) {
            true => antichess::board(self).map(|board| (board, *board.category.layout()))?,
            false => {
                let (_, header) = self.any_header()?;
                (atomic::placed(self, header.place())?, header.layout)
            }
        };
        let board = Board::try_from_bitboards(decoded.by_role, decoded.by_color)
            .map_err(|_| KeyError::NonCanonical("overlapping pieces"))?;
        for color in Color::ALL {
            if !(board.by_piece(Piece { color, role: Role::Rook }) & layout.rookless_homes(color)).is_empty() {
                return Err(KeyError::NonCanonical("a rook stands on a home square its category says is empty"));
            }
        }
        let setup = Setup {
            board,
            turn: decoded.turn,
            castling_rights: decoded.castling_rights,
            ep_square: decoded.ep_square,
            ..Setup::empty()
        };
        let variant = self.variant().ok_or(KeyError::Category(self.0[0]))?;
        // Three-check's counters as a FEN carries them: the checks each side has left.
        let checks = lichess::of_byte(self.0[0]).and_then(|(_, checks)| checks);
        let setup = Setup { remaining_checks: checks.map(remaining_checks), ..setup };
        let position = Position::from_setup_in(variant, setup, format_args!("key {self}"))?;
        if position.ep_square() != decoded.ep_square {
            return Err(KeyError::NonCanonical("en-passant file without a legal en-passant capture"));
        }
        // A Chess960 configuration may name rights shakmaty reads otherwise, or none where a
        // rook could keep one: what encodes to other bytes is no Chess960 key.
        if self.is_chess960() && Key::encode(&position)? != *self {
            return Err(KeyError::NonCanonical("the position encodes to other bytes"));
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
    /// use tabiya_core::{Key, Position};
    ///
    /// let key = Key::encode(&Position::initial())?;
    /// let board = key.decode_board(|_, material| material.to_string() == "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP")?;
    /// assert_eq!(board.expect("accepted").occupied().count(), 32);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_board(&self, accept: impl FnOnce(Category, &Material) -> bool) -> Result<Option<KeyBoard>, KeyError> {
        if antichess::is_antichess(self) {
            // As a scan's decoder asks: with the category it gives every key of the block.
            return antichess::decode_board(self, accept);
        }
        let (_, header) = self.any_header()?;
        if !accept(header.category, &header.material) {
            return Ok(None);
        }
        atomic::placed(self, header.place()).map(Some)
    }

    /// The key's material, without placing its pieces.
    ///
    /// ```
    /// use tabiya_core::{Key, Position};
    ///
    /// assert_eq!(Key::encode(&Position::initial())?.material()?.men(), 32);
    /// assert_eq!(Key::encode(&Position::chess960_start(0).expect("0"))?.material()?.men(), 32);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn material(&self) -> Result<Material, KeyError> {
        if antichess::is_antichess(self) {
            return antichess::material_block(self).map(|(_, material)| material);
        }
        let (_, header) = self.any_header()?;
        let mut material = header.material;
        // An exploded king's stand-in is no man of the position.
        if atomic::is_exploded(self) {
            material.0.get_mut(rank::turn_of(header.turn_ep)).king = 0;
        }
        Ok(material)
    }
}

impl Key {
    /// The category byte, or an error when it is above 80: a Chess960 key
    /// ([`KeyError::Chess960`]), a lichess variant's ([`KeyError::Variant`]) or no key.
    pub fn category(&self) -> Result<Category, KeyError> {
        let byte = self.0[0];
        Category::new(byte).ok_or(match lichess::of_byte(byte) {
            _ if self.is_chess960() => KeyError::Chess960(byte),
            _ if antichess::is_antichess(self) => KeyError::Variant(byte, Variant::Antichess),
            Some((variant, _)) => KeyError::Variant(byte, variant),
            None => KeyError::Category(byte),
        })
    }

    /// The variant whose space the key lies in (`None` for bytes of no key).
    pub fn variant(&self) -> Option<Variant> {
        match self.0[0] {
            byte if Category::new(byte).is_some() => Some(Variant::Standard),
            _ if self.is_chess960() => Some(Variant::Chess960),
            _ if antichess::is_antichess(self) => Some(Variant::Antichess),
            byte => lichess::of_byte(byte).map(|(variant, _)| variant),
        }
    }

    /// In Three-check's space, the checks each side gave (its first byte holds them); `None`
    /// in other variants'.
    pub fn checks_given(&self) -> Option<ByColor<u8>> {
        lichess::of_byte(self.0[0]).and_then(|(_, checks)| checks)
    }

    /// Whether the key's first byte is a Chess960 category's.
    #[inline]
    pub fn is_chess960(&self) -> bool {
        (chess960::FIRST_BYTE..=chess960::LAST_BYTE).contains(&self.0[0])
    }

    /// The digits of any variant's key, with the offset of its category's ranks under its
    /// first byte (zero for standard chess).
    fn any_header(&self) -> Result<(U192, rank::Header), KeyError> {
        if self.is_chess960() {
            let (category, header) = chess960::header(self)?;
            Ok((chess960::offset(category), header))
        } else if lichess::of_byte(self.0[0]).is_some() {
            let header = lichess::header(self)?;
            Ok((lichess::offset(header.category), header))
        } else {
            Ok((U192::ZERO, self.header()?))
        }
    }

    /// The key range of the material block the key lies in (its category and material), and
    /// the material: a standard key's is [`material_range`]'s.
    ///
    /// ```
    /// use tabiya_core::{Category, Key, Position};
    /// use tabiya_core::codec::material_range;
    ///
    /// let start = Position::initial();
    /// let key = Key::encode(&start)?;
    /// let (block, material) = key.material_block()?;
    /// assert_eq!(block, material_range(Category::of(&start), &material)?);
    /// let chess960 = Key::encode(&Position::chess960_start(0).expect("0"))?;
    /// assert!(chess960.material_block()?.0.contains(&chess960));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn material_block(&self) -> Result<(KeyRange, Material), KeyError> {
        if antichess::is_antichess(self) {
            return antichess::material_block(self);
        }
        let (offset, header) = self.any_header()?;
        let frame = Frame::new(header.category, &header.material, tables())?;
        let (start, size) = (offset + frame.block_start(), frame.block_size());
        let (byte, last) = (self.0[0], start + size - U192::from(1u8));
        let range = KeyRange { first: Key::from_byte_and_rank(byte, start), last: Key::from_byte_and_rank(byte, last) };
        Ok((range, header.material))
    }

    /// The rank, bytes 1 to 21.
    fn rank(&self) -> U192 {
        U192::from_be_slice(&self.0[1..])
    }

    /// The raw bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The bytes as three big-endian integers, which order as the bytes do: sorts and merges of
    /// millions of keys compare these instead of calling `memcmp` (24 bytes, 8-byte aligned).
    #[inline]
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
    #[inline]
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Key {
        Key(bytes)
    }

    /// The first key of category 0: no key is smaller.
    pub const MIN: Key = Key([0; KEY_LEN]);

    /// The last key of lichess's variants' last first byte (Antichess's): no key of a position
    /// is larger.
    pub const MAX: Key = Key::last_of_byte(antichess::LAST_BYTE);

    /// The last key of standard chess's last category (80).
    pub const LAST_STANDARD: Key = Key::last_of_byte((Category::COUNT - 1) as u8);

    /// The first key of Chess960's first category byte (81).
    pub const FIRST_CHESS960: Key = {
        let mut bytes = [0; KEY_LEN];
        bytes[0] = chess960::FIRST_BYTE;
        Key(bytes)
    };

    const fn first_of_byte(byte: u8) -> Key {
        let mut bytes = [0; KEY_LEN];
        bytes[0] = byte;
        Key(bytes)
    }

    const fn last_of_byte(byte: u8) -> Key {
        let mut bytes = [0xff; KEY_LEN];
        bytes[0] = byte;
        Key(bytes)
    }

    /// The key after this one in byte order (saturating: all 0xff stays).
    pub fn next(&self) -> Key {
        let mut bytes = self.0;
        for byte in bytes.iter_mut().rev() {
            let (sum, carry) = byte.overflowing_add(1);
            *byte = sum;
            if !carry {
                return Key(bytes);
            }
        }
        *self
    }

    /// The key before this one in byte order (saturating: all zeros stays).
    pub fn previous(&self) -> Key {
        let mut bytes = self.0;
        for byte in bytes.iter_mut().rev() {
            let (difference, borrow) = byte.overflowing_sub(1);
            *byte = difference;
            if !borrow {
                return Key(bytes);
            }
        }
        *self
    }

    fn from_parts(category: Category, rank: U192) -> Key {
        Key::from_byte_and_rank(category.index(), rank)
    }

    fn from_byte_and_rank(byte: u8, rank: U192) -> Key {
        let mut bytes = [0u8; KEY_LEN];
        bytes[0] = byte;
        bytes[1..].copy_from_slice(&rank.to_be_bytes::<{ U192::BYTES }>()[U192::BYTES + 1 - KEY_LEN..]);
        Key(bytes)
    }
}

impl TryFrom<&[u8]> for Key {
    type Error = KeyError;

    #[inline]
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
/// use tabiya_core::{Category, Key, Material, Position};
/// use tabiya_core::codec::material_range;
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
