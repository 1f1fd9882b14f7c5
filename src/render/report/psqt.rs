//! The piece-square report as HTML (one self-contained page) and CSV files.

use std::fmt::Write as _;

use super::{
    Report,
    html::{Page, escape, figure, figures, table, thousands},
    svg::{Scale, Series, bitboard, heat_board, line_chart},
};
use crate::{
    explore::psqt::{Derived, ENDGAME_PHASE},
    psqt::{Factorisation, PackedTables, PieceTables, TABLES, is_masked, table_label},
    report::psqt::PsqtReport,
};

fn bonuses(tables: &PieceTables, t: usize) -> [Option<f64>; 64] {
    std::array::from_fn(|s| (!is_masked(t, s)).then(|| f64::from(tables.squares[t][s])))
}

impl Report for PsqtReport {
    const CSV_TABLES: &'static [&'static str] =
        &["tables", "approximation", "iterations", "components", "occurrences", "scores"];

    fn html(&self) -> String {
        let mut page = Page::new("Piece-square tables", &self.source);
        page.section("overview", "Overview", &overview_html(self));
        if let Some(derived) = &self.derived {
            page.section("frequency", "Where pieces stand", &frequency_html(derived));
            page.section("score", "How their owners score", &score_html(derived));
        }
        let heading = if self.derived.is_some() { "Fitted tables" } else { "Tables" };
        page.section("tables", heading, &tables_html(&self.tables));
        page.section("factorisation", "Factorisation", &factorisation_html(&self.factorisation));
        page.section("compare", "Original, approximation, difference", &compare_html(self));
        page.section("components", "Components and weights", &components_html(&self.factorisation.packed));
        page.finish()
    }

    /// The occurrences and scores tables only when the tables were derived from a database.
    fn csv(&self) -> Vec<(String, String)> {
        let found = &self.factorisation;
        let mut files = vec![
            ("tables.csv".to_owned(), self.tables.to_csv()),
            ("approximation.csv".to_owned(), found.approximation().to_csv()),
        ];
        let mut iterations = String::from("components,maskedRms,rankBoundRms,maxError,generations,elapsedMs\n");
        for it in &found.iterations {
            let _ = writeln!(
                iterations,
                "{},{:.4},{:.4},{},{},{}",
                it.components, it.masked_rms, it.rank_bound_rms, it.max_error, it.generations, it.elapsed_ms
            );
        }
        files.push(("iterations.csv".to_owned(), iterations));
        let mut weights = String::from("row,bitboard");
        for t in 0..TABLES {
            let _ = write!(weights, ",{}", table_label(t).replace(' ', "_"));
        }
        weights.push('\n');
        for (j, row) in found.packed.weights.iter().enumerate() {
            let (name, bits) = match found.packed.components.get(j) {
                Some(bits) => (format!("c{}", j + 1), format!("{bits:#018x}")),
                None => (format!("q/d (d={})", found.packed.divisor), String::new()),
            };
            let _ = write!(weights, "{name},{bits}");
            for w in row {
                let _ = write!(weights, ",{w}");
            }
            weights.push('\n');
        }
        files.push(("components.csv".to_owned(), weights));
        if let Some(derived) = &self.derived {
            let occupancy = &derived.occupancy;
            let mut counts = String::from("table");
            for s in shakmaty::Square::ALL {
                let _ = write!(counts, ",{s}");
            }
            counts.push('\n');
            let mut scores = counts.clone();
            for t in 0..TABLES {
                let _ = write!(counts, "{}", table_label(t));
                let _ = write!(scores, "{}", table_label(t));
                for s in 0..64 {
                    let _ = write!(counts, ",{}", occupancy.occurrences[t][s]);
                    match occupancy.score(t, s) {
                        Some(score) => {
                            let _ = write!(scores, ",{score:.4}");
                        }
                        None => scores.push(','),
                    }
                }
                counts.push('\n');
                scores.push('\n');
            }
            files.push(("occurrences.csv".to_owned(), counts));
            files.push(("scores.csv".to_owned(), scores));
        }
        files
    }
}

fn overview_html(report: &PsqtReport) -> String {
    let found = &report.factorisation;
    let packed = &found.packed;
    let mut overview = Vec::new();
    if let Some(derived) = &report.derived {
        overview.push((thousands(derived.positions), "distinct positions"));
        overview.push((thousands(derived.occurrences), "position occurrences"));
        overview.push((thousands(derived.fit.positions), "positions fitted"));
        overview.push((format!("{:.5}", derived.fit.loss), "fit loss per game"));
        overview.push((format!("{:.5}", derived.fit.material_loss), "material alone"));
    }
    overview.push((packed.components.len().to_string(), "components"));
    if let Some(last) = found.iterations.last() {
        overview.push((format!("{:.2}", last.masked_rms), "masked RMS error"));
        overview.push((last.max_error.to_string(), "largest error"));
    }
    overview.push((format!("{} / {}", packed.literals(), PackedTables::LOSSLESS_LITERALS), "literals (lossless)"));
    overview.push((format!("{} / {}", packed.bytes(), PackedTables::LOSSLESS_BYTES), "bytes (lossless)"));
    figures(&overview)
}

fn frequency_html(derived: &Derived) -> String {
    let occupancy = &derived.occupancy;
    let mut boards = String::from("<div class=\"boards\">");
    for t in 0..TABLES {
        let values: [Option<f64>; 64] = std::array::from_fn(|s| Some(occupancy.per_mille(t, s)));
        let high = values.iter().flatten().fold(1e-9, |m: f64, v| m.max(*v));
        let board = heat_board(&values, Scale::Sequential { low: 0.0, high }, |v| format!("{v:.0}"), &table_label(t));
        boards += &figure(board, &format!("{} per 1000 positions", table_label(t)));
    }
    boards += "</div>";
    format!(
        "<p>Occurrences per 1000 positions of the phase (middlegame: material phase above {}; \
         squares from the owner's side, Black mirrored).</p>{boards}",
        ENDGAME_PHASE
    )
}

