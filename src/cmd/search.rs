//! `tabiya search`: the positions with a given material (`--material`) or matching a pattern
//! (`--pattern`, optionally restricted to a material).

use std::{io::IsTerminal as _, process::ExitCode};

use indicatif::{ProgressBar, ProgressDrawTarget};
use tabiya::{
    explore::{MaterialQuery, PatternQuery, PatternSearch, Signature, parse_color},
    pattern::Pattern,
    render::table,
    store::{ScanProgress, Store},
};

use super::args::{DbArgs, FilterArgs};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Pattern expression, e.g. 'pin(B, n, k)' or 'Pa-h7 and btm' (grammar in docs/GUIDE.md).
    #[arg(long, required_unless_present = "material")]
    pattern: Option<String>,
    /// Material signature, White v Black: KRPPvKR; `P*` means any number of pawns, `P3` three.
    #[arg(long)]
    material: Option<String>,
    /// Only positions with this side to move (w or b).
    #[arg(long)]
    side: Option<String>,
    /// Only positions with exactly these castling rights (FEN field: KQkq, Kq, -, or
    /// Shredder-FEN's rook files for Chess960: HAha, Bg); material search only.
    #[arg(long, conflicts_with = "pattern")]
    castling: Option<String>,
    /// The positions searched: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess.
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    variant: tabiya::position::Variant,
    /// Match the pattern or its colour-flipped mirror.
    #[arg(long, requires = "pattern")]
    flip_colours: bool,
    /// Positions listed, most frequent first.
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, default_value_t = 20)]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Which games count: a position is counted with the games these filters keep, and left
    /// out when they keep none.
    #[command(flatten)]
    filter: FilterArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let side = args.side.as_deref().map(parse_color).transpose()?;
    let signature = args.material.as_deref().map(str::parse::<Signature>).transpose()?;
    let filter = args.filter.filter()?;
    let Some(pattern) = &args.pattern else {
        let query = MaterialQuery {
            signature: signature.ok_or_else(|| anyhow::anyhow!("--material or --pattern is required"))?,
            side,
            castling: args.castling.as_deref().map(MaterialQuery::parse_castling).transpose()?,
            limit: args.limit,
            filter,
            variant: args.variant,
        };
        let store = Store::open_read_only(&args.db.db)?;
        let found = query.run(&store)?;
        if args.json {
            println!("{}", serde_json::to_string(&found)?);
        } else {
            print!("{}", table::material(&found));
        }
        return Ok(ExitCode::SUCCESS);
    };
    let query = PatternQuery {
        pattern: pattern.parse::<Pattern>()?.with_flip(args.flip_colours),
        material: signature,
        side,
        limit: args.limit,
        filter,
        variant: args.variant,
    };
    let store = Store::open_read_only(&args.db.db)?;
    let found = run_with_progress(&query, &store)?;
    if args.json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        print!("{}", table::pattern(&found));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs a pattern scan with a progress bar on a terminal (Ctrl-C stops it as any command).
pub fn run_with_progress(query: &PatternQuery, store: &Store) -> anyhow::Result<PatternSearch> {
    let progress = ScanProgress::default();
    if !std::io::stderr().is_terminal() {
        return Ok(query.run_with(store, &progress)?);
    }
    let bar =
        ProgressBar::with_draw_target(Some(store.snapshot().positions().estimated()), ProgressDrawTarget::stderr());
    let template = "{elapsed_precise} [{bar:25}] {human_pos}/~{human_len} positions";
    let found = super::progress::while_counting(bar, template, &progress.passed, || query.run_with(store, &progress));
    Ok(found?)
}
