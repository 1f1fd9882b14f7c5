//! Which games a lookup counts: date range, speeds, rating bands, player, and any header.
//!
//! Months, speeds and average ratings are checked on each game's facts, by the slice the game
//! falls in (the breakdown reports and the monthly history use), so they must fall on slice
//! boundaries: months, speed classes and rating bands of [`RatingBand::WIDTH`]. Both players'
//! ratings and the result are checked on the facts too; days, ECO codes, lengths, events and
//! sites on the games' header facts; a player and an opponent by the names index. A [`Filter`]
//! is what the user asked; [`Admission`](super::Admission) resolves it against a database.

use shakmaty::Color;

use super::QueryError;
use crate::model::{
    Coverage, Day, Eco, GameFacts, GameResult, MAX_PLIES, Month, RatingBand, SliceKey, SliceSet, Speed,
};

/// A filter as a user writes it (the command line's options, the Python package's keyword
/// arguments): parsed into a [`Filter`], and told back in words for reports.
///
/// ```
/// use tabiya::explore::FilterSpec;
///
/// let spec = FilterSpec { since: Some("2020".into()), min_rating: Some(2600), ..FilterSpec::default() };
/// assert_eq!(spec.describe(), "since 2020, rating 2600+");
/// assert!(spec.filter()?.since.is_some());
/// # Ok::<_, tabiya::explore::QueryError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterSpec {
    /// Games from this year or month on (`YYYY` or `YYYY-MM`).
    pub since: Option<String>,
    /// Games up to this year or month.
    pub until: Option<String>,
    /// Speeds, comma-separated (lichess names, or `unknown`).
    pub speed: Option<String>,
    /// Lowest average rating (a multiple of [`RatingBand::WIDTH`]).
    pub min_rating: Option<u16>,
    /// Average rating below this.
    pub max_rating: Option<u16>,
    /// Games of the player this names, by any common spelling.
    pub player: Option<String>,
    /// With `player`: the player's colour (`white` or `black`).
    pub color: Option<String>,
    /// With `player`: games against the player this names.
    pub opponent: Option<String>,
    /// Lowest rating of each player (games with an unrated player are left out).
    pub min_elo: Option<u16>,
    /// Highest rating of each player.
    pub max_elo: Option<u16>,
    /// Text the `Event` tag contains (case-insensitive).
    pub event: Option<String>,
    /// Text the `Site` tag contains (case-insensitive).
    pub site: Option<String>,
    /// The result: `1-0`, `0-1`, `1/2-1/2` (or `*`).
    pub result: Option<String>,
    /// An ECO code or a range of codes (`B90`, `B20-B99`).
    pub eco: Option<String>,
    /// Games played on this day or later (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub date_from: Option<String>,
    /// Games played on this day or earlier.
    pub date_to: Option<String>,
    /// Games of at least this many plies.
    pub min_plies: Option<u32>,
}

impl FilterSpec {
    /// The filter.
    pub fn filter(&self) -> Result<Filter, QueryError> {
        let color = self.color.as_deref().map(super::parse_color).transpose()?;
        Filter::default()
            .with_dates(self.since.as_deref(), self.until.as_deref())?
            .with_speeds(self.speed.as_deref())?
            .with_rating_range(self.min_rating, self.max_rating)?
            .with_player(self.player.as_deref(), color)?
            .with_opponent(self.opponent.as_deref())?
            .with_headers(self)
    }

