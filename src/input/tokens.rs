//! One pass over one game's text: its tag pairs, then its movetext's tokens, each checked
//! strictly and handed to a [`Visit`] as it is read. Nothing reads the bytes again: the game is
//! replayed and keyed from what this pass hands on.
//!
//! Strict: an indexer must not quietly drop part of a game, so every tag pair must be
//! `[Name "value"]` on one line, and every movetext token a move number, a SAN move (with `!`/`?`
//! annotations), a NAG or an annotation glyph, a comment, a variation bracket or a termination
//! marker; anything else rejects the game with its line. Comments are passed over with `memchr`
//! (and handed to [`Visit::comment`] as they are, for the annotations they may carry);
//! variations are checked, not played.
//!
//! The reading is the one the indexer has always given such text (pgn-reader's, with this
//! module's checks before it; tests compare the two on real collections and on random text):
//! the tag section ends at the first thing that is not a tag pair; a movetext line starting
//! with `[` ends the game; blank lines inside the movetext do not.

use shakmaty::san::SanPlus;

use crate::model::GameResult;

use super::split::is_blank;

/// A syntax error, with the 0-based line offset from the start of the game's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u64,
    pub message: String,
    /// Text too long to be read rather than malformed (a tag line beyond [`MAX_TAG_LINE`]).
    pub too_long: bool,
}

/// The longest tag line read (names, events and dates take a few dozen bytes).
pub const MAX_TAG_LINE: usize = 16_000;

/// What one pass over a game's text hands on, in the order of the text.
pub trait Visit {
    /// A tag pair of the tag section: its name as written (one space before the value left
    /// out), its value with `\"` and `\\` undone.
    fn tag(&mut self, name: &[u8], value: &[u8]);
    /// A move of the mainline, on the 0-based line `line` of the text.
    fn san(&mut self, san: SanPlus, line: u64);
    /// A termination marker of the mainline.
    fn outcome(&mut self, result: GameResult);
    /// A comment's text (between its braces, or after `;`), of the mainline (`depth` 0) or of a
    /// variation.
    fn comment(&mut self, _text: &[u8], _depth: u32) {}
}

/// Where the reading stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first thing that is not a tag pair: tag pairs are the game's.
    Tags,
    /// In the movetext: moves and markers are the game's.
    Movetext,
    /// After a movetext line that starts with `[`: the game ended there; the rest is checked
    /// and not read.
    Ended,
}

