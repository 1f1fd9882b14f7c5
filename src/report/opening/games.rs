//! The one pass over the games reaching a position that an opening report is made of: each
//! game of the posting list is read and replayed once (in parallel), and counted into every
//! subset (the report's filter, the `--versus` filter) that admits it.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use rayon::prelude::*;
use shakmaty::Position as _;

use super::Theme;
use crate::{
    Key, Material,
    codec::CompactMove,
    explore::{Admission, QueryError, arrivals, key_of},
    model::{GameFacts, GameId, GameRecord, GameResult, Month, Tally, replay_with_moves},
    pattern::{GamePattern, Scene},
    store::Snapshot,
};

/// Games read from the store at a time (per parallel task).
const CHUNK: usize = 512;

/// What the pass looks for in each game.
pub struct Probe<'a> {
    /// The position.
    target: &'a crate::Position,
    /// Its key.
    key: &'a Key,
    /// The themes, each checked from the first arrival to `within` plies after it.
    themes: &'a [Theme],
    /// Each theme's [`Pattern::placement_roles`](crate::pattern::Pattern::placement_roles).
    roles: Vec<Option<u8>>,
    /// How far after the position themes are looked for, in plies.
    within: usize,
}

impl<'a> Probe<'a> {
    /// Looks for the position `key` (which is `target`), and for `themes` up to `within` plies
    /// after it.
    pub fn new(target: &'a crate::Position, key: &'a Key, themes: &'a [Theme], within: usize) -> Probe<'a> {
        let roles = themes
            .iter()
            .map(|theme| match &theme.pattern {
                GamePattern::Position(pattern) => pattern.placement_roles(),
                GamePattern::Sequence(_) => None,
            })
            .collect();
        Probe { target, key, themes, roles, within }
    }
}

/// A next move's games, with the sums its averages come from.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveTally {
    /// Results and ratings.
    pub tally: Tally,
    /// Sum of the known years.
    pub year_sum: u64,
    /// Games with a known year.
    pub dated: u64,
    /// The latest month played.
    pub last: Month,
}

/// One subset's counts over its games.
#[derive(Clone, Debug, Default)]
pub struct Tallies {
    /// Every game.
    pub total: Tally,
    /// By year (0: no year).
    pub years: BTreeMap<u16, Tally>,
    /// By rating band index.
    pub bands: BTreeMap<u8, Tally>,
    /// By speed index.
    pub speeds: [u64; 7],
    /// By next move (a game counts once per distinct move it played from the position).
    pub moves: HashMap<CompactMove, MoveTally>,
    /// By the position one move before and that move (once per game).
    pub orders: HashMap<(Key, CompactMove), u64>,
    /// Per theme, the games reaching it.
    pub themes: Vec<Tally>,
    /// By final material, as a signature (`KRPvKR`).
    pub endings: HashMap<Material, Tally>,
    /// Games by length in plies.
    pub plies: BTreeMap<u32, u64>,
    /// By player name, per colour (White, Black).
    pub players: [HashMap<String, Tally>; 2],
    /// (average rating, game) of rated games.
    pub rated: Vec<(u16, GameId)>,
    /// (month, game) of dated games.
    pub dated: Vec<(Month, GameId)>,
    /// (plies, game) of decisive games, White's wins then Black's.
    pub wins: [Vec<(u32, GameId)>; 2],
    /// Games left out as corrupt data (counted, not hidden): stored moves that do not replay,
    /// or a replay that never reaches the position the posting list holds it for.
    pub unreplayable: u64,
}

impl Tallies {
    fn new(themes: usize) -> Tallies {
        Tallies { themes: vec![Tally::default(); themes], ..Tallies::default() }
    }

