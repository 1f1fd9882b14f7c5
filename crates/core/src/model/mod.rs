//! The domain records: what a game is ([`GameRecord`], [`Tags`], [`GameResult`], [`GameId`],
//! [`Fingerprint`]), what its moves carried besides ([`GameAnnotations`]), what it is filtered by ([`GameFacts`]: [`Month`], [`Speed`],
//! [`RatingBand`]), and what a position accumulates ([`PositionStats`] of [`Tally`]s,
//! [`GameRef`]s and [`Slice`]s), with their merge semantics.
//!
//! The PGN reader produces these records, the indexer sums them, the store persists them and
//! the query side reads them: the model depends on none of those.

mod annotations;
mod facets;
mod game;
mod headers;
mod leading;
mod move_notes;
pub mod names;
mod note_slices;
mod position_stats;
mod slice_summary;
mod slice_tree;
mod tally;
pub mod twins;

pub use annotations::{Eval, GameAnnotations, MAX_CENTIS, MoveAnnotation, TimeControl};
pub use facets::{GameFacts, Month, RatingBand, Speed};
pub use game::{
    Fingerprint, GameId, GameRecord, GameResult, Mainline, Recency, Start, Tags, player_name, replay, replay_with_moves,
};
pub use headers::{Day, Eco, GameHeaders, LabelHash, LabelKind, MAX_PLIES};
pub use move_notes::{EvalSums, LOSS_CAP, MISTAKE_CENTIPAWNS, MoveNote, MoveSums, NoteEntry, NoteSums, PlyNotes, loss};
pub use names::NameQuery;
pub use note_slices::NoteSlices;
pub use position_stats::{PositionStats, RECENT_GAMES, SLICE_GAMES, Slice, SliceKey, TOP_GAMES};
pub use slice_summary::SliceSummary;
pub use slice_tree::{Coverage, SliceSet};
pub use tally::{GameRef, Tally};
