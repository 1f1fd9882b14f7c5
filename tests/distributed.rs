//! A build spread over machines (`indexer::distributed`), its parts run here in one process in
//! a shuffled order (the batches' games and the key ranges written apart, the last first),
//! gives byte for byte the database a single-machine ingest of the same files gives (every
//! family's digest), whatever the runs its range tasks spill; cut into more key ranges than a
//! commit's (a larger build), every position answers the same; and a single-machine ingest
//! gives the same bytes on every run (its batches are cut by the input alone).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use tabiya::{
    Key, Position,
    indexer::{
        self,
        distributed::{
            BatchIds, Fetched, PreparedBatch, RUN_BYTES, RangeWriter, ReadCounts, assemble, batch_plan,
            fingerprint_parts, kept_bound_keys, kept_facts, later_twins, range_count, read_batches,
            read_fetched_batches, skipped_twins, twin_parts, write_batch_games,
        },
    },
    input::RawGame,
    model::GameId,
    store::{COMMIT_RANGES, Store, commit_pivots},
};

use crate::{
    common::games::{openings, positions},
    db_digest,
};

/// Two files of short games (a third of them copies of earlier ones, some across files), each
/// spanning several batches.
fn collection(dir: &Path) -> Vec<PathBuf> {
    let games = openings(40_000);
    let pgn: Vec<String> = games.iter().map(|game| game.pgn()).collect();
    let mut first = String::new();
    let mut second = String::new();
    for (index, text) in pgn.iter().enumerate() {
        let out = if index < 22_000 { &mut first } else { &mut second };
        out.push_str(text);
        out.push('\n');
        if index % 3 == 0 {
            // A copy, a little later or in the other file.
            let copy = &pgn[(index * 7) % pgn.len()];
            out.push_str(copy);
            out.push('\n');
        }
    }
    let paths = vec![dir.join("a.pgn"), dir.join("b.pgn")];
    std::fs::write(&paths[0], first).unwrap();
    std::fs::write(&paths[1], second).unwrap();
    paths
}

fn single_machine(files: &[PathBuf], db: &Path) -> indexer::Summary {
    let store = Store::open(db).unwrap();
    indexer::ingest(&store, files, &mut indexer::SilentObserver).unwrap()
}

/// How [`distributed`] cuts the key ranges' work.
#[derive(Clone, Copy)]
struct Ranges {
    /// Written first to last (else the last first).
    forward: bool,
    /// Occurrences a range holds at most ([`range_count`]'s `per_range`).
    per_range: u64,
    /// Bytes of parts a range task holds before it spills a run.
    run: usize,
}

/// A single-machine commit's ranges, each task holding its parts in memory, written the last first.
const AS_A_COMMIT: Ranges = Ranges { forward: false, per_range: u64::MAX, run: RUN_BYTES };

