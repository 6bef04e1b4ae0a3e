//! Runs in progress (schema v6): while a saving diskmeter runs a batch, its sampler writes
//! one `live_runs` row and, once a second while a step runs, one `live_points` row of the
//! step's cumulative IO counters; the dashboard reads them to draw the run as it goes.
//!
//! The rows are a view of a process, not a result: the finished run is saved in `runs` and
//! `steps` as before, whatever happens here. When the batch ends its row is marked ended
//! (with the run's id, for a link) and its points are deleted; rows that ended, or whose
//! heartbeat stopped (a killed process), more than [`LIVE_KEPT_MS`] ago are deleted when the
//! next live run begins, so the tables stay small. Reading a database older than v6 (opened
//! read-only, not upgraded) finds no live run. `docs/history.md` has the contract.

use crate::{HistoryError, HistoryStore};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// A live run whose heartbeat is older than this is no longer running (its process was
/// killed, or lost its database): readers show it as live only while the heartbeat is newer.
/// The sampler beats once a second.
pub const LIVE_STALE_AFTER_MS: u64 = 5_000;

/// How long a live row is kept after it ended or its heartbeat stopped, so a dashboard that
/// polls can still see how it ended.
pub const LIVE_KEPT_MS: u64 = 10 * 60 * 1000;

/// What a live run is about, written when it begins ([`HistoryStore::begin_live`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveRunHeader {
    /// The process that runs it.
    pub pid: u32,
    /// The machine.
    pub hostname: String,
    /// The command's kind as the history stores it ("run", "suite", ...).
    pub kind: String,
    /// The name the run will be listed under (suite name or job names).
    pub name: String,
    /// The target (file, folder or device).
    pub target: String,
    /// Start, ms since the Unix epoch (UTC).
    pub started_unix_ms: u64,
}

/// A live run as read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveRun {
    /// Its id among live runs (not a run id).
    pub id: i64,
    /// What it is about.
    pub header: LiveRunHeader,
    /// The last time its sampler wrote, ms since the Unix epoch.
    pub heartbeat_unix_ms: u64,
    /// When its batch ended; `None` while it runs (or after its process was killed).
    pub ended_unix_ms: Option<u64>,
    /// The run's id in the history, once its first step is saved.
    pub run_id: Option<i64>,
}

impl LiveRun {
    /// Running at `now_unix_ms`: not ended, and its heartbeat is fresh
    /// ([`LIVE_STALE_AFTER_MS`]).
    pub fn is_running(&self, now_unix_ms: u64) -> bool {
        self.ended_unix_ms.is_none()
            && now_unix_ms.saturating_sub(self.heartbeat_unix_ms) <= LIVE_STALE_AFTER_MS
    }
}

/// One sample of a running step: its IO counters since the step's IO started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivePoint {
    /// The step's position in the batch, from 0 (counters restart with each step).
    pub step_position: u32,
    /// The step's name.
    pub step_name: String,
    /// When the counters were read, ms since the Unix epoch.
    pub t_unix_ms: u64,
    /// Reads completed so far in the step.
    pub read_ios: u64,
    /// Bytes read so far in the step.
    pub read_bytes: u64,
    /// Writes completed so far in the step.
    pub write_ios: u64,
    /// Bytes written so far in the step.
    pub write_bytes: u64,
}

impl LivePoint {
    /// IO/s and bytes/s (reads and writes together) from `earlier` to this point; `None`
    /// when `earlier` is of another step or not earlier.
    pub fn rates_since(&self, earlier: &LivePoint) -> Option<(f64, f64)> {
        if earlier.step_position != self.step_position || earlier.t_unix_ms >= self.t_unix_ms {
            return None;
        }
        let seconds = (self.t_unix_ms - earlier.t_unix_ms) as f64 / 1000.0;
        let ios =
            (self.read_ios + self.write_ios).saturating_sub(earlier.read_ios + earlier.write_ios);
        let bytes = (self.read_bytes + self.write_bytes)
            .saturating_sub(earlier.read_bytes + earlier.write_bytes);
        Some((ios as f64 / seconds, bytes as f64 / seconds))
    }
}

