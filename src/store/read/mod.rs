//! The typed views a [`Snapshot`](super::Snapshot) reads through, one thing each:
//!
//! | view | reads |
//! |---|---|
//! | [`Positions`] (`positions.rs`) | a position's statistics (full-key family, else the single-game tier), its games, the games and results of many positions at once, its opening name; counts of positions |
//! | [`Games`] (`games.rs`) | stored games' records and mainlines; the twins index |
//! | [`Players`] (`players.rs`) | the games under a player's name; spellings by word |
//! | [`Facts`] (`facts.rs`, `records.rs`) | each game's facts and header facts, whole in memory or a page at a time; event and site texts |
//! | [`Scanner`] (`scan.rs`) | many positions at once, in parts on every core |
//! | [`Summaries`] (`summaries.rs`) | popular positions' games summed by slice, kept in memory |
//!
//! Each view sees the games committed when its snapshot was taken. Filtering and summing what
//! they read is the queries' ([`explore`](crate::explore)).

pub(super) mod facts;
pub(super) mod games;
pub(super) mod players;
pub(super) mod positions;
pub(super) mod records;
pub(super) mod scan;
pub(super) mod summaries;

pub use facts::{Facts, facts_records, pack_facts};
pub use games::Games;
pub use players::Players;
pub use positions::{PositionCounts, Positions};
pub use records::{FactsTable, GameColumn, GameRecords, HeadersTable};
pub use scan::{EveryPosition, ScanFilter, ScanPart, ScanProgress, ScannedPosition, Scanner};
pub use summaries::{SUMMARY_BUDGET, SUMMARY_MIN_GAMES, Summaries};
