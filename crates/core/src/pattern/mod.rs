//! The pattern language: predicates over one position (piece placement, attacks, pins, checks,
//! pawn structure), parsed from text and evaluated on a [`Scene`] with [vector
//! attacks](attacks).
//!
//! ```text
//! pattern    := or
//! or         := and ("or" and)*
//! and        := unary ("and" unary)*
//! unary      := "not" unary | "(" pattern ")" | test | designator
//! test       := "check" | "doublecheck" | "mate" | "stalemate" | "wtm" | "btm"
//!             | "attacks(" designator "," designator ")"
//!             | "pin(" designator "," designator "," designator ")"
//!             | "count(" designator ")" ("=" | "==" | "!=" | "<" | "<=" | ">" | ">=") number
//!             | ("passed" | "isolated" | "doubled") "(" designator ")"
//! designator := pieces squares?
//! pieces     := letter | "[" letter+ "]"     letter: K Q R B N P (White) k q r b n p (Black)
//!                                                    A (any White) a (any Black) _ (empty)
//! squares    := range | "[" range ("," range)* "]"
//! range      := files ranks                  files: f or f-f (a..h), ranks: r or r-r (1..8)
//! ```
//!
//! A designator alone is true when a matching piece stands on one of its squares (`Ne5`,
//! `Pa-h7`, `[Qq]d1-8`, `_e4` for an empty e4). `attacks(X, Y)`: a piece matching X attacks
//! a square matching Y, whatever stands there. `pin(X, Y, Z)`: a bishop, rook or queen matching
//! X, a piece matching Y of the other colour and a piece matching Z of Y's colour stand on one
//! line in that order with only empty squares between (absolute when Z is a king). `check` and
//! `doublecheck`: the side to move is attacked by one or more, two or more pieces. `count(X)`
//! counts the squares matching X. `passed`, `isolated`, `doubled` hold when some pawn matching
//! the designator is one. `and` binds tighter than `or`.
//!
//! ```
//! use tabiya_core::pattern::Pattern;
//!
//! let pattern: Pattern = "pin(B, n, k) and not check".parse()?;
//! assert!("attacks(Q, k".parse::<Pattern>().unwrap_err().to_string().contains("column 13"));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

pub mod attacks;
mod moves;
mod need;
mod parse;
mod scene;
mod sequence;

use shakmaty::{Bitboard, Color, Role};

pub use need::MaterialNeed;
pub use parse::{MAX_PATTERN_LEN, PatternError};
pub use scene::Scene;
pub use sequence::{GamePattern, MAX_STEPS, Sequence, Step};

/// A set of square contents: the 12 pieces and the empty square, as bits indexed by
/// [`PieceSet::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceSet(u16);

impl PieceSet {
    /// Nothing.
    pub const NONE: PieceSet = PieceSet(0);
    /// The empty square.
    pub const EMPTY_SQUARE: PieceSet = PieceSet(1);

    /// Bit index of a piece: 1..=6 White's pawn..king, 9..=14 Black's (0 is the empty square).
    pub fn code(color: Color, role: Role) -> u32 {
        role as u32 + if color == Color::Black { 8 } else { 0 }
    }

    /// One piece.
    pub fn piece(color: Color, role: Role) -> PieceSet {
        PieceSet(1 << PieceSet::code(color, role))
    }

    /// Every piece of one side.
    pub fn side(color: Color) -> PieceSet {
        PieceSet(0x7e << if color == Color::Black { 8 } else { 0 })
    }

    /// Either set.
    pub fn union(self, other: PieceSet) -> PieceSet {
        PieceSet(self.0 | other.0)
    }

    /// Whether the set holds this piece.
    pub fn contains(self, color: Color, role: Role) -> bool {
        self.0 & (1 << PieceSet::code(color, role)) != 0
    }

    /// Whether the set holds the empty square.
    pub fn has_empty(self) -> bool {
        self.0 & 1 != 0
    }

    /// The pieces of the set, as (colour, role).
    pub fn pieces(self) -> impl Iterator<Item = (Color, Role)> {
        [Color::White, Color::Black]
            .into_iter()
            .flat_map(|color| Role::ALL.into_iter().map(move |role| (color, role)))
            .filter(move |&(color, role)| self.contains(color, role))
    }

    /// The one piece of a single-piece set.
    pub fn single(self) -> Option<(Color, Role)> {
        let mut pieces = self.pieces();
        match (pieces.next(), pieces.next()) {
            (Some(piece), None) if !self.has_empty() => Some(piece),
            _ => None,
        }
    }

    /// The same set with colours swapped.
    pub fn flipped(self) -> PieceSet {
        PieceSet((self.0 & 1) | (self.0 & 0x7e) << 8 | (self.0 >> 8) & 0x7e)
    }
}

/// Which contents, on which squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Designator {
    /// The contents.
    pub pieces: PieceSet,
    /// The squares.
    pub squares: Bitboard,
}

impl Designator {
    /// No content anywhere (a placeholder, overwritten by the parser).
    const PLACEHOLDER: Designator = Designator { pieces: PieceSet::NONE, squares: Bitboard::FULL };

    fn flipped(self) -> Designator {
        Designator { pieces: self.pieces.flipped(), squares: self.squares.flip_vertical() }
    }
}

/// A comparison of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// Whether `left OP right` holds.
    pub fn holds(self, left: u32, right: u32) -> bool {
        match self {
            Cmp::Eq => left == right,
            Cmp::Ne => left != right,
            Cmp::Lt => left < right,
            Cmp::Le => left <= right,
            Cmp::Gt => left > right,
            Cmp::Ge => left >= right,
        }
    }
}

