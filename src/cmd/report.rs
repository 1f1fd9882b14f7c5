//! `tabiya report psqt`: reports as one HTML file, JSON, or a directory of CSV files.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context as _;
use tabiya::report::{Format, psqt::PsqtReport};

use super::{args::write_output, psqt::TablesArgs};

#[derive(clap::Subcommand)]
pub enum Command {
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
    fn write(
        &self,
        html: impl FnOnce() -> String,
        json: impl FnOnce() -> String,
        csv: impl FnOnce() -> Vec<(String, String)>,
    ) -> anyhow::Result<ExitCode> {
        let text = match self.format {
            Format::Html => html(),
            Format::Json => json(),
            Format::Csv => {
                let dir =
                    self.output.as_ref().context("--format csv writes a directory of files: give it with -o DIR")?;
                std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
                for (name, contents) in csv() {
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
pub struct PsqtArgs {
    #[command(flatten)]
    tables: TablesArgs,
    #[command(flatten)]
    output: Output,
}

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Psqt(args) => {
            let (source, tables, derived) = args.tables.load()?;
            let factorisation = args.tables.factorise(&tables);
            let report = PsqtReport { source, tables, derived, factorisation };
            args.output.write(|| report.html(), || report.json(), || report.csv())
        }
    }
}
