//! Polyglot opening books: the open format engines and GUIs read (16-byte entries: the
//! position's Polyglot Zobrist key, the move, its weight, a learn field; all big-endian, sorted
//! by key), made from the database.
//!
//! A book is the tree of the moves the games played often enough: walked breadth first from a
//! root position (the initial position by default), each distinct position visited once (at
//! its least depth, whatever the move order that reaches it), its moves read from the
//! database's statistics under the query's filter. Weights follow Polyglot's `make-book`: the
//! side to move's score in half points (2 a win, 1 a draw), or the games, or one for every
//! move.
//!
//! ```no_run
//! use tabiya::export::{BookOptions, polyglot_key};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let book = BookOptions { min_games: 3, max_ply: Some(20), ..BookOptions::default() }.make(&store, &Default::default())?;
//! std::fs::write("book.bin", book.to_bytes())?;
//! println!("{} entries over {} positions", book.entries.len(), book.positions_with_moves);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::Ordering;

use rayon::prelude::*;
use rustc_hash::FxHashSet;
use shakmaty::{Color, EnPassantMode, Move, Role, Square, zobrist::Zobrist64};

use crate::{
    Key,
    explore::{Admission, Filter, QueryError, key_of, stats_of_games},
    model::Tally,
    position::{Position, Variant},
    store::{ScanProgress, Snapshot, Store},
};

/// Bytes of a Polyglot book entry.
pub const ENTRY_LEN: usize = 16;

/// How a book weighs a position's moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BookWeight {
    /// The side to move's score in half points: 2 a win, 1 a draw (Polyglot's `make-book`).
    #[default]
    Score,
    /// The games that played the move.
    Games,
    /// Every move alike (Polyglot's `-uniform`).
    Uniform,
}

/// What goes into a book.
#[derive(Clone, Debug)]
pub struct BookOptions {
    /// Where the book starts (its positions are those reached from here).
    pub root: Position,
    /// Which games count.
    pub filter: Filter,
    /// Fewest games that played a move for it to be in the book (and followed).
    pub min_games: u64,
    /// Deepest position (plies from the root) whose moves go in; `None`: no limit.
    pub max_ply: Option<u32>,
    /// Only the moves of this side (the other side's moves are still followed).
    pub only: Option<Color>,
    /// Lowest score of the side to move with a move, in percent (a win 100, a draw 50), over
    /// the games with a result; a move with none has no score and is left out.
    pub min_score: Option<f64>,
    /// How moves are weighed.
    pub weight: BookWeight,
}

impl Default for BookOptions {
    fn default() -> BookOptions {
        BookOptions {
            root: Position::initial(),
            filter: Filter::default(),
            min_games: 3,
            max_ply: None,
            only: None,
            min_score: None,
            weight: BookWeight::Score,
        }
    }
}

/// One entry of a Polyglot book (its learn field is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BookEntry {
    /// The position's Polyglot key ([`polyglot_key`]).
    pub key: u64,
    /// The move ([`polyglot_move`]).
    pub mv: u16,
    /// Its weight.
    pub weight: u16,
}

/// A book made: its entries in book order, and what the walk saw.
#[derive(Clone, Debug, Default)]
pub struct Book {
    /// By key, then heaviest first, then by move.
    pub entries: Vec<BookEntry>,
    /// Distinct positions visited.
    pub positions: u64,
    /// Of those, positions with at least one entry.
    pub positions_with_moves: u64,
}

impl Book {
    /// The book file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.entries.len() * ENTRY_LEN);
        for entry in &self.entries {
            bytes.extend_from_slice(&entry.key.to_be_bytes());
            bytes.extend_from_slice(&entry.mv.to_be_bytes());
            bytes.extend_from_slice(&entry.weight.to_be_bytes());
            bytes.extend_from_slice(&0u32.to_be_bytes());
        }
        bytes
    }

    /// The entries of a book file; `None` unless it is a whole number of entries.
    pub fn entries_of(bytes: &[u8]) -> Option<Vec<BookEntry>> {
        if !bytes.len().is_multiple_of(ENTRY_LEN) {
            return None;
        }
        let be16 = |b: &[u8]| u16::from_be_bytes([b[0], b[1]]);
        Some(
            bytes
                .chunks_exact(ENTRY_LEN)
                .map(|e| BookEntry {
                    key: u64::from_be_bytes(e[..8].try_into().unwrap_or_default()),
                    mv: be16(&e[8..10]),
                    weight: be16(&e[10..12]),
                })
                .collect(),
        )
    }
}

