//! Positional themes an opening report looks for after its position: pattern expressions with
//! names, or sequences of them (`seq(A, B, N)`: a theme reached when its first step is). The
//! defaults follow Scid's opening report.

use serde::Serialize;

use crate::pattern::GamePattern;

/// The default themes: (name, pattern). Castled kings are kings on their wing's back-rank
/// squares (g/h or a–c); an isolated queen's pawn is an isolated pawn on the d-file.
pub const DEFAULT_THEMES: [(&str, &str); 10] = [
    ("Castling on the same side", "(Kg-h1 and kg-h8) or (Ka-c1 and ka-c8)"),
    ("Castling on opposite sides", "(Kg-h1 and ka-c8) or (Ka-c1 and kg-h8)"),
    ("Queens exchanged", "count([Qq]) = 0"),
    ("White isolated queen's pawn", "isolated(Pd2-7)"),
    ("Black isolated queen's pawn", "isolated(pd2-7)"),
    ("White pawn on the 5th-7th rank", "Pa-h5-7"),
    ("Black pawn on the 2nd-4th rank", "pa-h2-4"),
    ("Open c-, d- or e-file", "count([Pp]c1-8) = 0 or count([Pp]d1-8) = 0 or count([Pp]e1-8) = 0"),
    ("Only one side has two bishops", "(count(B) >= 2 and count(b) < 2) or (count(b) >= 2 and count(B) < 2)"),
    ("A passed pawn", "passed(P) or passed(p)"),
];

/// A named pattern.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Theme {
    /// What it is called in the report.
    pub name: String,
    /// The pattern expression.
    pub expression: String,
    /// The parsed pattern or sequence.
    #[serde(skip)]
    pub pattern: GamePattern,
}

impl Theme {
    /// A theme named by its own expression; the error names the column at fault.
    pub fn parse(name: &str, expression: &str) -> Result<Theme, crate::pattern::PatternError> {
        Ok(Theme { name: name.to_owned(), expression: expression.to_owned(), pattern: expression.parse()? })
    }

    /// The default themes.
    pub fn defaults() -> Vec<Theme> {
        DEFAULT_THEMES
            .iter()
            .map(|(name, expression)| Theme::parse(name, expression).expect("the default themes parse"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_defaults_parse() {
        assert_eq!(super::Theme::defaults().len(), super::DEFAULT_THEMES.len());
    }
}
