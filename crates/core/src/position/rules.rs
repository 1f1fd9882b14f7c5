//! The rules of lichess's variants played on a standard board: King of the Hill, Three-check
//! and Racing Kings. A position of one is a standard board, side to move, castling rights and
//! en-passant square (a shakmaty [`Chess`] value, which keys it as standard chess's digits do),
//! the variant, and in Three-check the checks each side gave. Their legal moves are those
//! shakmaty's variant positions allow: standard chess's, but none once the variant's game is
//! over, and in Racing Kings none that gives check.

use shakmaty::{
    ByColor, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, MoveList, Position as _,
    PositionError as ShakmatyPositionError, PositionErrorKinds, RemainingChecks, Setup,
    san::{San, SanError, SanPlus},
    variant::VariantPosition,
};

use super::{Position, PositionError, Variant, describe};

/// What a position follows besides its board: standard chess (and Chess960, told by its
/// castling mode), or one of lichess's variants on a standard board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Rules {
    #[default]
    Chess,
    KingOfTheHill,
    RacingKings,
    /// The checks each side gave, 0 to 3.
    ThreeCheck(ByColor<u8>),
}

impl Rules {
    /// The rules of `variant`, with Three-check's checks given (three or fewer each; none given
    /// when `None`).
    pub(crate) fn of(variant: Variant, checks_given: Option<ByColor<u8>>) -> Rules {
        match variant {
            Variant::KingOfTheHill => Rules::KingOfTheHill,
            Variant::RacingKings => Rules::RacingKings,
            Variant::ThreeCheck => Rules::ThreeCheck(checks_given.unwrap_or_default().map(|n| n.min(WINNING_CHECKS))),
            Variant::Standard | Variant::Chess960 => Rules::Chess,
        }
    }

    /// shakmaty's variant position of a board under these rules (`None` for standard chess's,
    /// or a board the rules refuse): what decides a lichess variant's legal moves and its end.
    pub(crate) fn lichess_position(self, mut setup: Setup) -> Option<VariantPosition> {
        let lichess = match self {
            Rules::Chess => return None,
            Rules::KingOfTheHill => shakmaty::variant::Variant::KingOfTheHill,
            Rules::RacingKings => shakmaty::variant::Variant::RacingKings,
            Rules::ThreeCheck(given) => {
                setup.remaining_checks = Some(remaining_checks(given));
                shakmaty::variant::Variant::ThreeCheck
            }
        };
        variant_position(lichess, setup).ok()
    }
}

/// The checks that win Three-check.
pub const WINNING_CHECKS: u8 = 3;

impl Position {
    /// Validates a shakmaty setup in `variant`: standard chess's and Chess960's as
    /// [`Position::from_setup`] and [`Position::from_setup_chess960`] do, a lichess variant's by
    /// its rules (Three-check's checks from the setup's remaining checks, three each when it has
    /// none). `input` names the source in error messages.
    ///
    /// ```
    /// use tabiya_core::{Position, position::Variant};
    ///
    /// let three_check = Variant::ThreeCheck.parse_fen("4k3/8/8/8/8/8/8/4K2R w K - 1+3 0 1")?;
    /// assert_eq!(three_check.checks_given().map(|given| (given.white, given.black)), Some((2, 0)));
    /// assert_eq!(three_check.to_string(), "4k3/8/8/8/8/8/8/4K2R w K - 1+3");
    /// // Racing Kings allows no check.
    /// assert!(Variant::RacingKings.parse_fen("8/8/8/8/8/8/k7/R6K b - - 0 1").is_err());
    /// # Ok::<_, tabiya_core::position::PositionError>(())
    /// ```
    pub fn from_setup_in(
        variant: Variant,
        setup: Setup,
        input: impl std::fmt::Display,
    ) -> Result<Position, PositionError> {
        let Some(lichess) = variant.lichess() else {
            return match variant {
                Variant::Chess960 => Position::from_setup_chess960(setup, input),
                _ => Position::from_setup(setup, input),
            };
        };
        let input = || input.to_string();
        if setup.pockets.is_some() || setup.remaining_checks.is_some() && variant != Variant::ThreeCheck {
            return Err(PositionError::Variant { input: input() });
        }
        let remaining = setup.remaining_checks.unwrap_or_default();
        let given = remaining.map(|left| WINNING_CHECKS - u8::from(left).min(WINNING_CHECKS));
        if given.white == WINNING_CHECKS && given.black == WINNING_CHECKS {
            let reason = "both sides gave three checks".to_owned();
            return Err(PositionError::Illegal { input: input(), reason });
        }
        let illegal = |kinds| PositionError::Illegal { input: input(), reason: describe(kinds) };
        variant_position(lichess, setup.clone()).map_err(illegal)?;
        let board_only = Setup { remaining_checks: None, ..setup };
        let chess = Chess::from_setup(board_only, CastlingMode::Standard)
            .or_else(ShakmatyPositionError::ignore_impossible_check)
            .map_err(|err| illegal(err.kinds()))?;
        let rules = match variant {
            Variant::KingOfTheHill => Rules::KingOfTheHill,
            Variant::RacingKings => Rules::RacingKings,
            _ => Rules::ThreeCheck(given),
        };
        let mut position = Position::with_rules(chess, rules);
        position.drop_unplayable_en_passant();
        Ok(position)
    }

