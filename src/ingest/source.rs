//! Opening an input: a path (plain or `.zst`) or `-` for standard input, and telling a PGN
//! collection from a position list by its name.

use std::{
    fs::File,
    io::{self, BufReader, Read},
    path::{Path, PathBuf},
};

use anyhow::Context as _;

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// PGN games (`.pgn`, `.pgn.zst`).
    Pgn,
    /// One position per line (EPD, FEN, perft suites, CSV with the FEN first).
    PositionLines,
}

/// An input file, decompressed as needed.
pub struct Source {
    pub name: String,
    pub kind: InputKind,
    pub reader: Box<dyn Read + Send>,
}

impl Source {
    /// Opens `path`; `-` reads standard input (taken as PGN unless `kind` says otherwise).
    pub fn open(path: &Path, kind: Option<InputKind>) -> anyhow::Result<Source> {
        let name = path.display().to_string();
        let base = name.strip_suffix(".zst").unwrap_or(&name);
        let kind = kind.unwrap_or(if base.ends_with(".pgn") || name == "-" {
            InputKind::Pgn
        } else {
            InputKind::PositionLines
        });
        let raw: Box<dyn Read + Send> = if name == "-" {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(path).with_context(|| format!("cannot open {name}"))?)
        };
        let reader: Box<dyn Read + Send> = if name.ends_with(".zst") {
            Box::new(zstd::Decoder::new(raw).with_context(|| format!("cannot read zstd stream {name}"))?)
        } else {
            Box::new(BufReader::with_capacity(1 << 16, raw))
        };
        Ok(Source { name, kind, reader })
    }

    /// Every regular file under `path` (recursively, sorted), or `path` itself.
    pub fn expand(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
        if !path.is_dir() {
            return Ok(vec![path.to_owned()]);
        }
        let mut files = Vec::new();
        let mut stack = vec![path.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
                let entry = entry?.path();
                if entry.is_dir() { stack.push(entry) } else { files.push(entry) }
            }
        }
        files.sort();
        Ok(files)
    }
}
