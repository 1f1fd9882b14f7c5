//! The arguments several commands share: the database, the position, the filters.

use std::{
    io::Write as _,
    path::{Path, PathBuf},
};

use anyhow::Context as _;

use tabiya::explore::{Filter, FilterSpec, QueryError, ResolvedTarget, Target};

/// The database directory option every database command takes.
#[derive(clap::Args, Clone, Debug)]
pub struct DbArgs {
    /// Database directory [default: $TABIYA_DB, else ./tabiya-db]
    #[arg(
        long,
        value_name = "DIR",
        env = "TABIYA_DB",
        default_value = "tabiya-db",
        hide_env = true,
        hide_default_value = true
    )]
    pub db: PathBuf,
}

/// The position a command asks about.
#[derive(clap::Args, Clone, Debug)]
pub struct TargetArgs {
    /// The position, as FEN or EPD (the start of --moves/--uci when they are given).
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves from the FEN (or the initial position), as SAN movetext: "1. e4 e5 2. Nf3".
    #[arg(long, conflicts_with = "uci")]
    pub moves: Option<String>,
    /// Moves as UCI, comma-separated: e2e4,e7e5,g1f3 (Chess960 castling: the king takes its
    /// rook, e1h1).
    #[arg(long)]
    pub uci: Option<String>,
    /// The games' rules: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess (Chess960: X-FEN or Shredder-FEN in
    /// --fen; without a FEN, the variant's start).
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    pub variant: tabiya::position::Variant,
}

impl TargetArgs {
    /// The position asked about, found (clap refuses --moves with --uci).
    pub fn resolve(&self) -> Result<ResolvedTarget, QueryError> {
        Target::of(self.fen.clone(), self.moves.clone(), self.uci.clone())?.resolve_in(self.variant)
    }
}

/// Filters on the games themselves: dates, speeds, ratings, headers.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GameFilterArgs {
    /// Games from this year or month on (YYYY or YYYY-MM).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Games up to this year or month (YYYY or YYYY-MM).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Speeds, comma-separated: ultraBullet, bullet, blitz, rapid, classical, correspondence,
    /// unknown (from the TimeControl tag).
    #[arg(long, value_name = "LIST")]
    pub speed: Option<String>,
    /// Lowest average rating of the two players (a multiple of 100).
    #[arg(value_parser = crate::cmd::args::digits::<u16>, long, value_name = "N")]
    pub min_rating: Option<u16>,
    /// Average rating below this (a multiple of 100, at most 3000).
    #[arg(value_parser = crate::cmd::args::digits::<u16>, long, value_name = "N")]
    pub max_rating: Option<u16>,
    /// Both players rated N or more (any N; games with an unrated player are left out).
    #[arg(value_parser = crate::cmd::args::digits::<u16>, long, value_name = "N")]
    pub min_elo: Option<u16>,
    /// Both players rated N or less.
    #[arg(value_parser = crate::cmd::args::digits::<u16>, long, value_name = "N")]
    pub max_elo: Option<u16>,
    /// Games whose Event tag contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub event: Option<String>,
    /// Games whose Site tag contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub site: Option<String>,
    /// Games with this result: 1-0, 0-1, 1/2-1/2 or *.
    #[arg(long, value_name = "RESULT", allow_hyphen_values = true)]
    pub result: Option<String>,
    /// Games with an ECO tag of this code or range of codes (B90, B20-B99).
    #[arg(long, value_name = "CODES")]
    pub eco: Option<String>,
    /// Games played on this day or later (YYYY, YYYY-MM or YYYY-MM-DD); a partly unknown date
    /// counts when every day it may be is within the range.
    #[arg(long, value_name = "DATE")]
    pub date_from: Option<String>,
    /// Games played on this day or earlier (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub date_to: Option<String>,
    /// Games of at least N plies.
    #[arg(value_parser = crate::cmd::args::digits::<u32>, long, value_name = "N")]
    pub min_plies: Option<u32>,
}

impl GameFilterArgs {
    /// The filters as the library takes them.
    pub fn spec(&self) -> FilterSpec {
        FilterSpec {
            since: self.since.clone(),
            until: self.until.clone(),
            speed: self.speed.clone(),
            min_rating: self.min_rating,
            max_rating: self.max_rating,
            min_elo: self.min_elo,
            max_elo: self.max_elo,
            event: self.event.clone(),
            site: self.site.clone(),
            result: self.result.clone(),
            eco: self.eco.clone(),
            date_from: self.date_from.clone(),
            date_to: self.date_to.clone(),
            min_plies: self.min_plies,
            ..FilterSpec::default()
        }
    }

    pub fn filter(&self) -> Result<Filter, QueryError> {
        self.spec().filter()
    }

    /// The filters in words: `since 2020, rating 2600+`, or `all games`.
    pub fn describe(&self) -> String {
        self.spec().describe()
    }
}

