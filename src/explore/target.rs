//! The position a query asks about ([`Target`]): a FEN, or moves from a FEN (the initial
//! position by default) given as SAN movetext (`1. e4 e5 2. Nf3`) or UCI (`e2e4,e7e5`); and
//! that position found, with the line leading to it ([`ResolvedTarget`]).

use shakmaty::{san::San, uci::UciMove};

use super::QueryError;
use crate::{Key, Position, position::Variant};

/// The position a query asks about, as the user gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A FEN or EPD; empty for the initial position.
    Fen(String),
    /// SAN movetext played from `from` (the initial position when `None`).
    San {
        /// The start, as FEN or EPD.
        from: Option<String>,
        /// The moves: `1. e4 e5 2. Nf3` (numbers, results and annotation marks are skipped).
        moves: String,
    },
    /// UCI moves, comma- or space-separated, played from `from` (the initial position when
    /// `None`).
    Uci {
        /// The start, as FEN or EPD.
        from: Option<String>,
        /// The moves: `e2e4,e7e5`.
        moves: String,
    },
}

/// A query position found: the position, its key and the line that led to it.
#[derive(Clone, Debug)]
pub struct ResolvedTarget {
    /// The position.
    pub position: Position,
    /// Its key.
    pub key: Key,
    /// Keys of the positions before it along the given moves, latest first (for the opening
    /// name, which is the deepest named position of the line).
    pub line: Vec<Key>,
}

/// Longest move list accepted (bounded work per request).
pub(super) const MAX_MOVES: usize = 600;

impl Target {
    /// The initial position.
    pub fn initial() -> Target {
        Target::Fen(String::new())
    }

    /// A FEN or EPD.
    pub fn fen(fen: impl Into<String>) -> Target {
        Target::Fen(fen.into())
    }

    /// SAN movetext from the initial position.
    pub fn san(moves: impl Into<String>) -> Target {
        Target::San { from: None, moves: moves.into() }
    }

    /// UCI moves from the initial position.
    pub fn uci(moves: impl Into<String>) -> Target {
        Target::Uci { from: None, moves: moves.into() }
    }

    /// The position named by a FEN (the initial position when absent or empty), then SAN
    /// `moves` or `uci` moves played from it, as the command line's `--fen`, `--moves` and
    /// `--uci` name it; both kinds of moves at once are refused.
    pub fn of(fen: Option<String>, moves: Option<String>, uci: Option<String>) -> Result<Target, QueryError> {
        Ok(match (moves, uci) {
            (Some(_), Some(_)) => return Err(QueryError::input("give moves (SAN) or uci, not both")),
            (Some(moves), None) => Target::San { from: fen, moves },
            (None, Some(moves)) => Target::Uci { from: fen, moves },
            (None, None) => Target::Fen(fen.unwrap_or_default()),
        })
    }

    /// Finds the position: parses the FEN, plays the moves.
    ///
    /// ```
    /// use tabiya::explore::Target;
    ///
    /// let a = Target::san("1. e4 e5 2. Nf3 Nc6").resolve()?;
    /// let b = Target::uci("g1f3,b8c6,e2e4,e7e5").resolve()?;
    /// assert_eq!(a.key, b.key);
    /// assert!(Target::san("1. e5").resolve().is_err());
    /// # Ok::<_, tabiya::explore::QueryError>(())
    /// ```
    pub fn resolve(&self) -> Result<ResolvedTarget, QueryError> {
        self.resolve_in(Variant::Standard)
    }

