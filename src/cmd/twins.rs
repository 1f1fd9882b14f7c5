//! `tabiya twins`: the games stored more than once (players spelled otherwise, another round, a
//! copy cut short), in groups, each pair with its reason.

use std::{io::IsTerminal as _, process::ExitCode, sync::atomic::AtomicU64, time::Instant};

use indicatif::{ProgressBar, ProgressDrawTarget};
use tabiya::{
    explore::{TwinReport, TwinSearch},
    model::twins::MIN_PREFIX_PLIES,
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Fewest plies of a game whose moves are the start of its twin's (a shorter one may be
    /// another game of the same day); at least 10.
    #[arg(long, default_value_t = MIN_PREFIX_PLIES as u16, value_parser = crate::cmd::args::digits_in::<u16, 10, { u16::MAX as u64 }>)]
    min_prefix: u16,
    /// Groups listed (all are counted).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, default_value_t = 50)]
    limit: usize,
    /// Print JSON: { games, compared, groups: [{ games: [...], pairs: [{ first, second, reason }] }], extraCopies }.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&args.db.db)?;
    let search = TwinSearch { min_prefix: usize::from(args.min_prefix) };
    let started = Instant::now();
    let passed = AtomicU64::new(0);
    let mut found = match std::io::stderr().is_terminal() {
        true => {
            let bar = ProgressBar::with_draw_target(Some(store.totals()?.games), ProgressDrawTarget::stderr());
            let template = "{elapsed_precise} [{bar:25}] {human_pos}/{human_len} games";
            super::progress::while_counting(bar, template, &passed, || search.run(&store, &passed))?
        }
        false => search.run(&store, &passed)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    let total = found.groups.len();
    found.groups.truncate(args.limit);
    if args.json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        print!("{}", table(&found, total));
        eprintln!("tabiya: {} games, {} compared, in {seconds:.1} s", found.games, found.compared);
    }
    Ok(ExitCode::SUCCESS)
}

fn table(found: &TwinReport, total: usize) -> String {
    let mut out = format!("{total} twin groups: {} games stored more than once\n", found.extra_copies);
    for (at, group) in found.groups.iter().enumerate() {
        out += &format!("\ngroup {}:\n", at + 1);
        for game in &group.games {
            out += &format!(
                "  #{:<8} {} – {}  {}  {} round {}  {}  {} plies\n",
                game.id, game.white, game.black, game.date, game.event, game.round, game.result, game.plies
            );
        }
        for pair in &group.pairs {
            out += &format!("  #{} and #{}: {}\n", pair.first, pair.second, pair.reason);
        }
    }
    if found.groups.len() < total {
        out += &format!("\n… {} more groups (--limit, --json)\n", total - found.groups.len());
    }
    out
}
