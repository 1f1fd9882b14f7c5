//! Reports over HTTP as a client sees them: each format of the opening, player and database
//! reports answers what the command writes.

use crate::common;

use common::{
    server::{get, json, sample_db, start},
    tabiya,
};
use serde_json::Value;

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
