//! The schema, as a list of versioned migrations. A database records the version it is at in
//! SQLite's `user_version`; opening applies the missing migrations in one transaction each,
//! so a database made by an older diskmeter opens (and is upgraded) and one made by a newer
//! diskmeter is refused instead of misread.

use crate::HistoryError;
use rusqlite::Connection;

/// Each migration's SQL; migration `i` takes the database from version `i` to `i + 1`.
/// Never edit a released migration: append a new one.
const MIGRATIONS: &[&str] = &[
    // v1: runs, their steps (workload and full result as JSON) and merged histograms.
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
    // v2: host facts, the per-second series as rows, a one-line summary and a date index.
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
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Brings `conn` up to `target` (at most [`SCHEMA_VERSION`]); refuses a newer database.
pub(crate) fn migrate(conn: &mut Connection, target: u32) -> Result<(), HistoryError> {
    let current: u32 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(HistoryError::NewerSchema {
            found: current,
            known: SCHEMA_VERSION,
        });
    }
    for version in current..target.min(SCHEMA_VERSION) {
        let tx = conn.transaction()?;
        tx.execute_batch(MIGRATIONS[version as usize])?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
    Ok(())
}
