//! Explorer lookups: a [`Lookup`] answers what an opening explorer shows for a position; a
//! [`FilteredStats`] gives a position's statistics under a filter, which lookups build on.

use shakmaty::{Color, Position as _};

use super::{
    Admission, Answer, Filter, GameSummary, History, HistoryMonth, Limits, MoveRow, Opening, PlayerAnswer, PlayerMatch,
    PlayerMoveRow, PlayerSummary, QueryError, Reached, ResolvedTarget,
    counting::{self, CountedGames, kept_games_stats, position_slices, summary_or_games, without_facts},
    notes::{eval_answer, move_answers, position_notes},
};
use crate::{
    Key,
    codec::CompactMove,
    model::{
        Coverage, GameFacts, GameId, GameRecord, GameRef, Month, PositionStats, RECENT_GAMES, Slice, TOP_GAMES, Tally,
    },
    store::{Detail, Occurrences, Snapshot, Store},
};

/// Most games a player filter's name may match.
pub const MAX_PLAYER_GAMES: usize = 100_000;

/// What an opening explorer shows for a position under a filter.
///
/// ```no_run
/// use tabiya::explore::{Filter, Limits, Lookup, Target};
/// use tabiya::store::Store;
///
/// let store = Store::open_read_only("tabiya-db".as_ref())?;
/// let target = Target::san("1. e4 e5 2. Nf3").resolve()?;
/// let answer = Lookup { target, filter: Filter::default(), limits: Limits::default() }.run(&store)?;
/// println!("{} games", answer.games);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Lookup {
    /// The position.
    pub target: ResolvedTarget,
    /// Which games count.
    pub filter: Filter,
    /// How much to list.
    pub limits: Limits,
}

impl Lookup {
    /// The answer, read from one snapshot.
    pub fn run(&self, store: &Store) -> Result<Answer, QueryError> {
        self.run_in(&store.snapshot())
    }

    /// The answer from `view`.
    pub fn run_in(&self, view: &Snapshot) -> Result<Answer, QueryError> {
        let (target, limits) = (&self.target, &self.limits);
        let admission = Admission::resolve(view, &self.filter)?;
        let stats = stats_of_games(view, &target.key, &admission, limits.history)?;
        let chess = target.position.shakmaty();
        let mover = chess.turn();
        let top = summaries(view, &stats.top, limits.top.min(TOP_GAMES), target)?;
        let recent = summaries(view, &stats.recent, limits.recent.min(RECENT_GAMES), target)?;
        let rows: Vec<(CompactMove, Tally, Option<GameSummary>)> = self.next_moves(&stats, &top, &recent).collect();
        let played: Vec<(CompactMove, Tally)> = rows.iter().map(|(m, tally, _)| (*m, *tally)).collect();
        let keys = next_keys(view, target, &played)?;
        let reached = reached_by_moves(view, target, &played, &keys, &admission)?;
        let openings =
            keys.iter().map(|key| Ok(view.positions().opening(key)?.map(|(eco, name)| Opening { eco, name })));
        let openings: Vec<Option<Opening>> = openings.collect::<Result<_, QueryError>>()?;
        let notes = position_notes(view, &target.key, &admission, mover)?;
        let moves = rows
            .into_iter()
            .zip(reached)
            .zip(openings)
            .map(|(((m, tally, game), reached), opening)| {
                let (eval, loss, time) = move_answers(notes.of_move(Some(m)));
                MoveRow {
                    san: san(&target.position, m),
                    uci: m.to_string(),
                    games: tally.games,
                    white: tally.white,
                    draws: tally.draws,
                    black: tally.black,
                    average_rating: tally.average_rating(),
                    performance: tally.performance(mover),
                    game,
                    opening,
                    eval,
                    loss,
                    time,
                    reached,
                }
            })
            .collect();
        let year = |y: u16| (y != 0).then_some(y);
        // Every count above admitted its games by header facts that were read.
        admission.checked(())?;
        Ok(Answer {
            fen: target.position.to_string(),
            games: stats.total.games,
            white: stats.total.white,
            draws: stats.total.draws,
            black: stats.total.black,
            average_rating: stats.total.average_rating(),
            min_year: year(stats.min_year),
            max_year: year(stats.max_year),
            moves,
            top_games: top,
            recent_games: Some(recent),
            opening: opening_of(view, target)?,
            eval: eval_answer(&notes.eval),
            history: history_fields(limits.history, &stats.slices),
            player: admission.player,
        })
    }