    /// The variant whose rules the position follows.
    pub fn variant(&self) -> Variant {
        match self.rules {
            Rules::Chess if self.is_chess960() => Variant::Chess960,
            Rules::Chess => Variant::Standard,
            Rules::KingOfTheHill => Variant::KingOfTheHill,
            Rules::RacingKings => Variant::RacingKings,
            Rules::ThreeCheck(_) => Variant::ThreeCheck,
        }
    }

    /// The rules the position follows besides its board.
    pub(crate) fn rules(&self) -> Rules {
        self.rules
    }

    /// In Three-check, the checks each side gave (0 to 3); `None` in other variants.
    pub fn checks_given(&self) -> Option<ByColor<u8>> {
        match self.rules {
            Rules::ThreeCheck(given) => Some(given),
            _ => None,
        }
    }

    /// The legal moves by the position's rules.
    ///
    /// ```
    /// use tabiya_core::{Position, position::Variant};
    ///
    /// // White's king reached the hill: King of the Hill's game is over, standard chess's is not.
    /// let fen = "4k3/8/8/8/4K3/8/8/8 b - - 0 1";
    /// assert!(Variant::KingOfTheHill.parse_fen(fen)?.legal_moves().is_empty());
    /// assert!(!fen.parse::<Position>()?.legal_moves().is_empty());
    /// # Ok::<_, tabiya_core::position::PositionError>(())
    /// ```
    pub fn legal_moves(&self) -> MoveList {
        match self.rules {
            Rules::Chess => self.chess.legal_moves(),
            _ => self.lichess_position().map(|position| position.legal_moves()).unwrap_or_default(),
        }
    }

    /// The move `san` names by the position's rules: a lichess variant's SAN leaves out a
    /// disambiguation that only a move the variant forbids would need (a knight's move giving
    /// check in Racing Kings), so it is read against the variant's moves.
    pub fn san_move(&self, san: &San) -> Result<Move, SanError> {
        match self.rules {
            Rules::Chess => san.to_move(&self.chess),
            _ => match self.lichess_position() {
                Some(position) => san.to_move(&position),
                None => Err(SanError::IllegalSan),
            },
        }
    }

    /// The SAN of `m` (legal by the position's rules) with its check or mate mark, as the
    /// variant writes it: a lichess variant's disambiguation counts its own moves only.
    pub fn san_plus(&self, m: Move) -> SanPlus {
        match self.lichess_position() {
            Some(position) => SanPlus::from_move(position, m),
            None => SanPlus::from_move(self.chess.clone(), m),
        }
    }

