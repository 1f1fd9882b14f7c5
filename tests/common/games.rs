//! Generated games for the tests that check the database against a naive replay, in one place:
//! [`generate`] (a shared opening, then random legal moves favouring checks and captures, so
//! that pins, double checks, mates and promotions occur; players, ratings and years from the
//! game's index) and [`openings`] (short walks over the first three legal moves: openings many
//! games share, transpositions and repetitions; random players, ratings, dates with or without
//! a month or a year, and time controls of every speed). Each game is a [`Game`], written as
//! PGN by [`Game::pgn`].

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position as _, fen::Epd, san::San};
use tabiya::{indexer, store::Store};

use super::Lcg;

pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// A generated game: its tags, result and moves.
pub struct Game {
    /// Its number in the collection, from 1: the Round tag, by which a test finds it once
    /// stored (ids follow the mainlines' order within a batch, not the input's).
    pub round: u64,
    pub white: String,
    pub black: String,
    pub white_elo: Option<u16>,
    pub black_elo: Option<u16>,
    /// The Date tag's year and month (`????`, `??` when unknown).
    pub date: (Option<u16>, Option<u8>),
    /// The Date tag's day when its month is known.
    pub day: u8,
    /// The TimeControl tag, when the game has one.
    pub time_control: Option<&'static str>,
    /// The Site tag, when the game has one.
    pub site: Option<&'static str>,
    pub result: &'static str,
    pub moves: Vec<Move>,
}

impl Game {
    /// The game as PGN.
    pub fn pgn(&self) -> String {
        let date = match self.date {
            (Some(y), Some(m)) => format!("{y}.{m:02}.{:02}", self.day),
            (Some(y), None) => format!("{y}.??.??"),
            _ => "????.??.??".to_owned(),
        };
        let mut out = String::from("[Event \"Generated\"]\n");
        if let Some(site) = self.site {
            out += &format!("[Site \"{site}\"]\n");
        }
        out += &format!("[Date \"{date}\"]\n[Round \"{}\"]\n", self.round);
        out += &format!("[White \"{}\"]\n[Black \"{}\"]\n[Result \"{}\"]\n", self.white, self.black, self.result);
        for (tag, elo) in [("WhiteElo", self.white_elo), ("BlackElo", self.black_elo)] {
            if let Some(elo) = elo {
                out += &format!("[{tag} \"{elo}\"]\n");
            }
        }
        if let Some(control) = self.time_control {
            out += &format!("[TimeControl \"{control}\"]\n");
        }
        out + "\n" + &movetext(&self.moves) + self.result + "\n\n"
    }

    /// The average of the players' ratings as tabiya rounds it (half up), or the one rating.
    pub fn average_rating(&self) -> Option<u32> {
        match (self.white_elo, self.black_elo) {
            (Some(w), Some(b)) => Some((u32::from(w) + u32::from(b)).div_ceil(2)),
            (Some(r), None) | (None, Some(r)) => Some(u32::from(r)),
            (None, None) => None,
        }
    }
}

/// Random games: a shared opening (one of the first 3 legal moves, 4 plies), then random legal
/// moves favouring checks and captures, so that pins, double checks and mates occur. Game `i`
/// (from 0) has the players [`players`]`(i)`, the ratings [`ratings`]`(i)` and is dated
/// January 1st of [`year`]`(i)`.
pub fn generate(count: usize) -> Vec<Game> {
    let mut rng = Lcg(11);
    (0..count)
        .map(|index| {
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
            let [white, black] = players(index);
            let [white_elo, black_elo] = ratings(index);
            Game {
                round: index as u64 + 1,
                white,
                black,
                white_elo,
                black_elo,
                date: (Some(year(index) as u16), Some(1)),
                day: 1,
                time_control: None,
                site: None,
                result: RESULTS[rng.index(4)],
                moves,
            }
        })
        .collect()
}

/// The players of [`openings`]' games.
const NAMES: [&str; 6] =
    ["Carlsen, Magnus", "Caruana, Fabiano", "Anand, Viswanathan", "Kasparov, Garry", "Polgar, Judit", "Tal, Mikhail"];
/// The time controls of [`openings`]' games: one of each speed, none and an unreadable one.
const TIME_CONTROLS: [&str; 7] = ["60+0", "180+2", "600+5", "5400+30", "-", "?", ""];

/// Games from random short walks over the first three legal moves: openings shared by many
/// games, with transpositions and repetitions; random players ([`NAMES`]), ratings (a fifth
/// unrated), dates (an eighth undated, a third of the rest without a month) and time controls.
pub fn openings(count: u64) -> Vec<Game> {
    let mut rng = Lcg(7);
    (1..=count)
        .map(|round| {
            let mut position = Chess::default();
            let mut moves = Vec::new();
            for _ in 0..4 + rng.next(20) {
                let mut legal: Vec<Move> = position.legal_moves().into_iter().collect();
                if legal.is_empty() {
                    break;
                }
                legal.sort_by_key(|m| m.to_uci(CastlingMode::Standard).to_string());
                let m = legal[rng.next(legal.len().min(3) as u64) as usize];
                position.play_unchecked(m);
                moves.push(m);
            }
            let elo = |rng: &mut Lcg| (rng.next(5) != 0).then(|| 1500 + rng.next(1400) as u16);
            let white = NAMES[rng.next(6) as usize].to_owned();
            let black = NAMES[rng.next(6) as usize].to_owned();
            let (white_elo, black_elo) = (elo(&mut rng), elo(&mut rng));
            let year = (rng.next(8) != 0).then(|| 1995 + rng.next(30) as u16);
            let month = (rng.next(3) != 0).then(|| 1 + rng.next(12) as u8);
            let time_control = Some(TIME_CONTROLS[rng.next(7) as usize]).filter(|control| !control.is_empty());
            Game {
                round,
                white,
                black,
                white_elo,
                black_elo,
                date: (year, year.and(month)),
                day: 11,
                time_control,
                site: Some("Test"),
                result: RESULTS[rng.next(4) as usize],
                moves,
            }
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
    std::fs::write(&path, games.iter().map(Game::pgn).collect::<String>()).unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let summary = indexer::ingest(&store, &[path], &mut indexer::SilentObserver).unwrap();
    assert_eq!(summary.run.counts.indexed, games.len() as u64);
    (dir, store)
}
