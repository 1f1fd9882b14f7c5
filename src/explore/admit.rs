//! Which games a [`Filter`] admits in one database: the filter resolved once per query
//! ([`Admission`]), then checked game by game from memory.
//!
//! The player and opponent become the sorted ids of their games (the names index); an event or
//! site text becomes the set of hashes of the distinct texts that contain it (the labels
//! family, each distinct text matched once); the facts and header facts of every game are
//! tables in memory. A check is then a few array reads and a hash-set probe a game: 8 bytes of
//! facts and 12 of header facts.

use rustc_hash::FxHashSet;
use shakmaty::Color;

use super::{Filter, PlayerMatch, QueryError, find_players, lookup::MAX_PLAYER_GAMES};
use crate::{
    model::{Day, GameFacts, GameHeaders, GameId, LabelHash, LabelKind},
    postings::intersect,
    store::{HeadersTable, Snapshot, StoreError},
};

/// A filter resolved against a database: [`Admission::admits`] says whether a game counts.
pub struct Admission<'a> {
    view: &'a Snapshot<'a>,
    /// What the user asked.
    pub filter: Filter,
    /// The player's match, when the filter names one (an answer lists its spellings).
    pub player: Option<PlayerMatch>,
    /// The games of the player (with the colour, against the opponent), ascending.
    games: Option<Vec<GameId>>,
    /// The event and site texts matched.
    labels: Vec<LabelMatch>,
    /// The header facts of every game the snapshot sees, when a header filter needs them.
    headers: Option<HeadersTable<'a>>,
}

/// The games a text filter on one tag admits: by the hashes of the texts that contain it, and
/// where two texts share a hash and only one contains it, by the games checked one by one.
struct LabelMatch {
    kind: LabelKind,
    hashes: FxHashSet<LabelHash>,
    shared: FxHashSet<LabelHash>,
    checked: FxHashSet<GameId>,
}

impl<'a> Admission<'a> {
    /// Resolves `filter`: refused when a player or opponent name matches several players (they
    /// are listed) or more than [`MAX_PLAYER_GAMES`] games.
    pub fn resolve(view: &'a Snapshot<'a>, filter: &Filter) -> Result<Admission<'a>, QueryError> {
        let mut admission =
            Admission { view, filter: filter.clone(), player: None, games: None, labels: Vec::new(), headers: None };
        if let Some(name) = filter.player.as_deref() {
            let found = find_players(view, name)?;
            let games = match filter.opponent.as_deref() {
                None => found.games(filter.color)?,
                Some(opponent) => {
                    let other = find_players(view, opponent)?;
                    let against = |color: Color| -> Result<Vec<GameId>, QueryError> {
                        Ok(intersect(found.games(Some(color))?.into_iter(), other.games(Some(!color))?.into_iter())
                            .collect())
                    };
                    let mut games = match filter.color {
                        Some(color) => against(color)?,
                        None => [against(Color::White)?, against(Color::Black)?].concat(),
                    };
                    games.sort_unstable();
                    games.dedup();
                    games
                }
            };
            if games.len() > MAX_PLAYER_GAMES {
                return Err(QueryError::input(format!(
                    "{name:?} matches {} games, more than {MAX_PLAYER_GAMES}: give more of the name",
                    games.len()
                )));
            }
            admission.player = Some(found);
            admission.games = Some(games);
        }
        if filter.needs_headers() {
            admission.headers = Some(view.facts().headers()?);
        }
        for (kind, text) in [(LabelKind::Event, &filter.event), (LabelKind::Site, &filter.site)] {
            if let Some(text) = text {
                let matched = admission.match_label(kind, text)?;
                admission.labels.push(matched);
            }
        }
        Ok(admission)
    }

    /// The games of every distinct `kind` text containing `text` (lower-case).
    fn match_label(&self, kind: LabelKind, text: &str) -> Result<LabelMatch, QueryError> {
        let (mut hashes, mut shared) = (FxHashSet::default(), FxHashSet::default());
        // Texts of one hash come one after another: (hash, some text matched, some did not).
        let mut run: Option<(LabelHash, bool, bool)> = None;
        let mut close = |run: Option<(LabelHash, bool, bool)>| {
            if let Some((hash, true, others)) = run {
                hashes.insert(hash);
                if others {
                    shared.insert(hash);
                }
            }
        };
        self.view.facts().labels(kind, |hash, label| {
            let matched = label.to_lowercase().contains(text);
            match &mut run {
                Some((current, some, others)) if *current == hash => {
                    *some |= matched;
                    *others |= !matched;
                }
                _ => close(run.replace((hash, matched, !matched))),
            }
        })?;
        close(run);
        let mut checked = FxHashSet::default();
        if !shared.is_empty()
            && let Some(headers) = &self.headers
        {
            let ids: Vec<GameId> =
                headers.ids().filter(|&id| headers.get(id).is_some_and(|h| shared.contains(&h.label(kind)))).collect();
            let ids = headers.checked(ids)?;
            for (id, record) in ids.iter().zip(self.view.games().get_many(&ids)?) {
                if record.is_some_and(|record| kind.of(&record.tags).to_lowercase().contains(text)) {
                    checked.insert(*id);
                }
            }
        }
        Ok(LabelMatch { kind, hashes, shared, checked })
    }

    /// `value`, computed with [`Admission::admits`], unless header facts it needed could not be
    /// read meanwhile (their games were refused): then why. A query returns its answer through
    /// it.
    pub fn checked<T>(&self, value: T) -> Result<T, StoreError> {
        match &self.headers {
            Some(headers) => headers.checked(value),
            None => Ok(value),
        }
    }

    /// Whether every game counts (the stored totals answer as they are).
    pub fn is_everything(&self) -> bool {
        self.filter.is_unfiltered()
    }

    /// The games of the player (with the colour, against the opponent), ascending, when the
    /// filter names one.
    pub fn player_games(&self) -> Option<&[GameId]> {
        self.games.as_deref()
    }

    /// The player's match and games, taken out.
    pub fn into_player(self) -> Option<(PlayerMatch, Vec<GameId>)> {
        self.player.zip(self.games)
    }

    /// Whether the game with `facts` counts.
    pub fn admits(&self, facts: &GameFacts) -> bool {
        self.filter.matches_game(facts)
            && self.games.as_ref().is_none_or(|ids| ids.binary_search(&facts.id).is_ok())
            // The table holds every game of the snapshot: a game without header facts is none.
            && self.headers.as_ref().is_none_or(|table| {
                table.get(facts.id).is_some_and(|headers| self.admits_headers(facts, &headers))
            })
    }

    /// Whether the header facts pass.
    fn admits_headers(&self, facts: &GameFacts, headers: &GameHeaders) -> bool {
        let filter = &self.filter;
        let dated = filter.date_from.is_none() && filter.date_to.is_none()
            || Day::span(facts.month, headers.day).is_some_and(|(first, last)| {
                filter.date_from.is_none_or(|from| first >= from) && filter.date_to.is_none_or(|to| last <= to)
            });
        dated
            && filter.eco.is_none_or(|(low, high)| headers.eco.is_some_and(|eco| (low..=high).contains(&eco)))
            && filter.min_plies.is_none_or(|plies| headers.plies >= plies)
            && self.labels.iter().all(|label| {
                let hash = headers.label(label.kind);
                label.hashes.contains(&hash) && (!label.shared.contains(&hash) || label.checked.contains(&facts.id))
            })
    }
}
