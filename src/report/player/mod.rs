//! The player report: a player's games (the players index, a name prefix as the `--player`
//! filter takes it) under a filter: results overall, by colour, by year and by opponent rating,
//! repertoire trees as White and as Black, best wins and worst losses. Exact over every game of
//! the player: each is read once, and replayed for its first plies.
//!
//! ```no_run
//! use tabiya::explore::Filter;
//! use tabiya::report::player::{PlayerOptions, PlayerReport};
//! use tabiya::store::Store;
//!
//! let store = Store::open_read_only("tabiya-db".as_ref())?;
//! let report = PlayerReport::build(&store, "Carlsen", &PlayerOptions::new(Filter::default()))?;
//! println!("{} games, {:.1}%", report.overview.games, report.overview.score);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use shakmaty::Color;

use super::results::{band_label, color_name, percent};
use crate::{
    codec::CompactMove,
    explore::{Admission, Filter, GameSummary, QueryError, san, summarize},
    model::{GameFacts, GameId, GameRecord, GameResult, RatingBand, Tally, player_name},
    position::Variant,
    store::Store,
};

/// Games listed as best wins and as worst losses.
pub const LISTED_GAMES: usize = 8;
/// Deepest repertoire tree, in plies.
pub const MAX_DEPTH: usize = 30;

/// What to report on.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    /// The games counted (its player fields are ignored: the report names the player).
    pub filter: Filter,
    /// Only the games with this colour.
    pub color: Option<Color>,
    /// Repertoire trees: plies deep (at most [`MAX_DEPTH`]).
    pub depth: usize,
    /// Repertoire trees: a line is kept when at least this many of the colour's games
    /// played it (and 2 or more).
    pub min_share: f64,
    /// A label for the filter.
    pub label: String,
    /// The variant whose games are reported on (the other's only counted).
    pub variant: Variant,
}

impl PlayerOptions {
    /// Defaults: standard chess, both colours, trees 8 plies deep keeping lines of 2 % of the
    /// games.
    pub fn new(filter: Filter) -> PlayerOptions {
        PlayerOptions {
            filter,
            color: None,
            depth: 8,
            min_share: 2.0,
            label: "all games".to_owned(),
            variant: Variant::Standard,
        }
    }
}

/// A player report; JSON field names are camelCase, the doc comments are its schema.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerReport {
    /// The name asked for.
    pub query: String,
    /// Which games (the filter, in words).
    pub label: String,
    /// The names it matched, with their games (most games first).
    pub names: Vec<NameCount>,
    /// Headline figures, from the player's side.
    pub overview: PlayerResults,
    /// With White.
    pub as_white: PlayerResults,
    /// With Black.
    pub as_black: PlayerResults,
    /// By year (games without a year left out).
    pub years: Vec<YearResults>,
    /// By the opponent's rating band.
    pub opponents: Vec<BandResults>,
    /// Repertoire trees: lines kept, each node after its parent, White's tree first.
    pub repertoire: Vec<RepertoireNode>,
    /// Wins, highest-rated opponent first.
    pub best_wins: Vec<PlayerGame>,
    /// Losses, lowest-rated opponent first.
    pub worst_losses: Vec<PlayerGame>,
    /// Plies deep the trees go.
    pub depth: usize,
    /// The share of a colour's games a tree line needs, in percent.
    pub min_share: f64,
    /// The variant reported on: `standard` or `chess960` (whose repertoire grows from the
    /// standard setup, Chess960's start 518).
    pub variant: &'static str,
    /// The player's games of the other variant under the filter, left out of everything above.
    pub other_variant_games: u64,
}

/// A matched name.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NameCount {
    /// As in the tags.
    pub name: String,
    /// Games under the filter.
    pub games: u64,
}

/// Results from the player's side.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerResults {
    /// Games.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// Score in percent (a draw half a point; unfinished games count as played, no points).
    pub score: f64,
    /// The player's average rating.
    pub rating: Option<u64>,
    /// The opponents' average rating.
    pub opponent_rating: Option<u64>,
    /// Performance rating (opponents + 400 log10(p / (1 - p)), within ±800).
    pub performance: Option<i64>,
    /// Earliest year.
    pub first_year: Option<u16>,
    /// Latest year.
    pub last_year: Option<u16>,
}

/// One year.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct YearResults {
    /// The year.
    pub year: u16,
    /// Its results.
    #[serde(flatten)]
    pub results: PlayerResults,
}

/// One opponent rating band.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BandResults {
    /// Lowest rating of the band; `null` for unrated opponents.
    pub floor: Option<u16>,
    /// `2400-2499`, `3000+` or `unrated`.
    pub label: String,
    /// Its results.
    #[serde(flatten)]
    pub results: PlayerResults,
}

