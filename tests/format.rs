//! The on-disk format, pinned: the embedded sample ingested into a new database gives exactly
//! these bytes. Format 4 moved the totals from the meta family into the positions family's
//! commit record; its positions, games, fingerprints and players are byte for byte what the
//! format-3 code gave (digests taken with that revision's build, `tools/ci/format-digest.sh`).
//! Format 5 stores each general position value's games by move instead of its slices, and adds
//! the facts family; games, fingerprints, players and the commit record are unchanged. Format 6
//! stores a one-game position as its game and next move only (the game's facts are in the facts
//! family), and a position of at most 64 games without its top and recent games; a game's
//! mainline takes about a byte a ply (`codec::mainline`), which changes the games and their
//! fingerprints, and the order of ids inside a batch (by those bytes), hence every family; the
//! facts family keeps a value per writer batch. Format 7 keeps the positions only one game
//! reaches in the single-game tier (the game's marked plies, a hash segment and block lists, in
//! the positions family after every position key) instead of as keys; the other families and
//! the commit record are unchanged. Format 8 writes the hash segments with vers-vecs instead of
//! sucds, each with its range's first key, so that a look-up probes one range of each commit;
//! only the tier's records change. Format 9 stores a game's start and mainline in the mainlines
//! family, apart from its tags and result (the games family); the positions, facts,
//! fingerprints, players and the commit record are unchanged. Since format 9 a commit's key ranges
//! (each a segment of the tier) are cut at keys chosen by their hash, not at every 4096th staged
//! record, so that the same games give the same bytes however they were staged (on one machine
//! or spread over many); the layout is the same and readers read both, but the positions
//! family's tier records are cut differently. Format 10 adds the names and twins families and
//! counts a run's twins in its record; format 11 adds the headers and labels families; the other
//! families are unchanged. Format 12 writes a mainline as Huffman codes of three symbols a move
//! with its number of plies (`codec::mainline`, about 5.4 bits a ply instead of a byte), which
//! changes the mainlines, the fingerprints and the order of ids inside a batch, hence every
//! family keyed by game and the positions' game ids; labels and names are unchanged. Format 13
//! stores a position of at most 64 games as its games by move alone (first byte 0xfe), its
//! statistics derived from those games' facts when read; only the positions family changes.
//! Format 14 replaces the tier's hash segments and block lists by one map a commit range (blocks
//! of games by material and pawn files, and static functions from a key to its game's place in
//! its block); only the positions family's tier records change. Format 15 reads Chess960 games:
//! their positions' keys have first bytes 81 to 196, and a game's start a third kind
//! (`model::Start::Chess960`) beside the initial position and a standard `FEN`, which keep their
//! bytes; a database of standard games differs only by the version in its meta family. Format
//! 16 reads King of the Hill, Three-check, Racing Kings, Atomic and Antichess games: keys with
//! first bytes 197 to 219, a start of a fourth kind (`model::Start::Lichess`); again only the
//! version changes for a database of standard games. Format 17 adds the annotations family (each
//! annotated game's evaluations, clocks and move times, `model::GameAnnotations`): a database of
//! games without annotations differs by the version and the family, empty. Format 18 adds the
//! positions' notes of annotated games; format 19 codes the annotations arithmetically
//! (`codec::annotations`): only the annotations' values and the version change. A change to any
//! stored layout (a vers-vecs upgrade that changes its structures included) fails here until
//! FORMAT_VERSION and these digests change together.

use crate::db_digest;

use tabiya::{indexer, store::Store};

/// Asserts that the database at `path` has the pinned digests: (family, entries, hash) each.
fn assert_pinned(path: &std::path::Path, want: &[(&str, u64, &str)]) {
    let got: Vec<(&str, u64, String)> =
        db_digest::digests(path).unwrap().into_iter().map(|d| (d.family, d.entries, d.hash)).collect();
    let want: Vec<(&str, u64, String)> = want.iter().map(|&(f, n, h)| (f, n, h.to_owned())).collect();
    assert_eq!(got, want);
}

