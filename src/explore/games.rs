//! Which games reached a position: its posting list, combined with others (`and`, `not`),
//! filtered, sorted and paged, with each game's headers.

use std::sync::Arc;

use serde::Serialize;

use super::{Admission, Filter, PatternQuery, QueryError, ResolvedTarget, SequenceQuery, distributed::run_on};
use crate::{
    model::{GameAnnotations, GameFacts, GameId, GameRecord, Recency},
    pattern::Sequence,
    postings::{PostingList, difference, intersect},
    store::{ScanProgress, Snapshot, Store},
};

/// How a game list is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GameSort {
    /// Ascending id (ingest order): no game needs reading but the page's.
    #[default]
    Id,
    /// Newest first by the full date, then the round (then id): [`Tags::recency`](crate::model::Tags::recency).
    Date,
    /// Highest average rating first (then id).
    Rating,
}

impl std::str::FromStr for GameSort {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<GameSort, QueryError> {
        match text.trim() {
            "id" => Ok(GameSort::Id),
            "date" => Ok(GameSort::Date),
            "rating" => Ok(GameSort::Rating),
            other => Err(QueryError::input(format!("bad sort {other:?}: expected id, date or rating"))),
        }
    }
}

/// Where a game list starts from.
#[derive(Clone, Debug)]
pub enum GameSource {
    /// The games reaching a position (its posting list).
    Position(ResolvedTarget),
    /// The games reaching any position matching a pattern (a scan, then posting lists).
    Pattern(Box<PatternQuery>),
    /// The games in which a sequence of positions occurs (a scan for its first step, then
    /// those games replayed).
    Sequence(Box<SequenceQuery>),
    /// Games already found, ascending: a pattern search's, kept between pages.
    Games(Arc<[GameId]>),
}

/// Games of the `source` that reached every `and` position and none of the `not` positions.
#[derive(Clone, Debug)]
pub struct GamesQuery {
    /// The games to start from.
    pub source: GameSource,
    /// Positions every game also reached.
    pub and: Vec<ResolvedTarget>,
    /// Positions no game reached.
    pub not: Vec<ResolvedTarget>,
    /// The order.
    pub sort: GameSort,
    /// Games skipped first.
    pub offset: usize,
    /// Games listed.
    pub limit: usize,
    /// Most games ordered by date or rating (each is read to order them); more is refused.
    pub max_sorted: usize,
    /// Which games count (checked on the games the positions leave).
    pub filter: Filter,
    /// A sequence whose steps' plies each listed game is marked with ([`GameHeader::steps`]).
    pub steps: Option<Sequence>,
}

/// A page of games.
#[derive(Clone, Debug, Serialize)]
pub struct GamePage {
    /// Games matching, before paging.
    pub total: u64,
    /// The page's games.
    pub games: Vec<GameHeader>,
    /// The page's records (for PGN output).
    #[serde(skip)]
    pub records: Vec<GameRecord>,
}

/// A game's headers.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameHeader {
    /// The game.
    pub id: GameId,
    /// The `White` tag.
    pub white: String,
    /// The `Black` tag.
    pub black: String,
    /// The `WhiteElo` tag.
    pub white_elo: Option<u16>,
    /// The `BlackElo` tag.
    pub black_elo: Option<u16>,
    /// The `Date` tag.
    pub date: String,
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The `Round` tag.
    pub round: String,
    /// The result token.
    pub result: &'static str,
    /// With a sequence: the ply of each of its steps in this game (0 is the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<usize>>,
}

impl GameHeader {
    /// The headers of a stored game.
    pub fn of(id: GameId, record: &GameRecord) -> GameHeader {
        let tags = &record.tags;
        GameHeader {
            id,
            white: tags.white.clone(),
            black: tags.black.clone(),
            white_elo: tags.white_elo,
            black_elo: tags.black_elo,
            date: tags.date.clone(),
            event: tags.event.clone(),
            site: tags.site.clone(),
            round: tags.round.clone(),
            result: record.result.tag(),
            steps: None,
        }
    }
}

