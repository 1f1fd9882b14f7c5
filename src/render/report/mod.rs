//! Reports as people and programs read them: one self-contained HTML page (inline CSS and SVG,
//! no scripts, nothing fetched, a print stylesheet), one JSON document, or a directory of CSV
//! files, one per table.
//!
//! - [`Report`]: what every report renders to, by [`Format`];
//! - [`html`]: the page shell and cell formatting; [`svg`]: boards and charts; [`csv`]: the
//!   RFC 4180 writer;
//! - [`notes`]: what annotated games said, as cells and fields;
//! - one module per report: [`opening`], [`player`], [`database`], [`psqt`].

pub mod csv;
pub mod database;
pub mod html;
pub mod notes;
pub mod opening;
pub mod player;
pub mod psqt;
pub mod svg;

use serde::Serialize;

/// A report's output format: `html`, `json` or `csv`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One self-contained HTML file.
    #[default]
    Html,
    /// One JSON document.
    Json,
    /// A directory of CSV files, one per table.
    Csv,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text.to_ascii_lowercase().as_str() {
            "html" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            other => Err(format!("unknown report format {other:?}: html, json or csv")),
        }
    }
}

/// A report in each [`Format`]. The JSON document is the report's own fields (camelCase).
pub trait Report: Serialize {
    /// The names of the CSV files' tables, each written as `NAME.csv`.
    const CSV_TABLES: &'static [&'static str];

    /// One self-contained HTML document.
    fn html(&self) -> String;

    /// The CSV files, one per table of [`Report::CSV_TABLES`], in that order: (file name,
    /// contents).
    fn csv(&self) -> Vec<(String, String)>;

    /// One JSON document.
    fn json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }
}

/// Names CSV files after their tables: `NAME.csv`, in order.
fn named(tables: &[&str], files: impl IntoIterator<Item = String>) -> Vec<(String, String)> {
    tables.iter().zip(files).map(|(name, text)| (format!("{name}.csv"), text)).collect()
}
