//! The opening report as HTML (one self-contained page) and CSV files: one function per section
//! of the page, one per table of the CSV form.

use std::fmt::Write as _;

use super::{
    Report,
    csv::{Csv, GAME_COLUMNS, game_fields, opt},
    html::{Page, escape, figure, figures, game_cells, opt_num, opt_pct, pct, table, thousands},
    named,
    notes::{
        EVAL_COLUMNS, MOVE_NOTE_COLUMNS, eval_cell, eval_fields, eval_text, loss_text, move_note_fields, time_text,
    },
    svg::{bar_chart, position_board},
};
use crate::report::opening::{MoveStats, NotableGame, OpeningReport, Results, Subset};

/// Rows of a long table shown in the page (JSON and CSV have them all).
const HTML_ROWS: usize = 20;

impl Report for OpeningReport {
    const CSV_TABLES: &'static [&'static str] = &[
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

    fn html(&self) -> String {
        let main = &self.subsets[0];
        let variant = if self.variant == "standard" { String::new() } else { format!(" · {}", self.variant) };
        let lead = format!("{}{variant} · {} to move · {}", self.fen, self.turn, main.label);
        let mut page = Page::new(&title(self), &lead);
        page.section("overview", "Overview", &overview_html(self));
        page.section("popularity", "Popularity by year", &popularity_html(main, self.variant));
        page.section("ratings", "Score by rating", &ratings_html(main));
        page.section("moves", "Moves", &moves_html(self));
        page.section("theory", "Theory", &theory_html(self));
        page.section("move-orders", "Move orders", &move_orders_html(main));
        page.section("themes", "Themes", &themes_html(self));
        page.section("endings", "Endings and game length", &endings_html(main));
        page.section("players", "Players", &players_html(main));
        page.section("games", "Notable games", &notable_html(main));
        page.finish()
    }

    /// Tables of every subset carry a `subset` column.
    fn csv(&self) -> Vec<(String, String)> {
        let tables = [
            overview_csv(self),
            speeds_csv(self),
            years_csv(self),
            bands_csv(self),
            moves_csv(self),
            theory_csv(self),
            move_orders_csv(self),
            themes_csv(self),
            endings_csv(self),
            lengths_csv(self),
            players_csv(self),
            notable_csv(self),
        ];
        named(Self::CSV_TABLES, tables.map(Csv::finish))
    }
}

fn title(report: &OpeningReport) -> String {
    match &report.opening {
        Some(o) => format!("{} {}", o.eco, o.name),
        None => "Opening report".to_owned(),
    }
}

/// The board of a FEN of any variant (its first field: Three-check's counters and Chess960's
/// rights are no board's).
pub(super) fn board_of(fen: &str) -> Option<shakmaty::Board> {
    shakmaty::Board::from_ascii_board_fen(fen.split(' ').next()?.as_bytes()).ok()
}

fn results_cells(r: &Results) -> Vec<String> {
    vec![thousands(r.games), thousands(r.white), thousands(r.draws), thousands(r.black)]
}

/// The share of the main subset's games, in percent.
fn share_of(games: u64, report_games: u64) -> String {
    pct(100.0 * games as f64 / report_games.max(1) as f64)
}

