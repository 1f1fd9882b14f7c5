//! The explorer page (`/`, `page.rs`) and the HTTP API: the lichess opening explorer's
//! endpoints and shapes (`/masters`, `/lichess`, `/player`, `/masters/pgn/{id}`) over a tabiya
//! database, plus `/move`, `/game/{id}`, `/games`, `/games.pgn`, `/material`, `/pattern`,
//! `/report/opening`, `/report/player`, `/report/database`, `/stats` and `/health`.
//!
//! The database is opened as a RocksDB secondary, so the server keeps answering while another
//! process ingests; every [`ServeOptions::refresh`] it catches up with what that process has
//! committed (a commit's games and positions become visible together, never half of one).

mod handlers;
mod page;
mod params;

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
}

/// Shared by all requests.
pub struct AppState {
    /// The database, opened as a secondary.
    pub store: Store,
    /// The game lists of recent pattern searches.
    pub pattern_games: PatternGames,
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
        let state = Arc::new(AppState { store, pattern_games: PatternGames::default() });
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
        ready(addr);
        axum::serve(listener, router(state)).with_graceful_shutdown(stop).await.map_err(ServeError::Io)
    })
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
}
