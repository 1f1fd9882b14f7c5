//! The cursors a `tabiya.Database` hands out: a game list resolved once and read page by page
//! ([`GameCursor`]), and a position listing read a few parts at a time ([`PositionScan`]).

use std::sync::Arc;

use pyo3::{
    prelude::*,
    types::{PyBytes, PyList},
};
use rayon::prelude::*;
use tabiya::{
    explore::{GamePage, PositionRow, PositionRows},
    model::GameId,
    pattern::Sequence,
    render::pgn,
    store::{ScanPart, Store},
};

use crate::{
    call,
    columns::{Column, Columns},
    errors::Error,
    values::to_python,
};

/// The games of a query in its order, resolved once: pages are read on demand.
#[pyclass(frozen, module = "tabiya._native")]
pub struct GameCursor {
    pub(crate) store: Arc<Store>,
    pub(crate) ids: Arc<[GameId]>,
    /// A sequence's steps, each page's games marked with their plies.
    pub(crate) steps: Option<Sequence>,
}

impl GameCursor {
    fn page(&self, offset: usize, limit: usize) -> Result<GamePage, Error> {
        let ids = self.ids.get(offset.min(self.ids.len())..).unwrap_or_default();
        let view = self.store.snapshot();
        let mut page = GamePage::of(&view, self.ids.len() as u64, &ids[..limit.min(ids.len())])?;
        if let Some(sequence) = &self.steps {
            page.mark_steps(&view, sequence)?;
        }
        Ok(page)
    }
}

#[pymethods]
impl GameCursor {
    /// Games matching.
    fn __len__(&self) -> usize {
        self.ids.len()
    }

    /// The games from `offset`, at most `limit`, as `tabiya games --json` prints a page.
    fn page_json(&self, py: Python<'_>, offset: usize, limit: usize) -> PyResult<Py<PyAny>> {
        let page = call(py, || self.page(offset, limit))?;
        to_python(py, &page)
    }

    /// The page as PGN (headers and mainline), as `tabiya games --pgn` prints it.
    fn page_pgn(&self, py: Python<'_>, offset: usize, limit: usize) -> PyResult<String> {
        call(py, || {
            let page = self.page(offset, limit)?;
            let annotations = page.annotations(&self.store.snapshot())?;
            pgn::page(&page, &annotations)
                .map_err(|err| Error::Corrupt(format!("{}: {err}", self.store.path().display())))
        })
    }

    /// The page as columns (id, white, black, white_elo, black_elo, date, event, site, round,
    /// result).
    fn page_columns(&self, py: Python<'_>, offset: usize, limit: usize) -> PyResult<Columns> {
        call(py, || {
            let games = self.page(offset, limit)?.games;
            let text = |field: fn(&tabiya::explore::GameHeader) -> &str| Column::text(games.iter().map(field));
            Ok(Columns::new(
                games.len(),
                vec![
                    ("id", Column::U64(games.iter().map(|g| g.id.0).collect())),
                    ("white", text(|g| &g.white)),
                    ("black", text(|g| &g.black)),
                    ("white_elo", Column::OptionalU16(games.iter().map(|g| g.white_elo).collect())),
                    ("black_elo", Column::OptionalU16(games.iter().map(|g| g.black_elo).collect())),
                    ("date", text(|g| &g.date)),
                    ("event", text(|g| &g.event)),
                    ("site", text(|g| &g.site)),
                    ("round", text(|g| &g.round)),
                    ("result", text(|g| g.result)),
                ],
            ))
        })
    }
}

/// A position listing's parts ([`PositionRows`]): each read as one batch of columns.
#[pyclass(frozen, module = "tabiya._native")]
pub struct PositionScan {
    pub(crate) store: Arc<Store>,
    pub(crate) rows: PositionRows,
    pub(crate) parts: Vec<ScanPart>,
}

#[pymethods]
impl PositionScan {
    /// Parts to read.
    fn __len__(&self) -> usize {
        self.parts.len()
    }

    /// Parts to read at once: 8 (a part is a table file's positions, up to ~700,000, some 100
    /// MiB as columns, 80 as rows), fewer in proportion under a memory budget below the
    /// defaults' 1 GiB, 1 at the least.
    #[getter]
    fn batch(&self) -> usize {
        ((8.0 * tabiya::store::memory_share()) as usize).max(1)
    }

