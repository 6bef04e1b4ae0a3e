//! What every request handler shares: the history's path and a few read-only connections
//! to it, reused between requests, and the signal that the server is stopping (so that
//! endless responses such as server-sent events can end and the server exit).

use crate::DashboardError;
use diskmeter_history::HistoryStore;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Connections kept open between requests; more are opened under load and closed after.
const POOLED_CONNECTIONS: usize = 4;

/// The dashboard's shared state (cheap to clone: handlers get a copy each).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    db: PathBuf,
    idle: Mutex<Vec<HistoryStore>>,
    stopping: watch::Receiver<bool>,
}

impl AppState {
    /// State over the history at `db`; `stopping` turns true when the server stops.
    pub(crate) fn new(db: &Path, stopping: watch::Receiver<bool>) -> AppState {
        AppState {
            inner: Arc::new(Inner {
                db: db.to_path_buf(),
                idle: Mutex::new(Vec::new()),
                stopping,
            }),
        }
    }

    /// The history database served.
    pub fn db(&self) -> &Path {
        &self.inner.db
    }

    /// Runs `read` with a read-only connection to the history on a thread that may block
    /// (SQLite reads are synchronous), so slow pages never stall the server's other
    /// connections. `None` is passed when the database does not exist yet (no run was
    /// saved): pages then show an empty history.
    pub async fn read<T, F>(&self, read: F) -> Result<T, DashboardError>
    where
        T: Send + 'static,
        F: FnOnce(Option<&HistoryStore>) -> Result<T, DashboardError> + Send + 'static,
    {
        let state = self.clone();
        tokio::task::spawn_blocking(move || {
            let Some(store) = state.take_store()? else {
                return read(None);
            };
            let result = read(Some(&store));
            state.give_back(store);
            result
        })
        .await?
    }

    /// Resolves once the server begins to stop (Ctrl-C, SIGTERM): a response that never
    /// ends by itself (server-sent events) must end then, or the server waits for it.
    pub async fn stopping(&self) {
        let mut stopping = self.inner.stopping.clone();
        // An error means the server is gone: stop too.
        let _ = stopping.wait_for(|stop| *stop).await;
    }

    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        *self.inner.stopping.borrow()
    }

    fn take_store(&self) -> Result<Option<HistoryStore>, DashboardError> {
        if let Some(store) = self
            .inner
            .idle
            .lock()
            .map(|mut idle| idle.pop())
            .ok()
            .flatten()
        {
            return Ok(Some(store));
        }
        if !self.inner.db.exists() {
            return Ok(None);
        }
        Ok(Some(HistoryStore::open_read_only(&self.inner.db)?))
    }

    fn give_back(&self, store: HistoryStore) {
        if let Ok(mut idle) = self.inner.idle.lock() {
            if idle.len() < POOLED_CONNECTIONS {
                idle.push(store);
            }
        }
    }
}