/// A stored point with its place in the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLivePoint {
    /// Increases with every point written to the database, whichever run it belongs to:
    /// a reader asks for the points after the last id it saw.
    pub id: i64,
    /// The live run.
    pub live_id: i64,
    /// The sample.
    #[serde(flatten)]
    pub point: LivePoint,
}

impl HistoryStore {
    /// Records that a live run begins and returns its id; deletes the rows of live runs that
    /// ended, or stopped beating, more than [`LIVE_KEPT_MS`] before it.
    pub fn begin_live(&mut self, header: &LiveRunHeader) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        let cutoff = header.started_unix_ms.saturating_sub(LIVE_KEPT_MS) as i64;
        // Their points go with them (ON DELETE CASCADE).
        tx.execute(
            "DELETE FROM live_runs WHERE COALESCE(ended_unix_ms, heartbeat_unix_ms) < ?1",
            [cutoff],
        )?;
        tx.execute(
            "INSERT INTO live_runs (pid, hostname, kind, name, target, started_unix_ms,
                 heartbeat_unix_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![
                header.pid,
                header.hostname,
                header.kind,
                header.name,
                header.target,
                header.started_unix_ms as i64,
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Appends a point to the live run `live_id` (its time is also the run's heartbeat) and
    /// returns the point's id.
    pub fn append_live_point(
        &mut self,
        live_id: i64,
        point: &LivePoint,
    ) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        tx.execute(
            "INSERT INTO live_points (live_id, step_position, step_name, t_unix_ms,
                 read_ios, read_bytes, write_ios, write_bytes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                live_id,
                point.step_position,
                point.step_name,
                point.t_unix_ms as i64,
                point.read_ios as i64,
                point.read_bytes as i64,
                point.write_ios as i64,
                point.write_bytes as i64,
            ],
        )?;
        let id = tx.last_insert_rowid();
        beat(&tx, live_id, point.t_unix_ms)?;
        tx.commit()?;
        Ok(id)
    }

    /// The live run `live_id` is still going at `now_unix_ms` (between steps, when there are
    /// no points to write).
    pub fn live_heartbeat(&mut self, live_id: i64, now_unix_ms: u64) -> Result<(), HistoryError> {
        let tx = self.write_transaction()?;
        beat(&tx, live_id, now_unix_ms)?;
        tx.commit()?;
        Ok(())
    }

    /// Links the live run to the run the history saves it as (known once the first step is
    /// saved).
    pub fn set_live_run_id(&mut self, live_id: i64, run_id: i64) -> Result<(), HistoryError> {
        let tx = self.write_transaction()?;
        tx.execute(
            "UPDATE live_runs SET run_id = ?2 WHERE id = ?1",
            params![live_id, run_id],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Marks the live run ended (with the run it was saved as, if any) and deletes its
    /// points: the saved run holds the measured series.
    pub fn end_live(
        &mut self,
        live_id: i64,
        ended_unix_ms: u64,
        run_id: Option<i64>,
    ) -> Result<(), HistoryError> {
        let tx = self.write_transaction()?;
        tx.execute(
            "UPDATE live_runs SET ended_unix_ms = ?2, heartbeat_unix_ms = ?2,
                 run_id = COALESCE(?3, run_id)
             WHERE id = ?1",
            params![live_id, ended_unix_ms as i64, run_id],
        )?;
        tx.execute("DELETE FROM live_points WHERE live_id = ?1", [live_id])?;
        tx.commit()?;
        Ok(())
    }

    /// Every live run still in the database (running, ended, or stale), newest first; see
    /// [`LiveRun::is_running`].
    pub fn live_runs(&self) -> Result<Vec<LiveRun>, HistoryError> {
        if !self.has_live_tables()? {
            return Ok(Vec::new());
        }
        let mut statement = self.conn.prepare(
            "SELECT id, pid, hostname, kind, name, target, started_unix_ms, heartbeat_unix_ms,
                 ended_unix_ms, run_id
             FROM live_runs ORDER BY id DESC",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(LiveRun {
                id: row.get(0)?,
                header: LiveRunHeader {
                    pid: row.get(1)?,
                    hostname: row.get(2)?,
                    kind: row.get(3)?,
                    name: row.get(4)?,
                    target: row.get(5)?,
                    started_unix_ms: row.get::<_, i64>(6)? as u64,
                },
                heartbeat_unix_ms: row.get::<_, i64>(7)? as u64,
                ended_unix_ms: row.get::<_, Option<i64>>(8)?.map(|t| t as u64),
                run_id: row.get(9)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The live run `live_id`, if its row is still there.
    pub fn live_run(&self, live_id: i64) -> Result<Option<LiveRun>, HistoryError> {
        Ok(self.live_runs()?.into_iter().find(|run| run.id == live_id))
    }

    /// The points of the live run `live_id` after the point `after_id` (0: all), oldest
    /// first.
    pub fn live_points(
        &self,
        live_id: i64,
        after_id: i64,
    ) -> Result<Vec<StoredLivePoint>, HistoryError> {
        self.points_where("live_id = ?1 AND id > ?2", params![live_id, after_id])
    }

    /// The points of every live run after the point `after_id`, oldest first, at most
    /// `limit`: what a reader that last saw `after_id` has not seen.
    pub fn live_points_after(
        &self,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<StoredLivePoint>, HistoryError> {
        self.points_where("id > ?1 ORDER BY id LIMIT ?2", params![after_id, limit])
    }

    /// The id of the newest point written (0 when none): a reader that starts now waits
    /// for the points after it.
    pub fn newest_live_point_id(&self) -> Result<i64, HistoryError> {
        if !self.has_live_tables()? {
            return Ok(0);
        }
        Ok(self
            .conn
            .query_row("SELECT MAX(id) FROM live_points", [], |row| {
                row.get::<_, Option<i64>>(0)
            })
            .optional()?
            .flatten()
            .unwrap_or(0))
    }

    fn points_where(
        &self,
        condition: &str,
        values: impl rusqlite::Params,
    ) -> Result<Vec<StoredLivePoint>, HistoryError> {
        if !self.has_live_tables()? {
            return Ok(Vec::new());
        }
        let order = if condition.contains("ORDER BY") {
            ""
        } else {
            " ORDER BY id"
        };
        let mut statement = self.conn.prepare(&format!(
            "SELECT id, live_id, step_position, step_name, t_unix_ms,
                 read_ios, read_bytes, write_ios, write_bytes
             FROM live_points WHERE {condition}{order}"
        ))?;
        let rows = statement.query_map(values, |row| {
            Ok(StoredLivePoint {
                id: row.get(0)?,
                live_id: row.get(1)?,
                point: LivePoint {
                    step_position: row.get(2)?,
                    step_name: row.get(3)?,
                    t_unix_ms: row.get::<_, i64>(4)? as u64,
                    read_ios: row.get::<_, i64>(5)? as u64,
                    read_bytes: row.get::<_, i64>(6)? as u64,
                    write_ios: row.get::<_, i64>(7)? as u64,
                    write_bytes: row.get::<_, i64>(8)? as u64,
                },
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

impl HistoryStore {
    /// The database has the live tables (v6): a read-only reader may serve an older one as
    /// it is, which then has no run in progress.
    fn has_live_tables(&self) -> Result<bool, HistoryError> {
        Ok(self.schema_version()? >= 6)
    }
}

/// Moves the heartbeat forward, never back (a wall clock stepped back must not make a
/// running run look stale sooner).
fn beat(tx: &rusqlite::Transaction<'_>, live_id: i64, now_unix_ms: u64) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE live_runs SET heartbeat_unix_ms = MAX(heartbeat_unix_ms, ?2) WHERE id = ?1",
        params![live_id, now_unix_ms as i64],
    )?;
    Ok(())
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
