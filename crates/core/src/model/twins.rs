//! Twins: one game stored twice, from two sources that spell it differently ("Kasparov, Garry"
//! and "Kasparov,G", another round number) or with one copy cut short. A game's fingerprint
//! covers its exact tags, so such copies are two games to the database. Twins have one
//! [`TwinKey`] (both players' initials and the date), the same players ([`same_players`]: each
//! side's spellings have one surname and given names that fit) and related moves
//! ([`twin_relation`]).
//!
//! ```
//! use tabiya_core::model::twins::{initials, same_player};
//!
//! assert_eq!(initials("Kasparov, Garry"), initials("Kasparov,G"));
//! assert!(same_player("Garry Kasparov", "KASPAROV, G."));
//! assert!(same_player("Short, Nigel", "Short,N"));
//! assert!(!same_player("Kasparov, Garry", "Kramnik, Garry"));
//! ```

use super::{
    GameRecord, GameResult, Tags,
    names::{fold, given_fit, readings},
};

/// Fewest plies the shorter of two twins has when it is a prefix of the other: two short games
/// of a match day may share their opening without being one game.
pub const MIN_PREFIX_PLIES: usize = 20;
/// Plies of a game's start that its [`TwinKey`] hashes: twins share them (a prefix twin has at
/// least this many plies), so a key's games are few even among a day's games of two players.
pub const KEY_PLIES: usize = 10;

/// The initials of a name's words, sorted, each once: what spellings of one player share
/// ("Kasparov, Garry", "Kasparov,G" and "Garry Kasparov" are all `gk`).
pub fn initials(name: &str) -> String {
    let mut initials: Vec<u8> = fold(name).tokens.iter().filter_map(|t| t.bytes().next()).collect();
    initials.sort_unstable();
    initials.dedup();
    String::from_utf8_lossy(&initials).into_owned()
}

/// Whether two spellings may be one player's for twins: a reading of each
/// ([`readings`]) with the same surname and given names that fit ([`given_fit`]), or neither
/// has a name at all.
pub fn same_player(a: &str, b: &str) -> bool {
    let (ours, theirs) = (readings(&fold(a)), readings(&fold(b)));
    (ours.is_empty() && theirs.is_empty())
        || ours.iter().any(|x| theirs.iter().any(|y| x.surname == y.surname && given_fit(&x.given, &y.given)))
}

/// Whether two games' tags name the same players, White and Black, and date.
pub fn same_players(a: &Tags, b: &Tags) -> bool {
    a.date.trim() == b.date.trim() && same_player(&a.white, &b.white) && same_player(&a.black, &b.black)
}

/// What twins share, hashed to 32 bits: both players' [`initials`], the date, the start and the
/// first [`KEY_PLIES`] plies. Games of one key are compared by [`twin_relation`] and
/// [`same_players`], so a collision costs a comparison, never a wrong twin; 32 bits keep the
/// twins family small (random bytes do not compress).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TwinKey(pub u32);

impl TwinKey {
    /// The key of a game.
    pub fn of(game: &GameRecord) -> TwinKey {
        let tags = &game.tags;
        let text = format!(
            "{}\0{}\0{}\0{}\0",
            initials(&tags.white),
            initials(&tags.black),
            tags.date.trim(),
            game.setup_fen().unwrap_or("")
        );
        // Other variants' games: their own key (standard games' keys stay what they were).
        let text = match game.variant() {
            crate::position::Variant::Standard => text,
            variant => format!("{text}{}\0", variant.name()),
        };
        let mut bytes = text.into_bytes();
        // The first plies as moves (the mainline's bytes do not end at a ply); a move that
        // does not read (corrupt data) ends them.
        for m in game.moves().take(KEY_PLIES).map_while(|m| m) {
            bytes.extend_from_slice(&m.bits().to_le_bytes());
        }
        TwinKey(xxhash_rust::xxh3::xxh3_64(&bytes) as u32)
    }
}

/// How two games of the same players and date are twins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwinRelation {
    /// The same moves from the same start.
    SameMoves,
    /// The first game's moves are the start of the second's (and at least
    /// [`MIN_PREFIX_PLIES`]).
    Prefix,
}

/// How `a` is a twin of `b`, or `None`: they must have the same players and date
/// ([`same_players`], the caller's to check) and start; then the same moves, or `a`'s moves a
/// prefix of `b`'s of at least `min_prefix` plies (never fewer than [`KEY_PLIES`]) with `b`'s
/// result or none (`*`).
pub fn twin_relation(a: &GameRecord, b: &GameRecord, min_prefix: usize) -> Option<TwinRelation> {
    let min_prefix = min_prefix.max(KEY_PLIES);
    if a.setup_fen() != b.setup_fen() || a.variant() != b.variant() {
        return None;
    }
    // The same start, plies and bytes are the same moves (each move's bits depend only on its
    // position); a prefix is read move by move (the bytes do not end at a ply).
    if a.plies() == b.plies() && a.move_bytes() == b.move_bytes() {
        Some(TwinRelation::SameMoves)
    } else if a.plies() < b.plies()
        && a.plies() >= min_prefix
        && (a.result == b.result || a.result == GameResult::Unknown)
        && a.moves().zip(b.moves()).all(|(ours, theirs)| ours.is_some() && ours == theirs)
    {
        // A cut copy keeps the result or has none; a game that ended differently is another.
        Some(TwinRelation::Prefix)
    } else {
        None
    }
}

/// Whether two games are twins: related moves either way ([`twin_relation`]) and the same
/// players and date ([`same_players`]), what an ingest that skips twins asks of a game and
/// each earlier one of its [`TwinKey`].
pub fn are_twins(a: &GameRecord, b: &GameRecord, min_prefix: usize) -> bool {
    // The moves first: comparing bytes costs less than reading names.
    (twin_relation(a, b, min_prefix).is_some() || twin_relation(b, a, min_prefix).is_some())
        && same_players(&a.tags, &b.tags)
}