/// What a cluster does, in one process: batches prepared out of order, duplicates dropped
/// across batches (and of the games `db` holds already; with `skip_twins`, twins too, as
/// `ingest --skip-twins --min-prefix` skips them), ids by a prefix sum, the key ranges
/// written as `cut` says, each from the database opened read-only, its parts added last batch
/// first. Returns the summary and the number of ranges.
fn distributed(
    files: &[PathBuf],
    db: &Path,
    cut: Ranges,
    work: &Path,
    skip_twins: Option<usize>,
) -> (indexer::Summary, usize) {
    let store = Store::open(db).unwrap();
    let first_id = store.totals().unwrap().next_game_id.max(1);
    // Split into pieces, the batches cut from them by their counts, each prepared on its own,
    // in reverse input order.
    let mut pieces: Vec<Vec<RawGame>> = Vec::new();
    for (file, path) in files.iter().enumerate() {
        let send = |games: Result<_, _>| {
            pieces.push(games.unwrap());
            true
        };
        // The second file as a cluster's file system hands it over: its bytes, fetched.
        match file {
            1 => assert!(read_fetched_batches(
                path,
                Fetched::Bytes(Box::new(std::io::Cursor::new(std::fs::read(path).unwrap()))),
                send
            )),
            _ => assert!(read_batches(path, send)),
        }
    }
    let plan = batch_plan(&pieces.iter().map(Vec::len).collect::<Vec<_>>());
    let mut prepared: BTreeMap<usize, PreparedBatch> = BTreeMap::new();
    for (at, slices) in plan.iter().enumerate().rev() {
        let games: Vec<RawGame> =
            slices.iter().flat_map(|slice| pieces[slice.piece][slice.games.clone()].iter().cloned()).collect();
        let view = store.snapshot();
        prepared.insert(at, PreparedBatch::prepare(games, |fingerprint| view.games().is_stored(fingerprint).unwrap()));
    }
    // Duplicates across batches, shuffled by fingerprint to 3 parts: the first in input order
    // stays. Skipping twins: duplicates and twins, shuffled by what they share to 3 parts.
    let mut shuffled: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 3];
    let view = store.snapshot();
    for (&at, batch) in &prepared {
        let parts = match skip_twins {
            None => {
                let fingerprints: Vec<u8> = batch.fingerprints().flat_map(|fingerprint| fingerprint.0).collect();
                fingerprint_parts(&fingerprints, at as u64, 3).unwrap()
            }
            Some(min_prefix) => {
                let candidates = batch.twin_candidates(min_prefix, |twin| view.games().under_twin_key(twin)).unwrap();
                twin_parts(&candidates, at as u64, 3).unwrap()
            }
        };
        for (part, bytes) in parts {
            shuffled[part].push(bytes);
        }
    }
    drop(view);
    let mut dropped: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    let (mut duplicates, mut twins) = (Vec::new(), Vec::new());
    for part in &shuffled {
        let records: Vec<&[u8]> = part.iter().map(Vec::as_slice).collect();
        match skip_twins {
            None => duplicates.extend(later_twins(&records).unwrap()),
            Some(min_prefix) => {
                let skipped = skipped_twins(&records, min_prefix).unwrap();
                duplicates.extend(skipped.duplicates);
                twins.extend(skipped.twins);
            }
        }
    }
    for &(at, number) in duplicates.iter().chain(&twins) {
        dropped.entry(at as usize).or_default().push(number);
    }
    for numbers in dropped.values_mut() {
        numbers.sort_unstable();
    }
    let mut ids = BTreeMap::new();
    let mut next = first_id;
    let mut counts =
        ReadCounts { duplicates: duplicates.len() as u64, twins: twins.len() as u64, ..Default::default() };
    for (&at, batch) in &prepared {
        let dropped = dropped.remove(&at).unwrap_or_default();
        let kept = batch.fingerprints().count() - dropped.len();
        counts.games_read += batch.games_read;
        counts.duplicates += batch.duplicates;
        ids.insert(at, BatchIds { first: GameId(next), dropped });
        next += kept as u64;
    }
    // Range pivots from the batches' samples, then each range written, the last range first.
    let occurrences = prepared.values().map(PreparedBatch::occurrence_count).sum();
    // Skipping twins: the sample of what the kept games reach.
    let sample = prepared.iter().flat_map(|(at, batch)| match skip_twins {
        None => batch.bound_keys(),
        Some(_) => kept_bound_keys(&batch.bound_games(), &ids[at].dropped).unwrap(),
    });
    let pivots = commit_pivots(sample.collect(), range_count(occurrences, cut.per_range));
    let facts = prepared.iter().map(|(at, batch)| (ids[at].clone(), batch.facts_bytes())).collect::<Vec<_>>();
    let facts = kept_facts(facts.iter().map(|(ids, bytes)| (ids, bytes.as_slice()))).unwrap();
    // Each batch's occurrences written as a file, which every range task reads its part of.
    let mut occurrence_files = BTreeMap::new();
    for (&at, batch) in &prepared {
        let path = work.join(format!("occurrences-{at}"));
        batch.write_occurrences(&path).unwrap();
        occurrence_files.insert(at, path);
    }
    let reader = Store::open_read_only(db).unwrap();
    let mut records = Vec::new();
    let mut order: Vec<usize> = (0..=pivots.len()).collect();
    if !cut.forward {
        order.reverse();
    }
    for range in order {
        let mut writer = RangeWriter::new(&work.join(format!("range-{range}"))).with_run_bytes(cut.run);
        let mut added = false;
        for (at, path) in occurrence_files.iter().rev() {
            added |= writer.add_file(&ids[at], path, &pivots, range).unwrap();
        }
        if added {
            records.push(writer.finish(&reader, (&pivots, range), &facts, GameId(next)).unwrap());
        }
    }
    // Each batch's games written apart, the last batch first; ingested in input order.
    let mut games = BTreeMap::new();
    for (&batch, prepared) in prepared.iter().rev() {
        let dir = work.join(format!("games-{batch}"));
        games.insert(batch, write_batch_games(&reader, &dir, ids[&batch].clone(), &prepared.games_bytes()).unwrap());
    }
    drop(reader);
    let games: Vec<PathBuf> = games.into_values().collect();
    (assemble(&store, files, &games, &records, &counts).unwrap(), pivots.len() + 1)
}

