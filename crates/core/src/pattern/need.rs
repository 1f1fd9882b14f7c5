//! [`MaterialNeed`]: the piece counts a pattern implies, so that a scan skips every key range
//! whose material cannot match (keys are ordered by category, then material).

use shakmaty::{Bitboard, ByColor, ByRole, Color, Role};

use super::{Cmp, Designator, Expr, PieceSet};
use crate::Material;

/// Lower and upper bounds on each piece count and on each side's number of pieces; a material
/// outside them cannot match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaterialNeed {
    min: ByColor<ByRole<u8>>,
    max: ByColor<ByRole<u8>>,
    /// Bounds on all of one side's pieces together (from `count(A)`, `count(a)`).
    side_min: ByColor<u8>,
    side_max: ByColor<u8>,
}

impl Default for MaterialNeed {
    fn default() -> MaterialNeed {
        MaterialNeed::ANY
    }
}

impl MaterialNeed {
    /// No restriction.
    pub const ANY: MaterialNeed = MaterialNeed {
        min: ByColor {
            white: ByRole { pawn: 0, knight: 0, bishop: 0, rook: 0, queen: 0, king: 0 },
            black: ByRole { pawn: 0, knight: 0, bishop: 0, rook: 0, queen: 0, king: 0 },
        },
        max: ByColor {
            white: ByRole { pawn: 64, knight: 64, bishop: 64, rook: 64, queen: 64, king: 64 },
            black: ByRole { pawn: 64, knight: 64, bishop: 64, rook: 64, queen: 64, king: 64 },
        },
        side_min: ByColor { white: 0, black: 0 },
        side_max: ByColor { white: 64, black: 64 },
    };

    /// What an expression implies (sound, not complete: `not` and `or` of unrelated pieces
    /// imply little).
    pub fn of(expr: &Expr) -> MaterialNeed {
        let mut need = MaterialNeed::ANY;
        match expr {
            Expr::Piece(d) => need.at_least(d, 1),
            Expr::Attacks(x, y) => {
                need.at_least(x, 1);
                need.at_least(y, 1);
            }
            Expr::Pin(x, y, z) => {
                for d in [x, y, z] {
                    need.at_least(d, 1);
                }
            }
            Expr::Count(d, cmp, n) => need.count(d, *cmp, *n),
            Expr::Passed(d) | Expr::Isolated(d) => need.at_least(&pawns_of(d), 1),
            Expr::Doubled(d) => need.at_least(&pawns_of(d), 2),
            Expr::And(a, b) => need = MaterialNeed::of(a).and(&MaterialNeed::of(b)),
            Expr::Or(a, b) => need = MaterialNeed::of(a).hull(&MaterialNeed::of(b)),
            Expr::Test(_) | Expr::Not(_) => {}
        }
        need
    }

    /// Whether a material meets every bound.
    pub fn admits(&self, material: &Material) -> bool {
        [Color::White, Color::Black].into_iter().all(|color| {
            let (have, min, max) = (material.side(color), self.min.get(color), self.max.get(color));
            let pieces: u8 = have.iter().sum();
            Role::ALL.into_iter().all(|role| (*min.get(role)..=*max.get(role)).contains(have.get(role)))
                && (*self.side_min.get(color)..=*self.side_max.get(color)).contains(&pieces)
        })
    }

    /// Whether nothing is restricted.
    pub fn is_any(&self) -> bool {
        *self == MaterialNeed::ANY
    }

    /// Both needs at once.
    pub fn and(&self, other: &MaterialNeed) -> MaterialNeed {
        self.combine(other, u8::max, u8::min)
    }

    /// Either need (the loosest bounds covering both).
    pub fn hull(&self, other: &MaterialNeed) -> MaterialNeed {
        self.combine(other, u8::min, u8::max)
    }

    fn combine(&self, other: &MaterialNeed, min: fn(u8, u8) -> u8, max: fn(u8, u8) -> u8) -> MaterialNeed {
        let pick = |a: &ByColor<ByRole<u8>>, b: &ByColor<ByRole<u8>>, f: fn(u8, u8) -> u8| {
            ByColor::new_with(|color| ByRole::new_with(|role| f(*a.get(color).get(role), *b.get(color).get(role))))
        };
        let side = |a: &ByColor<u8>, b: &ByColor<u8>, f: fn(u8, u8) -> u8| {
            ByColor::new_with(|color| f(*a.get(color), *b.get(color)))
        };
        MaterialNeed {
            min: pick(&self.min, &other.min, min),
            max: pick(&self.max, &other.max, max),
            side_min: side(&self.side_min, &other.side_min, min),
            side_max: side(&self.side_max, &other.side_max, max),
        }
    }

    fn at_least(&mut self, d: &Designator, n: u8) {
        if let Some((color, role)) = d.pieces.single()
            && !d.squares.is_empty()
        {
            let slot = self.min.get_mut(color).get_mut(role);
            *slot = (*slot).max(n);
        }
    }

    fn count(&mut self, d: &Designator, cmp: Cmp, n: u8) {
        // Bounds on the count on the designator's squares. They bound the piece count from
        // below always, from above only when the squares are the whole board.
        let whole = d.squares == Bitboard::FULL;
        let (lo, hi) = match cmp {
            Cmp::Eq => (n, if whole { n } else { 64 }),
            Cmp::Ge => (n, 64),
            Cmp::Gt => (n.saturating_add(1), 64),
            Cmp::Le if whole => (0, n),
            // `count(X) < 0` never holds: an empty range (min above max).
            Cmp::Lt if whole && n == 0 => (1, 0),
            Cmp::Lt if whole => (0, n - 1),
            _ => (0, 64),
        };
        let (min, max) = if let Some((color, role)) = d.pieces.single() {
            (self.min.get_mut(color).get_mut(role), self.max.get_mut(color).get_mut(role))
        } else if let Some(color) = [Color::White, Color::Black].into_iter().find(|&c| d.pieces == PieceSet::side(c)) {
            (self.side_min.get_mut(color), self.side_max.get_mut(color))
        } else {
            return;
        };
        *min = (*min).max(lo);
        *max = (*max).min(hi);
    }
}

/// The pawn part of a designator (pawn predicates ignore other pieces).
fn pawns_of(d: &Designator) -> Designator {
    let mut pieces = PieceSet::NONE;
    for color in [Color::White, Color::Black] {
        if d.pieces.contains(color, Role::Pawn) {
            pieces = pieces.union(PieceSet::piece(color, Role::Pawn));
        }
    }
    Designator { pieces, squares: d.squares }
}