    /// The filters in words: `since 2020, rating 2600+, Carlsen, Magnus with white`, or `all games`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(since) = &self.since {
            parts.push(format!("since {since}"));
        }
        if let Some(until) = &self.until {
            parts.push(format!("until {until}"));
        }
        if let Some(speed) = &self.speed {
            parts.push(speed.clone());
        }
        match (self.min_rating, self.max_rating) {
            (Some(min), Some(max)) => parts.push(format!("rating {min}-{}", max.saturating_sub(1))),
            (Some(min), None) => parts.push(format!("rating {min}+")),
            (None, Some(max)) => parts.push(format!("rating below {max}")),
            (None, None) => {}
        }
        if let Some(player) = &self.player {
            match &self.color {
                Some(color) => parts.push(format!("{player} with {color}")),
                None => parts.push(player.clone()),
            }
        }
        if let Some(opponent) = &self.opponent {
            parts.push(format!("against {opponent}"));
        }
        match (self.min_elo, self.max_elo) {
            (Some(min), Some(max)) => parts.push(format!("both rated {min}-{max}")),
            (Some(min), None) => parts.push(format!("both rated {min}+")),
            (None, Some(max)) => parts.push(format!("both rated at most {max}")),
            (None, None) => {}
        }
        let quoted = [("event", &self.event), ("site", &self.site)];
        parts.extend(quoted.iter().filter_map(|(name, text)| text.as_ref().map(|text| format!("{name} \"{text}\""))));
        if let Some(result) = &self.result {
            parts.push(format!("result {result}"));
        }
        if let Some(eco) = &self.eco {
            parts.push(format!("ECO {eco}"));
        }
        match (&self.date_from, &self.date_to) {
            (Some(from), Some(to)) => parts.push(format!("played {from} to {to}")),
            (Some(from), None) => parts.push(format!("played from {from}")),
            (None, Some(to)) => parts.push(format!("played up to {to}")),
            (None, None) => {}
        }
        if let Some(plies) = self.min_plies {
            parts.push(format!("{plies}+ plies"));
        }
        if parts.is_empty() { "all games".to_owned() } else { parts.join(", ") }
    }
}

/// A filter; the default counts every game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Earliest month, inclusive (games without a date are then excluded).
    pub since: Option<Month>,
    /// Latest month, inclusive.
    pub until: Option<Month>,
    /// Speeds counted, as a bit set (bit = [`Speed`] index); `None` for all.
    pub speeds: Option<u8>,
    /// Rating bands counted, as a bit set (bit = band index); `None` for all.
    pub bands: Option<u32>,
    /// Games of the player this names, by any common spelling ([`find_players`](super::find_players)).
    pub player: Option<String>,
    /// The player's colour, when a player is given.
    pub color: Option<Color>,
    /// With a player: games against the player this names.
    pub opponent: Option<String>,
    /// Lowest rating of each player.
    pub min_elo: Option<u16>,
    /// Highest rating of each player.
    pub max_elo: Option<u16>,
    /// The result.
    pub result: Option<GameResult>,
    /// Text the `Event` tag contains, lower-cased (compared case-insensitively).
    pub event: Option<String>,
    /// Text the `Site` tag contains, lower-cased.
    pub site: Option<String>,
    /// ECO codes from the first to the second, both included.
    pub eco: Option<(Eco, Eco)>,
    /// First day: a game counts when every day it may have been played is within the range.
    pub date_from: Option<Day>,
    /// Last day.
    pub date_to: Option<Day>,
    /// Fewest plies.
    pub min_plies: Option<u16>,
}

impl Filter {
    /// Whether the position's stored totals answer the query as they are.
    pub fn is_unfiltered(&self) -> bool {
        *self == Filter::default()
    }

    /// Parses `--since`/`--until` style bounds (`YYYY` or `YYYY-MM`).
    pub fn with_dates(mut self, since: Option<&str>, until: Option<&str>) -> Result<Filter, QueryError> {
        self.since = since.map(|s| Month::parse_bound(s, false)).transpose().map_err(QueryError::Input)?;
        self.until = until.map(|s| Month::parse_bound(s, true)).transpose().map_err(QueryError::Input)?;
        Ok(self)
    }

    /// Parses a comma-separated list of speeds (lichess names, or `unknown`).
    pub fn with_speeds(mut self, speeds: Option<&str>) -> Result<Filter, QueryError> {
        if let Some(list) = speeds.filter(|s| !s.trim().is_empty()) {
            let mut mask = 0u8;
            for name in list.split(',') {
                let speed: Speed = name.parse().map_err(QueryError::Input)?;
                mask |= 1 << speed as u8;
            }
            self.speeds = Some(mask);
        }
        Ok(self)
    }

    /// Keeps games whose average rating is in `min..max` (`max` exclusive); both must be
    /// multiples of [`RatingBand::WIDTH`], the bands ratings are aggregated in. Unrated games
    /// are excluded by either bound.
    pub fn with_rating_range(mut self, min: Option<u16>, max: Option<u16>) -> Result<Filter, QueryError> {
        if min.is_none() && max.is_none() {
            return Ok(self);
        }
        for bound in [min, max].into_iter().flatten() {
            if bound % RatingBand::WIDTH != 0 {
                return Err(QueryError::input(format!(
                    "rating bound {bound} is not a multiple of {} (ratings are aggregated in bands of {})",
                    RatingBand::WIDTH,
                    RatingBand::WIDTH
                )));
            }
        }
        if max.is_some_and(|max| max > RatingBand::TOP) {
            return Err(QueryError::input(format!(
                "--max-rating above {} is not available ({}+ is one band): leave it out",
                RatingBand::TOP,
                RatingBand::TOP
            )));
        }
        self.bands = Some(band_mask(min.unwrap_or(0), max.unwrap_or(u16::MAX)));
        Ok(self)
    }