    fn merge(mut self, other: Tallies) -> Tallies {
        self.total.add(&other.total);
        for (year, tally) in other.years {
            self.years.entry(year).or_default().add(&tally);
        }
        for (band, tally) in other.bands {
            self.bands.entry(band).or_default().add(&tally);
        }
        for (mine, theirs) in self.speeds.iter_mut().zip(other.speeds) {
            *mine += theirs;
        }
        for (m, theirs) in other.moves {
            let mine = self.moves.entry(m).or_default();
            mine.tally.add(&theirs.tally);
            mine.year_sum += theirs.year_sum;
            mine.dated += theirs.dated;
            mine.last = mine.last.max(theirs.last);
        }
        for (order, games) in other.orders {
            *self.orders.entry(order).or_default() += games;
        }
        for (mine, theirs) in self.themes.iter_mut().zip(&other.themes) {
            mine.add(theirs);
        }
        for (material, tally) in other.endings {
            self.endings.entry(material).or_default().add(&tally);
        }
        for (plies, games) in other.plies {
            *self.plies.entry(plies).or_default() += games;
        }
        for (mine, theirs) in self.players.iter_mut().zip(other.players) {
            for (name, tally) in theirs {
                mine.entry(name).or_default().add(&tally);
            }
        }
        self.rated.extend(other.rated);
        self.dated.extend(other.dated);
        for (mine, theirs) in self.wins.iter_mut().zip(other.wins) {
            mine.extend(theirs);
        }
        self.unreplayable += other.unreplayable;
        self
    }

    fn add(&mut self, facts: &GameFacts, record: &GameRecord, walk: &Walk) {
        let tally = Tally::game(facts.result, facts.ratings);
        self.total.add(&tally);
        self.years.entry(facts.month.year().unwrap_or(0)).or_default().add(&tally);
        self.bands.entry(facts.band().index()).or_default().add(&tally);
        self.speeds[facts.speed as usize] += 1;
        for &m in &walk.next {
            let entry = self.moves.entry(m).or_default();
            entry.tally.add(&tally);
            if let Some(year) = facts.month.year() {
                entry.year_sum += u64::from(year);
                entry.dated += 1;
            }
            entry.last = entry.last.max(facts.month);
        }
        for order in &walk.orders {
            *self.orders.entry(*order).or_default() += 1;
        }
        for (theme, reached) in self.themes.iter_mut().zip(&walk.themes) {
            if *reached {
                theme.add(&tally);
            }
        }
        self.endings.entry(walk.ending).or_default().add(&tally);
        *self.plies.entry(walk.plies).or_default() += 1;
        for (side, name) in [&record.tags.white, &record.tags.black].into_iter().enumerate() {
            // Most names come again: looked up before a key is allocated.
            let name = name.trim();
            match self.players[side].get_mut(name) {
                Some(sums) => sums.add(&tally),
                None => {
                    self.players[side].insert(name.to_owned(), tally);
                }
            }
        }
        if let Some(rating) = facts.average_rating() {
            self.rated.push((rating, facts.id));
        }
        if facts.month != Month::UNKNOWN {
            self.dated.push((facts.month, facts.id));
        }
        match facts.result {
            GameResult::WhiteWins => self.wins[0].push((walk.plies, facts.id)),
            GameResult::BlackWins => self.wins[1].push((walk.plies, facts.id)),
            _ => {}
        }
    }
}

/// What one game's replay says about the position.
struct Walk {
    next: Vec<CompactMove>,
    orders: Vec<(Key, CompactMove)>,
    themes: Vec<bool>,
    ending: Material,
    plies: u32,
}

impl Walk {
    /// `None` when the game never stood on the position.
    fn of(positions: &[crate::Position], moves: &[shakmaty::Move], probe: &Probe) -> Option<Walk> {
        let arrivals = arrivals(positions, probe.target, probe.key);
        let first = *arrivals.first()?;
        let mut next: Vec<CompactMove> = arrivals
            .iter()
            .filter_map(|&ply| Some(CompactMove::played(positions[ply].shakmaty(), moves.get(ply)?)))
            .collect();
        next.sort_unstable();
        next.dedup();
        let mut orders = Vec::new();
        for &ply in arrivals.iter().filter(|&&ply| ply > 0) {
            if let (Ok(key), Some(m)) = (key_of(&positions[ply - 1]), moves.get(ply - 1)) {
                orders.push((key, CompactMove::played(positions[ply - 1].shakmaty(), m)));
            }
        }
        orders.sort_unstable();
        orders.dedup();
        let last = first.saturating_add(probe.within).min(positions.len() - 1);
        // A sequence theme is reached when its first step matches within the window (its later
        // steps may come after it); a position theme, when the position matches.
        let mut themes: Vec<bool> = probe
            .themes
            .iter()
            .map(|theme| match &theme.pattern {
                GamePattern::Sequence(sequence) => {
                    sequence.find(&positions[first..]).is_some_and(|plies| plies[0] <= last - first)
                }
                GamePattern::Position(_) => false,
            })
            .collect();
        for ply in first..=last {
            let position = positions[ply].shakmaty();
            // The roles a move displaced: a theme decided by other roles' placement alone kept
            // its value (false, or it would be reached) and is not evaluated again.
            let moved = if ply == first { u8::MAX } else { moved_roles(positions[ply - 1].board(), position.board()) };
            let mut scene = None;
            for ((reached, theme), roles) in themes.iter_mut().zip(probe.themes).zip(&probe.roles) {
                let GamePattern::Position(pattern) = &theme.pattern else { continue };
                if *reached || roles.is_some_and(|roles| roles & moved == 0) {
                    continue;
                }
                *reached = pattern.matches(scene.get_or_insert_with(|| Scene::of_position(&positions[ply])));
            }
            if themes.iter().all(|&t| t) {
                break;
            }
        }
        let end = positions.last()?;
        Some(Walk {
            next,
            orders,
            themes,
            ending: Material(end.board().material()),
            plies: (positions.len() - 1) as u32,
        })
    }
}

