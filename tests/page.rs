//! The explorer page as a person uses it: `tabiya serve` over generated games, driven in headless
//! Chromium by clicks, drags and keys, every view checked against the API's own answers. It also
//! leaves desktop and phone screenshots in `target/screenshots/` and prints the page's timings.

use crate::common;

use std::time::Duration;

use common::{
    browser::Browser,
    games::{build, generate},
    server::{Server, get, json, start},
};
use fantoccini::{
    Locator,
    actions::{InputSource as _, MOUSE_BUTTON_LEFT, MouseActions, PointerAction},
    key::Key,
};
use serde_json::Value;

/// Waits until the script expression `condition` is true. The page checks it every 10 ms
/// itself, so that waiting does not load the page with WebDriver round trips (which would skew
/// the timings it measures).
pub(crate) async fn wait_until(browser: &Browser, condition: &str, what: &str) {
    let script = format!(
        "return new Promise(resolve => {{ const started = performance.now(); \
           const check = () => {{ let ok = false; try {{ ok = Boolean({condition}); }} catch (_) {{}} \
             if (ok || performance.now() - started > 20000) resolve(ok); else setTimeout(check, 10); }}; check(); }})"
    );
    let done = browser.eval(&script).await;
    assert_eq!(done, Value::Bool(true), "timed out waiting for {what} ({condition})");
}

/// Waits until the explorer table shows the answer for the moves `play` under `filters` (a query
/// string).
pub(crate) async fn table_settled(browser: &Browser, play: &str, filters: &str) {
    let condition = format!(
        "document.querySelector('#moves').dataset.play === {play:?} && document.querySelector('#moves').dataset.filters === {filters:?}"
    );
    wait_until(browser, &condition, &format!("the answer for {play:?} {filters:?}")).await;
}

/// Waits until the page shows the moves `play` from `start` (empty: the initial position) under
/// `filters`: the table's answer is theirs and the board stands on the position `/move` says
/// they reach.
async fn settled(browser: &Browser, server: &Server, start: &str, play: &str, filters: &str) {
    table_settled(browser, play, filters).await;
    let start_fen = start.replace(' ', "%20");
    let fen = json(server, &format!("/move?fen={start_fen}&play={play}")).1["fen"].as_str().unwrap().to_owned();
    let condition = format!(
        "document.querySelector('#moves').dataset.start === {start:?} && document.querySelector('#board svg').dataset.fen === {fen:?}"
    );
    wait_until(browser, &condition, &format!("the board after {play:?} from {start:?}")).await;
}

/// The filters as the page writes them when none is set.
pub(crate) const NO_FILTERS: &str = "since=&until=&speeds=&ratings=&player=&color=";

pub(crate) async fn board_fen(browser: &Browser) -> String {
    browser
        .eval("return document.querySelector('#board svg').dataset.fen")
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The move table: (UCI, games) per row.
pub(crate) async fn rows(browser: &Browser) -> Vec<(String, u64)> {
    column(browser, "Number(r.dataset.games)").await
}

/// The move table: (UCI, the number `cell` reads from the row `r`) per row.
async fn column(browser: &Browser, cell: &str) -> Vec<(String, u64)> {
    let script =
        format!("return [...document.querySelectorAll('#moves tbody tr[data-uci]')].map(r => [r.dataset.uci, {cell}])");
    let value = browser.eval(&script).await;
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row[0].as_str().unwrap().to_owned(), row[1].as_u64().unwrap()))
        .collect()
}

async fn total(browser: &Browser) -> u64 {
    browser.eval("return Number(document.querySelector('#total-games').dataset.games)").await.as_u64().unwrap()
}

/// The move table's reached column: (UCI, games reaching the position after the move).
async fn reached_rows(browser: &Browser) -> Vec<(String, u64)> {
    column(browser, "Number(r.querySelector('td.reached').dataset.reached)").await
}

