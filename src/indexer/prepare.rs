//! The parallel part of indexing a game: parse, replay, canonicalise and key every position.

use rayon::prelude::*;

use super::copies::Copies;
use crate::{
    codec::{CompactMove, Key, KeyEncoder},
    input::{RawGame, RejectReason, Rejection, parse_game},
    model::{Fingerprint, GameFacts, GameId, GameRecord, MoveNote, TimeControl},
    store::{AnnotationCounts, tier::PawnFiles},
};

/// A game ready to be written, or why it is not.
pub enum Prepared {
    /// A new game, keyed.
    Game(Box<PreparedGame>),
    /// Its fingerprint is stored already: a duplicate, found before any keying work.
    Stored,
    /// Not a standard game that can be indexed.
    Rejected {
        /// Where and why.
        rejection: Rejection,
        /// Its text as in the file.
        raw: Vec<u8>,
    },
}

/// Everything the writer needs of an accepted game.
pub struct PreparedGame {
    /// What the games and mainlines families store.
    pub record: GameRecord,
    /// What the annotations family stores ([`GameAnnotations::encode`](crate::model::GameAnnotations::encode)), when the
    /// game's comments carried any.
    pub annotations: Option<Vec<u8>>,
    /// Its annotations, counted (a run's record sums the indexed games').
    pub annotation_counts: AnnotationCounts,
    /// Per move, the evaluation after it and the time it took, as its positions' notes
    /// ([`PlyNotes::at`](crate::model::PlyNotes::at)) take them; empty without annotations.
    pub move_notes: Vec<MoveNote>,
    /// What makes it count once.
    pub fingerprint: Fingerprint,
    /// Derived from the record once, for every position the game reaches; the id is set when
    /// the writer assigns it.
    pub facts: GameFacts,
    /// Every mainline position in order (index: the ply, 0 the start) with the move played
    /// from it (the final position has none) and its pawn files. A repeated position is
    /// deduplicated with the batch's sort ([`SortedOccurrences`](super::SortedOccurrences)).
    pub positions: Vec<(Key, Option<CompactMove>, PawnFiles)>,
}

/// Prepares a chunk of raw games on every core, in order ([`prepare`]). With `copies`, a
/// verbatim copy of a game accepted in an earlier chunk is a duplicate without being parsed,
/// and the chunk's accepted texts are remembered for the chunks after it.
pub(super) fn prepare_chunk(
    games: Vec<RawGame>,
    copies: Option<&mut Copies>,
    stored: impl Fn(&Fingerprint) -> bool + Sync,
) -> Vec<Prepared> {
    let known = copies.as_deref();
    let games: Vec<(u128, Prepared)> = games
        .into_par_iter()
        .map(|raw| {
            let text = known.map_or(0, |known| known.hash(&raw.text));
            match known.is_some_and(|known| known.contains(text)) {
                true => (text, Prepared::Stored),
                false => (text, prepare(raw, &stored)),
            }
        })
        .collect();
    if let Some(copies) = copies {
        for (text, game) in &games {
            if !matches!(game, Prepared::Rejected { .. }) {
                copies.insert(*text);
            }
        }
    }
    games.into_iter().map(|(_, game)| game).collect()
}

/// Parses, replays and keys one game; `stored` says whether a fingerprint is in the database
/// already (re-ingested files then cost only a parse per game).
pub fn prepare(raw: RawGame, stored: impl Fn(&Fingerprint) -> bool) -> Prepared {
    let game = match parse_game(&raw) {
        Ok(game) => game,
        Err(rejection) => return Prepared::Rejected { rejection, raw: raw.text },
    };
    let fingerprint = Fingerprint::of(&game.start, &game.record);
    if stored(&fingerprint) {
        return Prepared::Stored;
    }
    let mut positions = Vec::with_capacity(game.moves.len() + 1);
    let mut unencodable = None;
    KeyEncoder::with_thread_encoder(|encoder| {
        game.visit_mainline(|position, next| {
            if unencodable.is_some() {
                return;
            }
            match encoder.encode(position) {
                Ok(key) => {
                    let next = next.map(|m| CompactMove::played(position.shakmaty(), m));
                    positions.push((key, next, PawnFiles::of(position.board())))
                }
                Err(err) => unencodable = Some(format!("position {position} after {} plies: {err}", positions.len())),
            }
        })
    });
    if let Some(detail) = unencodable {
        let rejection = Rejection { game: raw.number, line: raw.line, reason: RejectReason::Unencodable, detail };
        return Prepared::Rejected { rejection, raw: raw.text };
    }
    let record = game.record;
    let annotation_counts = AnnotationCounts::of(game.annotations.as_ref(), game.malformed_annotations);
    let control = TimeControl::parse(&record.tags.time_control);
    let move_notes = game.annotations.as_ref().map(|notes| notes.move_notes(control.as_ref())).unwrap_or_default();
    Prepared::Game(Box::new(PreparedGame {
        annotations: game.annotations.as_ref().and_then(|annotations| annotations.encode()),
        annotation_counts,
        move_notes,
        fingerprint,
        facts: GameFacts::of(GameId(0), record.result, &record.tags),
        record,
        positions,
    }))
}
