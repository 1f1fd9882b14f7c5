//! The explorer page in Chess960, as a person uses it in headless Chromium: a link with
//! `variant=chess960` opens the variant's view, castling is played by clicking the king and then
//! its rook (the king takes its rook, lichess's convention) or by typing `O-O-O`, every table is
//! the API's own answer for the variant, the selector switches back to standard chess, the
//! opening report's link names the variant, and the book (standard chess's by its format) is
//! not offered in Chess960. Racing Kings, picked in the selector, shows its own start and games;
//! in Antichess a pawn promotes to a king from the promotion dialog, which offers one there only;
//! the status line names the winner of a game Atomic's explosion or Antichess's rule ended.

use crate::common::{
    browser::Browser,
    server::{json, start},
};
use crate::page::{
    NO_FILTERS, api_rows, board_fen, click, click_square, query, rows, table_settled, type_into, wait_until,
};
use tabiya::{indexer, store::Store};

/// Kings on b, rooks on a and e: either castling is one move away for both sides.
const FEN: &str = "rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 1";

/// An Antichess pawn one step from promoting, White without a king.
const KING_PROMOTION: &str = "8/P7/8/8/8/8/8/7k w - - 0 1";

/// Waits until the board stands on `fen`: the table's answer can arrive before the board is
/// redrawn, so a check of the board right after the table's would race it.
async fn board_settled(browser: &Browser, fen: &str) {
    let condition = format!("document.querySelector('#board svg').dataset.fen === {fen:?}");
    wait_until(browser, &condition, &format!("the board on {fen}")).await;
    assert_eq!(board_fen(browser).await, fen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess960_castles_on_the_page_as_the_king_taking_its_rook() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("chess960.pgn");
    let game = |result: &str, moves: &str| {
        format!("[Variant \"Chess960\"]\n[FEN \"{FEN}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n")
    };
    let standard = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n";
    let racing = "[Variant \"Racing Kings\"]\n[Result \"*\"]\n\n1. Kh3 Ka3 *\n\n";
    let antichess = format!("[Variant \"Antichess\"]\n[FEN \"{KING_PROMOTION}\"]\n[Result \"1-0\"]\n\n1. a8=K 1-0\n\n");
    let text = [game("1-0", "1. O-O O-O-O 2. d4"), game("0-1", "1. O-O-O O-O"), game("1/2-1/2", "1. O-O O-O")].concat()
        + standard
        + racing
        + &antichess;
    std::fs::write(&pgn, text).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
    assert_eq!(summary.run.counts.indexed, 6);
    drop(store);
    let server = start(&dir.path().join("db"));
    let base = format!("http://{}/", server.addr);
    let browser = Browser::start().await;
    let fen = FEN.replace(' ', "%20");
    let api = |path: &str| json(&server, &format!("/{path}&variant=chess960&fen={fen}")).1;
    let moved = |play: &str| api(&format!("move?play={play}"))["fen"].as_str().unwrap().to_owned();

    // A link to the variant's position: its table is /lichess's for chess960.
    browser.client.goto(&format!("{base}?variant=chess960&fen={fen}")).await.unwrap();
    table_settled(&browser, "", NO_FILTERS).await;
    assert_eq!(rows(&browser).await, api_rows(&api("lichess?moves=60")));
    assert_eq!(rows(&browser).await.len(), 2, "O-O twice, O-O-O once");
    assert_eq!(browser.eval("return document.querySelector('#variant-select').value").await, "chess960");
    let hidden = "return [document.querySelector('#report-link').hidden, document.querySelector('#book-line').hidden]";
    assert_eq!(browser.eval(hidden).await, serde_json::json!([false, true]));

    // Castling by clicking the king, then its rook: the king takes the rook, written O-O.
    click_square(&browser, "b1").await;
    click_square(&browser, "e1").await;
    table_settled(&browser, "b1e1", NO_FILTERS).await;
    board_settled(&browser, &moved("b1e1")).await;
    assert_eq!(rows(&browser).await, api_rows(&api("lichess?moves=60&play=b1e1")));
    let line = "return [...document.querySelectorAll('#line button')].map(b => b.textContent)";
    assert_eq!(browser.eval(line).await, serde_json::json!(["O-O"]));
    // Typing O-O-O plays Black's queen-side castling.
    type_into(&browser, "#move-input", "O-O-O").await;
    click(&browser, "#move-form button").await;
    table_settled(&browser, "b1e1,b8a8", NO_FILTERS).await;
    board_settled(&browser, &moved("b1e1,b8a8")).await;
    assert_eq!(browser.eval(line).await, serde_json::json!(["O-O", "O-O-O"]));
    assert_eq!(rows(&browser).await, vec![("d2d4".to_owned(), 1)]);
    let url = query(&browser).await;
    assert!(url.contains("variant=chess960") && url.contains("play=b1e1%2Cb8a8"), "{url}");
    // The opening report's link is the view's: it answers for the Chess960 position shown.
    let link = browser.eval("return document.querySelector('#report-link').href").await;
    let link = link.as_str().unwrap().replace(&base, "/");
    assert!(link.contains("variant=chess960"), "{link}");
    let (status, report) = json(&server, &format!("{link}&format=json"));
    assert_eq!((status, report["subsets"][0]["overview"]["games"].as_u64()), (200, Some(1)), "{report}");
    assert_eq!(report["variant"], "chess960");
    let shots = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    browser.screenshot(1200, &shots.join("page-chess960.png")).await;

    // Back to standard chess: its start and its one game; the book returns.
    browser
        .eval("const s = document.querySelector('#variant-select'); s.value = 'standard'; s.dispatchEvent(new Event('change')); return true")
        .await;
    wait_until(
        &browser,
        "document.querySelector('#moves').dataset.start === '' && document.querySelector('#moves').dataset.play === ''",
        "the standard start",
    )
    .await;
    wait_until(&browser, "document.querySelectorAll('#moves tbody tr[data-uci]').length === 1", "the standard table")
        .await;
    assert_eq!(rows(&browser).await, vec![("e2e4".to_owned(), 1)]);
    assert_eq!(browser.eval(hidden).await, serde_json::json!([false, false]));
    assert!(!query(&browser).await.contains("variant"));

    // Racing Kings: its own start on the board, its one game in the table, named in the link.
    browser
        .eval("const s = document.querySelector('#variant-select'); s.value = 'racingKings'; s.dispatchEvent(new Event('change')); return true")
        .await;
    board_settled(&browser, "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - -").await;
    wait_until(
        &browser,
        // Its own row, not the previous variant's table of one row still on the page.
        "document.querySelectorAll('#moves tbody tr[data-uci]').length === 1 && document.querySelector('#moves tbody tr[data-uci=\"h2h3\"]') !== null",
        "the Racing Kings table",
    )
    .await;
    assert_eq!(rows(&browser).await, vec![("h2h3".to_owned(), 1)]);
    assert!(query(&browser).await.contains("variant=racingKings"));
    browser.screenshot(1200, &shots.join("page-racing-kings.png")).await;
    // A link without a FEN starts from the variant's own start: one ply back is Racing Kings'.
    browser.client.goto(&format!("{base}?variant=racingKings&play=h2h3")).await.unwrap();
    let after = json(&server, "/move?variant=racingKings&play=h2h3").1["fen"].as_str().unwrap().to_owned();
    board_settled(&browser, &after).await;
    click(&browser, "#back").await;
    board_settled(&browser, "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - -").await;
    table_settled(&browser, "", NO_FILTERS).await;
    assert_eq!(rows(&browser).await, vec![("h2h3".to_owned(), 1)]);
    assert_eq!(browser.eval("return document.querySelector('#fen-error').textContent").await, "");
    assert_eq!(browser.eval(hidden).await, serde_json::json!([false, true]));

    // Antichess: the pawn's promotion offers a king, and the king is what the game played.
    let promotion = KING_PROMOTION.replace(' ', "%20");
    browser.client.goto(&format!("{base}?variant=antichess&fen={promotion}")).await.unwrap();
    board_settled(&browser, "8/P7/8/8/8/8/8/7k w - -").await;
    table_settled(&browser, "", NO_FILTERS).await;
    assert_eq!(rows(&browser).await, vec![("a7a8k".to_owned(), 1)]);
    click_square(&browser, "a7").await;
    click_square(&browser, "a8").await;
    wait_until(&browser, "!document.querySelector('#promotion').hidden", "the promotion dialog").await;
    let king_offered = "return !document.querySelector('#promotion [data-role=k]').hidden";
    assert_eq!(browser.eval(king_offered).await, serde_json::json!(true));
    browser.screenshot(1200, &shots.join("page-antichess-promotion.png")).await;
    click(&browser, "#promotion button[data-role=k]").await;
    board_settled(&browser, "K7/8/8/8/8/8/8/7k b - -").await;
    assert_eq!(browser.eval(line).await, serde_json::json!(["a8=K"]));
    assert!(query(&browser).await.contains("variant=antichess"));

    // The status line says who won a game the variant's rule ended: Black has no piece left
    // after the king takes the last one (Antichess), White's knight exploded Black's king.
    let status = "return document.querySelector('#status').textContent";
    let ended = [
        ("antichess", "7k/8/8/8/8/8/8/6K1 w - - 0 1", "g1h1,h8g8,h1g1,g8h8", "White to move"),
        ("antichess", "8/8/8/8/8/8/6k1/7K w - - 0 1", "h1g2", "Black wins: no pieces left"),
        ("atomic", "", "g1f3,e7e6,f3e5,a7a6,e5f7", "White wins: king exploded"),
    ];
    for (variant, start, play, said) in ended {
        let start = start.replace(' ', "%20");
        browser.client.goto(&format!("{base}?variant={variant}&fen={start}&play={play}")).await.unwrap();
        let fen = json(&server, &format!("/move?variant={variant}&fen={start}&play={play}")).1["fen"]
            .as_str()
            .unwrap()
            .to_owned();
        board_settled(&browser, &fen).await;
        wait_until(&browser, &format!("document.querySelector('#status').textContent === {said:?}"), said).await;
        assert_eq!(browser.eval(status).await, serde_json::json!(said), "{variant} {play}");
    }
    browser.screenshot(1200, &shots.join("page-atomic-exploded.png")).await;
    assert_eq!(browser.console_errors().await, Vec::<String>::new());
}