fn overview_html(report: &OpeningReport) -> String {
    let o = &report.subsets[0].overview;
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
        board_of(&report.fen).map(|b| figure(position_board(&b, &report.fen), "the position")).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = |label: &str, f: &dyn Fn(&Subset) -> String| {
        let mut cells = vec![escape(label)];
        cells.extend(report.subsets.iter().map(f));
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
    if report.subsets.iter().any(|s| s.overview.unreplayable > 0) {
        row("Games left out (stored moves do not replay)", &|s| thousands(s.overview.unreplayable));
    }
    if report.subsets.iter().any(|s| s.overview.eval.is_some()) {
        row("Engine evaluation (White's view)", &|s| eval_text(s.overview.eval.as_ref()));
    }
    let mut header = vec![""];
    header.extend(report.subsets.iter().map(|s| s.label.as_str()));
    format!("{}<div class=\"boards\">{board}<div>{}</div></div>", figures(&items), table(&header, &rows))
}

fn popularity_html(main: &Subset, variant: &str) -> String {
    let bars: Vec<(String, f64)> = main.years.iter().map(|y| (y.year.to_string(), y.share.unwrap_or(0.0))).collect();
    let rows: Vec<Vec<String>> = main
        .years
        .iter()
        .map(|y| {
            vec![
                y.year.to_string(),
                thousands(y.results.games),
                thousands(y.year_games),
                opt_pct(y.share),
                opt_pct(y.results.white_score()),
            ]
        })
        .collect();
    let games = match crate::position::Variant::from_lichess(variant).unwrap_or_default() {
        crate::position::Variant::Standard => "those from the standard start".to_owned(),
        other => format!("the year's {} games", other.pgn_name()),
    };
    format!(
        "<p>Games reaching the position as a share of the year's games ({games}; under a player filter, \
         the player's games).</p>{}{}",
        bar_chart(&bars, "% of the year's games", None, "popularity by year"),
        table(&["Year", "Games", "Year's games", "Share", "White's score"], &rows)
    )
}

fn ratings_html(main: &Subset) -> String {
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
    format!(
        "<p>White's score by the games' average rating.</p>{}{}",
        bar_chart(&bars, "White's score %", Some(100.0), "score by rating band"),
        table(&["Average rating", "Games", "1-0", "½-½", "0-1", "White's score"], &rows)
    )
}

fn moves_html(report: &OpeningReport) -> String {
    let main = &report.subsets[0];
    let mut header = vec![
        "Move", "Games", "Share", "1-0", "½-½", "0-1", "Score", "Draws", "Rating", "Perf.", "Year", "Last", "Reached",
    ];
    // Eval, loss and time of each subset whose annotated games played the moves.
    let noted = |s: &Subset| s.moves.iter().any(|m| m.eval.is_some() || m.time.is_some());
    let versus = report.subsets.get(1);
    let (main_noted, versus_noted) = (noted(main), versus.is_some_and(noted));
    if main_noted {
        header.extend(["Eval", "Loss", "Time"]);
    }
    let versus_header: Vec<String> = versus.map_or_else(Vec::new, |v| {
        let names = ["Games", "Score"]
            .into_iter()
            .chain(versus_noted.then_some(["Eval", "Loss", "Time"]).into_iter().flatten());
        names.map(|name| format!("{name} ({})", v.label)).collect()
    });
    header.extend(versus_header.iter().map(String::as_str));
    let notes = |m: Option<&MoveStats>| match m {
        Some(m) => [eval_cell(m.eval.as_ref()), loss_text(m.loss.as_ref()), time_text(m.time.as_ref())],
        None => std::array::from_fn(|_| "–".to_owned()),
    };
    let mut rows: Vec<Vec<String>> = main
        .moves
        .iter()
        .map(|m| {
            let mut cells = move_cells(m);
            if main_noted {
                cells.extend(notes(Some(m)));
            }
            if let Some(v) = versus {
                let other = find(v, &m.uci);
                cells.push(other.map_or("0".to_owned(), |o| thousands(o.results.games)));
                cells.push(other.map_or("–".to_owned(), |o| pct(o.score)));
                if versus_noted {
                    cells.extend(notes(other));
                }
            }
            cells
        })
        .collect();
    // Moves only the second subset played.
    if let Some(v) = versus {
        for m in v.moves.iter().filter(|m| find(main, &m.uci).is_none()) {
            let mut cells = vec![escape(&m.san)];
            cells.extend(std::iter::repeat_n("–".to_owned(), if main_noted { 15 } else { 12 }));
            cells.push(thousands(m.results.games));
            cells.push(pct(m.score));
            if versus_noted {
                cells.extend(notes(Some(m)));
            }
            rows.push(cells);
        }
    }
    format!(
        "<p>Every move played from the position; score and performance are the mover's. Reached: the \
         games reaching the position after the move by any move order.{}</p>{}",
        match main_noted || versus_noted {
            true =>
                " Eval: the mean engine evaluation after the move in pawns, White's view, and (in \
                     brackets) over how many games; loss: the mean centipawns the mover gave up by the \
                     engine, and the share of moves losing 100 or more; time: the mean time the movers spent.",
            false => "",
        },
        table(&header, &rows)
    )
}

/// The row of the move `uci` in subset `s`.
fn find<'a>(s: &'a Subset, uci: &str) -> Option<&'a MoveStats> {
    s.moves.iter().find(|m| m.uci == uci)
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
        thousands(m.reached.games),
    ]
}

fn theory_html(report: &OpeningReport) -> String {
    let mut out = String::from(
        "<p>Main lines: each of the most played moves, then the most played continuation at every step \
         (games and the mover's score at each move).</p>",
    );
    out += "<ol>";
    for line in &report.theory {
        let moves: Vec<String> = line
            .nodes
            .iter()
            .map(|n| format!("{} <small>({}, {})</small>", escape(&n.san), thousands(n.results.games), pct(n.score)))
            .collect();
        let _ = write!(out, "<li>{}</li>", moves.join(" "));
    }
    out += "</ol>";
    out += "<div class=\"boards\">";
    for (i, line) in report.theory.iter().enumerate() {
        if let Some(board) = board_of(&line.end_fen) {
            let caption =
                format!("line {}: {}", i + 1, line.nodes.iter().map(|n| n.san.as_str()).collect::<Vec<_>>().join(" "));
            out += &figure(position_board(&board, &line.end_fen), &caption);
        }
    }
    out += "</div>";
    out
}

