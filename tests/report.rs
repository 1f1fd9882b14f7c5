//! Reports as a person sees them: written by the binary, opened in headless Chromium, checked
//! for console errors, visible boards and charts, and no horizontal scroll on a phone; full-page
//! screenshots go to `target/screenshots/` for a look.

use crate::common;

use std::path::{Path, PathBuf};

use common::{
    browser::Browser,
    datasets,
    games::{build, generate},
    tabiya,
};

fn write_report(args: &[&str], path: &Path) {
    let mut all = vec!["report"];
    if !["opening", "player", "database"].iter().any(|kind| args.contains(kind)) {
        all.push("psqt");
    }
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", path.to_str().unwrap()]);
    let out = tabiya(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots")
}

/// Opens `path`, and checks what a reader would: no console errors, every board and chart drawn
/// with a size, `boards` boards and `charts` charts, nothing wider than a phone at 375 pixels.
async fn check_page(browser: &Browser, path: &Path, (boards, charts): (usize, usize), name: &str) {
    browser.client.goto(&format!("file://{}", path.display())).await.unwrap();
    assert_eq!(browser.console_errors().await, Vec::<String>::new(), "{name}");
    let drawn = browser.sizes("svg.board").await;
    assert_eq!(drawn.len(), boards, "{name}");
    let charts_drawn = browser.sizes("svg.chart").await;
    assert_eq!(charts_drawn.len(), charts, "{name}");
    let charts = charts_drawn;
    for (w, h) in drawn.iter().chain(&charts) {
        assert!(*w > 50.0 && *h > 50.0, "{name}: an SVG of {w}×{h}");
    }
    browser.screenshot(1200, &screenshots().join(format!("{name}-desktop.png"))).await;
    browser.set_width(375, 800).await;
    let scroll =
        browser.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]").await;
    assert!(scroll[0].as_u64() <= scroll[1].as_u64(), "{name}: horizontal scroll at 375 px: {scroll}");
    browser.screenshot(375, &screenshots().join(format!("{name}-phone.png"))).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new(), "{name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psqt_reports_render_in_a_browser() {
    let games = generate(120);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let derived = dir.path().join("derived.html");
    write_report(&["--db", db.to_str().unwrap(), "--components", "4", "--generations", "1000"], &derived);
    let html = std::fs::read_to_string(&derived).unwrap();
    for forbidden in ["http://", "https://", "<script", "<link", "src="] {
        // The SVG namespace is an identifier, not a fetch.
        let count = html.matches(forbidden).count()
            - html.matches("http://www.w3.org/2000/svg").count() * usize::from(forbidden == "http://");
        assert_eq!(count, 0, "{forbidden} in a self-contained report");
    }
    let browser = Browser::start().await;
    // Frequencies, scores and tables (12 each), 12 × (original, approximation, difference), 4 components.
    check_page(&browser, &derived, (12 * 3 + 36 + 4, 1), "psqt-derived").await;
}

/// The piece-square report of PeSTO's tables read from a file deep in a long directory name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the shared datasets (../shared/datasets beside the checkout, or TABIYA_DATASETS)"]
async fn pesto_report_renders_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let pesto = dir.path().join("pesto.html");
    // A long path with no break opportunity, as a clean clone deep in a CI tree gives: the lead
    // line names it and must wrap rather than widen the page.
    let deep = dir.path().join("a_collection_kept_in_a_directory_whose_name_is_much_longer_than_a_phone_is_wide");
    std::fs::create_dir(&deep).unwrap();
    let input = deep.join("pesto.csv");
    std::fs::copy(datasets().join("psqt/pesto.csv"), &input).unwrap();
    write_report(&["--input", input.to_str().unwrap(), "--components", "8", "--generations", "3000"], &pesto);
    let browser = Browser::start().await;
    check_page(&browser, &pesto, (12 + 36 + 8, 1), "psqt-pesto").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_reports_render_in_a_browser() {
    let games = generate(300);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let page = dir.path().join("opening.html");
    let uci: Vec<String> =
        games[0].moves[..2].iter().map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string()).collect();
    let uci = uci.join(",");
    let args =
        ["opening", "--db", db.to_str().unwrap(), "--uci", &uci, "--versus", "--min-rating 2300", "--lines", "3"];
    write_report(&args, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script") && !html.contains("https://"), "a self-contained report");
    let browser = Browser::start().await;
    // The position and the end of each of the 3 theory lines; popularity, rating and length charts.
    check_page(&browser, &page, (1 + 3, 3), "opening").await;
    // The pieces are drawn on the position's board.
    let glyphs = browser.eval("return document.querySelector('svg.board').querySelectorAll('text').length").await;
    assert_eq!(glyphs.as_u64(), Some(32 + 16), "32 pieces after two quiet plies, 16 coordinates");
}

