//! A game as the database keeps it: its [`GameId`], [`Tags`], [`GameResult`] and packed mainline
//! ([`GameRecord`]), and the [`Fingerprint`] that makes a game count once however often it is
//! ingested.
//!
//! These types are stored with bincode (see `store::layout`): the order of their fields and
//! variants is the on-disk format, and changing it needs a new format version.

use std::fmt;

use bincode::{Decode, Encode};
use shakmaty::Move;

use crate::{
    codec::{CompactMove, mainline::MainlineReader},
    position::{Position, Variant},
};

/// A game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `1/2-1/2`.
    Draw,
    /// `0-1`.
    BlackWins,
    /// `*`, a missing or unreadable result.
    Unknown,
}

impl GameResult {
    /// Every result, in the order [`GameResult::index`] numbers them: White wins, a draw, Black
    /// wins, unknown.
    pub const ALL: [GameResult; 4] =
        [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown];

    /// The result's index in [`GameResult::ALL`] (0 White wins … 3 unknown), for counts by result.
    pub fn index(self) -> usize {
        match self {
            GameResult::WhiteWins => 0,
            GameResult::Draw => 1,
            GameResult::BlackWins => 2,
            GameResult::Unknown => 3,
        }
    }

    /// The PGN result token.
    pub fn tag(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::Draw => "1/2-1/2",
            GameResult::BlackWins => "0-1",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a `Result` tag value; `None` for `*` and anything unreadable.
    pub fn from_tag(value: &str) -> Option<GameResult> {
        match value.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// The winner's colour name (`white`, `black`), `None` for a draw or an unknown result.
    pub fn winner(self) -> Option<&'static str> {
        match self {
            GameResult::WhiteWins => Some("white"),
            GameResult::BlackWins => Some("black"),
            GameResult::Draw | GameResult::Unknown => None,
        }
    }
}

/// The tags a game keeps (the seven-tag roster and what listing and statistics need).
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct Tags {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date`, as given (`YYYY.MM.DD` with `??` for unknown parts).
    pub date: String,
    /// `Round`.
    pub round: String,
    /// `White`: the white player's name.
    pub white: String,
    /// `Black`: the black player's name.
    pub black: String,
    /// `Result`, as given.
    pub result: String,
    /// `WhiteElo`, when a rating from 1 to 3999.
    pub white_elo: Option<u16>,
    /// `BlackElo`, when a rating from 1 to 3999.
    pub black_elo: Option<u16>,
    /// `ECO`.
    pub eco: String,
    /// `TimeControl`.
    pub time_control: String,
}

impl Tags {
    /// When the game was played, as far as its tags say, in an order where later is greater:
    /// the `Date` tag's year, month and day (an unknown part, `??`, before every known one),
    /// then the `Round` tag's numbers (`3.2` after `3.1`; unknown, `?`, first). What "newest
    /// first" sorts by.
    ///
    /// ```
    /// use tabiya_core::model::Tags;
    ///
    /// let tags = |date: &str, round: &str| Tags { date: date.into(), round: round.into(), ..Tags::default() };
    /// assert!(tags("2020.12.29", "1").recency() > tags("2020.12.26", "9").recency());
    /// assert!(tags("2020.12.26", "10").recency() > tags("2020.12.26", "9").recency());
    /// assert!(tags("2020.12.26", "3.2").recency() > tags("2020.12.26", "3.1").recency());
    /// assert!(tags("2020.12.??", "?").recency() < tags("2020.12.01", "?").recency());
    /// ```
    pub fn recency(&self) -> Recency {
        let numbers = |text: &str, separators: &[char]| -> [u32; 3] {
            let mut parts = [0; 3];
            for (part, text) in parts.iter_mut().zip(text.trim().split(separators)) {
                *part = text.trim().parse().unwrap_or(0);
            }
            parts
        };
        // As the date filters read it (`Month::from_date`): a part out of its range is unknown.
        let [year, month, day] = numbers(&self.date, &['.', '-', '/']);
        let year = if (1000..=9999).contains(&year) { year } else { 0 };
        let month = if year > 0 && (1..=12).contains(&month) { month } else { 0 };
        let day = if month > 0 && (1..=31).contains(&day) { day } else { 0 };
        Recency { date: [year, month, day], round: numbers(&self.round, &['.']) }
    }
}

/// When a game was played, as its tags say ([`Tags::recency`]); later compares greater.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Recency {
    /// Year, month and day, 0 where unknown.
    date: [u32; 3],
    /// The round's numbers, 0 where unknown.
    round: [u32; 3],
}

