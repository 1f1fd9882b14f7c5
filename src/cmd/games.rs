//! `tabiya games`: the games that reached a position or a pattern (and other positions, or not
//! others), paged.

use std::process::ExitCode;

use tabiya::{
    explore::{GameSort, GameSource, GamesQuery, PatternQuery, Signature, Target, parse_color},
    pattern::Pattern,
    render::{pgn, table},
    store::Store,
};

use super::args::{DbArgs, TargetArgs};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    target: TargetArgs,
    /// The games reaching any position matching this pattern (instead of one position).
    #[arg(long, conflicts_with_all = ["fen", "moves", "uci"])]
    pattern: Option<String>,
    /// With --pattern: match the pattern or its colour-flipped mirror.
    #[arg(long, requires = "pattern")]
    flip_colours: bool,
    /// With --pattern: only positions with this material signature (KRPPvKR, KRP*vKRP*).
    #[arg(long, requires = "pattern")]
    material: Option<String>,
    /// With --pattern: only positions with this side to move (w or b).
    #[arg(long, requires = "pattern")]
    side: Option<String>,
    /// Only games that also reached this position (FEN; repeatable).
    #[arg(long, value_name = "FEN")]
    and: Vec<String>,
    /// Only games that never reached this position (FEN; repeatable).
    #[arg(long, value_name = "FEN")]
    not: Vec<String>,
    /// Games listed.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Games skipped first (paging).
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// Order: id (ingest order), date (newest first) or rating (highest average first).
    #[arg(long, default_value = "id")]
    sort: String,
    /// Print JSON: {"total", "games": [{id, white, black, whiteElo, blackElo, date, event, site,
    /// round, result}]}.
    #[arg(long, conflicts_with = "pgn")]
    json: bool,
    /// Print the games as PGN (headers and mainline).
    #[arg(long)]
    pgn: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let fen = |fen: &String| Target::fen(fen.as_str()).resolve();
    let source = match &args.pattern {
        Some(pattern) => GameSource::Pattern(Box::new(PatternQuery {
            pattern: pattern.parse::<Pattern>()?.with_flip(args.flip_colours),
            material: args.material.as_deref().map(str::parse::<Signature>).transpose()?,
            side: args.side.as_deref().map(parse_color).transpose()?,
            limit: 0,
        })),
        None => GameSource::Position(args.target.resolve()?),
    };
    let query = GamesQuery {
        source,
        and: args.and.iter().map(fen).collect::<Result<_, _>>()?,
        not: args.not.iter().map(fen).collect::<Result<_, _>>()?,
        sort: args.sort.parse::<GameSort>()?,
        offset: args.offset,
        limit: args.limit,
        max_sorted: usize::MAX,
    };
    let store = Store::open_read_only(&args.db.db)?;
    let page = query.run(&store)?;
    if args.json {
        println!("{}", serde_json::to_string(&page)?);
    } else if args.pgn {
        print!("{}", pgn::page(&page)?);
    } else {
        print!("{}", table::games(&page));
    }
    Ok(ExitCode::SUCCESS)
}
