//! The rules a position follows ([`Variant`]), each with a key space of its own, and their
//! names as lichess writes them.

use std::fmt;

use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position as _, Setup, variant::VariantPosition};

use super::{Position, PositionError, whole_fen};

/// The rules a position follows, each with a key space of its own: a query names one, as
/// lichess's `variant` parameter does.
///
/// ```
/// use tabiya_core::position::Variant;
///
/// assert_eq!("chess960".parse(), Ok(Variant::Chess960));
/// assert_eq!("standard".parse(), Ok(Variant::Standard));
/// assert_eq!(Variant::Chess960.name(), "chess960");
/// assert_eq!(Variant::from_lichess("kingOfTheHill"), Some(Variant::KingOfTheHill));
/// let refused = "crazyhouse".parse::<Variant>().unwrap_err().to_string();
/// assert!(refused.contains("not indexed"), "{refused}");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Standard chess.
    #[default]
    Standard,
    /// Chess960 (Fischer Random): castling with rooks on any file.
    Chess960,
    /// King of the Hill: a king on d4, e4, d5 or e5 wins.
    KingOfTheHill,
    /// Three-check: a third check wins; a position counts the checks each side gave.
    ThreeCheck,
    /// Racing Kings: no check may be given; a king on the eighth rank wins.
    RacingKings,
    /// Atomic: a capture explodes the pieces around it, pawns aside; a king exploded loses.
    Atomic,
    /// Antichess: captures are compulsory, the king is a piece like any other, and a side
    /// that has lost every piece, or has no move, wins.
    Antichess,
}

impl Variant {
    /// Every variant with a key space, in the order of their first key bytes.
    pub const ALL: [Variant; 7] = [
        Variant::Standard,
        Variant::Chess960,
        Variant::KingOfTheHill,
        Variant::RacingKings,
        Variant::ThreeCheck,
        Variant::Atomic,
        Variant::Antichess,
    ];

    /// The name lichess gives it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
            Variant::KingOfTheHill => "kingOfTheHill",
            Variant::ThreeCheck => "threeCheck",
            Variant::RacingKings => "racingKings",
            Variant::Atomic => "atomic",
            Variant::Antichess => "antichess",
        }
    }

    /// The name a PGN `Variant` tag gives it, as lichess writes its games.
    pub fn pgn_name(self) -> &'static str {
        match self {
            Variant::Standard => "Standard",
            Variant::Chess960 => "Chess960",
            Variant::KingOfTheHill => "King of the Hill",
            Variant::ThreeCheck => "Three-check",
            Variant::RacingKings => "Racing Kings",
            Variant::Atomic => "Atomic",
            Variant::Antichess => "Antichess",
        }
    }

    /// The variant of a lichess name (`standard` or `chess` too).
    pub fn from_lichess(name: &str) -> Option<Variant> {
        match name {
            "standard" | "chess" => Some(Variant::Standard),
            _ => Variant::ALL.into_iter().find(|variant| variant.name() == name),
        }
    }

    /// The variant of a position.
    pub fn of(position: &Position) -> Variant {
        position.variant()
    }

    /// shakmaty's castling mode for the variant.
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Chess960 => CastlingMode::Chess960,
            _ => CastlingMode::Standard,
        }
    }

    /// The start position of a game without a `FEN`: the standard setup (for Chess960, start
    /// position 518 in Chess960's space; for Racing Kings, its own).
    pub fn initial(self) -> Position {
        let chess = |mode| Chess::from_setup(Setup::default(), mode).unwrap_or_default();
        match self {
            Variant::Standard => Position::initial(),
            // The standard setup is a legal Chess960 start (a test checks the fallback is never taken).
            Variant::Chess960 => Position::of_chess(chess(CastlingMode::Chess960)),
            Variant::KingOfTheHill
            | Variant::ThreeCheck
            | Variant::RacingKings
            | Variant::Atomic
            | Variant::Antichess => {
                let setup = match self.lichess() {
                    Some(lichess) => VariantPosition::new(lichess).to_setup(EnPassantMode::Legal),
                    None => Setup::default(),
                };
                // The variants' own starts are legal in them (a test checks).
                Position::from_setup_in(self, setup, self.name()).unwrap_or_else(|_| Position::initial())
            }
        }
    }

    /// Parses a whole FEN in this variant: [`Position`]'s `FromStr`, or
    /// [`Position::from_fen_chess960`]; Three-check's checks as lichess writes them (`3+3`
    /// checks left before the counters, or `+0+0` checks given after them).
    pub fn parse_fen(self, text: &str) -> Result<Position, PositionError> {
        match self {
            Variant::Standard => text.parse(),
            Variant::Chess960 => Position::from_fen_chess960(text),
            _ => Position::from_setup_in(self, whole_fen(text)?, text),
        }
    }

    /// Whether the variant's moves are standard chess's but for some the rules forbid (a
    /// lichess variant on a standard board).
    pub fn lichess_rules(self) -> bool {
        self.lichess().is_some()
    }

    /// shakmaty's variant of a lichess variant (`None` for standard chess and Chess960).
    pub(crate) fn lichess(self) -> Option<shakmaty::variant::Variant> {
        match self {
            Variant::Standard | Variant::Chess960 => None,
            Variant::KingOfTheHill => Some(shakmaty::variant::Variant::KingOfTheHill),
            Variant::ThreeCheck => Some(shakmaty::variant::Variant::ThreeCheck),
            Variant::RacingKings => Some(shakmaty::variant::Variant::RacingKings),
            Variant::Atomic => Some(shakmaty::variant::Variant::Atomic),
            Variant::Antichess => Some(shakmaty::variant::Variant::Antichess),
        }
    }
}

/// A variant name tabiya does not index (crazyhouse, horde, a typo).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "variant {0:?} is not indexed: not a variant tabiya reads (it reads standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic and antichess)"
)]
pub struct UnknownVariant(pub String);

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;

    /// The variant of a name as lichess writes it ([`Variant::from_lichess`]).
    fn from_str(name: &str) -> Result<Variant, UnknownVariant> {
        Variant::from_lichess(name).ok_or_else(|| UnknownVariant(name.to_owned()))
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
