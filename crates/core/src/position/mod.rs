//! The canonical chess position every other part of tabiya keys on.
//!
//! A [`Position`] is placement + side to move + castling rights + the en-passant square *only
//! when a legal en-passant capture exists* (a pinned capturer does not count). Move counters are
//! not part of it: two FENs that differ only in their counters, or in an en-passant square no
//! pawn can use, are the same position.
//!
//! This module owns the one place where user-supplied positions (FEN/EPD text, shakmaty setups)
//! become positions, so that every input path rejects the same things with the same errors:
//! variants tabiya does not read, Chess960 castling rights in standard chess, and illegal setups.
//!
//! A position follows the rules of its [`Variant`]: standard chess, Chess960
//! ([`Position::is_chess960`]), or one of lichess's variants on a standard board (King of the
//! Hill, Three-check with the checks each side gave, Racing Kings, whose moves shakmaty's
//! variant positions give). Each variant is a separate space, so that the standard
//! start, Chess960's start 518 and King of the Hill's start are different positions with
//! different keys. A Chess960 position's castling rights name rooks on any file (X-FEN and
//! Shredder-FEN are read; X-FEN is written).

mod category;
mod chess960;
mod rules;
mod variant;

pub(crate) use category::Layout;
pub use category::{Category, HomeSquare, RookState};
pub use chess960::{CastlingConfig, Chess960Category};
pub use rules::WINNING_CHECKS;
pub(crate) use rules::{Rules, remaining_checks};
pub use variant::{UnknownVariant, Variant};

use std::fmt;

use shakmaty::{
    Bitboard, Board, Castles, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position as _,
    PositionError as ShakmatyPositionError, PositionErrorKinds, Setup, Square,
    fen::{Epd, Fen},
    variant::VariantPosition,
};

/// A canonical position of a variant (docs/FORMAT.md, "The canonical position").
///
/// Equality ignores move counters and unusable en-passant squares.
///
/// ```
/// use tabiya_core::Position;
///
/// let a: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
/// let b: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 5 40".parse()?;
/// assert_eq!(a, b); // no black pawn can take en passant, counters do not matter
/// assert_eq!(a.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");
/// # Ok::<_, tabiya_core::position::PositionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Position {
    /// shakmaty's position of the variant: its `Chess` for standard chess and Chess960 (told
    /// apart by the castling mode), its variant position for a lichess variant.
    inner: VariantPosition,
}

/// Equal positions have the same variant (standard chess, Chess960 or a lichess variant, with
/// Three-check's counters) besides what shakmaty compares: a standard position is never equal
/// to a Chess960 one.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.inner == other.inner && self.is_chess960() == other.is_chess960()
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.hash(state);
        self.is_chess960().hash(state);
    }
}

/// Why some input is not a canonical standard-chess position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text is not FEN/EPD syntax.
    #[error("not a FEN: {reason} in {input:?}")]
    Syntax {
        /// The text.
        input: String,
        /// What is wrong.
        reason: String,
    },
    /// The setup uses Chess960 castling rights (a castling rook or king off its standard square).
    #[error(
        "Chess960 castling rights in a standard chess position (a Chess960 position is asked for with the variant chess960): {input:?}"
    )]
    Chess960 {
        /// The text.
        input: String,
    },
    /// The setup belongs to a chess variant (pockets, check counters).
    #[error("chess variants are not supported: {input:?}")]
    Variant {
        /// The text.
        input: String,
    },
    /// The setup is not a legal standard-chess position.
    #[error("illegal position ({reason}): {input:?}")]
    Illegal {
        /// The text.
        input: String,
        /// Why it is illegal.
        reason: String,
    },
}

impl PositionError {
    /// A short name of the kind of error, for tallies.
    pub fn kind(&self) -> &'static str {
        match self {
            PositionError::Syntax { .. } => "not a FEN",
            PositionError::Chess960 { .. } => "Chess960 castling rights",
            PositionError::Variant { .. } => "chess variant",
            PositionError::Illegal { .. } => "illegal position",
        }
    }
}

impl Position {
    /// The standard starting position.
    pub fn initial() -> Position {
        Position::of_chess(Chess::default())
    }

    /// A standard or Chess960 position shakmaty validated (by its castling mode).
    pub(crate) fn of_chess(chess: Chess) -> Position {
        Position { inner: VariantPosition::Chess(chess) }
    }

