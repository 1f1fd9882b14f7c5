//! Splitting a PGN byte stream into the raw text of each game, with the line it starts on.
//!
//! Splitting comes before parsing so that games can be parsed in parallel, a broken game can be
//! reported with its line and written out verbatim (`--rejects`), and one bad game can never
//! swallow its neighbours. A game ends at its termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`)
//! or where a tag section starts at the beginning of a line after movetext; braces, `;` and `%`
//! comments and tag strings are tracked so that a marker or a `[` inside them does not split.
//! A byte-order mark is skipped; lines end with LF, CRLF or a lone CR; control bytes are blanks.

use std::io::{self, Read};

/// Spaces, line ends and other control bytes (real files hold stray NULs between games).
pub(crate) const fn is_blank(b: u8) -> bool {
    b <= b' '
}

/// Bytes of a word of movetext: none ends a word or changes the context (not a blank, nor one
/// of [`GameSplitter::plain_byte`]'s delimiters, nor `%`).
const WORD_BYTES: [bool; 256] = byte_class(false, b"{}()[];$%");
/// Bytes inside a tag, outside its string, that change no context (`"`, `]` and line ends do).
const TAG_BYTES: [bool; 256] = byte_class(true, b"\"]\n\r");
/// Bytes inside a tag's string that change no context (`\\`, `"` and line ends do).
const STRING_BYTES: [bool; 256] = byte_class(true, b"\\\"\n\r");

/// A class of bytes: every byte (`blanks`) or those above the blanks, but those of `not`.
const fn byte_class(blanks: bool, not: &[u8]) -> [bool; 256] {
    let mut class = [false; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = blanks || !is_blank(b as u8);
        b += 1;
    }
    let mut at = 0;
    while at < not.len() {
        class[not[at] as usize] = false;
        at += 1;
    }
    class
}

/// How many bytes at the start of `bytes` are of `class`.
#[inline]
fn run_of(class: &[bool; 256], bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !class[b as usize]).unwrap_or(bytes.len())
}

/// The raw text of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawGame {
    /// 1-based number of the game in its file.
    pub number: u64,
    /// 1-based line of the game's first non-blank character.
    pub line: u64,
    /// The game's bytes, as in the file.
    pub text: Vec<u8>,
}

/// Where the scanner is inside the current game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// Between tokens.
    Plain,
    /// Inside `[ ... ]`.
    Tag,
    /// Inside a quoted tag value.
    TagString,
    /// The character after a backslash in a tag value.
    TagEscape,
    /// Inside `{ ... }`.
    BraceComment,
    /// Inside a `;` or `%` comment, up to the end of the line.
    LineComment,
}

/// Splits a PGN stream into games; an iterator of [`RawGame`].
pub struct GameSplitter<R> {
    reader: R,
    buffer: Box<[u8]>,
    filled: usize,
    pos: usize,
    eof: bool,
    /// Still at the very start of the stream (a BOM may follow).
    at_stream_start: bool,
    line: u64,
    at_line_start: bool,
    previous_cr: bool,
    context: Context,
    variation_depth: u32,
    /// The current word of movetext, to recognise termination markers.
    word: [u8; 8],
    word_len: usize,
    word_overflow: bool,
    current: Vec<u8>,
    content_line: Option<u64>,
    has_movetext: bool,
    terminated: bool,
    games: u64,
    /// Whether runs of bytes that change no state but the word and the line start (a comment's
    /// text, a word of movetext, a tag's name or string) are passed over at once: always but in the
    /// tests that check it against the byte loop.
    fast_paths: bool,
}

impl<R: Read> GameSplitter<R> {
    /// Splits the games of `reader`.
    pub fn new(reader: R) -> GameSplitter<R> {
        GameSplitter {
            reader,
            buffer: vec![0; 1 << 16].into_boxed_slice(),
            filled: 0,
            pos: 0,
            eof: false,
            at_stream_start: true,
            line: 1,
            at_line_start: true,
            previous_cr: false,
            context: Context::Plain,
            variation_depth: 0,
            word: [0; 8],
            word_len: 0,
            word_overflow: false,
            current: Vec::new(),
            content_line: None,
            has_movetext: false,
            terminated: false,
            games: 0,
            fast_paths: true,
        }
    }

