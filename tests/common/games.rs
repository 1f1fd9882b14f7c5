//! Random games for tests that check the database against a naive replay: a shared opening,
//! then random legal moves favouring checks and captures (so that pins, double checks, mates and
//! promotions occur), a random result and a date.

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position as _, fen::Epd, san::San};
use tabiya::{indexer, store::Store};

use super::Lcg;

pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

pub struct Game {
    pub result: &'static str,
    pub moves: Vec<Move>,
}

/// Random games: a shared opening (one of the first 3 legal moves, 4 plies), then random legal
/// moves favouring checks and captures, so that pins, double checks and mates occur.
pub fn generate(count: usize) -> Vec<Game> {
    let mut rng = Lcg(11);
    (0..count)
        .map(|_| {
            let mut position = Chess::default();
            let mut moves = Vec::new();
            let length = 20 + rng.next(140);
            for ply in 0..length {
                let mut legal: Vec<Move> = position.legal_moves().into_iter().collect();
                if legal.is_empty() {
                    break;
                }
                legal.sort_by_key(|m| m.to_uci(CastlingMode::Standard).to_string());
                let m = if ply < 4 {
                    legal[rng.index(legal.len().min(3))]
                } else {
                    let sharp: Vec<Move> = legal
                        .iter()
                        .copied()
                        .filter(|m| {
                            m.is_capture() || m.is_promotion() || position.clone().play(*m).is_ok_and(|p| p.is_check())
                        })
                        .collect();
                    if !sharp.is_empty() && rng.next(3) != 0 {
                        sharp[rng.index(sharp.len())]
                    } else {
                        legal[rng.index(legal.len())]
                    }
                };
                position.play_unchecked(m);
                moves.push(m);
            }
            Game { result: RESULTS[rng.index(4)], moves }
        })
        .collect()
}

/// The year of game `index`'s Date tag: 2000 to 2009.
pub fn year(index: usize) -> usize {
    2000 + index % 10
}

/// The players of game `index` (names with a comma, as databases write them), White first.
pub fn players(index: usize) -> [String; 2] {
    [format!("Doe, Player {}", index % 7), format!("Roe, Player {}", index % 5)]
}

/// The ratings of game `index`, White first: every eleventh game unrated, every fifth with
/// White unrated.
pub fn ratings(index: usize) -> [Option<u16>; 2] {
    if index.is_multiple_of(11) {
        return [None, None];
    }
    let white = (!index.is_multiple_of(5)).then_some(2000 + (index * 37 % 700) as u16);
    [white, Some(2050 + (index * 53 % 650) as u16)]
}

pub fn pgn(index: usize, game: &Game) -> String {
    let [white, black] = players(index);
    let mut out = format!(
        "[Event \"Generated\"]\n[Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
         [Date \"{}.01.01\"]\n[Result \"{}\"]\n",
        index + 1,
        year(index),
        game.result
    );
    for (tag, rating) in ["WhiteElo", "BlackElo"].iter().zip(ratings(index)) {
        if let Some(rating) = rating {
            out += &format!("[{tag} \"{rating}\"]\n");
        }
    }
    out + "\n" + &movetext(&game.moves) + game.result + "\n\n"
}

/// SAN movetext of moves from the initial position: `1. e4 e5 2. Nf3 ` (a space after each).
pub fn movetext(moves: &[Move]) -> String {
    let mut out = String::new();
    let mut position = Chess::default();
    for (ply, m) in moves.iter().enumerate() {
        if ply % 2 == 0 {
            out += &format!("{}. ", ply / 2 + 1);
        }
        out += &format!("{} ", San::from_move(&position, *m));
        position.play_unchecked(*m);
    }
    out
}

/// Every distinct position of every game: EPD → the games (indices) reaching it.
pub fn positions(games: &[Game]) -> BTreeMap<String, (Chess, BTreeSet<usize>)> {
    let mut all: BTreeMap<String, (Chess, BTreeSet<usize>)> = BTreeMap::new();
    for (index, game) in games.iter().enumerate() {
        let mut position = Chess::default();
        for m in game.moves.iter().map(Some).chain([None]) {
            let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
            all.entry(epd).or_insert_with(|| (position.clone(), BTreeSet::new())).1.insert(index);
            if let Some(m) = m {
                position.play_unchecked(*m);
            }
        }
    }
    all
}

/// The games ingested into a fresh database (kept while the directory lives).
pub fn build(games: &[Game]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("generated.pgn");
    std::fs::write(&path, games.iter().enumerate().map(|(i, g)| pgn(i, g)).collect::<String>()).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let summary = indexer::ingest(&store, &[path], &mut indexer::SilentObserver).unwrap();
    assert_eq!(summary.run.counts.indexed, games.len() as u64);
    (dir, store)
}