#[test]
fn a_distributed_build_gives_the_bytes_of_a_single_machine_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let files = collection(dir.path());
    let single = single_machine(&files, &dir.path().join("single"));
    assert!(single.run.counts.duplicates > 10_000, "{:?}", single.run.counts);
    let again = single_machine(&files, &dir.path().join("again"));
    let want = db_digest::digests(&dir.path().join("single")).unwrap();
    assert_eq!(db_digest::digests(&dir.path().join("again")).unwrap(), want, "a second single-machine ingest");
    // Forward, each range task spills a run past 80,000 bytes held (several a range).
    let several_runs = Ranges { forward: true, run: 80_000, ..AS_A_COMMIT };
    for (name, cut) in [("backward", AS_A_COMMIT), ("forward", several_runs)] {
        let db = dir.path().join(format!("spread-{name}"));
        let work = dir.path().join(format!("work-{name}"));
        std::fs::create_dir_all(&work).unwrap();
        let (spread, ranges) = distributed(&files, &db, cut, &work, None);
        assert_eq!(ranges, COMMIT_RANGES);
        let forward = cut.forward;
        assert_eq!(spread.run.counts.games_read, single.run.counts.games_read);
        assert_eq!(spread.run.counts.indexed, single.run.counts.indexed);
        assert_eq!(spread.run.counts.duplicates, single.run.counts.duplicates);
        assert_eq!(spread.totals, single.totals, "ranges written forward: {forward}");
        assert_eq!(db_digest::digests(&db).unwrap(), want, "ranges written forward: {forward}");
        // The games' files, one a batch when ingested, compacted as a single machine's are.
        let spread_files = files_by_family(&db);
        for family in GAMES_FAMILIES {
            assert_eq!(spread_files.get(family), files_by_family(&dir.path().join("single")).get(family), "{family}");
        }
        assert!(spread_files.get("games").is_some_and(|&files| files >= 1), "{spread_files:?}");
    }
    assert_eq!(again.totals, single.totals);
}

/// A build larger than a commit cuts more key ranges (here forced by a small `per_range`), so
/// its tier has more maps; every other family holds the same bytes, and every
/// position the games reach, full-key or in the tier, answers as the single-machine
/// database's, found through its own range's map. So does a later ingest into it.
#[test]
fn a_build_of_more_ranges_answers_as_a_single_machine_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let files = collection(dir.path());
    let (single, spread) = (dir.path().join("single"), dir.path().join("spread"));
    let single_summary = single_machine(&files, &single);
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let cut = Ranges { forward: true, per_range: 10_000, run: 110_000 };
    let (spread_summary, ranges) = distributed(&files, &spread, cut, &work, None);
    assert!(ranges > 3 * COMMIT_RANGES, "{ranges} ranges");
    assert_eq!(spread_summary.totals, single_summary.totals);
    // Most of the positions are in the tier, found through its maps.
    let single_game = single_summary.totals.single_game_positions.unwrap_or(0);
    assert!(single_game > 20_000, "{single_game} tier positions");
    let differing: Vec<&str> = db_digest::digests(&single)
        .unwrap()
        .into_iter()
        .zip(db_digest::digests(&spread).unwrap())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.family)
        .collect();
    assert_eq!(differing, ["positions"], "only the tier's segments differ");
    // A third file ingested into each: the later commit finds the tier's positions of either.
    let third = dir.path().join("c.pgn");
    let later: String = openings(41_000)[39_000..].iter().map(|game| game.pgn() + "\n").collect();
    std::fs::write(&third, later).unwrap();
    let more = single_machine(std::slice::from_ref(&third), &single);
    assert_eq!(single_machine(std::slice::from_ref(&third), &spread).totals, more.totals);
    let (single, spread) = (Store::open_read_only(&single).unwrap(), Store::open_read_only(&spread).unwrap());
    let (single, spread) = (single.snapshot(), spread.snapshot());
    let mut compared = 0;
    for epd in positions(&openings(41_000)).keys() {
        let key = Key::encode(&epd.parse::<Position>().unwrap()).unwrap();
        let want = tabiya::explore::position_stats(&single, &key).unwrap();
        assert!(want.is_some(), "{epd}");
        assert_eq!(tabiya::explore::position_stats(&spread, &key).unwrap(), want, "{epd}");
        compared += 1;
    }
    assert!(compared > single_game, "{compared} positions");
}

