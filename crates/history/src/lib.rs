//! The results history: an embedded SQLite database (rusqlite, SQLite bundled) holding every
//! run diskmeter made — its kind and name, target, host facts, and per step the stored record
//! (the jobs' resolved options as a fio job file, and the full result schema, whose jobs carry
//! the same options), the merged latency histograms (HdrHistogram V2 serialisation) and the
//! per-second series — so that runs can be listed, shown, exported and compared later.
//! `docs/history.md` documents the record and its versions.
//!
//! Two ways to save, both in WAL mode: [`HistoryStore::save`] writes a whole run in one
//! transaction; [`HistoryStore::begin_run`], [`HistoryStore::append_step`] and
//! [`HistoryStore::finish_run`] write a run as it goes, each step in its own transaction, so a
//! process killed in the middle keeps the steps it finished (the run lists as unfinished).
//! Either way a killed process leaves the database readable and no half-saved step.
//!
//! Opening is safe while other processes open the same database (a new one appears whole,
//! an old one is upgraded once: `open.rs`), and a fault says what it is ([`HistoryError`]:
//! locked, read-only, damaged). A run the database cannot take is kept whole in a spool file
//! ([`SpooledRun`]) and imported, once, by the next save ([`HistoryStore::import_spool`]).

#![forbid(unsafe_code)]

mod capture;
mod host;
mod job_histograms;
mod linked;
mod live;
mod migrations;
mod open;
mod pick;
mod read;
mod spool;
mod write;

pub use capture::{StoredCapture, Warmup, CAPTURE_KIND};
pub use host::{DeviceFacts, FilesystemFacts, HostFacts};
pub use linked::{NewCheck, NewPlan, StoredCheck, StoredPlan, LINKS_SCHEMA_VERSION};
pub use live::{
    LivePoint, LiveRun, LiveRunHeader, StoredLivePoint, LIVE_KEPT_MS, LIVE_STALE_AFTER_MS,
};
pub use migrations::SCHEMA_VERSION;
pub use pick::{capture_iolog_path, open_for_reading, Newest, PickError, ReadOpenError, Wanted};
pub use read::{RunFacets, RunPage, RunPageQuery};

use diskmeter_report::{ReportError, RunResult};
use diskmeter_stats::{merge_series, IntervalSample, LatencyHistogram};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
pub use spool::{spool_folder, SpoolError, SpoolFile, SpooledRun, SpooledRunBegun};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What can go wrong with the history.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// SQLite refused an operation (for a reason none of the variants below names).
    #[error("history database: {0}")]
    Sqlite(rusqlite::Error),
    /// Another process held the database's write lock for longer than diskmeter waits
    /// ([`busy_timeout`]): a long transaction, or a stuck process.
    #[error("the history database is locked by another process (another diskmeter saving, or a program holding a transaction open; waited {waited_ms} ms for it; DISKMETER_HISTORY_BUSY_TIMEOUT_MS sets how long)")]
    Locked {
        /// How long diskmeter waited, ms.
        waited_ms: u64,
        /// SQLite's error (not in the message: "database is locked" says no more).
        sqlite: rusqlite::Error,
    },
    /// The database (or its folder, where SQLite keeps its WAL and shared-memory files)
    /// cannot be written: a read-only mount, an immutable file, missing permissions.
    #[error("the history database cannot be written: {0}")]
    ReadOnly(String),
    /// The database file exists but this user may not read it (its mode, its owner); the
    /// text says which and what to do.
    #[error("the history database cannot be read: {0}")]
    Unreadable(String),
    /// The file is not an SQLite database, or a damaged one (garbage, truncated).
    #[error("the history database is damaged ({0}); move it aside (rename it: the next run makes a new one, and sqlite3's .recover may get its runs back), or give another --db")]
    Corrupt(String),
    /// SQLite could not open or create the file, for none of the reasons above (a folder
    /// that is gone, a path that names no file).
    #[error("the history database cannot be opened or created ({0}); check that its folder exists and this user may write it, or give another --db")]
    CannotOpen(rusqlite::Error),
    /// The database folder could not be made.
    #[error("cannot create the history folder {path}: {source}; give another --db")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stored JSON document did not parse (a damaged row).
    #[error("history run {run_id}: stored {what} is unreadable: {source}")]
    Damaged {
        /// The run.
        run_id: i64,
        /// Which document.
        what: &'static str,
        /// Why.
        source: ReportError,
    },
    /// A stored capture document did not parse (a damaged row).
    #[error("history capture {run_id}: stored {what} is unreadable: {source}")]
    DamagedCapture {
        /// The capture's run id.
        run_id: i64,
        /// Which document.
        what: &'static str,
        /// Why.
        source: serde_json::Error,
    },
    /// The run asked for is not a capture.
    #[error("history run {0} is not a capture (diskmeter history --kind capture lists them)")]
    NotACapture(i64),
    /// The database was written by a newer diskmeter.
    #[error("the history database has schema version {found}, newer than this diskmeter's {known}: use a newer diskmeter or another --db")]
    NewerSchema {
        /// Its version.
        found: u32,
        /// Ours.
        known: u32,
    },
    /// The database was written by a diskmeter so much older that reading it needs an
    /// upgrade, which a read-only open ([`HistoryStore::open_read_only`]) does not make.
    #[error("the history database has schema version {found}, older than this diskmeter's {known}: run any diskmeter command on it once (diskmeter history --db PATH) to upgrade it")]
    NeedsUpgrade {
        /// Its version.
        found: u32,
        /// Ours.
        known: u32,
    },
    /// No run has this id.
    #[error("no run {0} in the history (diskmeter history lists them)")]
    NoSuchRun(i64),
    /// A step was appended to, or a finish given for, a run that was finished already.
    #[error("history run {0} is finished: it takes no more steps")]
    RunFinished(i64),
}