    /// The lichess API's `ratings`: rating-group lower bounds, each group reaching to the next
    /// of 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500 (2500 and above the last).
    pub fn with_rating_groups(mut self, groups: Option<&str>) -> Result<Filter, QueryError> {
        const GROUPS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];
        let Some(list) = groups.filter(|s| !s.trim().is_empty()) else {
            return Ok(self);
        };
        let mut mask = 0u32;
        for item in list.split(',') {
            let floor: u16 =
                item.trim().parse().map_err(|_| QueryError::input(format!("bad rating group {item:?}")))?;
            let position = GROUPS
                .iter()
                .position(|&g| g == floor)
                .ok_or_else(|| QueryError::input(format!("bad rating group {floor}: expected one of {GROUPS:?}")))?;
            mask |= band_mask(floor, GROUPS.get(position + 1).copied().unwrap_or(u16::MAX));
        }
        self.bands = Some(mask);
        Ok(self)
    }

    /// Restricts to a player's games (`color`: only those with that colour).
    pub fn with_player(mut self, name: Option<&str>, color: Option<Color>) -> Result<Filter, QueryError> {
        match name.map(str::trim) {
            Some(name) if crate::model::player_name(name).is_empty() => {
                return Err(QueryError::input(format!("empty player name {name:?}")));
            }
            Some(name) => self.player = Some(name.to_owned()),
            None if color.is_some() => return Err(QueryError::input("--color needs --player")),
            None => {}
        }
        self.color = color;
        Ok(self)
    }

    /// Restricts a player's games to those against `name` (after [`Filter::with_player`]).
    pub fn with_opponent(mut self, name: Option<&str>) -> Result<Filter, QueryError> {
        if let Some(opponent) = name.map(str::trim) {
            if self.player.is_none() {
                return Err(QueryError::input("--opponent needs --player"));
            }
            if crate::model::player_name(opponent).is_empty() {
                return Err(QueryError::input(format!("empty opponent name {opponent:?}")));
            }
            self.opponent = Some(opponent.to_owned());
        }
        Ok(self)
    }

    /// Adds the header filters of `spec` (its `min_elo` to `min_plies`), each checked: a rating
    /// range and a date range must not be the wrong way round, an ECO code or range, a result
    /// and a date must parse, texts must not be empty.
    fn with_headers(mut self, spec: &FilterSpec) -> Result<Filter, QueryError> {
        let input = |message: String| QueryError::Input(message);
        if let (Some(min), Some(max)) = (spec.min_elo, spec.max_elo)
            && min > max
        {
            return Err(input(format!("--min-elo {min} is above --max-elo {max}")));
        }
        (self.min_elo, self.max_elo) = (spec.min_elo, spec.max_elo);
        let text = |name: &str, text: Option<&str>| -> Result<Option<String>, QueryError> {
            match text {
                Some(text) if text.trim().is_empty() => Err(input(format!("empty {name} text"))),
                Some(text) => Ok(Some(text.to_lowercase())),
                None => Ok(None),
            }
        };
        self.event = text("event", spec.event.as_deref())?;
        self.site = text("site", spec.site.as_deref())?;
        self.result = spec
            .result
            .as_deref()
            .map(|text| match text.trim() {
                "1-0" | "0-1" | "1/2-1/2" | "*" => Ok(GameResult::from_tag(text.trim()).unwrap_or(GameResult::Unknown)),
                other => Err(input(format!("bad result {other:?}: expected 1-0, 0-1, 1/2-1/2 or *"))),
            })
            .transpose()?;
        self.eco = spec.eco.as_deref().map(Eco::parse_range).transpose().map_err(QueryError::Input)?;
        self.date_from =
            spec.date_from.as_deref().map(|d| Day::parse_bound(d, false)).transpose().map_err(QueryError::Input)?;
        self.date_to =
            spec.date_to.as_deref().map(|d| Day::parse_bound(d, true)).transpose().map_err(QueryError::Input)?;
        if let (Some(from), Some(to)) = (self.date_from, self.date_to)
            && from > to
        {
            return Err(input(format!("the date range {from} to {to} is the wrong way round")));
        }
        self.min_plies = spec
            .min_plies
            .map(|plies| {
                u16::try_from(plies).ok().filter(|&p| p <= MAX_PLIES).ok_or_else(|| {
                    input(format!("--min-plies {plies} is above {MAX_PLIES}, the longest length told apart"))
                })
            })
            .transpose()?;
        Ok(self)
    }

    /// Whether a game's header facts ([`GameHeaders`](crate::model::GameHeaders)) are needed:
    /// an ECO, date, length, event or site filter.
    pub fn needs_headers(&self) -> bool {
        self.eco.is_some()
            || self.date_from.is_some()
            || self.date_to.is_some()
            || self.min_plies.is_some()
            || self.event.is_some()
            || self.site.is_some()
    }

    /// Whether the month × speed × rating-band slices answer it as they are (no player and no
    /// header filter).
    pub fn is_by_slices(&self) -> bool {
        Filter { since: None, until: None, speeds: None, bands: None, ..self.clone() } == Filter::default()
    }

    fn month_in_range(&self, month: Month) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        month != Month::UNKNOWN
            && self.since.is_none_or(|since| month >= since)
            && self.until.is_none_or(|until| month <= until)
    }

    /// Whether a slice's games are counted (the player is not checked here).
    pub fn matches_slice(&self, key: &SliceKey) -> bool {
        self.slice_passes(key.month, key.speed, || key.band)
    }

    /// How many of the slices of `set` a filter made only of slices ([`Filter::is_by_slices`])
    /// keeps, each as [`Filter::matches_slice`]: for a set of one slice, [`Coverage::Included`]
    /// or [`Coverage::Excluded`]; for more, [`Coverage::Mixed`] when they may differ.
    pub fn covers(&self, set: &SliceSet) -> Coverage {
        debug_assert!(self.is_by_slices(), "covers answers for filters of slices only");
        let months = match (self.since, self.until) {
            (None, None) => Coverage::Included,
            (since, until) => {
                let after = |month: Month| since.is_none_or(|since| month >= since);
                let before = |month: Month| until.is_none_or(|until| month <= until);
                if set.first_month != Month::UNKNOWN && after(set.first_month) && before(set.last_month) {
                    Coverage::Included
                } else if set.last_month == Month::UNKNOWN || !after(set.last_month) || !before(set.first_month) {
                    Coverage::Excluded
                } else {
                    Coverage::Mixed
                }
            }
        };
        let bits = |mask: Option<u32>, set: u32| match mask {
            None => Coverage::Included,
            Some(mask) if set & !mask == 0 => Coverage::Included,
            Some(mask) if set & mask == 0 => Coverage::Excluded,
            Some(_) => Coverage::Mixed,
        };
        let parts = [months, bits(self.speeds.map(u32::from), u32::from(set.speeds)), bits(self.bands, set.bands)];
        if parts.contains(&Coverage::Excluded) {
            Coverage::Excluded
        } else if parts.iter().all(|&part| part == Coverage::Included) {
            Coverage::Included
        } else {
            Coverage::Mixed
        }
    }

    /// The slice's tests, its rating band (an average, for a game) computed only when asked for.
    fn slice_passes(&self, month: Month, speed: Speed, band: impl FnOnce() -> RatingBand) -> bool {
        self.month_in_range(month)
            && self.speeds.is_none_or(|mask| mask & 1 << speed as u8 != 0)
            && self.bands.is_none_or(|mask| mask & 1 << band().index() != 0)
    }

    /// Whether a game is counted by its facts: its slice, both players' ratings and its result
    /// (the player, opponent and header facts are [`Admission`](super::Admission)'s).
    pub fn matches_game(&self, facts: &GameFacts) -> bool {
        let rated = |bound: Option<u16>, ok: fn(u16, u16) -> bool| {
            bound.is_none_or(|bound| facts.ratings.iter().all(|r| r.is_some_and(|r| ok(r, bound))))
        };
        self.slice_passes(facts.month, facts.speed, || facts.band())
            && rated(self.min_elo, |r, b| r >= b)
            && rated(self.max_elo, |r, b| r <= b)
            && self.result.is_none_or(|result| facts.result == result)
    }
}

