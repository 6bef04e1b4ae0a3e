//! Writing runs: all at once ([`HistoryStore::save`], one transaction) or as they go
//! ([`HistoryStore::begin_run`], [`HistoryStore::append_step`], [`HistoryStore::finish_run`],
//! one transaction each, so a finished step survives whatever happens to the process next).
//!
//! Every write transaction is IMMEDIATE: it takes the write lock before reading, so two
//! processes appending at once wait for each other (busy timeout) instead of failing on a
//! read snapshot that went stale.

use crate::{step_series, HistoryError, HistoryStore, NewRun, NewStep, RunEnd, RunHeader};
use diskmeter_report::{RunResult, SCHEMA_VERSION as RESULT_SCHEMA_VERSION};
use diskmeter_units::MIB_F64;
use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};
use serde::Serialize;

impl HistoryStore {
    /// Saves the whole `run` in one transaction and returns its id (a run that is over
    /// before it is saved; [`HistoryStore::begin_run`] saves one as it goes).
    pub fn save(&mut self, run: &NewRun) -> Result<i64, HistoryError> {
        let first = run.steps.first().map(|s| &s.result.meta);
        let header = RunHeader {
            kind: run.kind.clone(),
            name: run.name.clone(),
            target: run.target.clone(),
            command_line: run.command_line.clone(),
            host: run.host.clone(),
            started_unix_ms: first.map_or(0, |m| m.started_unix_ms),
            diskmeter_version: first.map_or_else(String::new, |m| m.diskmeter_version.clone()),
            hostname: first.map_or_else(String::new, |m| m.hostname.clone()),
            capture_id: None,
        };
        let end = RunEnd {
            finished_unix_ms: run
                .steps
                .last()
                .map_or(header.started_unix_ms, |s| s.result.meta.finished_unix_ms),
            partial: false,
            summary: None,
        };
        let tx = self.write_transaction()?;
        let run_id = insert_run(&tx, &header)?;
        for (position, step) in run.steps.iter().enumerate() {
            insert_step(&tx, run_id, position as u32, step)?;
        }
        close_run(&tx, run_id, &end)?;
        tx.commit()?;
        Ok(run_id)
    }

    /// Records that a run has begun and returns its id. Until [`HistoryStore::finish_run`]
    /// the run lists as unfinished (and partial), with the steps appended so far.
    pub fn begin_run(&mut self, header: &RunHeader) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        let run_id = insert_run(&tx, header)?;
        tx.commit()?;
        Ok(run_id)
    }

    /// Begins a run with its first finished step, in one transaction, and returns its id: a
    /// run is then never listed without a step, whenever its process is killed.
    pub fn begin_run_with_step(
        &mut self,
        header: &RunHeader,
        step: &NewStep,
    ) -> Result<i64, HistoryError> {
        let tx = self.write_transaction()?;
        let run_id = insert_run(&tx, header)?;
        insert_step(&tx, run_id, 0, step)?;
        show_progress(&tx, run_id, step)?;
        tx.commit()?;
        Ok(run_id)
    }

    /// Saves one finished step of the unfinished run `run_id`, after its other steps, in its
    /// own transaction; returns its position (0 for the first).
    pub fn append_step(&mut self, run_id: i64, step: &NewStep) -> Result<u32, HistoryError> {
        let tx = self.write_transaction()?;
        require_unfinished(&tx, run_id)?;
        let position: u32 = tx.query_row(
            "SELECT COALESCE(MAX(position) + 1, 0) FROM steps WHERE run_id = ?1",
            [run_id],
            |row| row.get(0),
        )?;
        insert_step(&tx, run_id, position, step)?;
        show_progress(&tx, run_id, step)?;
        tx.commit()?;
        Ok(position)
    }

    /// Closes the unfinished run `run_id`: its end time, whether it was partial (a run with a
    /// partial step is partial whatever `end` says) and its headline.
    pub fn finish_run(&mut self, run_id: i64, end: &RunEnd) -> Result<(), HistoryError> {
        let tx = self.write_transaction()?;
        require_unfinished(&tx, run_id)?;
        close_run(&tx, run_id, end)?;
        tx.commit()?;
        Ok(())
    }

    /// A transaction that takes the write lock first (see the module's documentation).
    pub(crate) fn write_transaction(&mut self) -> Result<Transaction<'_>, HistoryError> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

/// Inserts the run's row, unfinished and partial until [`close_run`], and its host facts.
pub(crate) fn insert_run(tx: &Transaction<'_>, header: &RunHeader) -> Result<i64, HistoryError> {
    tx.execute(
        "INSERT INTO runs (kind, name, target, started_unix_ms, finished_unix_ms, partial,
             unfinished, diskmeter_version, hostname, command_line, summary, capture_id)
         VALUES (?1, ?2, ?3, ?4, ?4, 1, 1, ?5, ?6, ?7, '', (SELECT id FROM runs WHERE id = ?8))",
        params![
            header.kind,
            header.name,
            header.target,
            header.started_unix_ms as i64,
            header.diskmeter_version,
            header.hostname,
            header.command_line,
            header.capture_id,
        ],
    )?;
    let run_id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO host_facts (run_id, facts_json) VALUES (?1, ?2)",
        params![run_id, to_json(&header.host)],
    )?;
    Ok(run_id)
}

/// The listing of an unfinished run shows how far it got: the end of its last step and the
/// headline of the steps so far.
fn show_progress(tx: &Transaction<'_>, run_id: i64, step: &NewStep) -> Result<(), HistoryError> {
    tx.execute(
        "UPDATE runs SET finished_unix_ms = MAX(finished_unix_ms, ?2), summary = ?3
         WHERE id = ?1",
        params![
            run_id,
            step.result.meta.finished_unix_ms as i64,
            headline(tx, run_id)?
        ],
    )?;
    Ok(())
}