/// A game's number in the database, from 1: batches of games get ids in input order, and the
/// games of a batch in the order of their mainlines (see the indexer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, Encode, Decode)]
#[serde(transparent)]
pub struct GameId(pub u64);

impl GameId {
    /// The games-family key: big-endian, so that ids sort numerically.
    #[inline]
    pub fn to_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Reads a games-family key; `None` unless it is 8 bytes.
    #[inline]
    pub fn from_bytes(bytes: &[u8]) -> Option<GameId> {
        Some(GameId(u64::from_be_bytes(bytes.try_into().ok()?)))
    }
}

impl From<GameId> for u64 {
    fn from(id: GameId) -> u64 {
        id.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A player's name as the players index compares it: lower case, runs of spaces and commas as
/// one space, no NUL.
pub fn player_name(name: &str) -> String {
    let lower = name.to_lowercase().replace('\0', "");
    lower.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// A stored game: its tags, result, start position when set up, and mainline.
///
/// Stored in two parts with bincode's standard (varint) configuration: the tags and result in
/// the games family, the [`Mainline`] (start and moves, about a byte a ply) in the mainlines
/// family, so that scans replaying thousands of games read no tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The tags.
    pub tags: Tags,
    /// How the game ended (from the `Result` tag, else the termination marker).
    pub result: GameResult,
    line: Mainline,
}

impl GameRecord {
    /// A record of a game with these tags and result, started from `setup_fen` (`None`: the
    /// initial position), whose mainline is `plies` legal moves written as [`mainline`](crate::codec::mainline) writes
    /// them (`(bytes, plies)`).
    pub fn new(
        tags: Tags,
        result: GameResult,
        setup_fen: Option<String>,
        (moves, plies): (Vec<u8>, u32),
    ) -> GameRecord {
        GameRecord::from_start(tags, result, setup_fen.map_or(Start::Initial, Start::Fen), (moves, plies))
    }

    /// A record of a game with these tags and result, started from `start`.
    pub fn from_start(tags: Tags, result: GameResult, start: Start, (moves, plies): (Vec<u8>, u32)) -> GameRecord {
        GameRecord { tags, result, line: Mainline { start, plies, moves } }
    }

    /// A record from its stored parts.
    pub fn from_parts(tags: Tags, result: GameResult, line: Mainline) -> GameRecord {
        GameRecord { tags, result, line }
    }

    /// The start and mainline.
    pub fn line(&self) -> &Mainline {
        &self.line
    }

    /// The `FEN` tag of a game that does not start from standard chess's initial position
    /// (every game of another variant has one: its start's).
    pub fn setup_fen(&self) -> Option<&str> {
        match &self.line.start {
            Start::Initial => None,
            Start::Fen(fen) | Start::Chess960(fen) | Start::Lichess { fen, .. } => Some(fen),
        }
    }

    /// The game's variant.
    pub fn variant(&self) -> Variant {
        self.line.start.variant()
    }

    /// Whether the game starts from its variant's standard setup: standard chess's initial
    /// position given by no `FEN`, Chess960's start 518, or a lichess variant's own start (the
    /// setup opening trees and tables by ply grow from).
    pub fn from_standard_setup(&self) -> bool {
        match &self.line.start {
            Start::Initial => true,
            Start::Fen(_) => false,
            start => start.position().is_some_and(|position| position == start.variant().initial()),
        }
    }

    /// The position the mainline starts from, with its rules; `None` for a stored `FEN` that
    /// does not read.
    pub fn start(&self) -> Option<Position> {
        self.line.start_position()
    }

    /// A reader replaying the mainline from its start; `None` for a stored `FEN` that does not
    /// read.
    pub fn mainline(&self) -> Option<MainlineReader<'_>> {
        self.line.reader()
    }

    /// The mainline's moves, read by replaying it; `None` for a move that does not read
    /// (corrupt data), after which it stops.
    pub fn moves(&self) -> impl Iterator<Item = Option<CompactMove>> + '_ {
        let reader = self.mainline();
        let unreadable = reader.is_none().then_some(None);
        let mode = self.variant().castling_mode();
        reader.into_iter().flatten().map(move |m| m.map(|m| CompactMove::from_move_in(&m, mode))).chain(unreadable)
    }

    /// The packed mainline ([`mainline`](crate::codec::mainline)), for ordering games by their moves: games sharing
    /// their first moves share their first bytes. The bytes alone do not tell the plies (the last
    /// byte is padded): compare [`GameRecord::plies`] too.
    pub fn move_bytes(&self) -> &[u8] {
        &self.line.moves
    }

    /// Plies of the mainline.
    pub fn plies(&self) -> usize {
        self.line.plies as usize
    }
}

