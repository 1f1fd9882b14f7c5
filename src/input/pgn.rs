//! Parsing one game's raw text in one pass ([`tokens`](super::tokens)): its tags read, its
//! mainline replayed with shakmaty and written in the stored code as each move is read.
//!
//! A game is accepted whole or rejected whole: a syntax error, an illegal or
//! ambiguous move, a bad `FEN` tag, a variant tabiya does not read, a missing
//! termination marker (a truncated game) or text that holds no game rejects it with a
//! [`Rejection`] naming the line and the reason. Chess960 games (by their `Variant` tag, or a
//! `FEN` whose castling rights name a rook off the corner or a king off the e-file) are replayed
//! by Chess960's rules into Chess960's key space. Variations are skipped; the mainline's
//! comments are read for the annotations they carry ([`annotations`]: evaluations, clocks, move
//! times), kept per move. Tag values that are not UTF-8 are read as Latin-1.

use std::fmt;

use shakmaty::{Color, Move, Position as _, san::SanPlus};

use super::{split::RawGame, tokens};
use crate::{
    codec::mainline,
    input::annotations,
    model::{Eval, GameAnnotations, GameRecord, GameResult, MoveAnnotation, Start, Tags},
    position::{Position, PositionError, Variant},
};

/// A replayed game (standard chess or Chess960): the record the database keeps, and what keying its positions
/// needs.
#[derive(Clone, Debug)]
pub struct Game {
    /// Tags, result, the `FEN` tag as given when the game does not start from the initial
    /// position, and the packed mainline.
    pub record: GameRecord,
    /// The start position.
    pub start: Position,
    /// The mainline, every move legal from the position before it.
    pub moves: Vec<Move>,
    /// What the mainline's comments said besides words (`None`: nothing), evaluations turned
    /// to White's view.
    pub annotations: Option<GameAnnotations>,
    /// Annotations of a known shape without a usable value, passed over.
    pub malformed_annotations: u32,
}

impl Game {
    /// Calls `each` with every position of the mainline, the start first, and the move played
    /// from it (`None` at the end), without copying the positions (what ingest keys).
    pub fn visit_mainline(&self, mut each: impl FnMut(&Position, Option<&Move>)) {
        let mut current = self.start.clone();
        let mut moves = self.moves.iter();
        loop {
            let next = moves.next();
            each(&current, next);
            match next {
                Some(m) => current.play_legal(*m),
                None => return,
            }
        }
    }

    /// Every mainline position with the move played from it (`None` for the final position).
    pub fn mainline(&self) -> impl Iterator<Item = (Position, Option<&Move>)> + '_ {
        let mut current = self.start.clone();
        let mut moves = self.moves.iter();
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let next = moves.next();
            // The positions keep the start's rules (and Chess960's castling mode).
            let position = current.clone();
            match next {
                Some(m) => current.play_legal(*m),
                None => done = true,
            }
            Some((position, next))
        })
    }
}

/// Why a game was not indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RejectReason {
    /// Text that is not PGN: a token PGN does not have, a malformed tag pair, an unclosed comment
    /// or variation.
    Syntax,
    /// An illegal or ambiguous mainline move.
    IllegalMove,
    /// A `FEN` tag that is not a legal standard position.
    BadFen,
    /// A `Variant` tag of a variant tabiya does not read (antichess, crazyhouse, horde).
    Variant,
    /// No termination marker: a game cut off.
    Truncated,
    /// Text without a game in it.
    NoGame,
    /// A position the key cannot encode.
    Unencodable,
    /// More plies than [`MAX_GAME_PLIES`], or more tag text than a stored game may hold.
    TooLong,
}

/// The most plies a game may have: 8,848 moves and a half, the longest game the 75-move rule
/// (a draw without a claim) lets be played. A longer game was not played by the rules, and
/// its one record, read whole by every answer that lists it, would grow without bound.
pub const MAX_GAME_PLIES: usize = 17_697;

