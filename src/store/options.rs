//! Every RocksDB option tabiya sets, in one place, with why: the database's, each column
//! family's, the commit's SST files', and those of writes and reads.
//!
//! Writes go without a write-ahead log, with `atomic_flush`: memtables of all column families
//! are flushed together. Ingest commits its positions as SST files, with the commit record among
//! them (docs/FORMAT.md, "Exactly once").

use super::memory::scaled;
use rocksdb::{
    BlockBasedOptions, BottommostLevelCompaction, Cache, ColumnFamilyDescriptor, CompactOptions, DBCompressionType,
    IngestExternalFileOptions, Options, ReadOptions, WriteOptions,
};

pub const POSITIONS: &str = "positions";
pub const GAMES: &str = "games";
pub const MAINLINES: &str = "mainlines";
pub const ANNOTATIONS: &str = "annotations";
pub const FINGERPRINTS: &str = "fingerprints";
pub const PLAYERS: &str = "players";
pub const NAMES: &str = "names";
pub const TWINS: &str = "twins";
pub const OPENINGS: &str = "openings";
pub const META: &str = "meta";
pub const FACTS: &str = "facts";
pub const HEADERS: &str = "headers";
pub const LABELS: &str = "labels";
/// Every column family, in the order the database lists them.
pub const COLUMN_FAMILIES: [&str; 13] = [
    POSITIONS,
    GAMES,
    MAINLINES,
    ANNOTATIONS,
    FACTS,
    HEADERS,
    LABELS,
    FINGERPRINTS,
    PLAYERS,
    NAMES,
    TWINS,
    OPENINGS,
    META,
];

/// The families holding games, which a distributed build's tasks write apart
/// (`write/distributed.rs`): all but the positions (committed), the openings and the runs. The games'
/// own first: they are ingested in this order.
pub const GAMES_FAMILIES: [&str; 10] =
    [GAMES, MAINLINES, ANNOTATIONS, FACTS, HEADERS, LABELS, FINGERPRINTS, PLAYERS, NAMES, TWINS];

