//! The opening report as HTML (one self-contained page), JSON and CSV files.

use std::fmt::Write as _;

use shakmaty::Position as _;

use super::{MoveStats, NotableGame, OpeningReport, Results, Subset};
use crate::report::{
    csv::{Csv, GAME_COLUMNS, game_fields, opt},
    html::{Page, escape, figure, figures, game_cells, opt_num, opt_pct, pct, table, thousands},
    svg::{bar_chart, position_board},
};

/// Rows of a long table shown in the page (JSON and CSV have them all).
const HTML_ROWS: usize = 20;

fn board_of(fen: &str) -> Option<shakmaty::Board> {
    fen.parse::<crate::Position>().ok().map(|p| p.chess().board().clone())
}

fn results_cells(r: &Results) -> Vec<String> {
    vec![thousands(r.games), thousands(r.white), thousands(r.draws), thousands(r.black)]
}

fn notable_cells(g: &NotableGame) -> Vec<String> {
    let s = &g.summary;
    let extra = vec![g.plies.div_ceil(2).to_string(), escape(s.uci.as_deref().unwrap_or("")), s.id.clone()];
    [game_cells(s), extra].concat()
}

impl OpeningReport {
    /// The tables of the CSV form, each a file `NAME.csv`.
    pub const CSV_TABLES: [&'static str; 12] = [
        "overview",
        "speeds",
        "years",
        "bands",
        "moves",
        "theory",
        "move-orders",
        "themes",
        "endings",
        "lengths",
        "players",
        "notable-games",
    ];

    fn title(&self) -> String {
        match &self.opening {
            Some(o) => format!("{} {}", o.eco, o.name),
            None => "Opening report".to_owned(),
        }
    }