    /// Validates a shakmaty setup. `input` names the source in error messages (a FEN, a file
    /// and line, a game).
    ///
    /// Positions whose only defect is an "impossible" check (more checkers than a legal game can
    /// produce; such positions occur in composed problems and test suites) are accepted.
    pub fn from_setup(setup: Setup, input: impl fmt::Display) -> Result<Position, PositionError> {
        let input = || input.to_string();
        if setup.pockets.is_some() || setup.remaining_checks.is_some() {
            return Err(PositionError::Variant { input: input() });
        }
        // Standard rights name corner rooks with the king on the e-file; anything else may be
        // Chess960 (decided now, while the setup is at hand, only in that rare case).
        let chess960 =
            !standard_rights(setup.castling_rights, &setup.board) && CastlingMode::detect(&setup).is_chess960();
        match Chess::from_setup(setup, CastlingMode::Standard).or_else(ShakmatyPositionError::ignore_impossible_check) {
            Ok(chess) => Ok(Position::of_chess(chess)),
            Err(err) => {
                if chess960 && err.kinds().contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) {
                    Err(PositionError::Chess960 { input: input() })
                } else {
                    Err(PositionError::Illegal { input: input(), reason: describe(err.kinds()) })
                }
            }
        }
    }

    /// Validates a shakmaty setup as a Chess960 position: castling rights may name rooks on
    /// any file (shakmaty's Chess960 castling mode). Otherwise as [`Position::from_setup`].
    pub fn from_setup_chess960(setup: Setup, input: impl fmt::Display) -> Result<Position, PositionError> {
        let input = || input.to_string();
        if setup.pockets.is_some() || setup.remaining_checks.is_some() {
            return Err(PositionError::Variant { input: input() });
        }
        match Chess::from_setup(setup, CastlingMode::Chess960).or_else(ShakmatyPositionError::ignore_impossible_check) {
            Ok(chess) => Ok(Position::of_chess(chess)),
            Err(err) => Err(PositionError::Illegal { input: input(), reason: describe(err.kinds()) }),
        }
    }

    /// Chess960 start position `number` (0 to 959, Scharnagl's numbering: 518 is the standard
    /// setup), with White to move and every castling right.
    ///
    /// ```
    /// use tabiya_core::Position;
    ///
    /// let start = Position::chess960_start(0).expect("0 is a start position");
    /// assert_eq!(start.to_string(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq -");
    /// assert!(start.is_chess960());
    /// assert_ne!(Position::chess960_start(518), Some(Position::initial()), "separate spaces");
    /// assert_eq!(Position::chess960_start(960), None);
    /// ```
    pub fn chess960_start(number: u16) -> Option<Position> {
        let roles = chess960::start_rank(number)?;
        let mut board = shakmaty::Board::empty();
        for (file, role) in shakmaty::File::ALL.into_iter().zip(roles) {
            for (color, rank) in [(Color::White, shakmaty::Rank::First), (Color::Black, shakmaty::Rank::Eighth)] {
                board.set_piece_at(Square::from_coords(file, rank), shakmaty::Piece { color, role });
                let pawn_rank = color.fold_wb(shakmaty::Rank::Second, shakmaty::Rank::Seventh);
                board.set_piece_at(Square::from_coords(file, pawn_rank), color.pawn());
            }
        }
        let castling_rights = board.rooks();
        Position::from_setup_chess960(Setup { board, castling_rights, ..Setup::default() }, number).ok()
    }

    /// Whether the position is Chess960 (its castling rights follow Chess960's rules, and it
    /// lives in Chess960's key space) rather than standard chess.
    #[inline]
    pub fn is_chess960(&self) -> bool {
        self.inner.castles().mode().is_chess960()
    }

    /// Parses a whole FEN as a Chess960 position: the rules of [`Position`]'s `FromStr`, with
    /// X-FEN's and Shredder-FEN's castling fields (`KQkq` for the outermost rooks, file letters
    /// such as `HAha` or `Bg` for any rook).
    ///
    /// ```
    /// use tabiya_core::Position;
    ///
    /// let shredder = Position::from_fen_chess960("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1")?;
    /// let x_fen = Position::from_fen_chess960("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -")?;
    /// assert_eq!(shredder, x_fen);
    /// assert_eq!(shredder.to_string(), "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -");
    /// # Ok::<_, tabiya_core::position::PositionError>(())
    /// ```
    pub fn from_fen_chess960(text: &str) -> Result<Position, PositionError> {
        Position::from_setup_chess960(whole_fen(text)?, text)
    }

    /// Wraps a position shakmaty already validated (for instance one reached by playing moves):
    /// in Chess960's castling mode, a Chess960 position.
    ///
    /// Fails only for Chess960 castling rights in standard castling mode.
    pub fn from_chess(chess: Chess) -> Result<Position, PositionError> {
        if chess.castles().mode().is_standard() && !standard_rights(chess.castles().castling_rights(), chess.board()) {
            let input = Epd::from_position(&chess, EnPassantMode::Legal).to_string();
            return Err(PositionError::Chess960 { input });
        }
        Ok(Position::of_chess(chess))
    }

    /// Plays a legal move of the position (a mainline read and checked already): castling
    /// rights stay standard, as moves only ever remove them; Three-check counts a check given.
    #[inline]
    pub fn play_legal(&mut self, m: shakmaty::Move) {
        match &mut self.inner {
            VariantPosition::Chess(chess) => chess.play_unchecked(m),
            other => {
                other.play_unchecked(m);
                self.drop_unplayable_en_passant();
            }
        }
    }

    /// shakmaty's position of the variant (its board, moves, SAN, ...): a `Chess` for standard
    /// chess and Chess960, a variant position for a lichess variant.
    #[inline]
    pub fn shakmaty(&self) -> &VariantPosition {
        &self.inner
    }

    /// shakmaty's `Chess` of a standard or Chess960 position; `None` in a lichess variant.
    #[inline]
    pub fn as_chess(&self) -> Option<&Chess> {
        match &self.inner {
            VariantPosition::Chess(chess) => Some(chess),
            _ => None,
        }
    }

    /// The board.
    #[inline]
    pub fn board(&self) -> &Board {
        match &self.inner {
            VariantPosition::Chess(chess) => chess.board(),
            other => other.board(),
        }
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        match &self.inner {
            VariantPosition::Chess(chess) => chess.turn(),
            other => other.turn(),
        }
    }

    /// The castling rights (with their castling mode).
    #[inline]
    pub fn castles(&self) -> &Castles {
        match &self.inner {
            VariantPosition::Chess(chess) => chess.castles(),
            other => other.castles(),
        }
    }

    /// The en-passant square, when a legal en-passant capture uses it.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        match &self.inner {
            VariantPosition::Chess(chess) => chess.ep_square(EnPassantMode::Legal),
            other => other.ep_square(EnPassantMode::Legal),
        }
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.inner.is_check()
    }

    /// The board as standard chess's (or Chess960's) position: a lichess variant's board, its
    /// checks left aside, played by standard chess's moves, to tell a move the variant forbids
    /// from one no board allows. `None` when standard chess refuses the board.
    pub fn standard_chess(&self) -> Option<Chess> {
        if let VariantPosition::Chess(chess) = &self.inner {
            return Some(chess.clone());
        }
        let setup = Setup { remaining_checks: None, ..self.inner.to_setup(EnPassantMode::Always) };
        Chess::from_setup(setup, self.castles().mode()).or_else(ShakmatyPositionError::ignore_impossible_check).ok()
    }

    /// The position as a setup (board, side, rights, legal en-passant square, Three-check's
    /// checks left).
    pub fn to_setup(&self) -> Setup {
        self.inner.to_setup(EnPassantMode::Legal)
    }
}

