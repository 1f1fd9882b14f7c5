//! What a move's comment says besides words: engine evaluations and clocks, in the shapes real
//! collections write them. The PGN reader ([`parse_game`](super::parse_game)) asks this of every
//! comment of a mainline, and keeps what it finds per move (`model::GameAnnotations`).
//!
//! - lichess, ChessBase and Scid: `[%eval 0.25]`, `[%eval #-3]` (White's view, pawns or mate in
//!   moves), `[%clk 0:03:12]` (the mover's clock after the move), `[%emt 0:00:07.3]` (the time
//!   the move took);
//! - Arena and CCRL: `{+0.25/18 1.2s}` (the mover's view, in pawns or `M5`, then the depth and
//!   the time the move took);
//! - TCEC: `{d=36, sd=50, mt=15255, ..., wv=0.22, ...}` (`wv` White's view in pawns or `M12`,
//!   `mt` the move's milliseconds).
//!
//! An annotation of a known shape whose value cannot be (`[%eval nan]`, `#0`, a negative or
//! out-of-range clock, more than a thousand pawns) is passed over and counted in
//! [`Annotations::malformed`]: a game is never refused for one.
//!
//! ```
//! use tabiya::input::annotations::{Score, View, read};
//!
//! let lichess = read(b" [%eval -1.25] [%clk 0:03:12] ");
//! assert_eq!(lichess.eval.map(|e| (e.score, e.view)), Some((Score::Centipawns(-125), View::White)));
//! assert_eq!(lichess.clock_centis, Some(19_200));
//! let arena = read(b"+0.31/18 1.2s");
//! assert_eq!(arena.eval.map(|e| (e.score, e.view)), Some((Score::Centipawns(31), View::Mover)));
//! assert_eq!((arena.depth, arena.elapsed_centis), (Some(18), Some(120)));
//! assert_eq!(read(b"[%eval nan]").malformed, 1);
//! ```

/// An evaluation's score: centipawns, or mate in so many moves (negative: the side it is read
/// from is mated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Centipawns(i32),
    /// Mate in this many moves (never 0).
    Mate(i16),
}

/// Whose view a score takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// White's (`[%eval]`, TCEC's `wv`).
    White,
    /// The side that made the move (Arena's and CCRL's engine scores).
    Mover,
}

/// An evaluation read from a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The score.
    pub score: Score,
    /// Whose view it takes.
    pub view: View,
}

/// What one comment says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    /// The evaluation of the position after the move.
    pub eval: Option<Evaluation>,
    /// The search depth of that evaluation, where the comment gives it.
    pub depth: Option<u16>,
    /// The mover's clock after the move, in centiseconds (`[%clk]`).
    pub clock_centis: Option<u32>,
    /// The time the move took, in centiseconds (`[%emt]`, Arena's seconds, TCEC's `mt`).
    pub elapsed_centis: Option<u32>,
    /// Annotations of a known shape whose value is none: passed over.
    pub malformed: u32,
}

/// Largest score read, in pawns: engines print larger numbers only for mates or errors.
const MAX_PAWNS: f64 = 1000.0;
/// Largest mate distance read, in moves.
const MAX_MATE: u64 = 500;
/// Longest clock or move time read: a day and a half in centiseconds fits any game's (and a
/// correspondence move's is counted as malformed past it).
const MAX_CENTIS: u64 = 36 * 3600 * 100;

/// Reads the annotations of one comment's text (without its braces). Unknown text is words,
/// not an error.
pub fn read(comment: &[u8]) -> Annotations {
    let mut found = Annotations::default();
    // `[%name value]` commands, anywhere in the comment, read on their bytes.
    let Some(first) = command_at(comment) else {
        read_words(comment, &mut found);
        return found;
    };
    let mut rest = &comment[first..];
    while let Some(at) = command_at(rest) {
        let after = &rest[at + 2..];
        let Some(end) = memchr::memchr(b']', after) else {
            found.malformed += 1;
            break;
        };
        read_command(&after[..end], &mut found);
        rest = &after[end + 1..];
    }
    found
}

