//! `tabiya serve`: the HTTP API over a database.

use std::{net::SocketAddr, process::ExitCode, time::Duration};

use tabiya::{
    server::{ServeOptions, serve},
    store::Store,
};

use super::args::DbArgs;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on (loopback unless told otherwise; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:9002")]
    bind: SocketAddr,
    /// Seconds between catching up with a process ingesting into the database.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    refresh: f64,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.refresh.is_finite() && args.refresh > 0.0) {
        anyhow::bail!("--refresh must be a positive number of seconds");
    }
    let store = Store::open_secondary(&args.db.db)?;
    let options = ServeOptions { bind: args.bind, refresh: Duration::from_secs_f64(args.refresh) };
    serve(store, options, |addr| {
        // Scripts read this line for the port.
        println!("listening on http://{addr}");
    })?;
    Ok(ExitCode::SUCCESS)
}