impl From<rusqlite::Error> for HistoryError {
    /// Sorts SQLite's errors by cause, so the message says what happened to the database
    /// (locked, read-only, damaged) and the caller can tell a fault from a bug.
    fn from(error: rusqlite::Error) -> HistoryError {
        use rusqlite::ErrorCode;
        match error.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::Locked {
                waited_ms: busy_timeout().as_millis() as u64,
                sqlite: error,
            },
            Some(ErrorCode::ReadOnly) => HistoryError::ReadOnly(error.to_string()),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                HistoryError::Corrupt(error.to_string())
            }
            Some(ErrorCode::CannotOpen) => HistoryError::CannotOpen(error),
            _ => HistoryError::Sqlite(error),
        }
    }
}

impl HistoryError {
    /// Another writer held the lock: worth trying again until a deadline.
    pub(crate) fn is_busy(&self) -> bool {
        matches!(self, HistoryError::Locked { .. })
    }
}

/// How long a write waits for another process's write lock before it gives up: 10 s, or
/// `DISKMETER_HISTORY_BUSY_TIMEOUT_MS` (a CI machine with many parallel saves may want
/// more; the fault tests want less).
pub fn busy_timeout() -> Duration {
    std::env::var("DISKMETER_HISTORY_BUSY_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(10), Duration::from_millis)
}

/// The folder diskmeter keeps its data in: `$XDG_DATA_HOME/diskmeter`, else
/// `$HOME/.local/share/diskmeter` (the XDG base directory specification); the default
/// history is in it, and what outlives a process (the spool, the records of test files).
pub fn data_folder() -> Option<PathBuf> {
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(data_home.join("diskmeter"))
}

/// The default database: `$XDG_DATA_HOME/diskmeter/history.db`, else
/// `$HOME/.local/share/diskmeter/history.db` (the XDG base directory specification).
pub fn default_path() -> Option<PathBuf> {
    Some(data_folder()?.join("history.db"))
}

/// One step of a run to save: a plain run has one, a suite one per step, a sweep one per point.
#[derive(Debug, Clone)]
pub struct NewStep {
    /// The step's name ("SEQ1M Q8T1 read", "randread 4k QD32 x1", or the job names).
    pub name: String,
    /// Its full result (each job's resolved options are in it).
    pub result: RunResult,
    /// Merged latency histograms: (direction "read"/"write", kind "clat"/"lat", histogram).
    pub histograms: Vec<(String, String, LatencyHistogram)>,
}

/// A whole run to save at once with [`HistoryStore::save`].
#[derive(Debug, Clone)]
pub struct NewRun {
    /// "run", "suite", "sweep", "diskspd" or "iometer".
    pub kind: String,
    /// The suite's name, or the job names of a run.
    pub name: String,
    /// The target the run was about (file, folder or device).
    pub target: String,
    /// The command line as given.
    pub command_line: String,
    /// Host and device facts.
    pub host: HostFacts,
    /// The steps, in the order they ran.
    pub steps: Vec<NewStep>,
}

/// What is known of a run when it begins ([`HistoryStore::begin_run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// "run", "suite", "sweep", "diskspd" or "iometer".
    pub kind: String,
    /// The suite's name, or the job names of a run.
    pub name: String,
    /// The target the run is about (file, folder or device).
    pub target: String,
    /// The command line as given.
    pub command_line: String,
    /// Host and device facts.
    pub host: HostFacts,
    /// Start, ms since the Unix epoch (UTC).
    pub started_unix_ms: u64,
    /// The diskmeter that runs it.
    pub diskmeter_version: String,
    /// The machine.
    pub hostname: String,
    /// The capture a replay replays (`diskmeter replay ID`), stored with the run (v9) so
    /// its page links the capture; `None` for every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_id: Option<i64>,
}

/// How a run ended ([`HistoryStore::finish_run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEnd {
    /// End, ms since the Unix epoch (UTC).
    pub finished_unix_ms: u64,
    /// Interrupted (Ctrl-C, SIGTERM) or cut short: its steps cover less than was asked.
    pub partial: bool,
    /// The listing's headline; `None` for the store's own (from the steps' IOPS and bandwidth).
    pub summary: Option<String>,
}

