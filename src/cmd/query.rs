//! `tabiya query`: what an opening explorer shows for one position, with filters.

use std::process::ExitCode;

use tabiya::{
    explore::{Limits, Lookup},
    render::table,
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
    /// Next moves listed, most played first.
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 12)]
    max_moves: usize,
    /// Best-rated games listed (at most 15).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 4)]
    top: usize,
    /// Most recent games listed (at most 8).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 4)]
    recent: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let lookup = Lookup {
        target: args.target.resolve()?,
        filter: args.filter.filter()?,
        limits: Limits { moves: args.max_moves, top: args.top, recent: args.recent, history: false },
    };
    let store = Store::open_read_only(&args.db.db)?;
    let answer = lookup.run(&store)?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        print!("{}", table::answer(&answer));
    }
    Ok(ExitCode::SUCCESS)
}
