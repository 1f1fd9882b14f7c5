//! The bytes of what annotated games say of a position (docs/FORMAT.md, "Position notes"): its
//! notes' sums ([`NoteSums`], under [`NOTE_SUMS`](super::keys::NOTE_SUMS) + key) and each
//! game's entry ([`NoteEntry`], under [`NOTE_GAMES`](super::keys::NOTE_GAMES) + key), in the
//! positions family, written with the position by the commit that changes them.
//!
//! - **Notes** of one arrival ([`PlyNotes`]), also in a staged run's records: a flags byte
//!   (bit 0 before, bit 1 after, bit 2 time, bit 3 first arrival), then the evaluations
//!   present as zigzag varints of [`Eval::number`] and the time as a varint of centiseconds.
//! - **Entries**: a varint count, then per entry in (game, move) order the game id less the
//!   previous entry's (the first: the id) as a varint, the move's 2 bytes (0: none), its notes.
//! - **Sums**: the position's [`EvalSums`], a varint count of moves, then per move ascending its
//!   2 bytes and [`MoveSums`]. An [`EvalSums`] is the varints `games centipawn_games
//!   zigzag(centipawns) white_mates black_mates`; a [`MoveSums`] its [`EvalSums`], then
//!   `losses loss_centipawns blunders timed time_centis`.

use crate::{
    codec::CompactMove,
    model::{Eval, EvalSums, GameId, MAX_CENTIS, MoveSums, NoteEntry, NoteSums, PlyNotes},
    varint::{get_varint, put_varint, take_byte, unzigzag, zigzag},
};

const BEFORE: u8 = 1;
const AFTER: u8 = 2;
const SPENT: u8 = 4;
const FIRST: u8 = 8;

/// A move's 2 bytes (0: none), with its bits.
fn get_move(input: &mut &[u8]) -> Option<(u16, Option<CompactMove>)> {
    let (bits, rest) = input.split_first_chunk::<2>()?;
    *input = rest;
    match u16::from_le_bytes(*bits) {
        0 => Some((0, None)),
        bits => Some((bits, Some(CompactMove::from_bits(bits)?))),
    }
}

fn put_move(out: &mut Vec<u8>, next: Option<CompactMove>) {
    out.extend_from_slice(&next.map_or(0, CompactMove::bits).to_le_bytes());
}

/// Appends the bytes of `notes`.
pub fn put_notes(out: &mut Vec<u8>, notes: &PlyNotes) {
    let flag = |present: bool, bit: u8| if present { bit } else { 0 };
    out.push(
        flag(notes.before.is_some(), BEFORE)
            | flag(notes.after.is_some(), AFTER)
            | flag(notes.spent_centis.is_some(), SPENT)
            | flag(notes.first, FIRST),
    );
    for eval in [notes.before, notes.after].into_iter().flatten() {
        put_varint(out, zigzag(eval.number()));
    }
    if let Some(spent) = notes.spent_centis {
        put_varint(out, u64::from(spent));
    }
}

/// Reads notes [`put_notes`] wrote; `None` unless they are valid.
pub fn get_notes(input: &mut &[u8]) -> Option<PlyNotes> {
    let flags = take_byte(input)?;
    if flags & !(BEFORE | AFTER | SPENT | FIRST) != 0 {
        return None;
    }
    let mut eval = |bit: u8| -> Option<Option<Eval>> {
        match flags & bit {
            0 => Some(None),
            _ => Eval::of_number(unzigzag(get_varint(input)?)).map(Some),
        }
    };
    let (before, after) = (eval(BEFORE)?, eval(AFTER)?);
    let spent_centis = match flags & SPENT {
        0 => None,
        _ => Some(u32::try_from(get_varint(input)?).ok().filter(|&centis| centis <= MAX_CENTIS)?),
    };
    Some(PlyNotes { before, after, spent_centis, first: flags & FIRST != 0 })
}

/// The bytes of a position's entries, in (game, move) order.
pub fn encode_entries(entries: &[NoteEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 8 + 4);
    put_varint(&mut out, entries.len() as u64);
    let mut previous = 0;
    for entry in entries {
        put_varint(&mut out, entry.game.0 - previous);
        previous = entry.game.0;
        put_move(&mut out, entry.next);
        put_notes(&mut out, &entry.notes);
    }
    out
}

/// A position's entries; `None` unless the bytes are [`encode_entries`]' of entries in
/// strictly increasing (game, move) order.
pub fn decode_entries(bytes: &[u8]) -> Option<Vec<NoteEntry>> {
    let mut entries = Vec::new();
    each_entry(bytes, |entry| entries.push(*entry))?;
    Some(entries)
}

