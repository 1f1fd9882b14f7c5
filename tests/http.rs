//! The HTTP API as a client sees it: `tabiya serve` over a database of the embedded sample,
//! status codes, JSON shapes and the lichess explorer's field names, and bad input.

mod common;

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::TcpStream,
    path::Path,
    process::{Child, Stdio},
};

use common::tabiya;
use serde_json::Value;

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(db: &Path) -> Server {
    let mut child = common::command()
        .args(["serve", "--bind", "127.0.0.1:0", "--refresh", "0.2", "--db", db.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("{line:?}")).to_owned();
    Server { child, addr }
}

/// A GET: status, content type and body.
fn get(server: &Server, path: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_owned))
        .unwrap_or_default();
    (status, content_type, body.to_owned())
}

fn json(server: &Server, path: &str) -> (u16, Value) {
    let (status, content_type, body) = get(server, path);
    assert!(content_type.starts_with("application/json"), "{path}: {content_type}");
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
}

fn sample_db(dir: &Path) -> std::path::PathBuf {
    let pgn = dir.join("sample.pgn");
    std::fs::write(&pgn, include_str!("../datasets/sample.pgn")).unwrap();
    let db = dir.join("db");
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), pgn.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = tabiya(&["openings", "import", "--db", db.to_str().unwrap(), "datasets/openings-sample.tsv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

const ITALIAN_PLAY: &str = "e2e4,e7e5,g1f3,b8c6,f1c4,f8c5";

#[test]
fn explorer_endpoints_answer_in_the_lichess_shape() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&sample_db(dir.path()));

    let (status, body) = json(&server, "/health");
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));

    let (status, masters) = json(&server, &format!("/masters?play={ITALIAN_PLAY}"));
    assert_eq!(status, 200);
    for field in ["white", "draws", "black", "moves", "topGames", "opening"] {
        assert!(masters.get(field).is_some(), "masters has {field}: {masters}");
    }
    assert!(masters.get("recentGames").is_none(), "the masters API has no recent games");
    assert_eq!(
        (masters["white"].as_u64(), masters["draws"].as_u64(), masters["black"].as_u64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(masters["opening"]["eco"], "C50");
    assert_eq!(masters["opening"]["name"], "Italian Game: Giuoco Piano");
    let moves = masters["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    for m in moves {
        for field in ["uci", "san", "white", "draws", "black", "averageRating", "game"] {
            assert!(m.get(field).is_some(), "move has {field}: {m}");
        }
    }
    let top = &masters["topGames"][0];
    for field in ["id", "uci", "winner", "white", "black", "year"] {
        assert!(top.get(field).is_some(), "top game has {field}: {top}");
    }
    assert!(top["white"]["name"].is_string());

    // The same position by FEN; the lichess endpoint adds recent games.
    let fen = masters["fen"].as_str().unwrap().replace(' ', "%20").replace('/', "%2F");
    let (status, lichess) = json(&server, &format!("/lichess?variant=standard&fen={fen}&recentGames=1&topGames=1"));
    assert_eq!(status, 200);
    assert_eq!(lichess["white"], masters["white"]);
    assert_eq!(lichess["recentGames"].as_array().map(Vec::len), Some(1));
    assert_eq!(lichess["topGames"].as_array().map(Vec::len), Some(1));

    // Filters: the 19th-century game only; then a speed no sample game has.
    let (_, old) = json(&server, &format!("/masters?play={ITALIAN_PLAY}&until=1900"));
    assert_eq!((old["white"].as_u64(), old["draws"].as_u64()), (Some(1), Some(0)));
    let (_, none) = json(&server, &format!("/lichess?play={ITALIAN_PLAY}&speeds=blitz"));
    assert_eq!(none["white"].as_u64(), Some(0));
    assert_eq!(none["moves"].as_array().map(Vec::len), Some(0));

    // A game as PGN, which tabiya reads back.
    let id = top["id"].as_str().unwrap();
    let (status, content_type, pgn) = get(&server, &format!("/masters/pgn/{id}"));
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/x-chess-pgn"), "{content_type}");
    assert!(pgn.contains("[White \"Sample A\"]") && pgn.contains("1. Nf3 Nc6 2. e4 e5"), "{pgn}");
    assert!(pgn.lines().all(|l| l.len() <= 80 && !l.ends_with('.')), "{pgn}");
    let reread = dir.path().join("reread.pgn");
    std::fs::write(&reread, &pgn).unwrap();
    let out =
        tabiya(&["ingest", "--json", "--db", dir.path().join("reread-db").to_str().unwrap(), reread.to_str().unwrap()]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["indexed"], 1);

    let (status, material) = json(&server, "/material?material=KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP&limit=3");
    assert_eq!(status, 200);
    assert!(material["positions"].as_u64().unwrap() > 10);
    assert_eq!(material["hits"].as_array().map(Vec::len), Some(3));
    assert_eq!(material["hits"][0]["games"], 4, "the initial position: four sample games start there");

    // The games reaching a position, paged, and as PGN.
    let (status, games) = json(&server, "/games?play=e2e4&perPage=2&page=2");
    assert_eq!(status, 200);
    assert_eq!(games["total"], 3);
    let listed = games["games"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "page 2 of 2-game pages holds the third game");
    for field in ["id", "white", "black", "whiteElo", "blackElo", "date", "event", "site", "round", "result"] {
        assert!(listed[0].get(field).is_some(), "game has {field}: {games}");
    }
    let italian = masters["fen"].as_str().unwrap().replace(' ', "%20").replace('/', "%2F");
    let (_, not) = json(&server, &format!("/games?play=e2e4&not={italian}&sort=date"));
    assert_eq!(not["total"], 2, "the Opera game and the Immortal");
    let (status, content_type, pgn) = get(&server, &format!("/games.pgn?play=e2e4&not={italian}"));
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/x-chess-pgn"), "{content_type}");
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");

    // Pattern search and the games it reaches.
    let (status, mates) = json(&server, "/pattern?q=mate&limit=5");
    assert_eq!(status, 200, "{mates}");
    for field in ["positions", "occurrences", "games", "white", "draws", "black", "scanned", "elapsedMs", "hits"] {
        assert!(mates.get(field).is_some(), "{field}");
    }
    assert!(mates["games"].as_u64() >= Some(1));
    let (status, games) = json(&server, "/games?pattern=mate&perPage=100");
    assert_eq!(status, 200);
    assert_eq!(games["total"], mates["games"]);
    // Spellings of one search share a kept list; pages put together are the whole list.
    let (_, spaced) = json(&server, "/games?pattern=%20mate%20&flip=false&perPage=100");
    assert_eq!(spaced["games"], games["games"]);
    let mut paged = Vec::new();
    for page in 1..=games["total"].as_u64().unwrap() {
        let (_, one) = json(&server, &format!("/games?pattern=mate&perPage=1&page={page}"));
        assert_eq!(one["total"], games["total"]);
        paged.push(one["games"][0]["id"].clone());
    }
    let all: Vec<_> = games["games"].as_array().unwrap().iter().map(|g| g["id"].clone()).collect();
    assert_eq!(paged, all);
    let (_, flipped) = json(&server, "/pattern?q=Pa-h7%20and%20wtm&flip=true&material=KQRRBBNNP*vKQRRBBNNP*");
    assert!(flipped.get("positions").is_some(), "{flipped}");

    let (status, stats) = json(&server, "/stats");
    assert_eq!((status, stats["games"].as_u64()), (200, Some(5)));
}

#[test]
fn bad_requests_are_400_with_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&sample_db(dir.path()));
    let long = "e2e4,".repeat(1000);
    for path in [
        "/masters?fen=not%20a%20fen",
        "/masters?play=e2e5",
        "/masters?play=zzzz",
        "/masters?since=20x0",
        "/masters?moves=-1",
        "/masters?topGames=many",
        "/lichess?speeds=hyperbullet",
        "/lichess?ratings=1234",
        "/lichess?variant=atomic",
        "/masters?fen=8%2F8%2F8%2F8%2F8%2F8%2F8%2F8%20w%20-%20-",
        "/material",
        "/material?material=KQQQQQQQQQQvK",
        "/material?material=KvK&side=x",
        "/masters/pgn/abc",
        &format!("/masters?play={long}"),
        "/masters?fen=%FF",
        "/games?sort=oldest",
        "/games?page=x",
        "/games?and=not%20a%20fen",
        "/pattern",
        "/pattern?q=attacks(Q%2C%20k",
        "/pattern?q=Ke1&flip=maybe",
        "/pattern?q=Ke1&side=x",
        "/pattern?q=Ke1&material=KvQ",
        "/games?pattern=Kz9",
        "/games?pattern=mate&play=e2e4",
        "/report/opening?format=pdf",
        "/report/opening?format=csv",
        "/report/opening?format=csv&table=nothing",
        "/report/opening?theme=count(Q",
        "/report/opening?play=e2e5",
        "/report/opening?color=white",
        "/report/opening?depth=x",
        "/report/opening?versus=since%3D20x0",
        "/report/opening?player=%2C",
        "/report/player",
        "/report/player?name=anderssen&color=purple",
        "/report/player?name=anderssen&minShare=200",
        "/report/player?name=anderssen&format=csv&table=nothing",
        "/report/database?plies=x",
        "/report/database?format=xml",
    ] {
        let (status, body) = json(&server, path);
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {body}");
    }
    let (status, body) = json(&server, "/masters/pgn/999999");
    assert_eq!(status, 404, "{body}");
    let (status, body) = json(&server, "/no/such/endpoint");
    assert_eq!(status, 404, "{body}");
    // Counts above the API's maxima are clamped, as lichess does.
    let (status, body) = json(&server, "/masters?topGames=1000&moves=100000");
    assert_eq!(status, 200);
    assert!(body["topGames"].as_array().unwrap().len() <= 15);
}

