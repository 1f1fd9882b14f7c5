//! Inline SVG: position diagrams, heat-map boards, component boards, line and bar charts.

use std::fmt::Write as _;

use super::html::escape;

const CELL: f64 = 30.0;
const MARGIN: f64 = 14.0;

/// How values map to colours.
#[derive(Clone, Copy, Debug)]
pub enum Scale {
    /// Signed values: blue below zero, red above, white at zero; `±limit` saturates.
    Diverging {
        /// Absolute value of full colour.
        limit: f64,
    },
    /// Values from `low` (white) to `high` (full colour).
    Sequential {
        /// White.
        low: f64,
        /// Full colour.
        high: f64,
    },
}

impl Scale {
    /// A diverging scale saturating at the largest absolute value (at least 1).
    pub fn diverging(values: impl IntoIterator<Item = f64>) -> Scale {
        Scale::Diverging { limit: values.into_iter().fold(1.0, |m: f64, v| m.max(v.abs())) }
    }

    /// The fill and the readable text colour of a value.
    fn colours(self, value: f64) -> (String, &'static str) {
        let (t, (r, g, b)) = match self {
            Scale::Diverging { limit } => {
                let t = (value / limit).clamp(-1.0, 1.0);
                if t < 0.0 { (-t, (33, 102, 172)) } else { (t, (178, 24, 43)) }
            }
            Scale::Sequential { low, high } => {
                let span = (high - low).max(f64::MIN_POSITIVE);
                (((value - low) / span).clamp(0.0, 1.0), (8, 104, 72))
            }
        };
        let mix = |c: u8| (255.0 + (f64::from(c) - 255.0) * t).round() as u8;
        (format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b)), if t > 0.55 { "#fff" } else { "#1b1f24" })
    }
}

/// An 8×8 board of values (a1 = index 0; rank 8 drawn at the top), each square coloured on
/// `scale` and labelled with `label(value)`; `None` squares are grey and unlabelled.
pub fn heat_board(values: &[Option<f64>; 64], scale: Scale, label: impl Fn(f64) -> String, title: &str) -> String {
    let size = 8.0 * CELL + MARGIN;
    let mut out = format!(
        "<svg class=\"board\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\" role=\"img\" aria-label=\"{}\">",
        escape(title)
    );
    for (square, value) in values.iter().enumerate() {
        let (file, rank) = (square % 8, square / 8);
        let (x, y) = (MARGIN + file as f64 * CELL, (7 - rank) as f64 * CELL);
        let name = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
        match value {
            Some(v) => {
                let (fill, ink) = scale.colours(*v);
                let text = label(*v);
                let _ = write!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\"><title>{name}: {}</title></rect>\
                     <text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" fill=\"{ink}\">{}</text>",
                    escape(&text),
                    x + CELL / 2.0,
                    y + CELL / 2.0 + 3.5,
                    if text.len() > 4 { 8.5 } else { 10.0 },
                    escape(&text)
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#eef0f2\"><title>{name}</title></rect>"
                );
            }
        }
    }
    coordinates(&mut out);
    let _ = write!(
        out,
        "<rect x=\"{MARGIN}\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#8c959f\"/></svg>",
        8.0 * CELL,
        8.0 * CELL
    );
    out
}

fn coordinates(out: &mut String) {
    for i in 0..8 {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>\
             <text x=\"5\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>",
            MARGIN + i as f64 * CELL + CELL / 2.0,
            8.0 * CELL + 11.0,
            (b'a' + i as u8) as char,
            (7 - i) as f64 * CELL + CELL / 2.0 + 3.0,
            i + 1
        );
    }
}

/// A bitboard as a small board: set squares dark.
pub fn bitboard(bits: u64, title: &str) -> String {
    let cell = 14.0;
    let size = 8.0 * cell;
    let mut out = format!(
        "<svg class=\"board component\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\" role=\"img\" aria-label=\"{}\">",
        escape(title)
    );
    for square in 0..64 {
        let (file, rank) = (square % 8, square / 8);
        let light = (file + rank) % 2 == 1;
        let fill = match (bits >> square & 1 == 1, light) {
            (true, _) => "#0b5cad",
            (false, true) => "#f6f8fa",
            (false, false) => "#e1e4e8",
        };
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\"/>",
            file as f64 * cell,
            (7 - rank) as f64 * cell
        );
    }
    let _ = write!(out, "<rect width=\"{size}\" height=\"{size}\" fill=\"none\" stroke=\"#8c959f\"/></svg>");
    out
}

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Stroke colour.
    pub colour: &'static str,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
}

/// A line chart of `series` over shared axes starting at zero, with a legend.
pub fn line_chart(series: &[Series], x_label: &str, y_label: &str, title: &str) -> String {
    let (width, height) = (560.0, 300.0);
    let (left, right, top, bottom) = (52.0, 16.0, 28.0, 40.0);
    let all = series.iter().flat_map(|s| s.points.iter());
    let x_max = all.clone().map(|p| p.0).fold(1.0, f64::max);
    let y_max = nice_ceiling(all.map(|p| p.1).fold(1.0, f64::max));
    let px = |x: f64| left + (width - left - right) * x / x_max;
    let py = |y: f64| top + (height - top - bottom) * (1.0 - y / y_max);
    let mut out = chart_frame((width, height), (left, right), y_max, &py, title);
    let ticks = x_max.round() as usize;
    for x in 0..=ticks {
        if ticks > 12 && x % 2 == 1 {
            continue;
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#57606a\">{x}</text>",
            px(x as f64),
            height - bottom + 16.0
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#1b1f24\">{}</text>\
         <text x=\"12\" y=\"16\" font-size=\"12\" fill=\"#1b1f24\">{}</text>\
         <line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{}\" stroke=\"#8c959f\"/>\
         <line x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#8c959f\"/>",
        (left + width - right) / 2.0,
        height - 6.0,
        escape(x_label),
        escape(y_label),
        height - bottom,
        width - right,
        height - bottom,
        height - bottom
    );
    for (i, s) in series.iter().enumerate() {
        let path: Vec<String> = s.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = write!(
            out,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
            s.colour,
            path.join(" ")
        );
        for &(x, y) in &s.points {
            let _ = write!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"><title>{}: {} → {:.2}</title></circle>",
                px(x),
                py(y),
                s.colour,
                escape(&s.name),
                trim(x),
                y
            );
        }
        let lx = width - right - 190.0;
        let ly = top + 4.0 + 18.0 * i as f64;
        let _ = write!(
            out,
            "<line x1=\"{lx}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{}\" stroke-width=\"2\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#1b1f24\">{}</text>",
            lx + 20.0,
            s.colour,
            lx + 26.0,
            ly + 4.0,
            escape(&s.name)
        );
    }
    out.push_str("</svg>");
    out
}

