//! Distinct positions with their statistics, streamed out part by part (memory bounded by one
//! scan part whatever the database's size): as EPD for engine tuning (training data), as CSV
//! for tables.
//!
//! EPD lines carry the position's four fields, then `c0` with the counts and `c9` with White's
//! score (1 a win, ½ a draw), as the labelled sets of evaluation tuning do:
//!
//! ```text
//! r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c0 "games 12 white 5 draws 4 black 3 rating 2650"; c9 "0.5833";
//! ```

use std::io::Write;

use crate::{
    Key,
    explore::{PositionRow, PositionRows, QueryError},
    store::Store,
};

/// How exported positions are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PositionFormat {
    /// EPD, one position a line, with `c0` (counts) and `c9` (White's score).
    #[default]
    Epd,
    /// CSV with a header: key, fen, material, games, white, draws, black, average_rating.
    Csv,
}

/// Which positions to export and how.
#[derive(Clone, Debug, Default)]
pub struct PositionExport {
    /// The material, pattern and side to move the positions have.
    pub rows: PositionRows,
    /// Fewest games a position needs to be written.
    pub min_games: u64,
    /// How they are written.
    pub format: PositionFormat,
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Positions written.
    pub positions: u64,
    /// Games over those positions (a game counted once for each of its positions written).
    pub occurrences: u64,
}

impl PositionExport {
    /// Writes every admitted position to `out`, part by part (in key order within a part);
    /// `part_done` is told after each of the `parts` (for progress).
    pub fn write(
        &self,
        store: &Store,
        out: &mut dyn Write,
        mut part_done: impl FnMut(usize, usize),
    ) -> Result<ExportSummary, ExportError> {
        let parts = self.rows.parts(store)?;
        if self.format == PositionFormat::Csv {
            writeln!(out, "key,fen,material,games,white,draws,black,average_rating")?;
        }
        let mut summary = ExportSummary::default();
        for (done, part) in parts.iter().enumerate() {
            for row in self.rows.rows_in(store, part)?.into_iter().filter(|row| row.games >= self.min_games) {
                self.write_row(out, &row)?;
                summary.positions += 1;
                summary.occurrences += row.games;
            }
            part_done(done + 1, parts.len());
        }
        out.flush()?;
        Ok(summary)
    }

    fn write_row(&self, out: &mut dyn Write, row: &PositionRow) -> Result<(), ExportError> {
        let position = row.key.decode().map_err(|err| ExportError::Key(row.key, err.to_string()))?;
        let PositionRow { games, white, draws, black, .. } = *row;
        match self.format {
            PositionFormat::Epd => {
                let rating = row.average_rating.map(|r| format!(" rating {r}")).unwrap_or_default();
                let score = (2 * white + draws) as f64 / (2 * games.max(1)) as f64;
                writeln!(
                    out,
                    "{position} c0 \"games {games} white {white} draws {draws} black {black}{rating}\"; c9 \"{score:.4}\";"
                )?;
            }
            PositionFormat::Csv => {
                let material = crate::Material(shakmaty::Position::board(position.chess()).material());
                let rating = row.average_rating.map(|r| r.to_string()).unwrap_or_default();
                writeln!(out, "{},{position},{material},{games},{white},{draws},{black},{rating}", row.key)?;
            }
        }
        Ok(())
    }
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The query or the database failed.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A stored key does not decode (a damaged database).
    #[error("position key {0} does not decode: {1}")]
    Key(Key, String),
    /// Writing the output failed.
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
}
