//! One module per subcommand: argument struct + `run`.

pub mod check;
pub mod demo;
pub mod games;
pub mod ingest;
pub mod key;
pub mod openings;
pub mod query;
pub mod search;
pub mod serve;
pub mod stats;

use std::path::PathBuf;

/// The database directory option every database command takes.
#[derive(clap::Args, Clone, Debug)]
pub struct DbArgs {
    /// Database directory [default: $TABIYA_DB, else ./tabiya-db]
    #[arg(
        long,
        value_name = "DIR",
        env = "TABIYA_DB",
        default_value = "tabiya-db",
        hide_env = true,
        hide_default_value = true
    )]
    pub db: PathBuf,
}
