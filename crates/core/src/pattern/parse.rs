//! The pattern language's parser: text to [`Expr`], with errors that name the column.

use shakmaty::{Bitboard, Color, File, Rank, Role, Square};

use super::{
    Cmp, Designator, Expr, Pattern, PieceSet, Test,
    sequence::{MAX_STEPS, Sequence, Step},
};

/// Most plies a sequence step's window spans.
const MAX_WITHIN: u32 = 1000;

/// Why a `seq(...)` cannot stand inside a position pattern.
const SEQ_INSIDE: &str = "seq(...) is a sequence of positions in one game: it is a whole pattern for games \
                          (tabiya games --pattern, GET /games, report themes) or the last step of another seq, \
                          not a condition inside and/or/not, nor a position search";

/// Why a pattern does not parse: the 1-based column (in characters) and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pattern error at column {column}: {message}")]
pub struct PatternError {
    /// Where, counting characters from 1.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

/// Longest pattern accepted (bounded work per query).
pub const MAX_PATTERN_LEN: usize = 2000;
/// Deepest nesting of parentheses and `not`.
const MAX_DEPTH: usize = 64;

const KEYWORDS: [&str; 15] = [
    "and",
    "or",
    "not",
    "attacks",
    "pin",
    "check",
    "doublecheck",
    "mate",
    "stalemate",
    "wtm",
    "btm",
    "count",
    "passed",
    "isolated",
    "doubled",
];

pub(super) fn parse(text: &str) -> Result<Expr, PatternError> {
    let mut parser = Parser::new(text)?;
    let expr = parser.or()?;
    parser.skip_space();
    if parser.at < parser.chars.len() {
        return Err(parser.expected("'and', 'or', ')' or the end of the pattern"));
    }
    Ok(expr)
}

/// A sequence (`seq(...)` as the whole text), or `None` for a text that is not one (a position
/// pattern, parsed by [`parse`]).
pub(super) fn parse_sequence(text: &str) -> Result<Option<Sequence>, PatternError> {
    let mut parser = Parser::new(text)?;
    if !parser.at_seq() {
        return Ok(None);
    }
    let steps = parser.sequence()?;
    parser.skip_space();
    if parser.at < parser.chars.len() {
        return Err(
            parser.expected("the end of the pattern (a sequence is a whole pattern: put conditions inside its steps)")
        );
    }
    Ok(Some(Sequence { steps, mirror: None }))
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn new(text: &str) -> Result<Parser, PatternError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() > MAX_PATTERN_LEN {
            return Err(PatternError {
                column: MAX_PATTERN_LEN + 1,
                message: format!("longer than {MAX_PATTERN_LEN} characters"),
            });
        }
        Ok(Parser { chars, at: 0, depth: 0 })
    }

    /// Whether `seq(` stands at the cursor (spaces skipped).
    fn at_seq(&mut self) -> bool {
        self.skip_space();
        self.word_at(self.at) == "seq" && self.chars[self.at + 3..].iter().find(|c| !c.is_whitespace()) == Some(&'(')
    }

    /// `seq(first, rest[, plies])` at the cursor, flattened into steps.
    fn sequence(&mut self) -> Result<Vec<Step>, PatternError> {
        self.at += 3;
        self.expect('(')?;
        if self.at_seq() {
            return Err(PatternError {
                column: self.at + 1,
                message: "a sequence's first step is a position pattern: nest sequences in its second argument, \
                          seq(A, seq(B, C))"
                    .to_owned(),
            });
        }
        let first = Step { pattern: Pattern::new(self.or()?, false), within: None };
        self.expect(',')?;
        let mut rest = if self.at_seq() {
            self.sequence()?
        } else {
            vec![Step { pattern: Pattern::new(self.or()?, false), within: None }]
        };
        if self.eat(',') {
            rest[0].within = Some(self.plies()?);
        }
        self.expect(')')?;
        let steps: Vec<Step> = std::iter::once(first).chain(rest).collect();
        if steps.len() > MAX_STEPS {
            return Err(PatternError { column: self.at, message: format!("a sequence has at most {MAX_STEPS} steps") });
        }
        Ok(steps)
    }