/// The rated bands whose lowest rating is in `min..max`, as a bit set.
fn band_mask(min: u16, max: u16) -> u32 {
    (0..RatingBand::UNRATED.index())
        .filter(|&index| (min..max).contains(&(u16::from(index) * RatingBand::WIDTH)))
        .fold(0, |mask, index| mask | 1 << index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_must_fall_on_bands() {
        assert!(Filter::default().with_rating_range(Some(2450), None).is_err());
        assert!(Filter::default().with_rating_range(None, Some(3100)).is_err());
        let f = Filter::default().with_rating_range(Some(2400), Some(2600)).expect("aligned");
        let key = |rating| SliceKey { month: Month::UNKNOWN, speed: Speed::Unknown, band: RatingBand::of(rating) };
        assert!(f.matches_slice(&key(Some(2400))));
        assert!(f.matches_slice(&key(Some(2599))));
        assert!(!f.matches_slice(&key(Some(2600))));
        assert!(!f.matches_slice(&key(None)));
        let lichess = Filter::default().with_rating_groups(Some("2200,2500")).expect("groups");
        assert!(lichess.matches_slice(&key(Some(2200))) && lichess.matches_slice(&key(Some(3200))));
        assert!(!lichess.matches_slice(&key(Some(2199))));
        assert!(Filter::default().with_rating_groups(Some("2300")).is_err());
    }

    proptest::proptest! {
        /// A filter of slice bounds only keeps a game exactly when it keeps the game's slice.
        #[test]
        fn games_pass_as_their_slices_do(
            year in 1990u16..2000, month in 0u16..13, speed in 0u8..7, ratings in proptest::array::uniform2(proptest::option::of(1800u16..2900)),
            since in proptest::option::of(1990u16..2000), until in proptest::option::of(1990u16..2000),
            speeds in proptest::option::of(0u8..127), bands in proptest::option::of(0u32..1 << 16),
        ) {
            let date = match month { 0 => format!("{year}.??.??"), m => format!("{year}.{m:02}.01") };
            let Some(speed) = Speed::from_index(speed) else { return Ok(()) };
            let facts = GameFacts { id: crate::model::GameId(1), result: GameResult::Draw, ratings, month: Month::from_date(&date), speed };
            let bounds = Filter::default().with_dates(since.map(|y| y.to_string()).as_deref(), until.map(|y| y.to_string()).as_deref());
            let filter = Filter { speeds, bands, ..bounds.expect("years") };
            proptest::prop_assert_eq!(filter.matches_game(&facts), filter.matches_slice(&SliceKey::of(&facts)));
        }
    }

    /// Months of a few years, year-only dates and undated games, as the summaries' tests draw them.
    fn month_of(code: u8) -> Month {
        match code % 40 {
            0 => Month::UNKNOWN,
            c @ 1..=3 => Month::from_date(&format!("{}.??.??", 1995 + u16::from(c))),
            c => Month::from_date(&format!("{}.{:02}.01", 1995 + u16::from(c) / 12, c % 12 + 1)),
        }
    }

    fn bound(code: Option<u8>, until: bool) -> Option<Month> {
        code.map(|code| match month_of(code) {
            Month::UNKNOWN => Month::parse_bound("1996", until).expect("year"),
            month => month,
        })
    }

    fn slice_key(month: u8, speed: u8, band: u8) -> SliceKey {
        let band = if band.is_multiple_of(12) {
            RatingBand::UNRATED
        } else {
            RatingBand::of(Some(2000 + u16::from(band % 12) * 60))
        };
        SliceKey { month: month_of(month), speed: Speed::ALL[usize::from(speed) % Speed::ALL.len()], band }
    }

    proptest::proptest! {
        /// Of a set of slices, a filter keeps all when it says all, none when it says none, and
        /// says one or the other of a single slice.
        #[test]
        fn coverage_agrees_with_each_slice(
            keys in proptest::collection::vec((0u8..80, 0u8..7, 0u8..24), 1..6),
            since in proptest::option::of(0u8..80), until in proptest::option::of(0u8..80),
            speeds in proptest::option::of(0u8..127), bands in proptest::option::of(0u32..u32::MAX),
        ) {
            let filter = Filter { since: bound(since, false), until: bound(until, true), speeds, bands, ..Filter::default() };
            let keys: Vec<SliceKey> = keys.into_iter().map(|(m, s, b)| slice_key(m, s, b)).collect();
            let set = keys.iter().skip(1).fold(singleton(&keys[0]), |set, key| SliceSet {
                first_month: set.first_month.min(key.month),
                last_month: set.last_month.max(key.month),
                speeds: set.speeds | singleton(key).speeds,
                bands: set.bands | singleton(key).bands,
            });
            match filter.covers(&set) {
                Coverage::Included => proptest::prop_assert!(keys.iter().all(|key| filter.matches_slice(key))),
                Coverage::Excluded => proptest::prop_assert!(!keys.iter().any(|key| filter.matches_slice(key))),
                Coverage::Mixed => proptest::prop_assert!(keys.len() > 1),
            }
        }

        /// A position's games summed by slice answer a filter of slices as counting each kept
        /// game on its own does: totals, years, moves, top and recent games, slices.
        #[test]
        fn summaries_answer_as_the_games_counted_one_by_one(
            games in proptest::collection::vec(((0u8..80, 0u8..7, 0u8..24), 0u8..4, proptest::collection::vec(0u16..6, 0..3)), 1..400),
            since in proptest::option::of(0u8..80), until in proptest::option::of(0u8..80),
            speeds in proptest::option::of(0u8..127), bands in proptest::option::of(0u32..u32::MAX),
        ) {
            use crate::{codec::CompactMove, model::{GameId, PositionStats, SliceSummary}};
            let facts_of: Vec<GameFacts> = games.iter().enumerate().map(|(at, &((m, s, b), result, _))| {
                let key = slice_key(m, s, b);
                let rating = key.band.floor();
                GameFacts {
                    id: GameId(at as u64 + 1),
                    result: [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unknown][usize::from(result)],
                    ratings: [rating, rating.map(|r| r + 30)],
                    month: key.month,
                    speed: key.speed,
                }
            }).collect();
            let facts = |id: GameId| facts_of.get(usize::try_from(id.0).ok()?.checked_sub(1)?).copied();
            let moves = [12 | 28 << 6, 11 | 27 << 6, 6 | 21 << 6, 1 | 18 << 6, 10 | 26 << 6, 2 | 20 << 6];
            let mut plays = Vec::new();
            for (at, (_, _, next)) in games.iter().enumerate() {
                let mut next: Vec<CompactMove> = next.iter().filter_map(|&m| CompactMove::from_bits(moves[usize::from(m)])).collect();
                next.sort_unstable();
                next.dedup();
                let id = GameId(at as u64 + 1);
                match next.is_empty() {
                    true => plays.push((id, None)),
                    false => plays.extend(next.into_iter().map(|m| (id, Some(m)))),
                }
            }
            let stats = PositionStats::of_plays(plays, facts).expect("plays in order");
            let filter = Filter { since: bound(since, false), until: bound(until, true), speeds, bands, ..Filter::default() };
            let mut expected = PositionStats::of_kept_games(&stats, facts, |game| filter.matches_game(game)).expect("facts");
            expected.derive_slices(facts).expect("facts");
            expected.games_by_move.clear();
            let summary = SliceSummary::of_games(&stats, facts).expect("facts");
            proptest::prop_assert_eq!(summary.kept(|set| filter.covers(set), true), expected.clone());
            proptest::prop_assert_eq!(summary.kept_tally(|set| filter.covers(set)), expected.total);
            proptest::prop_assert_eq!(stats.kept_tally(facts, |game| filter.matches_game(game)), Some(expected.total));
        }
    }

    fn singleton(key: &SliceKey) -> SliceSet {
        SliceSet {
            first_month: key.month,
            last_month: key.month,
            speeds: 1 << key.speed as u8,
            bands: 1 << key.band.index(),
        }
    }

    #[test]
    fn dates_exclude_undated_games() {
        let f = Filter::default().with_dates(Some("1990"), None).expect("dates");
        let key = |date| SliceKey { month: Month::from_date(date), speed: Speed::Unknown, band: RatingBand::UNRATED };
        assert!(f.matches_slice(&key("1990.??.??")));
        assert!(!f.matches_slice(&key("1989.12.31")));
        assert!(!f.matches_slice(&key("????.??.??")));
        let f = Filter::default().with_dates(None, Some("1990-03")).expect("dates");
        assert!(f.matches_slice(&key("1990.03.31")) && f.matches_slice(&key("1990.??.??")));
        assert!(!f.matches_slice(&key("1990.04.01")) && !f.matches_slice(&key("????.??.??")));
    }
}
