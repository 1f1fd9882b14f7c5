//! Position codecs: the fixed-length [`Key`] that orders the database, and the variable-length
//! [`huffman`] packed format used by exports, and the two-byte [`CompactMove`]; a stored game's
//! [`mainline`] in about 5.4 bits a ply.
//!
//! Both are exact: decoding an encoded position gives it back, and decoding arbitrary bytes
//! gives a position or an error, never a panic.

pub mod annotations;
mod combinatorics;
mod compact_move;
pub mod huffman;
mod key;
pub mod mainline;
mod material;
pub mod range;
mod tables;

pub use compact_move::CompactMove;
pub use key::{
    KEY_LEN, Key, KeyBoard, KeyDecoder, KeyEncoder, KeyError, KeyRange, KeyWords, antichess, chess960, lichess,
    material_range,
};
pub use material::{Material, MaterialError};
