//! `tabiya psqt derive|factorise`: piece-square tables from the database, and their compression
//! into bitboard components (a genetic algorithm: binary components times
//! integer weights).

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context as _;
use tabiya::{
    explore::psqt::{self as derive, DeriveOptions, Derived},
    psqt::{self, Factorisation, FactoriseOptions, FitOptions, PieceTables},
    render,
    store::Store,
};

use super::args::{DbArgs, FilterArgs, write_output};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Piece-square statistics of the database (where pieces stand, how their owners score) and
    /// tables fitted to the game results.
    Derive(DeriveArgs),
    /// Approximate twelve tables as binary components (bitboards) times small integer weights.
    Factorise(FactoriseArgs),
}

/// The database and options of a derivation.
#[derive(clap::Args, Clone, Debug)]
pub struct DeriveSource {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Distinct positions the fit uses, chosen by key hash (0: all).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, default_value_t = 2_000_000, value_name = "N")]
    pub sample: usize,
    /// The positions read: standard, chess960, kingOfTheHill, threeCheck, racingKings, atomic or antichess.
    #[arg(long, value_name = "VARIANT", default_value = "standard")]
    pub variant: tabiya::position::Variant,
    /// Seed of the sample, the fit and the factorisation.
    #[arg(value_parser = crate::cmd::args::digits::<u64>, long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Passes of the fit over the sample.
    #[arg(value_parser = crate::cmd::args::digits::<u32>, long, default_value_t = FitOptions::default().epochs, value_name = "N")]
    pub epochs: u32,
}

impl DeriveSource {
    /// A line saying where the tables come from.
    pub fn describe(&self) -> String {
        let filters = self.filters.describe();
        let sample = if self.sample == 0 {
            "every position".to_owned()
        } else {
            format!("at most {} positions (sampled by key hash)", self.sample)
        };
        format!(
            "Derived from the database {}{} ({filters}); fitted on {sample}, seed {}",
            self.db.db.display(),
            if self.variant == tabiya::position::Variant::Standard {
                String::new()
            } else {
                format!(", its {} positions", self.variant.pgn_name())
            },
            self.seed
        )
    }

    /// Derives from the database.
    pub fn derive(&self) -> anyhow::Result<Derived> {
        let options = DeriveOptions {
            filter: self.filters.filter()?,
            sample: self.sample,
            seed: self.seed,
            fit: FitOptions { epochs: self.epochs, ..FitOptions::default() },
            variant: self.variant,
        };
        options.check()?;
        let store = Store::open_read_only(&self.db.db)?;
        Ok(derive::derive(&store, &options)?)
    }
}

#[derive(clap::Args)]
pub struct DeriveArgs {
    #[command(flatten)]
    source: DeriveSource,
    #[command(flatten)]
    format: Format,
}

/// Output shape and place.
#[derive(clap::Args, Clone, Debug)]
pub struct Format {
    /// Print JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the tables as CSV (phase,piece,value,a1..h8).
    #[arg(long)]
    pub csv: bool,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl Format {
    fn write(&self, text: &str) -> anyhow::Result<ExitCode> {
        write_output(self.output.as_deref(), text)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// The factorisation's options.
#[derive(clap::Args, Clone, Debug)]
pub struct FactoriseOptionArgs {
    /// Components n (1 to 16).
    #[arg(long, default_value_t = 12, value_parser = crate::cmd::args::digits_in::<u8, 1, 16>, value_name = "N")]
    pub components: u8,
    /// Most generations per iteration (an iteration also ends after a quarter of them without
    /// improvement).
    #[arg(value_parser = crate::cmd::args::digits::<u32>, long, default_value_t = FactoriseOptions::default().generations, value_name = "G")]
    pub generations: u32,
    /// Specimens per generation.
    #[arg(long, default_value_t = 32, value_parser = crate::cmd::args::digits_in::<u16, 2, { u16::MAX as u64 }>, value_name = "K")]
    pub population: u16,
    /// Children of the final phase, each mutated from a parent and taken to its nearest optimum
    /// (exact weights and exact rows, alternated); 0: none.
    #[arg(value_parser = crate::cmd::args::digits::<u32>, long, default_value_t = FactoriseOptions::default().polished_children, value_name = "C")]
    pub polished_children: u32,
    /// Do not fold each table's mean into its piece value.
    #[arg(long)]
    pub no_mean_adjust: bool,
    /// Mutate only as the original method does (random bit flips and weight nudges), without the directed
    /// mutations.
    #[arg(long)]
    pub random_only: bool,
}

impl FactoriseOptionArgs {
    /// The options, with `seed`.
    pub fn options(&self, seed: u64) -> FactoriseOptions {
        let population = usize::from(self.population);
        FactoriseOptions {
            components: usize::from(self.components),
            generations: self.generations,
            population,
            elite: (population / 8).max(1),
            seed,
            mean_adjust: !self.no_mean_adjust,
            directed: !self.random_only,
            polished_children: self.polished_children,
        }
    }
}

/// Where tables come from (a CSV file, or derived from the database) and how they are
/// factorised: what `psqt factorise` and `report psqt` share.
#[derive(clap::Args)]
pub struct TablesArgs {
    /// Tables, as CSV (phase,piece,value,a1..h8; PeSTO's shape); without it, the tables
    /// derived from the database.
    #[arg(long, value_name = "TABLES.csv")]
    input: Option<PathBuf>,
    #[command(flatten)]
    source: DeriveSource,
    #[command(flatten)]
    factorise: FactoriseOptionArgs,
}

impl TablesArgs {
    /// A line naming the tables' source, the tables, and their derivation when they were derived.
    pub fn load(&self) -> anyhow::Result<(String, PieceTables, Option<Derived>)> {
        Ok(match &self.input {
            Some(path) => (format!("Tables from {}", path.display()), read_tables(path)?, None),
            None => {
                let derived = self.source.derive()?;
                (self.source.describe(), derived.fit.tables.clone(), Some(derived))
            }
        })
    }

    /// Factorises `tables` with these options.
    pub fn factorise(&self, tables: &PieceTables) -> Factorisation {
        psqt::factorise(tables, &self.factorise.options(self.source.seed))
    }
}

#[derive(clap::Args)]
pub struct FactoriseArgs {
    #[command(flatten)]
    tables: TablesArgs,
    #[command(flatten)]
    format: Format,
}

/// Reads a tables CSV file.
pub fn read_tables(path: &std::path::Path) -> anyhow::Result<PieceTables> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    PieceTables::from_csv(&text).with_context(|| format!("{}", path.display()))
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Derive(args) => {
            let derived = args.source.derive()?;
            let text = if args.format.json {
                serde_json::to_string(&derived)? + "\n"
            } else if args.format.csv {
                derived.fit.tables.to_csv()
            } else {
                render::psqt::derived(&derived)
            };
            args.format.write(&text)
        }
        Command::Factorise(args) => {
            let (_, tables, _) = args.tables.load()?;
            let found = args.tables.factorise(&tables);
            let text = if args.format.json {
                serde_json::to_string(&found)? + "\n"
            } else if args.format.csv {
                found.approximation().to_csv()
            } else {
                render::psqt::factorisation(&found)
            };
            args.format.write(&text)
        }
    }
}
