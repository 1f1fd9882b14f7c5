//! CSV files as RFC 4180 writes them: a header row, CRLF line ends, and fields quoted when
//! they hold a comma, a quote or a line break (quotes doubled).

use std::borrow::Cow;

/// A CSV file being written.
#[derive(Debug)]
pub struct Csv {
    text: String,
}

impl Csv {
    /// A file with this header row.
    pub fn new(header: &[&str]) -> Csv {
        let mut csv = Csv { text: String::new() };
        csv.row(header.iter().map(|h| h.to_string()));
        csv
    }

    /// Appends a row.
    pub fn row(&mut self, cells: impl IntoIterator<Item = String>) {
        for (i, cell) in cells.into_iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            self.text.push_str(&field(&cell));
        }
        self.text.push_str("\r\n");
    }

    /// The file's text.
    pub fn finish(self) -> String {
        self.text
    }
}

/// One field, quoted when it must be. Text a spreadsheet would take as a formula (it begins
/// with `=`, `+`, `-`, `@`, a tab or a carriage return and is not a number or a lone sign: a tag of a PGN
/// file, say) is defused with a leading `'`, as OWASP's guidance on CSV injection says.
pub fn field(text: &str) -> Cow<'_, str> {
    // A lone "-" (PGN's "unknown") is no formula.
    let formula = text.len() > 1 && text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err();
    let text: Cow<'_, str> = if formula { Cow::Owned(format!("'{text}")) } else { Cow::Borrowed(text) };
    if text.contains([',', '"', '\n', '\r']) { Cow::Owned(format!("\"{}\"", text.replace('"', "\"\""))) } else { text }
}

/// The columns of [`game_fields`].
pub const GAME_COLUMNS: [&str; 10] =
    ["id", "white", "whiteElo", "black", "blackElo", "result", "date", "event", "site", "round"];

/// A listed game's headers as fields, in the order of [`GAME_COLUMNS`].
pub fn game_fields(game: &crate::explore::GameSummary) -> Vec<String> {
    vec![
        game.id.clone(),
        game.white.name.clone(),
        opt(game.white.rating),
        game.black.name.clone(),
        opt(game.black.rating),
        game.result.clone(),
        game.date.clone(),
        game.event.clone(),
        game.site.clone(),
        game.round.clone(),
    ]
}

/// An optional value as a field: empty when absent.
pub fn opt<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_defused_and_numbers_kept() {
        for (cell, written) in [
            ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""),
            ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tTab", "'\tTab"),
            ("\r=1", "\"'\r=1\""),
            ("-0.25", "-0.25"),
            ("+3", "+3"),
            ("Carlsen, Magnus", "\"Carlsen, Magnus\""),
            ("1/2-1/2", "1/2-1/2"),
            ("-", "-"),
        ] {
            assert_eq!(field(cell), written, "{cell:?}");
        }
    }

    #[test]
    fn quoting_follows_rfc_4180() {
        let mut csv = Csv::new(&["name", "games"]);
        csv.row(["Carlsen, Magnus".to_owned(), "3".to_owned()]);
        csv.row(["say \"hi\"".to_owned(), "line\nbreak".to_owned()]);
        assert_eq!(csv.finish(), "name,games\r\n\"Carlsen, Magnus\",3\r\n\"say \"\"hi\"\"\",\"line\nbreak\"\r\n");
    }
}