    /// A step's window: 1 to [`MAX_WITHIN`] plies.
    fn plies(&mut self) -> Result<u32, PatternError> {
        self.skip_space();
        let digits: String = self.chars[self.at..].iter().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>() {
            Ok(0) => Err(PatternError {
                column: self.at + 1,
                message: "a step at most 0 plies later is never later: give 1 or more plies".to_owned(),
            }),
            Ok(n) if n <= MAX_WITHIN => {
                self.at += digits.len();
                Ok(n)
            }
            _ => Err(self.expected(&format!("a number of plies from 1 to {MAX_WITHIN}"))),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// What stands at the cursor, for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the pattern".to_owned(),
            Some(_) => {
                let word = self.word_at(self.at);
                if word.is_empty() { format!("{:?}", self.chars[self.at]) } else { format!("{word:?}") }
            }
        }
    }

    fn expected(&self, what: &str) -> PatternError {
        PatternError { column: self.at + 1, message: format!("expected {what}, found {}", self.found()) }
    }

    /// The run of letters and digits starting at `at`.
    fn word_at(&self, at: usize) -> String {
        self.chars[at..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == '_').collect()
    }

    /// The keyword at the cursor, if the whole word is one.
    fn keyword(&mut self) -> Option<&'static str> {
        self.skip_space();
        let word = self.word_at(self.at);
        KEYWORDS.iter().copied().find(|k| *k == word)
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        if self.keyword() == Some(keyword) {
            self.at += keyword.len();
            true
        } else {
            false
        }
    }

    fn eat(&mut self, ch: char) -> bool {
        self.skip_space();
        if self.peek() == Some(ch) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, ch: char) -> Result<(), PatternError> {
        if self.eat(ch) { Ok(()) } else { Err(self.expected(&format!("'{ch}'"))) }
    }

    fn or(&mut self) -> Result<Expr, PatternError> {
        let mut left = self.and()?;
        while self.eat_keyword("or") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, PatternError> {
        let mut left = self.unary()?;
        while self.eat_keyword("and") {
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, PatternError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(PatternError { column: self.at + 1, message: format!("nested deeper than {MAX_DEPTH}") });
        }
        let expr = if self.eat_keyword("not") { Expr::Not(Box::new(self.unary()?)) } else { self.atom()? };
        self.depth -= 1;
        Ok(expr)
    }

    fn atom(&mut self) -> Result<Expr, PatternError> {
        self.skip_space();
        if self.at_seq() {
            return Err(PatternError { column: self.at + 1, message: SEQ_INSIDE.to_owned() });
        }
        if self.eat('(') {
            let inner = self.or()?;
            self.expect(')')?;
            return Ok(inner);
        }
        if let Some(keyword) = self.keyword() {
            let column = self.at + 1;
            self.at += keyword.len();
            return Ok(match keyword {
                "check" => Expr::Test(Test::Check),
                "doublecheck" => Expr::Test(Test::DoubleCheck),
                "mate" => Expr::Test(Test::Mate),
                "stalemate" => Expr::Test(Test::Stalemate),
                "wtm" => Expr::Test(Test::ToMove(Color::White)),
                "btm" => Expr::Test(Test::ToMove(Color::Black)),
                "attacks" => {
                    let [x, y] = self.arguments::<2>()?;
                    Expr::Attacks(x, y)
                }
                "pin" => {
                    let [x, y, z] = self.arguments::<3>()?;
                    Expr::Pin(x, y, z)
                }
                "count" => {
                    let [x] = self.arguments::<1>()?;
                    let cmp = self.comparison()?;
                    Expr::Count(x, cmp, self.number()?)
                }
                "passed" => Expr::Passed(self.arguments::<1>()?[0]),
                "isolated" => Expr::Isolated(self.arguments::<1>()?[0]),
                "doubled" => Expr::Doubled(self.arguments::<1>()?[0]),
                _ => {
                    return Err(PatternError {
                        column,
                        message: format!("expected a piece designator or a test, found the operator {keyword:?}"),
                    });
                }
            });
        }
        Ok(Expr::Piece(self.designator()?))
    }

    fn arguments<const N: usize>(&mut self) -> Result<[Designator; N], PatternError> {
        self.expect('(')?;
        let mut out = [Designator::PLACEHOLDER; N];
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 {
                self.expect(',')?;
            }
            *slot = self.designator()?;
        }
        if !self.eat(')') {
            return Err(self.expected(&format!("')' after {N} argument{}", if N == 1 { "" } else { "s" })));
        }
        Ok(out)
    }

    fn comparison(&mut self) -> Result<Cmp, PatternError> {
        self.skip_space();
        let two: String = self.chars[self.at..].iter().take(2).collect();
        let (cmp, len) = match two.as_str() {
            "!=" => (Cmp::Ne, 2),
            "<=" => (Cmp::Le, 2),
            ">=" => (Cmp::Ge, 2),
            "==" => (Cmp::Eq, 2),
            _ => match self.peek() {
                Some('=') => (Cmp::Eq, 1),
                Some('<') => (Cmp::Lt, 1),
                Some('>') => (Cmp::Gt, 1),
                _ => return Err(self.expected("a comparison (= != < <= > >=)")),
            },
        };
        self.at += len;
        Ok(cmp)
    }

    fn number(&mut self) -> Result<u8, PatternError> {
        self.skip_space();
        let digits: String = self.chars[self.at..].iter().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u8>() {
            Ok(n) if n <= 64 => {
                self.at += digits.len();
                Ok(n)
            }
            _ => Err(self.expected("a number from 0 to 64")),
        }
    }

    fn designator(&mut self) -> Result<Designator, PatternError> {
        self.skip_space();
        let pieces = if self.peek() == Some('[') {
            self.at += 1;
            let mut set = PieceSet::NONE;
            loop {
                match self.peek().and_then(piece_letter) {
                    Some(more) => {
                        set = set.union(more);
                        self.at += 1;
                    }
                    None if self.peek() == Some(']') && set != PieceSet::NONE => break,
                    None => return Err(self.expected("a piece letter (KQRBNP kqrbnp A a _) or ']'")),
                }
            }
            self.at += 1;
            set
        } else {
            let Some(set) = self.peek().and_then(piece_letter) else {
                return Err(self.expected("a piece designator (K Q R B N P, k q r b n p, A, a, _ or [..])"));
            };
            self.at += 1;
            set
        };
        let squares = match self.peek() {
            Some('[') => self.square_list()?,
            Some(c) if file_of(c).is_some() => self.square_range()?,
            _ => Bitboard::FULL,
        };
        if self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            return Err(self.expected("a square (e4), a range (a-h7, e1-8) or a list ([e4,d5])"));
        }
        Ok(Designator { pieces, squares })
    }

    fn square_list(&mut self) -> Result<Bitboard, PatternError> {
        self.at += 1; // '['
        let mut squares = Bitboard::EMPTY;
        loop {
            self.skip_space();
            squares |= self.square_range()?;
            if self.eat(']') {
                return Ok(squares);
            }
            if !self.eat(',') {
                return Err(self.expected("',' or ']'"));
            }
        }
    }

    /// `e4`, `a-h7`, `e1-8`, `a-d1-4`.
    fn square_range(&mut self) -> Result<Bitboard, PatternError> {
        let (first_file, last_file) = self.span(file_of, "a file letter a-h")?;
        let (first_rank, last_rank) = self.span(rank_of, "a rank digit 1-8")?;
        let mut squares = Bitboard::EMPTY;
        for file in first_file.min(last_file)..=first_file.max(last_file) {
            for rank in first_rank.min(last_rank)..=first_rank.max(last_rank) {
                squares.add(Square::from_coords(File::new(file), Rank::new(rank)));
            }
        }
        Ok(squares)
    }

    fn span(&mut self, read: fn(char) -> Option<u32>, what: &str) -> Result<(u32, u32), PatternError> {
        let Some(first) = self.peek().and_then(read) else { return Err(self.expected(what)) };
        self.at += 1;
        if self.peek() == Some('-') {
            self.at += 1;
            let Some(last) = self.peek().and_then(read) else { return Err(self.expected(what)) };
            self.at += 1;
            return Ok((first, last));
        }
        Ok((first, first))
    }
}

fn file_of(c: char) -> Option<u32> {
    ('a'..='h').contains(&c).then(|| c as u32 - 'a' as u32)
}

fn rank_of(c: char) -> Option<u32> {
    ('1'..='8').contains(&c).then(|| c as u32 - '1' as u32)
}

fn piece_letter(c: char) -> Option<PieceSet> {
    Some(match c {
        'A' => PieceSet::side(Color::White),
        'a' => PieceSet::side(Color::Black),
        '_' => PieceSet::EMPTY_SQUARE,
        _ => {
            let role = Role::from_char(c.to_ascii_lowercase())?;
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            PieceSet::piece(color, role)
        }
    })
}
