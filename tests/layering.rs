//! The layering (docs/ARCHITECTURE.md), checked on the sources. The compiler keeps the
//! chess-and-data layers (`crates/core`) apart from the database: that crate cannot name it.
//! Here: `input` names nothing of the database either; nothing in the library names the
//! binary's `cmd`; only the server knows HTTP; and no file outside the store, the Python
//! binding included, takes stored bytes apart.
//!
//! Paths are read as the compiler reads them: `use crate::{store::{layout::X, ..}, ..}` names
//! `crate::store::layout::X`, so a grouped import hides nothing.

use std::path::{Path, PathBuf};

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

/// The source without its comments (line and block, doc comments included), strings and
/// character literals (`'"'` opens no string; a lifetime `'a` stays).
fn code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        i += 1;
        match c {
            '/' if next == Some('/') => {
                while chars.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut last = ' ';
                for &c in &chars[i + 1..] {
                    i += 1;
                    if last == '*' && c == '/' {
                        break;
                    }
                    if c == '\n' {
                        out.push('\n');
                    }
                    last = c;
                }
                i += 1;
            }
            '"' => {
                while let Some(&c) = chars.get(i) {
                    i += 1;
                    match c {
                        '\\' => i += 1,
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            // An escaped character ('\n', '\'', '\u{..}'), then a plain one ('"').
            '\'' if next == Some('\\') => {
                i += 2;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if chars.get(i + 1) == Some(&'\'') => {
                i += 2;
                out.push_str("' '");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every path a file names, grouped imports expanded: `use a::{b, c::{d, e}}` gives `a::b`,
/// `a::c::d` and `a::c::e`; other paths (`crate::store::Store::open`) as written.
fn paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        expand("", &rest[..end], &mut found);
        rest = &rest[end..];
    }
    // Paths in code: each run of identifiers joined by `::`.
    let mut current = String::new();
    for c in code.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            current.push(c);
        } else {
            if current.contains("::") {
                found.push(current.trim_matches(':').to_owned());
            }
            current.clear();
        }
    }
    found
}

/// Expands one `use` tree under `prefix` into `out` (`a as b` names `a`).
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let name = tree.split(" as ").next().unwrap_or(tree).trim();
        let name: String = name.split_whitespace().collect();
        if !name.is_empty() {
            out.push(format!("{prefix}{name}"));
        }
        return;
    };
    let head: String = tree[..open].split_whitespace().collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    // Split the inner list at the commas of its own level.
    let (mut depth, mut start) = (0, 0);
    let bytes = inner.as_bytes();
    for at in 0..=bytes.len() {
        match bytes.get(at) {
            Some(b'{') => depth += 1,
            Some(b'}') => depth -= 1,
            Some(b',') | None if depth == 0 => {
                expand(&format!("{prefix}{head}"), &inner[start..at], out);
                start = at + 1;
            }
            _ => {}
        }
    }
}

/// Every path under `folders` (of `root`) that starts with one of `names`, with its file.
fn offences(root: &str, folders: &[&str], names: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    let mut files = Vec::new();
    for folder in folders {
        let path = root.join(folder);
        match path.is_dir() {
            true => rust_files(&path, &mut files),
            false => files.push(path),
        }
    }
    let mut found = Vec::new();
    for file in files {
        let code = code(&std::fs::read_to_string(&file).unwrap());
        for path in paths(&code) {
            if let Some(name) = names.iter().find(|name| path.starts_with(*name) || path.contains(&format!("::{name}")))
            {
                found.push(format!("{}: {name}: {path}", file.display()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn grouped_imports_are_read_as_the_paths_they_name() {
    let code =
        code("use crate::{\n    store::{Snapshot, layout::{Detail, X as Y}},\n    codec::Key, // crate::cmd\n};");
    let mut found = paths(&code);
    found.sort();
    found.dedup();
    let want =
        ["crate::codec::Key", "crate::store::Snapshot", "crate::store::layout::Detail", "crate::store::layout::X"];
    assert!(want.iter().all(|path| found.contains(&path.to_string())), "{found:?}");
    assert!(!found.iter().any(|path| path.contains("cmd")), "{found:?}");
}

#[test]
fn a_quote_in_a_character_literal_hides_no_code() {
    let code = code("let (a, b) = ('\"', b'\\'');\nuse crate::store::layout::X;\nfn f<'a>(x: &'a str) {}");
    assert!(paths(&code).contains(&"crate::store::layout::X".to_string()), "{code}");
    assert!(code.contains("<'a>(x: &'a str)"), "{code}");
}

#[test]
fn the_chess_and_data_crate_depends_on_no_database() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/Cargo.toml")).unwrap();
    for name in ["rocksdb", "tabiya =", "tokio", "axum"] {
        assert!(!manifest.contains(name), "crates/core depends on {name}");
    }
}

#[test]
fn reading_user_files_names_nothing_of_the_database() {
    let database =
        ["crate::store", "crate::indexer", "crate::explore", "crate::report", "crate::render", "crate::server"];
    assert_eq!(
        offences("src", &["input"], &[&database[..], &["rocksdb", "axum", "tokio"]].concat()),
        Vec::<String>::new()
    );
}

#[test]
fn the_library_does_not_name_the_binary_and_only_the_server_knows_http() {
    let library = ["input", "store", "indexer", "explore", "export", "report", "render", "lib.rs"];
    assert_eq!(offences("src", &[&library[..], &["server"]].concat(), &["crate::cmd"]), Vec::<String>::new());
    let lib = code(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap());
    assert!(!lib.contains("mod cmd"), "the library declares the binary's cmd");
    assert_eq!(offences("src", &library, &["axum", "tokio", "hyper"]), Vec::<String>::new());
}

#[test]
fn no_file_outside_the_store_reads_stored_bytes() {
    // The layouts are the store's: other modules, and the Python binding, get typed values.
    let names = ["layout::", "StoredValue::parse", "rocksdb"];
    let outside = ["explore", "export", "report", "render", "server", "indexer", "cmd"];
    assert_eq!(offences("src", &outside, &names), Vec::<String>::new());
    assert_eq!(offences("python/src", &["."], &names), Vec::<String>::new());
}

/// The sections of docs/ARCHITECTURE.md by heading (`### ...`), each with its text.
fn architecture_sections() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md")).unwrap();
    let mut sections = Vec::new();
    for part in doc.split("\n### ").skip(1) {
        let (heading, text) = part.split_once('\n').unwrap_or((part, ""));
        let text = text.split("\n## ").next().unwrap_or(text);
        sections.push((heading.to_owned(), text.to_owned()));
    }
    sections
}

/// The folders under `dir`, recursively, as their names.
fn folders(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.push(path.file_name().unwrap().to_string_lossy().into_owned());
            folders(&path, out);
        }
    }
}

#[test]
fn the_architecture_names_every_folder_of_the_sources() {
    let sections = architecture_sections();
    let mut missing = Vec::new();
    for base in ["src", "crates/core/src"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(base);
        for entry in std::fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // Each top folder has a section of its own; each folder inside it is named there.
            let heading = format!("`{base}/{name}/`");
            let Some((_, text)) = sections.iter().find(|(title, _)| title.contains(&heading)) else {
                missing.push(heading);
                continue;
            };
            let mut inside = Vec::new();
            folders(&path, &mut inside);
            missing.extend(
                inside
                    .into_iter()
                    .filter(|inner| !text.contains(&format!("`{inner}/`")))
                    .map(|inner| format!("{heading}: {inner}/")),
            );
        }
    }
    assert_eq!(missing, Vec::<String>::new(), "folders docs/ARCHITECTURE.md does not name");
}
