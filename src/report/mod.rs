//! Reports: self-contained HTML files (inline CSS and SVG, no scripts, no network fetches,
//! a print stylesheet), with the same figures as JSON and CSV.
//!
//! [`html`] holds the page shell and escaping; [`svg`] the boards and charts; [`csv`] the
//! RFC 4180 writer; each report kind has its own module ([`opening`], [`player`], [`database`], [`psqt`]).

pub mod csv;
pub mod database;
pub mod html;
pub mod opening;
pub mod player;
pub mod psqt;
pub mod results;
pub mod svg;

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