/// Ingests `tests/data/NAME` into a new database, which must index `indexed` games and hold
/// the pinned digests.
fn assert_data_file_pinned(name: &str, indexed: u64, want: &[(&str, u64, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let pgn = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let path = dir.path().join("db");
    {
        let store = Store::open(&path).unwrap();
        let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
        assert_eq!(summary.run.counts.indexed, indexed);
    }
    assert_pinned(&path, want);
}

#[test]
fn the_sample_database_has_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample.pgn");
    let path = dir.path().join("db");
    {
        let store = Store::open(&path).unwrap();
        indexer::ingest(&store, &[pgn.into()], &mut indexer::SilentObserver).unwrap();
    }
    let want = [
        ("positions", 14, "d6ee28952b5e8aeda47cc0dd654b4657"),
        ("games", 5, "3dcd9f352ae3bfa68e621a8d704a3e4a"),
        ("mainlines", 5, "f736d1442ce77eb7ddbff556ec4890ff"),
        ("annotations", 0, "99aa06d3014798d86001c324468d497f"),
        ("facts", 1, "2b9d9be225dfba13b40e57b86909e2f4"),
        ("headers", 1, "9532006683757f1dbdbeb13290863ec1"),
        ("labels", 9, "45b59c071ae501a02e81a255ba92371a"),
        ("fingerprints", 5, "b2e8fa077c718cfb033eedf2d1fa27c8"),
        ("players", 10, "d05a71a1e144a64701faba075060f43a"),
        ("names", 23, "62e38c0f4072316bcd3a65cb973026cf"),
        ("twins", 5, "61ca0248297899c7cb538175d4d294e8"),
        ("openings", 0, "99aa06d3014798d86001c324468d497f"),
        ("meta", 1, "c140449d50cd6213c5050d7e2a78c620"),
        ("commit", 1, "b756a806c83513586c60e38e1d2bd571"),
    ];
    assert_pinned(&path, &want);
}

/// Games of Chess960 and lichess's three variants on a standard board (three each, random,
/// with double steps, castling and checks preferred; `tests/data/variants.pgn`, made by
/// python-chess): their keys, mainlines and fingerprints keep their bytes, the positions'
/// representation aside (digests taken with the revision before positions held shakmaty's
/// variant positions).
#[test]
fn variant_games_have_the_pinned_bytes() {
    let want = [
        ("positions", 19, "8b2b7514da1e03b8f62ad2c13660fd14"),
        ("games", 12, "4c8e7d6c8a314ad0ceb1ff0d137e95b4"),
        ("mainlines", 12, "e49db48479e26e6644910b8b14e9f9bc"),
        ("annotations", 0, "99aa06d3014798d86001c324468d497f"),
        ("facts", 1, "50701ec2696e94b30e7d0a6a35d808dc"),
        ("headers", 1, "e1de6644890a3b156a5c712b7398d5ff"),
        ("labels", 2, "60646bec5756c82dfe28ab976209b578"),
        ("fingerprints", 12, "2bd55c8fe2caed5f3f6a2acdced47702"),
        ("players", 24, "f9a81c731001538a8d87765305bd6e33"),
        ("names", 18, "02ba12d3387da90a6ec9227fb04264cc"),
        ("twins", 12, "9257816b7d9007728ffed5dca1edfc1c"),
        ("openings", 0, "99aa06d3014798d86001c324468d497f"),
        ("meta", 1, "c140449d50cd6213c5050d7e2a78c620"),
        ("commit", 1, "14160a292d3c131715666fe7bf85d37b"),
    ];
    assert_data_file_pinned("variants.pgn", 12, &want);
}

/// Antichess games (eight, random, pawn moves and promotions to a king preferred;
/// `tests/data/antichess.pgn`, made by python-chess): their keys under Antichess's own code and
/// their mainlines with a king's promotion keep their bytes.
#[test]
fn antichess_games_have_the_pinned_bytes() {
    let want = [
        ("positions", 14, "74cd6e71a9159a5ea2d972aee91a279f"),
        ("games", 8, "4dbb8c6cca90df21dbdf76c3f7a533c4"),
        ("mainlines", 8, "234bc32f188909c0605b7278ad45e7d0"),
        ("annotations", 0, "99aa06d3014798d86001c324468d497f"),
        ("facts", 1, "fb4a2232a2774e288504782e6e3689ca"),
        ("headers", 1, "9cdd82722ec5c56f7d6d27ea49ca55fa"),
        ("labels", 2, "60646bec5756c82dfe28ab976209b578"),
        ("fingerprints", 8, "3a322112b7988c82dba92c4e5a79ff51"),
        ("players", 16, "64d9d2896a6ea83a2fd404584ce3fed1"),
        ("names", 48, "6fbcaace4878c15a7bb05d181d9d49c8"),
        ("twins", 8, "d009357d7b67b011ed14cfd5e20564b9"),
        ("openings", 0, "99aa06d3014798d86001c324468d497f"),
        ("meta", 1, "c140449d50cd6213c5050d7e2a78c620"),
        ("commit", 1, "82b9d5adbada598382c15ed9435200da"),
    ];
    assert_data_file_pinned("antichess.pgn", 8, &want);
}

/// Forty games of Stockfish's evaluations and lichess's clocks (`tests/data/annotated-lichess.pgn`,
/// made by `tools/data/annotated-games.py`): the annotations family's bytes and the positions' notes pinned.
#[test]
fn annotated_games_have_the_pinned_bytes() {
    let want = [
        ("positions", 291, "a84ca5116bb80c005388c8b9d1126054"),
        ("games", 40, "0bbd7f01b5c1abe4b08ba6b831f14609"),
        ("mainlines", 40, "a253dd7db9783d5cb7b6455f9443f257"),
        ("annotations", 40, "e40f34036bd94379d3df1bf49f492053"),
        ("facts", 1, "0b0885363ad2922ba461e43e5a01817e"),
        ("headers", 1, "b90acf1d2ce8cc3d587fa00ecfdcc28e"),
        ("labels", 9, "81a56c4efb8177cc4c8eae2002b490ff"),
        ("fingerprints", 40, "9b0dd54d6e3d9622beaf747834ff2d1a"),
        ("players", 80, "1e015c12b24564b5c54bab00acc1275b"),
        ("names", 92, "ef5ccd8bd4f263d36ba57bc9726248bb"),
        ("twins", 40, "b9baa40f7926b7bc714f8b3ad3ffa48b"),
        ("openings", 0, "99aa06d3014798d86001c324468d497f"),
        ("meta", 1, "c140449d50cd6213c5050d7e2a78c620"),
        ("commit", 1, "f7ff8d4d908cdac94270c5c5853f331e"),
    ];
    assert_data_file_pinned("annotated-lichess.pgn", 40, &want);
}

/// A collection whose smallest staged key is the smallest key there is (category 0, nothing but
/// the rooks and kings on their squares, White to move). (Before format 9's hashed range bounds
/// this left the commit's first key range empty; `store::staging`'s tests keep that case.)
#[test]
fn a_commit_staging_the_smallest_key_has_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let setup = "[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n";
    let games = [
        format!("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n{setup}\n1. Ra2 Ra7 2. Ra1 Ra8 3. Kf1 1-0\n\n"),
        format!("[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n{setup}\n1. O-O Kd8 0-1\n\n"),
    ];
    let pgn = dir.path().join("smallest.pgn");
    std::fs::write(&pgn, games.concat()).unwrap();
    let path = dir.path().join("db");
    {
        let store = Store::open(&path).unwrap();
        let summary = indexer::ingest(&store, &[pgn], &mut indexer::SilentObserver).unwrap();
        assert_eq!(summary.run.counts.indexed, 2);
    }
    assert_pinned(&path, &PINNED_SMALLEST);
}

