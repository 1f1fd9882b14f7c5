//! PGN bytes into game records and position occurrences as Arrow columns, with no database: the
//! per-game work of an ingest (split, parse, replay, key every position), for analysing games
//! in data tools. (A distributed build ships its batches as bytes: `build.rs`.)

use pyo3::{prelude::*, types::PyList};
use rayon::prelude::*;
use tabiya::{
    indexer::{Prepared, prepare},
    input::GameSplitter,
    model::Fingerprint,
    store::game_values,
};

use crate::{
    call,
    columns::{Column, Columns},
    errors::Error,
};

/// What a chunk of PGN held: its games, their position occurrences, and the games skipped.
#[pyclass(frozen, module = "tabiya._native")]
pub struct ParsedChunk {
    games: Py<Columns>,
    occurrences: Py<Columns>,
    rejected: Py<PyList>,
}

#[pymethods]
impl ParsedChunk {
    /// One row a game, in input order: number (in the chunk, from 1), line, fingerprint (16
    /// bytes: equal for the same game however written), head (its tags and result as the
    /// games family stores them), mainline (as the mainlines family stores it), plies.
    #[getter]
    fn games(&self, py: Python<'_>) -> Py<Columns> {
        self.games.clone_ref(py)
    }

    /// One row a position a game reached (its distinct positions, each at its first ply):
    /// key (21 bytes), game (the row of `games`), ply, move (the two-byte move played from it,
    /// absent at the game's end).
    #[getter]
    fn occurrences(&self, py: Python<'_>) -> Py<Columns> {
        self.occurrences.clone_ref(py)
    }

    /// The games skipped, as (number, line, reason, detail) tuples.
    #[getter]
    fn rejected(&self, py: Python<'_>) -> Py<PyList> {
        self.rejected.clone_ref(py)
    }
}

/// Rows of the occurrences table, before they become columns.
struct Occurrence {
    key: tabiya::Key,
    game: u32,
    ply: u32,
    next: Option<u16>,
}

/// parse_games(chunk) -> ParsedChunk: the games of a chunk of PGN text (whole games; bytes,
/// any encoding), parsed and keyed on every core.
#[pyfunction]
pub fn parse_games(py: Python<'_>, chunk: &[u8]) -> PyResult<ParsedChunk> {
    let (games, occurrences, rejected) = call(py, || {
        let raw: Vec<_> = GameSplitter::new(chunk)
            .collect::<Result<_, _>>()
            .map_err(|err| Error::Other(format!("cannot split the chunk: {err}")))?;
        let prepared: Vec<(u64, u64, Prepared)> =
            raw.into_par_iter().map(|raw| (raw.number, raw.line, prepare(raw, |_| false))).collect();
        let mut games = Vec::new();
        let mut rejected = Vec::new();
        let mut occurrences = Vec::new();
        for (number, line, prepared) in prepared {
            match prepared {
                Prepared::Game(game) => {
                    let row = games.len() as u32;
                    let mut seen = rustc_hash::FxHashSet::default();
                    for (ply, (key, next, _)) in game.positions.iter().enumerate() {
                        if seen.insert(*key) {
                            occurrences.push(Occurrence {
                                key: *key,
                                game: row,
                                ply: ply as u32,
                                next: next.map(|m| m.bits()),
                            });
                        }
                    }
                    games.push((number, line, game));
                }
                Prepared::Rejected { rejection, .. } => rejected.push((
                    rejection.game,
                    rejection.line,
                    rejection.reason.name().to_owned(),
                    rejection.detail,
                )),
                Prepared::Stored => {}
            }
        }
        let (heads, lines): (Vec<Vec<u8>>, Vec<Vec<u8>>) = games.iter().map(|g| game_values(&g.2.record)).unzip();
        let game_columns = Columns::new(
            games.len(),
            vec![
                ("number", Column::U64(games.iter().map(|g| g.0).collect())),
                ("line", Column::U64(games.iter().map(|g| g.1).collect())),
                (
                    "fingerprint",
                    Column::Fixed(Fingerprint::LEN, games.iter().flat_map(|g| g.2.fingerprint.0).collect()),
                ),
                ("head", Column::binary(heads)),
                ("mainline", Column::binary(lines)),
                ("plies", Column::U32(games.iter().map(|g| g.2.record.plies() as u32).collect())),
            ],
        );
        let occurrence_columns = Columns::new(
            occurrences.len(),
            vec![
                (
                    "key",
                    Column::Fixed(tabiya::codec::KEY_LEN, occurrences.iter().flat_map(|o| *o.key.as_bytes()).collect()),
                ),
                ("game", Column::U32(occurrences.iter().map(|o| o.game).collect())),
                ("ply", Column::U32(occurrences.iter().map(|o| o.ply).collect())),
                ("move", Column::OptionalU16(occurrences.iter().map(|o| o.next).collect())),
            ],
        );
        Ok((game_columns, occurrence_columns, rejected))
    })?;
    Ok(ParsedChunk {
        games: Py::new(py, games)?,
        occurrences: Py::new(py, occurrences)?,
        rejected: PyList::new(py, rejected)?.unbind(),
    })
}