    /// Ends the current word; returns whether it was a termination marker.
    fn end_word(&mut self) -> bool {
        let word = &self.word[..self.word_len];
        let marker = !self.word_overflow && matches!(word, b"1-0" | b"0-1" | b"1/2-1/2" | b"*");
        self.word_len = 0;
        self.word_overflow = false;
        marker
    }

    /// Closes the current game, if it has any content.
    fn take_game(&mut self) -> Option<RawGame> {
        // The next game gets room for one a little longer than this one (up to 64 KB): growing
        // from nothing, each game's text was reallocated some seven times.
        let room = (self.current.len() + self.current.len() / 4).min(1 << 16);
        let text = std::mem::replace(&mut self.current, Vec::with_capacity(room));
        let line = self.content_line.take()?;
        self.has_movetext = false;
        self.terminated = false;
        self.variation_depth = 0;
        self.word_len = 0;
        self.word_overflow = false;
        self.games += 1;
        Some(RawGame { number: self.games, line, text })
    }

    /// Inside a brace comment, passes over its text up to its closing brace (or the end of the
    /// buffer) at once, counting its line breaks as the byte loop does; returns where the loop
    /// goes on. Comments are most of the bytes of an annotated or a lichess file.
    fn skip_comment_text(&mut self, from: usize) -> usize {
        let text = &self.buffer[from..self.filled];
        let end = memchr::memchr(b'}', text).unwrap_or(text.len());
        let span = &text[..end];
        if let Some(&last) = span.last() {
            // Most comments hold no line break: one search says so.
            if memchr::memchr2(b'\r', b'\n', span).is_some() {
                let crs = memchr::memchr_iter(b'\r', span).count();
                let lfs = memchr::memchr_iter(b'\n', span).count();
                // A CR LF is one line break, also when the CR ended the buffer before.
                let mut crlfs = usize::from(self.previous_cr && span[0] == b'\n');
                if crs > 0 && lfs > 0 {
                    crlfs += memchr::memmem::find_iter(span, b"\r\n").count();
                }
                self.line += (crs + lfs - crlfs) as u64;
            }
            // Where the text leaves a line start does not matter: the closing brace, not
            // blank, ends it before anything reads it.
            self.previous_cr = last == b'\r';
        }
        from + end
    }

    /// Takes the `run` bytes of a word of movetext from `buffer[at..]` at once, as
    /// [`GameSplitter::plain_byte`] takes them one by one before a game is terminated.
    fn word_bytes(&mut self, at: usize, run: usize) {
        if self.content_line.is_none() {
            self.content_line = Some(self.line);
        }
        self.has_movetext = true;
        let kept = run.min(self.word.len() - self.word_len);
        self.word[self.word_len..self.word_len + kept].copy_from_slice(&self.buffer[at..at + kept]);
        self.word_len += kept;
        self.word_overflow |= kept < run;
        self.at_line_start = false;
        self.previous_cr = false;
    }

    /// Whether byte `b`, starting a token outside any comment, begins the next game.
    fn starts_next_game(&self, b: u8) -> bool {
        if b == b'[' {
            // A tag section after movetext: a new game (at a line start, or after a marker).
            (self.has_movetext && self.at_line_start) || self.terminated
        } else {
            // Movetext after a termination marker: a new game without tags.
            self.terminated && !matches!(b, b';' | b'%' | b'{')
        }
    }

