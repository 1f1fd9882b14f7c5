//! Distinct positions with their statistics, streamed out part by part (memory bounded by one
//! scan part, and a Parquet row group, whatever the database's size): as EPD for engine tuning
//! (training data), as CSV or Parquet (Apache Arrow's `parquet` crate) for tables.
//!
//! EPD lines carry the position's four fields, then `c0` with the counts and `c9` with White's
//! score over the games with a result (1 a win, ½ a draw; no `c9` when none has one), as the
//! labelled sets of evaluation tuning do:
//!
//! ```text
//! r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c0 "games 12 white 5 draws 4 black 3 rating 2650"; c9 "0.5833";
//! ```

use std::io::Write;

use crate::{
    Key,
    explore::{PositionRow, PositionRows, QueryError},
    store::{ScanPart, Store},
};

/// How exported positions are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PositionFormat {
    /// EPD, one position a line, with `c0` (counts) and `c9` (White's score).
    #[default]
    Epd,
    /// CSV with a header: key, fen, material, games, white, draws, black, average_rating.
    Csv,
    /// Parquet, the CSV's columns typed: strings, unsigned 64-bit counts, a nullable rating;
    /// zstd-compressed row groups of [`PARQUET_ROWS`] rows.
    Parquet,
}

/// Rows of a Parquet row group: what an export holds in memory at most (some 10 MB).
pub const PARQUET_ROWS: usize = 1 << 17;

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
    pub fn write<W: Write + Send>(
        &self,
        store: &Store,
        out: W,
        mut part_done: impl FnMut(usize, usize),
    ) -> Result<ExportSummary, ExportError> {
        let mut parts = self.rows.parts(store)?;
        if self.min_games > 1 {
            // The single-game tier holds only positions of one game: none to write.
            parts.retain(|part| matches!(part, ScanPart::Family(_)));
        }
        let mut sink = match self.format {
            PositionFormat::Parquet => Sink::Parquet(Box::new(table::Table::new(out)?)),
            PositionFormat::Csv => {
                let mut out = out;
                writeln!(out, "key,fen,material,games,white,draws,black,average_rating")?;
                Sink::Text(out)
            }
            PositionFormat::Epd => Sink::Text(out),
        };
        let mut summary = ExportSummary::default();
        for (done, part) in parts.iter().enumerate() {
            for row in self.rows.rows_in(store, part)?.into_iter().filter(|row| row.games >= self.min_games) {
                let position = row.key.decode().map_err(|err| ExportError::Key(row.key, err.to_string()))?;
                match &mut sink {
                    Sink::Text(out) => self.write_line(out, &row, &position)?,
                    Sink::Parquet(table) => table.push(&row, &position)?,
                }
                summary.positions += 1;
                summary.occurrences += row.games;
            }
            part_done(done + 1, parts.len());
        }
        match sink {
            Sink::Text(mut out) => out.flush()?,
            Sink::Parquet(table) => table.finish()?,
        }
        Ok(summary)
    }

    fn write_line(
        &self,
        out: &mut impl Write,
        row: &PositionRow,
        position: &crate::Position,
    ) -> Result<(), ExportError> {
        let PositionRow { games, white, draws, black, .. } = *row;
        match self.format {
            PositionFormat::Epd => {
                let rating = row.average_rating.map(|r| format!(" rating {r}")).unwrap_or_default();
                // White's score over the games with a result; none without one.
                let decided = white + draws + black;
                let score = match decided {
                    0 => String::new(),
                    _ => format!(" c9 \"{:.4}\";", (2 * white + draws) as f64 / (2 * decided) as f64),
                };
                writeln!(
                    out,
                    "{position} c0 \"games {games} white {white} draws {draws} black {black}{rating}\";{score}"
                )?;
            }
            PositionFormat::Csv | PositionFormat::Parquet => {
                let rating = row.average_rating.map(|r| r.to_string()).unwrap_or_default();
                let material = material_of(position);
                writeln!(out, "{},{position},{material},{games},{white},{draws},{black},{rating}", row.key)?;
            }
        }
        Ok(())
    }
}

