//! Material content: how many pieces of each kind each side has, and which contents the key can
//! express.
//!
//! The key admits a material content when each side satisfies the one-side bound (promoted
//! pieces, i.e. the excess of queens over 1 and of rooks, bishops and knights over 2, plus pawns,
//! at most 8) and the pair satisfies Tomic's cross-side promotion/capture bound:
//!
//! ```text
//! wx ≤ 2·bpd + bnd + wd    and    bx ≤ 2·wpd + wnd + bd
//! ```
//!
//! where `x` is a side's excess, `nd` its non-pawn defect (pieces missing below Q=1, R=B=N=2),
//! `pd = 8 − x − pawns` its pawn defect and `d = nd + pd`.

use std::{fmt, str::FromStr};

use shakmaty::{ByColor, ByRole, Color, Role};

use crate::position::Position;

/// Counts of every piece kind of both sides (kings included).
///
/// Written as a signature such as `KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP` (White first).
///
/// ```
/// use tabiya_core::Material;
///
/// let m: Material = "KRPPvKR".parse()?;
/// assert_eq!(m.to_string(), "KRPPvKR");
/// assert!(m.check().is_ok());
/// assert!("KQQQQQQQQQQvK".parse::<Material>()?.check().is_err()); // ten queens
/// # Ok::<_, tabiya_core::codec::MaterialError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Material(pub ByColor<ByRole<u8>>);

/// Why a material content cannot be keyed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("not a material signature (expected e.g. KQRvKRP): {0:?}")]
    /// Not a signature.
    Syntax(String),
    #[error("each side needs exactly one king: {0}")]
    /// A side without exactly one king.
    Kings(Material),
    #[error("{0} has more promoted pieces than missing pawns: {1}")]
    /// More promoted pieces on one side than its missing pawns allow.
    OneSide(Color, Material),
    #[error("impossible material (promotions need more captures than the other side's losses allow): {0}")]
    /// More promotions than the captures of the other side's pieces allow.
    CrossSide(Material),
}

/// The bound quantities of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SideBound {
    /// Promoted pieces implied by the counts.
    pub excess: i32,
    /// Non-pawn pieces missing below their initial counts.
    pub nonpawn_defect: i32,
    /// Pawns missing below `8 − excess`.
    pub pawn_defect: i32,
}

impl SideBound {
    /// The bound quantities with the king counted as a piece of initial count 1 when
    /// `kings_are_pieces` (Antichess, where kings are captured and promoted to like any piece).
    pub fn with_kings(counts: &ByRole<u8>, kings_are_pieces: bool) -> SideBound {
        let over = |n: u8, initial: u8| i32::from(n.saturating_sub(initial));
        let under = |n: u8, initial: u8| i32::from(initial.saturating_sub(n));
        let (king_over, king_under) = match kings_are_pieces {
            true => (over(counts.king, 1), under(counts.king, 1)),
            false => (0, 0),
        };
        let excess =
            over(counts.queen, 1) + over(counts.rook, 2) + over(counts.bishop, 2) + over(counts.knight, 2) + king_over;
        let nonpawn_defect = under(counts.queen, 1)
            + under(counts.rook, 2)
            + under(counts.bishop, 2)
            + under(counts.knight, 2)
            + king_under;
        SideBound { excess, nonpawn_defect, pawn_defect: 8 - excess - i32::from(counts.pawn) }
    }

    /// Right-hand side contribution of this side as the *opponent* in the cross bound.
    pub fn captures_available(self) -> i32 {
        2 * self.pawn_defect + self.nonpawn_defect
    }

    /// Left-hand side of the cross bound for this side as the promoting side.
    pub fn promotion_need(self) -> i32 {
        self.excess - (self.nonpawn_defect + self.pawn_defect)
    }
}

impl Material {
    /// The material of a position.
    pub fn of(position: &Position) -> Material {
        Material(position.board().material())
    }

    /// Men on the board, kings included (no move adds one: a promotion replaces its pawn).
    pub fn men(&self) -> u32 {
        self.0.iter().map(|side| side.iter().map(|&n| u32::from(n)).sum::<u32>()).sum()
    }

    /// The counts of one side.
    pub fn side(&self, color: Color) -> &ByRole<u8> {
        self.0.get(color)
    }

