//! Every RocksDB option tabiya sets, in one place, with why.
//!
//! Writes go without a write-ahead log, with `atomic_flush`: each ingest batch is one
//! `WriteBatch`, memtables of all column families are flushed together, so what survives a crash
//! is always a prefix of whole batches (see the README's crash-safety section). Ingest re-runs
//! lost batches; their games' fingerprints are not stored, so they are not taken as duplicates.

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DBCompressionType, MemtableFactory, Options, WriteOptions,
};

use super::layout::merge_values;

pub const POSITIONS: &str = "positions";
pub const GAMES: &str = "games";
pub const FINGERPRINTS: &str = "fingerprints";
pub const PLAYERS: &str = "players";
pub const OPENINGS: &str = "openings";
pub const META: &str = "meta";
/// Every column family, in the order the database lists them.
pub const COLUMN_FAMILIES: [&str; 6] = [POSITIONS, GAMES, FINGERPRINTS, PLAYERS, OPENINGS, META];

/// Database-wide options.
pub fn db_options() -> Options {
    let mut options = Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    // No WAL (see the module documentation): cross-family consistency comes from atomic flushes.
    options.set_atomic_flush(true);
    // The vector memtable of the positions family does not take concurrent writers.
    options.set_allow_concurrent_memtable_write(false);
    options.set_max_background_jobs(2);
    // The final full compaction splits its key range over both cores.
    options.set_max_subcompactions(2);
    options.set_bytes_per_sync(1 << 20);
    options.set_keep_log_file_num(4);
    options
}

/// Options of every column family, by name.
pub fn column_families(cache: &Cache) -> Vec<ColumnFamilyDescriptor> {
    COLUMN_FAMILIES.iter().map(|&name| ColumnFamilyDescriptor::new(name, cf_options(name, cache))).collect()
}

fn table(cache: &Cache, block_size: usize, bloom_bits: Option<f64>) -> BlockBasedOptions {
    let mut table = BlockBasedOptions::default();
    table.set_block_restart_interval(64);
    table.set_block_cache(cache);
    table.set_block_size(block_size);
    table.set_format_version(6);
    if let Some(bits) = bloom_bits {
        table.set_bloom_filter(bits, false);
    }
    table
}

fn cf_options(name: &str, cache: &Cache) -> Options {
    let mut options = Options::default();
    options.set_level_compaction_dynamic_level_bytes(true);
    options.set_compression_type(DBCompressionType::Lz4);
    options.set_bottommost_compression_type(DBCompressionType::Zstd);
    match name {
        POSITIONS => {
            options.set_merge_operator_associative("tabiya.position_stats.v3", |_key, existing, operands| {
                merge_values(existing, operands.iter())
            });
            // Ingest only appends to this family and never reads it: a vector memtable takes
            // inserts in O(1) and sorts once at flush.
            options.set_memtable_factory(MemtableFactory::Vector);
            options.set_write_buffer_size(256 << 20);
            options.set_max_write_buffer_number(3);
            options.set_target_file_size_base(128 << 20);
            options.set_max_bytes_for_level_base(1 << 30);
            // Ingest ends with a full compaction: merge level 0 files rarely before that.
            options.set_level_zero_file_num_compaction_trigger(16);
            options.set_level_zero_slowdown_writes_trigger(48);
            options.set_level_zero_stop_writes_trigger(64);
            // Lookups are for positions that exist: skip the last level's filters (most bytes).
            options.set_optimize_filters_for_hits(true);
            options.set_block_based_table_factory(&table(cache, 16 << 10, Some(10.0)));
        }
        GAMES => {
            options.set_write_buffer_size(32 << 20);
            options.set_compression_type(DBCompressionType::Zstd);
            options.set_block_based_table_factory(&table(cache, 32 << 10, None));
        }
        FINGERPRINTS => {
            // Random hashes do not compress; every ingested game looks one up, most miss.
            options.set_write_buffer_size(16 << 20);
            options.set_compression_type(DBCompressionType::None);
            options.set_bottommost_compression_type(DBCompressionType::None);
            options.set_block_based_table_factory(&table(cache, 4 << 10, Some(10.0)));
        }
        PLAYERS => {
            // Keys only, sorted by name: prefix scans for player filters.
            options.set_write_buffer_size(16 << 20);
            options.set_block_based_table_factory(&table(cache, 16 << 10, None));
        }
        _ => {
            options.set_write_buffer_size(1 << 20);
            options.set_block_based_table_factory(&table(cache, 4 << 10, None));
        }
    }
    options
}

/// Batches are written without the write-ahead log (see the module documentation).
pub fn write_options() -> WriteOptions {
    let mut options = WriteOptions::default();
    options.disable_wal(true);
    options
}

/// The block cache shared by all families.
pub fn block_cache() -> Cache {
    Cache::new_lru_cache(256 << 20)
}
