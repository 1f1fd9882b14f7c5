//! `tabiya serve`: the HTTP API over a database.

use std::{net::SocketAddr, process::ExitCode, time::Duration};

use tabiya::{
    server::{ScanLimits, ServeOptions, serve},
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
    /// Seconds a client may take to send a request's headers, and a kept-alive connection may
    /// stay idle, before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    header_timeout: f64,
    /// Let pages of this web origin call the API from a browser (CORS), e.g. https://example.org;
    /// `*` for any origin. Repeat for more origins.
    #[arg(long, value_name = "ORIGIN")]
    cors: Vec<String>,
    /// Whole-database scans (pattern searches, their game lists, the database report) run at
    /// once; more wait in a queue.
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = ScanLimits::default().concurrent)]
    max_scans: usize,
    /// Scans waiting for a place; a scan beyond them is refused at once (503, Retry-After).
    #[arg(value_parser = crate::cmd::args::digits::<usize>, long, value_name = "N", default_value_t = ScanLimits::default().queued)]
    scan_queue: usize,
    /// Seconds a scan may take, its wait in the queue included; then it is stopped (503).
    #[arg(long, value_name = "SECONDS", default_value_t = ScanLimits::default().timeout.as_secs_f64())]
    scan_timeout: f64,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let timeouts =
        [("--refresh", args.refresh), ("--header-timeout", args.header_timeout), ("--scan-timeout", args.scan_timeout)];
    for (name, seconds) in timeouts {
        if !(seconds.is_finite() && seconds > 0.0 && seconds < 1e9) {
            anyhow::bail!("{name} must be a positive number of seconds");
        }
    }
    let store = Store::open_secondary(&args.db.db)?;
    let options = ServeOptions {
        bind: args.bind,
        refresh: Duration::from_secs_f64(args.refresh),
        header_timeout: Duration::from_secs_f64(args.header_timeout),
        cors: args.cors,
        scans: ScanLimits {
            concurrent: args.max_scans.max(1),
            queued: args.scan_queue,
            timeout: Duration::from_secs_f64(args.scan_timeout),
            ..ScanLimits::default()
        },
    };
    serve(store, options, |addr| {
        // Scripts read this line for the port.
        println!("listening on http://{addr}");
    })?;
    Ok(ExitCode::SUCCESS)
}