fn score_html(derived: &Derived) -> String {
    let occupancy = &derived.occupancy;
    let mut boards = String::from("<div class=\"boards\">");
    for t in 0..TABLES {
        let values: [Option<f64>; 64] = std::array::from_fn(|s| occupancy.score(t, s).map(|v| 100.0 * v - 50.0));
        let board =
            heat_board(&values, Scale::Diverging { limit: 25.0 }, |v| format!("{:.0}", v + 50.0), &table_label(t));
        boards += &figure(board, &format!("{}: owner's score %", table_label(t)));
    }
    boards += "</div>";
    format!("<p>The owner's mean score (%) in the games with the piece on the square; grey: never there.</p>{boards}")
}

fn tables_html(tables: &PieceTables) -> String {
    let mut boards = String::from("<div class=\"boards\">");
    for t in 0..TABLES {
        let values = bonuses(tables, t);
        let board = heat_board(
            &values,
            Scale::diverging(values.iter().flatten().copied()),
            |v| format!("{v:.0}"),
            &table_label(t),
        );
        boards += &figure(board, &format!("{} (value {})", table_label(t), tables.values[t]));
    }
    boards += "</div>";
    format!("<p>Square bonuses in centipawns, from the owner's side.</p>{boards}")
}

fn factorisation_html(found: &Factorisation) -> String {
    let rms = Series {
        name: "binary components (GA)".into(),
        colour: "#0b5cad",
        points: found.iterations.iter().map(|it| (it.components as f64, it.masked_rms)).collect(),
    };
    let floor = Series {
        name: "real rank-n floor (SVD)".into(),
        colour: "#d1242f",
        points: found.iterations.iter().map(|it| (it.components as f64, it.rank_bound_rms)).collect(),
    };
    let chart = line_chart(&[rms, floor], "components", "masked RMS error (centipawns)", "error by components");
    let rows: Vec<Vec<String>> = found
        .iterations
        .iter()
        .map(|it| {
            vec![
                it.components.to_string(),
                format!("{:.2}", it.masked_rms),
                format!("{:.2}", it.rank_bound_rms),
                it.max_error.to_string(),
                it.generations.to_string(),
                format!("{:.1} s", it.elapsed_ms as f64 / 1000.0),
            ]
        })
        .collect();
    let iterations = table(&["components", "masked RMS", "rank-n floor", "max error", "generations", "time"], &rows);
    format!(
        "<p>Tables ≈ C·W: binary components shared by all twelve tables, i8 weights per table, piece values \
         divided by d = {} as an implicit component; {}. Error over the squares the mask keeps (not pawns \
         on the first and eighth ranks).</p>{}{iterations}",
        found.packed.divisor,
        if found.options.mean_adjust {
            "each table's floor mean folded into its piece value"
        } else {
            "no mean adjustment"
        },
        figure(chart, "masked RMS error by number of components")
    )
}

fn compare_html(report: &PsqtReport) -> String {
    let tables = &report.tables;
    let approximation = report.factorisation.approximation();
    let mut compared = String::from(
        "<p>Each approximated square is shown as its full value less the original piece value, so that \
         it reads like the original's bonus; the difference is between full values.</p>",
    );
    let full = tables.full_values();
    let unpacked = report.factorisation.packed.unpack();
    for t in 0..TABLES {
        let original = bonuses(tables, t);
        // Against the original piece value, so the two boards read alike.
        let approx: [Option<f64>; 64] =
            std::array::from_fn(|s| (!is_masked(t, s)).then(|| f64::from(unpacked[t * 64 + s] - tables.values[t])));
        let scale = Scale::diverging(original.iter().chain(&approx).flatten().copied());
        let difference: [Option<f64>; 64] =
            std::array::from_fn(|s| (!is_masked(t, s)).then(|| f64::from(unpacked[t * 64 + s] - full[t * 64 + s])));
        let label = |v: f64| format!("{v:.0}");
        let _ = write!(
            compared,
            "<h3>{}</h3><div class=\"boards\">{}{}{}</div>",
            escape(&table_label(t)),
            figure(heat_board(&original, scale, label, "original"), &format!("original (value {})", tables.values[t])),
            figure(
                heat_board(&approx, scale, label, "approximation"),
                &format!("approximation (its value {})", approximation.values[t])
            ),
            figure(
                heat_board(&difference, Scale::Diverging { limit: 30.0 }, label, "difference"),
                "approximation − original (full values)"
            ),
        );
    }
    compared
}

fn components_html(packed: &PackedTables) -> String {
    let n = packed.components.len();
    let mut components = String::from("<div class=\"boards\">");
    for (j, &bits) in packed.components.iter().enumerate() {
        components += &figure(bitboard(bits, &format!("component {}", j + 1)), &format!("c{} {bits:#018x}", j + 1));
    }
    components += "</div>";
    let mut header = vec!["row"];
    let labels: Vec<String> = (0..TABLES).map(table_label).collect();
    header.extend(labels.iter().map(String::as_str));
    let rows: Vec<Vec<String>> = packed
        .weights
        .iter()
        .enumerate()
        .map(|(j, row)| {
            let name = if j == n { format!("q/d (×{})", packed.divisor) } else { format!("c{}", j + 1) };
            std::iter::once(name).chain(row.iter().map(|w| w.to_string())).collect()
        })
        .collect();
    format!("{components}{}", table(&header, &rows))
}
