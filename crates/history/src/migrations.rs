//! The schema, as a list of versioned migrations. A database records the version it is at in
//! SQLite's `user_version`; opening applies the missing migrations in one transaction each,
//! so a database made by an older diskmeter opens (and is upgraded) and one made by a newer
//! diskmeter is refused instead of misread. `docs/history.md` describes every version.

use crate::write::step_totals;
use crate::HistoryError;
use rusqlite::{params, Connection, Transaction, TransactionBehavior};

/// One step of the schema's history.
enum Migration {
    /// Plain SQL.
    Sql(&'static str),
    /// SQL plus rows rewritten in Rust.
    Code(fn(&Transaction<'_>) -> Result<(), HistoryError>),
}

/// Migration `i` takes the database from version `i` to `i + 1`. Never edit a released
/// migration: append a new one.
const MIGRATIONS: &[Migration] = &[
    // v1: runs, their steps (workload and full result as JSON) and merged histograms.
    Migration::Sql(
        "CREATE TABLE runs (
         id INTEGER PRIMARY KEY,
         kind TEXT NOT NULL,
         name TEXT NOT NULL,
         target TEXT NOT NULL,
         started_unix_ms INTEGER NOT NULL,
         finished_unix_ms INTEGER NOT NULL,
         partial INTEGER NOT NULL,
         diskmeter_version TEXT NOT NULL,
         hostname TEXT NOT NULL,
         command_line TEXT NOT NULL
     );
     CREATE TABLE steps (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         name TEXT NOT NULL,
         workload_json TEXT NOT NULL,
         result_json TEXT NOT NULL,
         PRIMARY KEY (run_id, position)
     );
     CREATE TABLE histograms (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         direction TEXT NOT NULL,
         kind TEXT NOT NULL,
         hdr_v2 BLOB NOT NULL,
         PRIMARY KEY (run_id, position, direction, kind)
     );",
    ),
    // v2: host facts, the per-second series as rows, a one-line summary and a date index.
    Migration::Sql(
        "CREATE TABLE host_facts (
         run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
         facts_json TEXT NOT NULL
     );
     CREATE TABLE series (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         start_ms INTEGER NOT NULL,
         duration_ms INTEGER NOT NULL,
         read_iops REAL NOT NULL,
         read_bw_bytes_per_sec REAL NOT NULL,
         read_lat_mean_ns REAL NOT NULL,
         write_iops REAL NOT NULL,
         write_bw_bytes_per_sec REAL NOT NULL,
         write_lat_mean_ns REAL NOT NULL,
         PRIMARY KEY (run_id, position, start_ms)
     );
     ALTER TABLE runs ADD COLUMN summary TEXT NOT NULL DEFAULT '';
     CREATE INDEX runs_by_start ON runs(started_unix_ms);",
    ),
    // v3: the stored record (job file + result schema 2 instead of the internal JobSpec),
    // runs saved step by step (unfinished), the v2 rows kept in legacy_steps.
    Migration::Code(to_stored_record),
    // v4: captures (a run of kind "capture": its samples and trace profiles) and warm-ups.
    Migration::Sql(
        "CREATE TABLE capture_samples (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         seq INTEGER NOT NULL,
         start_unix_ms INTEGER NOT NULL,
         duration_ms REAL NOT NULL,
         sample_json TEXT NOT NULL,
         PRIMARY KEY (run_id, seq)
     );
     CREATE TABLE capture_traces (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         device TEXT NOT NULL,
         profile_json TEXT NOT NULL,
         PRIMARY KEY (run_id, device)
     );
     CREATE TABLE warmups (
         id INTEGER PRIMARY KEY,
         target TEXT NOT NULL,
         device TEXT NOT NULL,
         file TEXT NOT NULL,
         warmed_unix_ms INTEGER NOT NULL,
         boot_id TEXT NOT NULL,
         run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL
     );
     CREATE INDEX warmups_by_file ON warmups(file);",
    ),
    // v5: each step's data verification counts (fio `verify`), summed over its jobs.
    Migration::Sql(
        "ALTER TABLE steps ADD COLUMN verify_blocks INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE steps ADD COLUMN verify_errors INTEGER NOT NULL DEFAULT 0;",
    ),
    // v6: runs in progress (`live.rs`): one row per saving process's batch and its
    // per-second cumulative counters, read by the dashboard while the run goes.
    Migration::Sql(
        "CREATE TABLE live_runs (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         pid INTEGER NOT NULL,
         hostname TEXT NOT NULL,
         kind TEXT NOT NULL,
         name TEXT NOT NULL,
         target TEXT NOT NULL,
         started_unix_ms INTEGER NOT NULL,
         heartbeat_unix_ms INTEGER NOT NULL,
         ended_unix_ms INTEGER,
         run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL
     );
     CREATE TABLE live_points (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         live_id INTEGER NOT NULL REFERENCES live_runs(id) ON DELETE CASCADE,
         step_position INTEGER NOT NULL,
         step_name TEXT NOT NULL,
         t_unix_ms INTEGER NOT NULL,
         read_ios INTEGER NOT NULL,
         read_bytes INTEGER NOT NULL,
         write_ios INTEGER NOT NULL,
         write_bytes INTEGER NOT NULL
     );
     CREATE INDEX live_points_by_run ON live_points(live_id, id);",
    ),
    // v7: runs kept in a spool because the history could not take them (locked, read-only,
    // damaged), each recorded once it is imported, so none is imported twice (`spool.rs`).
    Migration::Sql(
        "CREATE TABLE spool_imports (
         spool_id TEXT PRIMARY KEY,
         run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
         imported_unix_ms INTEGER NOT NULL
     );",
    ),
    // v8: the jobs' exact latency histograms (result schema 4's `jobs[].histograms`) as
    // blobs, out of the stored result JSON (`job_histograms.rs`); rank -1 is the step's own
    // jobs, 0.. a merged run's ranks'; direction '' and kind '' a marker row.
    Migration::Sql(
        "CREATE TABLE job_histograms (
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         rank INTEGER NOT NULL,
         job INTEGER NOT NULL,
         direction TEXT NOT NULL,
         kind TEXT NOT NULL,
         hdr_v2 BLOB NOT NULL,
         PRIMARY KEY (run_id, position, rank, job, direction, kind)
     );",
    ),
    // v9: the loop linked (`linked.rs`): a replay's capture on its run row, the plans made
    // from a capture and the checks' verdicts (of a run, from a capture's level or not).
    Migration::Sql(
        "ALTER TABLE runs ADD COLUMN capture_id INTEGER REFERENCES runs(id) ON DELETE SET NULL;
     CREATE TABLE plans (
         id INTEGER PRIMARY KEY,
         capture_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         level TEXT NOT NULL,
         created_unix_ms INTEGER NOT NULL,
         command_line TEXT NOT NULL,
         summary TEXT NOT NULL,
         text TEXT NOT NULL,
         plan_json TEXT NOT NULL
     );
     CREATE INDEX plans_by_capture ON plans(capture_id);
     CREATE TABLE checks (
         id INTEGER PRIMARY KEY,
         run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
         step TEXT NOT NULL,
         capture_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
         level TEXT NOT NULL,
         created_unix_ms INTEGER NOT NULL,
         command_line TEXT NOT NULL,
         verdict TEXT NOT NULL,
         text TEXT NOT NULL,
         check_json TEXT NOT NULL
     );
     CREATE INDEX checks_by_run ON checks(run_id);
     CREATE INDEX checks_by_capture ON checks(capture_id);",
    ),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Brings `conn` up to `target` (at most [`SCHEMA_VERSION`]); refuses a newer database.