impl std::str::FromStr for Position {
    type Err = PositionError;

    /// Parses a whole FEN: board, side to move, castling and en passant, then optionally the
    /// two move counters (unsigned integers), and nothing else. A missing field, a field too
    /// many, a castling letter given twice or a signed counter is refused with what is wrong
    /// (a position read from a query must be the one the user meant). Files of positions, whose
    /// lines may carry EPD operations, are read with [`Position::from_epd_line`].
    ///
    /// ```
    /// use tabiya_core::Position;
    ///
    /// let full: Position = "4k3/8/8/8/8/8/8/4K2R w K - 0 1".parse()?;
    /// assert_eq!(full, "4k3/8/8/8/8/8/8/4K2R w K -".parse()?);
    /// for wrong in ["4k3/8/8/8/8/8/8/4K2R", "4k3/8/8/8/8/8/8/4K2R w K - 0 1 x", "4k3/8/8/8/8/8/8/4K2R w KK -"] {
    ///     assert!(wrong.parse::<Position>().is_err(), "{wrong}");
    /// }
    /// # Ok::<_, tabiya_core::position::PositionError>(())
    /// ```
    fn from_str(text: &str) -> Result<Position, PositionError> {
        Position::from_setup(whole_fen(text)?, text)
    }
}

/// The setup of a whole FEN ([`Position`]'s `FromStr` says what is refused).
fn whole_fen(text: &str) -> Result<Setup, PositionError> {
    let syntax = |reason: &str| PositionError::Syntax { input: text.to_owned(), reason: reason.to_owned() };
    // `_` stands for a space, as in lichess's URLs.
    let fields: Vec<&str> =
        text.trim().split(|c: char| c.is_ascii_whitespace() || c == '_').filter(|f| !f.is_empty()).collect();
    match fields.len() {
        0 => return Err(syntax("no FEN, the text is empty")),
        1 => return Err(syntax("the side to move, castling and en-passant fields are missing")),
        2 => return Err(syntax("the castling and en-passant fields are missing")),
        3 => return Err(syntax("the en-passant field is missing")),
        _ => {}
    }
    // Three-check's checks (`3+3` before the counters, lichess's `+0+0` after them): read,
    // then refused as a variant.
    let is_checks = |field: &&&str| {
        let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        let field = field.strip_prefix('+').unwrap_or(field);
        field.split_once('+').is_some_and(|(a, b)| digits(a) && digits(b))
    };
    let counters: Vec<&&str> = fields[4..].iter().filter(|field| !is_checks(field)).collect();
    if counters.len() > 2 || fields.len() - 4 - counters.len() > 1 {
        return Err(syntax("text after the move counters"));
    }
    if !fields.iter().flat_map(|field| field.bytes()).all(|b| b.is_ascii_graphic()) {
        return Err(syntax("a character a FEN does not have"));
    }
    let castling = fields[2].as_bytes();
    if castling.iter().enumerate().any(|(at, letter)| castling[..at].contains(letter)) {
        return Err(syntax("a castling right given twice"));
    }
    if !counters.iter().all(|counter| counter.bytes().all(|b| b.is_ascii_digit())) {
        return Err(syntax("a move counter that is not an unsigned integer"));
    }
    let setup = Fen::from_ascii(fields.join(" ").as_bytes()).map_err(|err| syntax(&err.to_string()))?;
    Ok(setup.into_setup())
}

