//! `tabiya games`: the games that reached a position, a pattern or a sequence of patterns (and
//! other positions, or not others), filtered, paged.

use std::process::ExitCode;

use tabiya::{
    explore::{GameSort, GameSource, GamesQuery, PatternQuery, SequenceQuery, Signature, Target, parse_color},
    pattern::GamePattern,
    render::{pgn, table},
    store::Store,
};

use super::args::{DbArgs, FilterArgs, TargetArgs};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    filter: FilterArgs,
    /// The games reaching any position matching this pattern (instead of one position), or in
    /// which a sequence of positions occurs: seq(A, B) (B after A), seq(A, B, N) (B at most N
    /// plies after A), nested as seq(A, seq(B, C, 2)); each game is listed with the ply of
    /// each step.
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
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, default_value_t = 20)]
    limit: usize,
    /// Games skipped first (paging).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, default_value_t = 0)]
    offset: usize,
    /// Order: id (ingest order), date (newest first: the full date, then the round) or rating (highest average first).
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
    // The positions every game also reached, or never did: in the variant asked about.
    let fen = |fen: &String| Target::fen(fen.as_str()).resolve_in(args.target.variant);
    let mut steps = None;
    // The scans of a pattern or a sequence skip the games the filter refuses.
    let filter = args.filter.filter()?;
    let source = match args.pattern.as_deref().map(str::parse::<GamePattern>).transpose()? {
        Some(GamePattern::Position(pattern)) => GameSource::Pattern(Box::new(PatternQuery {
            pattern: pattern.with_flip(args.flip_colours),
            material: args.material.as_deref().map(str::parse::<Signature>).transpose()?,
            side: args.side.as_deref().map(parse_color).transpose()?,
            limit: 0,
            filter: filter.clone(),
            variant: args.target.variant,
        })),
        Some(GamePattern::Sequence(sequence)) => {
            if args.material.is_some() || args.side.is_some() {
                anyhow::bail!("--material and --side go with a position pattern: put them in a sequence's steps");
            }
            let sequence = sequence.with_flip(args.flip_colours);
            steps = Some(sequence.clone());
            GameSource::Sequence(Box::new(SequenceQuery {
                sequence,
                filter: filter.clone(),
                variant: args.target.variant,
            }))
        }
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
        filter,
        steps,
    };
    let store = Store::open_read_only(&args.db.db)?;
    let page = query.run(&store)?;
    if args.json {
        println!("{}", serde_json::to_string(&page)?);
    } else if args.pgn {
        let annotations = page.annotations(&store.snapshot())?;
        print!("{}", pgn::page(&page, &annotations)?);
    } else {
        print!("{}", table::games(&page));
    }
    Ok(ExitCode::SUCCESS)
}