/// A position diagram: the board with its pieces (Unicode glyphs, outlined for White), file
/// and rank labels, seen from White's side.
pub fn position_board(board: &shakmaty::Board, title: &str) -> String {
    let size = 8.0 * CELL + MARGIN;
    let mut out = format!(
        "<svg class=\"board\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\" role=\"img\" aria-label=\"{}\">",
        escape(title)
    );
    for square in shakmaty::Square::ALL {
        let (file, rank) = (u32::from(square.file()) as f64, u32::from(square.rank()) as f64);
        let (x, y) = (MARGIN + file * CELL, (7.0 - rank) * CELL);
        let fill = if square.is_light() { "#f0d9b5" } else { "#b58863" };
        let _ = write!(out, "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\"/>");
        if let Some(piece) = board.piece_at(square) {
            // The filled glyphs for both sides: White's drawn white with a dark outline.
            let glyph =
                ['\u{265F}', '\u{265E}', '\u{265D}', '\u{265C}', '\u{265B}', '\u{265A}'][piece.role as usize - 1];
            let paint = match piece.color {
                shakmaty::Color::White => "fill=\"#fff\" stroke=\"#1b1f24\" stroke-width=\"0.9\"",
                shakmaty::Color::Black => "fill=\"#1b1f24\"",
            };
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"25\" text-anchor=\"middle\" {paint}>{glyph}</text>",
                x + CELL / 2.0,
                y + CELL - 6.0
            );
        }
    }
    for i in 0..8 {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>\
             <text x=\"5\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>",
            MARGIN + (f64::from(i) + 0.5) * CELL,
            size - 2.0,
            char::from(b'a' + i),
            (7.0 - f64::from(i)) * CELL + CELL / 2.0 + 4.0,
            i + 1
        );
    }
    let _ = write!(
        out,
        "<rect x=\"{MARGIN}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#8c959f\"/></svg>",
        8.0 * CELL,
        8.0 * CELL
    );
    out
}

/// A bar chart of labelled values from zero (`y_max` fixes the top of the axis, e.g. 100 for
/// percentages); labels are thinned to fit.
pub fn bar_chart(bars: &[(String, f64)], y_label: &str, y_max: Option<f64>, title: &str) -> String {
    let (width, height) = (560.0, 260.0);
    let (left, right, top, bottom) = (52.0, 12.0, 28.0, 46.0);
    let y_max = y_max.unwrap_or_else(|| nice_ceiling(bars.iter().map(|b| b.1).fold(1.0, f64::max)));
    let slot = (width - left - right) / bars.len().max(1) as f64;
    let py = |y: f64| top + (height - top - bottom) * (1.0 - (y / y_max).clamp(0.0, 1.0));
    let mut out = chart_frame((width, height), (left, right), y_max, &py, title);
    // Every label when they fit (about 34 pixels each), else every k-th.
    let every = ((34.0 / slot).ceil() as usize).max(1);
    for (i, (label, value)) in bars.iter().enumerate() {
        let x = left + slot * i as f64;
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#0b5cad\"><title>{}: {}</title></rect>",
            x + slot * 0.12,
            py(*value),
            slot * 0.76,
            py(0.0) - py(*value),
            escape(label),
            trim(*value)
        );
        if i % every == 0 {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>",
                x + slot / 2.0,
                height - bottom + 15.0,
                escape(label)
            );
        }
    }
    let _ = write!(
        out,
        "<text x=\"12\" y=\"16\" font-size=\"12\" fill=\"#1b1f24\">{}</text>\
         <line x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#8c959f\"/></svg>",
        escape(y_label),
        width - right,
        py(0.0),
        py(0.0)
    );
    out
}

/// A chart's opening tag and its five horizontal grid lines with their values, from 0 to
/// `y_max` (`py` maps a value to its height).
fn chart_frame(
    (width, height): (f64, f64),
    (left, right): (f64, f64),
    y_max: f64,
    py: &dyn Fn(f64) -> f64,
    title: &str,
) -> String {
    let mut out = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        escape(title)
    );
    for i in 0..=4 {
        let y = y_max * f64::from(i) / 4.0;
        let _ = write!(
            out,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{py}\" y2=\"{py}\" stroke=\"#e1e4e8\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" fill=\"#57606a\">{}</text>",
            width - right,
            left - 6.0,
            py(y) + 4.0,
            trim(y),
            py = py(y)
        );
    }
    out
}

/// The smallest 1, 2 or 5 times a power of ten at or above `value`.
fn nice_ceiling(value: f64) -> f64 {
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&v| v >= value).unwrap_or(value)
}

fn trim(value: f64) -> String {
    if value.fract().abs() < 1e-9 { format!("{value:.0}") } else { format!("{value:.1}") }
}
