//! The comment reader's commands as first written, on Unicode text with the standard library's
//! parsers (`str::trim`, `split`, `f64::from_str`): the oracle the byte reader is tested against.

use super::{Annotations, Evaluation, MAX_CENTIS, MAX_PAWNS, Score, View};

const MAX_MATE: i64 = super::MAX_MATE as i64;

pub(super) fn read(comment: &[u8]) -> Annotations {
    let mut found = Annotations::default();
    let mut commands = false;
    // `[%name value]` commands, anywhere in the comment: found on the bytes, only a command's
    // own text read as UTF-8.
    let mut rest = comment;
    while let Some(at) = memchr::memmem::find(rest, b"[%") {
        commands = true;
        let after = &rest[at + 2..];
        let Some(end) = memchr::memchr(b']', after) else {
            found.malformed += 1;
            break;
        };
        let command = String::from_utf8_lossy(&after[..end]);
        let command = command.trim();
        let (name, value) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
        let value = value.trim();
        match name {
            "eval" => match eval_of(value.split(',').next().unwrap_or_default(), View::White) {
                Some(eval) => found.eval = Some(eval),
                None => found.malformed += 1,
            },
            "clk" => match clock_of(value) {
                Some(centis) => found.clock_centis = Some(centis),
                None => found.malformed += 1,
            },
            "emt" => match clock_of(value) {
                Some(centis) => found.elapsed_centis = Some(centis),
                None => found.malformed += 1,
            },
            // Other commands (`%csl`, `%cal`, ...) say nothing this reads.
            _ => {}
        }
        rest = &after[end + 1..];
    }
    // Engine archives' words: the reader's own (their numbers are read by the same code as a
    // command's, which this reference checks).
    if !commands {
        super::read_words(comment, &mut found);
    }
    found
}

/// A score in pawns (`0.25`, `-1.5`, `+3`) or a mate (`#-3`, `M5`, `-M12`, `#+2`).
fn eval_of(text: &str, view: View) -> Option<Evaluation> {
    let text = text.trim();
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (true, body),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let score = if let Some(mate) = body.strip_prefix('#').or_else(|| body.strip_prefix('M')) {
        let (mate_negative, digits) = match mate.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, mate.strip_prefix('+').unwrap_or(mate)),
        };
        if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.is_empty() {
            return None;
        }
        let moves: i64 = digits.parse().ok().filter(|&n| n > 0 && n <= MAX_MATE)?;
        let sign = if negative != mate_negative { -1 } else { 1 };
        Score::Mate((sign * moves) as i16)
    } else {
        // Digits and one point only: `nan`, `inf`, exponents are no score.
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        let pawns: f64 = body.parse().ok().filter(|p: &f64| p.is_finite() && *p <= MAX_PAWNS)?;
        let centipawns = (pawns * 100.0).round() as i32;
        Score::Centipawns(if negative { -centipawns } else { centipawns })
    };
    Some(Evaluation { score, view })
}

/// A clock `h:mm:ss`, `mm:ss` or either with a fraction of a second, in centiseconds.
fn clock_of(text: &str) -> Option<u32> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    // Two or three parts of digits, without collecting them.
    let (mut numbers, mut count) = ([0u64; 3], 0);
    for part in whole.split(':') {
        if count == 3 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        numbers[count] = part.parse().ok()?;
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
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let centis_of_fraction = match fraction.len() {
        0 => 0,
        1 => fraction.parse::<u64>().ok()? * 10,
        2 => fraction.parse::<u64>().ok()?,
        _ => fraction[..2].parse::<u64>().ok()?,
    };
    let seconds = hours.checked_mul(60)?.checked_add(minutes)?.checked_mul(60)?.checked_add(seconds)?;
    let centis = seconds.checked_mul(100)?.checked_add(centis_of_fraction)?;
    (centis <= MAX_CENTIS).then_some(centis as u32)
}