impl RejectReason {
    /// A stable snake_case name, for summaries and JSON.
    pub fn name(self) -> &'static str {
        match self {
            RejectReason::Syntax => "syntax_error",
            RejectReason::IllegalMove => "illegal_move",
            RejectReason::BadFen => "bad_fen",
            RejectReason::Variant => "variant",
            RejectReason::Truncated => "truncated",
            RejectReason::NoGame => "no_game",
            RejectReason::Unencodable => "unencodable_position",
            RejectReason::TooLong => "too_long",
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game that was not indexed, with where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game} (line {line}): {detail}")]
pub struct Rejection {
    /// 1-based number of the game in its file.
    pub game: u64,
    /// 1-based line in the file: of the offending move when known, else of the game's start.
    pub line: u64,
    /// Why, as a class.
    pub reason: RejectReason,
    /// Why, in words.
    pub detail: String,
}

/// Reads a tag value (escapes undone): UTF-8 is kept, anything else is Latin-1.
fn decode_text(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(text) => text.to_owned(),
        Err(_) => raw.iter().map(|&b| b as char).collect(),
    }
}

/// What the one pass over a game's text builds: its tags, then its mainline replayed as it is
/// read.
struct GameReader {
    tags: Tags,
    result_tag: Option<GameResult>,
    fen: Option<String>,
    variant: Option<String>,
    /// Set at the first thing of the movetext (the tags are all read by then).
    movetext: Option<Movetext>,
}

struct Movetext {
    start: Result<(Position, Start), (RejectReason, String)>,
    /// The position reached, by the start's rules.
    current: Position,
    moves: Vec<Move>,
    /// The moves as the mainlines family stores them, written as they are read.
    mainline: mainline::MainlineWriter,
    /// The first error, with the 0-based line of its move.
    error: Option<(RejectReason, String, u64)>,
    marker: Option<GameResult>,
    /// The moves' annotations so far, up to the last annotated move (empty: none yet).
    notes: Vec<MoveAnnotation>,
    malformed_notes: u32,
}

impl GameReader {
    fn new() -> GameReader {
        GameReader { tags: Tags::default(), result_tag: None, fen: None, variant: None, movetext: None }
    }

    /// The movetext's state, begun from the tags at its first use.
    fn movetext(&mut self) -> &mut Movetext {
        let (fen, variant) = (&mut self.fen, &mut self.variant);
        self.movetext.get_or_insert_with(|| Movetext::begin(fen.take(), variant.take()))
    }

    /// The tags, the `Result` tag's result, and the movetext (begun now for a game of tags
    /// alone, whose start position is still checked).
    fn finish(self) -> (Tags, Option<GameResult>, Movetext) {
        let movetext = self.movetext.unwrap_or_else(|| Movetext::begin(self.fen, self.variant));
        (self.tags, self.result_tag, movetext)
    }
}

impl Movetext {
    /// A movetext from the start position the `FEN` and `Variant` tags give.
    fn begin(fen: Option<String>, variant: Option<String>) -> Movetext {
        let start = start_position(fen, variant);
        let current = start.as_ref().map_or_else(|_| Position::initial(), |(position, _)| position.clone());
        let mainline = mainline::MainlineWriter::new(current.variant());
        Movetext {
            start,
            current,
            // Master games run to about 80 plies: room for most without growing.
            moves: Vec::with_capacity(128),
            mainline,
            error: None,
            marker: None,
            notes: Vec::new(),
            malformed_notes: 0,
        }
    }

    /// Notes what a mainline comment after the last move says about it (one before the first
    /// move or after the termination marker says nothing about a move).
    fn annotate(&mut self, comment: &[u8]) {
        if self.moves.is_empty() || self.error.is_some() || self.marker.is_some() {
            return;
        }
        let read = annotations::read(comment);
        self.malformed_notes = self.malformed_notes.saturating_add(read.malformed);
        if read.eval.is_none() && read.clock_centis.is_none() && read.elapsed_centis.is_none() {
            return;
        }
        self.notes.resize(self.moves.len(), MoveAnnotation::default());
        let note = self.notes.last_mut().expect("resized to the moves");
        if let Some(eval) = read.eval {
            let white = match eval.score {
                annotations::Score::Centipawns(cp) => Eval::Centipawns(cp),
                annotations::Score::Mate(moves) => Eval::Mate(moves),
            };
            // The mover is the side not to move now.
            let movers_view = eval.view == annotations::View::Mover && self.current.turn() == Color::White;
            note.eval = Some(if movers_view { white.flipped() } else { white });
        }
        note.clock_centis = read.clock_centis.or(note.clock_centis);
        note.elapsed_centis = read.elapsed_centis.or(note.elapsed_centis);
    }

    /// The game's annotations, one entry a move; `None` when no move has any.
    fn annotations(&mut self) -> Option<GameAnnotations> {
        if self.notes.is_empty() {
            return None;
        }
        let mut moves = std::mem::take(&mut self.notes);
        moves.resize(self.moves.len(), MoveAnnotation::default());
        Some(GameAnnotations { moves })
    }
}