    /// Whether `m` is legal by the position's rules.
    pub fn is_legal(&self, m: Move) -> bool {
        match self.rules {
            Rules::Chess => self.chess.is_legal(m),
            _ => self.lichess_position().is_some_and(|position| position.is_legal(m)),
        }
    }

    /// Why the game is over at this position by its rules, in words (`checkmate`, `stalemate`,
    /// `insufficient material`, or a variant's own end: `king of the hill`, `third check`,
    /// `race finished`); `None` while it goes on.
    pub fn game_over(&self) -> Option<&'static str> {
        let (variant_end, checkmate, stalemate, insufficient) = match self.rules {
            Rules::Chess => {
                let p = &self.chess;
                (false, p.is_checkmate(), p.is_stalemate(), p.is_insufficient_material())
            }
            _ => {
                let p = self.lichess_position()?;
                (p.is_variant_end(), p.is_checkmate(), p.is_stalemate(), p.is_insufficient_material())
            }
        };
        match self.rules {
            _ if variant_end => Some(match self.rules {
                Rules::KingOfTheHill => "king of the hill",
                Rules::ThreeCheck(_) => "third check",
                _ => "race finished",
            }),
            _ if checkmate => Some("checkmate"),
            _ if stalemate => Some("stalemate"),
            _ if insufficient => Some("insufficient material"),
            _ => None,
        }
    }

    /// The rules' part of a move `mover` played (which left `chess`): Three-check counts a check
    /// given.
    pub(super) fn after_move(&mut self, mover: Color) {
        if let Rules::ThreeCheck(given) = &mut self.rules
            && self.chess.is_check()
        {
            let count = given.get_mut(mover);
            *count = (*count + 1).min(WINNING_CHECKS);
        }
        self.drop_unplayable_en_passant();
    }

    /// An en-passant square is part of a position only when a legal capture uses it: where a
    /// lichess variant's game is over (a third check given by a pawn's double step), no move
    /// is legal, so it is none (python-chess and lichess write no such square either).
    fn drop_unplayable_en_passant(&mut self) {
        if self.rules == Rules::Chess || self.chess.ep_square(EnPassantMode::Legal).is_none() {
            return;
        }
        if !self.legal_moves().is_empty() {
            return;
        }
        let setup = Setup { ep_square: None, ..self.chess.to_setup(EnPassantMode::Legal) };
        // The same board without the square: as legal as it was.
        if let Ok(chess) =
            Chess::from_setup(setup, CastlingMode::Standard).or_else(ShakmatyPositionError::ignore_impossible_check)
        {
            self.chess = chess;
        }
    }

    /// The position as shakmaty's variant position, for a lichess variant's move generation.
    fn lichess_position(&self) -> Option<VariantPosition> {
        // Every position here was validated by these rules when it was made: none is lost.
        self.rules.lichess_position(self.chess.to_setup(EnPassantMode::Legal))
    }
}

/// shakmaty's variant position of `setup`, or why its rules refuse it. A check in Racing Kings
/// is no impossible check to pass over: the rules forbid any.
fn variant_position(lichess: shakmaty::variant::Variant, setup: Setup) -> Result<VariantPosition, PositionErrorKinds> {
    let position = VariantPosition::from_setup(lichess, setup, CastlingMode::Standard);
    match lichess {
        shakmaty::variant::Variant::RacingKings => position,
        _ => position.or_else(ShakmatyPositionError::ignore_impossible_check),
    }
    .map_err(|err| err.kinds())
}

/// The checks each side has left, as a FEN writes them, of the checks each side gave.
pub(crate) fn remaining_checks(given: ByColor<u8>) -> ByColor<RemainingChecks> {
    // Counts at most three by construction.
    given.map(|given| RemainingChecks::try_from(WINNING_CHECKS.saturating_sub(given)).unwrap_or_default())
}

/// The text a Three-check position's EPD ends with: the checks each side has left, as lichess
/// writes them (`3+3` at the start).
pub(super) fn checks_left(given: ByColor<u8>) -> String {
    format!("{}+{}", WINNING_CHECKS - given.white, WINNING_CHECKS - given.black)
}