impl Position {
    /// Reads a PGN `FEN` tag as PGN readers do (shakmaty's FEN reading: missing fields take
    /// their defaults, `_` may stand for spaces). What ingest checks a game's start with, and
    /// what a stored game's tag is read back with: the two must agree, or a stored game would
    /// not replay.
    pub fn from_fen_tag(text: &str) -> Result<Position, PositionError> {
        Position::from_fen_tag_in(Variant::Standard, text)
    }

    /// Reads a PGN `FEN` tag of a Chess960 game as [`Position::from_fen_tag`] does, with
    /// X-FEN's and Shredder-FEN's castling fields.
    pub fn from_fen_tag_chess960(text: &str) -> Result<Position, PositionError> {
        Position::from_fen_tag_in(Variant::Chess960, text)
    }

    /// Reads a PGN `FEN` tag of a game of `variant` as [`Position::from_fen_tag`] does
    /// (Three-check's checks as lichess writes them, `3+3` or `+0+0`).
    pub fn from_fen_tag_in(variant: Variant, text: &str) -> Result<Position, PositionError> {
        let setup = Fen::from_ascii(text.as_bytes())
            .map_err(|err| PositionError::Syntax { input: text.to_owned(), reason: err.to_string() })?;
        Position::from_setup_in(variant, setup.into_setup(), text)
    }

