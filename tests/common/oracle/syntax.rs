//! The syntax pass the indexer ran over one game's text before pgn-reader read it, until the
//! one-pass reader replaced both: kept as it was, for the oracle (`pgn.rs`).
//!
//! pgn-reader is lenient: it skips tokens it cannot read. An indexer must not quietly drop part
//! of a game, so every tag pair must be `[Name "value"]` on one line and every movetext token
//! must be a move number, a SAN move (with `!`/`?` annotations), a NAG, a comment, a variation
//! bracket or a termination marker. The same tokenizer finds the line of the n-th mainline move,
//! for error reports.

use pgn_reader::SanPlus;

/// Spaces, line ends and other control bytes.
const fn is_blank(b: u8) -> bool {
    b <= b' '
}

/// A syntax error, with the 0-based line offset from the start of the game's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u64,
    pub message: String,
    /// Text too long to be read rather than malformed (a tag line beyond [`MAX_TAG_LINE`]).
    pub too_long: bool,
}

/// The longest tag line read: pgn-reader reads a tag pair into a buffer of 16 KiB (names,
/// events and dates take a few dozen bytes).
pub const MAX_TAG_LINE: usize = 16_000;

/// What [`scan`] calls back for each mainline or variation move: its line offset and depth
/// (0 for the mainline).
type OnMove<'a> = &'a mut dyn FnMut(u64, u32) -> bool;

/// Checks `text`; `on_move` may stop the scan early by returning `false`.
pub fn scan(text: &[u8], on_move: OnMove<'_>) -> Result<(), SyntaxError> {
    let mut line = 0u64;
    let mut depth = 0u32;
    let mut in_movetext = false;
    let mut i = 0;
    let error = |line, message: String| Err(SyntaxError { line, message, too_long: false });
    while i < text.len() {
        let b = text[i];
        match b {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'\r' => {
                line += u64::from(text.get(i + 1) != Some(&b'\n'));
                i += 1;
            }
            _ if is_blank(b) => i += 1,
            b'[' if !in_movetext => {
                let end = memchr::memchr2(b'\n', b'\r', &text[i..]).map_or(text.len(), |n| i + n);
                if end - i > MAX_TAG_LINE {
                    let message = format!("a tag line of {} bytes, more than the {MAX_TAG_LINE} read", end - i);
                    return Err(SyntaxError { line, message, too_long: true });
                }
                match check_tags(&text[i..end]) {
                    Ok(length) => i += length,
                    Err(message) => return error(line, message),
                }
            }
            b'%' if i == 0 || matches!(text[i - 1], b'\n' | b'\r') => {
                i = text[i..].iter().position(|&c| c == b'\n' || c == b'\r').map_or(text.len(), |n| i + n);
            }
            b';' => {
                i = text[i..].iter().position(|&c| c == b'\n' || c == b'\r').map_or(text.len(), |n| i + n);
            }
            b'{' => {
                let start_line = line;
                let Some(n) = text[i..].iter().position(|&c| c == b'}') else {
                    return error(start_line, "comment not closed".to_owned());
                };
                line += count_lines(&text[i..i + n]);
                i += n + 1;
            }
            b'}' => return error(line, "'}' outside a comment".to_owned()),
            b'(' => {
                in_movetext = true;
                depth += 1;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    return error(line, "')' without '('".to_owned());
                }
                depth -= 1;
                i += 1;
            }
            _ => {
                in_movetext = true;
                let end = text[i..]
                    .iter()
                    .position(|&c| is_blank(c) || matches!(c, b'{' | b'}' | b'(' | b')' | b';'))
                    .map_or(text.len(), |n| i + n);
                match token(&text[i..end]) {
                    Token::Move => {
                        if !on_move(line, depth) {
                            return Ok(());
                        }
                    }
                    Token::Other => {}
                    Token::Unknown => {
                        let shown = String::from_utf8_lossy(&text[i..end.min(i + 40)]).into_owned();
                        return error(line, format!("unrecognised token {shown:?}"));
                    }
                }
                i = end;
            }
        }
    }
    if depth > 0 {
        return error(line, "variation not closed".to_owned());
    }
    Ok(())
}

/// The line offset of the `ply`-th (0-based) mainline move, if the text has one.
pub fn mainline_move_line(text: &[u8], ply: usize) -> Option<u64> {
    let mut seen = 0;
    let mut found = None;
    let _ = scan(text, &mut |line, depth| {
        if depth == 0 {
            if seen == ply {
                found = Some(line);
                return false;
            }
            seen += 1;
        }
        true
    });
    found
}

