//! The player report as HTML (one self-contained page) and CSV files.

use std::fmt::Write as _;

use super::{
    Report,
    csv::{Csv, GAME_COLUMNS, game_fields, opt},
    html::{Page, escape, figures, game_cells, opt_num, pct, table, thousands},
    named,
    svg::bar_chart,
};
use crate::report::player::{PlayerGame, PlayerReport, PlayerResults};

/// SAN moves from the initial position with move numbers: `1. e4 c5 2. Nf3`.
pub fn movetext(sans: &[String]) -> String {
    let mut out = String::new();
    for (ply, san) in sans.iter().enumerate() {
        if ply > 0 {
            out.push(' ');
        }
        if ply % 2 == 0 {
            let _ = write!(out, "{}. ", ply / 2 + 1);
        }
        out.push_str(san);
    }
    out
}

fn results_cells(r: &PlayerResults) -> Vec<String> {
    vec![
        thousands(r.games),
        thousands(r.wins),
        thousands(r.draws),
        thousands(r.losses),
        pct(r.score),
        opt_num(r.rating),
        opt_num(r.opponent_rating),
        opt_num(r.performance),
    ]
}

const RESULTS_HEADER: [&str; 8] = ["Games", "Won", "Drawn", "Lost", "Score", "Rating", "Opponents", "Performance"];

fn header(first: &str) -> Vec<&str> {
    let mut header = vec![first];
    header.extend(RESULTS_HEADER);
    header
}

fn game_rows(games: &[PlayerGame]) -> Vec<Vec<String>> {
    games.iter().map(|g| [game_cells(&g.summary), vec![g.summary.id.clone()]].concat()).collect()
}