/// One command's text (`eval 0.25`, `clk 0:03:12`). Any Unicode space separates and trims as
/// an ASCII one does; the values are ASCII or no value.
fn read_command(text: &[u8], found: &mut Annotations) {
    let spaced: String;
    let text = match text.is_ascii() {
        true => text,
        false => {
            spaced = String::from_utf8_lossy(text).chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
            spaced.as_bytes()
        }
    };
    let text = trim(text);
    let (name, value) = match text.iter().position(|&b| is_space(b)) {
        Some(at) => (&text[..at], trim(&text[at + 1..])),
        None => (text, &b""[..]),
    };
    match name {
        b"eval" => match eval_of(value.split(|&b| b == b',').next().unwrap_or_default(), View::White) {
            Some(eval) => found.eval = Some(eval),
            None => found.malformed += 1,
        },
        b"clk" => match clock_of(value) {
            Some(centis) => found.clock_centis = Some(centis),
            None => found.malformed += 1,
        },
        b"emt" => match clock_of(value) {
            Some(centis) => found.elapsed_centis = Some(centis),
            None => found.malformed += 1,
        },
        // Other commands (`%csl`, `%cal`, ...) say nothing this reads.
        _ => {}
    }
}

/// A comment without commands: an engine archive's words, or words. The cheap test first lets
/// words pass at memchr's speed (TCEC's `wv=` or `mt=`, or a first word that may be Arena's
/// score).
fn read_words(comment: &[u8], found: &mut Annotations) {
    use memchr::memmem::find;
    let first = comment.iter().find(|b| !b.is_ascii_whitespace());
    let tcec = find(comment, b"wv=").is_some() || find(comment, b"mt=").is_some();
    if !tcec && !first.is_some_and(|b| b"+-.0123456789M#".contains(b)) {
        return;
    }
    let text = String::from_utf8_lossy(comment);
    match tcec {
        true => read_tcec(text.trim(), found),
        false => read_arena(text.trim(), found),
    }
}

/// Where the first command (`[%clk 0:03:12]`) of `text` opens: its `[` (one byte is searched
/// for faster than two, and a comment's words rarely hold one).
fn command_at(text: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'[', &text[from..]) {
        let at = from + at;
        if text.get(at + 1) == Some(&b'%') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// A space as `char::is_whitespace` says of ASCII.
fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | b' ')
}

/// `text` without the spaces ([`is_space`]) at either end.
fn trim(mut text: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = text
        && is_space(*first)
    {
        text = rest;
    }
    while let [rest @ .., last] = text
        && is_space(*last)
    {
        text = rest;
    }
    text
}

/// A number of ASCII digits (at least one), `None` past `u64`.
fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
}

/// TCEC's `key=value` pairs, separated by commas.
fn read_tcec(text: &str, found: &mut Annotations) {
    for pair in text.split(',') {
        let Some((key, value)) = pair.split_once('=') else { continue };
        let value = value.trim();
        match key.trim() {
            "wv" => match eval_of(value.as_bytes(), View::White) {
                Some(eval) => found.eval = Some(eval),
                None => found.malformed += 1,
            },
            "d" => found.depth = value.parse().ok(),
            "mt" => match value.parse::<u64>().ok().map(|ms| ms / 10).filter(|&c| c <= MAX_CENTIS) {
                Some(centis) => found.elapsed_centis = u32::try_from(centis).ok(),
                None => found.malformed += 1,
            },
            _ => {}
        }
    }
}

/// Arena's and CCRL's `score/depth time`: the comment's first word, then maybe the time.
fn read_arena(text: &str, found: &mut Annotations) {
    let mut words = text.split_whitespace();
    let Some((score, depth)) = words.next().and_then(|word| word.split_once('/')) else { return };
    // A word like `1/2` or `and/or` is no score: only a signed number or a mate reads as one.
    let mate =
        score.strip_prefix(['M', '#']).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '-'));
    let shaped = score.starts_with(['+', '-']) || mate || score.contains('.');
    let Ok(depth) = depth.parse::<u16>() else { return };
    if !shaped {
        return;
    }
    match eval_of(score.as_bytes(), View::Mover) {
        Some(eval) => {
            found.eval = Some(eval);
            found.depth = Some(depth);
        }
        None => found.malformed += 1,
    }
    if let Some(time) = words.next().and_then(|word| word.strip_suffix('s')) {
        match time.parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0 && *t * 100.0 <= MAX_CENTIS as f64) {
            Some(seconds) => found.elapsed_centis = Some((seconds * 100.0).round() as u32),
            None => found.malformed += 1,
        }
    }
}

