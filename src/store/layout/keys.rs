//! The keys of every family and record kind.
//!
//! The positions family holds, in key order: the commit record under the empty key, every
//! full-key position (21 bytes, first byte its category or its variant's: at most 219), then
//! the notes of annotated positions and the single-game tier's records, whose first bytes no
//! position key has:
//!
//! ```text
//! []                                       the commit record (Totals)
//! [category, rank (20)]                    a position
//! [NOTE_SUMS]  position key (21)           its notes' sums
//! [NOTE_GAMES] position key (21)           its games' notes
//! [MARKS]  game id (8)                     the game's tier plies
//! [MAPS]   segment (8) range (2)           a commit range's tier map
//! ```
//!
//! Game-keyed families (games, mainlines, facts) use the id's 8 big-endian bytes
//! ([`GameId::to_bytes`]); the players family `name 0 side id`; the names family `token 0
//! name` (each folded token of each spelling); the twins family `twin key (4) id (8)`; the meta
//! family `format` and `run/` + run id.

use shakmaty::Color;

use crate::model::{GameId, player_name, twins::TwinKey};

/// Bytes of a game id in keys.
pub const GAME_ID_LEN: usize = std::mem::size_of::<u64>();
/// Bytes of a commit range's number in tier keys.
pub const RANGE_LEN: usize = std::mem::size_of::<u16>();

/// The commit record's key: before every position.
pub const COMMIT_KEY: &[u8] = b"";
/// Where scans of every position start: after the commit record, before any position key.
pub const FIRST_POSITION: &[u8] = &[0];

/// First byte of a position's notes' sums key.
pub const NOTE_SUMS: u8 = 0xe0;
/// First byte of a position's games' notes key.
pub const NOTE_GAMES: u8 = 0xe1;

/// First byte of a game's marks key.
pub const MARKS: u8 = 0xf0;
/// First byte of a tier map's key.
pub const MAPS: u8 = 0xf1;

/// Where position keys end (exclusive): notes, then tier records, start here.
pub const POSITIONS_END: &[u8] = &[NOTE_SUMS];

/// The key of position `key`'s notes of kind `kind` ([`NOTE_SUMS`] or [`NOTE_GAMES`]).
pub fn note_key(kind: u8, key: &crate::codec::Key) -> [u8; 1 + crate::codec::KEY_LEN] {
    let mut bytes = [kind; 1 + crate::codec::KEY_LEN];
    bytes[1..].copy_from_slice(key.as_bytes());
    bytes
}

/// The meta family's key of the format version.
pub const FORMAT_KEY: &[u8] = b"format";
/// Prefix of the meta family's run record keys.
pub const RUN_PREFIX: &[u8] = b"run/";

/// The meta family's key of ingest run `id`.
pub fn run_key(id: u64) -> Vec<u8> {
    [RUN_PREFIX, &id.to_be_bytes()].concat()
}

/// The players family's key of game `id`'s player `name` with colour `side`.
pub fn player_key(name: &str, side: Color, id: GameId) -> Vec<u8> {
    let mut key = player_name(name).into_bytes();
    key.extend_from_slice(&[0, side.fold_wb(b'w', b'b')]);
    key.extend_from_slice(&id.to_bytes());
    key
}

/// Where the players family's keys of the names starting with `prefix` (normalised) start.
pub fn player_prefix(prefix: &str) -> Vec<u8> {
    player_name(prefix).into_bytes()
}

/// The names family's keys of a spelling: one per word it is indexed under
/// ([`index_words`](crate::model::names::index_words)), `word 0 name`, the name as the players
/// family holds it ([`player_name`]).
pub fn name_keys(name: &str) -> Vec<Vec<u8>> {
    let stored = player_name(name);
    let words = crate::model::names::index_words(name);
    words.into_iter().map(|word| [word.as_bytes(), &[0], stored.as_bytes()].concat()).collect()
}

