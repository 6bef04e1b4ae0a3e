//! The results history: an embedded SQLite database (rusqlite, SQLite bundled) holding every
//! run diskmeter made — its kind and name, target, the resolved workload, host facts, the
//! full result schema, the merged latency histograms (HdrHistogram V2 serialisation) and the
//! per-second series — so that runs can be listed, shown, exported and compared later.
//!
//! One run is saved in one transaction, in WAL mode: a process killed in the middle of a save
//! leaves the database readable and without a half-saved run.

#![forbid(unsafe_code)]

mod host;
mod migrations;

pub use host::{DeviceFacts, FilesystemFacts, HostFacts};
pub use migrations::SCHEMA_VERSION;

use diskmeter_report::{JobResult, RunResult};
use diskmeter_stats::{merge_series, IntervalSample, LatencyHistogram};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What can go wrong with the history.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// SQLite refused an operation.
    #[error("history database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database folder could not be made.
    #[error("cannot create the history folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stored JSON document did not parse (a damaged row).
    #[error("history run {run_id}: stored {what} is unreadable: {message}")]
    Damaged {
        /// The run.
        run_id: i64,
        /// Which document.
        what: &'static str,
        /// Why.
        message: String,
    },
    /// The database was written by a newer diskmeter.
    #[error("the history database has schema version {found}, newer than this diskmeter's {known}: use a newer diskmeter or another --db")]
    NewerSchema {
        /// Its version.
        found: u32,
        /// Ours.
        known: u32,
    },
    /// No run has this id.
    #[error("no run {0} in the history (diskmeter history lists them)")]
    NoSuchRun(i64),
}

/// The default database: `$XDG_DATA_HOME/diskmeter/history.db`, else
/// `$HOME/.local/share/diskmeter/history.db` (the XDG base directory specification).
pub fn default_path() -> Option<PathBuf> {
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(data_home.join("diskmeter").join("history.db"))
}

/// One step of a run to save: a plain run has one, a suite one per step, a sweep one per point.
#[derive(Debug, Clone)]
pub struct NewStep {
    /// The step's name ("SEQ1M Q8T1 read", "randread bs=4k qd=32", or the job names).
    pub name: String,
    /// Its full result (the resolved workload is each job's `spec`).
    pub result: RunResult,
    /// Merged latency histograms: (direction "read"/"write", kind "clat"/"lat", histogram).
    pub histograms: Vec<(String, String, LatencyHistogram)>,
}

