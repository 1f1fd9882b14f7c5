//! The header facts a game is filtered by beyond its [`GameFacts`](super::GameFacts): the day of
//! its date, its ECO code, its length, and hashes of its `Event` and `Site` tags
//! ([`GameHeaders`]); and the bounds filters compare them with ([`Eco`], [`Day`]).
//!
//! Event and site texts are matched as substrings, on the distinct texts rather than on every
//! game: a game keeps a 32-bit [`LabelHash`] of each, and the database lists each distinct text
//! once under its hash.

use std::fmt;

use super::{Month, Tags};

/// Longest game length a [`GameHeaders`] tells apart, in plies: longer games count as this.
pub const MAX_PLIES: u16 = (1 << 14) - 1;

/// A code of the ECO classification, `A00` to `E99`.
///
/// ```
/// use tabiya_core::model::Eco;
///
/// let eco: Eco = "B90".parse()?;
/// assert_eq!(eco.to_string(), "B90");
/// assert!(eco < "C00".parse()?);
/// assert!("F00".parse::<Eco>().is_err());
/// # Ok::<_, String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Eco(u16);

impl Eco {
    /// Codes in all (`A00` is 0, `E99` is 499).
    pub const COUNT: u16 = 500;

    /// The code of number `index` (0–499).
    pub fn from_index(index: u16) -> Option<Eco> {
        (index < Eco::COUNT).then_some(Eco(index))
    }

    /// Its number, 0–499.
    pub fn index(self) -> u16 {
        self.0
    }

    /// The code of an `ECO` tag; `None` for anything but a letter A–E and two digits (spaces
    /// around are allowed, and a lower-case letter).
    pub fn from_tag(tag: &str) -> Option<Eco> {
        tag.trim().parse().ok()
    }

    /// Parses `B90` or a range `B20-B99` (ends included); a range the wrong way round is refused.
    pub fn parse_range(text: &str) -> Result<(Eco, Eco), String> {
        let (low, high) = match text.split_once('-') {
            Some((low, high)) => (low.parse::<Eco>()?, high.parse::<Eco>()?),
            None => {
                let code = text.parse::<Eco>()?;
                (code, code)
            }
        };
        if low > high {
            return Err(format!("bad ECO range {text:?}: {low} comes after {high}"));
        }
        Ok((low, high))
    }
}

impl std::str::FromStr for Eco {
    type Err = String;

    fn from_str(text: &str) -> Result<Eco, String> {
        let bad = || format!("bad ECO code {text:?}: expected a letter A-E and two digits (B90)");
        let bytes = text.trim().as_bytes();
        let [letter, tens, units] = bytes else { return Err(bad()) };
        let letter = letter.to_ascii_uppercase();
        if !(b'A'..=b'E').contains(&letter) || !tens.is_ascii_digit() || !units.is_ascii_digit() {
            return Err(bad());
        }
        Ok(Eco(u16::from(letter - b'A') * 100 + u16::from(tens - b'0') * 10 + u16::from(units - b'0')))
    }
}

impl fmt::Display for Eco {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:02}", char::from(b'A' + (self.0 / 100) as u8), self.0 % 100)
    }
}

/// A 32-bit hash of an `Event` or `Site` text, as a game stores it: the database lists each
/// distinct text under its hash, so that a text filter is matched once per distinct text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelHash(pub u32);

impl LabelHash {
    /// The hash of `text` (exactly as the tag gives it).
    pub fn of(text: &str) -> LabelHash {
        LabelHash(xxhash_rust::xxh3::xxh3_64(text.as_bytes()) as u32)
    }
}

/// Which tag a label is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelKind {
    /// The `Event` tag.
    Event,
    /// The `Site` tag.
    Site,
}

impl LabelKind {
    /// Both kinds.
    pub const ALL: [LabelKind; 2] = [LabelKind::Event, LabelKind::Site];

    /// The tag's text in `tags`.
    pub fn of(self, tags: &Tags) -> &str {
        match self {
            LabelKind::Event => &tags.event,
            LabelKind::Site => &tags.site,
        }
    }
}

/// What a game is filtered by beyond its facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameHeaders {
    /// The day of the month of its `Date` tag (1–31), when given.
    pub day: Option<u8>,
    /// Its `ECO` tag, when a valid code.
    pub eco: Option<Eco>,
    /// Its length in plies, at most [`MAX_PLIES`].
    pub plies: u16,
    /// The hash of its `Event` tag.
    pub event: LabelHash,
    /// The hash of its `Site` tag.
    pub site: LabelHash,
}

impl GameHeaders {
    /// The header facts of a game of `plies` plies with `tags`.
    pub fn of(tags: &Tags, plies: usize) -> GameHeaders {
        GameHeaders {
            day: Day::day_of(&tags.date),
            eco: Eco::from_tag(&tags.eco),
            plies: u16::try_from(plies).unwrap_or(MAX_PLIES).min(MAX_PLIES),
            event: LabelHash::of(&tags.event),
            site: LabelHash::of(&tags.site),
        }
    }

    /// The label hash of `kind`.
    pub fn label(&self, kind: LabelKind) -> LabelHash {
        match kind {
            LabelKind::Event => self.event,
            LabelKind::Site => self.site,
        }
    }
}

