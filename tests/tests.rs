//! The integration tests, in one binary: each module below links RocksDB's library once with the
//! others instead of once per file (a test binary takes some 75 MB and its own link).
//!
//! Tests that need something beyond the checkout are `#[ignore]`d with the reason, and run with
//! `cargo test -- --include-ignored` where it is there (the README's test command does so when
//! it finds the shared datasets and a browser): the shared real-data sets (`../shared/datasets`
//! beside the checkout, or `TABIYA_DATASETS`), and Chromium with chromedriver.

mod common;
#[path = "../tools/examples/db-digest.rs"]
mod db_digest;

mod annotations;
mod chess960;
mod chess960_games;
mod chess960_search;
mod cli;
mod crash;
mod damage;
mod database_report;
mod datasets;
mod distributed;
mod exhaustive;
mod explore;
mod export;
mod format;
mod headers;
mod hostile_input;
mod http;
mod http_reports;
mod ingest;
mod layering;
mod lichess_variants;
mod memory_limit;
mod opening_report;
mod page;
mod page_chess960;
mod pattern;
mod player_report;
mod players;
mod position_notes;
mod properties;
mod psqt;
mod reading;
mod replicas;
mod report;
mod scan_budget;
mod slow_clients;
mod summaries;
mod twins;