impl tokens::Visit for GameReader {
    fn tag(&mut self, name: &[u8], value: &[u8]) {
        let text = || decode_text(value).trim().to_owned();
        let tags = &mut self.tags;
        match name {
            b"Event" => tags.event = text(),
            b"Site" => tags.site = text(),
            b"Date" => tags.date = text(),
            b"Round" => tags.round = text(),
            b"White" => tags.white = text(),
            b"Black" => tags.black = text(),
            b"Result" => {
                tags.result = text();
                self.result_tag = GameResult::from_tag(&tags.result);
            }
            b"WhiteElo" => tags.white_elo = parse_elo(&text()),
            b"BlackElo" => tags.black_elo = parse_elo(&text()),
            b"ECO" => tags.eco = text(),
            b"TimeControl" => tags.time_control = text(),
            b"FEN" => self.fen = Some(text()),
            b"Variant" => self.variant = Some(text()),
            _ => {}
        }
    }

    fn san(&mut self, san_plus: SanPlus, line: u64) {
        let state = self.movetext();
        if state.error.is_some() || state.start.is_err() {
            return;
        }
        if state.moves.len() == MAX_GAME_PLIES {
            let detail = format!("more than {MAX_GAME_PLIES} plies, longer than the 75-move rule lets a game be");
            state.error = Some((RejectReason::TooLong, detail, line));
            return;
        }
        // A lichess variant's moves are read against its rules (standard chess's resolution
        // is the fast path of the others); a move standard chess's board allows is one the
        // variant forbids.
        let resolved = match state.current.as_chess() {
            Some(chess) => super::san::resolve(chess, &san_plus.san).map_err(|err| err.to_string()),
            None => state.current.san_move(&san_plus.san).map_err(|err| {
                let standard = state.current.standard_chess();
                match standard.is_some_and(|chess| super::san::resolve(&chess, &san_plus.san).is_ok()) {
                    true => format!("not allowed by the rules of {}", state.current.variant().pgn_name()),
                    false => err.to_string(),
                }
            }),
        };
        match resolved {
            Ok(m) => {
                match state.current.as_chess() {
                    Some(chess) => state.mainline.push(chess, &m),
                    None => state.mainline.push(state.current.shakmaty(), &m),
                };
                state.current.play_legal(m);
                state.moves.push(m);
            }
            Err(err) => {
                let number = state.current.shakmaty().fullmoves();
                let dots = if state.current.turn() == Color::White { "." } else { "..." };
                let detail = format!("illegal move {number}{dots} {san_plus} ({err})");
                state.error = Some((RejectReason::IllegalMove, detail, line));
            }
        }
    }

    fn outcome(&mut self, result: GameResult) {
        self.movetext().marker = Some(result);
    }

    fn comment(&mut self, text: &[u8], depth: u32) {
        if depth == 0 {
            self.movetext().annotate(text);
        }
    }
}

fn parse_elo(text: &str) -> Option<u16> {
    text.parse::<u16>().ok().filter(|&elo| elo > 0 && elo < 4000)
}

/// The start position from the `FEN` and `Variant` tags, and how the record keeps it.
fn start_position(fen: Option<String>, variant: Option<String>) -> Result<(Position, Start), (RejectReason, String)> {
    let variant = match variant {
        None => Variant::Standard,
        Some(name) => variant_of_tag(&name)
            .ok_or_else(|| (RejectReason::Variant, format!("variant {name:?} is not one tabiya reads (standard, Chess960, King of the Hill, Three-check, Racing Kings, Atomic, Antichess)")))?,
    };
    let bad_fen = |fen: &str, err: PositionError| match err {
        PositionError::Syntax { reason, .. } => (RejectReason::BadFen, format!("FEN {fen:?}: {reason}")),
        err => (RejectReason::BadFen, format!("FEN tag: {err}")),
    };
    match (variant, fen) {
        (Variant::Standard, None) => Ok((Position::initial(), Start::Initial)),
        (Variant::Chess960, None) => {
            let start = Variant::Chess960.initial();
            let fen = format!("{start} 0 1");
            Ok((start, Start::Chess960(fen)))
        }
        (Variant::Standard, Some(fen)) => match Position::from_fen_tag(&fen) {
            Ok(position) if position == Position::initial() => Ok((position, Start::Initial)),
            Ok(position) => Ok((position, Start::Fen(fen))),
            // Castling rights only Chess960 has, without a `Variant` tag: a Chess960 game.
            Err(PositionError::Chess960 { .. }) => match Position::from_fen_tag_chess960(&fen) {
                Ok(position) => Ok((position, Start::Chess960(fen))),
                Err(err) => Err(bad_fen(&fen, err)),
            },
            Err(err) => Err(bad_fen(&fen, err)),
        },
        (Variant::Chess960, Some(fen)) => match Position::from_fen_tag_chess960(&fen) {
            Ok(position) => Ok((position, Start::Chess960(fen))),
            Err(err) => Err(bad_fen(&fen, err)),
        },
        (variant, None) => {
            let start = variant.initial();
            let fen = format!("{start} 0 1");
            Ok((start, Start::Lichess { variant: variant.name().to_owned(), fen }))
        }
        (variant, Some(fen)) => match Position::from_fen_tag_in(variant, &fen) {
            Ok(position) => Ok((position, Start::Lichess { variant: variant.name().to_owned(), fen })),
            Err(err) => Err(bad_fen(&fen, err)),
        },
    }
}

