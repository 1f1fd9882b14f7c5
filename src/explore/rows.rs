//! Every stored position of a material signature and/or matching a pattern, with its counts,
//! part by part: what a data export reads (the Python package's `Database.positions` and its
//! Arrow tables), where a search ([`PatternQuery`](super::PatternQuery),
//! [`MaterialQuery`](super::MaterialQuery)) keeps only the most frequent.
//!
//! ```no_run
//! use tabiya::explore::PositionRows;
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let rows = PositionRows { pattern: Some("check".parse()?), ..PositionRows::default() };
//! let mut positions = 0;
//! for part in rows.parts(&store)? {
//!     positions += rows.rows_in(&store, &part)?.len();
//! }
//! println!("{positions} positions with the side to move in check");
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use rustc_hash::FxHashMap;
use shakmaty::{Color, Position as _};

use super::{QueryError, Signature};
use crate::{
    Key, Position,
    codec::Material,
    model::{EvalSums, GameId, MoveNote, PlyNotes},
    pattern::{MaterialNeed, Pattern, Scene},
    position::Variant,
    store::{ScanFilter, ScanPart, ScanProgress, ScannedPosition, Store, StoreError},
};

/// Tier games whose move notes a part's listing keeps at most (then forgets them all, and may
/// read a game's again): a material's part holds positions of games from anywhere in the
/// database, a whole-database part those of 2,048 games.
const NOTED_GAMES_KEPT: usize = 4096;

/// A part's rows, and its tier games' move notes as first needed (`None`: not annotated).
#[derive(Default)]
struct Listing {
    rows: Vec<PositionRow>,
    move_notes: FxHashMap<GameId, Option<Vec<MoveNote>>>,
}

/// Which positions to list: all three conditions hold (an absent one holds always).
#[derive(Clone, Debug, Default)]
pub struct PositionRows {
    /// Positions matching this pattern.
    pub pattern: Option<Pattern>,
    /// Positions with this material (only its key ranges are read).
    pub material: Option<Signature>,
    /// Positions with this side to move.
    pub side: Option<Color>,
    /// The variant whose positions are listed.
    pub variant: Variant,
}

/// A stored position and how its games ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionRow {
    /// Its key ([`Key::decode`] gives the position).
    pub key: Key,
    /// Games reaching it.
    pub games: u64,
    /// Of those, won by White.
    pub white: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Black.
    pub black: u64,
    /// Average rating of the rated players of those games.
    pub average_rating: Option<u64>,
    /// The evaluations of the games' moves into it ([`NoteSums::eval`](crate::model::NoteSums)),
    /// each game once; none when no game carried any.
    pub eval: EvalSums,
}

impl PositionRows {
    /// The parts holding every listed position once ([`ScanPart`]): the signature's key
    /// ranges, or the whole database's parts. Read each with [`PositionRows::rows_in`], in any
    /// order or in parallel.
    pub fn parts(&self, store: &Store) -> Result<Vec<ScanPart>, QueryError> {
        let need = self.need();
        let view = store.snapshot();
        super::material::scan_parts(&view, self.variant, self.material.as_ref(), |m| {
            need.as_ref().is_none_or(|n| n.admits(m))
        })
    }

    /// The listed positions of one part, in key order, read from a snapshot of their own.
    pub fn rows_in(&self, store: &Store, part: &ScanPart) -> Result<Vec<PositionRow>, QueryError> {
        let view = store.scan_snapshot();
        let need = self.need();
        // One-game values take their results from their games' facts.
        let facts = view.facts().table()?;
        // A standard signature's parts hold its materials only; Chess960's are its whole space.
        let admits_material = |material: &Material| {
            need.as_ref().is_none_or(|n| n.admits(material)) && self.material.is_none_or(|s| s.admits(material))
        };
        let board = |position: &Position, _| {
            let chess = position.shakmaty();
            admits_material(&Material(chess.board().material()))
                && self.side.is_none_or(|side| side == chess.turn())
                && self.pattern.as_ref().is_none_or(|p| p.matches(&mut Scene::of_position(position)))
        };
        let filter = ScanFilter { material: admits_material, board, game: |_| true };
        // Positions' notes are looked for only where games carry annotations.
        let noted = view.games().any_annotations()?;
        let tests_board = self.side.is_some() || self.pattern.is_some();
        let listing = view.scanner().of_variant(self.variant).run(
            std::slice::from_ref(part),
            &filter,
            &ScanProgress::default(),
            |listing: &mut Listing, mut position: ScannedPosition<'_>| {
                if tests_board && !position.board_tested {
                    let key = position.key;
                    let board = position.board()?;
                    let admitted = self.side.is_none_or(|side| side == board.turn)
                        && self.pattern.as_ref().is_none_or(|p| p.matches(&mut Scene::of_key(&key, board)));
                    if !admitted {
                        return Ok::<_, StoreError>(());
                    }
                }
                let seen = position.results(&facts)?;
                let eval = match (noted, position.tier_hit()) {
                    (false, _) => EvalSums::default(),
                    // A tier position's one game, at the ply the replay found it: its notes
                    // there, its annotations read once for all its positions in the part.
                    (true, Some(hit)) => {
                        let (game, ply) = (hit.game, hit.ply as usize);
                        if !listing.move_notes.contains_key(&game) {
                            if listing.move_notes.len() >= NOTED_GAMES_KEPT {
                                listing.move_notes.clear();
                            }
                            listing.move_notes.insert(game, view.games().move_notes(game)?);
                        }
                        let moves = &listing.move_notes[&game];
                        let mut eval = EvalSums::default();
                        // Its first arrival: the evaluation of the move into it counts.
                        if let Some(before) = moves.as_deref().and_then(|moves| PlyNotes::at(moves, ply).before) {
                            eval.add_eval(before);
                        }
                        eval
                    }
                    (true, None) => {
                        let (key, turn) = (position.key, position.board()?.turn);
                        view.positions().note_sums(&key, turn)?.eval
                    }
                };
                listing.rows.push(PositionRow {
                    key: position.key,
                    games: seen.games,
                    white: seen.white,
                    draws: seen.draws,
                    black: seen.black,
                    average_rating: seen.average_rating,
                    eval,
                });
                Ok(())
            },
            |mut a, b| {
                a.rows.extend(b.rows);
                a
            },
        )?;
        let mut rows = facts.checked(listing.rows)?;
        rows.sort_unstable_by_key(|row| row.key);
        Ok(rows)
    }

    /// The material every listed position has, when the pattern says.
    fn need(&self) -> Option<MaterialNeed> {
        self.pattern.as_ref().map(Pattern::material_need).filter(|need| !need.is_any())
    }
}