    /// What the lichess player explorer answers: the filter's player (with a colour) and their
    /// games from the position, each move with the opponents' average rating and the player's
    /// performance.
    pub fn run_for_player(&self, store: &Store) -> Result<PlayerAnswer, QueryError> {
        let (target, limits) = (&self.target, &self.limits);
        let color = match (&self.filter.player, self.filter.color) {
            (Some(_), Some(color)) => color,
            _ => return Err(QueryError::input("a player explorer lookup needs a player and a colour")),
        };
        let view = store.snapshot();
        let admission = Admission::resolve(&view, &self.filter)?;
        let stats = stats_of_games(&view, &target.key, &admission, limits.history)?;
        let recent = summaries(&view, &stats.recent, limits.recent.min(RECENT_GAMES), target)?;
        let notes = position_notes(&view, &target.key, &admission, target.position.shakmaty().turn())?;
        let moves = self
            .next_moves(&stats, &[], &recent)
            .map(|(m, tally, game)| {
                let (eval, loss, time) = move_answers(notes.of_move(Some(m)));
                PlayerMoveRow {
                    san: san(&target.position, m),
                    uci: m.to_string(),
                    average_opponent_rating: tally.average_rating_of(!color),
                    performance: tally.performance(color),
                    white: tally.white,
                    draws: tally.draws,
                    black: tally.black,
                    game,
                    eval,
                    loss,
                    time,
                }
            })
            .collect();
        admission.checked(())?;
        Ok(PlayerAnswer {
            white: stats.total.white,
            draws: stats.total.draws,
            black: stats.total.black,
            moves,
            recent_games: recent,
            opening: opening_of(&view, target)?,
            eval: eval_answer(&notes.eval),
            history: history_fields(limits.history, &stats.slices),
            queue_position: 0,
            player: admission.player,
        })
    }

    /// The first [`Limits::moves`] next moves, most played first, each with its game when one
    /// game played it and that game is listed.
    fn next_moves<'a>(
        &self,
        stats: &PositionStats,
        top: &'a [GameSummary],
        recent: &'a [GameSummary],
    ) -> impl Iterator<Item = (CompactMove, Tally, Option<GameSummary>)> + 'a {
        let mut moves = stats.moves_by_games();
        moves.truncate(self.limits.moves);
        moves.into_iter().map(move |(m, tally)| {
            let uci = m.to_string();
            let game = (tally.games == 1)
                .then(|| top.iter().chain(recent).find(|g| g.uci.as_deref() == Some(uci.as_str())).cloned())
                .flatten();
            (m, tally, game)
        })
    }
}

/// `history` and `historyYearOnly` when asked for.
fn history_fields(asked: bool, slices: &[Slice]) -> Option<History> {
    asked.then(|| {
        let (months, year_only) = history(slices);
        History { months, year_only }
    })
}

/// The games of `slices` month by month (see [`HistoryMonth`]): every month from the first
/// dated month to the last, zeros included; then the games dated by year alone, by year.
fn history(slices: &[Slice]) -> (Vec<HistoryMonth>, Vec<HistoryMonth>) {
    let mut months = std::collections::BTreeMap::<Month, [u64; 3]>::new();
    let mut years = std::collections::BTreeMap::<Month, [u64; 3]>::new();
    for slice in slices.iter().filter(|slice| slice.key.month != Month::UNKNOWN) {
        let by = if slice.key.month.month().is_some() { &mut months } else { &mut years };
        let counts = by.entry(slice.key.month).or_default();
        counts[0] += slice.total.white;
        counts[1] += slice.total.draws;
        counts[2] += slice.total.black;
    }
    let entry =
        |month: Month, [white, draws, black]: [u64; 3]| HistoryMonth { month: month.to_string(), white, draws, black };
    let dense = match (months.keys().next(), months.keys().next_back()) {
        (Some(first), Some(last)) => (first.0..=last.0)
            .map(Month)
            .filter(|m| m.month().is_some())
            .map(|m| entry(m, months.get(&m).copied().unwrap_or_default()))
            .collect(),
        _ => Vec::new(),
    };
    (dense, years.into_iter().map(|(m, counts)| entry(m, counts)).collect())
}