/// A score in pawns (`0.25`, `-1.5`, `+3`) or a mate (`#-3`, `M5`, `-M12`, `#+2`).
fn eval_of(text: &[u8], view: View) -> Option<Evaluation> {
    let text = trim(text);
    let (negative, body) = sign_of(text);
    let score = if let Some(mate) = body.strip_prefix(b"#").or_else(|| body.strip_prefix(b"M")) {
        let (mate_negative, digits) = sign_of(mate);
        let moves = number(digits).filter(|&n| n > 0 && n <= MAX_MATE)? as i16;
        Score::Mate(if negative != mate_negative { -moves } else { moves })
    } else {
        // Digits and one point only: `nan`, `inf`, exponents are no score.
        let (whole, fraction) = match memchr::memchr(b'.', body) {
            Some(at) => (&body[..at], &body[at + 1..]),
            None => (body, &b""[..]),
        };
        let digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
        if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
            return None;
        }
        let centipawns = match fraction.len() {
            // Whole hundredths: exact in integers (as the float's rounding gives them).
            0..=2 if whole.len() <= 15 => {
                let hundredths = number(fraction).map_or(0, |n| if fraction.len() == 1 { n * 10 } else { n });
                number(whole).unwrap_or(0) * 100 + hundredths
            }
            _ => {
                let pawns: f64 = std::str::from_utf8(body).ok()?.parse().ok().filter(|p: &f64| p.is_finite())?;
                if pawns > MAX_PAWNS {
                    return None;
                }
                (pawns * 100.0).round() as u64
            }
        };
        if centipawns > MAX_PAWNS as u64 * 100 {
            return None;
        }
        let centipawns = centipawns as i32;
        Score::Centipawns(if negative { -centipawns } else { centipawns })
    };
    Some(Evaluation { score, view })
}

/// A leading `-` (negative) or `+` taken off.
fn sign_of(text: &[u8]) -> (bool, &[u8]) {
    match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    }
}

