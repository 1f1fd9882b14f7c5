//! The oracle of the one-pass reader: how the indexer read one game's text before it, a syntax
//! pass (`syntax.rs`) and then pgn-reader, each over the whole text, kept as it was (its game
//! and rejection types are the library's, so that the two compare field by field).
//!
//!
//! A game is accepted whole or rejected whole: a syntax error (see [`syntax`]), an illegal or
//! ambiguous move, a bad `FEN` tag, a variant other than Chess960, a missing termination marker (a
//! truncated game) or text that holds no game rejects it with a [`Rejection`] naming the line and
//! the reason. Variations and comments are skipped. Tag values that are not UTF-8 are read as
//! Latin-1.

use std::{
    borrow::Cow,
    cell::RefCell,
    io::{self, Read},
    ops::ControlFlow,
    rc::Rc,
};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Color, Move, Position as _, fen::Fen, variant::VariantPosition};

use tabiya::{
    codec::mainline,
    input::{Game, MAX_GAME_PLIES, RawGame, RejectReason, Rejection, resolve_san},
    model::{GameRecord, GameResult, Start, Tags},
    position::{Position, PositionError, Variant},
};

use super::syntax;

/// Reads a tag value: pgn-reader unescapes, UTF-8 is kept, anything else is Latin-1.
fn decode_text(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(text) => text.to_owned(),
        Err(_) => raw.iter().map(|&b| b as char).collect(),
    }
}

struct TagState {
    tags: Tags,
    result_tag: Option<GameResult>,
    fen: Option<String>,
    variant: Option<String>,
}

struct MovetextState {
    tags: Tags,
    result_tag: Option<GameResult>,
    start: Result<(Position, Start), (RejectReason, String)>,
    current: VariantPosition,
    moves: Vec<Move>,
    /// The moves as the mainlines family stores them, written as they are read.
    mainline: mainline::MainlineWriter,
    error: Option<(RejectReason, String, usize)>,
    marker: Option<Outcome>,
}

struct GameVisitor;

impl Visitor for GameVisitor {
    type Tags = TagState;
    type Movetext = MovetextState;
    type Output = MovetextState;

    fn begin_tags(&mut self) -> ControlFlow<MovetextState, TagState> {
        ControlFlow::Continue(TagState { tags: Tags::default(), result_tag: None, fen: None, variant: None })
    }