/// The games' families, which a distributed build's tasks write apart.
const GAMES_FAMILIES: [&str; 9] =
    ["games", "mainlines", "facts", "headers", "labels", "fingerprints", "players", "names", "twins"];

/// The live SST files of each column family of the database at `db`.
fn files_by_family(db: &Path) -> BTreeMap<String, usize> {
    let families = rocksdb::DB::list_cf(&rocksdb::Options::default(), db).unwrap();
    let opened = rocksdb::DB::open_cf_for_read_only(&rocksdb::Options::default(), db, &families, false).unwrap();
    let mut files = BTreeMap::new();
    for file in opened.live_files().unwrap() {
        *files.entry(file.column_family_name).or_default() += 1;
    }
    files
}

/// A file appended by a distributed build to a database holding another (duplicates of its
/// games dropped, positions summed with the stored ones, tier positions promoted) holds the
/// bytes of two single-machine ingests.
#[test]
fn a_distributed_append_gives_the_bytes_of_two_ingests() {
    let dir = tempfile::tempdir().unwrap();
    let files = collection(dir.path());
    let (single, spread) = (dir.path().join("single"), dir.path().join("spread"));
    single_machine(&files[..1], &single);
    let second = single_machine(&files[1..], &single);
    single_machine(&files[..1], &spread);
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let (appended, _) = distributed(&files[1..], &spread, AS_A_COMMIT, &work, None);
    assert!(appended.run.counts.duplicates > 1_000, "{:?}", appended.run.counts);
    assert_eq!(appended.run.counts, second.run.counts);
    assert_eq!(appended.totals, second.totals);
    assert_eq!(db_digest::digests(&spread).unwrap(), db_digest::digests(&single).unwrap());
}

/// `--threads` sets the workers of an ingest, not what it writes: one thread and three give
/// the same bytes; a count of 0 is refused before anything is opened.
#[test]
fn ingest_writes_the_same_bytes_whatever_its_threads() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    let games = crate::common::games::generate(3_000);
    std::fs::write(&pgn, games.iter().map(|game| game.pgn()).collect::<String>()).unwrap();
    let mut digests = Vec::new();
    for threads in ["1", "3"] {
        let db = dir.path().join(format!("db-{threads}"));
        let out = crate::common::tabiya(&[
            "--threads",
            threads,
            "ingest",
            "--db",
            db.to_str().unwrap(),
            pgn.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        digests.push(db_digest::digests(&db).unwrap());
    }
    assert_eq!(digests[0], digests[1]);
    let out = crate::common::tabiya(&["--threads", "0", "stats", "--db", dir.path().join("none").to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--threads"));
    assert!(!dir.path().join("none").exists());
}

/// Annotated games (evaluations, clocks, move times) built apart: the same bytes (their
/// annotations and every position's notes) and the same run counts, annotations included.
#[test]
fn a_distributed_build_of_annotated_games_gives_the_bytes_and_counts_of_an_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    // The three files hold the same games: other rounds make them other games.
    let mut files: Vec<PathBuf> = ["annotated-lichess", "annotated-arena", "annotated-tcec"]
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(data.join(format!("{name}.pgn"))).unwrap();
            let file = dir.path().join(format!("{name}.pgn"));
            std::fs::write(&file, text.replace("[Round \"", &format!("[Round \"{name} "))).unwrap();
            file
        })
        .collect();
    // Annotations passed over are counted too.
    let odd = dir.path().join("odd.pgn");
    std::fs::write(
        &odd,
        "[Event \"odd\"]\n[Result \"*\"]\n\n1. e4 { [%eval nan] [%clk -0:00:05] } e5 { [%eval #0] } *\n",
    )
    .unwrap();
    files.push(odd);
    let single = single_machine(&files, &dir.path().join("single"));
    let counted = single.run.counts.annotations;
    assert!(counted.games >= 60 && counted.evaluations > 1_000 && counted.clocks > 1_000, "{counted:?}");
    assert!(counted.move_times > 100 && counted.malformed > 0, "{counted:?}");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let (spread, _) = distributed(&files, &dir.path().join("spread"), AS_A_COMMIT, &work, None);
    assert_eq!(spread.run.counts, single.run.counts);
    assert_eq!(
        db_digest::digests(&dir.path().join("spread")).unwrap(),
        db_digest::digests(&dir.path().join("single")).unwrap()
    );
}

