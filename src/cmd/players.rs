//! `tabiya players search NAME`: the players a name may be, with every spelling the games use
//! and its games, and the one a player filter would choose.

use std::process::ExitCode;

use tabiya::{
    explore::{PlayerMatch, Spelling, find_players},
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Subcommand)]
pub enum Command {
    /// The players NAME may be (any common spelling: "Kasparov, Garry", "Kasparov,G", "Garry
    /// Kasparov", accents or not), each with its spellings and games.
    Search(SearchArgs),
}

#[derive(clap::Args)]
pub struct SearchArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The name.
    name: String,
    /// Print JSON: { query, players: [{ name, games, spellings: [{ name, white, black }] }], unsure }.
    #[arg(long)]
    json: bool,
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    let Command::Search(args) = command;
    let store = Store::open_read_only(&args.db.db)?;
    let found = find_players(&store.snapshot(), &args.name)?;
    if args.json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        print!("{}", table(&found));
    }
    Ok(ExitCode::SUCCESS)
}

fn table(found: &PlayerMatch) -> String {
    let mut out = match found.players.len() {
        0 => format!("{:?} matches no player\n", found.query),
        1 => format!("{:?} matches one player, chosen by --player:\n", found.query),
        n => format!("{:?} matches {n} players (a player filter asks for more of the name):\n", found.query),
    };
    let width = found
        .players
        .iter()
        .flat_map(|p| &p.spellings)
        .chain(&found.unsure)
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let line = |s: &Spelling| format!("    {:width$}  {:>7} with White  {:>7} with Black\n", s.name, s.white, s.black);
    for player in &found.players {
        out += &format!("\n  {}: {} games\n", player.name, player.games);
        out.extend(player.spellings.iter().map(line));
    }
    if !found.unsure.is_empty() {
        out += "\n  spellings that may be more than one of them (left out):\n";
        out.extend(found.unsure.iter().map(line));
    }
    out
}