/// A run to save.
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
    /// End, ms since the Unix epoch (UTC).
    pub finished_unix_ms: u64,
    /// Interrupted before it finished.
    pub partial: bool,
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
    pub fn open(path: &Path) -> Result<HistoryStore, HistoryError> {
        Self::open_at_version(path, SCHEMA_VERSION)
    }

    /// Opens the database but migrates it only up to `version`: how tests make a database
    /// as an older diskmeter left it.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, version: u32) -> Result<HistoryStore, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| HistoryError::Folder {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let mut conn = Connection::open(path)?;
        // Several diskmeters may save at once (MPI ranks, parallel CI jobs): wait, don't fail.
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrations::migrate(&mut conn, version)?;
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

    /// Saves `run` in one transaction and returns its id.
    pub fn save(&mut self, run: &NewRun) -> Result<i64, HistoryError> {
        let first = run.steps.first().map(|s| &s.result.meta);
        let last = run.steps.last().map(|s| &s.result.meta);
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO runs (kind, name, target, started_unix_ms, finished_unix_ms, partial,
                 diskmeter_version, hostname, command_line, summary)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                run.kind,
                run.name,
                run.target,
                first.map_or(0, |m| m.started_unix_ms) as i64,
                last.map_or(0, |m| m.finished_unix_ms) as i64,
                run.steps.iter().any(|s| s.result.meta.partial),
                first.map_or_else(String::new, |m| m.diskmeter_version.clone()),
                first.map_or_else(String::new, |m| m.hostname.clone()),
                run.command_line,
                headline(&run.steps),
            ],
        )?;
        let run_id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO host_facts (run_id, facts_json) VALUES (?1, ?2)",
            params![run_id, to_json(&run.host)],
        )?;
        for (position, step) in run.steps.iter().enumerate() {
            let workload: Vec<_> = step.result.jobs.iter().map(|j| &j.spec).collect();
            tx.execute(
                "INSERT INTO steps (run_id, position, name, workload_json, result_json)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    run_id,
                    position as i64,
                    step.name,
                    to_json(&workload),
                    diskmeter_report::to_json(&step.result),
                ],
            )?;
            for (direction, kind, histogram) in &step.histograms {
                if histogram.is_empty() {
                    continue;
                }
                // A histogram that cannot be serialised is left out: the result keeps its
                // percentiles, and a history must not lose a run for want of a blob.
                if let Ok(bytes) = histogram.to_bytes() {
                    tx.execute(
                        "INSERT INTO histograms (run_id, position, direction, kind, hdr_v2)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![run_id, position as i64, direction, kind, bytes],
                    )?;
                }
            }
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO series (run_id, position, start_ms, duration_ms,
                     read_iops, read_bw_bytes_per_sec, read_lat_mean_ns,
                     write_iops, write_bw_bytes_per_sec, write_lat_mean_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for sample in step_series(&step.result) {
                insert.execute(params![
                    run_id,
                    position as i64,
                    sample.start_ms as i64,
                    sample.duration_ms as i64,
                    sample.read.iops,
                    sample.read.bytes_per_sec,
                    sample.read.lat_mean_ns,
                    sample.write.iops,
                    sample.write.bytes_per_sec,
                    sample.write.lat_mean_ns,
                ])?;
            }
        }
        tx.commit()?;
        Ok(run_id)
    }

    /// Runs matching `filter`, newest first.
    pub fn list(&self, filter: &RunFilter) -> Result<Vec<RunSummary>, HistoryError> {
        let mut sql = String::from(
            "SELECT id, kind, name, target, started_unix_ms, finished_unix_ms, partial,
                    diskmeter_version, hostname, command_line,
                    (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.id), summary
             FROM runs WHERE 1 = 1",
        );
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(kind) = &filter.kind {
            sql.push_str(" AND kind = ?");
            values.push(kind.clone().into());
        }
        if let Some(name) = &filter.name {
            sql.push_str(" AND name = ?");
            values.push(name.clone().into());
        }
        if let Some(text) = &filter.target_contains {
            sql.push_str(" AND instr(target, ?) > 0");
            values.push(text.clone().into());
        }
        if let Some(since) = filter.since_unix_ms {
            sql.push_str(" AND started_unix_ms >= ?");
            values.push((since as i64).into());
        }
        if let Some(until) = filter.until_unix_ms {
            sql.push_str(" AND started_unix_ms < ?");
            values.push((until as i64).into());
        }
        sql.push_str(" ORDER BY started_unix_ms DESC, id DESC");
        if let Some(limit) = filter.limit {
            sql.push_str(&format!(" LIMIT {limit}"));
        }
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(values), summary_from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The whole run `id`.
    pub fn load(&self, id: i64) -> Result<StoredRun, HistoryError> {
        let summary = self
            .conn
            .query_row(
                "SELECT id, kind, name, target, started_unix_ms, finished_unix_ms, partial,
                        diskmeter_version, hostname, command_line,
                        (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.id), summary
                 FROM runs WHERE id = ?1",
                [id],
                summary_from_row,
            )
            .optional()?
            .ok_or(HistoryError::NoSuchRun(id))?;
        let host = self
            .conn
            .query_row(
                "SELECT facts_json FROM host_facts WHERE run_id = ?1",
                [id],
                |row| row.get::<_, String>(0),
            )
            .optional()?
            .map(|text| {
                serde_json::from_str(&text).map_err(|e| HistoryError::Damaged {
                    run_id: id,
                    what: "host facts",
                    message: e.to_string(),
                })
            })
            .transpose()?;
        let mut statement = self
            .conn
            .prepare("SELECT name, result_json FROM steps WHERE run_id = ?1 ORDER BY position")?;
        let rows = statement.query_map([id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        let mut steps = Vec::new();
        for row in rows {
            let (name, json) = row?;
            let result = diskmeter_report::from_json(&json).map_err(|e| HistoryError::Damaged {
                run_id: id,
                what: "result",
                message: e.to_string(),
            })?;
            steps.push(StoredStep { name, result });
        }
        Ok(StoredRun {
            summary,
            host,
            steps,
        })
    }

    /// The merged histogram of one step, direction ("read"/"write") and kind ("clat"/"lat").
    pub fn histogram(
        &self,
        id: i64,
        position: u32,
        direction: &str,
        kind: &str,
    ) -> Result<Option<LatencyHistogram>, HistoryError> {
        let blob: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT hdr_v2 FROM histograms
                 WHERE run_id = ?1 AND position = ?2 AND direction = ?3 AND kind = ?4",
                params![id, position as i64, direction, kind],
                |row| row.get(0),
            )
            .optional()?;
        Ok(blob.and_then(|bytes| LatencyHistogram::from_bytes(&bytes).ok()))
    }

    /// The id of the newest run, if any (`diskmeter show last`).
    pub fn newest_id(&self) -> Result<Option<i64>, HistoryError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs ORDER BY started_unix_ms DESC, id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()?)
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

fn summary_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: row.get(0)?,
        kind: row.get(1)?,
        name: row.get(2)?,
        target: row.get(3)?,
        started_unix_ms: row.get::<_, i64>(4)? as u64,
        finished_unix_ms: row.get::<_, i64>(5)? as u64,
        partial: row.get(6)?,
        diskmeter_version: row.get(7)?,
        hostname: row.get(8)?,
        command_line: row.get(9)?,
        steps: row.get::<_, i64>(10)? as u32,
        summary: row.get(11)?,
    })
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// The step's per-second series summed over its jobs.
fn step_series(result: &RunResult) -> Vec<IntervalSample> {
    result
        .jobs
        .iter()
        .fold(Vec::new(), |acc, job| merge_series(&acc, &job.series))
}

/// "IOPS 5,012 | 19.6 MiB/s" of the step with the most IOPS and the one with the most bytes.
fn headline(steps: &[NewStep]) -> String {
    let totals = |job: &JobResult| {
        (
            job.read.iops + job.write.iops,
            job.read.bw_bytes_per_sec + job.write.bw_bytes_per_sec,
        )
    };
    let per_step: Vec<(f64, f64)> = steps
        .iter()
        .map(|s| {
            s.result
                .jobs
                .iter()
                .map(totals)
                .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
        })
        .collect();
    let max_iops = per_step.iter().map(|s| s.0).fold(0.0, f64::max);
    let max_bw = per_step.iter().map(|s| s.1).fold(0.0, f64::max);
    if steps.len() == 1 {
        format!(
            "{:.0} IOPS, {:.1} MiB/s",
            max_iops,
            max_bw / (1u64 << 20) as f64
        )
    } else {
        format!(
            "{} steps, up to {:.0} IOPS and {:.1} MiB/s",
            steps.len(),
            max_iops,
            max_bw / (1u64 << 20) as f64
        )
    }
}