/// Twins of a collection built to hold them (`tests/twins.rs` tells what makes twins): each of
/// many games with copies under other spellings and rounds, cut short, copied verbatim, and
/// games that are twins of a twin only; some near misses; copies whose `FEN` tags differ in
/// their move counters (one game, two twin keys). Spread at random over two files of
/// several batches, so that twins meet in a batch and across batches, either first. One game's
/// chain at set places: the game in the first batch, then in the last one, a cut copy (its
/// twin) and a longer game that is a twin of the cut copy only, which stays (a build that
/// decided twins batch by batch would drop it).
fn twin_collection(dir: &Path) -> Vec<PathBuf> {
    use crate::twins::{game, random_moves};
    let mut rng = crate::common::Lcg(11);
    let mut texts: Vec<String> = openings(30_000).iter().map(|game| game.pgn()).collect();
    for family in 0..400u64 {
        let moves = random_moves(100 + family, 30 + rng.next(30) as usize);
        let (white, black) = (format!("Player{family}, Anna"), format!("Rival{family}, Boris"));
        let date = format!("1990.{:02}.{:02}", 1 + family % 12, 1 + family % 28);
        let result = ["1-0", "0-1", "1/2-1/2"][rng.index(3)];
        let spelled = game(&format!("Player{family},A"), &format!("Rival{family},B"), &date, "9", result, &moves);
        let longer = diverging(&moves, 20, 10_000 + family, 10);
        for text in [
            game(&white, &black, &date, "1", result, &moves),
            spelled.clone(),
            spelled,
            game(&white, &black, &date, "2", "*", &moves[..20]),
            game(&white, &black, &date, "3", "*", &longer),
            game(&white, &black, "1991.01.01", "1", result, &moves),
            game(&white, &black, &date, "4", result, &moves[..12]),
        ] {
            let at = rng.index(texts.len() + 1);
            texts.insert(at, text);
        }
    }
    // Copies whose FEN tags differ in their move counters only: one fingerprint, two twin keys
    // (the first copy early, the other late).
    for pair in 0..24u64 {
        use shakmaty::{Chess, EnPassantMode, Position as _, fen::Epd, san::San};
        let moves = random_moves(500 + pair, 30);
        let mut position = Chess::default();
        for &m in &moves[..4] {
            position.play_unchecked(m);
        }
        let epd = Epd::from_position(&position, EnPassantMode::Legal);
        let mut movetext = String::new();
        for (ply, &m) in moves[4..].iter().enumerate() {
            if ply % 2 == 0 {
                movetext += &format!("{}. ", ply / 2 + 3);
            }
            movetext += &format!("{} ", San::from_move(&position, m));
            position.play_unchecked(m);
        }
        let game = |counters: &str| {
            format!(
                "[Event \"Fen\"]\n[Date \"2003.03.03\"]\n[Round \"{pair}\"]\n[White \"White{pair}, Ann\"]\n[Black \"Black{pair}, Bob\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{epd} {counters}\"]\n\n{movetext}*\n\n"
            )
        };
        texts.insert(20 + pair as usize, game("0 3"));
        let end = texts.len() - 5;
        texts.insert(end, game("0 9"));
    }
    // The chain: a game of 40 plies early, its cut copy and a longer twin of the cut copy late.
    let moves = random_moves(7, 40);
    let longer = diverging(&moves, 25, 8, 15);
    let (white, black, date) = ("Chain, Carla", "Link, Lars", "2001.02.03");
    texts.insert(10, game(white, black, date, "1", "1-0", &moves));
    let end = texts.len() - 10;
    texts.insert(end, game(white, black, date, "2", "*", &moves[..25]));
    texts.insert(end + 1, game(white, black, date, "3", "0-1", &longer));
    let half = texts.len() / 2;
    let paths = vec![dir.join("a.pgn"), dir.join("b.pgn")];
    std::fs::write(&paths[0], texts[..half].join("\n")).unwrap();
    std::fs::write(&paths[1], texts[half..].join("\n")).unwrap();
    paths
}