/// A node of a repertoire tree: a line from the initial position.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepertoireNode {
    /// The player's colour in these games.
    pub color: &'static str,
    /// The moves from the initial position, SAN.
    pub line: Vec<String>,
    /// The moves, UCI.
    pub uci: Vec<String>,
    /// The player's results in the games of the line.
    #[serde(flatten)]
    pub results: PlayerResults,
}

/// A listed game.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerGame {
    /// Its headers.
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The player's colour.
    pub color: &'static str,
    /// The opponent's rating.
    pub opponent_rating: Option<u16>,
}

/// Sums from the player's side, as a [`Tally`] with the player as White: `white` counts wins,
/// `black` losses, White's ratings the player's and Black's the opponents'.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    tally: Tally,
    first_year: Option<u16>,
    last_year: Option<u16>,
}

impl Sums {
    /// A game with `result` from the player's side (White's win: the player's).
    fn add(&mut self, result: GameResult, own: Option<u16>, opponent: Option<u16>, year: Option<u16>) {
        self.tally.add(&Tally::game(result, [own, opponent]));
        if let Some(year) = year {
            self.first_year = Some(self.first_year.map_or(year, |y| y.min(year)));
            self.last_year = Some(self.last_year.map_or(year, |y| y.max(year)));
        }
    }

    fn results(&self) -> PlayerResults {
        let t = &self.tally;
        PlayerResults {
            games: t.games,
            wins: t.white,
            draws: t.draws,
            losses: t.black,
            score: percent(2 * t.white + t.draws, 2 * t.games),
            rating: t.average_rating_of(Color::White),
            opponent_rating: t.average_rating_of(Color::Black),
            performance: t.performance(Color::White),
            first_year: self.first_year,
            last_year: self.last_year,
        }
    }
}

/// One game from the player's side.
struct Seen {
    id: GameId,
    color: Color,
    /// The result with the player as White.
    result: GameResult,
    own: Option<u16>,
    opponent: Option<u16>,
    year: Option<u16>,
}

impl Seen {
    fn add_to(&self, sums: &mut Sums) {
        sums.add(self.result, self.own, self.opponent, self.year);
    }
}

/// 0 for White, 1 for Black.
fn side(color: Color) -> usize {
    usize::from(color == Color::Black)
}

