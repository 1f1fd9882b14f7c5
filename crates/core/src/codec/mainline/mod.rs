//! A game's mainline in about five and a half bits a ply, the way the mainlines family stores it.
//!
//! Each move is three symbols read against the position it is played from (see [`model`]): the
//! moving piece's role among the roles the side to move has, which of its pieces of that role,
//! and its target among the squares the board lets it reach, each written with the Huffman
//! code of its context ([`code`], tables counted on master games). The bits go most significant
//! first, so mainlines sharing their first moves share their first bytes and sort together.
//!
//! Decoding needs the position, so a mainline is read by replaying it; it needs no move
//! generation (only the attacks of the moving piece), and bits that do not name a possible move
//! there are refused. The number of plies is stored beside the bits: the last byte's padding
//! is no move.

use shakmaty::{Chess, Move, Position as _, variant::VariantPosition};

use crate::position::{Position, Variant};

pub mod code;
pub mod model;
pub mod tables;

use code::{BitReader, BitWriter};
use model::Promotions;

impl Promotions {
    /// The promotions of `variant`'s pawns.
    pub fn of(variant: Variant) -> Promotions {
        match variant {
            Variant::Antichess => Promotions::WithKing,
            _ => Promotions::Standard,
        }
    }
}

/// Writes a mainline move by move, as a game is read.
#[derive(Default)]
pub struct MainlineWriter {
    bits: BitWriter,
    plies: u32,
    promotions: Promotions,
}

impl MainlineWriter {
    /// Appends `m`, a legal move in `position` (the position after the moves before it).
    /// Returns `false`, writing nothing, for a move that is not one of the position's.
    pub fn push(&mut self, position: &impl shakmaty::Position, m: &Move) -> bool {
        let written = model::write_move(position, m, self.promotions, &mut self.bits);
        self.plies += u32::from(written);
        written
    }

    /// A writer of a game of `variant`: Antichess's pawns may promote to a king.
    pub fn new(variant: Variant) -> MainlineWriter {
        MainlineWriter { promotions: Promotions::of(variant), ..MainlineWriter::default() }
    }

    /// The bytes and the plies.
    pub fn finish(self) -> (Vec<u8>, u32) {
        (self.bits.finish(), self.plies)
    }
}

/// The bytes and plies of a mainline: `moves`, legal one after the other from `start`.
pub fn encode(start: &Chess, moves: &[Move]) -> (Vec<u8>, u32) {
    let mut writer = MainlineWriter::default();
    let mut position = start.clone();
    for m in moves {
        writer.push(&position, m);
        position.play_unchecked(*m);
    }
    writer.finish()
}

/// Reads a mainline's moves by replaying it from its start; yields `None` once, then stops,
/// at bits that do not name a possible move in the position reached.
pub struct MainlineReader<'a> {
    bits: BitReader<'a>,
    left: u32,
    position: Position,
    /// What its pawns promote to: the variant's, set once.
    promotions: Promotions,
    broken: bool,
}

impl<'a> MainlineReader<'a> {
    /// A reader of the `plies` moves of `bytes`, a mainline played from `start` by its rules.
    pub fn new(start: Position, bytes: &'a [u8], plies: u32) -> MainlineReader<'a> {
        let promotions = Promotions::of(start.variant());
        MainlineReader { bits: BitReader::new(bytes), left: plies, position: start, promotions, broken: false }
    }

    /// The position before the next move, with its rules (what keys it).
    #[inline]
    pub fn current(&self) -> &Position {
        &self.position
    }

    #[inline]
    fn read(&mut self) -> Option<Move> {
        match self.position.shakmaty() {
            VariantPosition::Chess(chess) => {
                model::read_move(chess, Promotions::Standard, &mut self.bits)?.to_move_trusted(chess, false)
            }
            other => {
                let kings_are_pieces = self.promotions == Promotions::WithKing;
                model::read_move(other, self.promotions, &mut self.bits)?.to_move_trusted(other, kings_are_pieces)
            }
        }
    }
}

impl Iterator for MainlineReader<'_> {
    type Item = Option<Move>;

