//! A digest of a database's contents: per column family, the number of entries and an xxh3-128
//! hash of every key and value in key order. Two databases with the same digests hold the same
//! bytes, whatever their files look like. Ingest-run records (meta keys `run/…`) are left out:
//! they hold wall-clock times and input paths.
//!
//! `cargo run --release --example db_digest -- DB_DIR`

use rocksdb::{ColumnFamilyDescriptor, DB, IteratorMode, Options};
use tabiya::store::{COLUMN_FAMILIES, layout::merge_values};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).ok_or("usage: db_digest DB_DIR")?;
    let mut options = Options::default();
    // Pending merge operands (none after a completed ingest) are summed as the store sums them.
    options.set_merge_operator_associative("tabiya.position_stats.v3", |_key, existing, operands| {
        merge_values(existing, operands.iter())
    });
    let families = COLUMN_FAMILIES.iter().map(|&name| ColumnFamilyDescriptor::new(name, options.clone()));
    let db = DB::open_cf_descriptors_read_only(&options, &path, families, false)?;
    for name in COLUMN_FAMILIES {
        let family = db.cf_handle(name).ok_or("missing column family")?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut entries = 0u64;
        for item in db.iterator_cf(family, IteratorMode::Start) {
            let (key, value) = item?;
            if name == "meta" && key.starts_with(b"run/") {
                continue;
            }
            for bytes in [&key[..], &value[..]] {
                hasher.update(&(bytes.len() as u64).to_le_bytes());
                hasher.update(bytes);
            }
            entries += 1;
        }
        println!("{name:<13} {entries:>10} {:032x}", hasher.digest128());
    }
    Ok(())
}