/// A position's Polyglot key: its Zobrist hash with Polyglot's random numbers, the en-passant
/// file hashed when a pawn of the side to move stands beside the pawn that just advanced two
/// squares (legal or not: Polyglot's rule).
///
/// ```
/// use shakmaty::Chess;
/// assert_eq!(tabiya::export::polyglot_key(&Chess::default()), 0x463b96181691fc9c);
/// ```
pub fn polyglot_key(chess: &impl shakmaty::Position) -> u64 {
    chess.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// A move as Polyglot encodes it: the target file and rank, the origin file and rank (3 bits
/// each, from the lowest), then the promotion (1 knight … 4 queen); castling as the king taking
/// its own rook (e1h1).
///
/// ```
/// use shakmaty::{Move, Role, Square};
/// let castle = Move::Castle { king: Square::E1, rook: Square::H1 };
/// assert_eq!(tabiya::export::polyglot_move(&castle), 0x0107);
/// ```
pub fn polyglot_move(m: &Move) -> u16 {
    let (from, to) = match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(Square::A1), m.to()),
    };
    let promotion = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    let square = |s: Square| u16::from(s.file()) | u16::from(s.rank()) << 3;
    square(to) | square(from) << 6 | promotion << 12
}

/// A position the walk visits: its board (with the en-passant square the move left) and key.
struct Visit {
    position: Position,
    key: Key,
}

/// What one visited position gives: its entries, and the positions its kept moves lead to.
type Visited = (Vec<BookEntry>, Vec<Visit>);

impl BookOptions {
    /// Refuses options no book is made of (no fewest games, a score floor outside 0–100, a
    /// root of another variant): what a server checks before it waits for a scan's place.
    pub fn check(&self) -> Result<(), QueryError> {
        match self.root.variant() {
            Variant::Standard => {}
            Variant::Chess960 => {
                return Err(QueryError::input(
                    "a Polyglot book holds standard chess only: its keys and moves have no Chess960 castling",
                ));
            }
            variant => {
                return Err(QueryError::input(format!(
                    "a Polyglot book holds standard chess only: its keys have no rules or counters of {}",
                    variant.pgn_name()
                )));
            }
        }
        if self.min_games == 0 {
            return Err(QueryError::input("the fewest games a book move needs is at least 1"));
        }
        if let Some(score) = self.min_score
            && !(0.0..=100.0).contains(&score)
        {
            return Err(QueryError::input(format!("a score floor is a percentage from 0 to 100, not {score}")));
        }
        Ok(())
    }

    /// The book, walked from the root ply by ply, each ply's positions read on every core;
    /// `progress` counts the positions as they are read, and stops the walk when told to (an
    /// error).
    pub fn make(&self, store: &Store, progress: &ScanProgress) -> Result<Book, QueryError> {
        self.check()?;
        // Many positions are read: a scan's snapshot.
        let view = store.scan_snapshot();
        // The player's games and the texts are found once, not once a position.
        let admission = Admission::resolve(&view, &self.filter)?;
        let root = Visit { key: key_of(&self.root)?, position: self.root.clone() };
        let mut seen = FxHashSet::default();
        seen.insert(root.key);
        let mut frontier = vec![root];
        let mut book = Book::default();
        let mut ply = 0;
        while !frontier.is_empty() && self.max_ply.is_none_or(|max| ply <= max) {
            if progress.stopped() {
                return Err(QueryError::input(format!("the book was stopped at ply {ply}, before it was complete")));
            }
            let found: Vec<Visited> = frontier
                .par_iter()
                .map(|visit| {
                    if progress.stopped() {
                        return Err(QueryError::input(format!(
                            "the book was stopped at ply {ply}, before it was complete"
                        )));
                    }
                    let found = self.visit(&view, visit, &admission);
                    progress.passed.fetch_add(1, Ordering::Relaxed);
                    found
                })
                .collect::<Result<_, _>>()?;
            book.positions += frontier.len() as u64;
            let mut next = Vec::new();
            for (entries, children) in found {
                book.positions_with_moves += u64::from(!entries.is_empty());
                book.entries.extend(entries);
                next.extend(children.into_iter().filter(|child| seen.insert(child.key)));
            }
            frontier = next;
            ply += 1;
        }
        // Two positions with one Polyglot key (a pinned pawn's en passant, or a collision):
        // one entry of a move stands.
        book.entries.sort_by_key(|e| (e.key, e.mv));
        book.entries.dedup_by(|b, a| a.key == b.key && a.mv == b.mv);
        book.entries.sort_unstable_by(|a, b| {
            a.key.cmp(&b.key).then_with(|| b.weight.cmp(&a.weight)).then_with(|| a.mv.cmp(&b.mv))
        });
        Ok(admission.checked(book)?)
    }

