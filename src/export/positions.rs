//! Distinct positions with their statistics, streamed out part by part (memory bounded by one
//! scan part, and a Parquet row group, whatever the database's size): as EPD for engine tuning
//! (training data), as CSV or Parquet (Apache Arrow's `parquet` crate) for tables.
//!
//! EPD lines carry the position's four fields, then `c0` with the counts and `c9` with White's
//! score over the games with a result (1 a win, ½ a draw; no `c9` when none has one), as the
//! labelled sets of evaluation tuning do; where the games' annotations evaluate the position,
//! `c0` counts them (`evals`) and `ce` is their mean numeric evaluation in centipawns from the
//! side to move's view (EPD's convention):
//!
//! ```text
//! r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c0 "games 12 white 5 draws 4 black 3 rating 2650"; c9 "0.5833";
//! rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - c0 "games 33 white 19 draws 8 black 6 evals 19"; c9 "0.6970"; ce 29;
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
    /// CSV with a header: key, fen, material, games, white, draws, black, average_rating,
    /// eval_games, eval_cp (the mean numeric evaluation, White's view; empty without one),
    /// white_mates, black_mates.
    Csv,
    /// Parquet, the CSV's columns typed: strings, unsigned 64-bit counts, a nullable rating, a
    /// nullable 64-bit float evaluation; zstd-compressed row groups of [`PARQUET_ROWS`] rows.
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
                writeln!(
                    out,
                    "key,fen,material,games,white,draws,black,average_rating,eval_games,eval_cp,white_mates,black_mates"
                )?;
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
                let evals = match row.eval.games {
                    0 => String::new(),
                    n => format!(" evals {n}"),
                };
                // EPD's `ce` is from the side to move's view.
                let mover = if position.turn().is_white() { 1.0 } else { -1.0 };
                let ce =
                    row.eval.mean_centipawns().map(|cp| format!(" ce {};", (mover * cp).round())).unwrap_or_default();
                writeln!(
                    out,
                    "{position} c0 \"games {games} white {white} draws {draws} black {black}{rating}{evals}\";{score}{ce}"
                )?;
            }
            PositionFormat::Csv | PositionFormat::Parquet => {
                let rating = row.average_rating.map(|r| r.to_string()).unwrap_or_default();
                let material = material_of(position);
                let eval = &row.eval;
                let cp = eval.mean_centipawns().map(|cp| format!("{:.2}", cp + 0.0)).unwrap_or_default();
                writeln!(
                    out,
                    "{},{position},{material},{games},{white},{draws},{black},{rating},{},{cp},{},{}",
                    row.key, eval.games, eval.white_mates, eval.black_mates
                )?;
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
    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt16Array, UInt64Array};
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
        eval_games: Vec<u64>,
        eval_cp: Vec<Option<f64>>,
        mates: [Vec<u64>; 2],
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
                count("eval_games"),
                Field::new("eval_cp", DataType::Float64, true),
                count("white_mates"),
                count("black_mates"),
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
            columns.eval_games.push(row.eval.games);
            columns.eval_cp.push(row.eval.mean_centipawns());
            columns.mates[0].push(row.eval.white_mates);
            columns.mates[1].push(row.eval.black_mates);
            if columns.key.len() >= PARQUET_ROWS {
                self.flush()?;
            }
            Ok(())
        }

        /// Writes the rows held as one record batch.
        fn flush(&mut self) -> Result<(), ExportError> {
            let Columns { key, fen, material, counts, rating, eval_games, eval_cp, mates } =
                std::mem::take(&mut self.columns);
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
            arrays.push(Arc::new(UInt64Array::from(eval_games)));
            arrays.push(Arc::new(Float64Array::from(eval_cp)));
            arrays.extend(mates.into_iter().map(|c| Arc::new(UInt64Array::from(c)) as ArrayRef));
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