fn api_reached(answer: &Value) -> Vec<(String, u64)> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["uci"].as_str().unwrap().to_owned(), m["reached"]["games"].as_u64().unwrap()))
        .collect()
}

pub(crate) fn api_rows(answer: &Value) -> Vec<(String, u64)> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["uci"].as_str().unwrap().to_owned(), m["games"].as_u64().unwrap()))
        .collect()
}

/// The centre of a square in viewport pixels.
async fn square_centre(browser: &Browser, square: &str) -> (f64, f64) {
    let value = browser
        .eval(&format!(
            "const r = document.querySelector('rect[data-square=\"{square}\"]').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]"
        ))
        .await;
    (value[0].as_f64().unwrap(), value[1].as_f64().unwrap())
}

/// A mouse drag from one square to another, in steps, as a hand does it.
pub(crate) async fn drag(browser: &Browser, from: &str, to: &str) {
    let (x1, y1) = square_centre(browser, from).await;
    let (x2, y2) = square_centre(browser, to).await;
    let step = |x: f64, y: f64| PointerAction::MoveTo { duration: Some(Duration::from_millis(50)), x, y };
    let actions = MouseActions::new("mouse".to_owned())
        .then(step(x1, y1))
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(step(x1 + (x2 - x1) / 3.0, y1 + (y2 - y1) / 3.0))
        .then(step(x2, y2))
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    browser.client.perform_actions(actions).await.expect("drag");
    browser.client.release_actions().await.expect("release");
}

/// A mouse click on a square.
pub(crate) async fn click_square(browser: &Browser, square: &str) {
    let (x, y) = square_centre(browser, square).await;
    let actions = MouseActions::new("mouse".to_owned())
        .then(PointerAction::MoveTo { duration: None, x, y })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    browser.client.perform_actions(actions).await.expect("click");
    browser.client.release_actions().await.expect("release");
}