    /// One position's entries and the positions its kept moves lead to.
    fn visit(&self, view: &Snapshot, visit: &Visit, admission: &Admission) -> Result<Visited, QueryError> {
        let stats = stats_of_games(view, &visit.key, admission, false)?;
        let mover = visit.position.turn();
        let mut kept = Vec::new();
        for &(compact, tally) in stats.moves.iter().filter(|(_, tally)| tally.games >= self.min_games) {
            let m = compact
                .to_move(visit.position.shakmaty())
                .ok_or_else(|| QueryError::input(format!("stored move {compact} is not legal in {}", visit.key)))?;
            kept.push((m, tally));
        }
        let key = polyglot_key(visit.position.shakmaty());
        let entries = if self.only.is_none_or(|side| side == mover) {
            let weighed: Vec<(u16, u64)> = kept
                .iter()
                .filter(|(_, tally)| self.min_score.is_none_or(|floor| score_percent(tally, mover) >= floor))
                .map(|(m, tally)| (polyglot_move(m), self.raw_weight(tally, mover)))
                .collect();
            fit_weights(weighed).into_iter().map(|(mv, weight)| BookEntry { key, mv, weight }).collect()
        } else {
            Vec::new()
        };
        let children = kept
            .into_iter()
            .map(|(m, _)| {
                let mut position = visit.position.clone();
                position.play_legal(m);
                Ok(Visit { key: key_of(&position)?, position })
            })
            .collect::<Result<_, QueryError>>()?;
        Ok((entries, children))
    }

    fn raw_weight(&self, tally: &Tally, mover: Color) -> u64 {
        match self.weight {
            BookWeight::Score => 2 * wins(tally, mover) + tally.draws,
            BookWeight::Games => tally.games,
            BookWeight::Uniform => 1,
        }
    }
}

/// The games `mover` won.
fn wins(tally: &Tally, mover: Color) -> u64 {
    mover.fold_wb(tally.white, tally.black)
}

/// The side to move's score with a move, in percent, over the games with a result (0 when
/// none has one).
fn score_percent(tally: &Tally, mover: Color) -> f64 {
    let decided = tally.white + tally.draws + tally.black;
    match decided {
        0 => 0.0,
        _ => (2 * wins(tally, mover) + tally.draws) as f64 * 50.0 / decided as f64,
    }
}

/// A position's weights in 16 bits: all divided alike when the heaviest does not fit (a weight
/// above zero stays above zero), so that their proportions hold.
fn fit_weights(weighed: Vec<(u16, u64)>) -> Vec<(u16, u16)> {
    let heaviest = weighed.iter().map(|&(_, w)| w).max().unwrap_or(0);
    let divisor = heaviest.div_ceil(u64::from(u16::MAX)).max(1);
    weighed
        .into_iter()
        .map(|(mv, w)| {
            let scaled = if w == 0 { 0 } else { (w / divisor).max(1) };
            (mv, u16::try_from(scaled).unwrap_or(u16::MAX))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_fit_sixteen_bits_in_proportion() {
        assert_eq!(fit_weights(vec![(1, 10), (2, 0)]), vec![(1, 10), (2, 0)]);
        let fitted = fit_weights(vec![(1, 200_000), (2, 100_000), (3, 1)]);
        assert_eq!(fitted, vec![(1, 50_000), (2, 25_000), (3, 1)]);
    }

    #[test]
    fn moves_encode_as_polyglot_does() {
        let e2e4 = Move::Normal { role: Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None };
        assert_eq!(polyglot_move(&e2e4), 4 | 3 << 3 | 4 << 6 | 1 << 9);
        let promotion = Move::Normal {
            role: Role::Pawn,
            from: Square::A7,
            capture: None,
            to: Square::A8,
            promotion: Some(Role::Knight),
        };
        assert_eq!(polyglot_move(&promotion), 7 << 3 | 6 << 9 | 1 << 12);
        assert_eq!(polyglot_move(&Move::Castle { king: Square::E8, rook: Square::A8 }), 7 << 3 | 4 << 6 | 7 << 9);
    }

    #[test]
    fn entries_read_back() {
        let book =
            Book { entries: vec![BookEntry { key: 0x463b96181691fc9c, mv: 0x031c, weight: 7 }], ..Book::default() };
        let bytes = book.to_bytes();
        assert_eq!(bytes.len(), ENTRY_LEN);
        assert_eq!(&bytes[..12], &[0x46, 0x3b, 0x96, 0x18, 0x16, 0x91, 0xfc, 0x9c, 0x03, 0x1c, 0, 7]);
        assert_eq!(Book::entries_of(&bytes), Some(book.entries));
        assert_eq!(Book::entries_of(&bytes[1..]), None);
    }
}
