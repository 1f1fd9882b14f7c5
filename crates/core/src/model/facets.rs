//! What a game is filtered by: its [`Month`], its [`Speed`] and the [`RatingBand`] of its
//! players, gathered in [`GameFacts`]. These are pre-aggregated at ingest (each position keeps
//! its games split by month × speed × band), so filtered lookups read one value instead of the
//! games.

use std::{fmt, str::FromStr};

use super::{GameId, GameResult, Tags};

/// A game's month: `year × 13 + month`, where month 0 means the date gives only the year, and
/// [`Month::UNKNOWN`] (0) a game without a year. Ordered by time, a year-only date first in its
/// year.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month(pub u16);

impl Month {
    /// A game without a year.
    pub const UNKNOWN: Month = Month(0);
    /// The last month a u16 holds.
    pub const MAX: Month = Month(u16::MAX);

    /// The month of `year` (1–12), or the year alone; `None` outside what a u16 holds.
    pub fn new(year: u16, month: Option<u8>) -> Option<Month> {
        let month = u16::from(month.unwrap_or(0));
        (year >= 1 && month <= 12).then(|| year.checked_mul(13)?.checked_add(month).map(Month)).flatten()
    }

    /// From a PGN `Date` tag (`YYYY.MM.DD`, with `??` for unknown parts).
    pub fn from_date(date: &str) -> Month {
        let mut parts = date.trim().split(['.', '-', '/']);
        let year = parts.next().filter(|y| y.len() == 4).and_then(|y| y.parse::<u16>().ok());
        let month = parts.next().and_then(|m| m.parse::<u8>().ok()).filter(|m| (1..=12).contains(m));
        year.and_then(|year| Month::new(year, month)).unwrap_or(Month::UNKNOWN)
    }

    /// The year, when known.
    pub fn year(self) -> Option<u16> {
        (self != Month::UNKNOWN).then_some(self.0 / 13)
    }

    /// The month of the year, 1–12, when known.
    pub fn month(self) -> Option<u8> {
        let month = (self.0 % 13) as u8;
        (self != Month::UNKNOWN && month != 0).then_some(month)
    }

    /// Parses a filter bound, `YYYY` or `YYYY-MM`; `until` makes `YYYY` mean its last month.
    pub fn parse_bound(text: &str, until: bool) -> Result<Month, String> {
        let bad = || format!("bad date {text:?}: expected YYYY or YYYY-MM");
        let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        let (year, month) = match text.trim().split_once(['-', '.']) {
            Some((year, month)) if digits(month) => (year, Some(month.parse::<u8>().map_err(|_| bad())?)),
            Some(_) => return Err(bad()),
            None => (text.trim(), None),
        };
        if !digits(year) {
            return Err(bad());
        }
        let year: u16 = year.parse().map_err(|_| bad())?;
        if !(1..=5000).contains(&year) || month.is_some_and(|m| !(1..=12).contains(&m)) {
            return Err(bad());
        }
        let month = month.or(until.then_some(12));
        Month::new(year, month).ok_or_else(bad)
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.year(), self.month()) {
            (Some(year), Some(month)) => write!(f, "{year:04}-{month:02}"),
            (Some(year), None) => write!(f, "{year:04}"),
            _ => f.write_str("?"),
        }
    }
}

/// A game's speed, from its `TimeControl` tag, with the lichess explorer's classes (estimated
/// duration = base + 40 × increment seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Speed {
    /// Under 30 s.
    UltraBullet = 0,
    /// 30 s to 3 min.
    Bullet = 1,
    /// 3 to 8 min.
    Blitz = 2,
    /// 8 to 25 min.
    Rapid = 3,
    /// 25 min to a day.
    Classical = 4,
    /// A day or more, or `-`.
    Correspondence = 5,
    /// No or unreadable `TimeControl` (most over-the-board collections).
    Unknown = 6,
}

impl Speed {
    /// Every speed, in index order.
    pub const ALL: [Speed; 7] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
        Speed::Unknown,
    ];

    /// The speed of a stored index (its discriminant).
    pub fn from_index(index: u8) -> Option<Speed> {
        Speed::ALL.get(usize::from(index)).copied()
    }

    /// Classifies a `TimeControl` tag: `base+inc`, `moves/seconds[:...]`, `-` (none: taken as
    /// correspondence, as lichess writes it) or `?`.
    pub fn from_time_control(text: &str) -> Speed {
        let text = text.trim();
        if text == "-" {
            return Speed::Correspondence;
        }
        let first = text.split(':').next().unwrap_or("");
        let (moves, rest) = match first.split_once('/') {
            Some((moves, rest)) => (Some(moves), rest),
            None => (None, first),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let (Ok(base), Ok(increment)) = (base.parse::<u64>(), increment.parse::<u64>()) else {
            return Speed::Unknown;
        };
        // `1/259200`-style: days per move.
        if moves.is_some() && base >= 86_400 {
            return Speed::Correspondence;
        }
        match base + 40 * increment {
            0..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            1500..86_400 => Speed::Classical,
            _ => Speed::Correspondence,
        }
    }

    /// The lichess API's name.
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
            Speed::Unknown => "unknown",
        }
    }
}

impl FromStr for Speed {
    type Err = String;