/// Where rows go: text lines, or a Parquet table's columns.
enum Sink<W: Write + Send> {
    Text(W),
    Parquet(Box<table::Table<W>>),
}

/// A position's material signature (`KRPvKR`).
fn material_of(position: &crate::Position) -> crate::Material {
    crate::Material(position.board().material())
}

mod table {
    //! The Parquet table of an export: columns filled row by row, written a row group at a time.

    use std::{io::Write, sync::Arc};

    use ::parquet::{arrow::ArrowWriter, basic::Compression, file::properties::WriterProperties};
    use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt16Array, UInt64Array};
    use arrow_schema::{DataType, Field, Schema};

    use super::{ExportError, PARQUET_ROWS, PositionRow, material_of};

    /// The columns of the rows not yet written.
    #[derive(Default)]
    struct Columns {
        key: Vec<String>,
        fen: Vec<String>,
        material: Vec<String>,
        counts: [Vec<u64>; 4],
        rating: Vec<Option<u16>>,
    }

    pub struct Table<W: Write + Send> {
        writer: ArrowWriter<W>,
        schema: Arc<Schema>,
        columns: Columns,
    }

    impl<W: Write + Send> Table<W> {
        pub fn new(out: W) -> Result<Table<W>, ExportError> {
            let text = |name| Field::new(name, DataType::Utf8, false);
            let count = |name| Field::new(name, DataType::UInt64, false);
            let schema = Arc::new(Schema::new(vec![
                text("key"),
                text("fen"),
                text("material"),
                count("games"),
                count("white"),
                count("draws"),
                count("black"),
                Field::new("average_rating", DataType::UInt16, true),
            ]));
            let properties = WriterProperties::builder()
                .set_compression(Compression::ZSTD(Default::default()))
                .set_max_row_group_size(PARQUET_ROWS)
                .build();
            let writer = ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(parquet_error)?;
            Ok(Table { writer, schema, columns: Columns::default() })
        }

        pub fn push(&mut self, row: &PositionRow, position: &crate::Position) -> Result<(), ExportError> {
            let columns = &mut self.columns;
            columns.key.push(row.key.to_string());
            columns.fen.push(position.to_string());
            columns.material.push(material_of(position).to_string());
            for (column, value) in columns.counts.iter_mut().zip([row.games, row.white, row.draws, row.black]) {
                column.push(value);
            }
            columns.rating.push(row.average_rating.and_then(|r| u16::try_from(r).ok()));
            if columns.key.len() >= PARQUET_ROWS {
                self.flush()?;
            }
            Ok(())
        }

        /// Writes the rows held as one record batch.
        fn flush(&mut self) -> Result<(), ExportError> {
            let Columns { key, fen, material, counts, rating } = std::mem::take(&mut self.columns);
            if key.is_empty() {
                return Ok(());
            }
            let mut arrays: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from(key)),
                Arc::new(StringArray::from(fen)),
                Arc::new(StringArray::from(material)),
            ];
            arrays.extend(counts.into_iter().map(|c| Arc::new(UInt64Array::from(c)) as ArrayRef));
            arrays.push(Arc::new(UInt16Array::from(rating)));
            let batch = RecordBatch::try_new(self.schema.clone(), arrays)
                .map_err(|err| ExportError::Parquet(err.to_string()))?;
            self.writer.write(&batch).map_err(parquet_error)?;
            // One row group a batch: memory stays at one batch.
            self.writer.flush().map_err(parquet_error)
        }

        /// Writes what is left and the file's footer.
        pub fn finish(mut self) -> Result<(), ExportError> {
            self.flush()?;
            self.writer.close().map_err(parquet_error)?;
            Ok(())
        }
    }

    fn parquet_error(err: ::parquet::errors::ParquetError) -> ExportError {
        ExportError::Parquet(err.to_string())
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
    /// The Parquet writer failed (its output failing included).
    #[error("writing the Parquet export: {0}")]
    Parquet(String),
}