///
/// Each migration runs in an IMMEDIATE transaction that reads the version again inside it, so
/// two diskmeters opening the same old database at once upgrade it once. A database already
/// at `target` is only read: no write lock is taken, so another process holding one does not
/// stop this one from reading.
pub(crate) fn migrate(conn: &mut Connection, target: u32) -> Result<(), HistoryError> {
    let current: u32 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(HistoryError::NewerSchema {
            found: current,
            known: SCHEMA_VERSION,
        });
    }
    if current >= target.min(SCHEMA_VERSION) {
        return Ok(());
    }
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let current: u32 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if current > SCHEMA_VERSION {
            return Err(HistoryError::NewerSchema {
                found: current,
                known: SCHEMA_VERSION,
            });
        }
        if current >= target.min(SCHEMA_VERSION) {
            return Ok(());
        }
        match &MIGRATIONS[current as usize] {
            Migration::Sql(sql) => tx.execute_batch(sql)?,
            Migration::Code(run) => run(&tx)?,
        }
        tx.pragma_update(None, "user_version", current + 1)?;
        tx.commit()?;
    }
}

/// v3: each step's record becomes a fio job file plus result schema 2, read from the v2 row
/// once, here (`diskmeter_report::upgrade_json` is the only reader of result schema 1, whose
/// jobs embedded the internal `JobSpec`). The v2 rows are kept unchanged in `legacy_steps`;
/// a row whose result cannot be upgraded keeps its text, and loading its run then says it
/// is damaged, as it did before.
fn to_stored_record(tx: &Transaction<'_>) -> Result<(), HistoryError> {
    tx.execute_batch(
        "CREATE TABLE legacy_steps (
             run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             position INTEGER NOT NULL,
             workload_json TEXT NOT NULL,
             result_json TEXT NOT NULL,
             PRIMARY KEY (run_id, position)
         );
         INSERT INTO legacy_steps (run_id, position, workload_json, result_json)
             SELECT run_id, position, workload_json, result_json FROM steps;
         CREATE TABLE steps_v3 (
             run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             position INTEGER NOT NULL,
             name TEXT NOT NULL,
             partial INTEGER NOT NULL,
             iops REAL NOT NULL,
             bw_bytes_per_sec REAL NOT NULL,
             job_file TEXT NOT NULL,
             result_schema_version INTEGER NOT NULL,
             result_json TEXT NOT NULL,
             PRIMARY KEY (run_id, position)
         );
         ALTER TABLE runs ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0;",
    )?;
    {
        let mut read = tx.prepare("SELECT run_id, position, name, result_json FROM steps")?;
        let mut insert = tx.prepare(
            "INSERT INTO steps_v3 (run_id, position, name, partial, iops, bw_bytes_per_sec,
                 job_file, result_schema_version, result_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut rows = read.query([])?;
        while let Some(row) = rows.next()? {
            let (run_id, position, name, text): (i64, i64, String, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?);
            match diskmeter_report::upgrade_json(&text) {
                Ok(result) => {
                    let (iops, bw) = step_totals(&result);
                    insert.execute(params![
                        run_id,
                        position,
                        name,
                        result.meta.partial,
                        iops,
                        bw,
                        diskmeter_report::to_job_file(&result),
                        result.schema_version,
                        diskmeter_report::to_json(&result),
                    ])?;
                }
                Err(_) => {
                    let version = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|v| v["schema_version"].as_u64())
                        .unwrap_or(0);
                    insert.execute(params![
                        run_id,
                        position,
                        name,
                        false,
                        0.0,
                        0.0,
                        "",
                        version as i64,
                        text
                    ])?;
                }
            }
        }
    }
    tx.execute_batch(
        "DROP TABLE steps;
         ALTER TABLE steps_v3 RENAME TO steps;",
    )?;
    Ok(())
}
