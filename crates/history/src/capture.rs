//! Captures in the history: a capture is a run of kind `"capture"` (begun and finished like
//! any run, so it lists, shows and is `last` like one) whose body is its interval samples
//! (`capture_samples`, one row per interval, appended as they are measured so a killed capture
//! keeps what it saw) and, when traced, one profile per device (`capture_traces`). Warm-ups
//! (`warmups`) record which file a warm-up suite left warm, and in which boot.

use crate::write::require_unfinished;
use crate::{HistoryError, HistoryStore, RunSummary};
use diskmeter_capture::{CaptureSample, TraceProfile};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The kind of run a capture is saved as.
pub const CAPTURE_KIND: &str = "capture";

/// A whole stored capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredCapture {
    /// Its listing (kind "capture"; `target` names the devices).
    pub summary: RunSummary,
    /// The samples in order.
    pub samples: Vec<CaptureSample>,
    /// One profile per traced device (empty for a counter capture).
    pub traces: Vec<TraceProfile>,
}

/// A warm-up that left a file in the host cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// The target as the user named it.
    pub target: String,
    /// The block device under it (`vda`), or "" when unknown.
    pub device: String,
    /// The file warmed, absolute path.
    pub file: String,
    /// When the warm-up finished, ms since the Unix epoch.
    pub warmed_unix_ms: u64,
    /// `/proc/sys/kernel/random/boot_id` at that time: a warm-up from another boot is cold.
    pub boot_id: String,
    /// The run that did it, if saved.
    pub run_id: Option<i64>,
}

impl HistoryStore {
    /// Appends one interval sample to the unfinished capture `run_id`, in its own transaction.
    pub fn append_capture_sample(
        &mut self,
        run_id: i64,
        sample: &CaptureSample,
    ) -> Result<u64, HistoryError> {
        let json =
            serde_json::to_string(sample).map_err(|source| HistoryError::DamagedCapture {
                run_id,
                what: "sample",
                source,
            })?;
        let tx = self.write_transaction()?;
        require_unfinished(&tx, run_id)?;
        let seq: u64 = tx.query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM capture_samples WHERE run_id = ?1",
            [run_id],
            |row| row.get(0),
        )?;
        tx.execute(
            "INSERT INTO capture_samples (run_id, seq, start_unix_ms, duration_ms, sample_json)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                run_id,
                seq as i64,
                sample.start_unix_ms as i64,
                sample.duration_ms,
                json
            ],
        )?;
        let end = sample.start_unix_ms as f64 + sample.duration_ms;
        tx.execute(
            "UPDATE runs SET finished_unix_ms = MAX(finished_unix_ms, ?2) WHERE id = ?1",
            params![run_id, end as i64],
        )?;
        tx.commit()?;
        Ok(seq)
    }

    /// Saves (or replaces) the trace profile of one device of the unfinished capture `run_id`.
    pub fn save_trace_profile(
        &mut self,
        run_id: i64,
        profile: &TraceProfile,
    ) -> Result<(), HistoryError> {
        let json =
            serde_json::to_string(profile).map_err(|source| HistoryError::DamagedCapture {
                run_id,
                what: "trace profile",
                source,
            })?;
        let tx = self.write_transaction()?;
        require_unfinished(&tx, run_id)?;
        tx.execute(
            "INSERT OR REPLACE INTO capture_traces (run_id, device, profile_json)
             VALUES (?1, ?2, ?3)",
            params![run_id, profile.device, json],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Loads the capture `run_id` (refused with [`HistoryError::NotACapture`] for other runs).
    pub fn load_capture(&self, run_id: i64) -> Result<StoredCapture, HistoryError> {
        let summary = self.load(run_id)?.summary;
        if summary.kind != CAPTURE_KIND {
            return Err(HistoryError::NotACapture(run_id));
        }
        let mut samples = Vec::new();
        self.for_each_capture_sample(run_id, |sample| samples.push(sample))?;
        let traces = self.capture_traces(run_id)?;
        Ok(StoredCapture {
            summary,
            samples,
            traces,
        })
    }

    /// The trace profiles of capture `run_id` (one per traced device, by device name; empty
    /// for a counter capture), without its samples.
    pub fn capture_traces(&self, run_id: i64) -> Result<Vec<TraceProfile>, HistoryError> {
        let mut statement = self
            .conn
            .prepare("SELECT profile_json FROM capture_traces WHERE run_id = ?1 ORDER BY device")?;
        let rows = statement.query_map([run_id], |row| row.get::<_, String>(0))?;
        let mut traces = Vec::new();
        for row in rows {
            traces.push(serde_json::from_str(&row?).map_err(|source| {
                HistoryError::DamagedCapture {
                    run_id,
                    what: "trace profile",
                    source,
                }
            })?);
        }
        Ok(traces)
    }

    /// Streams the samples of capture `run_id` in order without holding them all (a 24-hour
    /// capture at 1 s is 86,400 samples).
    pub fn for_each_capture_sample(
        &self,
        run_id: i64,
        mut each: impl FnMut(CaptureSample),
    ) -> Result<(), HistoryError> {
        let mut statement = self
            .conn
            .prepare("SELECT sample_json FROM capture_samples WHERE run_id = ?1 ORDER BY seq")?;
        let mut rows = statement.query([run_id])?;
        while let Some(row) = rows.next()? {
            let json: String = row.get(0)?;
            let sample =
                serde_json::from_str(&json).map_err(|source| HistoryError::DamagedCapture {
                    run_id,
                    what: "sample",
                    source,
                })?;
            each(sample);
        }
        Ok(())
    }

    /// The newest capture's id, if any.
    pub fn newest_capture_id(&self) -> Result<Option<i64>, HistoryError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs WHERE kind = ?1 ORDER BY started_unix_ms DESC, id DESC LIMIT 1",
                [CAPTURE_KIND],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// Records a warm-up.
    pub fn record_warmup(&mut self, warmup: &Warmup) -> Result<(), HistoryError> {
        self.conn.execute(
            "INSERT INTO warmups (target, device, file, warmed_unix_ms, boot_id, run_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                warmup.target,
                warmup.device,
                warmup.file,
                warmup.warmed_unix_ms as i64,
                warmup.boot_id,
                warmup.run_id
            ],
        )?;
        Ok(())
    }

    /// The newest warm-up of `file` (absolute path), if any.
    pub fn last_warmup(&self, file: &str) -> Result<Option<Warmup>, HistoryError> {
        Ok(self
            .conn
            .query_row(
                "SELECT target, device, file, warmed_unix_ms, boot_id, run_id FROM warmups
                 WHERE file = ?1 ORDER BY warmed_unix_ms DESC, id DESC LIMIT 1",
                [file],
                |row| {
                    Ok(Warmup {
                        target: row.get(0)?,
                        device: row.get(1)?,
                        file: row.get(2)?,
                        warmed_unix_ms: row.get::<_, i64>(3)? as u64,
                        boot_id: row.get(4)?,
                        run_id: row.get(5)?,
                    })
                },
            )
            .optional()?)
    }
}