/// A test of the whole position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// The side to move is in check.
    Check,
    /// The side to move is attacked by two or more pieces.
    DoubleCheck,
    /// The side to move is checkmated.
    Mate,
    /// The side to move is stalemated.
    Stalemate,
    /// This side is to move.
    ToMove(Color),
}

/// A parsed pattern expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A matching piece stands on one of the squares.
    Piece(Designator),
    /// A piece matching the first attacks a square matching the second.
    Attacks(Designator, Designator),
    /// Pinner, pinned, behind.
    Pin(Designator, Designator, Designator),
    /// A whole-position test.
    Test(Test),
    /// The number of squares matching compares to a number.
    Count(Designator, Cmp, u8),
    /// Some matching pawn is passed.
    Passed(Designator),
    /// Some matching pawn is isolated.
    Isolated(Designator),
    /// Some matching pawn shares its file with a pawn of its colour.
    Doubled(Designator),
    /// Both.
    And(Box<Expr>, Box<Expr>),
    /// Either.
    Or(Box<Expr>, Box<Expr>),
    /// Not.
    Not(Box<Expr>),
}

impl Expr {
    /// The roles whose placement alone decides the expression, as a bit set (bit `Role as u8`):
    /// a move that leaves those roles' squares as they were cannot change its truth. `None` when
    /// it looks at more: attacks, pins, checks, the side to move, empty squares.
    pub fn placement_roles(&self) -> Option<u8> {
        let roles = |d: &Designator| -> Option<u8> {
            (!d.pieces.has_empty()).then(|| d.pieces.pieces().fold(0, |mask, (_, role)| mask | 1 << role as u8))
        };
        let pawns = 1 << shakmaty::Role::Pawn as u8;
        match self {
            Expr::Piece(d) | Expr::Count(d, _, _) => roles(d),
            // Pawn structure: the designated pawns against the other pawns.
            Expr::Passed(d) | Expr::Isolated(d) | Expr::Doubled(d) => roles(d).map(|mask| mask | pawns),
            Expr::Attacks(..) | Expr::Pin(..) | Expr::Test(_) => None,
            Expr::And(a, b) | Expr::Or(a, b) => Some(a.placement_roles()? | b.placement_roles()?),
            Expr::Not(a) => a.placement_roles(),
        }
    }

    /// The same question with colours swapped and the board mirrored top to bottom.
    pub fn flipped(&self) -> Expr {
        let boxed = |e: &Expr| Box::new(e.flipped());
        match self {
            Expr::Piece(d) => Expr::Piece(d.flipped()),
            Expr::Attacks(x, y) => Expr::Attacks(x.flipped(), y.flipped()),
            Expr::Pin(x, y, z) => Expr::Pin(x.flipped(), y.flipped(), z.flipped()),
            Expr::Test(Test::ToMove(color)) => Expr::Test(Test::ToMove(!*color)),
            Expr::Test(test) => Expr::Test(*test),
            Expr::Count(d, cmp, n) => Expr::Count(d.flipped(), *cmp, *n),
            Expr::Passed(d) => Expr::Passed(d.flipped()),
            Expr::Isolated(d) => Expr::Isolated(d.flipped()),
            Expr::Doubled(d) => Expr::Doubled(d.flipped()),
            Expr::And(a, b) => Expr::And(boxed(a), boxed(b)),
            Expr::Or(a, b) => Expr::Or(boxed(a), boxed(b)),
            Expr::Not(a) => Expr::Not(boxed(a)),
        }
    }
}

/// A pattern ready to evaluate: the expression, or with `--flip-colours` the expression or its
/// mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// What was asked.
    pub expr: Expr,
    /// Matched as asked or colour-flipped (CQL's `flipcolor`).
    pub flip_colours: bool,
    mirror: Expr,
}

impl std::str::FromStr for Pattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Pattern, PatternError> {
        Ok(Pattern::new(parse::parse(text)?, false))
    }
}

impl Pattern {
    /// A pattern of this expression.
    pub fn new(expr: Expr, flip_colours: bool) -> Pattern {
        Pattern { mirror: expr.flipped(), expr, flip_colours }
    }

    /// The same pattern, also matching its colour-flipped mirror when `flip` is set.
    pub fn with_flip(self, flip: bool) -> Pattern {
        Pattern { flip_colours: flip, ..self }
    }

    /// The colour-flipped mirror alone (White's pieces Black's, ranks reversed).
    pub fn mirrored(&self) -> Pattern {
        Pattern { expr: self.mirror.clone(), mirror: self.expr.clone(), flip_colours: false }
    }

    /// Whether the scene matches.
    #[inline]
    pub fn matches(&self, scene: &mut Scene) -> bool {
        scene.eval(&self.expr) || (self.flip_colours && scene.eval(&self.mirror))
    }

    /// The roles whose placement alone decides the pattern ([`Expr::placement_roles`]).
    ///
    /// ```
    /// use tabiya_core::pattern::Pattern;
    /// use shakmaty::Role;
    ///
    /// let queens: Pattern = "count([Qq]) = 0".parse()?;
    /// assert_eq!(queens.placement_roles(), Some(1 << Role::Queen as u8));
    /// assert_eq!("check".parse::<Pattern>()?.placement_roles(), None);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn placement_roles(&self) -> Option<u8> {
        let roles = self.expr.placement_roles()?;
        if self.flip_colours { Some(roles | self.mirror.placement_roles()?) } else { Some(roles) }
    }

    /// The material every matching position must have: lets a scan skip whole key ranges.
    pub fn material_need(&self) -> MaterialNeed {
        let need = MaterialNeed::of(&self.expr);
        if self.flip_colours { need.hull(&MaterialNeed::of(&self.mirror)) } else { need }
    }
}

#[cfg(test)]
mod tests;