    /// The report as one self-contained HTML document.
    pub fn html(&self) -> String {
        let main = &self.subsets[0];
        let lead = format!("{} · {} to move · {}", self.fen, self.turn, main.label);
        let mut page = Page::new(&self.title(), &lead);

        let o = &main.overview;
        let mut items = vec![
            (thousands(o.games), "games"),
            (
                opt_pct(Results { games: o.games, white: o.white, draws: o.draws, black: o.black }.white_score()),
                "White's score",
            ),
            (opt_num(o.white_rating), "White's average rating"),
            (opt_num(o.black_rating), "Black's average rating"),
        ];
        if let (Some(first), Some(last)) = (o.first_year, o.last_year) {
            items.push((format!("{first}–{last}"), "years"));
        }
        let board =
            board_of(&self.fen).map(|b| figure(position_board(&b, &self.fen), "the position")).unwrap_or_default();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let both = |f: &dyn Fn(&Subset) -> String| -> Vec<String> { self.subsets.iter().map(f).collect() };
        let mut row = |label: &str, f: &dyn Fn(&Subset) -> String| {
            let mut cells = vec![escape(label)];
            cells.extend(both(f));
            rows.push(cells);
        };
        row("Games", &|s| thousands(s.overview.games));
        row("White wins", &|s| thousands(s.overview.white));
        row("Draws", &|s| thousands(s.overview.draws));
        row("Black wins", &|s| thousands(s.overview.black));
        row("White's score", &|s| opt_pct(s.overview.white_score));
        row("White's average rating", &|s| opt_num(s.overview.white_rating));
        row("Black's average rating", &|s| opt_num(s.overview.black_rating));
        row("White's performance", &|s| opt_num(s.overview.white_performance));
        row("Black's performance", &|s| opt_num(s.overview.black_performance));
        row("First year", &|s| opt_num(s.overview.first_year));
        row("Last year", &|s| opt_num(s.overview.last_year));
        row("Undated games", &|s| thousands(s.overview.undated));
        row("By speed", &|s| {
            s.overview.speeds.iter().map(|sp| format!("{} {}", sp.speed, pct(sp.share))).collect::<Vec<_>>().join(", ")
        });
        row("Average length (moves)", &|s| opt_num(s.average_plies.map(|p| format!("{:.1}", p / 2.0))));
        if self.subsets.iter().any(|s| s.overview.unreplayable > 0) {
            row("Games left out (stored moves do not replay)", &|s| thousands(s.overview.unreplayable));
        }
        let mut header = vec![""];
        header.extend(self.subsets.iter().map(|s| s.label.as_str()));
        page.section(
            "overview",
            "Overview",
            &format!("{}<div class=\"boards\">{board}<div>{}</div></div>", figures(&items), table(&header, &rows)),
        );

        let bars: Vec<(String, f64)> =
            main.years.iter().map(|y| (y.year.to_string(), y.share.unwrap_or(0.0))).collect();
        let rows: Vec<Vec<String>> = main
            .years
            .iter()
            .map(|y| {
                let mut cells =
                    vec![y.year.to_string(), thousands(y.results.games), thousands(y.year_games), opt_pct(y.share)];
                cells.push(opt_pct(y.results.white_score()));
                cells
            })
            .collect();
        page.section(
            "popularity",
            "Popularity by year",
            &format!(
                "<p>Games reaching the position as a share of the year's games (those from the standard start; \
                 under a player filter, the player's games).</p>{}{}",
                bar_chart(&bars, "% of the year's games", None, "popularity by year"),
                table(&["Year", "Games", "Year's games", "Share", "White's score"], &rows)
            ),
        );

        let bars: Vec<(String, f64)> = main
            .bands
            .iter()
            .filter(|b| b.floor.is_some())
            .map(|b| (b.floor.map(|f| f.to_string()).unwrap_or_default(), b.white_score.unwrap_or(0.0)))
            .collect();
        let rows: Vec<Vec<String>> = main
            .bands
            .iter()
            .map(|b| {
                let mut cells = vec![b.label.clone()];
                cells.extend(results_cells(&b.results));
                cells.push(opt_pct(b.white_score));
                cells
            })
            .collect();
        page.section(
            "ratings",
            "Score by rating",
            &format!(
                "<p>White's score by the games' average rating.</p>{}{}",
                bar_chart(&bars, "White's score %", Some(100.0), "score by rating band"),
                table(&["Average rating", "Games", "1-0", "½-½", "0-1", "White's score"], &rows)
            ),
        );

        page.section("moves", "Moves", &self.move_table());
        page.section("theory", "Theory", &self.theory_html());

        let rows: Vec<Vec<String>> = main
            .move_orders
            .iter()
            .take(HTML_ROWS)
            .map(|m| {
                vec![
                    escape(&m.san),
                    thousands(m.games),
                    pct(100.0 * m.games as f64 / o.games.max(1) as f64),
                    escape(&m.fen),
                ]
            })
            .collect();
        page.section(
            "move-orders",
            "Move orders",
            &format!(
                "<p>Every position one move before this one, with the move and the games that came that way \
                 ({} of them; found through the posting list: each game replayed).</p>{}",
                thousands(main.move_orders.len() as u64),
                table(&["Move", "Games", "Share", "From the position"], &rows)
            ),
        );

        let rows: Vec<Vec<String>> = self
            .themes
            .iter()
            .zip(&main.themes)
            .map(|(theme, r)| {
                let mut cells = vec![escape(&theme.name), pct(100.0 * r.games as f64 / o.games.max(1) as f64)];
                cells.extend(results_cells(r));
                cells.push(opt_pct(r.white_score()));
                cells.push(format!("<code>{}</code>", escape(&theme.expression)));
                cells
            })
            .collect();
        page.section(
            "themes",
            "Themes",
            &format!(
                "<p>Share of the games reaching each pattern from the position to {} plies after it.</p>{}",
                self.theme_plies,
                table(&["Theme", "Share", "Games", "1-0", "½-½", "0-1", "White's score", "Pattern"], &rows)
            ),
        );

        let rows: Vec<Vec<String>> = main
            .endings
            .iter()
            .take(HTML_ROWS)
            .map(|e| {
                let mut cells = vec![escape(&e.material), pct(e.share)];
                cells.extend(results_cells(&e.results));
                cells
            })
            .collect();
        let bars: Vec<(String, f64)> = main.lengths.iter().map(|l| (l.from_move.to_string(), l.games as f64)).collect();
        page.section(
            "endings",
            "Endings and game length",
            &format!(
                "<p>Material at the end of the games ({} kinds).</p>{}{}",
                thousands(main.endings.len() as u64),
                table(&["Final material", "Share", "Games", "1-0", "½-½", "0-1"], &rows),
                bar_chart(&bars, "games by length (from move)", None, "game length")
            ),
        );

        let mut players = String::new();
        for color in ["white", "black"] {
            let rows: Vec<Vec<String>> = main
                .players
                .iter()
                .filter(|p| p.color == color)
                .take(HTML_ROWS)
                .map(|p| {
                    let mut cells = vec![escape(&p.name)];
                    cells.extend(results_cells(&p.results));
                    cells.extend([pct(p.score), opt_num(p.rating), opt_num(p.performance)]);
                    cells
                })
                .collect();
            let _ = write!(
                players,
                "<h3>With {color}</h3>{}",
                table(&["Player", "Games", "1-0", "½-½", "0-1", "Score", "Rating", "Performance"], &rows)
            );
        }
        page.section("players", "Players", &players);

        let header = ["White", "Black", "Result", "Date", "Event", "Moves", "Next", "Id"];
        let mut notable = String::new();
        for (title, games) in [
            ("Highest rated", &main.notable.highest_rated),
            ("Most recent", &main.notable.most_recent),
            ("Shortest wins for White", &main.notable.shortest_white_wins),
            ("Shortest wins for Black", &main.notable.shortest_black_wins),
        ] {
            let rows: Vec<Vec<String>> = games.iter().map(notable_cells).collect();
            let _ = write!(notable, "<h3>{title}</h3>{}", table(&header, &rows));
        }
        page.section("games", "Notable games", &notable);
        page.finish()
    }