/// Database-wide options.
pub fn db_options() -> Options {
    let mut options = Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    // No WAL (see the module documentation): what a commit makes visible was flushed, atomically
    // across families, before it.
    options.set_atomic_flush(true);
    // Flushes and compactions: half the worker threads (`--threads`, else the cores), at least 2.
    let background = (rayon::current_num_threads() / 2).clamp(2, 16) as i32;
    options.set_max_background_jobs(background);
    // The final full compaction splits its key range over as many.
    options.set_max_subcompactions(background as u32);
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

/// Options of an SST file a writer ingests (a commit's positions, with their Bloom filters:
/// lookups of single-game positions miss the full-key positions, and so do most keys a later
/// commit stages; or one of the games' families written apart): the family's own.
pub fn family_sst(family: &str, cache: &Cache) -> Options {
    cf_options(family, cache)
}

/// The compaction of games ingested from files written apart (`write/distributed.rs`): their files sit
/// in the last level, where a plain compaction leaves them as they are; rewritten once.
pub fn compact_apart() -> CompactOptions {
    let mut options = CompactOptions::default();
    options.set_bottommost_level_compaction(BottommostLevelCompaction::ForceOptimized);
    options
}

/// Options of a commit's SST file of tier maps: uncompressed, as their functions' cells are
/// random bits that compression only spends time on.
pub fn tier_maps_sst(cache: &Cache) -> Options {
    let mut options = family_sst(POSITIONS, cache);
    options.set_compression_type(DBCompressionType::None);
    options.set_bottommost_compression_type(DBCompressionType::None);
    options
}

const POSITIONS_BLOCK: usize = 16 << 10;

fn cf_options(name: &str, cache: &Cache) -> Options {
    let mut options = match name {
        // Annotations compress whenever a block saves a 1,024th (RocksDB keeps a block that
        // saves less than an eighth as it is): the arithmetic-coded values do not compress, but
        // each entry's key and RocksDB's 8-byte trailer beside it do, 6 of its 14 bytes. The C
        // API has no setter; options as text do, read before any other is set.
        ANNOTATIONS => Options::default()
            .get_options_from_string(ANNOTATIONS_COMPRESSION)
            .expect("the annotations' compression reads as options (tested)"),
        _ => Options::default(),
    };
    options.set_level_compaction_dynamic_level_bytes(true);
    options.set_compression_type(DBCompressionType::Lz4);
    options.set_bottommost_compression_type(DBCompressionType::Zstd);
    match name {
        POSITIONS => {
            // Ingest commits positions as SST files; only small records go through memtables.
            options.set_write_buffer_size(scaled(16 << 20));
            options.set_target_file_size_base(128 << 20);
            options.set_max_bytes_for_level_base(1 << 30);
            // Ingest ends with a full compaction: merge level 0 files rarely before that.
            options.set_level_zero_file_num_compaction_trigger(16);
            options.set_level_zero_slowdown_writes_trigger(48);
            options.set_level_zero_stop_writes_trigger(64);
            options.set_block_based_table_factory(&table(cache, POSITIONS_BLOCK, Some(10.0)));
        }
        GAMES => {
            // Tags: read a game at a time, by game lists and reports.
            options.set_write_buffer_size(scaled(32 << 20));
            options.set_compression_type(DBCompressionType::Zstd);
            options.set_block_based_table_factory(&table(cache, 32 << 10, None));
        }
        MAINLINES => {
            // About a byte a ply, read by every replay of a stored game (tier look-ups, scans of
            // thousands of games), apart from the tags. Small LZ4 blocks decompress faster than
            // zstd's for the few hundred bytes a replay wants (docs/DECISIONS.md).
            options.set_write_buffer_size(scaled(16 << 20));
            options.set_compression_type(DBCompressionType::Lz4);
            options.set_bottommost_compression_type(DBCompressionType::Lz4);
            options.set_block_based_table_factory(&table(cache, 4 << 10, None));
        }
        ANNOTATIONS => {
            // About 1.4 bytes a move of an annotated game, none for the others: read a game at
            // a time.
            options.set_write_buffer_size(scaled(8 << 20));
            options.set_compression_type(DBCompressionType::Zstd);
            options.set_block_based_table_factory(&table(cache, 16 << 10, None));
        }
        FINGERPRINTS => {
            // Every ingested game looks one up, most miss: a whole-key Bloom filter on the
            // memtable answers most misses without searching it. The hashes do not compress,
            // but what RocksDB stores beside each (its sequence number, zero once compacted, and
            // the game id's high zero bytes) does: 35 bytes an entry uncompressed, 20 with the
            // family's compression (docs/PERFORMANCE.md).
            options.set_write_buffer_size(scaled(16 << 20));
            options.set_memtable_whole_key_filtering(true);
            options.set_memtable_prefix_bloom_ratio(0.1);
            options.set_block_based_table_factory(&table(cache, 4 << 10, Some(10.0)));
        }
        FACTS => {
            // Eight bytes a game under sequential ids, read whole by a scan: large blocks.
            options.set_write_buffer_size(scaled(8 << 20));
            options.set_block_based_table_factory(&table(cache, 64 << 10, None));
        }
        HEADERS => {
            // Twelve bytes a game, as the facts: read whole by a header filter's first use.
            options.set_write_buffer_size(scaled(8 << 20));
            options.set_block_based_table_factory(&table(cache, 64 << 10, None));
        }
        LABELS => {
            // Keys only, each distinct event and site text once, rewritten by every game that
            // names it: read whole by a text filter.
            options.set_write_buffer_size(scaled(4 << 20));
            options.set_block_based_table_factory(&table(cache, 16 << 10, None));
        }
        PLAYERS => {
            // Keys only, sorted by name: prefix scans for player filters.
            options.set_write_buffer_size(scaled(16 << 20));
            options.set_block_based_table_factory(&table(cache, 16 << 10, None));
        }
        TWINS => {
            // Keys only, a hash then an id: random order, read by one scan (`tabiya twins`) or
            // one prefix look-up per game (an ingest that skips twins).
            options.set_write_buffer_size(scaled(8 << 20));
            options.set_block_based_table_factory(&table(cache, 4 << 10, Some(10.0)));
        }
        NAMES => {
            // Keys only, a few per distinct spelling, rewritten by every game that spells it:
            // small, and read by a prefix scan per name lookup.
            options.set_write_buffer_size(scaled(4 << 20));
            options.set_block_based_table_factory(&table(cache, 4 << 10, None));
        }
        _ => {
            options.set_write_buffer_size(scaled(1 << 20));
            options.set_block_based_table_factory(&table(cache, 4 << 10, None));
        }
    }
    options
}

const ANNOTATIONS_COMPRESSION: &str = "compression_opts={max_compressed_bytes_per_kb=1023}";

/// Batches are written without the write-ahead log (see the module documentation).
pub fn write_options() -> WriteOptions {
    let mut options = WriteOptions::default();
    options.disable_wal(true);
    options
}

/// Ingestion moves the commit's SST files (in the database directory, or in a distributed
/// build's shared work directory: on another file system RocksDB copies them) rather than
/// copying them.
pub fn ingest_options() -> IngestExternalFileOptions {
    let mut options = IngestExternalFileOptions::default();
    options.set_move_files(true);
    options
}

/// Reads of a scan over many entries up to `upper` (exclusive): they leave the block cache to
/// lookups.
pub fn scan_reads(upper: &[u8]) -> ReadOptions {
    let mut options = kept_reads();
    options.set_iterate_upper_bound(upper.to_vec());
    options
}

/// A point read whose value the caller keeps decoded (a tier map): it leaves the block cache to
/// lookups.
pub fn kept_reads() -> ReadOptions {
    let mut options = ReadOptions::default();
    options.fill_cache(false);
    options
}

/// Reads of a few entries up to `upper` (exclusive) that lookups repeat (a page of the games'
/// facts): through the block cache, without reading ahead.
pub fn range_reads(upper: &[u8]) -> ReadOptions {
    let mut options = ReadOptions::default();
    options.set_iterate_upper_bound(upper.to_vec());
    options
}

/// Reads of one sequential pass up to `upper` (exclusive), such as loading every game's facts:
/// read ahead, and leave the block cache to lookups.
pub fn sequential_reads(upper: &[u8]) -> ReadOptions {
    let mut options = scan_reads(upper);
    options.set_readahead_size(4 << 20);
    options
}

/// The block cache shared by all families.
pub fn block_cache() -> Cache {
    Cache::new_lru_cache(scaled(256 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_annotations_compression_reads_as_options() {
        assert!(Options::default().get_options_from_string(ANNOTATIONS_COMPRESSION).is_ok());
        // A misspelt option would be refused, not ignored.
        assert!(
            Options::default().get_options_from_string("compression_opts={max_compressed_byte_per_kb=1023}").is_err()
        );
    }
}