    /// Parses a line of a position file: a FEN or an EPD record, whose four position fields
    /// may be followed by move counters or EPD operations (`bm Nf3; id "x";`), which are not
    /// part of a position and are passed over.
    ///
    /// ```
    /// use tabiya_core::Position;
    ///
    /// let p = Position::from_epd_line("4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"x\";")?;
    /// assert_eq!(p.to_string(), "4k3/8/8/8/8/8/8/4K2R w K -");
    /// # Ok::<_, tabiya_core::position::PositionError>(())
    /// ```
    pub fn from_epd_line(text: &str) -> Result<Position, PositionError> {
        let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        let syntax = |reason: String| PositionError::Syntax { input: text.to_owned(), reason };
        let fields: Vec<&str> = text.split(';').next().unwrap_or("").split_ascii_whitespace().collect();
        if fields.len() < 4 {
            return Err(syntax("a position needs its board, side to move, castling and en-passant fields".to_owned()));
        }
        let setup = match Fen::from_ascii(fields.join(" ").as_bytes()) {
            Ok(fen) => fen.into_setup(),
            Err(fen_err) => match Epd::from_ascii(fields[..4].join(" ").as_bytes()) {
                Ok(epd) => epd.into_setup(),
                Err(_) => return Err(syntax(fen_err.to_string())),
            },
        };
        Position::from_setup(setup, text)
    }
}

impl fmt::Display for Position {
    /// The canonical FEN without move counters (EPD position fields).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Three-check's checks left follow the en-passant field, as lichess writes them.
        write!(f, "{}", Epd::from_position(&self.inner, EnPassantMode::Legal))
    }
}

/// Castling rights only on corner rooks, each side's with its king on the e-file.
fn standard_rights(rights: Bitboard, board: &shakmaty::Board) -> bool {
    rights.is_subset(Bitboard::CORNERS)
        && Color::ALL.into_iter().all(|color| {
            (rights & color.backrank()).is_empty()
                || board.king_of(color) == Some(color.fold_wb(Square::E1, Square::E8))
        })
}

fn describe(kinds: PositionErrorKinds) -> String {
    const NAMES: [(PositionErrorKinds, &str); 10] = [
        (PositionErrorKinds::EMPTY_BOARD, "empty board"),
        (PositionErrorKinds::MISSING_KING, "missing king"),
        (PositionErrorKinds::TOO_MANY_KINGS, "too many kings"),
        (PositionErrorKinds::PAWNS_ON_BACKRANK, "pawns on the first or last rank"),
        (PositionErrorKinds::INVALID_CASTLING_RIGHTS, "castling rights without king and rook on their squares"),
        (PositionErrorKinds::INVALID_EP_SQUARE, "impossible en-passant square"),
        (PositionErrorKinds::OPPOSITE_CHECK, "the side not to move is in check"),
        (PositionErrorKinds::IMPOSSIBLE_CHECK, "impossible check"),
        (PositionErrorKinds::TOO_MUCH_MATERIAL, "too much material"),
        (PositionErrorKinds::VARIANT, "a setup the variant does not allow"),
    ];
    let names: Vec<&str> = NAMES.iter().filter(|(kind, _)| kinds.contains(*kind)).map(|(_, name)| *name).collect();
    if names.is_empty() { "not a standard chess position".to_owned() } else { names.join(", ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fen: &str) -> PositionError {
        fen.parse::<Position>().expect_err(fen)
    }

    #[test]
    fn rejects_with_named_reasons() {
        assert!(matches!(err("not a fen"), PositionError::Syntax { .. }));
        assert!(matches!(err("8/8/8/8/8/8/8/8 w - - 0 1"), PositionError::Illegal { .. }));
        assert!(matches!(err("P3k3/8/8/8/8/8/8/4K3 w - - 0 1"), PositionError::Illegal { .. }));
        // Chess960 start position with its castling rights.
        let e = err("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1");
        assert!(matches!(e, PositionError::Chess960 { .. }), "{e}");
        let e = err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1");
        assert!(matches!(e, PositionError::Variant { .. }), "{e}");
        let e = err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1");
        assert!(matches!(e, PositionError::Variant { .. }), "{e}");
        let e = err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +0+0");
        assert!(matches!(e, PositionError::Variant { .. }), "{e}");
    }

    #[test]
    fn en_passant_only_when_legal() {
        // The black pawn on d4 could take e3 but is pinned by the rook on a4 against the king on h4.
        let pinned: Position = "8/8/8/8/R2pP2k/8/8/4K3 b - e3 0 1".parse().unwrap();
        assert_eq!(pinned.to_string(), "8/8/8/8/R2pP2k/8/8/4K3 b - -");
        let free: Position = "8/8/8/8/3pP2k/8/8/4K3 b - e3 0 1".parse().unwrap();
        assert_eq!(free.to_string(), "8/8/8/8/3pP2k/8/8/4K3 b - e3");
    }

    #[test]
    fn an_epd_line_may_carry_operations() {
        let p = Position::from_epd_line("4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"x\";").unwrap();
        assert_eq!(p.to_string(), "4k3/8/8/8/8/8/8/4K2R w K -");
        assert!("4k3/8/8/8/8/8/8/4K2R w K - bm O-O;".parse::<Position>().is_err(), "not a FEN");
        assert!(Position::from_epd_line("4k3/8/8/8/8/8/8/4K2R w K").is_err(), "no en-passant field");
        assert!(Position::from_epd_line("4k3/8/8/8/8/8/8/4K2R").is_err(), "a board alone");
    }

    #[test]
    fn a_fen_is_whole_or_refused_with_what_is_wrong() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let reason = |text: &str| match text.parse::<Position>() {
            Err(PositionError::Syntax { reason, .. }) => reason,
            other => panic!("{text:?}: {other:?}"),
        };
        assert!(reason(" ").contains("empty"));
        assert!(reason(start).contains("side to move, castling and en-passant fields are missing"));
        assert!(reason(&format!("{start} w")).contains("castling and en-passant fields are missing"));
        assert!(reason(&format!("{start} w KQkq")).contains("en-passant field is missing"));
        assert!(reason(&format!("{start} w KQkq - 0 1 junk")).contains("after the move counters"));
        assert!(reason(&format!("{start} w KQkq - 0 1\0")).contains("a character"));
        assert!(reason(&format!("{start} w KQkqKQ -")).contains("given twice"));
        assert!(reason(&format!("{start} w KQkq - +0 1")).contains("unsigned"));
        assert!(reason(&format!("{start} w KQkq - 0 -1")).contains("unsigned"));
        for whole in [
            format!("{start} w KQkq -"),
            format!("{start} w KQkq - 0"),
            format!(" {start} w KQkq - 0 1\n"),
            format!("{start}_w_KQkq_-_0_1"),
        ] {
            assert_eq!(whole.parse::<Position>().as_ref(), Ok(&Position::initial()), "{whole:?}");
        }
    }
}