/// The digests of [`a_commit_staging_the_smallest_key_has_the_pinned_bytes`]'s database: but for
/// the positions family (hashed range bounds), the names and twins families (format 10), the
/// headers and labels families and the run record (format 11), every family holding games
/// or their ids (format 12's mainline code), and the positions family's tier records and the
/// format version (format 14's tier maps; 15, 16 and 18 changed the version alone), those the revision
/// before the store's restructure gave.
const PINNED_SMALLEST: [(&str, u64, &str); 14] = [
    ("positions", 4, "50f53d495f3bcdaf797f1ad56166935a"),
    ("games", 2, "da38b989a5f49254ab7f72d4557670ea"),
    ("mainlines", 2, "dea79ff86379ad14afc7da7e4483fdb2"),
    ("annotations", 0, "99aa06d3014798d86001c324468d497f"),
    ("facts", 1, "3fadb4f77f7f904e511af521404438a2"),
    ("headers", 1, "0cfb8964728924a166d75c51c6461022"),
    ("labels", 2, "4a8dcda704d95afe38466bb9dca27647"),
    ("fingerprints", 2, "3e77076cac4ea2465cecf5595930294e"),
    ("players", 4, "b210aceabb04421ac179dd64184f78ce"),
    ("names", 4, "6062fdaae2c94cc296f9bc17fb3dce2b"),
    ("twins", 2, "f92c25d2ee75699c6b118cbd1361ec08"),
    ("openings", 0, "99aa06d3014798d86001c324468d497f"),
    ("meta", 1, "c140449d50cd6213c5050d7e2a78c620"),
    ("commit", 1, "a8a7a6f045731596d61bdad86c201844"),
];