    fn move_table(&self) -> String {
        let main = &self.subsets[0];
        let mut header =
            vec!["Move", "Games", "Share", "1-0", "½-½", "0-1", "Score", "Draws", "Rating", "Perf.", "Year", "Last"];
        let versus = self.subsets.get(1);
        let versus_games = versus.map(|v| format!("Games ({})", v.label));
        let versus_score = versus.map(|v| format!("Score ({})", v.label));
        if let (Some(g), Some(s)) = (&versus_games, &versus_score) {
            header.push(g);
            header.push(s);
        }
        let find = |s: &Subset, uci: &str| s.moves.iter().find(|m| m.uci == uci).cloned();
        let mut rows: Vec<Vec<String>> = main
            .moves
            .iter()
            .map(|m| {
                let mut cells = move_cells(m);
                if let Some(v) = versus {
                    let other = find(v, &m.uci);
                    cells.push(other.as_ref().map_or("0".to_owned(), |o| thousands(o.results.games)));
                    cells.push(other.map_or("–".to_owned(), |o| pct(o.score)));
                }
                cells
            })
            .collect();
        // Moves only the second subset played.
        if let Some(v) = versus {
            for m in v.moves.iter().filter(|m| find(main, &m.uci).is_none()) {
                let mut cells = vec![escape(&m.san)];
                cells.extend(std::iter::repeat_n("–".to_owned(), 11));
                cells.push(thousands(m.results.games));
                cells.push(pct(m.score));
                rows.push(cells);
            }
        }
        format!(
            "<p>Every move played from the position; score and performance are the mover's.</p>{}",
            table(&header, &rows)
        )
    }

    fn theory_html(&self) -> String {
        let mut out = String::from(
            "<p>Main lines: each of the most played moves, then the most played continuation at every step \
             (games and the mover's score at each move).</p>",
        );
        out += "<ol>";
        for line in &self.theory {
            let moves: Vec<String> = line
                .nodes
                .iter()
                .map(|n| {
                    format!("{} <small>({}, {})</small>", escape(&n.san), thousands(n.results.games), pct(n.score))
                })
                .collect();
            let _ = write!(out, "<li>{}</li>", moves.join(" "));
        }
        out += "</ol>";
        out += "<div class=\"boards\">";
        for (i, line) in self.theory.iter().enumerate() {
            if let Some(board) = board_of(&line.end_fen) {
                let caption = format!(
                    "line {}: {}",
                    i + 1,
                    line.nodes.iter().map(|n| n.san.as_str()).collect::<Vec<_>>().join(" ")
                );
                out += &figure(position_board(&board, &line.end_fen), &caption);
            }
        }
        out += "</div>";
        out
    }