    fn from_str(text: &str) -> Result<Speed, String> {
        let text = text.trim();
        Speed::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(text)).ok_or_else(|| {
            let names: Vec<_> = Speed::ALL.iter().map(|s| s.name()).collect();
            format!("unknown speed {text:?}: expected one of {}", names.join(", "))
        })
    }
}

/// A game's rating band: its average player rating (both players, or the one rated) in steps
/// of [`RatingBand::WIDTH`], from 0 up to [`RatingBand::TOP`] and above; or unrated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RatingBand(u8);

impl RatingBand {
    /// Ratings per band.
    pub const WIDTH: u16 = 100;
    /// Ratings of 3000 and more share the last band.
    pub const TOP: u16 = 3000;
    /// Games without a rated player.
    pub const UNRATED: RatingBand = RatingBand(31);

    /// The band of an average rating (`None`: unrated).
    pub fn of(average: Option<u16>) -> RatingBand {
        match average {
            Some(rating) => RatingBand((rating.min(RatingBand::TOP) / RatingBand::WIDTH) as u8),
            None => RatingBand::UNRATED,
        }
    }

    /// The band of a stored index.
    pub fn from_index(index: u8) -> Option<RatingBand> {
        (index <= RatingBand::UNRATED.0).then_some(RatingBand(index))
    }

    /// The stored index: 0–30 by rating, 31 unrated.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The lowest rating of the band; `None` for unrated.
    pub fn floor(self) -> Option<u16> {
        (self != RatingBand::UNRATED).then(|| u16::from(self.0) * RatingBand::WIDTH)
    }
}

/// What one game contributes to every position it reaches, besides its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameFacts {
    /// The game (0 until the indexer assigns its id).
    pub id: GameId,
    /// How it ended.
    pub result: GameResult,
    /// White's and Black's ratings.
    pub ratings: [Option<u16>; 2],
    /// When it was played.
    pub month: Month,
    /// Its time control's class.
    pub speed: Speed,
}

impl GameFacts {
    /// The facts of game `id` from its result and tags.
    pub fn of(id: GameId, result: GameResult, tags: &Tags) -> GameFacts {
        GameFacts {
            id,
            result,
            ratings: [tags.white_elo, tags.black_elo],
            month: Month::from_date(&tags.date),
            speed: Speed::from_time_control(&tags.time_control),
        }
    }

    /// The average rating of the rated players.
    pub fn average_rating(&self) -> Option<u16> {
        match self.ratings {
            [Some(w), Some(b)] => Some(((u32::from(w) + u32::from(b)).div_ceil(2)) as u16),
            [Some(r), None] | [None, Some(r)] => Some(r),
            [None, None] => None,
        }
    }

    /// The rating band of its average rating.
    pub fn band(&self) -> RatingBand {
        RatingBand::of(self.average_rating())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_from_dates_and_bounds() {
        assert_eq!(Month::from_date("1992.11.04").to_string(), "1992-11");
        assert_eq!(Month::from_date("1992.??.??").to_string(), "1992");
        assert_eq!(Month::from_date("????.??.??"), Month::UNKNOWN);
        assert_eq!(Month::from_date("92.11.04"), Month::UNKNOWN);
        assert!(Month::from_date("1992.??.??") < Month::from_date("1992.01.15"));
        assert!(Month::from_date("1992.12.31") < Month::from_date("1993.??.??"));
        assert_eq!(Month::parse_bound("2001", true), Ok(Month::new(2001, Some(12)).expect("a month")));
        assert_eq!(Month::parse_bound("2001", false), Ok(Month::new(2001, None).expect("a month")));
        assert_eq!(Month::parse_bound("2001-03", false), Ok(Month::new(2001, Some(3)).expect("a month")));
        assert!(Month::parse_bound("2001-13", false).is_err());
        assert!(Month::parse_bound("x", false).is_err());
        assert!(Month::parse_bound("99999", false).is_err());
    }

    #[test]
    fn speeds_from_time_controls() {
        let cases = [
            ("15+0", Speed::UltraBullet),
            ("60+0", Speed::Bullet),
            ("120+1", Speed::Bullet),
            ("180+0", Speed::Blitz),
            ("300+3", Speed::Blitz),
            ("600+5", Speed::Rapid),
            ("900+10", Speed::Rapid),
            ("1800+0", Speed::Classical),
            ("40/7200:3600", Speed::Classical),
            ("1/259200", Speed::Correspondence),
            ("-", Speed::Correspondence),
            ("?", Speed::Unknown),
            ("", Speed::Unknown),
            ("abc", Speed::Unknown),
        ];
        for (text, speed) in cases {
            assert_eq!(Speed::from_time_control(text), speed, "{text}");
        }
        assert_eq!("Blitz".parse::<Speed>(), Ok(Speed::Blitz));
        assert!("fast".parse::<Speed>().is_err());
    }

    #[test]
    fn bands() {
        assert_eq!(RatingBand::of(Some(2449)).floor(), Some(2400));
        assert_eq!(RatingBand::of(Some(3400)).floor(), Some(3000));
        assert_eq!(RatingBand::of(None), RatingBand::UNRATED);
        assert_eq!(RatingBand::of(None).floor(), None);
    }
}