/// A run as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run's id (what show, export and compare take).
    pub id: i64,
    /// "run", "suite", "sweep", "diskspd" or "iometer".
    pub kind: String,
    /// Suite name or job names.
    pub name: String,
    /// The target.
    pub target: String,
    /// Start, ms since the Unix epoch (UTC).
    pub started_unix_ms: u64,
    /// End, ms since the Unix epoch (UTC); for an unfinished run, the end of its last step.
    pub finished_unix_ms: u64,
    /// Interrupted before it finished, or never finished.
    pub partial: bool,
    /// Begun but never finished: still running, or its process ended before it closed the
    /// run (the steps it finished are kept). Always `partial` too.
    #[serde(default)]
    pub unfinished: bool,
    /// The diskmeter that ran it.
    pub diskmeter_version: String,
    /// The machine.
    pub hostname: String,
    /// The command line.
    pub command_line: String,
    /// Number of steps.
    pub steps: u32,
    /// One line of headline figures (empty for runs saved before schema v2).
    pub summary: String,
}

/// A whole stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    /// Its listing.
    pub summary: RunSummary,
    /// Host facts (None for runs saved before schema v2).
    pub host: Option<HostFacts>,
    /// Its steps in order.
    pub steps: Vec<StoredStep>,
}

/// One stored step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredStep {
    /// Name.
    pub name: String,
    /// Full result.
    pub result: RunResult,
}

impl StoredStep {
    /// The step's per-second series, summed over its jobs.
    pub fn series(&self) -> Vec<IntervalSample> {
        step_series(&self.result)
    }
}

/// Which runs `list` returns.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    /// Only this kind.
    pub kind: Option<String>,
    /// Only runs with this name (a suite's name).
    pub name: Option<String>,
    /// Only targets containing this text.
    pub target_contains: Option<String>,
    /// Only runs started at or after this time, ms since the epoch.
    pub since_unix_ms: Option<u64>,
    /// Only runs started before this time, ms since the epoch.
    pub until_unix_ms: Option<u64>,
    /// At most this many (newest first).
    pub limit: Option<u32>,
}

/// An open history database.
pub struct HistoryStore {
    conn: Connection,
    path: PathBuf,
}

impl HistoryStore {
    /// Opens (creating when missing, with its folder) and upgrades the database at `path`.
    ///
    /// Safe with other processes doing the same at the same moment: a new database appears
    /// whole (WAL mode, every migration) or not at all, and a lock held by another writer
    /// is waited for up to [`busy_timeout`] (`open.rs`).
    pub fn open(path: &Path) -> Result<HistoryStore, HistoryError> {
        Self::open_at_version(path, SCHEMA_VERSION)
    }

    /// Opens the database but migrates it only up to `version`: how tests make a database
    /// as an older diskmeter left it.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, version: u32) -> Result<HistoryStore, HistoryError> {
        let conn = open::open_for_writing(path, version)?;
        Ok(HistoryStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens the database at `path` for reading only (the dashboard): nothing is created,
    /// migrated or written, and a writer saving at the same time is never blocked (WAL).
    /// A database older than this diskmeter is read as it is when its tables hold what the
    /// readers need (schema version 4, captures, or later); an older one is refused with
    /// [`HistoryError::NeedsUpgrade`], a newer one with [`HistoryError::NewerSchema`].
    pub fn open_read_only(path: &Path) -> Result<HistoryStore, HistoryError> {
        /// The oldest schema the readers can read as it is: v4 added the capture tables;
        /// later versions only add what reading does not need.
        const OLDEST_READABLE: u32 = 4;
        let (conn, found) = match open::read_only_connection(path, false) {
            // A WAL database on a read-only mount: SQLite cannot make its shared-memory
            // file, so nothing can be writing it either; it is read as an immutable file.
            Err(HistoryError::CannotOpen(_)) if path.is_file() => {
                match open::read_only_connection(path, true) {
                    // Not a mount's doing: this user may not read the file; say so.
                    Err(HistoryError::CannotOpen(error)) => {
                        return Err(match open::why_unreadable(path) {
                            Some(reason) => HistoryError::Unreadable(reason),
                            None => HistoryError::CannotOpen(error),
                        })
                    }
                    opened => opened?,
                }
            }
            opened => opened?,
        };
        if found > SCHEMA_VERSION {
            return Err(HistoryError::NewerSchema {
                found,
                known: SCHEMA_VERSION,
            });
        }
        if found < OLDEST_READABLE {
            return Err(HistoryError::NeedsUpgrade {
                found,
                known: SCHEMA_VERSION,
            });
        }
        Ok(HistoryStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<u32, HistoryError> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))?)
    }

    /// `PRAGMA integrity_check` says "ok".
    pub fn integrity_ok(&self) -> Result<bool, HistoryError> {
        let verdict: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))?;
        Ok(verdict == "ok")
    }

    /// Direct access for SQL users and tests.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// The step's per-second series summed over its jobs.
fn step_series(result: &RunResult) -> Vec<IntervalSample> {
    result
        .jobs
        .iter()
        .fold(Vec::new(), |acc, job| merge_series(&acc, &job.series))
}