/// Reads `text`, one game's, handing what it holds to `visit`; whether it held anything but
/// blanks, line ends and escape lines (`false`: no game at all, not even an empty one).
pub fn read(text: &[u8], visit: &mut impl Visit) -> Result<bool, SyntaxError> {
    let mut line = 0u64;
    let mut depth = 0u32;
    // The strict check's view: a movetext token or a variation was seen (a comment is neither).
    let mut in_movetext = false;
    let mut phase = Phase::Tags;
    // Whether a line has begun with something other than a tag pair: from then on, an empty
    // line does not end the movetext (before it, moves written on a tag line end at one).
    let mut movetext_lines = false;
    // Whether the current line has shown anything but blanks yet.
    let mut line_content = false;
    let mut held_anything = false;
    let mut i = 0;
    let error = |line, message: String| Err(SyntaxError { line, message, too_long: false });
    while i < text.len() {
        let b = text[i];
        // Right after a line end (a CRLF counts as one, at its LF; a lone CR as one).
        let line_start = i == 0 || matches!(text[i - 1], b'\n' | b'\r');
        if !is_blank(b) && !std::mem::replace(&mut line_content, true) && b != b'[' {
            movetext_lines = true;
        }
        held_anything = held_anything || !(is_blank(b) || b == b'%' && line_start);
        match b {
            b'\n' | b'\r' => {
                let lone_cr = b == b'\r' && text.get(i + 1) != Some(&b'\n');
                if b == b'\n' || lone_cr {
                    line += 1;
                    line_content = false;
                    if phase == Phase::Movetext && !movetext_lines && matches!(text.get(i + 1), Some(b'\n' | b'\r')) {
                        phase = Phase::Ended;
                    }
                }
                i += 1;
            }
            _ if is_blank(b) => i += 1,
            b'[' if !in_movetext => {
                let end = line_end(text, i);
                if end - i > MAX_TAG_LINE {
                    let message = format!("a tag line of {} bytes, more than the {MAX_TAG_LINE} read", end - i);
                    return Err(SyntaxError { line, message, too_long: true });
                }
                let tags = match phase {
                    Phase::Tags => Some(&mut *visit),
                    // A tag line after the movetext began (after a comment) ends the game.
                    Phase::Movetext if line_start => {
                        phase = Phase::Ended;
                        None
                    }
                    _ => None,
                };
                match tag_pairs(&text[i..end], tags) {
                    Ok(length) => i += length,
                    Err(message) => return error(line, message),
                }
            }
            b'%' if line_start => i = line_end(text, i),
            b';' => {
                let end = line_end(text, i);
                if phase == Phase::Movetext || phase == Phase::Tags {
                    phase = Phase::Movetext;
                    visit.comment(&text[i + 1..end], depth);
                }
                i = end;
            }
            b'{' => {
                let start_line = line;
                let Some(n) = memchr::memchr(b'}', &text[i..]) else {
                    return error(start_line, "comment not closed".to_owned());
                };
                let body = &text[i + 1..i + n];
                let lines = count_lines(body);
                if lines > 0 {
                    line += lines;
                    // The comment's closing brace is on the current line, at the least.
                    line_content = true;
                    movetext_lines = movetext_lines || begins_a_line_with_movetext(&text[i + 1..=i + n]);
                }
                if phase != Phase::Ended {
                    phase = Phase::Movetext;
                    visit.comment(body, depth);
                }
                i += n + 1;
            }
            b'}' => return error(line, "'}' outside a comment".to_owned()),
            b'(' => {
                in_movetext = true;
                phase = phase.max_movetext();
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
                phase = phase.max_movetext();
                let end = text[i..]
                    .iter()
                    .position(|&c| is_blank(c) || matches!(c, b'{' | b'}' | b'(' | b')' | b';'))
                    .map_or(text.len(), |n| i + n);
                let Some(token) = token(&text[i..end]) else {
                    let shown = String::from_utf8_lossy(&text[i..end.min(i + 40)]).into_owned();
                    return error(line, format!("unrecognised token {shown:?}"));
                };
                if depth == 0 && phase == Phase::Movetext {
                    if let Some(san) = token.san {
                        visit.san(san, line);
                    }
                    if let Some(result) = token.outcome {
                        visit.outcome(result);
                    }
                }
                i = end;
            }
        }
    }
    if depth > 0 {
        return error(line, "variation not closed".to_owned());
    }
    Ok(held_anything)
}

impl Phase {
    /// The phase once movetext is seen.
    fn max_movetext(self) -> Phase {
        match self {
            Phase::Tags => Phase::Movetext,
            other => other,
        }
    }
}

/// The end of the line at `i` (its line end, or the end of the text).
fn line_end(text: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &text[i..]).map_or(text.len(), |n| i + n)
}

/// Whether a line that begins inside `text` (a comment's body and its closing brace) starts
/// with something other than a tag: lines are lines, whether or not a comment spans them.
fn begins_a_line_with_movetext(text: &[u8]) -> bool {
    let mut after_line_end = false;
    for &b in text {
        match b {
            b'\n' | b'\r' => after_line_end = true,
            _ if is_blank(b) => {}
            _ if after_line_end => {
                if b != b'[' {
                    return true;
                }
                after_line_end = false;
            }
            _ => {}
        }
    }
    false
}

