//! Position lists: one position per line, in the formats test suites use.
//!
//! A line holds a position when its first field looks like a board (it contains `/`); an
//! `epd`/`fen` prefix (perft files) and CSV columns after the first are ignored, as are blank
//! lines, `#` comments and lines of other records (`perft 1 20`, `id …`).

use std::io::{BufRead, BufReader, Read};

use crate::position::{Position, PositionError};

/// A position read from a line.
#[derive(Debug)]
pub struct PositionLine {
    /// 1-based line number.
    pub line: usize,
    /// The position.
    pub position: Position,
}

/// A line that looks like a position but is not one.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {error}")]
pub struct LineError {
    /// The file, as named.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// Why the text is not a position.
    pub error: PositionError,
}

/// Reads every position line of `reader`; `file` names it in errors.
///
/// ```
/// use tabiya::input::read_position_lines;
///
/// let text = "# comment\nepd 4k3/8/8/8/8/8/8/4K3 w - -\nperft 1 5\n8/8/8/8/8/8/8/8 w - -\n";
/// let mut good = 0;
/// let mut bad = Vec::new();
/// read_position_lines(text.as_bytes(), "suite.perft", |item| match item {
///     Ok(_) => good += 1,
///     Err(e) => bad.push(e.to_string()),
/// })?;
/// assert_eq!(good, 1);
/// assert!(bad[0].starts_with("suite.perft:4: illegal position"));
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn read_position_lines(
    reader: impl Read,
    file: &str,
    mut each: impl FnMut(Result<PositionLine, LineError>),
) -> std::io::Result<()> {
    let mut reader = BufReader::new(reader);
    let mut raw = Vec::new();
    let mut line = 0;
    loop {
        raw.clear();
        if reader.read_until(b'\n', &mut raw)? == 0 {
            return Ok(());
        }
        line += 1;
        // Position lists are ASCII; anything else on a line makes it "not a position".
        let text = String::from_utf8_lossy(&raw);
        let Some(candidate) = position_text(&text) else {
            continue;
        };
        each(
            Position::from_epd_line(candidate)
                .map(|position| PositionLine { line, position })
                .map_err(|error| LineError { file: file.to_owned(), line, error }),
        );
    }
}

fn position_text(line: &str) -> Option<&str> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.starts_with('#') {
        return None;
    }
    let line = line.strip_prefix("epd ").or_else(|| line.strip_prefix("fen ")).unwrap_or(line);
    let line = line.split(',').next().unwrap_or(line).trim();
    let board = line.split_ascii_whitespace().next()?;
    board.contains('/').then_some(line)
}
