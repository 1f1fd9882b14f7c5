//! `tabiya query`: what an opening explorer shows for one position, with filters.

use std::process::ExitCode;

use tabiya::{
    explore::{Explorer, Filter, Limits, QueryError, Target},
    store::Store,
};

use super::DbArgs;

/// The position a command asks about.
#[derive(clap::Args, Clone, Debug)]
pub struct TargetArgs {
    /// The position, as FEN or EPD (the start of --moves/--uci when they are given).
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves from the FEN (or the initial position), as SAN movetext: "1. e4 e5 2. Nf3".
    #[arg(long, conflicts_with = "uci")]
    pub moves: Option<String>,
    /// Moves as UCI, comma-separated: e2e4,e7e5,g1f3.
    #[arg(long)]
    pub uci: Option<String>,
}

impl TargetArgs {
    pub fn resolve(&self) -> Result<Target, QueryError> {
        Target::resolve(self.fen.as_deref(), self.moves.as_deref(), self.uci.as_deref())
    }
}

/// Filters: dates, speeds, ratings, player.
#[derive(clap::Args, Clone, Debug)]
pub struct FilterArgs {
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
    #[arg(long, value_name = "N")]
    pub min_rating: Option<u16>,
    /// Average rating below this (a multiple of 100, at most 3000).
    #[arg(long, value_name = "N")]
    pub max_rating: Option<u16>,
    /// Games of a player whose name starts with NAME (case-insensitive; "carlsen" matches
    /// "Carlsen, Magnus").
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// With --player: only the player's games with this colour (white or black).
    #[arg(long, value_name = "COLOR", requires = "player")]
    pub color: Option<String>,
}

impl FilterArgs {
    pub fn filter(&self) -> Result<Filter, QueryError> {
        let color = self.color.as_deref().map(tabiya::explore::parse_color).transpose()?;
        Filter::default()
            .with_dates(self.since.as_deref(), self.until.as_deref())?
            .with_speeds(self.speed.as_deref())?
            .with_rating_range(self.min_rating, self.max_rating)?
            .with_player(self.player.as_deref(), color)
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    filter: FilterArgs,
    /// Next moves listed, most played first.
    #[arg(long, value_name = "N", default_value_t = 12)]
    max_moves: usize,
    /// Best-rated games listed (at most 15).
    #[arg(long, value_name = "N", default_value_t = 4)]
    top: usize,
    /// Most recent games listed (at most 8).
    #[arg(long, value_name = "N", default_value_t = 4)]
    recent: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = args.target.resolve()?;
    let filter = args.filter.filter()?;
    let store = Store::open_read_only(&args.db.db)?;
    let limits = Limits { moves: args.max_moves, top: args.top, recent: args.recent };
    let answer = Explorer::new(&store).lookup(&target, &filter, &limits)?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        print!("{}", answer.to_table());
    }
    Ok(ExitCode::SUCCESS)
}
