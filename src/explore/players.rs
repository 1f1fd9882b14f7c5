//! Players by any spelling ([`find_players`]): the spellings stored under the query's surname
//! (the names family's folded tokens), those that may be the player
//! ([`NameQuery`](crate::model::NameQuery)), grouped into players with their games. Every
//! player filter (`--player`, `/player`, `report player`) resolves its name here: to the one
//! player it matches, or to an error listing the players when it matches several.
//!
//! ```no_run
//! use tabiya::explore::find_players;
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let found = find_players(&store.snapshot(), "Kasparov, Garry")?;
//! for spelling in &found.players[0].spellings {
//!     println!("{}: {} with White, {} with Black", spelling.name, spelling.white, spelling.black);
//! }
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use serde::Serialize;
use shakmaty::Color;

use super::QueryError;
use crate::{
    model::{
        GameId, NameQuery,
        names::{Matched, Reading, group, is_team, readings},
        player_name,
    },
    store::{Snapshot, Store},
};

/// Most stored spellings a lookup weighs: a name shared by more is refused (give more of it).
pub const MAX_SPELLINGS: usize = 5_000;
/// Spellings a suggestion weighs, and players it lists.
const SUGGESTION_SPELLINGS: usize = 400;

/// A spelling of a player as the games give it, with its games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spelling {
    /// As a game's tag spells it (the first game's).
    pub name: String,
    /// Games with White.
    pub white: u64,
    /// Games with Black.
    pub black: u64,
    /// As the players index holds it (lower case, spaces).
    #[serde(skip)]
    pub stored: String,
    /// Its games with White, then with Black, ascending: read once, when it was counted.
    #[serde(skip)]
    pub ids: [Vec<GameId>; 2],
}

/// A player: the spellings that may all be theirs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerFound {
    /// Its fullest spelling (then the most played).
    pub name: String,
    /// Games over all spellings.
    pub games: u64,
    /// The fullest first, then the most played.
    pub spellings: Vec<Spelling>,
}

/// What a player name matched.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerMatch {
    /// The name asked for.
    pub query: String,
    /// The players it may name, most played first: one, or it is ambiguous.
    pub players: Vec<PlayerFound>,
    /// Spellings that fit more than one of them (an initial two players share), in no player.
    pub unsure: Vec<Spelling>,
}