    /// Scans `buffer[pos..filled]`; returns a finished game as soon as one is complete.
    fn scan(&mut self) -> Option<RawGame> {
        if self.at_stream_start && self.pos < self.filled {
            self.at_stream_start = false;
            if self.buffer[self.pos..self.filled].starts_with(b"\xEF\xBB\xBF") {
                self.pos += 3;
            }
        }
        let start = self.pos;
        let mut i = self.pos;
        while i < self.filled {
            if self.fast_paths {
                match self.context {
                    Context::BraceComment => {
                        i = self.skip_comment_text(i);
                        if i == self.filled {
                            break;
                        }
                    }
                    Context::Plain if !self.terminated => {
                        let run = run_of(&WORD_BYTES, &self.buffer[i..self.filled]);
                        if run > 0 {
                            self.word_bytes(i, run);
                            i += run;
                            continue;
                        }
                    }
                    Context::Tag | Context::TagString => {
                        let class = if self.context == Context::Tag { &TAG_BYTES } else { &STRING_BYTES };
                        let run = run_of(class, &self.buffer[i..self.filled]);
                        if run > 0 {
                            if self.buffer[i..i + run].iter().any(|&b| !is_blank(b)) {
                                self.at_line_start = false;
                            }
                            self.previous_cr = false;
                            i += run;
                            continue;
                        }
                    }
                    _ => {}
                }
            }
            let b = self.buffer[i];
            let newline = b == b'\n' || b == b'\r';
            if self.context == Context::Plain && !is_blank(b) && self.starts_next_game(b) {
                self.current.extend_from_slice(&self.buffer[start..i]);
                self.pos = i;
                // The game has content: it has movetext or a marker.
                return self.take_game();
            }
            match self.context {
                Context::Plain => self.plain_byte(b),
                Context::Tag => match b {
                    b'"' => self.context = Context::TagString,
                    b']' => self.context = Context::Plain,
                    _ => {}
                },
                Context::TagString => match b {
                    b'\\' => self.context = Context::TagEscape,
                    b'"' => self.context = Context::Tag,
                    // A tag line never spans lines: an unterminated string ends with it.
                    b'\n' | b'\r' => self.context = Context::Plain,
                    _ => {}
                },
                Context::TagEscape => self.context = Context::TagString,
                Context::BraceComment => {
                    if b == b'}' {
                        self.context = Context::Plain;
                    }
                }
                Context::LineComment => {
                    if newline {
                        self.context = Context::Plain;
                    }
                }
            }
            if newline {
                if !(b == b'\n' && self.previous_cr) {
                    self.line += 1;
                }
                self.at_line_start = true;
            } else if !is_blank(b) {
                self.at_line_start = false;
            }
            self.previous_cr = b == b'\r';
            i += 1;
        }
        self.current.extend_from_slice(&self.buffer[start..i]);
        self.pos = i;
        None
    }

    /// A byte outside tags and comments.
    fn plain_byte(&mut self, b: u8) {
        let delimiter = is_blank(b) || matches!(b, b'{' | b'(' | b')' | b';' | b'[' | b']' | b'$');
        if delimiter && self.word_len > 0 && self.end_word() && self.variation_depth == 0 {
            self.terminated = true;
        }
        if is_blank(b) {
            return;
        }
        if self.content_line.is_none() {
            self.content_line = Some(self.line);
        }
        match b {
            b'[' if !self.has_movetext => self.context = Context::Tag,
            b'{' => self.context = Context::BraceComment,
            b';' => self.context = Context::LineComment,
            b'%' if self.at_line_start => self.context = Context::LineComment,
            b'(' => {
                self.has_movetext = true;
                self.variation_depth += 1;
            }
            b')' => self.variation_depth = self.variation_depth.saturating_sub(1),
            _ => {
                self.has_movetext = true;
                if !delimiter {
                    if self.word_len < self.word.len() {
                        self.word[self.word_len] = b;
                        self.word_len += 1;
                    } else {
                        self.word_overflow = true;
                    }
                }
            }
        }
    }
}

impl<R: Read> Iterator for GameSplitter<R> {
    type Item = io::Result<RawGame>;