/// Filters: dates, speeds, ratings, player.
#[derive(clap::Args, Clone, Debug)]
pub struct FilterArgs {
    #[command(flatten)]
    pub games: GameFilterArgs,
    /// Games of the player NAME, by any common spelling ("Carlsen", "Carlsen, M", "Magnus
    /// Carlsen"); a name several players share is refused with the list (tabiya players search).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// With --player: only the player's games with this colour (white or black).
    #[arg(long, value_name = "COLOR", requires = "player")]
    pub color: Option<String>,
    /// With --player: only the games against the player NAME (with the other colour).
    #[arg(long, value_name = "NAME", requires = "player")]
    pub opponent: Option<String>,
}

/// A second set of filters given as one string (`--versus "--min-rating 2600"`).
#[derive(clap::Parser)]
#[command(name = "--versus", no_binary_name = true, disable_help_flag = true)]
struct VersusArgs {
    #[command(flatten)]
    filter: FilterArgs,
}

impl FilterArgs {
    /// Parses filters written as command-line options in one string, quoted as a shell would.
    pub fn parse_str(text: &str) -> anyhow::Result<FilterArgs> {
        let words = shlex::split(text).with_context(|| format!("unbalanced quotes in {text:?}"))?;
        let parsed = <VersusArgs as clap::Parser>::try_parse_from(words)
            .map_err(|err| anyhow::anyhow!("in {text:?}: {}", err.render().to_string().trim()))?;
        Ok(parsed.filter)
    }

    /// The filters as the library takes them.
    pub fn spec(&self) -> FilterSpec {
        FilterSpec {
            player: self.player.clone(),
            color: self.color.clone(),
            opponent: self.opponent.clone(),
            ..self.games.spec()
        }
    }

    /// The filters in words: `since 2020, rating 2600+, Carlsen, Magnus with white`, or `all games`.
    pub fn describe(&self) -> String {
        self.spec().describe()
    }

    pub fn filter(&self) -> Result<Filter, QueryError> {
        self.spec().filter()
    }
}

/// Writes a command's output to `path`, or to standard output (a reader that stops early, such
/// as `head`, is not an error).
pub fn write_output(path: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match path {
        Some(path) => std::fs::write(path, text).with_context(|| format!("writing {}", path.display())),
        None => match std::io::stdout().lock().write_all(text.as_bytes()) {
            Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err).context("writing standard output"),
            _ => Ok(()),
        },
    }
}

/// clap's parser for a count, a rating or a ply: digits alone (`+5`, ` 5` and `5.0` are
/// refused, as the HTTP API refuses them), of any size `T` holds.
pub fn digits<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    digits_in::<T, 0, { u64::MAX }>(text)
}

/// [`digits`] from `MIN` to `MAX`.
pub fn digits_in<T: TryFrom<u64>, const MIN: u64, const MAX: u64>(text: &str) -> Result<T, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("a number is written with digits alone".to_owned());
    }
    let too_large = || format!("the largest is {}", largest::<T>(MAX));
    let number: u64 = text.parse().map_err(|_| too_large())?;
    if number < MIN {
        return Err(format!("the smallest is {MIN}"));
    }
    match number <= MAX {
        true => T::try_from(number).map_err(|_| too_large()),
        false => Err(too_large()),
    }
}

/// The largest number up to `max` that `T` holds (`T` holds 0).
fn largest<T: TryFrom<u64>>(max: u64) -> u64 {
    let (mut holds, mut beyond) = (0, max);
    if T::try_from(max).is_ok() {
        return max;
    }
    while beyond - holds > 1 {
        let middle = holds + (beyond - holds) / 2;
        match T::try_from(middle).is_ok() {
            true => holds = middle,
            false => beyond = middle,
        }
    }
    holds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_digits_alone_within_their_bounds() {
        assert_eq!(digits::<u16>("2700"), Ok(2700));
        assert_eq!(digits::<usize>("0"), Ok(0));
        for bad in ["+5", " 5", "5 ", "5.0", "-1", "", "0x10", "５"] {
            assert_eq!(digits::<u32>(bad), Err("a number is written with digits alone".to_owned()), "{bad:?}");
        }
        assert_eq!(digits::<u16>("65536"), Err("the largest is 65535".to_owned()));
        assert_eq!(digits::<u8>("300"), Err("the largest is 255".to_owned()));
        assert_eq!(digits::<u64>("99999999999999999999"), Err(format!("the largest is {}", u64::MAX)));
        assert_eq!(digits_in::<u16, 10, 300>("9"), Err("the smallest is 10".to_owned()));
        assert_eq!(digits_in::<u16, 10, 300>("301"), Err("the largest is 300".to_owned()));
        assert_eq!(digits_in::<u8, 1, 16>("16"), Ok(16));
    }
}
