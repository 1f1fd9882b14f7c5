//! Builds the single-game tier (`tabiya::tier`) from an ingested database and measures it: its
//! bytes, the bytes the database would take with it (the positions of two or more games written
//! as SST files as a commit writes them, plus the other families as they are), and lookups of
//! tier positions and of positions outside it, each verified by replay.
//!
//! A tier position is one reached by a single game, once; a game repeating a single-game
//! position stays in the full family.
//!
//! `cargo run --release --example tier_budget -- DB [ZSTD_BYTES]`

use std::{path::Path, time::Instant};

use rayon::prelude::*;
use rocksdb::SstFileWriter;
use rustc_hash::FxHashMap;
use tabiya::{
    Key, Position,
    codec::{KeyDecoder, KeyEncoder},
    model::{GameId, PositionStats, replay},
    postings::PostingList,
    store::{Store, layout},
    tier::{self, HashIndex, PlyMarks},
};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// One game's part of the tier.
struct GameTier {
    positions: u32,
    marked: Vec<u32>,
    hashes: Vec<u64>,
    /// Every 101st tier position of the game, with its key, for the lookup check.
    sampled: Vec<Key>,
    /// The (category, material) blocks of its tier positions (each block's first key).
    blocks: Vec<Key>,
}

fn game_tier(store: &Store, id: GameId) -> Result<GameTier, Error> {
    let record = store.game(id)?.ok_or_else(|| format!("game {} missing", id.0))?;
    let mut encoder = KeyEncoder::default();
    let mut keys = Vec::new();
    for chess in replay(&record).ok_or_else(|| format!("game {} does not replay", id.0))? {
        keys.push(encoder.encode(&Position::from_chess(chess)?)?);
    }
    let mut seen: FxHashMap<Key, u32> = FxHashMap::default();
    for key in &keys {
        *seen.entry(*key).or_default() += 1;
    }
    let mut tier = GameTier {
        positions: keys.len() as u32,
        marked: Vec::new(),
        hashes: Vec::new(),
        sampled: Vec::new(),
        blocks: Vec::new(),
    };
    let mut decoder = KeyDecoder::default();
    for (ply, key) in keys.iter().enumerate() {
        let single = seen[key] == 1 && store.position_head(key)?.is_some_and(|stats| stats.total.games == 1);
        if single {
            tier.marked.push(ply as u32);
            tier.hashes.push(tier::key_hash(key));
            if tier::key_hash(key) % 101 == 0 {
                tier.sampled.push(*key);
            }
            decoder.decode(key, |_, _| false)?;
            let block = decoder.block_range().ok_or("a decoded key without a block")?.first;
            if !tier.blocks.contains(&block) {
                tier.blocks.push(block);
            }
        }
    }
    Ok(tier)
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let db = args.first().ok_or("usage: tier_budget DB [ZSTD_BYTES]")?;
    let zstd: Option<f64> = args.get(1).map(|bytes| bytes.parse()).transpose()?;
    let store = Store::open_read_only(Path::new(db))?;
    let totals = store.totals()?;

    let started = Instant::now();
    let ids: Vec<u64> = (1..totals.next_game_id).collect();
    let games: Vec<GameTier> = ids
        .par_chunks(512)
        .map(|chunk| chunk.iter().map(|&id| game_tier(&store, GameId(id))).collect::<Result<Vec<_>, _>>())
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    let replayed = started.elapsed();
    let entries: Vec<(u64, GameId)> = games
        .iter()
        .enumerate()
        .flat_map(|(index, game)| game.hashes.iter().map(move |&hash| (hash, GameId(index as u64 + 1))))
        .collect();
    let started = Instant::now();
    let index = HashIndex::build(entries)?;
    let marks = PlyMarks::build(games.iter().map(|game| (game.positions, game.marked.as_slice())))?;
    let mut bytes = Vec::new();
    index.write(&mut bytes)?;
    marks.write(&mut bytes)?;
    // Material searches read the tier through per-block game lists: a block's first key and
    // the posting list of the games holding a tier position in it.
    let mut by_block: FxHashMap<Key, Vec<GameId>> = FxHashMap::default();
    for (index, game) in games.iter().enumerate() {
        for block in &game.blocks {
            by_block.entry(*block).or_default().push(GameId(index as u64 + 1));
        }
    }
    let pairs: usize = by_block.values().map(Vec::len).sum();
    let block_bytes: usize =
        by_block.values().map(|ids| tabiya::codec::KEY_LEN + 4 + PostingList::encode(ids).as_bytes().len()).sum();
    let built = started.elapsed();
    let (hash_bytes, id_bytes) = index.bytes();
    let (start_bytes, bit_bytes) = marks.bytes();
    println!(
        "games {}, tier positions {} ({:.1} s to replay and classify, {:.1} s to build)",
        games.len(),
        index.len(),
        replayed.as_secs_f64(),
        built.as_secs_f64()
    );
    println!(
        "tier bytes {} = hashes {hash_bytes} + game ids {id_bytes} + ply starts {start_bytes} + ply bits {bit_bytes} (+ section headers); {:.2} bytes a position",
        bytes.len(),
        bytes.len() as f64 / index.len() as f64
    );

    // The full family without the tier: every other stored position, as a commit writes it.
    let path = std::env::temp_dir().join(format!("tier-budget-{}.sst", std::process::id()));
    let options = store.commit_file_options();
    let mut writer = SstFileWriter::create(&options);
    // The same without any value's top and recent games (stored values of more than
    // `DERIVED_TOP_UP_TO` games keep them): what deriving them for every lookup would save.
    let slim_path = path.with_extension("slim.sst");
    let mut slim = SstFileWriter::create(&options);
    slim.open(&slim_path)?;
    let mut slim_value = Vec::new();
    let facts = store.committed_facts()?;
    writer.open(&path)?;
    let mut cursor = store.position_cursor(Some(&[0]), None);
    let (mut kept, mut outside) = (0u64, Vec::new());
    while let Some((key, value)) = cursor.entry() {
        let key = Key::try_from(key)?;
        let one_game = layout::holds_one_game(value);
        // Single-game positions a game repeats stay in the full family. (Told apart by the
        // game's entry under the key's hash: a repeated position of a game sharing its hash
        // with one of the game's tier positions, about one in 10^5 games, counts as tier here;
        // the lookups below are exact.)
        let game = match layout::stored_game(value) {
            Some(game) => game.map(|(id, _)| id),
            None => layout::postings(value).and_then(|list| list.iter().next()),
        };
        let in_tier = one_game && game.is_some_and(|game| index.candidates(tier::key_hash(&key)).any(|g| g == game));
        if !in_tier {
            writer.put(key.as_bytes(), value)?;
            slim_value.clear();
            match layout::is_single_game(value) {
                true => slim_value.extend_from_slice(value),
                false => {
                    let stats = layout::decode_stored(value, layout::Detail::ByMove, |id| facts.get(id))
                        .ok_or("a stored value does not decode")?;
                    let slimmed = PositionStats { top: Vec::new(), recent: Vec::new(), ..stats };
                    match slimmed.total.games > layout::DERIVED_TOP_UP_TO {
                        true => layout::encode(&slimmed, &mut slim_value),
                        false => layout::encode_stored(&slimmed, &mut slim_value),
                    }
                }
            }
            slim.put(key.as_bytes(), &slim_value)?;
            kept += 1;
            if !one_game && kept % 7 == 0 && outside.len() < 20_000 {
                outside.push(key);
            }
        }
        cursor.next();
    }
    cursor.status()?;
    writer.finish()?;
    slim.finish()?;
    let full_bytes = std::fs::metadata(&path)?.len();
    let slim_bytes = std::fs::metadata(&slim_path)?.len();
    std::fs::remove_file(&slim_path)?;
    std::fs::remove_file(&path)?;
    println!("full family: {kept} positions in {full_bytes} bytes ({slim_bytes} without top and recent games)");
    println!(
        "block game lists: {} blocks, {pairs} (block, game) pairs, {block_bytes} bytes (key, length, posting list; uncompressed)",
        by_block.len()
    );

    let others: u64 =
        store.family_bytes()?.into_iter().filter(|(family, _)| *family != "positions").map(|(_, n)| n).sum();
    let projected = full_bytes + bytes.len() as u64 + block_bytes as u64 + others;
    print!(
        "database with the tier: {projected} bytes (full family {full_bytes}, tier {}, block game lists {block_bytes}, other families {others})",
        bytes.len()
    );
    match zstd {
        Some(zstd) => println!("; size ratio {:.2}", projected as f64 / zstd),
        None => println!(),
    }

    // Lookups, verified: every sampled tier position is found in its own game, no position of
    // the full family is found in the tier.
    let keys_of = |game: GameId| -> Result<Vec<(u32, Key)>, Error> {
        let record = store.game(game)?.ok_or("candidate game missing")?;
        tier::keys_at(&record, &marks.marked(game)).ok_or_else(|| "candidate game does not replay".into())
    };
    let sampled: Vec<(GameId, Key)> = games
        .iter()
        .enumerate()
        .flat_map(|(index, game)| game.sampled.iter().map(move |key| (GameId(index as u64 + 1), *key)))
        .collect();
    let started = Instant::now();
    let mut replays = 0;
    for (game, key) in &sampled {
        let (found, replayed) = tier::locate(key, &index, keys_of)?;
        replays += replayed;
        if found.map(|(g, _)| g) != Some(*game) {
            return Err(format!("tier position {key} of game {} found at {found:?}", game.0).into());
        }
    }
    let hits = started.elapsed();
    println!(
        "{} tier positions found in their games: {:.1} µs a lookup, {:.3} games replayed a lookup",
        sampled.len(),
        hits.as_secs_f64() * 1e6 / sampled.len() as f64,
        replays as f64 / sampled.len() as f64
    );
    let started = Instant::now();
    let mut replays = 0;
    for key in &outside {
        let (found, replayed) = tier::locate(key, &index, keys_of)?;
        replays += replayed;
        if found.is_some() {
            return Err(format!("full-family position {key} found in the tier at {found:?}").into());
        }
    }
    let misses = started.elapsed();
    println!(
        "{} full-family positions not found in the tier: {:.1} µs a lookup, {:.3} games replayed a lookup",
        outside.len(),
        misses.as_secs_f64() * 1e6 / outside.len().max(1) as f64,
        replays as f64 / outside.len().max(1) as f64
    );
    Ok(())
}