/// A position's statistics restricted to a filter (its slices and posting list left out).
#[derive(Clone, Debug)]
pub struct FilteredStats {
    /// The position.
    pub key: Key,
    /// Which games count.
    pub filter: Filter,
}

impl FilteredStats {
    /// The statistics (zero when no game reached the position), counted from the facts of the
    /// games the filter keeps (exact, top and recent games included), without the posting list
    /// and the slices.
    pub fn run(&self, store: &Store) -> Result<PositionStats, QueryError> {
        let view = store.snapshot();
        let admission = Admission::resolve(&view, &self.filter)?;
        let stats = stats_of_games(&view, &self.key, &admission, false)?;
        Ok(admission.checked(stats)?)
    }
}

/// The player filter's match and the player's games (with the colour, against the opponent),
/// ascending: `None` without a player.
pub fn resolve_player(view: &Snapshot, filter: &Filter) -> Result<Option<(PlayerMatch, Vec<GameId>)>, QueryError> {
    let only_players = Filter {
        player: filter.player.clone(),
        color: filter.color,
        opponent: filter.opponent.clone(),
        ..Filter::default()
    };
    Ok(Admission::resolve(view, &only_players)?.into_player())
}

/// The keys of the positions each of `played` (moves from `target`) leads to.
pub fn next_keys(
    view: &Snapshot,
    target: &ResolvedTarget,
    played: &[(CompactMove, Tally)],
) -> Result<Vec<Key>, QueryError> {
    let mut keys = Vec::with_capacity(played.len());
    for (m, _) in played {
        let legal = m
            .to_move(target.position.shakmaty())
            .ok_or_else(|| view.corrupt(format!("stored move {m} is not legal in {}", target.key)))?;
        let mut next = target.position.clone();
        next.play_legal(legal);
        keys.push(super::key_of(&next)?);
    }
    Ok(keys)
}

/// The games reaching the position each of `played` leads to (the moves from `target`, each
/// with its tally under the admission's filter; `keys` their positions, [`next_keys`]), by any
/// move order, under the same filter: their positions read together. A position reached only
/// by this move from the target (as many games in all as played the move here) is reached,
/// under any filter, by exactly the games the move's tally counts: its games are not read again.
pub fn reached_by_moves(
    view: &Snapshot,
    target: &ResolvedTarget,
    played: &[(CompactMove, Tally)],
    keys: &[Key],
    admission: &Admission,
) -> Result<Vec<Reached>, QueryError> {
    // A position the full-key family lacks was reached by one game: the one that played the
    // move here (no other can have reached it), so that its totals are the move's, under any
    // filter. Only the family is read.
    let totals = view.positions().family_occurrences(keys)?;
    let of = |o: &Occurrences| Reached { games: o.games, white: o.white, draws: o.draws, black: o.black };
    if admission.is_everything() {
        let reached = played.iter().zip(&totals);
        return Ok(reached.map(|((_, tally), total)| total.as_ref().map_or_else(|| Reached::of(tally), of)).collect());
    }
    // Every game that played each move here, whatever the filter: read when a position more
    // games reached than the move's kept ones asks.
    let mut all: Option<PositionStats> = None;
    let facts = view.facts().table()?;
    played
        .iter()
        .zip(keys)
        .zip(&totals)
        .map(|(((m, tally), key), total)| {
            let Some(total) = total.as_ref().filter(|total| total.games > tally.games) else {
                return Ok(Reached::of(tally));
            };
            let all = match &mut all {
                Some(all) => all,
                None => all.insert(view.positions().get(&target.key, Detail::Head)?.unwrap_or_default()),
            };
            let playing = all.moves.iter().find(|(n, _)| n == m).map_or(0, |(_, t)| t.games);
            if total.games == playing {
                return Ok(Reached::of(tally));
            }
            // Other move orders reach it too: its games, each checked (by move, as stored:
            // no sorted union of the lists), or a popular position's slices summed.
            let games = match counted_games(view, key, admission)? {
                CountedGames::Summary(summary) => {
                    return Ok(Reached::of(&summary.kept_tally(|set| admission.filter.covers(set))));
                }
                CountedGames::Games(games) => *games,
            };
            let kept = games
                .kept_tally(|id| facts.get(id), |game| admission.admits(game))
                .ok_or_else(|| facts.missing(|| without_facts(view, key)))?;
            Ok(Reached::of(&kept))
        })
        .collect()
}

