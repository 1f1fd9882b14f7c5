//! `tabiya query [--db DIR] --fen FEN [--json]`: the statistics stored for one position.

use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use shakmaty::san::San;
use tabiya::{
    Key, Position,
    store::{PositionStats, Store, Tally},
};

use super::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// The position, as FEN or EPD.
    #[arg(long)]
    fen: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let position: Position = args.fen.parse()?;
    let key = Key::encode(&position).with_context(|| format!("position {position} has no key"))?;
    let store = Store::open_read_only(&args.db.db)?;
    let stats = store.position(&key)?.unwrap_or_default();
    print(&position, &stats, args.json);
    Ok(ExitCode::SUCCESS)
}

/// Prints a position's statistics as a table or JSON.
pub fn print(position: &Position, stats: &PositionStats, as_json: bool) {
    let mut moves: Vec<_> = stats
        .moves
        .iter()
        .map(|(m, tally)| {
            let san = m.to_move(position.chess()).map(|m| San::from_move(position.chess(), m).to_string());
            (m.to_string(), san.unwrap_or_default(), tally)
        })
        .collect();
    moves.sort_by(|a, b| b.2.games.cmp(&a.2.games).then_with(|| a.0.cmp(&b.0)));
    let year = |y: u16| (y != 0).then_some(y);
    if as_json {
        let moves: Vec<_> = moves
            .iter()
            .map(|(uci, san, t)| {
                json!({ "uci": uci, "san": san, "games": t.games, "white": t.white, "draws": t.draws,
                        "black": t.black, "averageRating": t.average_rating() })
            })
            .collect();
        let t = &stats.total;
        println!(
            "{}",
            json!({ "fen": position.to_string(), "games": t.games, "white": t.white, "draws": t.draws,
                    "black": t.black, "averageRating": t.average_rating(),
                    "minYear": year(stats.min_year), "maxYear": year(stats.max_year), "moves": moves })
        );
        return;
    }
    println!("{position}");
    let years = match (year(stats.min_year), year(stats.max_year)) {
        (Some(a), Some(b)) => format!(", {a}-{b}"),
        _ => String::new(),
    };
    println!("{}{years}", describe(&stats.total));
    for (uci, san, tally) in &moves {
        println!("  {san:<8} {uci:<6} {}", describe(tally));
    }
}

fn describe(t: &Tally) -> String {
    let pct = |n: u64| if t.games == 0 { 0.0 } else { 100.0 * n as f64 / t.games as f64 };
    let rating = t.average_rating().map_or(String::new(), |r| format!(", average rating {r}"));
    format!(
        "{} games: white {:.1}%, draws {:.1}%, black {:.1}%{rating}",
        t.games,
        pct(t.white),
        pct(t.draws),
        pct(t.black)
    )
}