impl Report for PlayerReport {
    const CSV_TABLES: &'static [&'static str] = &["overview", "names", "years", "opponents", "repertoire", "games"];

    fn html(&self) -> String {
        let o = &self.overview;
        let title = self.names.first().map_or(self.query.as_str(), |n| n.name.as_str());
        let mut page = Page::new(title, &format!("Player report · {} · {} games", self.label, thousands(o.games)));
        let mut items = vec![(thousands(o.games), "games"), (pct(o.score), "score")];
        items.push((opt_num(o.performance), "performance"));
        items.push((opt_num(o.rating), "average rating"));
        if let (Some(first), Some(last)) = (o.first_year, o.last_year) {
            items.push((format!("{first}–{last}"), "years"));
        }
        if self.other_variant_games > 0 {
            let other = "games of other variants, not counted";
            items.push((thousands(self.other_variant_games), other));
        }
        let rows = vec![
            [vec!["All games".to_owned()], results_cells(o)].concat(),
            [vec!["With White".to_owned()], results_cells(&self.as_white)].concat(),
            [vec!["With Black".to_owned()], results_cells(&self.as_black)].concat(),
        ];
        let names: Vec<Vec<String>> = self.names.iter().map(|n| vec![escape(&n.name), thousands(n.games)]).collect();
        page.section(
            "overview",
            "Overview",
            &format!(
                "{}{}<p>Names matching {:?}:</p>{}",
                figures(&items),
                table(&header(""), &rows),
                escape(&self.query),
                table(&["Name", "Games"], &names)
            ),
        );

        let bars: Vec<(String, f64)> = self.years.iter().map(|y| (y.year.to_string(), y.results.score)).collect();
        let rows: Vec<Vec<String>> =
            self.years.iter().map(|y| [vec![y.year.to_string()], results_cells(&y.results)].concat()).collect();
        page.section(
            "years",
            "By year",
            &format!("{}{}", bar_chart(&bars, "score %", Some(100.0), "score by year"), table(&header("Year"), &rows)),
        );

        let bars: Vec<(String, f64)> = self
            .opponents
            .iter()
            .filter(|b| b.floor.is_some())
            .map(|b| (b.floor.map(|f| f.to_string()).unwrap_or_default(), b.results.score))
            .collect();
        let rows: Vec<Vec<String>> =
            self.opponents.iter().map(|b| [vec![b.label.clone()], results_cells(&b.results)].concat()).collect();
        page.section(
            "opponents",
            "By opponent rating",
            &format!(
                "{}{}",
                bar_chart(&bars, "score %", Some(100.0), "score by opponent rating"),
                table(&header("Opponent rating"), &rows)
            ),
        );

        let mut trees = format!(
            "<p>Lines of the first {} plies played in at least {}% of the colour's games (and 2 games), \
             most played first, each under its parent.</p>",
            self.depth, self.min_share
        );
        for color in ["white", "black"] {
            let rows: Vec<Vec<String>> = self
                .repertoire
                .iter()
                .filter(|n| n.color == color)
                .map(|n| {
                    let indent = "&nbsp;&nbsp;".repeat(n.line.len().saturating_sub(1));
                    [vec![format!("{indent}{}", escape(&movetext(&n.line)))], results_cells(&n.results)].concat()
                })
                .collect();
            let _ = write!(trees, "<h3>As {color}</h3>{}", table(&header("Line"), &rows));
        }
        page.section("repertoire", "Repertoire", &trees);

        let game_header = ["White", "Black", "Result", "Date", "Event", "Id"];
        page.section(
            "games",
            "Best wins and worst losses",
            &format!(
                "<h3>Best wins (highest-rated opponents)</h3>{}<h3>Worst losses (lowest-rated opponents)</h3>{}",
                table(&game_header, &game_rows(&self.best_wins)),
                table(&game_header, &game_rows(&self.worst_losses))
            ),
        );
        page.finish()
    }

    fn csv(&self) -> Vec<(String, String)> {
        let columns = [
            "games",
            "wins",
            "draws",
            "losses",
            "score",
            "rating",
            "opponentRating",
            "performance",
            "firstYear",
            "lastYear",
        ];
        let cells = |r: &PlayerResults| -> Vec<String> {
            vec![
                r.games.to_string(),
                r.wins.to_string(),
                r.draws.to_string(),
                r.losses.to_string(),
                format!("{:.3}", r.score),
                opt(r.rating),
                opt(r.opponent_rating),
                opt(r.performance),
                opt(r.first_year),
                opt(r.last_year),
            ]
        };
        let with = |first: &[&str]| -> Csv { Csv::new(&[first, &columns[..]].concat()) };
        let mut overview = with(&["which"]);
        for (name, r) in [("all", &self.overview), ("white", &self.as_white), ("black", &self.as_black)] {
            overview.row([vec![name.to_owned()], cells(r)].concat());
        }
        let mut names = Csv::new(&["name", "games"]);
        for n in &self.names {
            names.row([n.name.clone(), n.games.to_string()]);
        }
        let mut years = with(&["year"]);
        for y in &self.years {
            years.row([vec![y.year.to_string()], cells(&y.results)].concat());
        }
        let mut opponents = with(&["band", "floor"]);
        for b in &self.opponents {
            opponents.row([vec![b.label.clone(), opt(b.floor)], cells(&b.results)].concat());
        }
        let mut repertoire = with(&["color", "line", "uci"]);
        for n in &self.repertoire {
            repertoire.row([vec![n.color.to_owned(), movetext(&n.line), n.uci.join(" ")], cells(&n.results)].concat());
        }
        let mut games = Csv::new(&[&["list", "color", "opponentRating"], &GAME_COLUMNS[..]].concat());
        for (list, listed) in [("bestWins", &self.best_wins), ("worstLosses", &self.worst_losses)] {
            for g in listed {
                let fields = vec![list.to_owned(), g.color.to_owned(), opt(g.opponent_rating)];
                games.row([fields, game_fields(&g.summary)].concat());
            }
        }
        named(Self::CSV_TABLES, [overview, names, years, opponents, repertoire, games].map(Csv::finish))
    }
}
