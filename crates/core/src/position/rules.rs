//! The rules of lichess's variants played on a standard board: King of the Hill, Three-check,
//! Racing Kings, Atomic and Antichess. A position of one is shakmaty's variant position (board, side to move,
//! castling rights, en-passant square, and in Three-check the checks each side has left),
//! whose legal moves are standard chess's, but none once the variant's game is over, and in
//! Racing Kings none that gives check.

use shakmaty::{
    ByColor, CastlingMode, EnPassantMode, Move, MoveList, Position as _, PositionError as ShakmatyPositionError,
    PositionErrorKinds, RemainingChecks, Setup,
    san::{San, SanError, SanPlus},
    variant::VariantPosition,
};

use super::{Position, PositionError, Variant, describe};

/// What a position follows besides its board: standard chess (and Chess960, told by its
/// castling mode), or one of lichess's variants on a standard board. What a board decoded from
/// a key is judged by ([`crate::pattern::Scene`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Rules {
    #[default]
    Chess,
    KingOfTheHill,
    RacingKings,
    /// The checks each side gave, 0 to 3.
    ThreeCheck(ByColor<u8>),
    Atomic,
    Antichess,
}

impl Rules {
    /// The rules of `variant`, with Three-check's checks given (three or fewer each; none given
    /// when `None`).
    pub(crate) fn of(variant: Variant, checks_given: Option<ByColor<u8>>) -> Rules {
        match variant {
            Variant::KingOfTheHill => Rules::KingOfTheHill,
            Variant::RacingKings => Rules::RacingKings,
            Variant::ThreeCheck => Rules::ThreeCheck(checks_given.unwrap_or_default().map(|n| n.min(WINNING_CHECKS))),
            Variant::Atomic => Rules::Atomic,
            Variant::Antichess => Rules::Antichess,
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
            Rules::Atomic => shakmaty::variant::Variant::Atomic,
            Rules::Antichess => shakmaty::variant::Variant::Antichess,
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
        let mut setup = setup;
        // No side castles in Antichess: a FEN's castling field (the standard start's `KQkq`,
        // pasted) grants nothing, as python-chess reads it.
        if variant == Variant::Antichess {
            setup.castling_rights = shakmaty::Bitboard::EMPTY;
        }
        if variant == Variant::ThreeCheck {
            let remaining = setup.remaining_checks.unwrap_or_default();
            if u8::from(remaining.white) == 0 && u8::from(remaining.black) == 0 {
                let reason = "both sides gave three checks".to_owned();
                return Err(PositionError::Illegal { input: input(), reason });
            }
            setup.remaining_checks = Some(remaining);
        }
        let inner = variant_position(lichess, setup)
            .map_err(|kinds| PositionError::Illegal { input: input(), reason: describe(kinds) })?;
        let mut position = Position { inner };
        position.drop_unplayable_en_passant();
        Ok(position)
    }

    /// The variant whose rules the position follows.
    pub fn variant(&self) -> Variant {
        match &self.inner {
            VariantPosition::Chess(_) if self.is_chess960() => Variant::Chess960,
            VariantPosition::KingOfTheHill(_) => Variant::KingOfTheHill,
            VariantPosition::RacingKings(_) => Variant::RacingKings,
            VariantPosition::ThreeCheck(_) => Variant::ThreeCheck,
            VariantPosition::Atomic(_) => Variant::Atomic,
            VariantPosition::Antichess(_) => Variant::Antichess,
            // No other kind is ever made.
            _ => Variant::Standard,
        }
    }

    /// The rules the position follows besides its board.
    pub(crate) fn rules(&self) -> Rules {
        Rules::of(self.variant(), self.checks_given())
    }

    /// In Three-check, the checks each side gave (0 to 3); `None` in other variants.
    pub fn checks_given(&self) -> Option<ByColor<u8>> {
        match &self.inner {
            VariantPosition::ThreeCheck(p) => {
                p.remaining_checks().map(|left| left.map(|left| WINNING_CHECKS - u8::from(left).min(WINNING_CHECKS)))
            }
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
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.inner.legal_moves()
    }

    /// The move `san` names by the position's rules: a lichess variant's SAN leaves out a
    /// disambiguation that only a move the variant forbids would need (a knight's move giving
    /// check in Racing Kings), so it is read against the variant's moves.
    #[inline]
    pub fn san_move(&self, san: &San) -> Result<Move, SanError> {
        match &self.inner {
            VariantPosition::Chess(chess) => san.to_move(chess),
            other => san.to_move(other),
        }
    }

    /// The SAN of `m` (legal by the position's rules) with its check or mate mark, as the
    /// variant writes it: a lichess variant's disambiguation counts its own moves only.
    pub fn san_plus(&self, m: Move) -> SanPlus {
        SanPlus::from_move(self.inner.clone(), m)
    }

    /// Whether `m` is legal by the position's rules.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.inner.is_legal(m)
    }

    /// Why the game is over at this position by its rules, in words (`checkmate`, `stalemate`,
    /// `insufficient material`, or a variant's own end: `king of the hill`, `third check`,
    /// `race finished`, `king exploded`, `no pieces left`); `None` while it goes on.
    pub fn game_over(&self) -> Option<&'static str> {
        let p = &self.inner;
        if p.is_variant_end() {
            return Some(match self.variant() {
                Variant::KingOfTheHill => "king of the hill",
                Variant::ThreeCheck => "third check",
                Variant::Atomic => "king exploded",
                Variant::Antichess => "no pieces left",
                _ => "race finished",
            });
        }
        match () {
            _ if p.is_checkmate() => Some("checkmate"),
            _ if p.is_stalemate() => Some("stalemate"),
            _ if p.is_insufficient_material() => Some("insufficient material"),
            _ => None,
        }
    }

    /// An en-passant square is part of a position only when a legal capture uses it: where a
    /// lichess variant's game is over (a third check given by a pawn's double step), no move
    /// is legal, so it is none (python-chess and lichess write no such square either).
    pub(super) fn drop_unplayable_en_passant(&mut self) {
        // shakmaty's variant position keeps a double step's square, which its board (compared
        // by standard chess's rules) still counts where the variant's game is over. Elsewhere
        // the square stays as the move left it, as in standard chess (the mainline's code reads
        // it).
        if matches!(self.inner, VariantPosition::Chess(_))
            || self.inner.maybe_ep_square().is_none()
            || !self.inner.is_variant_end()
        {
            return;
        }
        let setup = Setup { ep_square: None, ..self.inner.to_setup(EnPassantMode::Legal) };
        // The same board without the square: as legal as it was.
        if let Ok(inner) = variant_position(self.variant().lichess().unwrap_or_default(), setup) {
            self.inner = inner;
        }
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