/// What a filtered lookup counts the games of `key` from: a popular position's summary by
/// slice when the filter is made only of slices, else its games by move.
fn counted_games(view: &Snapshot, key: &Key, admission: &Admission) -> Result<CountedGames, QueryError> {
    let found = match admission.filter.is_by_slices() {
        true => summary_or_games(view, key)?,
        false => view.positions().get(key, Detail::ByMove)?.map(|stats| CountedGames::Games(Box::new(stats))),
    };
    Ok(found.unwrap_or_else(|| CountedGames::Games(Box::default())))
}

/// The statistics of `key` under the filter `admission` resolved, without the posting list,
/// and with the slices of the games counted only when `with_slices`: counted from the facts of
/// the games the filter keeps (exact, top and recent games included).
pub(crate) fn stats_of_games(
    view: &Snapshot,
    key: &Key,
    admission: &Admission,
    with_slices: bool,
) -> Result<PositionStats, QueryError> {
    if admission.is_everything() {
        if !with_slices {
            // Without the posting list.
            return Ok(view.positions().get(key, Detail::Head)?.unwrap_or_default());
        }
        // The monthly history: a popular position's from its summary (the sums of the slices
        // its games make) when its slices hold several games each (copying a slice costs
        // about what counting a few games does), another's slices from its games.
        return Ok(match summary_or_games(view, key)? {
            Some(CountedGames::Summary(summary)) if summary.games() >= 4 * summary.slice_count() as u64 => {
                summary.kept(|_| Coverage::Included, true)
            }
            Some(CountedGames::Summary(_)) => position_slices(view, key)?.unwrap_or_default(),
            Some(CountedGames::Games(stats)) => counting::with_slices(view, key, *stats)?,
            None => PositionStats::default(),
        });
    }
    let stats = match counted_games(view, key, admission)? {
        CountedGames::Summary(summary) => {
            return Ok(summary.kept(|set| admission.filter.covers(set), with_slices));
        }
        CountedGames::Games(stats) => *stats,
    };
    if stats.highest_game().is_none() {
        return Ok(PositionStats::default());
    }
    Ok(kept_games_stats(view, key, &stats, |game: &GameFacts| admission.admits(game), with_slices)?)
}

/// The games of the one player `name` matches (any common spelling, see [`find_players`](super::find_players)),
/// ascending: refused for a name with nothing to match, one that matches several players (they
/// are listed), or more than [`MAX_PLAYER_GAMES`] games.
pub fn player_games(store: &Store, name: &str, color: Option<Color>) -> Result<Vec<GameId>, QueryError> {
    let filter = Filter { player: Some(name.to_owned()), color, ..Filter::default() };
    Ok(resolve_player(&store.snapshot(), &filter)?.map(|(_, ids)| ids).unwrap_or_default())
}