pub(crate) async fn click(browser: &Browser, selector: &str) {
    browser
        .client
        .find(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .click()
        .await
        .unwrap();
}

pub(crate) async fn type_into(browser: &Browser, selector: &str, text: &str) {
    let field = browser.client.find(Locator::Css(selector)).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

pub(crate) async fn query(browser: &Browser) -> String {
    browser.client.current_url().await.unwrap().query().unwrap_or_default().to_owned()
}

/// `/move`'s position after `play` from the initial position.
fn fen_after(server: &Server, play: &str) -> String {
    json(server, &format!("/move?play={play}")).1["fen"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explorer_page_works_in_a_browser() {
    let games = generate(300);
    let (dir, store) = build(&games);
    drop(store);
    // An opening table names the positions the rows lead to.
    let db = dir.path().join("db");
    let table = dir.path().join("openings.tsv");
    std::fs::write(&table, "eco\tname\tpgn\nA00\tAnderssen's Opening\t1. a3\nA00\tWare Opening\t1. a4\n").unwrap();
    let out = crate::common::tabiya(&["openings", "import", "--db", db.to_str().unwrap(), table.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = start(&db);
    let base = format!("http://{}/", server.addr);
    let browser = Browser::start().await;
    let client = &browser.client;

    // Loads with no console error; the start position's table is /masters's.
    client.goto(&base).await.unwrap();
    settled(&browser, &server, "", "", NO_FILTERS).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());
    let (_, masters) = json(&server, "/masters?moves=60");
    assert_eq!(rows(&browser).await, api_rows(&masters));
    // Each row's reached column is the answer's, its tooltip says what it counts.
    assert_eq!(reached_rows(&browser).await, api_reached(&masters));
    let tooltip = browser.eval("return document.querySelector('#moves td.reached').title").await;
    assert!(tooltip.as_str().unwrap().contains("by any move order"), "{tooltip}");
    // Each row's tooltip names the opening its move leads to, where the table names one.
    let titles =
        browser.eval("return [...document.querySelectorAll('#moves tbody tr[data-uci]')].map(r => r.title)").await;
    let expected: Vec<String> = masters["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match m["opening"].as_object() {
            Some(o) => format!(
                "Play {} ({} {})",
                m["san"].as_str().unwrap(),
                o["eco"].as_str().unwrap(),
                o["name"].as_str().unwrap()
            ),
            None => format!("Play {}", m["san"].as_str().unwrap()),
        })
        .collect();
    assert_eq!(titles, serde_json::json!(expected));
    assert!(expected.contains(&"Play a3 (A00 Anderssen's Opening)".to_owned()), "{expected:?}");
    assert_eq!(total(&browser).await, masters["games"].as_u64().unwrap());
    // Games without annotations: no evaluation or time column.
    let hidden = browser.eval("return ['#eval-head', '#time-head'].map(h => document.querySelector(h).hidden)").await;
    assert_eq!(hidden, serde_json::json!([true, true]));
    assert!(browser.eval("return document.querySelectorAll('#board use.piece').length").await == 32);
    wait_until(
        &browser,
        "!document.querySelector('#history').hidden && document.querySelectorAll('#history rect').length > 0",
        "the history chart",
    )
    .await;

    // Clicking the top move plays it: board, URL and table follow.
    let top = rows(&browser).await[0].0.clone();
    click(&browser, "#moves tbody tr[data-uci]").await;
    settled(&browser, &server, "", &top, NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, fen_after(&server, &top));
    assert!(query(&browser).await.contains(&format!("play={top}")));
    assert_eq!(rows(&browser).await, api_rows(&json(&server, &format!("/masters?moves=60&play={top}")).1));
    let moved_to = &top[2..4];
    assert_eq!(
        browser.eval(&format!("return !!document.querySelector('use.piece[data-square=\"{moved_to}\"]')")).await,
        true
    );

    // An illegal drag is refused and says so; a legal one plays.
    let before = board_fen(&browser).await;
    drag(&browser, "h7", "h4").await;
    wait_until(&browser, "document.querySelector('#status').textContent.includes('not a legal move')", "the refusal")
        .await;
    assert_eq!(board_fen(&browser).await, before);
    assert!(!query(&browser).await.contains("h7h4"));
    drag(&browser, "g8", "f6").await;
    let two = format!("{top},g8f6");
    settled(&browser, &server, "", &two, NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, fen_after(&server, &two));

    // Back and forward, by buttons and by keys, restore the views; so does the browser's back.
    click(&browser, "#back").await;
    settled(&browser, &server, "", &top, NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, fen_after(&server, &top));
    click(&browser, "#forward").await;
    settled(&browser, &server, "", &two, NO_FILTERS).await;
    client.find(Locator::Css("body")).await.unwrap().send_keys(&String::from(char::from(Key::Left))).await.unwrap();
    settled(&browser, &server, "", &top, NO_FILTERS).await;
    assert!(query(&browser).await.ends_with(&format!("play={top}")));
    for _ in 0..3 {
        let before = query(&browser).await;
        if !before.contains("play=") {
            break;
        }
        client.back().await.unwrap();
        // The next press waits for this one's URL: a late update must not make it overshoot.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while query(&browser).await == before && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    settled(&browser, &server, "", "", NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, fen_after(&server, ""));
    assert_eq!(rows(&browser).await, api_rows(&masters));

    // A typed move plays like a click.
    type_into(
        &browser,
        "#move-input",
        json(&server, &format!("/move?uci={top}")).1["line"][0]["san"].as_str().unwrap(),
    )
    .await;
    click(&browser, "#move-form button").await;
    settled(&browser, &server, "", &top, NO_FILTERS).await;

    // A promotion asks for the piece.
    type_into(&browser, "#fen-input", "8/P6k/8/8/8/8/8/K7 w - - 0 1").await;
    click(&browser, "#fen-form button").await;
    let promotion_start = "8/P6k/8/8/8/8/8/K7 w - -";
    settled(&browser, &server, promotion_start, "", NO_FILTERS).await;
    click_square(&browser, "a7").await;
    click_square(&browser, "a8").await;
    wait_until(&browser, "!document.querySelector('#promotion').hidden", "the promotion dialog").await;
    assert_eq!(board_fen(&browser).await, "8/P6k/8/8/8/8/8/K7 w - -", "nothing played before the choice");
    let king_offered = "return !document.querySelector('#promotion [data-role=k]').hidden";
    assert_eq!(browser.eval(king_offered).await, Value::Bool(false), "a king only in Antichess");
    click(&browser, "#promotion button[data-role=n]").await;
    settled(&browser, &server, promotion_start, "a7a8n", NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, "N7/7k/8/8/8/8/8/K7 b - -");
    // Its URL reproduces the view, and so does a start alone (the explorer is asked with the
    // link's FEN as given, counters included; the board shows it canonical).
    let link = query(&browser).await;
    client.goto(&format!("{base}?{link}")).await.unwrap();
    settled(&browser, &server, promotion_start, "a7a8n", NO_FILTERS).await;
    client.goto(&format!("{base}?fen=8/P6k/8/8/8/8/8/K7%20w%20-%20-%200%201")).await.unwrap();
    settled(&browser, &server, "8/P6k/8/8/8/8/8/K7 w - - 0 1", "", NO_FILTERS).await;
    assert_eq!(board_fen(&browser).await, promotion_start);

    // A date filter changes the counts as the API does; so does a player filter.
    client.goto(&base).await.unwrap();
    settled(&browser, &server, "", "", NO_FILTERS).await;
    click(&browser, "#filters summary").await;
    browser.eval("document.querySelector('[name=since]').value = '2005-01'").await;
    click(&browser, "#filter-form button[type=submit]").await;
    let since = "since=2005-01&until=&speeds=&ratings=&player=&color=";
    settled(&browser, &server, "", "", since).await;
    let (_, filtered) = json(&server, "/lichess?since=2005-01&moves=60");
    assert_eq!(total(&browser).await, filtered["games"].as_u64().unwrap());
    assert!(total(&browser).await < masters["games"].as_u64().unwrap());
    assert_eq!(rows(&browser).await, api_rows(&filtered));
    assert!(query(&browser).await.contains("since=2005-01"));
    type_into(&browser, "#filter-form [name=player]", "Doe, Player 3").await;
    click(&browser, "#filter-form button[type=submit]").await;
    settled(&browser, &server, "", "", "since=2005-01&until=&speeds=&ratings=&player=Doe%2C+Player+3&color=white")
        .await;
    let (_, _, body) = get(&server, "/player?player=Doe%2C%20Player%203&color=white&since=2005-01");
    let player: Value = serde_json::from_str(body.trim()).unwrap();
    let player_games: u64 = ["white", "draws", "black"].iter().map(|k| player[k].as_u64().unwrap()).sum();
    assert_eq!(total(&browser).await, player_games);
    assert!(player_games > 0);
    // The player box suggests players as a name is typed: /players's, most played first.
    browser
        .eval("const box = document.querySelector('#filter-form [name=player]'); box.value = 'Roe, Pl'; box.dispatchEvent(new Event('input'))")
        .await;
    wait_until(&browser, "document.querySelectorAll('#player-names option').length === 5", "player suggestions").await;
    let suggested =
        browser.eval("return [...document.querySelectorAll('#player-names option')].map(o => o.value)").await;
    let (_, expected) = json(&server, "/players?prefix=Roe,%20Pl&limit=8");
    let names: Vec<Value> = expected.as_array().unwrap().iter().map(|p| p["name"].clone()).collect();
    assert_eq!(suggested.as_array().unwrap(), &names);
    click(&browser, "#filter-reset").await;
    settled(&browser, &server, "", "", NO_FILTERS).await;
    assert_eq!(total(&browser).await, masters["games"].as_u64().unwrap());

    // The book link downloads the Polyglot book of the view and its filters: the bytes of
    // `tabiya export book` from the same position.
    let href = browser.eval("return document.querySelector('#book-link').getAttribute('href')").await;
    assert_eq!(href.as_str(), Some("book.bin?minGames=2"));
    let script = "return fetch(document.querySelector('#book-link').href).then(r => r.arrayBuffer())
        .then(b => [...new Uint8Array(b)].map(x => x.toString(16).padStart(2, '0')).join(''))";
    let downloaded = browser.eval(script).await;
    let book = dir.path().join("book.bin");
    let db = dir.path().join("db");
    let out = common::tabiya(&[
        "export",
        "book",
        "--db",
        db.to_str().unwrap(),
        "-o",
        book.to_str().unwrap(),
        "--min-games",
        "2",
    ]);
    assert!(out.status.success());
    let bytes = std::fs::read(&book).unwrap();
    assert!(bytes.len() >= 16 * 10);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(downloaded.as_str(), Some(hex.as_str()));

    // A game opens in the viewer, steps, jumps to a ply, and its PGN downloads.
    click(&browser, "#top-games button").await;
    wait_until(&browser, "!document.querySelector('#viewer').hidden", "the viewer").await;
    let id = browser.eval("return document.querySelector('#viewer-pgn').getAttribute('href').split('/').pop()").await;
    let id = id.as_str().unwrap().to_owned();
    let (_, game) = json(&server, &format!("/game/{id}"));
    let plies = game["moves"].as_array().unwrap();
    assert_eq!(board_fen(&browser).await, game["start"].as_str().unwrap());
    click(&browser, "#forward").await;
    wait_until(
        &browser,
        &format!("document.querySelector('#board svg').dataset.fen === {:?}", plies[0]["fen"].as_str().unwrap()),
        "ply 1",
    )
    .await;
    click(&browser, "#viewer-moves button[data-game-ply=\"6\"]").await;
    let ply6 = plies[5]["fen"].as_str().unwrap();
    wait_until(&browser, &format!("document.querySelector('#board svg').dataset.fen === {ply6:?}"), "ply 6").await;
    let six: Vec<&str> = plies[..6].iter().map(|p| p["uci"].as_str().unwrap()).collect();
    settled(&browser, &server, "", &six.join(","), NO_FILTERS).await;
    assert_eq!(browser.eval("return document.querySelector('#viewer-pgn').hasAttribute('download')").await, true);
    let downloaded = browser.eval("return fetch(document.querySelector('#viewer-pgn').href).then(r => r.text())").await;
    let (status, _, pgn) = get(&server, &format!("/masters/pgn/{id}"));
    assert_eq!(status, 200);
    assert_eq!(downloaded.as_str().unwrap(), pgn);
    assert!(pgn.contains(game["white"]["name"].as_str().unwrap()));

    // A material search lists positions; clicking one sets it on the board.
    let signature = "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP";
    type_into(&browser, "#search-input", signature).await;
    click(&browser, "#search-form button").await;
    wait_until(&browser, "document.querySelectorAll('#search-results button').length > 0", "search results").await;
    let (_, found) = json(&server, &format!("/material?material={signature}&limit=20"));
    let listed =
        browser.eval("return [...document.querySelectorAll('#search-results button')].map(b => b.dataset.fen)").await;
    let expected: Vec<Value> = found["hits"].as_array().unwrap().iter().map(|h| h["fen"].clone()).collect();
    assert_eq!(listed.as_array().unwrap(), &expected);
    // Under a filter, the search counts the games it keeps, as the API does.
    let set_since = |since: &'static str| {
        format!(
            "document.querySelector('[name=since]').value = '{since}'; document.querySelector('#filter-form').requestSubmit()"
        )
    };
    browser.eval(&set_since("2005-01")).await;
    click(&browser, "#search-form button").await;
    let (_, kept) = json(&server, &format!("/material?material={signature}&limit=20&since=2005-01"));
    assert!(kept["occurrences"].as_u64() < found["occurrences"].as_u64(), "the filter keeps fewer games");
    let shows = |answer: &Value| {
        let summary = format!("{} occurrences", answer["occurrences"].as_u64().unwrap());
        format!("document.querySelector('#search-summary').textContent.replace(/,/g, '').includes({summary:?})")
    };
    wait_until(&browser, &shows(&kept), "the filtered search").await;
    browser.eval(&set_since("")).await;
    click(&browser, "#search-form button").await;
    wait_until(&browser, &shows(&found), "the search without a filter").await;
    click(&browser, "#search-results button").await;
    let first_hit = expected[0].as_str().unwrap().to_owned();
    wait_until(
        &browser,
        &format!("document.querySelector('#board svg').dataset.fen === {first_hit:?}"),
        "the hit on the board",
    )
    .await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());

    // The opening report link names the position.
    client.goto(&format!("{base}?play={top}")).await.unwrap();
    settled(&browser, &server, "", &top, NO_FILTERS).await;
    let report = browser.eval("return document.querySelector('#report-link').href").await;
    assert!(report.as_str().unwrap().contains(&format!("report/opening?play={top}")), "{report}");

    // A bad FEN shows the server's error and keeps the position.
    let shown = board_fen(&browser).await;
    type_into(&browser, "#fen-input", "not a fen").await;
    click(&browser, "#fen-form button").await;
    wait_until(&browser, "document.querySelector('#fen-error').textContent.length > 0", "the FEN error").await;
    let (status, error) = json(&server, "/move?fen=not%20a%20fen");
    assert_eq!(status, 400);
    let message = browser.eval("return document.querySelector('#fen-error').textContent").await;
    assert_eq!(message, error["error"]);
    assert_eq!(board_fen(&browser).await, shown);
    // The browser logs the refused request itself, and nothing else.
    let errors = browser.console_errors().await;
    assert!(errors.iter().all(|e| e.contains("400")), "{errors:?}");

    // Desktop and phone: no horizontal scroll at 375 pixels; screenshots for a look.
    let shots = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    client.goto(&format!("{base}?play={top}")).await.unwrap();
    settled(&browser, &server, "", &top, NO_FILTERS).await;
    browser.screenshot(1200, &shots.join("page-desktop.png")).await;
    browser.set_width(375, 800).await;
    let scroll =
        browser.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]").await;
    assert!(scroll[0].as_u64() <= scroll[1].as_u64(), "horizontal scroll at 375 px: {scroll}");
    browser.screenshot(375, &shots.join("page-phone.png")).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());
    eprintln!("page timings: {}", browser.eval("return window.tabiyaTimings").await);
}

/// Annotated games: the table shows each move's mean evaluation (with its game count) and mean
/// time, the footer the position's evaluation, each as the API answers them, and the tooltip
/// says over how many games; a screenshot for a look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_evaluations_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    {
        let store = tabiya::store::Store::open(&db).unwrap();
        let pgn = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/annotated-lichess.pgn");
        tabiya::indexer::ingest(&store, &[pgn], &mut tabiya::indexer::SilentObserver).unwrap();
    }
    let server = start(&db);
    let browser = Browser::start().await;
    browser.client.goto(&format!("http://{}/?play=e2e4,e7e6", server.addr)).await.unwrap();
    settled(&browser, &server, "", "e2e4,e7e6", NO_FILTERS).await;
    let (_, answer) = json(&server, "/masters?moves=60&play=e2e4,e7e6");
    let hidden = browser.eval("return ['#eval-head', '#time-head'].map(h => document.querySelector(h).hidden)").await;
    assert_eq!(hidden, serde_json::json!([false, false]));
    assert_eq!(eval_cells(&browser).await, api_eval_cells(&answer));
    assert!(answer["moves"][0]["eval"]["games"].as_u64().unwrap() > 0, "{answer}");
    // The footer's is the position's, over the games whose move into it was evaluated.
    let footer = browser.eval("return Number(document.querySelector('#moves tfoot td.eval').dataset.games)").await;
    assert_eq!(footer, answer["eval"]["games"]);
    let title = browser.eval("return document.querySelector('#moves tbody td.eval').title").await;
    let games = answer["moves"][0]["eval"]["games"].as_u64().unwrap();
    assert!(title.as_str().unwrap().contains(&format!("over {games} game")), "{title}");
    let shots = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    assert_eq!(clipped_headers(&browser).await, Value::Array(vec![]));
    browser.screenshot(1200, &shots.join("page-notes.png")).await;
    browser.set_width(375, 800).await;
    let scroll =
        browser.eval("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]").await;
    assert!(scroll[0].as_u64() <= scroll[1].as_u64(), "horizontal scroll at 375 px: {scroll}");
    browser.screenshot(375, &shots.join("page-notes-phone.png")).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());

    // A player's games (`/player`) after 1. e4, where he had both colours: the columns are the
    // notes of his games with White.
    browser.set_width(1200, 900).await;
    browser.client.goto(&format!("http://{}/?play=e2e4", server.addr)).await.unwrap();
    settled(&browser, &server, "", "e2e4", NO_FILTERS).await;
    let (_, answer) = json(&server, "/masters?moves=60&play=e2e4");
    click(&browser, "#filters summary").await;
    type_into(&browser, "#filter-form [name=player]", "Adams, Michael").await;
    click(&browser, "#filter-form button[type=submit]").await;
    let filters = "since=&until=&speeds=&ratings=&player=Adams%2C+Michael&color=white";
    settled(&browser, &server, "", "e2e4", filters).await;
    let (_, _, body) = get(&server, "/player?player=Adams%2C%20Michael&color=white&play=e2e4&moves=60");
    let player: Value = serde_json::from_str(body.trim()).unwrap();
    let cells = eval_cells(&browser).await;
    assert_eq!(cells, api_eval_cells(&player));
    assert!(cells.iter().any(|(_, notes)| notes[0].is_some_and(|games| games > 0.0)), "{player}");
    let everyone: f64 = api_eval_cells(&answer).iter().filter_map(|(_, notes)| notes[0]).sum();
    let players: f64 = cells.iter().filter_map(|(_, notes)| notes[0]).sum();
    assert!(players < everyone, "the player's games are fewer: {players} of {everyone}");
    let footer = browser.eval("return Number(document.querySelector('#moves tfoot td.eval').dataset.games)").await;
    assert_eq!(footer, player["eval"]["games"]);
    // The footer's evaluation and its games fit their cell.
    let clipped = browser
        .eval("const c = document.querySelector('#moves tfoot td.eval'); return c.scrollWidth > c.clientWidth")
        .await;
    assert_eq!(clipped, Value::Bool(false));
    // A player's answer counts no games reaching the moves' positions: no such column.
    let reached =
        browser.eval("return [document.querySelector('#reached-head').hidden, document.querySelectorAll('#moves td.reached').length]").await;
    assert_eq!(reached, serde_json::json!([true, 0]));
    assert_eq!(clipped_headers(&browser).await, Value::Array(vec![]));
    browser.screenshot(1200, &shots.join("page-notes-player.png")).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());
}