/// The variant a `Variant` tag names, in the spellings files carry (case, spaces, hyphens and
/// underscores aside): standard chess and Chess960; `None` for any other.
pub fn variant_of_tag(tag: &str) -> Option<Variant> {
    let name: String = tag.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_lowercase).collect();
    match name.as_str() {
        "" | "standard" | "chess" | "normal" | "regular" | "fromposition" => Some(Variant::Standard),
        "chess960" | "960" | "fischerandom" | "fischerrandom" | "fischerrandomchess" | "freestyle"
        | "freestylechess" | "frc" => Some(Variant::Chess960),
        "kingofthehill" | "koth" => Some(Variant::KingOfTheHill),
        "threecheck" | "3check" => Some(Variant::ThreeCheck),
        "racingkings" => Some(Variant::RacingKings),
        "atomic" | "atomicchess" => Some(Variant::Atomic),
        // Giveaway and suicide chess differ (castling, stalemate): not Antichess.
        "antichess" => Some(Variant::Antichess),
        _ => None,
    }
}

/// Parses and replays one game split off by [`GameSplitter`](super::GameSplitter), in one pass
/// over its text.
pub fn parse_game(raw: &RawGame) -> Result<Game, Rejection> {
    let reject = |reason, detail: String, line| Rejection { game: raw.number, line, reason, detail };
    let mut reader = GameReader::new();
    // The blank lines the splitter leaves at a game's end are none of the game's: an error at
    // the end of the text is on its last line.
    match tokens::read(without_trailing_blank_lines(&raw.text), &mut reader) {
        Ok(true) => {}
        Ok(false) => return Err(reject(RejectReason::NoGame, "no game found".to_owned(), raw.line)),
        Err(err) => {
            let reason = if err.too_long { RejectReason::TooLong } else { RejectReason::Syntax };
            return Err(reject(reason, err.message, raw.line + err.line));
        }
    }
    let (tags, result_tag, mut movetext) = reader.finish();
    let annotations = movetext.annotations();
    let Movetext { start, moves, mainline, error, marker, malformed_notes, .. } = movetext;
    if let Some((reason, detail, line)) = error {
        return Err(reject(reason, detail, raw.line + line));
    }
    let (start, start_tag) = start.map_err(|(reason, detail)| reject(reason, detail, raw.line))?;
    let Some(marker) = marker else {
        if moves.is_empty() && tags == Tags::default() {
            return Err(reject(RejectReason::NoGame, "no tags, moves or result".to_owned(), raw.line));
        }
        let detail = format!("no result marker after {} moves (truncated game?)", moves.len());
        return Err(reject(RejectReason::Truncated, detail, raw.line));
    };
    let record = GameRecord::from_start(tags, result_tag.unwrap_or(marker), start_tag, mainline.finish());
    Ok(Game { record, start, moves, annotations, malformed_annotations: malformed_notes })
}

/// `text` up to the end of its last line with content.
fn without_trailing_blank_lines(text: &[u8]) -> &[u8] {
    let Some(last) = text.iter().rposition(|b| !b.is_ascii_whitespace()) else {
        return text;
    };
    let mut end = last + 1;
    if text.get(end) == Some(&b'\r') {
        end += 1;
    }
    if text.get(end) == Some(&b'\n') {
        end += 1;
    }
    &text[..end]
}