fn summaries(
    view: &Snapshot,
    refs: &[GameRef],
    limit: usize,
    target: &ResolvedTarget,
) -> Result<Vec<GameSummary>, QueryError> {
    let ids: Vec<GameId> = refs.iter().take(limit).map(|game| game.id).collect();
    let games = view.games();
    let records: Vec<Option<GameRecord>> = match games.listed(&ids) {
        Ok(records) => records.into_iter().map(Some).collect(),
        // One damaged game must not take the position's answer down: it is left out of the
        // list (the store remembers the damage, which a server reports on /health).
        Err(err) if err.is_corruption() => ids
            .iter()
            .map(|id| match games.listed(&[*id]) {
                Ok(mut record) => record.pop(),
                Err(err) => {
                    tracing::warn!("game {id} left out of an answer's games: {err}");
                    None
                }
            })
            .collect(),
        Err(err) => return Err(err.into()),
    };
    let listed = ids.iter().zip(records).filter_map(|(&id, record)| Some((id, record?)));
    Ok(listed.map(|(id, record)| summarize(id, &record, Some(target))).collect())
}

/// The opening of the deepest named position of the target's line.
pub fn opening_of(view: &Snapshot, target: &ResolvedTarget) -> Result<Option<Opening>, QueryError> {
    let positions = view.positions();
    for key in std::iter::once(&target.key).chain(&target.line) {
        if let Some((eco, name)) = positions.opening(key)? {
            return Ok(Some(Opening { eco, name }));
        }
    }
    Ok(None)
}

/// The move a game played from the position `key` (which is `target`) when it first stood on
/// it; `None` when it never did, or ended there. The game is replayed only as far as that.
fn move_from(record: &GameRecord, target: &crate::Position, key: &Key) -> Option<CompactMove> {
    let mut line = record.mainline()?;
    loop {
        let arrived = stands_on(line.current(), target, key);
        let played = line.next()??;
        if arrived {
            return Some(CompactMove::from_move_in(&played, target.castles().mode()));
        }
    }
}

/// The plies of a replayed game (`positions[0]` its start) at which it stood on the position
/// `key`, which is `target`.
pub fn arrivals(positions: &[crate::Position], target: &crate::Position, key: &Key) -> Vec<usize> {
    positions.iter().enumerate().filter(|(_, position)| stands_on(position, target, key)).map(|(ply, _)| ply).collect()
}

/// Whether `position` is the position `key`, which is `target`: a cheap board and turn
/// comparison first; the key decides (castling and en passant rights as canonicalised).
fn stands_on(position: &crate::Position, target: &crate::Position, key: &Key) -> bool {
    let (chess, target) = (position.shakmaty(), target.shakmaty());
    chess.board() == target.board()
        && chess.turn() == target.turn()
        && super::key_of(position).ok().as_ref() == Some(key)
}

/// A game's headers, and the move it played from the target position.
pub fn summarize(id: GameId, record: &GameRecord, target: Option<&ResolvedTarget>) -> GameSummary {
    let tags = &record.tags;
    let facts = GameFacts::of(id, record.result, tags);
    let uci = target.and_then(|target| move_from(record, &target.position, &target.key).map(|m| m.to_string()));
    GameSummary {
        id: id.to_string(),
        uci,
        winner: record.result.winner(),
        white: PlayerSummary { name: tags.white.clone(), rating: tags.white_elo },
        black: PlayerSummary { name: tags.black.clone(), rating: tags.black_elo },
        year: facts.month.year(),
        month: facts.month.month().map(|_| facts.month.to_string()),
        date: tags.date.clone(),
        event: tags.event.clone(),
        site: tags.site.clone(),
        round: tags.round.clone(),
        result: record.result.tag().to_owned(),
        speed: facts.speed.name(),
    }
}

/// A stored move in SAN from `position` (UCI when it is not legal there).
pub fn san(position: &crate::Position, m: CompactMove) -> String {
    m.to_move(position.shakmaty()).map(|m| position.san_plus(m).san.to_string()).unwrap_or_else(|| m.to_string())
}

/// The colour of a `white`/`black`/`w`/`b` argument.
pub fn parse_color(text: &str) -> Result<Color, QueryError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        _ => Err(QueryError::input(format!("bad colour {text:?}: expected white or black"))),
    }
}
