//! The database report as HTML (one self-contained page) and CSV files.

use std::fmt::Write as _;

use super::{
    Report,
    csv::{Csv, opt},
    html::{Page, escape, figure, figures, pct, table, thousands},
    named,
    svg::{bar_chart, position_board},
};

use crate::report::database::{DatabaseReport, OPENING_PLIES, Results, endgames::MAX_MEN};

/// Endgame classes shown in the page (JSON and CSV have them all).
const HTML_ENDGAMES: usize = 40;

fn results_cells(r: &Results) -> Vec<String> {
    let score = r.white_score().map(pct).unwrap_or_else(|| "–".to_owned());
    vec![thousands(r.games), thousands(r.white), thousands(r.draws), thousands(r.black), score]
}

const RESULTS_HEADER: [&str; 5] = ["Games", "1-0", "½-½", "0-1", "White's score"];

fn header<'a>(first: &[&'a str]) -> Vec<&'a str> {
    [first, &RESULTS_HEADER[..]].concat()
}

impl Report for DatabaseReport {
    const CSV_TABLES: &'static [&'static str] =
        &["totals", "years", "ratings", "speeds", "openings", "players", "endgames", "positions-by-ply"];

    fn html(&self) -> String {
        let variant = match crate::position::Variant::from_lichess(self.variant).unwrap_or_default() {
            crate::position::Variant::Standard => String::new(),
            other => format!(" · the {} games", other.pgn_name()),
        };
        let lead = format!("{} games{variant}", thousands(self.totals.games));
        let mut page = Page::new("Database report", &lead);
        page.section("totals", "Totals", &totals_html(self));
        page.section("years", "Games per year", &years_html(self));
        page.section("ratings", "Ratings", &ratings_html(self));
        page.section("openings", "Most common openings", &openings_html(self));
        page.section("players", "Most frequent players", &players_html(self));
        page.section("endgames", "Endgames", &endgames_html(self));
        page.section("positions", "Most common positions by ply", &positions_html(self));
        page.finish()
    }

    fn csv(&self) -> Vec<(String, String)> {
        let r = |r: &Results| [r.games.to_string(), r.white.to_string(), r.draws.to_string(), r.black.to_string()];
        let t = &self.totals;
        let mut totals = Csv::new(&[
            "games",
            "plies",
            "positionOccurrences",
            "distinctPositions",
            "singleGamePositions",
            "white",
            "draws",
            "black",
            "unfinished",
            "undated",
            "unreplayable",
        ]);
        totals.row([
            t.games.to_string(),
            t.plies.to_string(),
            t.position_occurrences.to_string(),
            opt(t.distinct_positions),
            opt(t.single_game_positions),
            self.results.white.to_string(),
            self.results.draws.to_string(),
            self.results.black.to_string(),
            self.unfinished.to_string(),
            self.undated.to_string(),
            self.unreplayable.to_string(),
        ]);
        let mut years = Csv::new(&["year", "games", "white", "draws", "black"]);
        for y in &self.years {
            years.row([vec![y.year.to_string()], r(&y.results).to_vec()].concat());
        }
        let mut ratings = Csv::new(&["band", "floor", "games", "white", "draws", "black"]);
        for b in &self.ratings {
            ratings.row([vec![b.label.clone(), opt(b.floor)], r(&b.results).to_vec()].concat());
        }
        let mut speeds = Csv::new(&["speed", "games", "share"]);
        for s in &self.speeds {
            speeds.row([s.speed.to_owned(), s.games.to_string(), format!("{:.3}", s.share)]);
        }
        let mut openings = Csv::new(&["eco", "name", "games", "white", "draws", "black", "share"]);
        for o in &self.openings {
            openings.row(
                [vec![o.eco.clone(), o.name.clone()], r(&o.results).to_vec(), vec![format!("{:.3}", o.share)]].concat(),
            );
        }
        let mut players = Csv::new(&["name", "games", "white", "score"]);
        for p in &self.players {
            players.row([p.name.clone(), p.games.to_string(), p.white.to_string(), format!("{:.3}", p.score)]);
        }
        let mut endgames = Csv::new(&["class", "men", "games", "share", "positions"]);
        for e in &self.endgames {
            endgames.row([
                e.class.clone(),
                e.men.to_string(),
                e.games.to_string(),
                format!("{:.4}", e.share),
                e.positions.to_string(),
            ]);
        }
        let mut positions = Csv::new(&["ply", "rank", "fen", "games", "share"]);
        for p in &self.positions_by_ply {
            for (i, pos) in p.positions.iter().enumerate() {
                positions.row([
                    p.ply.to_string(),
                    (i + 1).to_string(),
                    pos.fen.clone(),
                    pos.games.to_string(),
                    format!("{:.3}", pos.share),
                ]);
            }
        }
        let tables = [totals, years, ratings, speeds, openings, players, endgames, positions];
        named(Self::CSV_TABLES, tables.map(Csv::finish))
    }
}