#[test]
fn a_running_server_sees_what_a_later_ingest_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);
    let (_, before) = json(&server, "/stats");
    let (_, none) = json(&server, "/games?pattern=Ph4%20and%20pa5");
    assert_eq!(none["total"], 0, "{none}");
    let more = dir.path().join("more.pgn");
    std::fs::write(&more, "[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n\n1. h4 a5 1-0\n").unwrap();
    let out = tabiya(&["ingest", "--db", db.to_str().unwrap(), more.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The server catches up every 0.2 s here.
    let mut games = 0;
    for _ in 0..50 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        games = json(&server, "/stats").1["games"].as_u64().unwrap();
        if games == before["games"].as_u64().unwrap() + 1 {
            break;
        }
    }
    assert_eq!(games, 6);
    let (_, h4) = json(&server, "/masters?play=h2h4");
    assert_eq!(h4["white"], 1);
    // A pattern's game list kept from before the ingest is not served after it.
    let (_, after) = json(&server, "/games?pattern=Ph4%20and%20pa5");
    assert_eq!(after["total"], 1, "{after}");
}

#[test]
fn opening_reports_over_http_equal_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);
    let out = tabiya(&["report", "opening", "--db", db.to_str().unwrap(), "--uci", "e2e4,e7e5", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let command: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (status, served) = json(&server, "/report/opening?play=e2e4,e7e5&format=json");
    assert_eq!(status, 200, "{served}");
    assert_eq!(served, command);
    assert!(served["subsets"][0]["overview"]["games"].as_u64().unwrap() > 0);
    let (status, content_type, body) = get(&server, "/report/opening?play=e2e4,e7e5");
    assert_eq!((status, content_type.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.starts_with("<!DOCTYPE html>") && body.contains("svg class=\"board\""));
    let (status, content_type, body) = get(&server, "/report/opening?play=e2e4,e7e5&format=csv&table=moves");
    assert_eq!((status, content_type.as_str()), (200, "text/csv; charset=utf-8"));
    let rows = served["subsets"][0]["moves"].as_array().unwrap().len();
    assert!(body.starts_with("subset,uci,san,games,") && body.split("\r\n").count() - 2 == rows, "{body}");
    // A second subset, its filters as a query string of their own.
    let (_, versus) = json(&server, "/report/opening?play=e2e4,e7e5&format=json&versus=since%3D2100");
    assert_eq!(versus["subsets"][0], served["subsets"][0]);
    assert_eq!(
        (versus["subsets"][1]["label"].as_str(), versus["subsets"][1]["overview"]["games"].as_u64()),
        (Some("since=2100"), Some(0))
    );
    // Filters as the explorer takes them.
    let (_, since) = json(&server, "/report/opening?play=e2e4,e7e5&format=json&since=2100");
    assert_eq!(since["subsets"][0]["overview"]["games"], 0);
    assert_eq!(since["subsets"][0]["label"], "since=2100");
}

#[test]
fn player_reports_over_http_equal_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);
    let out = tabiya(&["report", "player", "--db", db.to_str().unwrap(), "anderssen", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let command: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (status, served) = json(&server, "/report/player?name=anderssen&format=json");
    assert_eq!(status, 200, "{served}");
    assert_eq!(served, command);
    assert_eq!(served["names"][0]["name"], "Anderssen, Adolf");
    let (status, content_type, body) = get(&server, "/report/player?name=anderssen");
    assert_eq!((status, content_type.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("Anderssen, Adolf"));
    let (status, _, body) = get(&server, "/report/player?name=anderssen&format=csv&table=overview");
    assert_eq!(status, 200);
    assert!(body.starts_with("which,games,wins,"), "{body}");
}

#[test]
fn database_reports_over_http_equal_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let server = start(&db);
    let out = tabiya(&["report", "database", "--db", db.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let command: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (status, served) = json(&server, "/report/database?format=json");
    assert_eq!(status, 200, "{served}");
    assert_eq!(served, command);
    // The sample's opening table names its games' openings.
    assert_eq!(served["openingTable"], true);
    assert!(!served["openings"].as_array().unwrap().is_empty());
    let (status, content_type, body) = get(&server, "/report/database");
    assert_eq!((status, content_type.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("Endgames"));
}
