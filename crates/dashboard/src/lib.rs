//! `diskmeter serve`: a local dashboard over the results history. It only reads the
//! database; pages are the HTML report's sections ([`diskmeter_html`]) plus a run list with
//! filters, a compare picker, and runs in progress pushed live ([`live`]).
//!
//! The server is axum on a tokio runtime that [`serve`] owns: the rest of diskmeter stays
//! synchronous. Ctrl-C or SIGTERM stops it gracefully (requests in flight are answered,
//! endless ones are told through [`AppState::stopping`]) and [`serve`] returns `Ok`.

#![forbid(unsafe_code)]

mod address;
mod guard;
mod list;
pub mod live;
mod pages;
mod render;
mod state;

pub use address::{listen_address, AddressError, DEFAULT_PORT};
pub use state::AppState;

use axum::routing::get;
use axum::Router;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::watch;

/// How long a stop waits for open responses (a page being rendered, an event stream that
/// did not end) before the server closes them.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Why the dashboard could not serve, or a page could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// The history could not be opened or read.
    #[error(transparent)]
    History(#[from] diskmeter_history::HistoryError),
    /// A run's view could not be built.
    #[error(transparent)]
    View(#[from] diskmeter_views::ViewError),
    /// A page could not be rendered.
    #[error(transparent)]
    Html(#[from] diskmeter_html::HtmlError),
    /// The address could not be listened on (in use, not this host's).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server's runtime failed (could not start, or a connection-level IO error).
    #[error("the dashboard's server: {0}")]
    Server(#[source] std::io::Error),
    /// A page's worker thread ended abnormally.
    #[error("a page's worker failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// The request asks for something that is not there (a page, a run).
    #[error("{0}")]
    NotFound(String),
    /// A request to the loopback-only dashboard names another site as its `Host` (a page
    /// of that site trying to read the history through DNS rebinding).
    #[error("this dashboard answers only requests addressed to this machine (localhost, 127.0.0.1, [::1]), not to '{0}'; serve another address with --listen")]
    ForeignHost(String),
    /// The request's query is malformed (a date, a run id, a page number).
    #[error("{0}")]
    BadRequest(String),
}

/// What to serve and where.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The history database.
    pub db: PathBuf,
    /// The address to listen on (127.0.0.1 unless the user asked otherwise).
    pub listen: SocketAddr,
}

/// The dashboard's routes over `state`: the run list `/`, a run `/run/ID`, a comparison
/// `/compare?a=ID&b=ID`, and the live part's routes ([`live::routes`]). With
/// `loopback_only`, requests must name this machine in `Host` (see `guard.rs`).
pub fn router(state: AppState, loopback_only: bool) -> Router {
    Router::new()
        .route("/", get(pages::run_list))
        .route("/run/{id}", get(pages::run_page))
        .route("/compare", get(pages::compare_page))
        .merge(live::routes())
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            loopback_only,
            guard::local_requests_only,
        ))
        .with_state(state)
}

/// Serves until Ctrl-C or SIGTERM; `ready` is called with the bound address once it
/// listens (port 0 picks a free port). The history is opened read-only first, so a
/// database this diskmeter cannot read is refused before anything listens.
pub fn serve(config: &ServeConfig, ready: impl FnOnce(SocketAddr)) -> Result<(), DashboardError> {
    if config.db.exists() {
        diskmeter_history::HistoryStore::open_read_only(&config.db)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DashboardError::Server)?;
    let result = runtime.block_on(run_server(config, ready));
    // Blocking page reads still running (a client that went away) are not waited for.
    runtime.shutdown_timeout(Duration::from_millis(500));
    result
}

async fn run_server(
    config: &ServeConfig,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), DashboardError> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| DashboardError::Bind {
            addr: config.listen,
            source,
        })?;
    let bound = listener.local_addr().map_err(DashboardError::Server)?;
    let (stop_sender, stop_receiver) = watch::channel(false);
    let loopback_only = bound.ip().is_loopback();
    let app = router(
        AppState::new(&config.db, stop_receiver.clone()),
        loopback_only,
    );
    let mut told_to_stop = stop_receiver;
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        let _ = told_to_stop.wait_for(|stop| *stop).await;
    });
    let mut server = tokio::spawn(server.into_future());
    // The handlers are in place before the listening line is printed: a Ctrl-C right after
    // it stops the server (exit 0) instead of killing the process (CI, 2026-11-28, a loaded
    // host kept this task from its first poll of the signal future until after the SIGINT).
    let stop = stop_signal()?;
    ready(bound);
    tokio::select! {
        ended = &mut server => return ended?.map_err(DashboardError::Server),
        _ = stop => {}
    }
    let _ = stop_sender.send(true);
    match tokio::time::timeout(STOP_GRACE, &mut server).await {
        Ok(ended) => ended?.map_err(DashboardError::Server),
        // Connections still open after the grace period are dropped with the runtime.
        Err(_) => {
            server.abort();
            Ok(())
        }
    }
}

/// Registers for Ctrl-C (SIGINT) and SIGTERM now; the future resolves on either.
#[cfg(unix)]
fn stop_signal() -> Result<impl std::future::Future<Output = ()>, DashboardError> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).map_err(DashboardError::Server)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(DashboardError::Server)?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Resolves on Ctrl-C.
#[cfg(not(unix))]
fn stop_signal() -> Result<impl std::future::Future<Output = ()>, DashboardError> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