fn count_lines(text: &[u8]) -> u64 {
    let mut lines = 0;
    for (i, &b) in text.iter().enumerate() {
        lines += u64::from(b == b'\n' || (b == b'\r' && text.get(i + 1) != Some(&b'\n')));
    }
    lines
}

/// Evaluation and annotation symbols some programs write as text rather than as NAGs
/// ("+-", "=", "N" for a novelty, "RR" for an editorial comment, "∞").
const GLYPHS: [&str; 24] = [
    "+-", "-+", "+/-", "-/+", "+/=", "=/+", "+=", "=+", "=", "+--", "--+", "inf", "=/inf", "N", "TN", "RR", "D", "~",
    "=/~", "±", "∓", "⩲", "⩱", "∞",
];

/// Whether `token` is one of [`GLYPHS`].
fn is_glyph(token: &[u8]) -> bool {
    // Most tokens are moves and move numbers: their first byte rules them out.
    if !matches!(token.first(), Some(b'+' | b'-' | b'=' | b'i' | b'N' | b'T' | b'R' | b'D' | b'~' | 0xC2 | 0xE2)) {
        return false;
    }
    GLYPHS.iter().any(|glyph| glyph.as_bytes() == token)
}

enum Token {
    Move,
    Other,
    Unknown,
}

/// Classifies one movetext token.
fn token(token: &[u8]) -> Token {
    if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*" | b"e.p." | b"ep") || is_glyph(token) {
        return Token::Other;
    }
    // A termination marker glued to the last move ("h6*").
    let token = match token.strip_suffix(b"*") {
        Some(rest) if !rest.is_empty() => rest,
        _ => token,
    };
    if let Some(nag) = token.strip_prefix(b"$") {
        return if !nag.is_empty() && nag.iter().all(u8::is_ascii_digit) { Token::Other } else { Token::Unknown };
    }
    // A move number, alone ("12.", "12...") or glued to its move ("12.e4").
    let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
    let dots = token[digits..].iter().take_while(|&&c| c == b'.').count();
    let rest = if digits > 0 && (dots > 0 || digits == token.len()) && !token.starts_with(b"0-0") {
        &token[digits + dots..]
    } else {
        token
    };
    // Annotation glyphs, alone or after the move ("!?", "e4!", "Nf3?!"), and a glued NAG.
    let rest = match rest.iter().position(|&c| c == b'$') {
        Some(at) if rest[at + 1..].iter().all(u8::is_ascii_digit) && at + 1 < rest.len() => &rest[..at],
        _ => rest,
    };
    let annotation = rest.iter().rev().take_while(|&&c| c == b'!' || c == b'?').count();
    let rest = &rest[..rest.len() - annotation];
    if rest.is_empty() {
        return Token::Other;
    }
    // Castling may be written with zeros ("0-0-0"), as pgn-reader accepts.
    let mut castling = [0u8; 8];
    let rest = if rest.starts_with(b"0-0") && rest.len() <= castling.len() {
        for (to, &from) in castling.iter_mut().zip(rest) {
            *to = if from == b'0' { b'O' } else { from };
        }
        &castling[..rest.len()]
    } else {
        rest
    };
    match SanPlus::from_ascii(rest) {
        Ok(_) => Token::Move,
        Err(_) => Token::Unknown,
    }
}

/// Checks the tag pairs at the start of `line` (`[Name "value"]`, several may share a line);
/// returns the length they take (movetext may follow on the same line).
fn check_tags(line: &[u8]) -> Result<usize, String> {
    let mut rest = line;
    while let Some(pair) = rest.strip_prefix(b"[") {
        let pair = trim_start(pair);
        let name_len = pair.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        let name = || String::from_utf8_lossy(&pair[..name_len]).into_owned();
        if name_len == 0 {
            return Err("tag without a name".to_owned());
        }
        let after_name = trim_start(&pair[name_len..]);
        let Some(value) = after_name.strip_prefix(b"\"") else {
            return Err(format!("tag {} without a quoted value", name()));
        };
        let mut end = None;
        let mut escaped = false;
        for (i, &c) in value.iter().enumerate() {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return Err(format!("tag {} value not closed on its line", name()));
        };
        let Some(after) = trim_start(&value[end + 1..]).strip_prefix(b"]") else {
            return Err(format!("tag {} not closed by ']'", name()));
        };
        rest = trim_start(after);
    }
    Ok(line.len() - rest.len())
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().take_while(|&&c| is_blank(c)).count()..]
}