/// A day, `YYYY-MM-DD`, comparable; date filters hold two of these.
///
/// A game whose date is partly unknown (`1990.??.??`) spans every day it may have been played
/// ([`Day::span`]): a date filter keeps it only when the whole span is within the range.
///
/// ```
/// use tabiya_core::model::{Day, Month};
///
/// let from = Day::parse_bound("1990-03", false)?;
/// let to = Day::parse_bound("1990", true)?;
/// assert_eq!((from.to_string(), to.to_string()), ("1990-03-01".to_owned(), "1990-12-31".to_owned()));
/// let (first, last) = Day::span(Month::from_date("1990.03.??"), None).expect("dated");
/// assert!(first >= from && last <= to);
/// # Ok::<_, String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(u32);

impl Day {
    fn new(year: u16, month: u8, day: u8) -> Day {
        Day(u32::from(year) << 9 | u32::from(month) << 5 | u32::from(day))
    }

    /// The day of the month of a PGN `Date` tag (`YYYY.MM.DD`), when its month and day are given
    /// and valid.
    pub fn day_of(date: &str) -> Option<u8> {
        let mut parts = date.trim().split(['.', '-', '/']);
        let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
        let year: u16 = year.parse().ok()?;
        let month: u8 = month.parse().ok().filter(|m| (1..=12).contains(m))?;
        day.parse::<u8>().ok().filter(|d| (1..=days_in_month(year, month)).contains(d))
    }

    /// The first and last day a game of `month` and `day` may have been played; `None` when
    /// undated.
    pub fn span(month: Month, day: Option<u8>) -> Option<(Day, Day)> {
        let year = month.year()?;
        Some(match (month.month(), day) {
            (Some(m), Some(d)) => (Day::new(year, m, d), Day::new(year, m, d)),
            (Some(m), None) => (Day::new(year, m, 1), Day::new(year, m, days_in_month(year, m))),
            (None, _) => (Day::new(year, 1, 1), Day::new(year, 12, 31)),
        })
    }

    /// Parses a filter bound, `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (or with dots); `to` makes a
    /// year or month mean its last day.
    pub fn parse_bound(text: &str, to: bool) -> Result<Day, String> {
        let bad = || format!("bad date {text:?}: expected YYYY, YYYY-MM or YYYY-MM-DD");
        let mut parts = text.trim().split(['-', '.']);
        let year: u16 = parts.next().and_then(|y| y.parse().ok()).filter(|y| (1..=5000).contains(y)).ok_or_else(bad)?;
        let month = parts.next().map(|m| m.parse::<u8>().ok().filter(|m| (1..=12).contains(m)).ok_or_else(bad));
        let month = month.transpose()?;
        let day = match (month, parts.next()) {
            (Some(m), Some(d)) => {
                Some(d.parse::<u8>().ok().filter(|d| (1..=days_in_month(year, m)).contains(d)).ok_or_else(bad)?)
            }
            _ => None,
        };
        if parts.next().is_some() {
            return Err(bad());
        }
        let month = month.unwrap_or(if to { 12 } else { 1 });
        let day = day.unwrap_or(if to { days_in_month(year, month) } else { 1 });
        Ok(Day::new(year, month, day))
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.0 >> 9, self.0 >> 5 & 15, self.0 & 31)
    }
}

/// Days in a month of a year (Gregorian leap years).
fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eco_codes_and_ranges() {
        for index in 0..Eco::COUNT {
            let eco = Eco::from_index(index).expect("in range");
            assert_eq!(eco.to_string().parse::<Eco>(), Ok(eco));
        }
        assert_eq!(Eco::from_tag(" c42 ").map(|e| e.to_string()).as_deref(), Some("C42"));
        for bad in ["", "B9", "B900", "F00", "?", "B9x", "Б90"] {
            assert_eq!(Eco::from_tag(bad), None, "{bad:?}");
        }
        let (low, high) = Eco::parse_range("A00-B99").expect("a range");
        assert_eq!((low.index(), high.index()), (0, 199));
        assert!(Eco::parse_range("C50-C20").is_err());
        assert!(Eco::parse_range("C50-").is_err());
    }

    #[test]
    fn dates_and_spans() {
        assert_eq!(Day::day_of("1990.03.15"), Some(15));
        assert_eq!(Day::day_of("1990.03.??"), None);
        assert_eq!(Day::day_of("1990.02.30"), None);
        assert_eq!(Day::day_of("1990"), None);
        let bound = |text, to| Day::parse_bound(text, to).map(|d| d.to_string());
        assert_eq!(bound("2001.4.7", false).as_deref(), Ok("2001-04-07"));
        assert_eq!(bound("2001-02", true).as_deref(), Ok("2001-02-28"));
        assert_eq!(bound("2000-02", true).as_deref(), Ok("2000-02-29"));
        assert!(Day::parse_bound("1900-02-29", false).is_err());
        assert_eq!(Day::day_of("2004.02.29"), Some(29));
        for bad in ["", "20x1", "2001-13", "2001-04-31", "2001-04-07-1", "0"] {
            assert!(Day::parse_bound(bad, false).is_err(), "{bad:?}");
        }
        let (first, last) = Day::span(Month::from_date("1990.??.??"), None).expect("dated");
        assert_eq!((first.to_string(), last.to_string()), ("1990-01-01".to_owned(), "1990-12-31".to_owned()));
        assert_eq!(Day::span(Month::UNKNOWN, Some(3)), None);
    }
}
