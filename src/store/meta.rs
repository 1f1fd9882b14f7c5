//! What the database says about itself: the format version, the history of ingest runs
//! ([`RunRecord`], in the meta family) and the commit record ([`Totals`]).
//!
//! The totals are the *commit record*: they live in the positions family under the empty key
//! (before every position), so that the SST files of an ingest commit carry them and RocksDB
//! makes positions and totals visible in one atomic step. Games, players and fingerprints are
//! written before their commit; readers see only the games below the committed
//! `next_game_id`. Keys and bytes: [`layout::keys`](super::layout::keys) and
//! [`layout::encode_record`](super::layout::encode_record).

use bincode::{Decode, Encode};

/// Bumped whenever a stored layout changes; a database of another version is refused.
pub const FORMAT_VERSION: u32 = 19;

/// Database totals, committed in the same atomic step as the positions of the games they count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct Totals {
    /// Games indexed.
    pub games: u64,
    /// Position occurrences written: per game, its distinct positions.
    pub position_occurrences: u64,
    /// Plies of the indexed games.
    pub plies: u64,
    /// The id the next indexed game gets.
    pub next_game_id: u64,
    /// Distinct positions, counted at the end of the last completed ingest (`None` before).
    pub distinct_positions: Option<u64>,
    /// Of those, the positions reached by a single game.
    pub single_game_positions: Option<u64>,
}

/// How an ingest run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub enum RunStatus {
    /// Still going (or died without saying: the next writer marks it interrupted).
    Running,
    /// Ended and compacted.
    Completed,
    /// The process stopped before the end (found so by the next writer to open the database).
    Interrupted,
    /// An error stopped it (a full disk, say): what it had not committed was removed.
    Failed,
}

impl RunStatus {
    /// Its name, as `stats` prints it.
    pub fn name(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
        }
    }
}

/// Counts of one ingest run (committed work only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct RunCounts {
    /// Games read.
    pub games_read: u64,
    /// New games indexed.
    pub indexed: u64,
    /// Games stored already.
    pub duplicates: u64,
    /// Skipped games by reason name.
    pub skipped: Vec<(String, u64)>,
    /// Position entries written.
    pub positions_written: u64,
    /// Games not indexed as twins of stored games (an ingest that skips twins).
    pub twins: u64,
    /// What the indexed games' comments carried.
    pub annotations: AnnotationCounts,
}

/// Annotations of indexed games: moves with each kind, and those passed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct AnnotationCounts {
    /// Games with at least one annotated move.
    pub games: u64,
    /// Moves with an evaluation.
    pub evaluations: u64,
    /// Moves with the mover's clock.
    pub clocks: u64,
    /// Moves with the time they took stated.
    pub move_times: u64,
    /// Annotations of a known shape without a usable value (`[%eval nan]`, `#0`, a negative
    /// clock): passed over, the game kept.
    pub malformed: u64,
}

impl AnnotationCounts {
    /// The counts of one game's annotations, with `malformed` of its comments passed over.
    pub fn of(annotations: Option<&crate::model::GameAnnotations>, malformed: u32) -> AnnotationCounts {
        let moves = annotations.map_or(&[][..], |a| &a.moves[..]);
        let count = |has: fn(&crate::model::MoveAnnotation) -> bool| moves.iter().filter(|m| has(m)).count() as u64;
        AnnotationCounts {
            games: u64::from(annotations.is_some_and(|a| !a.is_empty())),
            evaluations: count(|m| m.eval.is_some()),
            clocks: count(|m| m.clock_centis.is_some()),
            move_times: count(|m| m.elapsed_centis.is_some()),
            malformed: u64::from(malformed),
        }
    }

    /// Adds another's counts.
    pub fn add(&mut self, other: &AnnotationCounts) {
        self.games += other.games;
        self.evaluations += other.evaluations;
        self.clocks += other.clocks;
        self.move_times += other.move_times;
        self.malformed += other.malformed;
    }
}

impl RunCounts {
    /// Skipped games in all.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.iter().map(|(_, n)| n).sum()
    }

    /// Counts one skipped game.
    pub fn add_skipped(&mut self, reason: &str) {
        match self.skipped.iter_mut().find(|(name, _)| name == reason) {
            Some((_, n)) => *n += 1,
            None => {
                self.skipped.push((reason.to_owned(), 1));
                self.skipped.sort();
            }
        }
    }
}

/// One `tabiya ingest` run.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct RunRecord {
    /// The run's number, from 1.
    pub id: u64,
    /// Unix seconds.
    pub started: u64,
    /// Unix seconds, once finished.
    pub finished: Option<u64>,
    /// How it ended.
    pub status: RunStatus,
    /// The files it read.
    pub inputs: Vec<String>,
    /// What it did.
    pub counts: RunCounts,
}

impl RunRecord {
    /// Its meta-family key.
    pub fn key(&self) -> Vec<u8> {
        super::layout::keys::run_key(self.id)
    }
}
