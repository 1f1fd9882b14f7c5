//! The explorer page (`/`, `page.rs`) and the HTTP API: the lichess opening explorer's
//! endpoints and shapes (`/masters`, `/lichess`, `/player`, `/masters/pgn/{id}`) over a tabiya
//! database, plus `/move`, `/game/{id}`, `/games`, `/games.pgn`, `/material`, `/pattern`,
//! `/report/opening`, `/report/player`, `/report/database`, `/stats` and `/health`.
//!
//! The database is opened as a RocksDB secondary, so the server keeps answering while another
//! process ingests; every [`ServeOptions::refresh`] it catches up with what that process has
//! committed (a commit's games and positions become visible together, never half of one).

mod budget;
mod handlers;
mod page;
mod params;

pub use budget::ScanLimits;

use std::{
    collections::VecDeque,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{Router, routing::get};

use crate::{explore::QueryError, model::GameId, store::Store};

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The address to listen on.
    pub bind: SocketAddr,
    /// How often to catch up with a writer.
    pub refresh: Duration,
    /// How long a client may take to send a request's headers, and a kept-alive connection
    /// may stay idle, before it is closed (a slow client would otherwise hold it for ever).
    pub header_timeout: Duration,
    /// Web origins whose pages may call the API from the browser (CORS; `*` for any), as
    /// lichess's explorer allows behind a flag; none by default.
    pub cors: Vec<String>,
    /// The budget of whole-database scans.
    pub scans: ScanLimits,
}

/// Shared by all requests.
pub struct AppState {
    /// The database, opened as a secondary.
    pub store: Store,
    /// The game lists of recent pattern searches.
    pub pattern_games: PatternGames,
    /// Whole-database scans: how many, how long.
    pub scans: Arc<budget::ScanBudget>,
}

/// The game lists of the last few `/games?pattern=` searches, so that paging through them scans
/// the database once, not once a page. Entries are keyed by the parsed search and by the
/// database's next game id, so a list found before the server caught up with an ingest is not
/// served after it. Concurrent requests for one search wait for the first one's scan.
#[derive(Default)]
pub struct PatternGames(Mutex<VecDeque<(String, Arc<GameList>)>>);

/// One kept list: empty until its first scan ends (the lock is held during that scan).
type GameList = Mutex<Option<Arc<[GameId]>>>;

impl PatternGames {
    /// Lists kept.
    const KEPT: usize = 8;
    /// Longest list kept (8 MB of ids); longer ones are found again for each page.
    const MAX_GAMES: usize = 1 << 20;

    /// The list kept under `key`, or the one `scan` finds (then kept, the oldest dropped).
    pub fn get_or_scan(
        &self,
        key: String,
        scan: impl FnOnce() -> Result<Vec<GameId>, QueryError>,
    ) -> Result<Arc<[GameId]>, QueryError> {
        let slot = {
            let mut lists = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match lists.iter().find(|(k, _)| *k == key) {
                Some((_, slot)) => Arc::clone(slot),
                None => {
                    if lists.len() == Self::KEPT {
                        lists.pop_front();
                    }
                    let slot: Arc<GameList> = Arc::new(Mutex::new(None));
                    lists.push_back((key, Arc::clone(&slot)));
                    slot
                }
            }
        };
        // Held during the scan: a second request for the same list waits for it.
        let mut kept = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(ids) = &*kept {
            return Ok(Arc::clone(ids));
        }
        let ids: Arc<[GameId]> = scan()?.into();
        if ids.len() <= Self::MAX_GAMES {
            *kept = Some(Arc::clone(&ids));
        }
        Ok(ids)
    }
}

/// The API's routes over `state`.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(page::index))
        .route("/page/{file}", get(page::module))
        .route("/app.css", get(page::style))
        .route("/move", get(page::board))
        .route("/game/{id}", get(page::game))
        .route("/player", get(handlers::player))
        .route("/masters", get(handlers::masters))
        .route("/lichess", get(handlers::lichess))
        .route("/masters/pgn/{id}", get(handlers::game_pgn))
        .route("/games", get(handlers::games))
        .route("/games.pgn", get(handlers::games_pgn))
        .route("/material", get(handlers::material))
        .route("/pattern", get(handlers::pattern))
        .route("/report/opening", get(handlers::opening_report))
        .route("/report/player", get(handlers::player_report))
        .route("/report/database", get(handlers::database_report))
        .route("/stats", get(handlers::totals))
        .route("/players", get(handlers::players))
        .route("/book.bin", get(handlers::book))
        .route("/health", get(handlers::health))
        .fallback(handlers::not_found)
        .with_state(state)
}

/// Serves `store` until Ctrl-C or SIGTERM; `ready` is called with the bound address (the port
/// may have been chosen by the system).
pub fn serve(store: Store, options: ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(ServeError::Io)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.bind)
            .await
            .map_err(|source| ServeError::Bind { addr: options.bind, source })?;
        let addr = listener.local_addr().map_err(ServeError::Io)?;
        let scans = Arc::new(budget::ScanBudget::new(options.scans.clone()).map_err(ServeError::Io)?);
        let state = Arc::new(AppState { store, pattern_games: PatternGames::default(), scans });
        let refresher = Arc::clone(&state);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(options.refresh);
            loop {
                ticks.tick().await;
                let state = Arc::clone(&refresher);
                if let Ok(Err(err)) = tokio::task::spawn_blocking(move || state.store.catch_up()).await {
                    tracing::warn!("catching up with the writer: {err}");
                }
            }
        });
        let stop = stop_signal().map_err(ServeError::Io)?;
        let app = cors(router(state), &options.cors)?;
        ready(addr);
        accept(listener, app, options.header_timeout, stop).await;
        Ok(())
    })
}

/// The API answering the pages of `origins` (CORS: preflight `OPTIONS` requests answered,
/// `Access-Control-Allow-Origin` on every answer to them); unchanged when there are none.
fn cors(app: Router, origins: &[String]) -> Result<Router, ServeError> {
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if origins.is_empty() {
        return Ok(app);
    }
    let allowed = match origins.iter().any(|origin| origin == "*") {
        true => AllowOrigin::any(),
        false => AllowOrigin::list(
            origins
                .iter()
                .map(|origin| origin.parse().map_err(|_| ServeError::Origin(origin.clone())))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let layer = CorsLayer::new().allow_origin(allowed).allow_methods([axum::http::Method::GET]);
    Ok(app.layer(layer))
}

/// Serves connections until `stop`, then lets the requests under way end. Each connection is
/// HTTP/1.1 with `header_timeout` for a request's headers, counted from the connection's start
/// and from the end of each answer (so it is also the idle timeout of a kept-alive connection).
async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    header_timeout: Duration,
    stop: impl std::future::Future<Output = ()>,
) {
    use hyper_util::{
        rt::{TokioIo, TokioTimer},
        server::graceful::GracefulShutdown,
        service::TowerToHyperService,
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, say: the connections under way go on.
                Err(err) => {
                    tracing::warn!("accepting a connection: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!("connection closed: {err}");
            }
        });
    }
    graceful.shutdown().await;
}

/// A future resolving on Ctrl-C or, on Unix, SIGTERM (what service managers send to stop a
/// server), so that the store is dropped and its secondary's directory removed. The handlers are
/// installed at once, before the server says it listens: a signal sent as soon as it does is
/// caught.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The runtime or the listener failed.
    #[error(transparent)]
    Io(std::io::Error),
    /// A `--cors` origin that is not a header value.
    #[error("--cors {0:?} is not an origin (e.g. https://example.org, or *)")]
    Origin(String),
}