/// A clock `h:mm:ss`, `mm:ss` or either with a fraction of a second, in centiseconds.
fn clock_of(text: &[u8]) -> Option<u32> {
    let (whole, fraction) = match memchr::memchr(b'.', text) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, &b""[..]),
    };
    // Two or three parts of digits, without collecting them.
    let (mut numbers, mut count) = ([0u64; 3], 0);
    for part in whole.split(|&b| b == b':') {
        if count == 3 {
            return None;
        }
        numbers[count] = number(part)?;
        count += 1;
    }
    let (hours, minutes, seconds) = match count {
        2 => (0, numbers[0], numbers[1]),
        3 => (numbers[0], numbers[1], numbers[2]),
        _ => return None,
    };
    if seconds >= 60 || (count == 3 && minutes >= 60) {
        return None;
    }
    if fraction.len() > 3 || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let centis_of_fraction = match fraction.len() {
        0 => 0,
        1 => number(fraction)? * 10,
        _ => number(&fraction[..2])?,
    };
    let seconds = hours.checked_mul(60)?.checked_add(minutes)?.checked_mul(60)?.checked_add(seconds)?;
    let centis = seconds.checked_mul(100)?.checked_add(centis_of_fraction)?;
    (centis <= MAX_CENTIS).then_some(centis as u32)
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(comment: &str) -> Option<(Score, View)> {
        read(comment.as_bytes()).eval.map(|e| (e.score, e.view))
    }

    #[test]
    fn lichess_and_chessbase_commands() {
        assert_eq!(eval("[%eval 0.25]"), Some((Score::Centipawns(25), View::White)));
        assert_eq!(eval("[%eval -0.07] [%clk 0:00:30]"), Some((Score::Centipawns(-7), View::White)));
        assert_eq!(eval("[%eval #-3]"), Some((Score::Mate(-3), View::White)));
        assert_eq!(eval("[%eval #3]"), Some((Score::Mate(3), View::White)));
        // ChessBase writes the depth after a comma.
        assert_eq!(eval("[%eval 1.5,23]"), Some((Score::Centipawns(150), View::White)));
        let clocks = read(b"Good move [%clk 1:30:00] [%emt 0:00:07.3]");
        assert_eq!((clocks.clock_centis, clocks.elapsed_centis), (Some(540_000), Some(730)));
        assert_eq!(read(b"[%clk 3:12]").clock_centis, Some(19_200));
        assert_eq!(read(b"[%csl Ga4][%cal Ge2e4]"), Annotations::default());
        assert_eq!(read(b"just words, 1/2 of them"), Annotations::default());
    }

    proptest::proptest! {
        /// Any bytes read as a comment give annotations or none, never a panic; what is read
        /// stays within its bounds.
        #[test]
        fn any_comment_reads_without_a_panic(text in "(\\[%(eval|clk|emt) )?[-+#M0-9.:/a-z ,=\\]]{0,40}") {
            let found = read(text.as_bytes());
            if let Some(Evaluation { score: Score::Centipawns(cp), .. }) = found.eval {
                proptest::prop_assert!(cp.unsigned_abs() <= 100_000);
            }
            proptest::prop_assert!(found.clock_centis.is_none_or(|c| u64::from(c) <= MAX_CENTIS));
        }
    }

    /// Comment text of the shapes annotations take, with their odd cases: numbers too long,
    /// fractions, signs, Unicode spaces, bytes that are no UTF-8.
    fn comment_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let value = prop_oneof![
            "[-+]?[0-9]{0,4}(\\.[0-9]{0,4})?(,[0-9]{1,2})?",
            "[-+]?[#M][-+]?[0-9]{0,4}",
            "[0-9]{1,3}(:[0-9]{1,3}){0,3}(\\.[0-9]{0,4})?",
            "[0-9]{15,24}(\\.[0-9]{1,3})?",
            "[-+#M0-9.:/a-z ,=\u{a0}\u{2003}\t\u{b}]{0,12}",
        ];
        let space = prop_oneof![Just(" "), Just("  "), Just("\t"), Just("\u{a0}"), Just("\u{b}"), Just("")];
        // Some commands left open: the reader counts them and stops.
        let close = prop_oneof![9 => Just("]"), 1 => Just("")];
        let command = (
            prop_oneof![Just("eval"), Just("clk"), Just("emt"), Just("csl"), Just("")],
            space.clone(),
            value.clone(),
            space,
            close,
        )
            .prop_map(|(name, space, value, end, close)| format!("[%{name}{space}{value}{end}{close}"));
        let words = prop_oneof![
            value.clone().prop_map(|v| format!("{v}/18 1.2s")),
            value.clone().prop_map(|v| format!("d=30, mt={v}, wv={v}")),
            "[a-z ]{0,10}".prop_map(String::from),
        ];
        (proptest::collection::vec(prop_oneof![command, words], 0..4), proptest::option::of(any::<u8>())).prop_map(
            |(parts, byte)| {
                let mut text = parts.join(" ").into_bytes();
                if let Some(byte) = byte {
                    text.insert(text.len() / 2, byte);
                }
                text
            },
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// The byte reader reads every comment as the first reader did on Unicode text, with
        /// the standard library's parsers.
        #[test]
        fn reads_as_the_reference_reader(text in comment_text()) {
            proptest::prop_assert_eq!(read(&text), reference::read(&text), "{:?}", String::from_utf8_lossy(&text));
        }
    }

    /// The comments python-chess writes for evaluations and clocks, read by tabiya as python-chess
    /// reads them (`tools/data/annotation-comments.py` made the file with python-chess).
    #[test]
    fn python_chess_reads_what_tabiya_reads() {
        let lines = include_str!("../../tests/data/annotation-comments.tsv").lines();
        let mut read_back = [0; 3];
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            let [comment, eval, clock, emt] = fields[..] else { panic!("four fields: {line}") };
            let found = read(comment.as_bytes());
            let want_eval = match eval.split_once(' ') {
                Some(("cp", n)) => Some(Score::Centipawns(n.parse().expect("centipawns"))),
                Some(("mate", n)) => Some(Score::Mate(n.parse().expect("moves"))),
                _ => None,
            };
            assert_eq!(found.eval.map(|e| e.score), want_eval, "{line}");
            assert!(found.eval.is_none_or(|e| e.view == View::White), "{line}");
            let centis =
                |text: &str| (text != "-").then(|| (text.parse::<f64>().expect("seconds") * 100.0).round() as u32);
            assert_eq!(found.clock_centis, centis(clock), "{line}");
            assert_eq!(found.elapsed_centis, centis(emt), "{line}");
            assert_eq!(found.malformed, 0, "{line}");
            for (n, present) in read_back.iter_mut().zip([want_eval.is_some(), clock != "-", emt != "-"]) {
                *n += usize::from(present);
            }
        }
        assert!(read_back.iter().all(|&n| n > 200), "{read_back:?}");
    }

    #[test]
    fn engine_archives() {
        let arena = read(b"-1.05/20 3s");
        assert_eq!(arena.eval.map(|e| e.score), Some(Score::Centipawns(-105)));
        assert_eq!((arena.depth, arena.elapsed_centis), (Some(20), Some(300)));
        assert_eq!(eval("+M5/30 0.5s"), Some((Score::Mate(5), View::Mover)));
        assert_eq!(eval("-M7/41"), Some((Score::Mate(-7), View::Mover)));
        let tcec = read(b"d=36, sd=50, mt=15255, tl=5443812, s=48612 kN/s, n=741556262, pv=Nf3 d5, tb=0, h=99.6, ph=0.0, wv=0.22, R50=49, Rd=-10, Rr=-1000, mb=+0+0+0+0+0,");
        assert_eq!(tcec.eval.map(|e| (e.score, e.view)), Some((Score::Centipawns(22), View::White)));
        assert_eq!((tcec.depth, tcec.elapsed_centis), (Some(36), Some(1525)));
        assert_eq!(eval("d=40, mt=100, wv=-M12"), Some((Score::Mate(-12), View::White)));
        assert_eq!(read(b"book").eval, None);
        // Words with a slash are words.
        assert_eq!(read(b"Move/2 and 1/2"), Annotations::default());
    }

    #[test]
    fn edges_read_as_the_reference_reader() {
        for comment in [
            "[%eval 1000.00]",
            "[%eval -1000.00]",
            "[%eval 1000.01]",
            "[%eval 1000.001]",
            "[%eval 999.999]",
            "[%eval 000000000000001.5]",
            "[%eval 0000000000000001.5]",
            "[%eval 00000000000000000000001.25]",
            "[%eval 1.]",
            "[%eval .5]",
            "[%eval .]",
            "[%eval 0.125]",
            "[%eval #-0]",
            "[%eval M+500]",
            "[%eval #501]",
            "[%clk 35:59:59.99]",
            "[%clk 36:00:00.01]",
            "[%clk 0:00:01.999]",
            "[%clk 0:00:01.9999]",
            "[%clk 99999999999999999999:00]",
            "[%eval 0.5] [%clk 0:01:00",
            "[%eval\u{a0}0.5\u{2003}]",
        ] {
            assert_eq!(read(comment.as_bytes()), reference::read(comment.as_bytes()), "{comment}");
        }
    }

    #[test]
    fn odd_values_are_passed_over_and_counted() {
        for comment in [
            "[%eval nan]",
            "[%eval #0]",
            "[%eval +9999]",
            "[%eval inf]",
            "[%eval 1e3]",
            "[%clk -0:01:00]",
            "[%clk 0:61:00]",
            "[%clk 999:00:00]",
            "[%emt soon]",
            "[%eval 0.5",
            "+nan/12",
            "d=3, wv=abc, mt=9",
            "d=3, wv=1, mt=-9",
        ] {
            let found = read(comment.as_bytes());
            assert_eq!(found.malformed, 1, "{comment}: {found:?}");
            assert_eq!(found.eval.is_some() && comment.contains("wv=1"), found.eval.is_some(), "{comment}");
        }
        // A megabyte of text, with a command at the end.
        let mut long = "x".repeat(1 << 20);
        long.push_str("[%eval 0.1]");
        assert_eq!(read(long.as_bytes()).eval.map(|e| e.score), Some(Score::Centipawns(10)));
        // Not UTF-8: read lossily, no panic.
        assert_eq!(read(b"[%eval \xff]").malformed, 1);
    }
}
