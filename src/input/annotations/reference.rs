//! The comment reader as first written, on Unicode text with the standard library's parsers
//! (`str::trim`, `split`, `f64::from_str`): the oracle the byte reader is tested against.

use super::{Annotations, Evaluation, MAX_CENTIS, MAX_PAWNS, Score, View};

const MAX_MATE: i64 = super::MAX_MATE as i64;

pub(super) fn read(comment: &[u8]) -> Annotations {
    let mut found = Annotations::default();
    if !may_annotate(comment) {
        return found;
    }
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
    if commands {
        return found;
    }
    let text = String::from_utf8_lossy(comment);
    let trimmed = text.trim();
    if trimmed.contains("wv=") || trimmed.contains("mt=") {
        read_tcec(trimmed, &mut found);
    } else {
        read_arena(trimmed, &mut found);
    }
    found
}

/// Whether a comment may hold an annotation: the cheap test that lets words pass at memchr's
/// speed (a command's `[%`, TCEC's `wv=` or `mt=`, or a first word that may be Arena's score).
fn may_annotate(comment: &[u8]) -> bool {
    use memchr::memmem::find;
    let first = comment.iter().find(|b| !b.is_ascii_whitespace());
    first.is_some_and(|b| b"+-.0123456789M#".contains(b))
        || find(comment, b"[%").is_some()
        || find(comment, b"wv=").is_some()
        || find(comment, b"mt=").is_some()
}

/// TCEC's `key=value` pairs, separated by commas.
fn read_tcec(text: &str, found: &mut Annotations) {
    for pair in text.split(',') {
        let Some((key, value)) = pair.split_once('=') else { continue };
        let value = value.trim();
        match key.trim() {
            "wv" => match eval_of(value, View::White) {
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
    match eval_of(score, View::Mover) {
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