#[cfg(test)]
mod chess960_tests {
    use super::*;

    #[test]
    fn chess960s_initial_position_is_start_518_in_its_own_space() {
        let initial = Variant::Chess960.initial();
        assert!(initial.is_chess960());
        assert_eq!(Some(&initial), Position::chess960_start(518).as_ref());
        assert_ne!(initial, Position::initial());
        assert_eq!(Variant::of(&initial), Variant::Chess960);
    }

    #[test]
    fn chess960_fens_read_x_fen_and_shredder_fen_and_refuse_what_is_wrong() {
        let x_fen = Position::from_fen_chess960("rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1").expect("X-FEN");
        let shredder = Position::from_fen_chess960("rk2r3/8/8/8/8/8/8/RK2R3 w EAea -").expect("Shredder-FEN");
        assert_eq!(x_fen, shredder);
        assert_eq!(x_fen.to_string(), "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq -");
        // An inner rook with the right: its file is named.
        let inner = Position::from_fen_chess960("4k3/8/8/8/8/8/8/R1R1K3 w C - 0 1").expect("X-FEN with a file");
        assert_eq!(inner.to_string(), "4k3/8/8/8/8/8/8/R1R1K3 w C -");
        for wrong in [
            "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq",
            "rk2r3/8/8/8/8/8/8/RK2R3 w KK -",
            "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1 x",
        ] {
            assert!(matches!(Position::from_fen_chess960(wrong), Err(PositionError::Syntax { .. })), "{wrong}");
        }
        // A right on a file where no rook stands (lichess's 2023-11 `HEhe` with rooks on a and c).
        let bad = Position::from_fen_chess960("r1r1k3/8/8/8/8/8/8/R1R1K3 w HEhe - 0 1");
        assert!(matches!(bad, Err(PositionError::Illegal { .. })), "{bad:?}");
    }
}