fn move_orders_html(main: &Subset) -> String {
    let rows: Vec<Vec<String>> = main
        .move_orders
        .iter()
        .take(HTML_ROWS)
        .map(|m| vec![escape(&m.san), thousands(m.games), share_of(m.games, main.overview.games), escape(&m.fen)])
        .collect();
    format!(
        "<p>Every position one move before this one, with the move and the games that came that way \
         ({} of them; found through the posting list: each game replayed).</p>{}",
        thousands(main.move_orders.len() as u64),
        table(&["Move", "Games", "Share", "From the position"], &rows)
    )
}

fn themes_html(report: &OpeningReport) -> String {
    let main = &report.subsets[0];
    let rows: Vec<Vec<String>> = report
        .themes
        .iter()
        .zip(&main.themes)
        .map(|(theme, r)| {
            let mut cells = vec![escape(&theme.name), share_of(r.games, main.overview.games)];
            cells.extend(results_cells(r));
            cells.push(opt_pct(r.white_score()));
            cells.push(format!("<code>{}</code>", escape(&theme.expression)));
            cells
        })
        .collect();
    format!(
        "<p>Share of the games reaching each pattern from the position to {} plies after it.</p>{}",
        report.theme_plies,
        table(&["Theme", "Share", "Games", "1-0", "½-½", "0-1", "White's score", "Pattern"], &rows)
    )
}

fn endings_html(main: &Subset) -> String {
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
    format!(
        "<p>Material at the end of the games ({} kinds).</p>{}{}",
        thousands(main.endings.len() as u64),
        table(&["Final material", "Share", "Games", "1-0", "½-½", "0-1"], &rows),
        bar_chart(&bars, "games by length (from move)", None, "game length")
    )
}

fn players_html(main: &Subset) -> String {
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
    players
}

fn notable_html(main: &Subset) -> String {
    let header = ["White", "Black", "Result", "Date", "Event", "Moves", "Next", "Id"];
    let mut notable = String::new();
    for (title, games) in notable_lists(main) {
        let rows: Vec<Vec<String>> = games.iter().map(notable_cells).collect();
        let _ = write!(notable, "<h3>{}</h3>{}", title.0, table(&header, &rows));
    }
    notable
}

fn notable_cells(g: &NotableGame) -> Vec<String> {
    let s = &g.summary;
    let extra = vec![g.plies.div_ceil(2).to_string(), escape(s.uci.as_deref().unwrap_or("")), s.id.clone()];
    [game_cells(s), extra].concat()
}

/// The notable-game lists of a subset: (page title, CSV name), games.
fn notable_lists(s: &Subset) -> [((&'static str, &'static str), &Vec<NotableGame>); 4] {
    [
        (("Highest rated", "highestRated"), &s.notable.highest_rated),
        (("Most recent", "mostRecent"), &s.notable.most_recent),
        (("Shortest wins for White", "shortestWhiteWins"), &s.notable.shortest_white_wins),
        (("Shortest wins for Black", "shortestBlackWins"), &s.notable.shortest_black_wins),
    ]
}

/// A result's four counts as fields.
fn results_fields(r: &Results) -> [String; 4] {
    [r.games.to_string(), r.white.to_string(), r.draws.to_string(), r.black.to_string()]
}

/// A number with three decimals, or an empty field.
fn decimals(value: Option<f64>) -> String {
    opt(value.map(|v| format!("{v:.3}")))
}

fn overview_csv(report: &OpeningReport) -> Csv {
    let header = [
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
    ];
    let mut csv = Csv::new(&[&header[..], &EVAL_COLUMNS].concat());
    for s in &report.subsets {
        let o = &s.overview;
        csv.row(
            [
                s.label.clone(),
                o.games.to_string(),
                o.white.to_string(),
                o.draws.to_string(),
                o.black.to_string(),
                decimals(o.white_score),
                opt(o.white_rating),
                opt(o.black_rating),
                opt(o.white_performance),
                opt(o.black_performance),
                opt(o.first_year),
                opt(o.last_year),
                o.undated.to_string(),
                decimals(s.average_plies),
                o.unreplayable.to_string(),
            ]
            .into_iter()
            .chain(eval_fields(o.eval.as_ref())),
        );
    }
    csv
}

fn speeds_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "speed", "games", "share"]);
    for s in &report.subsets {
        for sp in &s.overview.speeds {
            csv.row([s.label.clone(), sp.speed.to_owned(), sp.games.to_string(), format!("{:.3}", sp.share)]);
        }
    }
    csv
}