    /// The report as JSON.
    pub fn json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }

    /// The report as CSV files, one per table: (file name, contents). Tables of every subset
    /// carry a `subset` column.
    pub fn csv(&self) -> Vec<(String, String)> {
        let mut overview = Csv::new(&[
            "subset",
            "games",
            "white",
            "draws",
            "black",
            "whiteScore",
            "whiteRating",
            "blackRating",
            "whitePerformance",
            "blackPerformance",
            "firstYear",
            "lastYear",
            "undated",
            "averagePlies",
            "unreplayable",
        ]);
        let mut speeds = Csv::new(&["subset", "speed", "games", "share"]);
        let mut years = Csv::new(&["subset", "year", "games", "white", "draws", "black", "yearGames", "share"]);
        let mut bands = Csv::new(&["subset", "band", "floor", "games", "white", "draws", "black", "whiteScore"]);
        let mut moves = Csv::new(&[
            "subset",
            "uci",
            "san",
            "games",
            "white",
            "draws",
            "black",
            "share",
            "score",
            "drawRate",
            "averageRating",
            "performance",
            "averageYear",
            "lastPlayed",
        ]);
        let mut orders = Csv::new(&["subset", "fen", "san", "uci", "games"]);
        let mut themes = Csv::new(&["subset", "theme", "expression", "games", "white", "draws", "black"]);
        let mut endings = Csv::new(&["subset", "material", "games", "white", "draws", "black", "share"]);
        let mut lengths = Csv::new(&["subset", "fromMove", "toMove", "games"]);
        let mut players = Csv::new(&[
            "subset",
            "name",
            "color",
            "games",
            "white",
            "draws",
            "black",
            "score",
            "rating",
            "performance",
        ]);
        let mut notable = Csv::new(&[&["subset", "list"], &GAME_COLUMNS[..], &["plies", "uci"]].concat());
        let r = |r: &Results| [r.games.to_string(), r.white.to_string(), r.draws.to_string(), r.black.to_string()];
        for s in &self.subsets {
            let l = || s.label.clone();
            let o = &s.overview;
            overview.row([
                l(),
                o.games.to_string(),
                o.white.to_string(),
                o.draws.to_string(),
                o.black.to_string(),
                opt(o.white_score.map(|v| format!("{v:.3}"))),
                opt(o.white_rating),
                opt(o.black_rating),
                opt(o.white_performance),
                opt(o.black_performance),
                opt(o.first_year),
                opt(o.last_year),
                o.undated.to_string(),
                opt(s.average_plies.map(|v| format!("{v:.3}"))),
                o.unreplayable.to_string(),
            ]);
            for sp in &o.speeds {
                speeds.row([l(), sp.speed.to_owned(), sp.games.to_string(), format!("{:.3}", sp.share)]);
            }
            for y in &s.years {
                let mut cells = vec![l(), y.year.to_string()];
                cells.extend(r(&y.results));
                cells.extend([y.year_games.to_string(), opt(y.share.map(|v| format!("{v:.3}")))]);
                years.row(cells);
            }
            for b in &s.bands {
                let mut cells = vec![l(), b.label.clone(), opt(b.floor)];
                cells.extend(r(&b.results));
                cells.push(opt(b.white_score.map(|v| format!("{v:.3}"))));
                bands.row(cells);
            }
            for m in &s.moves {
                let mut cells = vec![l(), m.uci.clone(), m.san.clone()];
                cells.extend(r(&m.results));
                cells.extend([
                    format!("{:.3}", m.share),
                    format!("{:.3}", m.score),
                    format!("{:.3}", m.draw_rate),
                    opt(m.average_rating),
                    opt(m.performance),
                    opt(m.average_year.map(|v| format!("{v:.2}"))),
                    opt(m.last_played.clone()),
                ]);
                moves.row(cells);
            }
            for m in &s.move_orders {
                orders.row([l(), m.fen.clone(), m.san.clone(), m.uci.clone(), m.games.to_string()]);
            }
            for (theme, results) in self.themes.iter().zip(&s.themes) {
                let mut cells = vec![l(), theme.name.clone(), theme.expression.clone()];
                cells.extend(r(results));
                themes.row(cells);
            }
            for e in &s.endings {
                let mut cells = vec![l(), e.material.clone()];
                cells.extend(r(&e.results));
                cells.push(format!("{:.3}", e.share));
                endings.row(cells);
            }
            for len in &s.lengths {
                lengths.row([l(), len.from_move.to_string(), len.to_move.to_string(), len.games.to_string()]);
            }
            for p in &s.players {
                let mut cells = vec![l(), p.name.clone(), p.color.to_owned()];
                cells.extend(r(&p.results));
                cells.extend([format!("{:.3}", p.score), opt(p.rating), opt(p.performance)]);
                players.row(cells);
            }
            for (list, games) in [
                ("highestRated", &s.notable.highest_rated),
                ("mostRecent", &s.notable.most_recent),
                ("shortestWhiteWins", &s.notable.shortest_white_wins),
                ("shortestBlackWins", &s.notable.shortest_black_wins),
            ] {
                for g in games {
                    let fields = [vec![l(), list.to_owned()], game_fields(&g.summary)].concat();
                    notable.row([fields, vec![g.plies.to_string(), opt(g.summary.uci.clone())]].concat());
                }
            }
        }
        let mut theory = Csv::new(&["line", "ply", "san", "uci", "games", "white", "draws", "black", "score"]);
        for (i, line) in self.theory.iter().enumerate() {
            for n in &line.nodes {
                let mut cells = vec![(i + 1).to_string(), n.ply.to_string(), n.san.clone(), n.uci.clone()];
                cells.extend(r(&n.results));
                cells.push(format!("{:.3}", n.score));
                theory.row(cells);
            }
        }
        [overview, speeds, years, bands, moves, theory, orders, themes, endings, lengths, players, notable]
            .into_iter()
            .zip(Self::CSV_TABLES)
            .map(|(csv, name)| (format!("{name}.csv"), csv.finish()))
            .collect()
    }
}

fn move_cells(m: &MoveStats) -> Vec<String> {
    vec![
        escape(&m.san),
        thousands(m.results.games),
        pct(m.share),
        thousands(m.results.white),
        thousands(m.results.draws),
        thousands(m.results.black),
        pct(m.score),
        pct(m.draw_rate),
        opt_num(m.average_rating),
        opt_num(m.performance),
        opt_num(m.average_year.map(|y| format!("{y:.0}"))),
        m.last_played.clone().unwrap_or_else(|| "–".to_owned()),
    ]
}