impl PlayerReport {
    /// The report of the player `name` names (any common spelling, as every player filter
    /// matches: [`find_players`](crate::explore::find_players)).
    pub fn build(store: &Store, name: &str, options: &PlayerOptions) -> Result<PlayerReport, QueryError> {
        if options.depth > MAX_DEPTH {
            return Err(QueryError::input(format!("repertoire trees go at most {MAX_DEPTH} plies deep")));
        }
        // Every game of the player is read: a scan's snapshot.
        let view = &store.scan_snapshot();
        let filter = Filter { player: Some(name.to_owned()), color: options.color, ..options.filter.clone() };
        let admission = Admission::resolve(view, &filter)?;
        let found = admission.player.clone().unwrap_or_default();
        let ids = admission.player_games().unwrap_or_default();
        // The player's spellings, as the players index holds them.
        let spelled: std::collections::HashSet<&str> =
            found.players.iter().flat_map(|p| &p.spellings).map(|s| s.stored.as_str()).collect();
        let mut names: HashMap<String, u64> = HashMap::new();
        let (mut overview, mut colours) = (Sums::default(), [Sums::default(); 2]);
        let (mut years, mut bands): (BTreeMap<u16, Sums>, BTreeMap<u8, Sums>) = Default::default();
        let mut trees: [BTreeMap<Vec<CompactMove>, Sums>; 2] = Default::default();
        let mut decided: Vec<(Seen, bool)> = Vec::new();
        let mut other_variant_games = 0;
        for (&id, record) in ids.iter().zip(view.games().listed(ids)?) {
            let facts = GameFacts::of(id, record.result, &record.tags);
            if !admission.admits(&facts) {
                continue;
            }
            // The report is one variant's, as its repertoire is.
            if record.variant() != options.variant {
                other_variant_games += 1;
                continue;
            }
            // The player's colour: the side with one of the player's spellings; White when both.
            let white = spelled.contains(player_name(&record.tags.white).as_str());
            let color = match options.color {
                Some(color) => color,
                None if white => Color::White,
                None => Color::Black,
            };
            let tag = if color == Color::White { &record.tags.white } else { &record.tags.black };
            *names.entry(tag.trim().to_owned()).or_default() += 1;
            let [w, b] = facts.ratings;
            let (own, opponent) = if color == Color::White { (w, b) } else { (b, w) };
            let result = match (record.result, color) {
                (GameResult::WhiteWins, Color::Black) => GameResult::BlackWins,
                (GameResult::BlackWins, Color::Black) => GameResult::WhiteWins,
                (result, _) => result,
            };
            let won = match result {
                GameResult::WhiteWins => Some(true),
                GameResult::BlackWins => Some(false),
                _ => None,
            };
            let seen = Seen { id, color, result, own, opponent, year: facts.month.year() };
            seen.add_to(&mut overview);
            seen.add_to(&mut colours[side(color)]);
            if let Some(year) = seen.year {
                seen.add_to(years.entry(year).or_default());
            }
            seen.add_to(bands.entry(RatingBand::of(opponent).index()).or_default());
            for prefix in opening_prefixes(&record, options.depth) {
                seen.add_to(trees[side(color)].entry(prefix).or_default());
            }
            if let Some(won) = won {
                decided.push((seen, won));
            }
        }
        let mut names: Vec<NameCount> = names.into_iter().map(|(name, games)| NameCount { name, games }).collect();
        names.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        let mut repertoire = Vec::new();
        for color in [Color::White, Color::Black] {
            let kept = (colours[side(color)].tally.games as f64 * options.min_share / 100.0).max(2.0);
            let root = options.variant.initial();
            repertoire.extend(tree_nodes(&trees[side(color)], color, kept, root));
        }
        let list = |games: Vec<&Seen>| -> Result<Vec<PlayerGame>, QueryError> {
            let ids: Vec<GameId> = games.iter().map(|g| g.id).collect();
            let mut out = Vec::new();
            for (seen, record) in games.iter().zip(view.games().listed(&ids)?) {
                out.push(PlayerGame {
                    summary: summarize(seen.id, &record, None),
                    color: color_name(seen.color),
                    opponent_rating: seen.opponent,
                });
            }
            Ok(out)
        };
        let mut wins: Vec<&Seen> = decided.iter().filter(|(_, won)| *won).map(|(s, _)| s).collect();
        wins.sort_by(|a, b| b.opponent.cmp(&a.opponent).then(a.id.cmp(&b.id)));
        wins.truncate(LISTED_GAMES);
        let mut losses: Vec<&Seen> = decided.iter().filter(|(_, won)| !*won).map(|(s, _)| s).collect();
        // Unrated opponents last: a loss to an unknown strength says least.
        losses.sort_by_key(|s| (s.opponent.is_none(), s.opponent, s.id));
        losses.truncate(LISTED_GAMES);
        admission.checked(())?;
        Ok(PlayerReport {
            query: name.trim().to_owned(),
            label: options.label.clone(),
            names,
            overview: overview.results(),
            as_white: colours[0].results(),
            as_black: colours[1].results(),
            years: years.iter().map(|(&year, sums)| YearResults { year, results: sums.results() }).collect(),
            opponents: bands
                .iter()
                .map(|(&index, sums)| {
                    let band = RatingBand::from_index(index).unwrap_or(RatingBand::UNRATED);
                    BandResults { floor: band.floor(), label: band_label(band), results: sums.results() }
                })
                .collect(),
            repertoire,
            best_wins: list(wins)?,
            worst_losses: list(losses)?,
            variant: options.variant.name(),
            other_variant_games,
            depth: options.depth,
            min_share: options.min_share,
        })
    }
}

/// Every prefix (1 to `depth` plies) of a game from its variant's standard setup; none for a
/// game from another position.
fn opening_prefixes(record: &GameRecord, depth: usize) -> Vec<Vec<CompactMove>> {
    if !record.from_standard_setup() {
        return Vec::new();
    }
    let moves: Vec<CompactMove> = record.moves().take(depth).map_while(|m| m).collect();
    (1..=moves.len()).map(|n| moves[..n].to_vec()).collect()
}

/// The kept nodes of a tree in depth-first order, most games first among siblings: a node is
/// kept with at least `kept` games, under a kept parent.
fn tree_nodes(
    tree: &BTreeMap<Vec<CompactMove>, Sums>,
    color: Color,
    kept: f64,
    root: crate::Position,
) -> Vec<RepertoireNode> {
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<CompactMove>, crate::Position, Vec<String>)> = vec![(Vec::new(), root, Vec::new())];
    while let Some((line, position, sans)) = stack.pop() {
        let mut children: Vec<(&Vec<CompactMove>, &Sums)> = tree
            .range(line.clone()..)
            .take_while(|(k, _)| k.starts_with(&line))
            .filter(|(k, sums)| k.len() == line.len() + 1 && sums.tally.games as f64 >= kept)
            .collect();
        children.sort_by(|a, b| a.1.tally.games.cmp(&b.1.tally.games).then_with(|| b.0.cmp(a.0)));
        // Pushed fewest first, so the most played child is expanded next.
        for (child, _) in children {
            let Some(&m) = child.last() else { continue };
            let Some(legal) = m.to_move(position.shakmaty()) else { continue };
            let mut sans = sans.clone();
            sans.push(san(&position, m));
            let mut next = position.clone();
            next.play_legal(legal);
            stack.push((child.clone(), next, sans));
        }
        if let Some(sums) = tree.get(&line) {
            out.push(RepertoireNode {
                color: color_name(color),
                line: sans,
                uci: line.iter().map(|m| m.to_string()).collect(),
                results: sums.results(),
            });
        }
    }
    out
}