    fn tag(&mut self, state: &mut TagState, name: &[u8], value: RawTag<'_>) -> ControlFlow<MovetextState> {
        let text = || decode_text(&value.decode()).trim().to_owned();
        let tags = &mut state.tags;
        match name {
            b"Event" => tags.event = text(),
            b"Site" => tags.site = text(),
            b"Date" => tags.date = text(),
            b"Round" => tags.round = text(),
            b"White" => tags.white = text(),
            b"Black" => tags.black = text(),
            b"Result" => {
                tags.result = text();
                state.result_tag = GameResult::from_tag(&tags.result);
            }
            b"WhiteElo" => tags.white_elo = parse_elo(&text()),
            b"BlackElo" => tags.black_elo = parse_elo(&text()),
            b"ECO" => tags.eco = text(),
            b"TimeControl" => tags.time_control = text(),
            b"FEN" => state.fen = Some(text()),
            b"Variant" => state.variant = Some(text()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, state: TagState) -> ControlFlow<MovetextState, MovetextState> {
        let start = start_position(state.fen, state.variant);
        let mainline = mainline::MainlineWriter::new(start.as_ref().map_or(Variant::Standard, |(p, _)| p.variant()));
        // The oracle plays standard chess's moves on a variant's board, Atomic's and Antichess's
        // by shakmaty's.
        let current = match start.as_ref() {
            Ok((position, _)) if matches!(position.variant(), Variant::Atomic | Variant::Antichess) => {
                position.shakmaty().clone()
            }
            Ok((position, _)) => VariantPosition::Chess(board_as_chess(position).unwrap_or_default()),
            Err(_) => VariantPosition::default(),
        };
        ControlFlow::Continue(MovetextState {
            tags: state.tags,
            result_tag: state.result_tag,
            start,
            current,
            // Master games run to about 80 plies: room for most without growing.
            moves: Vec::with_capacity(128),
            mainline,
            error: None,
            marker: None,
        })
    }

    fn san(&mut self, state: &mut MovetextState, san_plus: SanPlus) -> ControlFlow<MovetextState> {
        if state.error.is_some() || state.start.is_err() {
            return ControlFlow::Continue(());
        }
        if state.moves.len() == MAX_GAME_PLIES {
            let detail = format!("more than {MAX_GAME_PLIES} plies, longer than the 75-move rule lets a game be");
            state.error = Some((RejectReason::TooLong, detail, state.moves.len()));
            return ControlFlow::Continue(());
        }
        let resolved = match &state.current {
            VariantPosition::Chess(chess) => resolve_san(chess, &san_plus.san),
            other => san_plus.san.to_move(other),
        };
        match resolved {
            Ok(m) => {
                state.mainline.push(&state.current, &m);
                state.current.play_unchecked(m);
                state.moves.push(m);
            }
            Err(err) => {
                let number = state.current.fullmoves();
                let dots = if state.current.turn() == Color::White { "." } else { "..." };
                let detail = format!("illegal move {number}{dots} {san_plus} ({err})");
                state.error = Some((RejectReason::IllegalMove, detail, state.moves.len()));
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _state: &mut MovetextState) -> ControlFlow<MovetextState, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, state: &mut MovetextState, outcome: Outcome) -> ControlFlow<MovetextState> {
        state.marker = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, state: MovetextState) -> MovetextState {
        state
    }
}

fn parse_elo(text: &str) -> Option<u16> {
    text.parse::<u16>().ok().filter(|&elo| elo > 0 && elo < 4000)
}

/// The start position from the `FEN` and `Variant` tags: Chess960 by the tag, or by castling
/// rights standard chess does not have.
fn start_position(fen: Option<String>, variant: Option<String>) -> Result<(Position, Start), (RejectReason, String)> {
    let mut chess960 = false;
    if let Some(variant) = variant {
        let name: String = variant.to_lowercase().chars().filter(|c| !" -_".contains(*c)).collect();
        match name.as_str() {
            "" | "standard" | "chess" | "normal" | "regular" | "fromposition" => {}
            "chess960" | "960" | "fischerandom" | "fischerrandom" | "fischerrandomchess" | "freestyle"
            | "freestylechess" | "frc" => chess960 = true,
            "atomic" => return shakmaty_start(Variant::Atomic, fen),
            "antichess" => return shakmaty_start(Variant::Antichess, fen),
            // lichess's other variants are read by the one-pass reader only (no corpus here has
            // any).
            _ => {
                let detail = format!(
                    "variant {variant:?} is not one tabiya reads (standard, Chess960, King of the Hill, Three-check, Racing Kings, Atomic, Antichess)"
                );
                return Err((RejectReason::Variant, detail));
            }
        }
    }
    let Some(fen) = fen else {
        return Ok(match chess960 {
            false => (Position::initial(), Start::Initial),
            true => {
                let start = Position::chess960_start(518).ok_or((RejectReason::BadFen, "no start 518".to_owned()))?;
                let fen = format!("{start} 0 1");
                (start, Start::Chess960(fen))
            }
        });
    };
    let setup = Fen::from_ascii(fen.as_bytes()).map_err(|err| (RejectReason::BadFen, format!("FEN {fen:?}: {err}")))?;
    let chess960_start = |setup| match Position::from_setup_chess960(setup, &fen) {
        Ok(position) => Ok((position, Start::Chess960(fen.clone()))),
        Err(err) => Err((RejectReason::BadFen, format!("FEN tag: {err}"))),
    };
    if chess960 {
        return chess960_start(setup.into_setup());
    }
    match Position::from_setup(setup.clone().into_setup(), &fen) {
        Ok(position) if position == Position::initial() => Ok((position, Start::Initial)),
        Ok(position) => Ok((position, Start::Fen(fen))),
        Err(PositionError::Chess960 { .. }) => chess960_start(setup.into_setup()),
        Err(err) => Err((RejectReason::BadFen, format!("FEN tag: {err}"))),
    }
}

/// An Atomic or Antichess game's start: its `FEN` tag, or the standard setup.
fn shakmaty_start(variant: Variant, fen: Option<String>) -> Result<(Position, Start), (RejectReason, String)> {
    let start = |position: Position, fen| (position, Start::Lichess { variant: variant.name().to_owned(), fen });
    match fen {
        None => {
            let position = variant.initial();
            let fen = format!("{position} 0 1");
            Ok(start(position, fen))
        }
        Some(fen) => {
            // Text that is no FEN is reported as a standard game's FEN tag is.
            Fen::from_ascii(fen.as_bytes()).map_err(|err| (RejectReason::BadFen, format!("FEN {fen:?}: {err}")))?;
            match Position::from_fen_tag_in(variant, &fen) {
                Ok(position) => Ok(start(position, fen)),
                Err(err) => Err((RejectReason::BadFen, format!("FEN tag: {err}"))),
            }
        }
    }
}

/// Parses and replays one game split off by [`GameSplitter`](super::GameSplitter).
pub fn parse_game(raw: &RawGame) -> Result<Game, Rejection> {
    let reject = |reason, detail: String, line| Rejection { game: raw.number, line, reason, detail };
    let text = normalise_line_ends(without_trailing_blank_lines(&raw.text));
    if let Err(err) = syntax::scan(&text, &mut |_, _| true) {
        let reason = if err.too_long { RejectReason::TooLong } else { RejectReason::Syntax };
        return Err(reject(reason, err.message, raw.line + err.line));
    }
    let state = match read_one_game(&text) {
        Ok(Some(state)) => state,
        Ok(None) => return Err(reject(RejectReason::NoGame, "no game found".to_owned(), raw.line)),
        Err(err) => return Err(reject(RejectReason::Syntax, err.to_string(), raw.line)),
    };
    if let Some((reason, detail, ply)) = state.error {
        return Err(reject(reason, detail, raw.line + syntax::mainline_move_line(&text, ply).unwrap_or(0)));
    }
    let (start, setup_fen) = state.start.map_err(|(reason, detail)| reject(reason, detail, raw.line))?;
    let Some(marker) = state.marker else {
        if state.moves.is_empty() && state.tags == Tags::default() {
            return Err(reject(RejectReason::NoGame, "no tags, moves or result".to_owned(), raw.line));
        }
        let detail = format!("no result marker after {} moves (truncated game?)", state.moves.len());
        return Err(reject(RejectReason::Truncated, detail, raw.line));
    };
    let marker = match marker {
        Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => GameResult::WhiteWins,
        Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => GameResult::BlackWins,
        Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
        Outcome::Unknown => GameResult::Unknown,
    };
    let record =
        GameRecord::from_start(state.tags, state.result_tag.unwrap_or(marker), setup_fen, state.mainline.finish());
    Ok(Game { record, start, moves: state.moves, annotations: None, malformed_annotations: 0 })
}

/// The bytes of the game a thread's pgn-reader is reading.
#[derive(Default)]
struct Feed(Rc<RefCell<(Vec<u8>, usize)>>);

impl Read for Feed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut feed = self.0.borrow_mut();
        let (bytes, at) = &mut *feed;
        let n = buf.len().min(bytes.len() - *at);
        buf[..n].copy_from_slice(&bytes[*at..*at + n]);
        *at += n;
        Ok(n)
    }
}

thread_local! {
    /// One pgn-reader per thread, fed game after game: a reader allocates a 16 KB buffer.
    static READER: RefCell<Option<(Reader<Feed>, Feed)>> = const { RefCell::new(None) };
}

/// Reads the one game of `text` with the thread's reader, which is replaced whenever a game
/// leaves anything but blanks behind (or fails), so no state crosses games.
fn read_one_game(text: &[u8]) -> io::Result<Option<MovetextState>> {
    READER.with_borrow_mut(|slot| {
        let (reader, feed) = slot.get_or_insert_with(|| {
            let feed = Feed::default();
            let reader = Reader::build(Feed(feed.0.clone())).set_supported_tag_line_length(4096).finish();
            (reader, feed)
        });
        {
            let mut state = feed.0.borrow_mut();
            state.0.clear();
            state.0.extend_from_slice(text);
            state.1 = 0;
        }
        let result = reader.read_game(&mut GameVisitor);
        if result.is_err() || !matches!(reader.has_more(), Ok(false)) {
            *slot = None;
        }
        result
    })
}

/// `text` up to the end of its last line with content: the blank lines the splitter leaves at
/// the end of a game change nothing, yet would send nearly every game down
/// [`normalise_line_ends`]'s copying path.
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

/// Text pgn-reader reads as this module means it: lone CRs become LFs (pgn-reader reads tag
/// lines up to an LF), and a blank line inside the movetext gets a space (pgn-reader ends the
/// movetext at a blank line, though real games put blank lines around long comments; the
/// splitter has already found where the game ends).
fn normalise_line_ends(text: &[u8]) -> Cow<'_, [u8]> {
    let lone_cr = |i: usize| text[i] == b'\r' && text.get(i + 1) != Some(&b'\n');
    let movetext = movetext_start(text);
    let blank_line_follows =
        |i: usize| i >= movetext && (text[i] == b'\n' || lone_cr(i)) && matches!(text.get(i + 1), Some(b'\n' | b'\r'));
    // Most games need nothing: every CR ends a CRLF, and no line end in the movetext is
    // followed by another. Only the line ends are looked at (a few dozen a game).
    let changes = memchr::memchr_iter(b'\r', text).any(lone_cr)
        || memchr::memchr2_iter(b'\n', b'\r', &text[movetext..]).any(|at| blank_line_follows(movetext + at));
    if !changes {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len() + 16);
    for (i, &b) in text.iter().enumerate() {
        out.push(if lone_cr(i) { b'\n' } else { b });
        if blank_line_follows(i) {
            out.push(b' ');
        }
    }
    Cow::Owned(out)
}

/// Where the movetext starts: the first character of a line that is neither blank nor a tag.
fn movetext_start(text: &[u8]) -> usize {
    let mut at = 0;
    while at < text.len() {
        let end = text[at..].iter().position(|&c| c == b'\n' || c == b'\r').map_or(text.len(), |n| at + n);
        let first = text[at..end].iter().position(|&c| c > b' ');
        match first {
            Some(n) if text[at + n] != b'[' => return at + n,
            _ => at = end + 1,
        }
    }
    text.len()
}

/// The board of `position` as standard chess's (a lichess variant's board, its counters left out).
fn board_as_chess(position: &tabiya::Position) -> Option<shakmaty::Chess> {
    let setup = shakmaty::Setup { remaining_checks: None, ..position.to_setup() };
    <shakmaty::Chess as shakmaty::FromSetup>::from_setup(setup, position.castles().mode())
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .ok()
}
