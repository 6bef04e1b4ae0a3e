//! Runs in progress: per-second points read from the history as the running diskmeter
//! writes them, pushed to the page as server-sent events.
//!
//! The dashboard calls two things here (the hook; owner L fills them in): [`routes`], merged
//! into the dashboard's router (`/events`), and [`runs_in_progress`], the block the run list
//! shows above its table.

use crate::AppState;
use axum::Router;
use diskmeter_history::{HistoryError, HistoryStore};

/// The live part's routes (server-sent events), merged into the dashboard's router.
pub fn routes() -> Router<AppState> {
    Router::new()
}

/// The "Runs in progress" block of the run list page, as trusted HTML placed above the run
/// table (a `<section id="live">` and the script that keeps it current). `store` is `None`
/// when the history does not exist yet.
pub fn runs_in_progress(store: Option<&HistoryStore>) -> Result<String, HistoryError> {
    let _ = store;
    Ok(String::new())
}