    /// Checks that the key can express this material: one king a side, the one-side and the
    /// cross-side bounds (docs/FORMAT.md, "The key").
    pub fn check(&self) -> Result<(), MaterialError> {
        if self.0.white.king != 1 || self.0.black.king != 1 {
            return Err(MaterialError::Kings(*self));
        }
        self.check_bounds(false)
    }

    /// Checks that Antichess's key can express this material: kings are pieces like any other
    /// (none, or promoted ones), under the same one-side and cross-side bounds, the king
    /// counted with an initial count of one.
    ///
    /// ```
    /// use tabiya_core::Material;
    ///
    /// assert!("QvRN".parse::<Material>()?.check_antichess().is_ok());
    /// assert!("KKKvN".parse::<Material>()?.check_antichess().is_ok());
    /// assert!("KKKPPPPPPPPvN".parse::<Material>()?.check_antichess().is_err()); // eight pawns and two promotions
    /// # Ok::<_, tabiya_core::codec::MaterialError>(())
    /// ```
    pub fn check_antichess(&self) -> Result<(), MaterialError> {
        self.check_bounds(true)
    }

    fn check_bounds(&self, kings_are_pieces: bool) -> Result<(), MaterialError> {
        let white = SideBound::with_kings(&self.0.white, kings_are_pieces);
        let black = SideBound::with_kings(&self.0.black, kings_are_pieces);
        for (color, side) in [(Color::White, white), (Color::Black, black)] {
            if side.pawn_defect < 0 {
                return Err(MaterialError::OneSide(color, *self));
            }
        }
        if white.promotion_need() > black.captures_available() || black.promotion_need() > white.captures_available() {
            return Err(MaterialError::CrossSide(*self));
        }
        Ok(())
    }
}

const SIGNATURE_ORDER: [(Role, char); 6] = [
    (Role::King, 'K'),
    (Role::Queen, 'Q'),
    (Role::Rook, 'R'),
    (Role::Bishop, 'B'),
    (Role::Knight, 'N'),
    (Role::Pawn, 'P'),
];

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for color in [Color::White, Color::Black] {
            if color == Color::Black {
                f.write_str("v")?;
            }
            for (role, letter) in SIGNATURE_ORDER {
                for _ in 0..*self.0.get(color).get(role) {
                    write!(f, "{letter}")?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    /// Parses a signature `WHITEvBLACK`, letters K, Q, R, B, N, P in any order, case-insensitive.
    fn from_str(text: &str) -> Result<Material, MaterialError> {
        let syntax = || MaterialError::Syntax(text.to_owned());
        let (white, black) = text.trim().split_once(['v', 'V']).ok_or_else(syntax)?;
        let side = |letters: &str| -> Result<ByRole<u8>, MaterialError> {
            let mut counts = ByRole::<u8>::default();
            for ch in letters.chars() {
                let role = Role::from_char(ch.to_ascii_lowercase()).ok_or_else(syntax)?;
                let count = counts.get_mut(role);
                *count = count.checked_add(1).filter(|&c| c <= 64).ok_or_else(syntax)?;
            }
            Ok(counts)
        };
        Ok(Material(ByColor { white: side(white)?, black: side(black)? }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(signature: &str) -> Result<(), MaterialError> {
        signature.parse::<Material>().unwrap().check()
    }

    #[test]
    fn bounds() {
        assert!(check("KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP").is_ok());
        assert!(check("KvK").is_ok());
        // Nine queens and no pawns: one side fine, but Black lost nothing to allow 8 promotions.
        assert!(matches!(check("KQQQQQQQQQRRBBNNvKQRRBBNNPPPPPPPP"), Err(MaterialError::CrossSide(_))));
        assert!(check("KQQQQQQQQQRRBBNNvK").is_ok());
        assert!(matches!(check("KQQPPPPPPPPvK"), Err(MaterialError::OneSide(Color::White, _))));
        assert!(matches!(check("KKvK"), Err(MaterialError::Kings(_))));
        // Black lost one knight and no pawn: that capture lets one white pawn pass, not two.
        assert!(check("KQQRRBBNNPPPPPPPvKQRRBBNPPPPPPPP").is_ok());
        assert!(matches!(check("KQQQRRBBNNPPPPPPvKQRRBBNPPPPPPPP"), Err(MaterialError::CrossSide(_))));
    }

    #[test]
    fn signature_syntax() {
        assert!("KQR".parse::<Material>().is_err());
        assert!("KXvK".parse::<Material>().is_err());
        assert_eq!("kpvk".parse::<Material>().unwrap().to_string(), "KPvK");
    }
}