/// The roles whose pieces of either colour stand elsewhere after a move, as a bit set (bit
/// `Role as u8`): a capture-promotion to the captured role changes only that role's colours.
fn moved_roles(before: &shakmaty::Board, after: &shakmaty::Board) -> u8 {
    shakmaty::Role::ALL
        .iter()
        .filter(|&&role| {
            before.by_role(role) != after.by_role(role)
                || before.by_role(role) & before.white() != after.by_role(role) & after.white()
        })
        .fold(0, |mask, &role| mask | 1 << role as u8)
}

/// Reads and replays every game of `ids` once, counting each into the selections admitting it.
pub fn tally(
    view: &Snapshot,
    ids: &[GameId],
    selections: &[&Admission],
    probe: &Probe,
) -> Result<Vec<Tallies>, QueryError> {
    let empty = || (0..selections.len()).map(|_| Tallies::new(probe.themes.len())).collect::<Vec<_>>();
    ids.par_chunks(CHUNK)
        .map(|chunk| -> Result<Vec<Tallies>, QueryError> {
            let mut tallies = empty();
            for (&id, record) in chunk.iter().zip(view.games().listed(chunk)?) {
                let facts = GameFacts::of(id, record.result, &record.tags);
                let admitted: Vec<bool> = selections.iter().map(|s| s.admits(&facts)).collect();
                if !admitted.contains(&true) {
                    continue;
                }
                let walk =
                    replay_with_moves(&record).and_then(|(positions, moves)| Walk::of(&positions, &moves, probe));
                for (tallies, _) in tallies.iter_mut().zip(&admitted).filter(|(_, a)| **a) {
                    match &walk {
                        Some(walk) => tallies.add(&facts, &record, walk),
                        None => tallies.unreplayable += 1,
                    }
                }
            }
            Ok(tallies)
        })
        .try_reduce(empty, |a, b| Ok(a.into_iter().zip(b).map(|(a, b)| a.merge(b)).collect()))
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position as _, Role, fen::Fen, uci::UciMove};

    use super::moved_roles;

    fn after(fen: &str, uci: &str) -> (Chess, Chess) {
        let before: Chess = Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&before).unwrap();
        let mut next = before.clone();
        next.play_unchecked(m);
        (before, next)
    }

    #[test]
    fn a_promotion_capturing_its_own_role_moves_that_role() {
        let (before, next) = after("3q3k/4P3/8/8/8/8/8/K7 w - - 0 1", "e7d8q");
        assert_eq!(moved_roles(before.board(), next.board()), 1 << Role::Pawn as u8 | 1 << Role::Queen as u8);
        let (before, next) = after("7k/8/8/8/8/8/8/RK6 w - - 0 1", "a1a2");
        assert_eq!(moved_roles(before.board(), next.board()), 1 << Role::Rook as u8);
        let (before, next) = after("r3k3/8/8/8/8/8/8/4K3 b q - 0 1", "e8c8");
        assert_eq!(moved_roles(before.board(), next.board()), 1 << Role::King as u8 | 1 << Role::Rook as u8);
    }
}
