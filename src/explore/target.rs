//! The position a query asks about: a FEN (the initial position by default) followed by moves,
//! given as SAN movetext (`1. e4 e5 2. Nf3`) or UCI (`e2e4,e7e5`).

use shakmaty::{Chess, Position as _, san::San, uci::UciMove};

use super::QueryError;
use crate::{Key, Position};

/// A resolved query position and the line that led to it.
#[derive(Clone, Debug)]
pub struct Target {
    pub position: Position,
    pub key: Key,
    /// Keys of the positions before it along the given moves, latest first (for the opening
    /// name, which is the deepest named position of the line).
    pub line: Vec<Key>,
}

/// Longest move list accepted (bounded work per request).
const MAX_MOVES: usize = 600;

impl Target {
    /// Resolves `fen` (initial position when `None`) then `san` movetext or `uci` moves.
    ///
    /// ```
    /// use tabiya::explore::Target;
    ///
    /// let a = Target::resolve(None, Some("1. e4 e5 2. Nf3 Nc6"), None)?;
    /// let b = Target::resolve(None, None, Some("g1f3,b8c6,e2e4,e7e5"))?;
    /// assert_eq!(a.key, b.key);
    /// assert!(Target::resolve(None, Some("1. e5"), None).is_err());
    /// # Ok::<_, tabiya::explore::QueryError>(())
    /// ```
    pub fn resolve(fen: Option<&str>, san: Option<&str>, uci: Option<&str>) -> Result<Target, QueryError> {
        let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(fen) => fen.parse::<Position>().map_err(|err| QueryError::input(format!("bad FEN: {err}")))?,
            None => Position::initial(),
        };
        let mut chess = start.into_chess();
        let mut line = Vec::new();
        let tokens: Vec<&str> = match (san, uci) {
            (Some(_), Some(_)) => return Err(QueryError::input("give moves as SAN or as UCI, not both")),
            (Some(text), None) => san_tokens(text),
            (None, Some(text)) => text.split([',', ' ']).filter(|t| !t.is_empty()).collect(),
            (None, None) => Vec::new(),
        };
        if tokens.len() > MAX_MOVES {
            return Err(QueryError::input(format!("too many moves ({}, at most {MAX_MOVES})", tokens.len())));
        }
        for (index, token) in tokens.iter().enumerate() {
            let played = if san.is_some() { san_move(&chess, token) } else { uci_move(&chess, token) };
            let m = played.map_err(|why| {
                let fen = shakmaty::fen::Epd::from_position(&chess, shakmaty::EnPassantMode::Legal);
                QueryError::input(format!("move {} ({token}): {why} in {fen}", index + 1))
            })?;
            line.push(key_of(&chess)?);
            chess.play_unchecked(m);
        }
        line.reverse();
        let position = Position::from_chess(chess).map_err(|err| QueryError::input(err.to_string()))?;
        let key = Key::encode(&position).map_err(|err| QueryError::input(format!("position has no key: {err}")))?;
        Ok(Target { position, key, line })
    }
}

fn key_of(chess: &Chess) -> Result<Key, QueryError> {
    let position = Position::from_chess(chess.clone()).map_err(|err| QueryError::input(err.to_string()))?;
    Key::encode(&position).map_err(|err| QueryError::input(format!("position has no key: {err}")))
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

fn san_move(chess: &Chess, token: &str) -> Result<shakmaty::Move, String> {
    let clean = token.trim_end_matches(['!', '?', '+', '#']);
    let san: San = clean.parse().map_err(|_| "not a SAN move".to_owned())?;
    san.to_move(chess).map_err(|err| err.to_string())
}

fn uci_move(chess: &Chess, token: &str) -> Result<shakmaty::Move, String> {
    let uci: UciMove = token.parse().map_err(|_| "not a UCI move".to_owned())?;
    uci.to_move(chess).map_err(|_| "illegal move".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_move() {
        let err = Target::resolve(None, Some("1. e4 e5 2. Ke3"), None).expect_err("illegal");
        assert!(err.to_string().starts_with("move 3 (Ke3)"), "{err}");
        let err = Target::resolve(None, None, Some("e2e4,zz")).expect_err("bad uci");
        assert!(err.to_string().contains("not a UCI move"), "{err}");
        assert!(Target::resolve(Some("not a fen"), None, None).is_err());
        assert!(Target::resolve(None, Some("e4"), Some("e2e4")).is_err());
        let ok = Target::resolve(None, Some("1.e4 e5 2.Nf3!? Nc6 *"), None).expect("legal line");
        assert_eq!(ok.line.len(), 4);
        // Castling in UCI both ways.
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let a = Target::resolve(Some(fen), None, Some("e1g1")).expect("castles");
        let b = Target::resolve(Some(fen), None, Some("e1h1")).expect("castles");
        assert_eq!(a.key, b.key);
    }
}