    /// Finds the position in `variant`'s rules and key space: the FEN read as that variant
    /// reads it (Chess960: X-FEN or Shredder-FEN; the standard setup without one), castling
    /// in UCI as the king's two-square step or the king taking its rook (Chess960's only way).
    ///
    /// ```
    /// use tabiya::{explore::Target, position::Variant};
    ///
    /// let fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1";
    /// let castled = Target::Uci { from: Some(fen.into()), moves: "b1a1".into() }.resolve_in(Variant::Chess960)?;
    /// assert_eq!(castled.position.to_string(), "rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq -");
    /// assert!(Target::san("1. e4").resolve_in(Variant::Chess960)?.position.is_chess960());
    /// # Ok::<_, tabiya::explore::QueryError>(())
    /// ```
    pub fn resolve_in(&self, variant: Variant) -> Result<ResolvedTarget, QueryError> {
        let (fen, tokens, san) = match self {
            Target::Fen(fen) => (Some(fen.as_str()), Vec::new(), false),
            Target::San { from, moves } => (from.as_deref(), san_tokens(moves), true),
            Target::Uci { from, moves } => (from.as_deref(), uci_tokens(moves)?, false),
        };
        let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(fen) => variant.parse_fen(fen).map_err(|err| QueryError::input(format!("bad FEN: {err}")))?,
            None => variant.initial(),
        };
        let mut position = start;
        let mut line = Vec::new();
        if tokens.len() > MAX_MOVES {
            return Err(QueryError::input(format!("too many moves ({}, at most {MAX_MOVES})", tokens.len())));
        }
        let has_no_key = |err| QueryError::input(format!("position has no key: {err}"));
        for (index, token) in tokens.iter().enumerate() {
            let played = if san { san_move(&position, token) } else { uci_move(&position, token) };
            let m = played
                .map_err(|why| QueryError::input(format!("move {} ({token}): {why} in {position}", index + 1)))?;
            line.push(Key::encode(&position).map_err(has_no_key)?);
            position.play_legal(m);
        }
        line.reverse();
        let key = Key::encode(&position).map_err(has_no_key)?;
        Ok(ResolvedTarget { position, key, line })
    }
}

/// The key of a position (a bad-input error when it has none).
pub fn key_of(position: &Position) -> Result<Key, QueryError> {
    Key::encode(position).map_err(|err| QueryError::input(format!("position has no key: {err}")))
}

/// The moves of a UCI line, comma-separated as lichess's `play=` (or space-separated): an
/// empty move between two commas is refused rather than passed over.
fn uci_tokens(text: &str) -> Result<Vec<&str>, QueryError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut tokens = Vec::new();
    for part in text.split(',') {
        let before = tokens.len();
        tokens.extend(part.split_whitespace());
        if tokens.len() == before {
            let after = tokens.last().map_or(String::new(), |last| format!(" after {last}"));
            return Err(QueryError::input(format!("an empty move{after} (two commas in a row, or one at an end)")));
        }
    }
    Ok(tokens)
}

/// The moves of SAN movetext: move numbers, results and annotation marks dropped.
fn san_tokens(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|token| token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|token| {
            !token.is_empty() && !matches!(*token, "1-0" | "0-1" | "1/2-1/2" | "*" | "-0" | "-1" | "/2-1/2")
        })
        .collect()
}

fn san_move(position: &Position, token: &str) -> Result<shakmaty::Move, String> {
    let clean = token.trim_end_matches(['!', '?', '+', '#']);
    let san: San = clean.parse().map_err(|_| "not a SAN move".to_owned())?;
    position.san_move(&san).map_err(|err| err.to_string())
}

/// A UCI move of `position`, by its rules: a lichess variant may forbid a move standard chess
/// allows (a check in Racing Kings, any move once a king stands on the hill), which is told
/// apart from a move no rules allow.
fn uci_move(position: &Position, token: &str) -> Result<shakmaty::Move, String> {
    let uci: UciMove = token.parse().map_err(|_| "not a UCI move".to_owned())?;
    uci.to_move(position.shakmaty()).map_err(|_| {
        let standard = position.standard_chess();
        match position.variant().lichess_rules() && standard.is_some_and(|chess| uci.to_move(&chess).is_ok()) {
            true => format!("not allowed by the rules of {}", position.variant().pgn_name()),
            false => "illegal move".to_owned(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_move() {
        let err = Target::san("1. e4 e5 2. Ke3").resolve().expect_err("illegal");
        assert!(err.to_string().starts_with("move 3 (Ke3)"), "{err}");
        let err = Target::uci("e2e4,zz").resolve().expect_err("bad uci");
        assert!(err.to_string().contains("not a UCI move"), "{err}");
        assert!(Target::fen("not a fen").resolve().is_err());
        assert!(Target::san("1. zz9").resolve().is_err());
        let ok = Target::san("1.e4 e5 2.Nf3!? Nc6 *").resolve().expect("legal line");
        assert_eq!(ok.line.len(), 4);
        // Castling in UCI both ways.
        let fen = Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".to_owned());
        let a = Target::Uci { from: fen.clone(), moves: "e1g1".to_owned() }.resolve().expect("castles");
        let b = Target::Uci { from: fen, moves: "e1h1".to_owned() }.resolve().expect("castles");
        assert_eq!(a.key, b.key);
    }
}
