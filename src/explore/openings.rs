//! Opening names: the lichess chess-openings TSV format (`eco<TAB>name<TAB>pgn`, a header
//! line, one opening per line), keyed by the position the moves reach.

use std::io::BufRead;

use super::Target;
use crate::Key;

/// One opening of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningLine {
    /// The position the moves reach.
    pub key: Key,
    /// ECO code.
    pub eco: String,
    /// Name.
    pub name: String,
}

/// Reads a table; lines that cannot be used are returned as `line N: reason` messages, the rest
/// is kept. When two lines reach the same position the first is kept.
///
/// ```
/// use tabiya::explore::parse_openings;
///
/// let tsv = "eco\tname\tpgn\nC50\tItalian Game\t1. e4 e5 2. Nf3 Nc6 3. Bc4\nX\tbroken\t1. e5\n";
/// let (openings, errors) = parse_openings(tsv.as_bytes())?;
/// assert_eq!(openings.len(), 1);
/// assert!(errors[0].starts_with("line 3"));
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn parse_openings(reader: impl BufRead) -> std::io::Result<(Vec<OpeningLine>, Vec<String>)> {
    let mut openings: Vec<OpeningLine> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut errors = Vec::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line?;
        let number = index + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || (number == 1 && line.starts_with("eco\t")) {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [eco, name, pgn, ..] = fields.as_slice() else {
            errors.push(format!("line {number}: expected eco<TAB>name<TAB>pgn"));
            continue;
        };
        match Target::san(*pgn).resolve() {
            Ok(target) => {
                if seen.insert(target.key) {
                    openings.push(OpeningLine {
                        key: target.key,
                        eco: eco.trim().to_owned(),
                        name: name.trim().to_owned(),
                    });
                }
            }
            Err(err) => errors.push(format!("line {number}: {err}")),
        }
    }
    Ok((openings, errors))
}
