//! The oracle of the one-pass PGN reader (`input::parse_game`): the reading the indexer gave a
//! game's text before it, kept as it was, to compare the two game by game.

mod pgn;
mod syntax;

pub use pgn::parse_game;
