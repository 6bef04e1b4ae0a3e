//! The jobs' exact latency histograms (result schema 4's `jobs[].histograms`), kept once:
//! as blobs in `job_histograms`, not also as base64 text in the stored result.
//!
//! On save the histograms are taken out of the result (its jobs' and, for a merged run, its
//! ranks' jobs') and stored as rows; on load they are put back, so a loaded result is the
//! result saved. A step whose jobs all carry histograms needs no rows in the older
//! `histograms` table (the step's merged clat and lat): [`HistoryStore::histogram`] merges
//! them from its jobs' rows instead.

use diskmeter_report::{EncodedHistogram, JobHistograms, RunResult};
use diskmeter_stats::LatencyHistogram;
use rusqlite::{params, Connection, Transaction};

use crate::HistoryError;

/// The `rank` column of the step's own jobs (a merged run's ranks are 0, 1, ...).
const STEP_ITSELF: i64 = -1;
/// The `direction` of a job's sync histogram.
const SYNC_DIRECTION: &str = "";

/// One row: (rank, job, direction, kind, blob).
type Row = (i64, i64, String, String, Vec<u8>);

/// Takes the histograms out of `result` (and out of its ranks) and returns them as rows.
/// A histogram whose text does not decode stays in the result (kept as it came).
pub(crate) fn strip(result: &mut RunResult) -> Vec<Row> {
    let mut rows = Vec::new();
    strip_jobs(result, STEP_ITSELF, &mut rows);
    for (rank, member) in result.ranks.iter_mut().enumerate() {
        strip_jobs(member, rank as i64, &mut rows);
    }
    rows
}

fn strip_jobs(result: &mut RunResult, rank: i64, rows: &mut Vec<Row>) {
    for (index, job) in result.jobs.iter_mut().enumerate() {
        let Some(histograms) = job.histograms.take() else {
            continue;
        };
        // A marker row says the job had histograms (all may be empty: a job with no IO),
        // another that it had a trim direction.
        let mut kept = vec![(String::new(), String::new(), Vec::new())];
        if histograms.trim.is_some() {
            kept.push(("trim".to_string(), String::new(), Vec::new()));
        }
        let mut all_bytes = true;
        for (direction, hists) in histograms.directions() {
            for (kind, encoded) in hists.kinds() {
                push(&mut kept, &mut all_bytes, direction, kind, encoded);
            }
        }
        push(
            &mut kept,
            &mut all_bytes,
            SYNC_DIRECTION,
            "sync",
            &histograms.sync,
        );
        if !all_bytes {
            job.histograms = Some(histograms);
            continue;
        }
        rows.extend(
            kept.into_iter()
                .map(|(direction, kind, bytes)| (rank, index as i64, direction, kind, bytes)),
        );
    }
}

fn push(
    kept: &mut Vec<(String, String, Vec<u8>)>,
    all_bytes: &mut bool,
    direction: &str,
    kind: &str,
    encoded: &EncodedHistogram,
) {
    if encoded.is_empty() {
        return;
    }
    match encoded.to_bytes() {
        Ok(bytes) => kept.push((direction.to_string(), kind.to_string(), bytes)),
        Err(_) => *all_bytes = false,
    }
}

/// Inserts a step's rows.
pub(crate) fn insert(
    tx: &Transaction<'_>,
    run_id: i64,
    position: u32,
    rows: &[Row],
) -> Result<(), HistoryError> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO job_histograms (run_id, position, rank, job, direction, kind, hdr_v2)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (rank, job, direction, kind, bytes) in rows {
        insert.execute(params![run_id, position, rank, job, direction, kind, bytes])?;
    }
    Ok(())
}

/// Puts the stored histograms of step `position` of run `run_id` back into `result`.
pub(crate) fn restore(
    conn: &Connection,
    run_id: i64,
    position: u32,
    result: &mut RunResult,
) -> Result<(), HistoryError> {
    let mut statement = conn.prepare_cached(
        "SELECT rank, job, direction, kind, hdr_v2 FROM job_histograms
         WHERE run_id = ?1 AND position = ?2",
    )?;
    let rows = statement.query_map(params![run_id, position], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, String>(3)?,
            row.get::<_, Vec<u8>>(4)?,
        ))
    })?;
    for row in rows {
        let (rank, job, direction, kind, bytes) = row?;
        let member = if rank == STEP_ITSELF {
            Some(&mut *result)
        } else {
            result.ranks.get_mut(rank as usize)
        };
        let Some(job) = member.and_then(|m| m.jobs.get_mut(job as usize)) else {
            continue;
        };
        let histograms = job.histograms.get_or_insert_with(JobHistograms::default);
        let encoded = EncodedHistogram::from_bytes(&bytes);
        match (direction.as_str(), kind.as_str()) {
            (SYNC_DIRECTION, "sync") => histograms.sync = encoded,
            (SYNC_DIRECTION, _) => {} // the marker: the job has histograms
            (direction, "") => {
                histograms.direction_mut(direction);
            }
            (direction, kind) => {
                if let Some(slot) = histograms
                    .direction_mut(direction)
                    .and_then(|d| d.kind_mut(kind))
                {
                    *slot = encoded;
                }
            }
        }
    }
    Ok(())
}

/// The step's merged histogram of `direction` and `kind` from its jobs' rows; `None` when
/// it has none.
pub(crate) fn merged(
    conn: &Connection,
    run_id: i64,
    position: u32,
    direction: &str,
    kind: &str,
) -> Result<Option<LatencyHistogram>, HistoryError> {
    let mut statement = conn.prepare_cached(
        "SELECT hdr_v2 FROM job_histograms
         WHERE run_id = ?1 AND position = ?2 AND rank = ?3 AND direction = ?4 AND kind = ?5",
    )?;
    let rows = statement.query_map(
        params![run_id, position, STEP_ITSELF, direction, kind],
        |row| row.get::<_, Vec<u8>>(0),
    )?;
    let mut out: Option<LatencyHistogram> = None;
    for bytes in rows {
        if let Ok(histogram) = LatencyHistogram::from_bytes(&bytes?) {
            out.get_or_insert_with(LatencyHistogram::new)
                .merge(&histogram);
        }
    }
    Ok(out)
}