fn years_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "year", "games", "white", "draws", "black", "yearGames", "share"]);
    for s in &report.subsets {
        for y in &s.years {
            let mut cells = vec![s.label.clone(), y.year.to_string()];
            cells.extend(results_fields(&y.results));
            cells.extend([y.year_games.to_string(), decimals(y.share)]);
            csv.row(cells);
        }
    }
    csv
}

fn bands_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "band", "floor", "games", "white", "draws", "black", "whiteScore"]);
    for s in &report.subsets {
        for b in &s.bands {
            let mut cells = vec![s.label.clone(), b.label.clone(), opt(b.floor)];
            cells.extend(results_fields(&b.results));
            cells.push(decimals(b.white_score));
            csv.row(cells);
        }
    }
    csv
}

fn moves_csv(report: &OpeningReport) -> Csv {
    let header = [
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
        "reachedGames",
        "reachedWhite",
        "reachedDraws",
        "reachedBlack",
    ];
    let mut csv = Csv::new(&[&header[..], &EVAL_COLUMNS, &MOVE_NOTE_COLUMNS].concat());
    for s in &report.subsets {
        for m in &s.moves {
            let mut cells = vec![s.label.clone(), m.uci.clone(), m.san.clone()];
            cells.extend(results_fields(&m.results));
            cells.extend([
                format!("{:.3}", m.share),
                format!("{:.3}", m.score),
                format!("{:.3}", m.draw_rate),
                opt(m.average_rating),
                opt(m.performance),
                opt(m.average_year.map(|v| format!("{v:.2}"))),
                opt(m.last_played.clone()),
                m.reached.games.to_string(),
                m.reached.white.to_string(),
                m.reached.draws.to_string(),
                m.reached.black.to_string(),
            ]);
            cells.extend(eval_fields(m.eval.as_ref()));
            cells.extend(move_note_fields(m.loss.as_ref(), m.time.as_ref()));
            csv.row(cells);
        }
    }
    csv
}

fn theory_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["line", "ply", "san", "uci", "games", "white", "draws", "black", "score"]);
    for (i, line) in report.theory.iter().enumerate() {
        for n in &line.nodes {
            let mut cells = vec![(i + 1).to_string(), n.ply.to_string(), n.san.clone(), n.uci.clone()];
            cells.extend(results_fields(&n.results));
            cells.push(format!("{:.3}", n.score));
            csv.row(cells);
        }
    }
    csv
}

fn move_orders_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "fen", "san", "uci", "games"]);
    for s in &report.subsets {
        for m in &s.move_orders {
            csv.row([s.label.clone(), m.fen.clone(), m.san.clone(), m.uci.clone(), m.games.to_string()]);
        }
    }
    csv
}

fn themes_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "theme", "expression", "games", "white", "draws", "black"]);
    for s in &report.subsets {
        for (theme, results) in report.themes.iter().zip(&s.themes) {
            let mut cells = vec![s.label.clone(), theme.name.clone(), theme.expression.clone()];
            cells.extend(results_fields(results));
            csv.row(cells);
        }
    }
    csv
}

fn endings_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "material", "games", "white", "draws", "black", "share"]);
    for s in &report.subsets {
        for e in &s.endings {
            let mut cells = vec![s.label.clone(), e.material.clone()];
            cells.extend(results_fields(&e.results));
            cells.push(format!("{:.3}", e.share));
            csv.row(cells);
        }
    }
    csv
}

fn lengths_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&["subset", "fromMove", "toMove", "games"]);
    for s in &report.subsets {
        for len in &s.lengths {
            csv.row([s.label.clone(), len.from_move.to_string(), len.to_move.to_string(), len.games.to_string()]);
        }
    }
    csv
}

fn players_csv(report: &OpeningReport) -> Csv {
    let mut csv =
        Csv::new(&["subset", "name", "color", "games", "white", "draws", "black", "score", "rating", "performance"]);
    for s in &report.subsets {
        for p in &s.players {
            let mut cells = vec![s.label.clone(), p.name.clone(), p.color.to_owned()];
            cells.extend(results_fields(&p.results));
            cells.extend([format!("{:.3}", p.score), opt(p.rating), opt(p.performance)]);
            csv.row(cells);
        }
    }
    csv
}

fn notable_csv(report: &OpeningReport) -> Csv {
    let mut csv = Csv::new(&[&["subset", "list"], &GAME_COLUMNS[..], &["plies", "uci"]].concat());
    for s in &report.subsets {
        for ((_, list), games) in notable_lists(s) {
            for g in games {
                let fields = [vec![s.label.clone(), list.to_owned()], game_fields(&g.summary)].concat();
                csv.row([fields, vec![g.plies.to_string(), opt(g.summary.uci.clone())]].concat());
            }
        }
    }
    csv
}