impl GamesQuery {
    /// The snapshot the query reads: one for a scan when its games come from a pattern or a
    /// sequence.
    fn snapshot<'s>(&self, store: &'s Store) -> Snapshot<'s> {
        match self.source {
            GameSource::Pattern(_) | GameSource::Sequence(_) => store.scan_snapshot(),
            GameSource::Position(_) | GameSource::Games(_) => store.snapshot(),
        }
    }

    /// The matching ids, ascending: streamed set operations over the packed lists.
    pub fn ids(&self, store: &Store) -> Result<Vec<GameId>, QueryError> {
        self.ids_in(&self.snapshot(store))
    }

    fn ids_in(&self, view: &Snapshot) -> Result<Vec<GameId>, QueryError> {
        let positions = view.positions();
        let base: Vec<GameId> = match &self.source {
            GameSource::Position(target) => positions.game_ids(&target.key)?,
            GameSource::Pattern(query) => run_on(query.as_ref(), view, &ScanProgress::default())?.game_ids,
            GameSource::Sequence(query) => {
                query.run_in(view, &ScanProgress::default())?.games.into_iter().map(|game| game.id).collect()
            }
            GameSource::Games(ids) => ids.to_vec(),
        };
        let lists = |targets: &[ResolvedTarget]| -> Result<Vec<PostingList>, QueryError> {
            targets.iter().map(|t| Ok(PostingList::encode(&positions.game_ids(&t.key)?))).collect()
        };
        let (ands, nots) = (lists(&self.and)?, lists(&self.not)?);
        let mut ids: Box<dyn Iterator<Item = GameId>> = Box::new(base.into_iter());
        for list in &ands {
            ids = Box::new(intersect(ids, list.iter()));
        }
        for list in &nots {
            ids = Box::new(difference(ids, list.iter()));
        }
        if self.filter.is_unfiltered() {
            return Ok(ids.collect());
        }
        let admission = Admission::resolve(view, &self.filter)?;
        let facts = view.facts().table()?;
        let kept = ids.filter(|&id| facts.get(id).is_some_and(|facts| admission.admits(&facts))).collect();
        Ok(admission.checked(facts.checked(kept)?)?)
    }

    /// The page; ordering by date or rating reads every matching game, so it is refused for
    /// more than `max_sorted` games.
    pub fn run(&self, store: &Store) -> Result<GamePage, QueryError> {
        let view = self.snapshot(store);
        let ids = self.ordered_ids_in(&view)?;
        let page: Vec<GameId> = ids.iter().copied().skip(self.offset).take(self.limit).collect();
        let mut page = GamePage::of(&view, ids.len() as u64, &page)?;
        if let Some(sequence) = &self.steps {
            page.mark_steps(&view, sequence)?;
        }
        Ok(page)
    }

    /// Every matching id in the query's order (what [`GamesQuery::run`] pages): a cursor
    /// resolves it once and reads its pages with [`GamePage::of`].
    pub fn ordered_ids(&self, store: &Store) -> Result<Vec<GameId>, QueryError> {
        self.ordered_ids_in(&self.snapshot(store))
    }

    fn ordered_ids_in(&self, view: &Snapshot) -> Result<Vec<GameId>, QueryError> {
        let max_sorted = self.max_sorted;
        let mut ids = self.ids_in(view)?;
        if self.sort == GameSort::Id {
            return Ok(ids);
        }
        if ids.len() > max_sorted {
            return Err(QueryError::input(format!(
                "more than {max_sorted} games match: sort by id, or narrow the list with and/not"
            )));
        }
        // Every matching game is read to order them: bounded by the list, not the database.
        let records = view.games().get_many(&ids)?;
        let mut keyed: Vec<(GameId, Option<Recency>, u16)> = ids
            .iter()
            .zip(&records)
            .map(|(&id, record)| match (self.sort, record) {
                (GameSort::Date, Some(record)) => (id, Some(record.tags.recency()), 0),
                (_, Some(record)) => {
                    (id, None, GameFacts::of(id, record.result, &record.tags).average_rating().unwrap_or(0))
                }
                (_, None) => (id, None, 0),
            })
            .collect();
        // Newest (or highest rated) first, then by id.
        keyed.sort_by(|a, b| (b.1, b.2).cmp(&(a.1, a.2)).then_with(|| a.0.cmp(&b.0)));
        ids = keyed.into_iter().map(|(id, ..)| id).collect();
        Ok(ids)
    }
}

impl GamePage {
    /// The page of the games `ids`, out of `total` matching.
    pub fn of(view: &Snapshot, total: u64, ids: &[GameId]) -> Result<GamePage, QueryError> {
        let mut games = Vec::with_capacity(ids.len());
        let mut records = Vec::with_capacity(ids.len());
        for (id, record) in ids.iter().zip(view.games().listed(ids)?) {
            games.push(GameHeader::of(*id, &record));
            records.push(record);
        }
        Ok(GamePage { total, games, records })
    }

    /// The page's games' annotations (what PGN output writes), `None` for a game without any.
    pub fn annotations(&self, view: &Snapshot) -> Result<Vec<Option<GameAnnotations>>, QueryError> {
        let listed: Vec<(GameId, &GameRecord)> = self.games.iter().map(|game| game.id).zip(&self.records).collect();
        Ok(view.games().annotations(&listed)?)
    }

    /// Marks each listed game with the plies of `sequence`'s steps in it (its games replayed).
    pub fn mark_steps(&mut self, view: &Snapshot, sequence: &Sequence) -> Result<(), QueryError> {
        let ids: Vec<GameId> = self.games.iter().map(|game| game.id).collect();
        let found = super::sequence::games_matching(view, sequence, &ids, &ScanProgress::default())?;
        for game in &mut self.games {
            game.steps = found.iter().find(|f| f.id == game.id).map(|f| f.plies.clone());
        }
        Ok(())
    }
}
