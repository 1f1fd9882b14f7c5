//! The folders' layering (docs/ARCHITECTURE.md), checked on the sources: the chess-and-data
//! folders name neither RocksDB nor the modules that run on the database, so that they could
//! build without it; nothing in the library names the binary's `cmd`; only the server knows
//! HTTP; and no file outside the store takes stored bytes apart.

use std::path::{Path, PathBuf};

/// Folders of `src/` without I/O: the lower layer.
const PURE: [&str; 7] = ["position", "codec", "model", "postings", "pattern", "psqt", "input"];
/// What the lower layer must not name.
const IMPURE: [&str; 9] = [
    "crate::store",
    "crate::indexer",
    "crate::explore",
    "crate::report",
    "crate::render",
    "crate::server",
    "rocksdb",
    "axum",
    "tokio",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code lines of a file (comments dropped) with their numbers.
fn code(path: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(at, line)| (at + 1, line.to_owned()))
        .collect()
}

/// Every line of the files under `folders` that names one of `names`.
fn offences(folders: &[&str], names: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for folder in folders {
        let path = src.join(folder);
        match path.is_dir() {
            true => rust_files(&path, &mut files),
            false => files.push(path),
        }
    }
    let mut found = Vec::new();
    for file in files {
        for (at, line) in code(&file) {
            if let Some(name) = names.iter().find(|name| line.contains(*name)) {
                found.push(format!("{}:{at}: {name}: {}", file.display(), line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_chess_and_data_folders_name_nothing_of_the_database() {
    assert_eq!(offences(&PURE, &IMPURE), Vec::<String>::new());
}

#[test]
fn the_library_does_not_name_the_binary_and_only_the_server_knows_http() {
    let library = ["position", "codec", "model", "postings", "pattern", "psqt", "input", "store", "indexer"];
    let above = ["explore", "report", "render", "lib.rs"];
    assert_eq!(
        offences(&[&library[..], &above[..], &["server"]].concat(), &["crate::cmd", "mod cmd"]),
        Vec::<String>::new()
    );
    assert_eq!(offences(&[&library[..], &above[..]].concat(), &["axum", "tokio", "hyper"]), Vec::<String>::new());
}

#[test]
fn no_file_outside_the_store_reads_stored_bytes() {
    let outside = ["explore", "report", "render", "server", "indexer", "cmd"];
    // The layouts are the store's: other modules get typed values from it.
    let names = ["layout::", "StoredValue::parse", "rocksdb"];
    assert_eq!(offences(&outside, &names), Vec::<String>::new());
}
