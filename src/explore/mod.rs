//! Position search: what an opening explorer answers about a position (its games, results,
//! ratings, next moves, top and recent games, opening name), with filters; the games reaching
//! positions (posting lists combined); material search; and the opening table.
//!
//! ```no_run
//! use tabiya::explore::{Explorer, Filter, Limits, Target};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let target = Target::resolve(None, Some("1. e4 e5 2. Nf3"), None)?;
//! let answer = Explorer::new(&store).lookup(&target, &Filter::default(), &Limits::default())?;
//! println!("{} games", answer.games);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod answer;
mod filter;
mod games;
mod material;
mod openings;
mod target;

pub use answer::{
    Answer, EXACT_GAMES_LIMIT, Explorer, GameSummary, Limits, MAX_PLAYER_GAMES, MoveRow, Opening, PlayerSummary,
    parse_color, summarize,
};
pub use filter::Filter;
pub use games::{GameHeader, GamePage, GameSort, GamesQuery};
pub use material::{MaterialHit, MaterialQuery, MaterialSearch, Signature};
pub use openings::{OpeningLine, parse_openings};
pub use target::Target;

/// Why a query cannot be answered: bad input (the user's to fix) or the store failing.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl QueryError {
    pub fn input(message: impl Into<String>) -> QueryError {
        QueryError::Input(message.into())
    }
}
