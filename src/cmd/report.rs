//! `tabiya report opening|player|database|psqt`: reports as one HTML file, JSON, or a directory of CSV files.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context as _;
use tabiya::{
    render::report::{Format, Report},
    report::{
        database::{DatabaseOptions, DatabaseReport},
        opening::{OpeningOptions, OpeningReport, Theme},
        player::{PlayerOptions, PlayerReport},
        psqt::PsqtReport,
    },
    store::Store,
};

use super::{
    args::{DbArgs, FilterArgs, GameFilterArgs, TargetArgs, write_output},
    psqt::TablesArgs,
};

#[derive(clap::Subcommand)]
pub enum Command {
    /// A position's games: overview, popularity by year, score by rating, every next move,
    /// theory lines, move orders, themes, endings, players and notable games; exact over
    /// every matching game.
    Opening(OpeningArgs),
    /// A player's games: results overall, by colour, year and opponent rating, repertoire
    /// trees as White and as Black, best wins and worst losses.
    Player(PlayerArgs),
    /// The whole database: totals, games per year, ratings, results, speeds, openings, players,
    /// the endgame frequency table and the most common positions by ply.
    Database(DatabaseArgs),
    /// Piece-square tables: where pieces stand and score, fitted tables, and their
    /// factorisation into bitboard components beside the original.
    Psqt(PsqtArgs),
}

/// Where a report goes.
#[derive(clap::Args, Clone, Debug)]
pub struct Output {
    /// html (one self-contained file), json, or csv (a directory of files; needs -o).
    #[arg(long, default_value = "html", value_name = "FORMAT")]
    pub format: Format,
    /// The file (html, json) or directory (csv) to write; standard output when absent.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl Output {
    fn write(&self, report: &impl Report) -> anyhow::Result<ExitCode> {
        let text = match self.format {
            Format::Html => report.html(),
            Format::Json => report.json(),
            Format::Csv => {
                let dir =
                    self.output.as_ref().context("--format csv writes a directory of files: give it with -o DIR")?;
                std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
                for (name, contents) in report.csv() {
                    let path = dir.join(name);
                    std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))?;
                }
                return Ok(ExitCode::SUCCESS);
            }
        };
        write_output(self.output.as_deref(), &text)?;
        Ok(ExitCode::SUCCESS)
    }
}

#[derive(clap::Args)]
pub struct OpeningArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    filter: FilterArgs,
    /// A second subset put beside the first in the overview and move table, as filter options
    /// in one string: --versus "--min-rating 2600", --versus "--since 2020".
    #[arg(long, value_name = "FILTERS", allow_hyphen_values = true)]
    versus: Option<String>,
    /// Theory lines: plies deep (at most 40).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 8)]
    depth: usize,
    /// Theory lines: how many (one per most played move, at most 12).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 6)]
    lines: usize,
    /// A theme to look for, as a pattern expression (repeatable; see `tabiya search
    /// --pattern`): "count([Qq]) = 0".
    #[arg(long, value_name = "EXPR")]
    theme: Vec<String>,
    /// Leave out the default themes.
    #[arg(long)]
    no_default_themes: bool,
    /// How many plies after the position themes are looked for.
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "PLIES", default_value_t = 40)]
    theme_plies: usize,
    #[command(flatten)]
    output: Output,
}

impl OpeningArgs {
    fn options(&self) -> anyhow::Result<OpeningOptions> {
        let mut options = OpeningOptions::new(self.filter.filter()?);
        options.label = self.filter.describe();
        if let Some(text) = &self.versus {
            let versus = FilterArgs::parse_str(text)?;
            options.versus = Some((versus.filter()?, versus.describe()));
        }
        options.depth = self.depth;
        options.lines = self.lines;
        options.within = self.theme_plies;
        if self.no_default_themes {
            options.themes.clear();
        }
        for expression in &self.theme {
            options
                .themes
                .push(Theme::parse(expression, expression).with_context(|| format!("--theme {expression:?}"))?);
        }
        Ok(options)
    }
}

#[derive(clap::Args)]
pub struct PlayerArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The player: any common spelling ("Carlsen, Magnus", "Carlsen,M", "Magnus Carlsen").
    name: String,
    /// Only the player's games with this colour (white or black).
    #[arg(long, value_name = "COLOR")]
    color: Option<String>,
    #[command(flatten)]
    filter: GameFilterArgs,
    /// Repertoire trees: plies deep (at most 30).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 8)]
    depth: usize,
    /// Repertoire trees: the share of the colour's games (percent) a line needs to be shown.
    #[arg(long, value_name = "PERCENT", default_value_t = 2.0)]
    min_share: f64,
    /// The games reported on: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess (the other variants' games are
    /// only counted).
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    variant: tabiya::position::Variant,
    #[command(flatten)]
    output: Output,
}

#[derive(clap::Args)]
pub struct DatabaseArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Most common positions for plies 1 to N (at most 20).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 10)]
    plies: usize,
    /// Openings and players listed.
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = 30)]
    top: usize,
    /// The games and positions reported on: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess (the other
    /// variants' games are only counted).
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    variant: tabiya::position::Variant,
    #[command(flatten)]
    output: Output,
}

#[derive(clap::Args)]
pub struct PsqtArgs {
    #[command(flatten)]
    tables: TablesArgs,
    #[command(flatten)]
    output: Output,
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Opening(args) => {
            let options = args.options()?;
            let target = args.target.resolve()?;
            let store = Store::open_read_only(&args.db.db)?;
            let report = OpeningReport::build(&store, &target, &options)?;
            args.output.write(&report)
        }
        Command::Player(args) => {
            let mut options = PlayerOptions::new(args.filter.filter()?);
            options.color = args.color.as_deref().map(tabiya::explore::parse_color).transpose()?;
            options.depth = args.depth;
            anyhow::ensure!(
                args.min_share.is_finite() && (0.0..=100.0).contains(&args.min_share),
                "--min-share is a percent, 0 to 100"
            );
            options.min_share = args.min_share;
            options.label = args.filter.describe();
            options.variant = args.variant;
            let store = Store::open_read_only(&args.db.db)?;
            let report = PlayerReport::build(&store, &args.name, &options)?;
            args.output.write(&report)
        }
        Command::Database(args) => {
            let options = DatabaseOptions {
                plies: args.plies,
                top: args.top,
                variant: args.variant,
                ..DatabaseOptions::default()
            };
            let store = Store::open_read_only(&args.db.db)?;
            let report = DatabaseReport::build(&store, &options)?;
            args.output.write(&report)
        }
        Command::Psqt(args) => {
            let (source, tables, derived) = args.tables.load()?;
            let factorisation = args.tables.factorise(&tables);
            let report = PsqtReport { source, tables, derived, factorisation };
            args.output.write(&report)
        }
    }
}