    #[inline]
    fn next(&mut self) -> Option<Option<Move>> {
        if self.broken || self.left == 0 {
            return None;
        }
        self.left -= 1;
        let m = self.read();
        match m {
            Some(m) => self.position.play_legal(m),
            None => self.broken = true,
        }
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use shakmaty::{fen::Fen, uci::UciMove};

    use super::*;

    fn play(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut position = start.clone();
        ucis.iter()
            .map(|uci| {
                let m = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
                position.play_unchecked(m);
                m
            })
            .collect()
    }

    /// A test position, standard or Chess960.
    fn wrap(chess: &Chess) -> Position {
        Position::from_chess(chess.clone()).expect("a standard or Chess960 position")
    }

    fn round_trip(start: &Chess, moves: &[Move]) -> Vec<u8> {
        let (bytes, plies) = encode(start, moves);
        assert_eq!(plies as usize, moves.len());
        let read: Vec<Option<Move>> = MainlineReader::new(wrap(start), &bytes, plies).collect();
        assert_eq!(read, moves.iter().map(|m| Some(*m)).collect::<Vec<_>>());
        bytes
    }

    #[test]
    fn castling_en_passant_and_promotions_round_trip() {
        let start = Chess::default();
        // En passant (e5d6), both castlings, a capture promoting to a knight.
        let mut moves = play(&start, &["e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "c8e6", "g1f3", "b8c6", "f1e2", "d8d7"]);
        let mut position = start.clone();
        for m in &moves {
            position.play_unchecked(*m);
        }
        moves.extend(play(&position, &["e1g1", "e8c8", "d6c7", "d7d2", "c7d8n"]));
        round_trip(&start, &moves);
        // Every underpromotion, with and without a capture, from a set-up position.
        let setup: Chess = "1n5k/P7/8/8/8/8/8/4K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        for uci in ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"] {
            let bytes = round_trip(&setup, &play(&setup, &[uci]));
            assert_eq!(bytes.len(), 1, "{uci}");
        }
        // A common opening takes under six bits a ply.
        let opening = play(&start, &["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"]);
        assert!(round_trip(&start, &opening).len() <= 7);
        // A side with only its king and a king with one square spend no bits.
        let bare: Chess = "7k/8/8/8/8/8/8/K7 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let moves = play(&bare, &["a1b1"]);
        assert!(round_trip(&bare, &moves).len() <= 1);
    }

    /// A random legal game from the initial position, `plies` long at most.
    fn random_game(seed: u64, plies: usize) -> Vec<Move> {
        random_game_from(&Chess::default(), seed, plies)
    }

    /// A random legal game from `start`, `plies` long at most, castling whenever it may on
    /// odd draws.
    fn random_game_from(start: &Chess, seed: u64, plies: usize) -> Vec<Move> {
        random_game_preferring(start, seed, plies, |m: &Move| m.is_castle())
    }

    /// A random legal game from `start` by its rules, `plies` long at most, playing a move
    /// `preferred` picks out whenever there is one on odd draws.
    fn random_game_preferring<P: shakmaty::Position + Clone>(
        start: &P,
        seed: u64,
        plies: usize,
        preferred: impl Fn(&Move) -> bool,
    ) -> Vec<Move> {
        let mut state = seed | 1;
        let mut position = start.clone();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let picked: Vec<Move> = legal.iter().copied().filter(|m| preferred(m)).collect();
            let m = match picked.is_empty() || state.is_multiple_of(2) {
                true => legal[(state / 2 % legal.len() as u64) as usize],
                false => picked[(state / 2 % picked.len() as u64) as usize],
            };
            position.play_unchecked(m);
            moves.push(m);
        }
        moves
    }

    /// Chess960 start position `number`, as shakmaty's Chess960 castling mode reads it.
    fn chess960_start(number: u16) -> Chess {
        crate::Position::chess960_start(number)
            .expect("a start position")
            .as_chess()
            .cloned()
            .expect("Chess960 is chess")
    }

    #[test]
    fn chess960_games_round_trip_with_castling_as_the_king_taking_its_rook() {
        let mut castled = 0;
        for number in 0..960 {
            let start = chess960_start(number);
            let moves = random_game_from(&start, u64::from(number) * 7919 + 1, 120);
            castled += moves.iter().filter(|m| m.is_castle()).count();
            round_trip(&start, &moves);
        }
        assert!(castled > 960, "{castled} castlings");
        // The king one step from its castling square: a plain king move and castling differ.
        let start: Chess = "rk5r/8/8/8/8/8/8/R4K1R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Chess960)
            .unwrap();
        let moves = play(&start, &["f1h1"]);
        assert_eq!(moves, vec![Move::Castle { king: shakmaty::Square::F1, rook: shakmaty::Square::H1 }]);
        round_trip(&start, &moves);
        round_trip(&start, &play(&start, &["f1g1"]));
        round_trip(&start, &play(&start, &["f1a1"]));
    }

    /// Random Antichess games, played by shakmaty's Antichess: kings are taken and promoted
    /// to, and every move reads back (a promotion to a queen or a king costs one bit more).
    #[test]
    fn antichess_games_round_trip_with_kings_taken_and_promoted_to() {
        let (mut king_promotions, mut kings_taken) = (0, 0);
        for seed in 1..400u64 {
            let start = Variant::Antichess.initial();
            // Promote to a king whenever one may, on odd draws.
            let is_king_promotion = |m: &Move| m.promotion() == Some(shakmaty::Role::King);
            let moves = random_game_preferring(start.shakmaty(), seed * 0x9e37_79b9, 400, is_king_promotion);
            king_promotions += moves.iter().filter(|m| is_king_promotion(m)).count();
            kings_taken += moves.iter().filter(|m| m.capture() == Some(shakmaty::Role::King)).count();
            let mut position = start.shakmaty().clone();
            let mut writer = MainlineWriter::new(Variant::Antichess);
            for m in &moves {
                assert!(writer.push(&position, m));
                position.play_unchecked(*m);
            }
            let (bytes, plies) = writer.finish();
            let read: Vec<Option<Move>> = MainlineReader::new(start, &bytes, plies).collect();
            assert_eq!(read, moves.into_iter().map(Some).collect::<Vec<_>>(), "seed {seed}");
        }
        assert!(king_promotions > 20 && kings_taken > 100, "{king_promotions} {kings_taken}");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_read_as_possible_antichess_moves_or_stop(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let start = Variant::Antichess.initial();
            let mut position = start.shakmaty().clone();
            for m in MainlineReader::new(start, &bytes, 400) {
                let Some(m) = m else { break };
                // What is read can be written again (the reader trusts stored moves to be
                // legal: a move a compulsory capture forbids is read as the board allows it).
                let mut again = MainlineWriter::new(Variant::Antichess);
                prop_assert!(again.push(&position, &m));
                let (again, plies) = again.finish();
                let here = Position::from_setup_in(Variant::Antichess, position.to_setup(shakmaty::EnPassantMode::Always), "read");
                if let Ok(here) = here {
                    let read: Vec<_> = MainlineReader::new(here, &again, plies).collect();
                    prop_assert_eq!(read, vec![Some(m)]);
                }
                position.play_unchecked(m);
            }
        }

        #[test]
        fn random_games_round_trip(seed in any::<u64>(), plies in 0usize..300) {
            round_trip(&Chess::default(), &random_game(seed, plies));
        }

        #[test]
        fn arbitrary_bytes_read_as_possible_moves_or_stop(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut position = Chess::default();
            for m in MainlineReader::new(Position::initial(), &bytes, 400) {
                let Some(m) = m else { break };
                // What is read can be played and encoded again.
                let mut again = MainlineWriter::default();
                prop_assert!(again.push(&position, &m));
                let (again, plies) = again.finish();
                let read: Vec<_> = MainlineReader::new(wrap(&position), &again, plies).collect();
                prop_assert_eq!(read, vec![Some(m)]);
                position.play_unchecked(m);
            }
        }
    }
}
