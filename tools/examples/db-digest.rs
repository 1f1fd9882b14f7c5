//! A digest of a database's contents: per column family, the number of entries and an xxh3-128
//! hash of every key and value in key order. Two databases with the same digests hold the same
//! bytes, whatever their files look like. Ingest-run records (meta keys `run/…`) are left out:
//! they hold wall-clock times and input paths. The commit record (the totals, under the
//! positions family's empty key) gets its own line, `commit`, so that the positions line covers
//! positions only. `tests/format.rs` uses it to pin the format.
//!
//! `cargo run --release --example db-digest -- DB_DIR`
#![allow(dead_code)]

use std::path::Path;

use rocksdb::{ColumnFamilyDescriptor, DB, IteratorMode, Options};
use tabiya::store::{COLUMN_FAMILIES, layout::keys::COMMIT_KEY};

/// One family's digest.
#[derive(Debug, PartialEq, Eq)]
pub struct FamilyDigest {
    pub family: &'static str,
    pub entries: u64,
    pub hash: String,
}

/// Every family's digest, in [`COLUMN_FAMILIES`] order, then the commit record's.
pub fn digests(path: &Path) -> Result<Vec<FamilyDigest>, Box<dyn std::error::Error>> {
    let options = Options::default();
    let families = COLUMN_FAMILIES.iter().map(|&name| ColumnFamilyDescriptor::new(name, options.clone()));
    let db = DB::open_cf_descriptors_read_only(&options, path, families, false)?;
    let mut out = Vec::new();
    let mut commit = Digest::default();
    for family in COLUMN_FAMILIES {
        let handle = db.cf_handle(family).ok_or("missing column family")?;
        let mut digest = Digest::default();
        for item in db.iterator_cf(handle, IteratorMode::Start) {
            let (key, value) = item?;
            match family {
                "meta" if key.starts_with(b"run/") => {}
                "positions" if &key[..] == COMMIT_KEY => commit.add(&key, &value),
                _ => digest.add(&key, &value),
            }
        }
        out.push(digest.finish(family));
    }
    out.push(commit.finish("commit"));
    Ok(out)
}

#[derive(Default)]
struct Digest {
    hasher: xxhash_rust::xxh3::Xxh3,
    entries: u64,
}

impl Digest {
    fn add(&mut self, key: &[u8], value: &[u8]) {
        for bytes in [key, value] {
            self.hasher.update(&(bytes.len() as u64).to_le_bytes());
            self.hasher.update(bytes);
        }
        self.entries += 1;
    }

    fn finish(self, family: &'static str) -> FamilyDigest {
        FamilyDigest { family, entries: self.entries, hash: format!("{:032x}", self.hasher.digest128()) }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).ok_or("usage: db-digest DB_DIR")?;
    for digest in digests(path.as_ref())? {
        println!("{:<13} {:>10} {}", digest.family, digest.entries, digest.hash);
    }
    Ok(())
}
