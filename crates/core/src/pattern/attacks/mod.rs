//! Vector attacks: attack, check and pin questions answered on a 0x88 board with one table
//! indexed by square difference (the classic vector-attack technique of 0x88 boards,
//! independent of shakmaty's bitboards).
//!
//! - [`vectors`]: the 240-entry table (which piece kinds attack along a square difference, and
//!   the ray's unit step).
//! - [`VectorBoard`]: the mailbox with piece lists: attackers of a square, attacks of a piece,
//!   checkers, absolute and relative pins, x-rays; [`between`] for the squares on a line.
//!
//! Pattern search ([`crate::pattern`]) evaluates its predicates with it on positions decoded
//! straight from stored keys.

mod board;
pub mod vectors;

pub use board::{Pin, VectorBoard, between};