/// The line ends in `text` (a CRLF counts as one, a lone CR as one), found with `memchr`: comments
/// run to hundreds of bytes in engine collections.
fn count_lines(text: &[u8]) -> u64 {
    let line_ends = memchr::memchr2_iter(b'\n', b'\r', text);
    line_ends.filter(|&at| text[at] == b'\n' || text.get(at + 1) != Some(&b'\n')).count() as u64
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

/// What one movetext token holds: a move, a termination marker (both for a marker glued to
/// the last move, "h6*"), or neither (a move number, a NAG, a glyph).
#[derive(Debug, Default)]
struct Token {
    san: Option<SanPlus>,
    outcome: Option<GameResult>,
}

/// Reads one movetext token; `None` for one that is none of the above.
fn token(token: &[u8]) -> Option<Token> {
    let marker = |result| Some(Token { san: None, outcome: Some(result) });
    match token {
        b"1-0" => return marker(GameResult::WhiteWins),
        b"0-1" => return marker(GameResult::BlackWins),
        b"1/2-1/2" => return marker(GameResult::Draw),
        b"*" => return marker(GameResult::Unknown),
        b"e.p." | b"ep" => return Some(Token::default()),
        _ if is_glyph(token) => return Some(Token::default()),
        _ => {}
    }
    // A termination marker glued to the last move ("h6*").
    let (token, outcome) = match token.strip_suffix(b"*") {
        Some(rest) if !rest.is_empty() => (rest, Some(GameResult::Unknown)),
        _ => (token, None),
    };
    if let Some(nag) = token.strip_prefix(b"$") {
        return (!nag.is_empty() && nag.iter().all(u8::is_ascii_digit)).then_some(Token { san: None, outcome });
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
        return Some(Token { san: None, outcome });
    }
    // Castling may be written with zeros ("0-0-0").
    let mut castling = [0u8; 8];
    let rest = if rest.starts_with(b"0-0") && rest.len() <= castling.len() {
        for (to, &from) in castling.iter_mut().zip(rest) {
            *to = if from == b'0' { b'O' } else { from };
        }
        &castling[..rest.len()]
    } else {
        rest
    };
    SanPlus::from_ascii(rest).ok().map(|san| Token { san: Some(san), outcome })
}

/// Checks the tag pairs at the start of `line` (`[Name "value"]`, several may share a line),
/// handing each to `visit` when it has one; returns the length they take (movetext may follow
/// on the same line).
fn tag_pairs(line: &[u8], mut visit: Option<&mut impl Visit>) -> Result<usize, String> {
    let mut rest = line;
    while let Some(pair) = rest.strip_prefix(b"[") {
        let trimmed = trim_start(pair);
        let name_len = trimmed.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        let name = || String::from_utf8_lossy(&trimmed[..name_len]).into_owned();
        if name_len == 0 {
            return Err("tag without a name".to_owned());
        }
        let after_name = trim_start(&trimmed[name_len..]);
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
        if let Some(visit) = visit.as_deref_mut() {
            // The name as written up to the opening quote, one space before it left out.
            let quote = pair.len() - value.len() - 1;
            let written = &pair[..quote];
            let written = written.strip_suffix(b" ").unwrap_or(written);
            visit.tag(written, &unescape(&value[..end]));
        }
        rest = trim_start(after);
    }
    Ok(line.len() - rest.len())
}

/// A tag value with `\"` and `\\` undone (other backslashes kept).
fn unescape(value: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if memchr::memchr(b'\\', value).is_none() {
        return std::borrow::Cow::Borrowed(value);
    }
    let (mut out, mut head) = (Vec::with_capacity(value.len()), 0);
    for escape in memchr::memchr_iter(b'\\', value) {
        if matches!(value.get(escape + 1), Some(b'\\' | b'"')) {
            out.extend_from_slice(&value[head..escape]);
            head = escape + 1;
        }
    }
    out.extend_from_slice(&value[head..]);
    std::borrow::Cow::Owned(out)
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().take_while(|&&c| is_blank(c)).count()..]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reading handed on, as text.
    #[derive(Default)]
    struct Seen(Vec<String>);

    impl Visit for Seen {
        fn tag(&mut self, name: &[u8], value: &[u8]) {
            self.0.push(format!("tag {}={}", String::from_utf8_lossy(name), String::from_utf8_lossy(value)));
        }
        fn san(&mut self, san: SanPlus, line: u64) {
            self.0.push(format!("{san}@{line}"));
        }
        fn outcome(&mut self, result: GameResult) {
            self.0.push(result.tag().to_owned());
        }
        fn comment(&mut self, text: &[u8], depth: u32) {
            self.0.push(format!("{{{}}}{depth}", String::from_utf8_lossy(text)));
        }
    }

    fn seen(text: &str) -> Result<Vec<String>, SyntaxError> {
        let mut seen = Seen::default();
        read(text.as_bytes(), &mut seen).map(|_| seen.0)
    }

    #[test]
    fn accepts_real_movetext() {
        for text in [
            "[Event \"a \\\"quoted\\\" b\"]\n[Site \"x\"] [Round \"1\"]\n\n1. e4 e5!? 2.Nf3 $1 Nc6 3... a6?! {c} (3... Nf6 4. O-O) 1-0",
            "1. d4 d5 2. c4 dxc4 3. e4 e5 4. Bxc4 exd4 5. exd4?? Qxd4 6. Qxd4 *",
            "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.0-0 Be7 6. Qe2 0-0 ; comment\n% escape\n 1/2-1/2",
            "1. e4 e5 2. d4 exd4 3. c3 dxc3 4. Bc4 cxb2 5. Bxb2 e8=Q 6. Ke2# 0-1",
            "",
            "[Event \"inline\"][Result \"*\"] 1. e4 +- e5 = (1... c5 +/=) 2. Nf3 N 2... Nc6 RR h6*",
        ] {
            assert!(seen(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn hands_on_tags_moves_markers_and_comments_in_order() {
        let text = "[Event \"a \\\"b\\\" \\\\ c\"] [ White  \"W\"]\n1. e4 {x\ny} e5 (1... c5 {v}) 2.Nf3 $1 ; z\n0-0*";
        let want = [
            "tag Event=a \"b\" \\ c",
            "tag  White =W",
            "e4@1",
            "{x\ny}0",
            "e5@2",
            "{v}1",
            "Nf3@2",
            "{ z}0",
            "O-O@3",
            "*",
        ];
        assert_eq!(seen(text).unwrap(), want);
    }

    #[test]
    fn a_tag_line_after_a_comment_ends_the_game() {
        assert_eq!(seen("{before}\n[Event \"x\"]\n1. e4 *").unwrap(), ["{before}0"]);
        assert_eq!(seen("[Event \"x\"]\n{c}\n[Site \"y\"]\n1. e4 *").unwrap(), ["tag Event=x", "{c}0"]);
        // After a move, a tag pair is no token of a game (the splitter ends games before them).
        assert_eq!(seen("[Event \"x\"]\n{c} 1. e4\n[Site \"y\"]").map_err(|err| err.line), Err(2));
    }

    #[test]
    fn rejects_garbage_with_its_line() {
        for (text, line) in [
            ("[Event \"a\"]\n\n1. pawn goes to e4 *", 2),
            ("[\"Somewhere\"]\n*", 0),
            ("[Event \"a\"]\n[Site]\n*", 1),
            ("[Event \"a\"] [Site \"b\"] 1. e4 e5 2. pawn *", 0),
            ("[Site \"Somewhere\non the Earth\"]\n*", 0),
            ("1. e4 {A comment} character} *", 0),
            ("1. e4 (1. d4\n*", 1),
            ("1. e4\n\n2. \u{2659}e5 *", 2),
            ("1. e4 e5 2. Nf3 ) *", 0),
        ] {
            let err = seen(text).expect_err(text);
            assert_eq!(err.line, line, "{text}: {err:?}");
        }
    }

    #[test]
    fn every_glyph_is_recognised() {
        for glyph in GLYPHS {
            assert!(is_glyph(glyph.as_bytes()), "{glyph}");
        }
        assert!(!is_glyph(b"Nf3") && !is_glyph(b"e4") && !is_glyph(b"12."));
    }
}
