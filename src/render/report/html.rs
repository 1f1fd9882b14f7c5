//! The page shell every HTML report shares: one file, inline CSS (screen and print), no
//! scripts and nothing fetched. Long unbroken text (a file path) wraps anywhere rather than
//! widening the page; tables keep their cells whole and scroll instead.

use std::fmt::Write as _;

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px 16px 48px; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif;
  overflow-wrap: anywhere; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 1em; margin: 16px 0 6px; }
p.lead { color: var(--muted); margin: 0 0 16px; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; overflow-wrap: normal; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f6f8fa; }
td code { white-space: normal; }
.scroll { overflow-x: auto; max-width: 100%; }
.boards { display: flex; flex-wrap: wrap; gap: 14px 18px; align-items: flex-start; }
.boards > * { min-width: 0; max-width: 100%; }
figure { margin: 0; }
figcaption { font-size: 0.85em; color: var(--muted); text-align: center; margin-top: 2px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font-family: system-ui, 'DejaVu Sans', sans-serif; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 8px 0 16px; }
.figures div { min-width: 140px; }
.figures b { display: block; font-size: 1.35em; }
.figures span { color: var(--muted); font-size: 0.85em; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  section, figure, table { break-inside: avoid; }
  .scroll { overflow: visible; }
}
";

/// An HTML report being written: sections appended in order.
#[derive(Debug)]
pub struct Page {
    title: String,
    body: String,
}

impl Page {
    /// A page with a title and a line under it.
    pub fn new(title: &str, lead: &str) -> Page {
        let body = format!("<h1>{}</h1>\n<p class=\"lead\">{}</p>\n", escape(title), escape(lead));
        Page { title: title.to_owned(), body }
    }

    /// Appends a section with a heading and HTML content.
    pub fn section(&mut self, id: &str, heading: &str, content: &str) {
        let _ =
            write!(self.body, "<section id=\"{}\">\n<h2>{}</h2>\n{content}\n</section>\n", escape(id), escape(heading));
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
            escape(&self.title),
            self.body
        )
    }
}

/// A table: header cells, then rows of cells (already HTML), in a horizontally scrolling box.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<div class=\"scroll\"><table><thead><tr>");
    for cell in header {
        let _ = write!(out, "<th>{}</th>", escape(cell));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// An SVG with a caption under it.
pub fn figure(svg: String, caption: &str) -> String {
    format!("<figure>{svg}<figcaption>{}</figcaption></figure>", escape(caption))
}

/// Headline figures: value over label.
pub fn figures(items: &[(String, &str)]) -> String {
    let mut out = String::from("<div class=\"figures\">");
    for (value, label) in items {
        let _ = write!(out, "<div><b>{}</b><span>{}</span></div>", escape(value), escape(label));
    }
    out.push_str("</div>");
    out
}

/// A percentage with one decimal: `52.3%`.
pub fn pct(value: f64) -> String {
    format!("{value:.1}%")
}

/// A percentage, or a dash when there is none.
pub fn opt_pct(value: Option<f64>) -> String {
    value.map(pct).unwrap_or_else(|| "–".to_owned())
}

/// A value, or a dash when there is none.
pub fn opt_num<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_else(|| "–".to_owned())
}

/// A player of a listed game: the name, with the rating in brackets when known.
pub fn player_cell(player: &crate::explore::PlayerSummary) -> String {
    match player.rating {
        Some(rating) => format!("{} ({rating})", escape(&player.name)),
        None => escape(&player.name),
    }
}

/// A listed game's cells: White, Black (with ratings), result, date, event.
pub fn game_cells(game: &crate::explore::GameSummary) -> Vec<String> {
    vec![
        player_cell(&game.white),
        player_cell(&game.black),
        escape(&game.result),
        escape(&game.date),
        escape(&game.event),
    ]
}

/// An integer with thousands separators: `20,302,159`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_escapes() {
        assert_eq!(
            (thousands(0), thousands(999), thousands(1000), thousands(20_302_159)),
            ("0".into(), "999".into(), "1,000".into(), "20,302,159".into())
        );
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