/// Hands each of a position's entries to `each` as it is read (a popular position's are many:
/// no list is built); `None` (after handing over those before) unless the bytes are
/// [`encode_entries`]' of entries in strictly increasing (game, move) order.
pub fn each_entry(bytes: &[u8], mut each: impl FnMut(&NoteEntry)) -> Option<()> {
    let input = &mut &bytes[..];
    let count = get_varint(input)?;
    // Every entry takes at least four bytes: no count may ask for more.
    if count > (input.len() / 4) as u64 {
        return None;
    }
    let (mut game, mut last) = (0u64, None);
    for _ in 0..count {
        game = game.checked_add(get_varint(input)?)?;
        let (bits, next) = get_move(input)?;
        let notes = get_notes(input)?;
        if game == 0 || last.is_some_and(|last| last >= (game, bits)) {
            return None;
        }
        last = Some((game, bits));
        each(&NoteEntry { game: GameId(game), next, notes });
    }
    input.is_empty().then_some(())
}

fn put_eval_sums(out: &mut Vec<u8>, sums: &EvalSums) {
    put_varint(out, sums.games);
    put_varint(out, sums.centipawn_games);
    put_varint(out, zigzag(sums.centipawns));
    put_varint(out, sums.white_mates);
    put_varint(out, sums.black_mates);
}

fn get_eval_sums(input: &mut &[u8]) -> Option<EvalSums> {
    let sums = EvalSums {
        games: get_varint(input)?,
        centipawn_games: get_varint(input)?,
        centipawns: unzigzag(get_varint(input)?),
        white_mates: get_varint(input)?,
        black_mates: get_varint(input)?,
    };
    let counted = sums.centipawn_games.checked_add(sums.white_mates)?.checked_add(sums.black_mates)?;
    (counted == sums.games).then_some(sums)
}

/// The bytes of a position's sums.
pub fn encode_sums(sums: &NoteSums) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + sums.moves.len() * 16);
    put_eval_sums(&mut out, &sums.eval);
    put_varint(&mut out, sums.moves.len() as u64);
    for (next, played) in &sums.moves {
        put_move(&mut out, *next);
        put_eval_sums(&mut out, &played.eval);
        for n in [played.losses, played.loss_centipawns, played.blunders, played.timed, played.time_centis] {
            put_varint(&mut out, n);
        }
    }
    out
}

/// A position's sums; `None` unless the bytes are [`encode_sums`]' with moves ascending.
pub fn decode_sums(bytes: &[u8]) -> Option<NoteSums> {
    let input = &mut &bytes[..];
    let eval = get_eval_sums(input)?;
    let count = get_varint(input)?;
    if count > input.len() as u64 {
        return None;
    }
    let mut moves: Vec<(Option<CompactMove>, MoveSums)> = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let (bits, next) = get_move(input)?;
        if moves.last().is_some_and(|(last, _)| last.map_or(0, CompactMove::bits) >= bits) {
            return None;
        }
        let eval = get_eval_sums(input)?;
        let mut number = || get_varint(input);
        let played = MoveSums {
            eval,
            losses: number()?,
            loss_centipawns: number()?,
            blunders: number()?,
            timed: number()?,
            time_centis: number()?,
        };
        if played.blunders > played.losses {
            return None;
        }
        moves.push((next, played));
    }
    input.is_empty().then_some(NoteSums { eval, moves })
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;

    fn entries() -> Vec<NoteEntry> {
        let e4 = CompactMove::from_bits(12 | 28 << 6);
        let notes = |before, after, spent, first| PlyNotes { before, after, spent_centis: spent, first };
        vec![
            NoteEntry { game: GameId(3), next: None, notes: notes(Some(Eval::Mate(-2)), None, None, true) },
            NoteEntry { game: GameId(3), next: e4, notes: notes(None, Some(Eval::Centipawns(-7)), Some(0), false) },
            NoteEntry { game: GameId(900), next: e4, notes: notes(None, None, Some(MAX_CENTIS), true) },
        ]
    }

    #[test]
    fn entries_and_sums_read_back() {
        let entries = entries();
        let bytes = encode_entries(&entries);
        assert_eq!(decode_entries(&bytes), Some(entries.clone()));
        let sums = NoteSums::of_entries(entries.iter(), Color::Black);
        assert_eq!(decode_sums(&encode_sums(&sums)), Some(sums));
    }

    #[test]
    fn damaged_bytes_are_refused_never_a_panic() {
        let bytes = encode_entries(&entries());
        for cut in 0..bytes.len() {
            assert_eq!(decode_entries(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut unordered = entries();
        unordered.swap(0, 1);
        assert_eq!(decode_entries(&encode_entries(&unordered)), None);
        let sums = encode_sums(&NoteSums::of_entries(entries().iter(), Color::White));
        for cut in 0..sums.len() {
            assert_eq!(decode_sums(&sums[..cut]), None, "cut at {cut}");
        }
        for byte in 0..=255u8 {
            for at in 0..bytes.len() {
                let mut damaged = bytes.clone();
                damaged[at] = byte;
                let _ = decode_entries(&damaged);
            }
        }
    }
}