    fn next(&mut self) -> Option<io::Result<RawGame>> {
        loop {
            if let Some(game) = self.scan() {
                return Some(Ok(game));
            }
            if self.eof {
                return self.take_game().map(Ok);
            }
            self.pos = 0;
            self.filled = match self.reader.read(&mut self.buffer) {
                Ok(0) => {
                    self.eof = true;
                    0
                }
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => 0,
                Err(err) => return Some(Err(err)),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Hands out its bytes in reads of the sizes given in turn: line breaks and comments then
    /// straddle the splitter's refills.
    struct Choppy<'a> {
        bytes: &'a [u8],
        sizes: Vec<usize>,
        reads: usize,
    }

    impl Read for Choppy<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.reads % self.sizes.len()];
            self.reads += 1;
            let n = size.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Pieces of PGN, well formed or not, that random texts are made of.
    const PIECES: [&str; 31] = [
        "[Site \"a\\\rb\nc\"]",
        "Nbd7+",
        "exd8=Q#",
        "abcdefghijk",
        "1-0x",
        "[Site \"a\\\"b\\\nc\"]",
        "\u{0}",
        "[Event \"a\"]",
        "[Site \"x 1-0 [y]\"]",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        " ",
        "\t",
        "1.",
        "e4",
        "Nf3",
        "{",
        "}",
        "{ a long comment, %clk 0:03:00\r\nover lines\n}",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        ";",
        "%",
        "(",
        ")",
        "\"",
        "\\",
    ];

    proptest! {
        /// Passing over a comment's text, a word or a tag's name or string at once splits every text
        /// as the byte loop does: the same games, numbers and lines, however the reads cut it.
        #[test]
        fn fast_paths_split_as_the_byte_loop(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..300),
            sizes in proptest::collection::vec(1usize..40, 1..8),
        ) {
            let text: Vec<u8> = pieces.iter().flat_map(|&piece| PIECES[piece].bytes()).collect();
            let fast: Vec<RawGame> =
                GameSplitter::new(Choppy { bytes: &text, sizes, reads: 0 }).collect::<io::Result<_>>()?;
            let mut byte_loop = GameSplitter::new(&text[..]);
            byte_loop.fast_paths = false;
            let expected: Vec<RawGame> = byte_loop.collect::<io::Result<_>>()?;
            prop_assert_eq!(fast, expected);
        }
    }

    fn split(text: &[u8]) -> Vec<(u64, u64, String)> {
        GameSplitter::new(text)
            .map(|game| {
                let game = game.unwrap();
                (game.number, game.line, String::from_utf8_lossy(&game.text).trim().to_owned())
            })
            .collect()
    }

    #[test]
    fn splits_on_tags_after_movetext() {
        let games = split(b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n[Site \"?\"]\n\n1. d4 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0], (1, 1, "[Event \"a\"]\n\n1. e4 e5 1-0".to_owned()));
        assert_eq!(games[1].1, 5);
        assert!(games[1].2.ends_with("1. d4 *"));
    }

    #[test]
    fn markers_and_brackets_inside_comments_and_strings_do_not_split() {
        let games =
            split(b"[Event \"x 1-0 [y]\"]\n1. e4 { 1-0 *\n[not a tag] } e5 ; 0-1\n% 1-0\n2. Nf3 1/2-1/2\n1. d4 0-1");
        assert_eq!(games.len(), 2, "{games:?}");
        assert!(games[0].2.ends_with("2. Nf3 1/2-1/2"));
        assert_eq!(games[1], (2, 6, "1. d4 0-1".to_owned()));
    }

    #[test]
    fn line_endings_bom_and_truncation() {
        let games = split(b"\xEF\xBB\xBF[Event \"a\"]\r\n\r\n1. e4 *\r\n[Event \"b\"]\r1. d4 d5\r2. c4");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].1, 1);
        assert!(games[0].2.starts_with("[Event"));
        assert_eq!(games[1].1, 4);
        assert!(games[1].2.ends_with("2. c4"));
    }

    #[test]
    fn blank_input_has_no_games() {
        assert!(split(b"").is_empty());
        assert!(split(b"\n\r\n  \t\n").is_empty());
    }

    #[test]
    fn a_marker_in_a_variation_does_not_end_the_game() {
        let games = split(b"1. e4 (1. d4 *) e5 1-0");
        assert_eq!(games.len(), 1);
    }

    #[test]
    fn splits_across_buffer_boundaries() {
        let mut text = Vec::new();
        for i in 0..5000 {
            text.extend_from_slice(
                format!("[Event \"{i}\"]\r\n\r\n1. e4 {{ a comment }} e5 2. Nf3 1-0\r\n\r\n").as_bytes(),
            );
        }
        let games = split(&text);
        assert_eq!(games.len(), 5000);
        for (i, game) in games.iter().enumerate() {
            assert_eq!(game.0, i as u64 + 1);
            assert_eq!(game.1, 4 * i as u64 + 1);
            assert!(game.2.starts_with(&format!("[Event \"{i}\"]")));
        }
    }
}