/// Fails unless `run_id` exists and is not finished.
pub(crate) fn require_unfinished(tx: &Transaction<'_>, run_id: i64) -> Result<(), HistoryError> {
    let unfinished: Option<bool> = tx
        .query_row(
            "SELECT unfinished FROM runs WHERE id = ?1",
            [run_id],
            |row| row.get(0),
        )
        .optional()?;
    match unfinished {
        None => Err(HistoryError::NoSuchRun(run_id)),
        Some(false) => Err(HistoryError::RunFinished(run_id)),
        Some(true) => Ok(()),
    }
}

pub(crate) fn close_run(
    tx: &Transaction<'_>,
    run_id: i64,
    end: &RunEnd,
) -> Result<(), HistoryError> {
    let summary = match &end.summary {
        Some(text) => text.clone(),
        None => headline(tx, run_id)?,
    };
    tx.execute(
        "UPDATE runs SET unfinished = 0, finished_unix_ms = ?2, summary = ?3,
             partial = ?4 OR EXISTS (SELECT 1 FROM steps WHERE run_id = ?1 AND partial)
         WHERE id = ?1",
        params![run_id, end.finished_unix_ms as i64, summary, end.partial],
    )?;
    Ok(())
}

/// Inserts one step: its record (job file and result), histograms and series rows.
pub(crate) fn insert_step(
    tx: &Transaction<'_>,
    run_id: i64,
    position: u32,
    step: &NewStep,
) -> Result<(), HistoryError> {
    let (iops, bw) = step_totals(&step.result);
    let (verify_blocks, verify_errors) = step_verify_counts(&step.result);
    // The jobs' histograms are stored once, as blobs (`job_histograms.rs`).
    let mut stored = step.result.clone();
    let job_rows = crate::job_histograms::strip(&mut stored);
    let jobs_have_histograms = stored.jobs.iter().all(|j| j.histograms.is_none())
        && step.result.jobs.iter().all(|j| j.histograms.is_some());
    tx.execute(
        "INSERT INTO steps (run_id, position, name, partial, iops, bw_bytes_per_sec, job_file,
             result_schema_version, result_json, verify_blocks, verify_errors)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            run_id,
            position,
            step.name,
            step.result.meta.partial,
            iops,
            bw,
            diskmeter_report::to_job_file(&step.result),
            RESULT_SCHEMA_VERSION,
            diskmeter_report::to_json(&stored),
            verify_blocks as i64,
            verify_errors as i64,
        ],
    )?;
    crate::job_histograms::insert(tx, run_id, position, &job_rows)?;
    for (direction, kind, histogram) in &step.histograms {
        // The jobs' rows merge into the step's histogram when read: no second copy.
        if histogram.is_empty() || jobs_have_histograms {
            continue;
        }
        // A histogram that cannot be serialised is left out: the result keeps its
        // percentiles, and a history must not lose a run for want of a blob.
        if let Ok(bytes) = histogram.to_bytes() {
            tx.execute(
                "INSERT INTO histograms (run_id, position, direction, kind, hdr_v2)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, position, direction, kind, bytes],
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
            position,
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
    Ok(())
}

/// A step's IOPS and bandwidth (bytes/s), reads and writes of all its jobs together.
pub(crate) fn step_totals(result: &RunResult) -> (f64, f64) {
    result.jobs.iter().fold((0.0, 0.0), |(iops, bw), job| {
        (
            iops + job.read.iops + job.write.iops,
            bw + job.read.bw_bytes_per_sec + job.write.bw_bytes_per_sec,
        )
    })
}

/// Blocks read back and verify errors of a step's jobs together (fio `verify`).
fn step_verify_counts(result: &RunResult) -> (u64, u64) {
    result
        .jobs
        .iter()
        .filter_map(|job| job.verify.as_ref())
        .fold((0, 0), |(blocks, errors), v| {
            (blocks + v.blocks, errors + v.errors)
        })
}

/// "5012 IOPS, 19.6 MiB/s" for one step; "8 steps, up to 89597 IOPS and 6319.0 MiB/s" (the
/// step with the most IOPS and the one with the most bandwidth) for several; either with
/// ", 3 verify errors" when blocks read back did not match, and led by "4 ranks: " for a run
/// across hosts (its merged steps' `scale_out.ranks`).
fn headline(tx: &Transaction<'_>, run_id: i64) -> Result<String, HistoryError> {
    let (steps, iops, bw, verify_errors, ranks): (u32, f64, f64, i64, Option<i64>) = tx.query_row(
        "SELECT COUNT(*), COALESCE(MAX(iops), 0), COALESCE(MAX(bw_bytes_per_sec), 0),
                 COALESCE(SUM(verify_errors), 0),
                 MAX(json_extract(result_json, '$.scale_out.ranks'))
             FROM steps WHERE run_id = ?1",
        [run_id],
        |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        },
    )?;
    let figures = match steps {
        0 => "no step finished".to_string(),
        1 => format!("{iops:.0} IOPS, {:.1} MiB/s", bw / MIB_F64),
        n => format!(
            "{n} steps, up to {iops:.0} IOPS and {:.1} MiB/s",
            bw / MIB_F64
        ),
    };
    let figures = match ranks {
        Some(ranks) => format!("{ranks} ranks: {figures}"),
        None => figures,
    };
    Ok(match verify_errors {
        0 => figures,
        n => format!("{figures}, {n} verify errors"),
    })
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}