/// `moves` up to `at`, then `extra` random legal plies from `seed` that leave them there.
fn diverging(moves: &[shakmaty::Move], at: usize, seed: u64, extra: usize) -> Vec<shakmaty::Move> {
    use shakmaty::{CastlingMode, Chess, Position as _};
    let mut rng = crate::common::Lcg(seed);
    let mut position = Chess::default();
    for &m in &moves[..at] {
        position.play_unchecked(m);
    }
    let mut line = moves[..at].to_vec();
    while line.len() < at + extra {
        let mut legal: Vec<shakmaty::Move> = position.legal_moves().into_iter().collect();
        legal.retain(|&m| line.len() > at || moves.get(at) != Some(&m));
        if legal.is_empty() {
            break;
        }
        legal.sort_by_key(|m| m.to_uci(CastlingMode::Standard).to_string());
        let m = legal[rng.index(legal.len())];
        position.play_unchecked(m);
        line.push(m);
    }
    line
}

/// A distributed build that skips twins keeps the games `ingest --skip-twins` keeps, counted
/// alike (duplicates and twins), byte for byte; so does an append, whose twins of stored games
/// the prepare tasks find; a prefix of more plies (`--min-prefix`) skips fewer.
#[test]
fn a_distributed_build_skipping_twins_gives_the_bytes_and_counts_of_an_ingest_skipping_them() {
    let dir = tempfile::tempdir().unwrap();
    let files = twin_collection(dir.path());
    let single_with = |files: &[PathBuf], db: &Path, min_prefix: usize| {
        let store = Store::open(db).unwrap();
        let options = indexer::IngestOptions { skip_twins: Some(min_prefix) };
        indexer::ingest_with(&store, files, &options, &mut indexer::SilentObserver).unwrap()
    };
    for (name, min_prefix) in [("default", tabiya::model::twins::MIN_PREFIX_PLIES), ("longer", 26)] {
        let single = dir.path().join(format!("single-{name}"));
        let want = single_with(&files, &single, min_prefix);
        let counts = &want.run.counts;
        assert!(counts.twins > 400 && counts.duplicates > 100 && counts.indexed > 30_000, "{counts:?}");
        let work = dir.path().join(format!("work-{name}"));
        std::fs::create_dir_all(&work).unwrap();
        let spread = dir.path().join(format!("spread-{name}"));
        let (got, _) = distributed(&files, &spread, AS_A_COMMIT, &work, Some(min_prefix));
        assert_eq!(got.run.counts, want.run.counts, "{name}");
        assert_eq!(got.totals, want.totals, "{name}");
        assert_eq!(db_digest::digests(&spread).unwrap(), db_digest::digests(&single).unwrap(), "{name}");
    }
    // The chain's longer game stays; its cut copy does not.
    let store = Store::open_read_only(&dir.path().join("spread-default")).unwrap();
    let chain = store.snapshot().players().games("Chain, Carla", None).unwrap();
    let plies: Vec<usize> = store.snapshot().games().listed(&chain).unwrap().iter().map(|game| game.plies()).collect();
    assert_eq!(plies, [40, 40], "the game and the longer twin of its cut copy");
    drop(store);
    // An append of the second file to a database holding the first.
    let (single, spread) = (dir.path().join("append-single"), dir.path().join("append-spread"));
    let min_prefix = tabiya::model::twins::MIN_PREFIX_PLIES;
    single_with(&files[..1], &single, min_prefix);
    single_with(&files[..1], &spread, min_prefix);
    let second = single_with(&files[1..], &single, min_prefix);
    assert!(second.run.counts.twins > 100, "{:?}", second.run.counts);
    let work = dir.path().join("work-append");
    std::fs::create_dir_all(&work).unwrap();
    let (appended, _) = distributed(&files[1..], &spread, AS_A_COMMIT, &work, Some(min_prefix));
    assert_eq!(appended.run.counts, second.run.counts);
    assert_eq!(db_digest::digests(&spread).unwrap(), db_digest::digests(&single).unwrap());
}