/// The opening report of annotated games: the overview's evaluation and the move table's Eval,
/// Loss and Time columns as a reader sees them, equal to the JSON report's figures; with
/// `--versus`, the second subset's columns too, on rows of both subsets' moves and of moves only
/// the second played.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_reports_show_evaluations_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let pgn = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/annotated-lichess.pgn");
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let browser = Browser::start().await;
    let cases = [(None, None), (None, Some("--result 1-0")), (Some("1/2-1/2"), Some("--result 1-0"))];
    for (case, (main_result, versus)) in cases.into_iter().enumerate() {
        let (page, json) = (dir.path().join("opening.html"), dir.path().join("opening.json"));
        let mut args = vec!["opening", "--db", db.to_str().unwrap(), "--moves", "1. e4", "--lines", "3"];
        args.extend(main_result.map(|result| ["--result", result]).into_iter().flatten());
        args.extend(versus.map(|filter| ["--versus", filter]).into_iter().flatten());
        write_report(&args, &page);
        write_report(&[&args[..], &["--format", "json"]].concat(), &json);
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let name = ["opening-notes", "opening-notes-versus", "opening-notes-versus-apart"][case];
        check_page(&browser, &page, (1 + 3, 3), name).await;
        let table = browser
            .eval("return [...document.querySelectorAll('#moves tr')].map(tr => [...tr.children].map(c => c.textContent))")
            .await;
        let rows: Vec<Vec<String>> = serde_json::from_value(table).unwrap();
        let header = &rows[0];
        assert!(rows.iter().all(|row| row.len() == header.len()), "a cell a column: {rows:?}");
        let column =
            |name: String| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name} in {header:?}"));
        let subsets = report["subsets"].as_array().unwrap();
        assert_eq!(subsets.len(), 1 + usize::from(versus.is_some()));
        for (at, subset) in subsets.iter().enumerate() {
            let suffix = if at == 0 { String::new() } else { format!(" ({})", subset["label"].as_str().unwrap()) };
            let (eval, loss, time) =
                (column(format!("Eval{suffix}")), column(format!("Loss{suffix}")), column(format!("Time{suffix}")));
            let moves = subset["moves"].as_array().unwrap();
            let mut checked = 0;
            let noted = |m: &&serde_json::Value| {
                m["eval"]["cp"].is_number() && m["loss"]["cp"].is_number() && m["time"]["seconds"].is_number()
            };
            for m in moves.iter().filter(noted) {
                let what = m["san"].as_str().unwrap();
                let row = rows[1..].iter().find(|row| row[0] == what).unwrap_or_else(|| panic!("{what}'s row"));
                let e = &m["eval"];
                assert_eq!(row[eval], format!("{:+.2} ({})", e["cp"].as_f64().unwrap() / 100.0, e["games"]), "{what}");
                let l = &m["loss"];
                let mistakes = 100.0 * l["mistakes"].as_f64().unwrap();
                assert_eq!(row[loss], format!("{:.0} ({mistakes:.0}%)", l["cp"].as_f64().unwrap()), "{what}");
                assert_eq!(row[time], format!("{:.1} s", m["time"]["seconds"].as_f64().unwrap()), "{what}");
                checked += 1;
            }
            assert!(checked >= 2, "subset {at}: {checked} moves with notes");
            if at == 0 {
                let apart = subsets.get(1).map_or(0, |v| only_in(v, subset));
                assert_eq!(rows.len() - 1, moves.len() + apart);
                // The third case has rows of moves only the second subset played.
                assert_eq!(apart > 0, case == 2, "{apart} moves apart");
            }
        }
        if case == 2 {
            continue;
        }
        let overview = report["subsets"][0]["overview"]["eval"].clone();
        let games = overview["games"].as_u64().unwrap();
        assert!(games > 10, "{overview}");
        let shown = format!("{:+.2} ({games} games)", overview["cp"].as_f64().unwrap() / 100.0);
        let cells = browser.eval("return [...document.querySelectorAll('#overview td')].map(c => c.textContent)").await;
        let cells: Vec<String> = serde_json::from_value(cells).unwrap();
        let at = cells.iter().position(|c| c == "Engine evaluation (White's view)").expect("the evaluation row");
        assert_eq!(cells[at + 1], shown);
    }
}

/// Moves of subset `versus` that `main` did not play (rows of their own in the move table).
fn only_in(versus: &serde_json::Value, main: &serde_json::Value) -> usize {
    let played = |s: &serde_json::Value, uci: &serde_json::Value| {
        s["moves"].as_array().unwrap().iter().any(|m| m["uci"] == *uci)
    };
    versus["moves"].as_array().unwrap().iter().filter(|m| !played(main, &m["uci"])).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn player_reports_render_in_a_browser() {
    let games = generate(300);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let page = dir.path().join("player.html");
    write_report(&["player", "--db", db.to_str().unwrap(), "Doe, Player 3"], &page);
    let browser = Browser::start().await;
    // Score by year and by opponent rating; no boards.
    check_page(&browser, &page, (0, 2), "player").await;
    let rows = browser.eval("return document.querySelectorAll('#repertoire tbody tr').length").await;
    assert!(rows.as_u64().is_some_and(|n| n > 2), "repertoire rows: {rows}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_reports_render_in_a_browser() {
    let games = generate(300);
    let (dir, _store) = build(&games);
    let db = dir.path().join("db");
    let page = dir.path().join("database.html");
    write_report(&["database", "--db", db.to_str().unwrap()], &page);
    let browser = Browser::start().await;
    // The top position of plies 1 to 6; games per year and the rating histogram.
    check_page(&browser, &page, (6, 2), "database").await;
    let classes = browser.eval("return document.querySelectorAll('#endgames tbody tr').length").await;
    assert!(classes.as_u64().is_some_and(|n| n > 5), "endgame rows: {classes}");
}
