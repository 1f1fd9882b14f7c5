//! A digest of a database's contents: per column family, the number of entries and an xxh3-128
//! hash of every key and value in key order. Two databases with the same digests hold the same
//! bytes, whatever their files look like. Ingest-run records (meta keys `run/…`) are left out:
//! they hold wall-clock times and input paths. `tests/format.rs` uses it to pin the format.
//!
//! `cargo run --release --example db_digest -- DB_DIR`
#![allow(dead_code)]

use std::path::Path;

use rocksdb::{ColumnFamilyDescriptor, DB, IteratorMode, Options};
use tabiya::store::{COLUMN_FAMILIES, layout::merge_values};

/// One family's digest.
#[derive(Debug, PartialEq, Eq)]
pub struct FamilyDigest {
    pub family: &'static str,
    pub entries: u64,
    pub hash: String,
}

/// Every family's digest, in [`COLUMN_FAMILIES`] order.
pub fn digests(path: &Path) -> Result<Vec<FamilyDigest>, Box<dyn std::error::Error>> {
    let mut options = Options::default();
    // Pending merge operands (none after a completed ingest) are summed as the store sums them.
    options.set_merge_operator_associative("tabiya.position_stats.v3", |_key, existing, operands| {
        merge_values(existing, operands.iter())
    });
    let families = COLUMN_FAMILIES.iter().map(|&name| ColumnFamilyDescriptor::new(name, options.clone()));
    let db = DB::open_cf_descriptors_read_only(&options, path, families, false)?;
    let mut out = Vec::new();
    for family in COLUMN_FAMILIES {
        let handle = db.cf_handle(family).ok_or("missing column family")?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut entries = 0u64;
        for item in db.iterator_cf(handle, IteratorMode::Start) {
            let (key, value) = item?;
            if family == "meta" && key.starts_with(b"run/") {
                continue;
            }
            for bytes in [&key[..], &value[..]] {
                hasher.update(&(bytes.len() as u64).to_le_bytes());
                hasher.update(bytes);
            }
            entries += 1;
        }
        out.push(FamilyDigest { family, entries, hash: format!("{:032x}", hasher.digest128()) });
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).ok_or("usage: db_digest DB_DIR")?;
    for digest in digests(path.as_ref())? {
        println!("{:<13} {:>10} {}", digest.family, digest.entries, digest.hash);
    }
    Ok(())
}
