//! What the games family keeps per game, the game id, and the fingerprint that makes a game count
//! once however often it is ingested.

use std::fmt;

use bincode::{Decode, Encode};
use shakmaty::Position as _;

use crate::{
    codec::CompactMove,
    ingest::{Game, GameResult, Tags},
    position::Position,
};

/// A game's number in the database, from 1: batches of games get ids in input order, and the
/// games of a batch in the order of their mainlines (see the indexer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameId(pub u64);

impl GameId {
    /// The games-family key: big-endian, so that ids sort numerically.
    pub fn to_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<GameId> {
        Some(GameId(u64::from_be_bytes(bytes.try_into().ok()?)))
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A stored game: its tags, result, start position when set up, and mainline.
///
/// Stored with bincode's standard (varint) configuration; the mainline is the moves'
/// [`CompactMove`] bits, two little-endian bytes a ply.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct GameRecord {
    pub tags: Tags,
    pub result: GameResult,
    /// The `FEN` tag of a game that does not start from the initial position.
    pub setup_fen: Option<String>,
    moves: Vec<u8>,
}

impl GameRecord {
    /// Takes the game's tags and set-up FEN (leaving them empty) and packs its mainline.
    pub fn take_from(game: &mut Game) -> GameRecord {
        let moves = game.moves.iter().flat_map(|m| CompactMove::from_move(m).bits().to_le_bytes()).collect();
        let tags = std::mem::take(&mut game.tags);
        GameRecord { tags, result: game.result, setup_fen: game.setup_fen.take(), moves }
    }

    /// The mainline as stored.
    pub fn moves(&self) -> impl Iterator<Item = Option<CompactMove>> + '_ {
        self.moves.chunks_exact(2).map(|pair| CompactMove::from_bits(u16::from_le_bytes([pair[0], pair[1]])))
    }

    /// The packed mainline (two bytes a ply), for ordering games by their moves.
    pub fn move_bytes(&self) -> &[u8] {
        &self.moves
    }

    pub fn plies(&self) -> usize {
        self.moves.len() / 2
    }

    /// The game as PGN: its tags and mainline (SAN, wrapped at 80 columns). `None` if a stored
    /// move does not replay.
    pub fn to_pgn(&self) -> Option<String> {
        use std::fmt::Write as _;
        let tags = &self.tags;
        let mut out = String::new();
        let quote = |value: &str| value.replace('\\', "\\\\").replace('"', "\\\"");
        let mut tag = |name: &str, value: &str| {
            let _ = writeln!(out, "[{name} \"{}\"]", quote(value));
        };
        let or_unknown = |value: &str| if value.is_empty() { "?".to_owned() } else { value.to_owned() };
        tag("Event", &or_unknown(&tags.event));
        tag("Site", &or_unknown(&tags.site));
        tag("Date", &if tags.date.is_empty() { "????.??.??".to_owned() } else { tags.date.clone() });
        tag("Round", &or_unknown(&tags.round));
        tag("White", &or_unknown(&tags.white));
        tag("Black", &or_unknown(&tags.black));
        tag("Result", self.result.tag());
        for (name, value) in [("WhiteElo", tags.white_elo), ("BlackElo", tags.black_elo)] {
            if let Some(value) = value {
                tag(name, &value.to_string());
            }
        }
        for (name, value) in [("ECO", &tags.eco), ("TimeControl", &tags.time_control)] {
            if !value.is_empty() {
                tag(name, value);
            }
        }
        if let Some(fen) = &self.setup_fen {
            tag("SetUp", "1");
            tag("FEN", fen);
        }
        out.push('\n');
        let positions = replay(self)?;
        let mut tokens = Vec::with_capacity(self.plies() * 3 / 2 + 1);
        for (index, (position, m)) in positions.iter().zip(self.moves()).enumerate() {
            let m = m?.to_move(position)?;
            let number = position.fullmoves().get();
            let san = shakmaty::san::SanPlus::from_move(position.clone(), m);
            // A move number stays on the line of its move.
            tokens.push(match (position.turn().is_white(), index) {
                (true, _) => format!("{number}. {san}"),
                (false, 0) => format!("{number}... {san}"),
                (false, _) => san.to_string(),
            });
        }
        tokens.push(self.result.tag().to_owned());
        let mut width = 0;
        for token in tokens {
            if width > 0 && width + 1 + token.len() > 80 {
                out.push('\n');
                width = 0;
            } else if width > 0 {
                out.push(' ');
                width += 1;
            }
            width += token.len();
            out.push_str(&token);
        }
        out.push('\n');
        Some(out)
    }
}

/// 128 bits identifying a game: start position, mainline and the White, Black, Date and Round
/// tags (trimmed). Two games with the same fingerprint are the same game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 16]);

impl Fingerprint {
    /// The fingerprint of a game starting from `start` (canonical, so FENs differing only in
    /// their counters agree) whose record is `record`.
    pub fn of(start: &Position, record: &GameRecord) -> Fingerprint {
        let mut bytes = Vec::with_capacity(64 + record.moves.len());
        if *start != Position::initial() {
            bytes.extend_from_slice(start.to_string().as_bytes());
        }
        bytes.push(0);
        bytes.extend_from_slice(&record.moves);
        let tags = &record.tags;
        for tag in [&tags.white, &tags.black, &tags.date, &tags.round] {
            bytes.push(0);
            bytes.extend_from_slice(tag.trim().as_bytes());
        }
        Fingerprint(xxhash_rust::xxh3::xxh3_128(&bytes).to_be_bytes())
    }
}

/// Replays a stored mainline from its start; `None` if a stored move is not legal there.
pub fn replay(record: &GameRecord) -> Option<Vec<shakmaty::Chess>> {
    let start = match &record.setup_fen {
        Some(fen) => fen.parse::<Position>().ok()?.into_chess(),
        None => shakmaty::Chess::default(),
    };
    let mut positions = vec![start];
    for m in record.moves() {
        let current = positions.last()?;
        let m = m?.to_move(current)?;
        let mut next = current.clone();
        next.play_unchecked(m);
        positions.push(next);
    }
    Some(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_corrupt_bytes_are_refused() {
        let raw = crate::ingest::RawGame {
            number: 1,
            line: 1,
            text: b"[White \"A\"]\n[WhiteElo \"2700\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. a8=Q+ Kd7 1-0"
                .to_vec(),
        };
        let mut game = crate::ingest::parse_game(&raw).expect("a valid game");
        let record = GameRecord::take_from(&mut game);
        let bytes = super::super::encode_record(&record);
        let decode = |bytes: &[u8]| super::super::decode_record::<GameRecord>(bytes);
        assert_eq!(decode(&bytes), Some(record.clone()));
        assert_eq!(replay(&record).map(|p| p.len()), Some(3));
        assert_eq!(record.tags.white_elo, Some(2700));
        // Truncations, a trailing byte and a huge length prefix never panic.
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None);
        }
        assert_eq!(decode(&[bytes.as_slice(), &[0]].concat()), None);
        assert_eq!(decode(&[0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), None);
    }
}
