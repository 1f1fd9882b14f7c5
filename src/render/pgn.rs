//! Games as PGN text: one stored game ([`game`]) or a page of them ([`page`]).

use shakmaty::Position as _;

use crate::{
    explore::GamePage,
    model::{Eval, GameAnnotations, GameId, GameRecord, MoveAnnotation, replay_with_moves},
};

/// A stored game whose moves do not replay (corrupt data).
#[derive(Debug, thiserror::Error)]
#[error("game {0} does not replay")]
pub struct Unreplayable(pub GameId);

/// A stored game as PGN: its tags and mainline (SAN, wrapped at 80 columns), each move followed
/// by a comment of its annotations in lichess's shape (`{ [%eval 0.25] [%clk 0:03:12] }`; an
/// `[%emt]` for a stated move time). `None` if a stored move does not replay.
pub fn game(record: &GameRecord, annotations: Option<&GameAnnotations>) -> Option<String> {
    use std::fmt::Write as _;
    let tags = &record.tags;
    let mut out = String::new();
    let quote = |value: &str| value.replace('\\', "\\\\").replace('"', "\\\"");
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", quote(value));
    };
    let or_unknown = |value: &str| if value.is_empty() { "?".to_owned() } else { value.to_owned() };
    tag("Event", &or_unknown(&tags.event));
    tag("Site", &or_unknown(&tags.site));
    tag("Date", &if tags.date.is_empty() { "????.??.??".to_owned() } else { tags.date.clone() });
    tag("Round", &or_unknown(&tags.round));
    tag("White", &or_unknown(&tags.white));
    tag("Black", &or_unknown(&tags.black));
    tag("Result", record.result.tag());
    for (name, value) in [("WhiteElo", tags.white_elo), ("BlackElo", tags.black_elo)] {
        if let Some(value) = value {
            tag(name, &value.to_string());
        }
    }
    for (name, value) in [("ECO", &tags.eco), ("TimeControl", &tags.time_control)] {
        if !value.is_empty() {
            tag(name, value);
        }
    }
    if record.variant() != crate::position::Variant::Standard {
        tag("Variant", record.variant().pgn_name());
    }
    if let Some(fen) = record.setup_fen() {
        tag("SetUp", "1");
        tag("FEN", fen);
    }
    out.push('\n');
    let (positions, moves) = replay_with_moves(record)?;
    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    for (index, (position, m)) in positions.iter().zip(moves).enumerate() {
        // Stored moves replay as stored: a damaged mainline's illegal move is refused here,
        // not written out.
        if !position.is_legal(m) {
            return None;
        }
        let chess = position.shakmaty();
        let number = chess.fullmoves().get();
        let san = position.san_plus(m);
        // A move number stays on the line of its move; Black's is repeated after a comment.
        let after_comment = index > 0 && tokens.last().is_some_and(|token: &String| token.ends_with('}'));
        tokens.push(match (chess.turn().is_white(), index == 0 || after_comment) {
            (true, _) => format!("{number}. {san}"),
            (false, true) => format!("{number}... {san}"),
            (false, false) => san.to_string(),
        });
        if let Some(note) = annotations.and_then(|a| a.moves.get(index)).filter(|n| **n != MoveAnnotation::default()) {
            tokens.push(comment(note));
        }
    }
    tokens.push(record.result.tag().to_owned());
    let mut width = 0;
    for token in tokens {
        if width > 0 && width + 1 + token.len() > 80 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        width += token.len();
        out.push_str(&token);
    }
    out.push('\n');
    Some(out)
}

/// A move's annotations as a PGN comment, as lichess writes them.
fn comment(note: &MoveAnnotation) -> String {
    let mut parts = Vec::with_capacity(3);
    if let Some(eval) = note.eval {
        parts.push(match eval {
            Eval::Centipawns(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                format!("[%eval {sign}{}.{:02}]", cp.unsigned_abs() / 100, cp.unsigned_abs() % 100)
            }
            Eval::Mate(moves) => format!("[%eval #{moves}]"),
        });
    }
    if let Some(centis) = note.clock_centis {
        parts.push(format!("[%clk {}]", clock(centis)));
    }
    if let Some(centis) = note.elapsed_centis {
        parts.push(format!("[%emt {}]", clock(centis)));
    }
    format!("{{ {} }}", parts.join(" "))
}

/// `h:mm:ss`, with the hundredths when there are any.
fn clock(centis: u32) -> String {
    let seconds = centis / 100;
    let whole = format!("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
    match centis % 100 {
        0 => whole,
        hundredths => format!("{whole}.{hundredths:02}"),
    }
}

/// A page of games as PGN, each game followed by a blank line, with its annotations
/// ([`GamePage::annotations`]).
pub fn page(page: &GamePage, annotations: &[Option<GameAnnotations>]) -> Result<String, Unreplayable> {
    let mut out = String::new();
    for (index, (header, record)) in page.games.iter().zip(&page.records).enumerate() {
        let annotations = annotations.get(index).and_then(Option::as_ref);
        out.push_str(&game(record, annotations).ok_or(Unreplayable(header.id))?);
        out.push('\n');
    }
    Ok(out)
}