/// The move table's headers shown whose text does not fit their cell.
async fn clipped_headers(browser: &Browser) -> Value {
    browser
        .eval("return [...document.querySelectorAll('#moves thead th')].filter(h => !h.hidden && (h.scrollWidth > h.clientWidth || h.scrollHeight > h.clientHeight)).map(h => h.textContent)")
        .await
}

/// The move rows' notes the page shows: (uci, [eval games, eval cp, seconds]), numbers as f64
/// (the page's 29 is the API's 29.0).
async fn eval_cells(browser: &Browser) -> Vec<(String, Vec<Option<f64>>)> {
    let shown = browser
        .eval(
            "return [...document.querySelectorAll('#moves tbody tr[data-uci]')].map(r => { \
               const e = r.querySelector('td.eval'), t = r.querySelector('td.time'); \
               return [r.dataset.uci, e.dataset.games ? Number(e.dataset.games) : null, \
                       e.dataset.cp ? Number(e.dataset.cp) : null, t.dataset.seconds ? Number(t.dataset.seconds) : null]; })",
        )
        .await;
    shown.as_array().unwrap().iter().map(|r| eval_row([&r[0], &r[1], &r[2], &r[3]])).collect()
}

/// An answer's move rows' notes, as [`eval_cells`] reads them from the page.
fn api_eval_cells(answer: &Value) -> Vec<(String, Vec<Option<f64>>)> {
    let moves = answer["moves"].as_array().unwrap().iter();
    moves.map(|m| eval_row([&m["uci"], &m["eval"]["games"], &m["eval"]["cp"], &m["time"]["seconds"]])).collect()
}