fn totals_html(report: &DatabaseReport) -> String {
    let t = &report.totals;
    let mut items = vec![(thousands(t.games), "games"), (thousands(t.plies), "plies")];
    if let Some(positions) = t.distinct_positions {
        items.push((thousands(positions), "distinct positions"));
    }
    if let Some(single) = t.single_game_positions {
        items.push((thousands(single), "reached by one game"));
    }
    if let Some(plies) = report.average_plies {
        items.push((format!("{:.1}", plies / 2.0), "moves per game"));
    }
    if report.other_variant_games > 0 {
        let other = "games of other variants, not counted below";
        items.push((thousands(report.other_variant_games), other));
    }
    let results = table(
        &["Result", "Games", "Share"],
        &[
            ("White won", report.results.white),
            ("Drawn", report.results.draws),
            ("Black won", report.results.black),
            ("Unfinished", report.unfinished),
        ]
        .map(|(label, n)| {
            vec![label.to_owned(), thousands(n), pct(100.0 * n as f64 / report.results.games.max(1) as f64)]
        }),
    );
    let speeds: Vec<Vec<String>> =
        report.speeds.iter().map(|s| vec![s.speed.to_owned(), thousands(s.games), pct(s.share)]).collect();
    format!(
        "{}<div class=\"boards\"><div>{results}</div><div>{}</div></div>",
        figures(&items),
        table(&["Speed", "Games", "Share"], &speeds)
    )
}

fn years_html(report: &DatabaseReport) -> String {
    let bars: Vec<(String, f64)> = report.years.iter().map(|y| (y.year.to_string(), y.results.games as f64)).collect();
    let rows: Vec<Vec<String>> =
        report.years.iter().rev().map(|y| [vec![y.year.to_string()], results_cells(&y.results)].concat()).collect();
    format!(
        "{}<p>{} games without a year.</p><details><summary>Every year</summary>{}</details>",
        bar_chart(&bars, "games", None, "games per year"),
        thousands(report.undated),
        table(&header(&["Year"]), &rows)
    )
}

fn ratings_html(report: &DatabaseReport) -> String {
    let bars: Vec<(String, f64)> = report
        .ratings
        .iter()
        .filter(|b| b.floor.is_some())
        .map(|b| (b.floor.map(|f| f.to_string()).unwrap_or_default(), b.results.games as f64))
        .collect();
    let rows: Vec<Vec<String>> =
        report.ratings.iter().map(|b| [vec![b.label.clone()], results_cells(&b.results)].concat()).collect();
    format!(
        "<p>Games by the average rating of their players.</p>{}{}",
        bar_chart(&bars, "games", None, "rating histogram"),
        table(&header(&["Average rating"]), &rows)
    )
}

fn openings_html(report: &DatabaseReport) -> String {
    if !report.opening_table {
        return "<p>No opening table imported: <code>tabiya openings import</code> names positions.</p>".to_owned();
    }
    let rows: Vec<Vec<String>> = report
        .openings
        .iter()
        .map(|o| [vec![escape(&o.eco), escape(&o.name), pct(o.share)], results_cells(&o.results)].concat())
        .collect();
    format!(
        "<p>Each game under the deepest named position of its first {} plies; {} games reached none.</p>{}",
        OPENING_PLIES,
        thousands(report.unnamed),
        table(&header(&["ECO", "Opening", "Share"]), &rows)
    )
}

fn players_html(report: &DatabaseReport) -> String {
    let rows: Vec<Vec<String>> = report
        .players
        .iter()
        .map(|p| vec![escape(&p.name), thousands(p.games), thousands(p.white), pct(p.score)])
        .collect();
    table(&["Player", "Games", "With White", "Score"], &rows)
}

fn endgames_html(report: &DatabaseReport) -> String {
    let rows: Vec<Vec<String>> = report
        .endgames
        .iter()
        .take(HTML_ENDGAMES)
        .map(|e| vec![escape(&e.class), thousands(e.games), pct(e.share), thousands(e.positions)])
        .collect();
    format!(
        "<p>Share of the games reaching each material class of at most {} men (either side stronger), \
         from the material key ranges and the posting lists of their positions ({} classes).</p>{}",
        MAX_MEN,
        thousands(report.endgames.len() as u64),
        table(&["Class", "Games", "Share", "Positions"], &rows)
    )
}

fn positions_html(report: &DatabaseReport) -> String {
    let mut plies = String::from("<p>The most common positions after each ply, games from the initial position.</p>");
    let rows: Vec<Vec<String>> = report
        .positions_by_ply
        .iter()
        .flat_map(|p| {
            p.positions.iter().enumerate().map(move |(i, pos)| {
                let ply = if i == 0 { p.ply.to_string() } else { String::new() };
                vec![ply, thousands(pos.games), pct(pos.share), escape(&pos.fen)]
            })
        })
        .collect();
    plies += &table(&["Ply", "Games", "Share", "Position"], &rows);
    plies += "<div class=\"boards\">";
    for p in report.positions_by_ply.iter().take(6) {
        if let Some(top) = p.positions.first()
            && let Some(board) = super::opening::board_of(&top.fen)
        {
            let caption = format!("ply {}: {} games", p.ply, thousands(top.games));
            let _ = write!(plies, "{}", figure(position_board(&board, &top.fen), &caption));
        }
    }
    plies += "</div>";
    plies
}