    /// Parts `first..first + count` (fewer at the end), read on every core, in order, as rows
    /// to be made Python tuples a page at a time (`PositionBatch.rows`): what iterating a
    /// listing reads, holding no FEN and no Python object for the rows not yet asked for.
    fn read_rows(&self, py: Python<'_>, first: usize, count: usize) -> PyResult<PositionBatch> {
        call(py, || {
            let parts = self.parts_rows(first, count)?;
            let starts = parts.iter().scan(0, |at, rows| Some(std::mem::replace(at, *at + rows.len()))).collect();
            Ok(PositionBatch { store: self.store.clone(), parts, starts })
        })
    }

    /// Parts `first..first + count` (fewer at the end), read on every core, in order, as one
    /// batch: fen (unless `fen` is false: decoding keys is most of a listing's time), key,
    /// games, white, draws, black, eval_games, eval_cp, white_mates, black_mates; each part's
    /// positions in key order.
    #[pyo3(signature = (first, count, fen = true))]
    fn read(&self, py: Python<'_>, first: usize, count: usize, fen: bool) -> PyResult<Columns> {
        call(py, || {
            let rows: Vec<PositionRow> = self.parts_rows(first, count)?.into_iter().flatten().collect();
            let fens = match fen {
                true => fens_of(&self.store, &rows)?,
                false => Vec::new(),
            };
            let keys: Vec<u8> = rows.iter().flat_map(|row| *row.key.as_bytes()).collect();
            let counts = |count: fn(&PositionRow) -> u64| Column::U64(rows.iter().map(count).collect());
            let mut columns = vec![
                ("fen", Column::text(fens)),
                ("key", Column::Fixed(tabiya::codec::KEY_LEN, keys)),
                ("games", counts(|r| r.games)),
                ("white", counts(|r| r.white)),
                ("draws", counts(|r| r.draws)),
                ("black", counts(|r| r.black)),
                // What annotated games said of it, as `tabiya export positions` writes them.
                ("eval_games", counts(|r| r.eval.games)),
                ("eval_cp", Column::OptionalF64(rows.iter().map(|r| r.eval.mean_centipawns()).collect())),
                ("white_mates", counts(|r| r.eval.white_mates)),
                ("black_mates", counts(|r| r.eval.black_mates)),
            ];
            if !fen {
                columns.remove(0);
            }
            Ok(Columns::new(rows.len(), columns))
        })
    }
}

impl PositionScan {
    /// The rows of parts `first..first + count` (fewer at the end), read on every core, a list
    /// a part.
    fn parts_rows(&self, first: usize, count: usize) -> Result<Vec<Vec<PositionRow>>, Error> {
        let end = first.saturating_add(count).min(self.parts.len());
        let parts = self.parts.get(first..end).unwrap_or_default();
        Ok(parts.par_iter().map(|part| self.rows.rows_in(&self.store, part)).collect::<Result<_, _>>()?)
    }
}

/// The FENs of `rows`' positions, decoded on every core.
fn fens_of(store: &Store, rows: &[impl std::borrow::Borrow<PositionRow> + Sync]) -> Result<Vec<String>, Error> {
    let view = store.snapshot();
    rows.par_iter().map(|row| Ok(view.positions().position(&row.borrow().key)?.to_string())).collect()
}

/// Listed positions of a few parts ([`PositionScan::read_rows`]), made Python rows on demand.
#[pyclass(frozen, module = "tabiya._native")]
pub struct PositionBatch {
    store: Arc<Store>,
    /// Each part's rows, in key order.
    parts: Vec<Vec<PositionRow>>,
    /// Where each part starts among the batch's rows.
    starts: Vec<usize>,
}

#[pymethods]
impl PositionBatch {
    /// Rows in the batch.
    fn __len__(&self) -> usize {
        self.starts.last().zip(self.parts.last()).map_or(0, |(start, rows)| start + rows.len())
    }

    /// Rows `start..stop` (bounds past the end are clipped) as `(fen, key, games, white, draws,
    /// black)` tuples, their FENs decoded on every core.
    fn rows<'py>(&self, py: Python<'py>, start: usize, stop: usize) -> PyResult<Bound<'py, PyList>> {
        let stop = stop.min(self.__len__());
        let rows: Vec<&PositionRow> = (start..stop)
            .map(|at| {
                let part = self.starts.partition_point(|&first| first <= at) - 1;
                &self.parts[part][at - self.starts[part]]
            })
            .collect();
        let fens = call(py, || fens_of(&self.store, &rows))?;
        let tuples = rows.iter().zip(fens).map(|(row, fen)| {
            let key = PyBytes::new(py, row.key.as_bytes());
            (fen, key, row.games, row.white, row.draws, row.black).into_pyobject(py)
        });
        PyList::new(py, tuples.collect::<PyResult<Vec<_>>>()?)
    }
}