fn eval_row(row: [&Value; 4]) -> (String, Vec<Option<f64>>) {
    (row[0].as_str().unwrap().to_owned(), row[1..].iter().map(|v| v.as_f64()).collect())
}

/// The page's speed on a real database (`TABIYA_PAGE_DB`), as `tools/bench/page.sh` runs it:
/// the first answer on screen after a cold load, and each move's answer after its click (both
/// measured in the page, from navigation start and from the click), min / median / max.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TABIYA_PAGE_DB, a built database; run by tools/bench/page.sh"]
async fn page_timings() {
    let db = std::env::var_os("TABIYA_PAGE_DB").expect("TABIYA_PAGE_DB names a database");
    let server = start(std::path::Path::new(&db));
    let base = format!("http://{}/", server.addr);
    let browser = Browser::start().await;
    let summary = |label: &str, mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
        eprintln!(
            "  {label:<46} min {:>4.0} ms, median {:>4.0} ms, 90th percentile {:>4.0} ms, max {:>4.0} ms ({} runs)",
            at(0.0),
            at(0.5),
            at(0.9),
            at(1.0),
            values.len()
        );
    };
    let mut first = Vec::new();
    let mut moves = Vec::new();
    let mut server_ms = Vec::new();
    for _ in 0..10 {
        browser.client.goto("about:blank").await.unwrap();
        browser.client.goto(&base).await.unwrap();
        table_settled(&browser, "", NO_FILTERS).await;
        first.push(browser.eval("return window.tabiyaTimings.firstAnswer").await.as_f64().unwrap());
        // Down the most played line, 8 plies, clicking the top row each time.
        let mut play: Vec<String> = Vec::new();
        for _ in 0..8 {
            let Some((top, _)) = rows(&browser).await.into_iter().next() else { break };
            click(&browser, "#moves tbody tr[data-uci]").await;
            play.push(top);
            table_settled(&browser, &play.join(","), NO_FILTERS).await;
        }
        let timings = browser.eval("return window.tabiyaTimings.moves").await;
        moves.extend(timings.as_array().unwrap().iter().map(|t| t.as_f64().unwrap()));
        let served = browser
            .eval("return performance.getEntriesByType('resource').filter(e => e.name.includes('/lichess?')).map(e => e.responseEnd - e.requestStart)")
            .await;
        server_ms.extend(served.as_array().unwrap().iter().map(|t| t.as_f64().unwrap()));
    }
    eprintln!("page timings on {}:", std::path::Path::new(&db).display());
    summary("first answer on screen after navigation", first);
    summary("a move: click to its answer on screen", moves);
    summary("an explorer request (request to response end)", server_ms);
}