/// Where a stored game starts. Stored with bincode as the variant's index then its FEN: the
/// first two are byte for byte the `Option<String>` of formats before Chess960 was read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub enum Start {
    /// Standard chess's initial position.
    Initial,
    /// A standard-chess position set up by a `FEN` tag, as given.
    Fen(String),
    /// A Chess960 game: its `FEN` tag as given, or, without one, the X-FEN of the standard
    /// setup (start position 518).
    Chess960(String),
    /// A game of one of lichess's variants on a standard board: the variant's name as lichess
    /// writes it (`kingOfTheHill`), and its `FEN` tag as given or, without one, the variant's
    /// start (Three-check's with its checks).
    Lichess {
        /// The variant's lichess name.
        variant: String,
        /// The start position.
        fen: String,
    },
}

impl Start {
    /// The variant of the game.
    pub fn variant(&self) -> Variant {
        match self {
            Start::Initial | Start::Fen(_) => Variant::Standard,
            Start::Chess960(_) => Variant::Chess960,
            // A name no version wrote reads as standard chess's, whose start then fails to read.
            Start::Lichess { variant, .. } => Variant::from_lichess(variant).unwrap_or_default(),
        }
    }

    /// The start position; `None` for a FEN that does not read.
    pub fn position(&self) -> Option<Position> {
        match self {
            Start::Initial => Some(Position::initial()),
            Start::Fen(fen) => Position::from_fen_tag(fen).ok(),
            Start::Chess960(fen) => Position::from_fen_tag_chess960(fen).ok(),
            Start::Lichess { variant, fen } => {
                Position::from_fen_tag_in(Variant::from_lichess(variant).filter(|v| v.lichess().is_some())?, fen).ok()
            }
        }
    }
}

/// A game's start position when set up, and its mainline: what replaying it needs.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct Mainline {
    start: Start,
    plies: u32,
    moves: Vec<u8>,
}

impl Mainline {
    /// The start position with its rules; `None` for a stored `FEN` that does not read.
    pub fn start_position(&self) -> Option<Position> {
        self.start.position()
    }

    /// A reader replaying the mainline from its start by its variant's rules; `None` for a
    /// stored `FEN` that does not read.
    pub fn reader(&self) -> Option<MainlineReader<'_>> {
        Some(MainlineReader::new(self.start_position()?, &self.moves, self.plies))
    }
}

/// 128 bits identifying a game: start position, mainline and the White, Black, Date and Round
/// tags (trimmed). Two games with the same fingerprint are the same game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; Fingerprint::LEN]);

impl Fingerprint {
    /// Its bytes.
    pub const LEN: usize = 16;

    /// The fingerprint of a game starting from `start` (canonical, so FENs differing only in
    /// their counters agree) whose record is `record`.
    pub fn of(start: &Position, record: &GameRecord) -> Fingerprint {
        let mut bytes = Vec::with_capacity(64 + record.move_bytes().len());
        // Another variant's space: never the same game as a standard one from the same board.
        match start.variant() {
            Variant::Standard => {}
            Variant::Chess960 => bytes.extend_from_slice(b"chess960 "),
            variant => {
                bytes.extend_from_slice(variant.name().as_bytes());
                bytes.push(b' ');
            }
        }
        if *start != Position::initial() {
            bytes.extend_from_slice(start.to_string().as_bytes());
        }
        bytes.push(0);
        bytes.extend_from_slice(&record.line.plies.to_le_bytes());
        bytes.extend_from_slice(record.move_bytes());
        let tags = &record.tags;
        for tag in [&tags.white, &tags.black, &tags.date, &tags.round] {
            bytes.push(0);
            bytes.extend_from_slice(tag.trim().as_bytes());
        }
        Fingerprint(xxhash_rust::xxh3::xxh3_128(&bytes).to_be_bytes())
    }
}

/// Replays a stored mainline from its start. Its moves were checked legal when the game was
/// ingested, so they are played as read ([`CompactMove::to_move_trusted`]); `None` if one
/// cannot be a move there at all (corrupt data).
pub fn replay(record: &GameRecord) -> Option<Vec<Position>> {
    replay_with_moves(record).map(|(positions, _)| positions)
}

/// [`replay`], with the moves played (reading the mainline once).
pub fn replay_with_moves(record: &GameRecord) -> Option<(Vec<Position>, Vec<Move>)> {
    let mut reader = record.mainline()?;
    let plies = record.plies();
    let mut positions = Vec::with_capacity(plies + 1);
    let mut moves = Vec::with_capacity(plies);
    positions.push(reader.current().clone());
    while let Some(m) = reader.next() {
        moves.push(m?);
        positions.push(reader.current().clone());
    }
    Some((positions, moves))
}
