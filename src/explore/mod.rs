//! Position search. Every query is a value with a `run(&Store)` method, which reads the
//! database from one [`Snapshot`](crate::store::Snapshot) (a scan's for the queries that scan
//! many positions); the pieces queries are built of read a snapshot they are handed:
//!
//! - [`Lookup`]: what an opening explorer answers about a position (its games, results,
//!   ratings, next moves, top and recent games, opening name), with a [`Filter`];
//!   [`FilteredStats`]: a position's statistics under a filter;
//! - [`GamesQuery`]: the games reaching positions (posting lists combined), paged;
//! - [`MaterialQuery`]: the positions with a given material;
//! - [`PatternQuery`]: the positions and games matching a [pattern](crate::pattern);
//! - [`SequenceQuery`]: the games in which positions follow one another (`seq(A, B, N)`);
//! - [`PositionRows`]: every position of a material or a pattern, with its counts, part by
//!   part (for data exports);
//! - [`find_players`]: the players a name may be, by any common spelling (every player filter
//!   resolves its name there);
//! - [`TwinSearch`]: the games stored twice (other spellings, another round, a copy cut
//!   short);
//! - [`play`] and [`GameView`]: legal moves and SAN for a board, a stored game ply by ply.
//!
//! How a position's games are counted under a filter (its slices, a popular position's
//! games summed by slice) is `counting.rs`'s; how whole-database scans are split into parts
//! that separate processes compute is [`distributed`]'s.
//!
//! The position asked about is a [`Target`] (FEN, SAN or UCI moves), resolved first. The opening
//! table ([`parse_openings`]) names positions.
//!
//! ```no_run
//! use tabiya::explore::{Filter, Limits, Lookup, Target};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let target = Target::san("1. e4 e5 2. Nf3").resolve()?;
//! let answer = Lookup { target, filter: Filter::default(), limits: Limits::default() }.run(&store)?;
//! println!("{} games", answer.games);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod admit;
mod answer;
mod board;
mod counting;
pub mod distributed;
mod filter;
mod games;
mod lookup;
mod material;
mod notes;
mod openings;
mod pattern;
mod players;
pub mod psqt;
mod rows;
mod sequence;
mod target;
mod twins;

pub use admit::Admission;
pub use answer::{
    Answer, GameSummary, History, HistoryMonth, Limits, MoveRow, Opening, PlayerAnswer, PlayerMoveRow, PlayerSummary,
    PositionHit, Reached,
};
pub use board::{BoardAnswer, GameView, LegalMove, Ply, play};
pub(crate) use counting::position_slices;
pub use counting::position_stats;
pub use distributed::DistributedScan;
pub use filter::{Filter, FilterSpec};
pub use games::{GameHeader, GamePage, GameSort, GameSource, GamesQuery};
pub(crate) use lookup::stats_of_games;
pub use lookup::{
    FilteredStats, Lookup, MAX_PLAYER_GAMES, arrivals, next_keys, opening_of, parse_color, player_games,
    reached_by_moves, resolve_player, san, summarize,
};
pub use material::{MAX_LIMIT, MAX_MATERIALS, MaterialQuery, MaterialSearch, Signature};
pub use notes::{EvalAnswer, LossAnswer, Mates, TimeAnswer, eval_answer, move_answers, position_notes};
pub use openings::{OpeningLine, parse_openings};
pub use pattern::{MAX_HITS, PatternPartial, PatternQuery, PatternSearch};
pub use players::{MAX_SPELLINGS, PlayerFound, PlayerMatch, Spelling, find_players, suggest_players};
pub use rows::{PositionRow, PositionRows};
pub use sequence::{SequenceGame, SequenceQuery, SequenceSearch};
pub use target::{ResolvedTarget, Target, key_of};
pub use twins::{TwinGame, TwinGroup, TwinPair, TwinReport, TwinSearch};

/// Why a query cannot be answered: bad input (the user's to fix) or the store failing.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The query is wrong: a bad FEN, an illegal move, a bad filter or signature, too much
    /// work asked for. The message says what to fix.
    #[error("{0}")]
    Input(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl QueryError {
    /// A bad-input error.
    pub fn input(message: impl Into<String>) -> QueryError {
        QueryError::Input(message.into())
    }
}

/// An unsigned integer written as digits alone (around them, spaces): `+5`, `-0`, `5x` and the
/// empty text are not numbers a query takes.
///
/// ```
/// use tabiya::explore::unsigned;
///
/// assert_eq!(unsigned::<u32>(" 42 "), Some(42));
/// assert_eq!(unsigned::<u32>("+5"), None);
/// assert_eq!(unsigned::<u8>("300"), None);
/// ```
pub fn unsigned<T: std::str::FromStr>(text: &str) -> Option<T> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}