/// The name (as the players family holds it) of a names key; `None` without a `0`.
pub fn parse_name_key(key: &[u8]) -> Option<&[u8]> {
    let at = key.iter().position(|&b| b == 0)?;
    Some(&key[at + 1..])
}

/// The twins family's key of game `id`, whose [`TwinKey`] is `twin`.
pub fn twin_key(twin: TwinKey, id: GameId) -> [u8; 12] {
    let mut key = [0; 12];
    key[..4].copy_from_slice(&twin.0.to_be_bytes());
    key[4..].copy_from_slice(&id.to_bytes());
    key
}

/// The twin key and game of a twins key; `None` unless it is 12 bytes.
pub fn parse_twin_key(key: &[u8]) -> Option<(TwinKey, GameId)> {
    let key: &[u8; 12] = key.try_into().ok()?;
    Some((TwinKey(u32::from_be_bytes(key[..4].try_into().ok()?)), GameId::from_bytes(&key[4..])?))
}

/// The colour and game of a players key; `None` unless it ends with `0`, a side and an id.
pub fn parse_player_key(key: &[u8]) -> Option<(Color, GameId)> {
    let tail = &key[key.len().checked_sub(2 + GAME_ID_LEN)?..];
    let side = match tail[..2] {
        [0, b'w'] => Color::White,
        [0, b'b'] => Color::Black,
        _ => return None,
    };
    Some((side, GameId::from_bytes(&tail[2..])?))
}

/// The game of a players or twins key, read from its end (what a removal of uncommitted games
/// needs).
pub fn player_key_game(key: &[u8]) -> Option<GameId> {
    GameId::from_bytes(&key[key.len().checked_sub(GAME_ID_LEN)?..])
}

/// The key of a game's tier marks.
pub fn marks_key(game: GameId) -> Vec<u8> {
    let mut key = vec![MARKS];
    key.extend_from_slice(&game.to_bytes());
    key
}

/// The game of a marks key.
pub fn parse_marks_key(key: &[u8]) -> Option<GameId> {
    match key.split_first() {
        Some((&MARKS, id)) => GameId::from_bytes(id),
        _ => None,
    }
}

/// The key of a commit range's tier map: the commit's first game id, the range's number.
pub fn map_key(segment: GameId, range: u16) -> Vec<u8> {
    let mut key = vec![MAPS];
    key.extend_from_slice(&segment.to_bytes());
    key.extend_from_slice(&range.to_be_bytes());
    key
}

/// The segment of a tier map's key.
pub fn parse_map_key(key: &[u8]) -> Option<GameId> {
    match key.split_first() {
        Some((&MAPS, rest)) if rest.len() == GAME_ID_LEN + RANGE_LEN => GameId::from_bytes(&rest[..GAME_ID_LEN]),
        _ => None,
    }
}

/// The key ranges of the tier's two record kinds, named as `tabiya stats` shows them.
pub fn tier_record_ranges() -> [(&'static str, &'static [u8], &'static [u8]); 2] {
    [("tier marks", &[MARKS], &[MAPS]), ("tier maps", &[MAPS], &[MAPS + 1])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back() {
        let key = player_key("Carlsen,  Magnus", Color::Black, GameId(77));
        assert_eq!(&key[..14], b"carlsen magnus");
        assert_eq!(parse_player_key(&key), Some((Color::Black, GameId(77))));
        assert_eq!(player_key_game(&key), Some(GameId(77)));
        assert_eq!(parse_player_key(b"short"), None);
        assert_eq!(parse_marks_key(&marks_key(GameId(9))), Some(GameId(9)));
        assert_eq!(parse_map_key(&map_key(GameId(5), 3)), Some(GameId(5)));
        assert_eq!(parse_map_key(&marks_key(GameId(5))), None);
        assert!(POSITIONS_END > [80u8; crate::codec::KEY_LEN].as_slice());
    }
}
