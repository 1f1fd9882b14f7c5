//! The `tabiya` command line: a thin layer over the library.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// tabiya: a chess position database indexing engine.
#[derive(Parser)]
#[command(version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Encode and decode the embedded sample positions and print their keys.
    Demo(cmd::demo::Args),
    /// Print the key of a position (FEN), or decode a key (--decode HEX).
    Key(cmd::key::Args),
    /// Codec tools.
    #[command(subcommand)]
    Codec(CodecCommand),
}

#[derive(Subcommand)]
enum CodecCommand {
    /// Round-trip every position of EPD/FEN lists or PGN collections through both codecs.
    Check(cmd::check::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args),
        Command::Key(args) => cmd::key::run(args),
        Command::Codec(CodecCommand::Check(args)) => cmd::check::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tabiya: {err:#}");
            ExitCode::FAILURE
        }
    }
}