impl PlayerMatch {
    /// The player, when the name matched exactly one.
    pub fn chosen(&self) -> Option<&PlayerFound> {
        match &self.players[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The games of the one player matched (with colour `color` when given), ascending; an
    /// error listing the players when the name matched several.
    pub fn games(&self, color: Option<Color>) -> Result<Vec<GameId>, QueryError> {
        if self.players.len() > 1 {
            return Err(QueryError::input(self.ambiguity()));
        }
        let mut ids = Vec::new();
        for [white, black] in self.players.iter().flat_map(|p| &p.spellings).map(|s| &s.ids) {
            if color != Some(Color::Black) {
                ids.extend_from_slice(white);
            }
            if color != Some(Color::White) {
                ids.extend_from_slice(black);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// "`query` matches N players: A (n games), B (m games)…: give more of the name".
    fn ambiguity(&self) -> String {
        let listed: Vec<String> = self
            .players
            .iter()
            .take(10)
            .map(|p| {
                let others = p.spellings.len() - 1;
                let also = match others {
                    0 => String::new(),
                    1 => ", 1 other spelling".to_owned(),
                    n => format!(", {n} other spellings"),
                };
                format!("{} ({} games{also})", p.name, p.games)
            })
            .collect();
        let more =
            if self.players.len() > 10 { format!(" and {} more", self.players.len() - 10) } else { String::new() };
        format!(
            "{:?} matches {} players: {}{more}; give more of the name (tabiya players search lists the spellings)",
            self.query,
            self.players.len(),
            listed.join(", ")
        )
    }
}

/// The players `name` may be: every stored spelling holding one of its surname's tokens that
/// may be the same player, grouped ([`group`](crate::model::names::group)).
pub fn find_players(view: &Snapshot, name: &str) -> Result<PlayerMatch, QueryError> {
    let query = NameQuery::new(name);
    if query.is_empty() {
        return Err(QueryError::input(format!("empty player name {name:?}")));
    }
    let mut stored = std::collections::BTreeSet::new();
    for token in query.surname_tokens() {
        stored.extend(view.players().spellings(&token, false, MAX_SPELLINGS + 1)?);
        if stored.len() > MAX_SPELLINGS {
            return Err(QueryError::input(format!(
                "{name:?}: more than {MAX_SPELLINGS} spellings share its surname; give more of the name"
            )));
        }
    }
    // The index's spellings lost their commas: a first sift, then each is read as its games
    // spell it.
    let candidates = stored.into_iter().filter(|s| query.matches(s).is_some());
    matched_players(view, name, candidates, |spelling| query.matches(spelling))
}

/// Players whose spellings have a token starting with `prefix` (folded), most played first, at
/// most `limit`: what a player box suggests as its user types.
pub fn suggest_players(store: &Store, prefix: &str, limit: usize) -> Result<Vec<PlayerFound>, QueryError> {
    let folded = crate::model::names::fold(prefix);
    let Some(last) = folded.tokens.last() else {
        return Ok(Vec::new());
    };
    // Every spelling holding the last token typed, which holds the tokens before it too.
    let earlier = &folded.tokens[..folded.tokens.len() - 1];
    let view = store.snapshot();
    let candidates = view
        .players()
        .spellings(last, true, SUGGESTION_SPELLINGS)?
        .into_iter()
        .filter(|stored| earlier.iter().all(|t| crate::model::names::fold(stored).tokens.contains(t)));
    let read = |spelling: &str| {
        let found = readings(&crate::model::names::fold(spelling));
        (!is_team(spelling) && !found.is_empty()).then_some(found)
    };
    let mut found = matched_players(&view, prefix, candidates, read)?;
    found.players.truncate(limit);
    Ok(found.players)
}

/// Counts the games of each candidate spelling (as the players index holds it), reads it as
/// its first game spells it (`read`: how it may read, `None` to leave it out), and groups.
fn matched_players(
    view: &Snapshot,
    query: &str,
    candidates: impl Iterator<Item = String>,
    read: impl Fn(&str) -> Option<Vec<Reading>>,
) -> Result<PlayerMatch, QueryError> {
    let mut matched = Vec::new();
    for stored in candidates {
        let white = view.players().games(&stored, Some(Color::White))?;
        let black = view.players().games(&stored, Some(Color::Black))?;
        let Some(&first) = white.first().into_iter().chain(black.first()).min() else {
            // Its games were never committed (an interrupted ingest).
            continue;
        };
        let name = match view.games().get(first)? {
            Some(game) if player_name(&game.tags.white) == stored => game.tags.white,
            Some(game) if player_name(&game.tags.black) == stored => game.tags.black,
            _ => stored.clone(),
        };
        let Some(readings) = read(&name) else {
            continue;
        };
        let (white_games, black_games) = (white.len() as u64, black.len() as u64);
        let spelling = Spelling { name, white: white_games, black: black_games, stored, ids: [white, black] };
        matched.push(Matched { readings, games: spelling.white + spelling.black, item: spelling });
    }
    let grouped = group(matched);
    let players = grouped
        .groups
        .into_iter()
        .map(|group| {
            let spellings: Vec<Spelling> = group.into_iter().map(|m| m.item).collect();
            PlayerFound {
                name: spellings[0].name.clone(),
                games: spellings.iter().map(|s| s.white + s.black).sum(),
                spellings,
            }
        })
        .collect();
    Ok(PlayerMatch { query: query.to_owned(), players, unsure: grouped.unsure.into_iter().map(|m| m.item).collect() })
}
