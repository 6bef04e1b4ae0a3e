//! The one path by which finished runs reach the results history: every session saves into
//! it (unless `--no-save` or a dry run), step by step, so no command can run IO without
//! saving it and no finished step is lost to a later failure or a killed process.

use crate::convert;
use crate::step::{Batch, FinishedStep};
use diskmeter_history::{
    HistoryError, HistoryStore, HostFacts, NewStep, RunEnd, RunHeader, Warmup,
};
use diskmeter_report::RunInput;
use diskmeter_stats::LatencyHistogram;
use std::path::PathBuf;

/// Why a run could not be saved in the history (the run itself is unaffected).
#[derive(Debug, thiserror::Error)]
pub enum HistorySaveError {
    /// Neither `--db` nor a default location.
    #[error("no history location: set XDG_DATA_HOME or HOME, or give --db PATH")]
    NoLocation,
    /// The database refused it.
    #[error("{}: {source}", path.display())]
    Store {
        /// The database.
        path: PathBuf,
        /// Why.
        source: diskmeter_history::HistoryError,
    },
}

/// Which history a session saves into.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HistoryChoice {
    /// The user's default database ([`diskmeter_history::default_path`]).
    #[default]
    Default,
    /// This database (`--db PATH`).
    At(PathBuf),
    /// None (`--no-save`).
    Off,
}

impl HistoryChoice {
    /// The database this choice names (`None` for [`HistoryChoice::Off`]); an error when
    /// the default has no location (neither XDG_DATA_HOME nor HOME is set).
    pub fn path(&self) -> Result<Option<PathBuf>, HistorySaveError> {
        match self {
            HistoryChoice::Default => diskmeter_history::default_path()
                .map(Some)
                .ok_or(HistorySaveError::NoLocation),
            HistoryChoice::At(path) => Ok(Some(path.clone())),
            HistoryChoice::Off => Ok(None),
        }
    }
}

/// Where a run was saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedRun {
    /// Its id in the history (`diskmeter show ID`).
    pub id: i64,
    /// The database.
    pub path: PathBuf,
}

/// Saves a batch's steps in the history as each finishes: the run is begun with the first
/// finished step, each step is appended in its own transaction, and the run is finished
/// (end time, partial or not) when the batch ends. A process killed in the middle keeps the
/// steps that finished (the history lists the run as unfinished).
pub(crate) struct HistorySink {
    path: PathBuf,
    store: Option<HistoryStore>,
    run_id: Option<i64>,
    last_finished_unix_ms: u64,
    error: Option<HistorySaveError>,
}

impl HistorySink {
    /// A sink saving into `path` (opened at the first finished step).
    pub(crate) fn new(path: PathBuf) -> HistorySink {
        HistorySink {
            path,
            store: None,
            run_id: None,
            last_finished_unix_ms: 0,
            error: None,
        }
    }

    /// Saves a finished step of `batch` (beginning the run with the first). After a failure
    /// nothing more is tried: the first error is the one reported.
    pub(crate) fn add(&mut self, batch: &Batch, step: &FinishedStep) {
        if self.error.is_some() {
            return;
        }
        if let Err(source) = self.append(batch, step) {
            self.error = Some(HistorySaveError::Store {
                path: self.path.clone(),
                source,
            });
        }
    }

    fn append(&mut self, batch: &Batch, step: &FinishedStep) -> Result<(), HistoryError> {
        let store = match &mut self.store {
            Some(store) => store,
            None => self.store.insert(HistoryStore::open(&self.path)?),
        };
        let run_id = match self.run_id {
            Some(id) => id,
            None => {
                let target = batch
                    .target
                    .clone()
                    .or_else(|| convert::first_target(&step.input))
                    .unwrap_or_else(|| PathBuf::from("."));
                let target = std::path::absolute(&target).unwrap_or(target);
                let meta = &step.input.meta;
                let header = RunHeader {
                    kind: batch.kind.as_str().to_string(),
                    name: batch.name.clone().unwrap_or_else(|| step.name.clone()),
                    target: target.display().to_string(),
                    command_line: batch.command_line.clone(),
                    host: HostFacts::collect(&target),
                    started_unix_ms: meta.started_unix_ms,
                    diskmeter_version: meta.diskmeter_version.clone(),
                    hostname: meta.hostname.clone(),
                };
                *self.run_id.insert(store.begin_run(&header)?)
            }
        };
        store.append_step(
            run_id,
            &NewStep {
                name: step.name.clone(),
                result: step.result.clone(),
                histograms: merged_histograms(&step.input),
            },
        )?;
        self.last_finished_unix_ms = step.input.meta.finished_unix_ms;
        Ok(())
    }

    /// Records every file `batch` warms as warm in this boot (after its last step).
    pub(crate) fn record_warmups(&mut self, batch: &Batch) {
        if self.error.is_some() || batch.warms.is_empty() {
            return;
        }
        let (Some(store), Some(run_id)) = (&mut self.store, self.run_id) else {
            return;
        };
        let boot_id = boot_id().unwrap_or_default();
        for file in &batch.warms {
            let file = std::path::absolute(file).unwrap_or_else(|_| file.clone());
            let warmup = Warmup {
                target: batch.target.as_ref().unwrap_or(&file).display().to_string(),
                device: HostFacts::collect(&file)
                    .device
                    .map(|d| d.name)
                    .unwrap_or_default(),
                file: file.display().to_string(),
                warmed_unix_ms: self.last_finished_unix_ms,
                boot_id: boot_id.clone(),
                run_id: Some(run_id),
            };
            if let Err(source) = store.record_warmup(&warmup) {
                self.error = Some(HistorySaveError::Store {
                    path: self.path.clone(),
                    source,
                });
                return;
            }
        }
    }

    /// Finishes the run (`partial` when the batch was interrupted or stopped early) and
    /// says where it is; `Ok(None)` when no step finished.
    pub(crate) fn finish(mut self, partial: bool) -> Result<Option<SavedRun>, HistorySaveError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let (Some(store), Some(id)) = (&mut self.store, self.run_id) else {
            return Ok(None);
        };
        let end = RunEnd {
            finished_unix_ms: self.last_finished_unix_ms,
            partial,
            summary: None,
        };
        store
            .finish_run(id, &end)
            .map_err(|source| HistorySaveError::Store {
                path: self.path.clone(),
                source,
            })?;
        Ok(Some(SavedRun {
            id,
            path: self.path,
        }))
    }
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`): a page cache warmed in another boot
/// is gone.
pub(crate) fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
}

/// The workers' completion and total latency histograms merged per direction.
fn merged_histograms(input: &RunInput) -> Vec<(String, String, LatencyHistogram)> {
    let mut out = Vec::new();
    for direction in diskmeter_workload::Direction::BOTH {
        let mut clat = LatencyHistogram::new();
        let mut lat = LatencyHistogram::new();
        for job in &input.jobs {
            let stats = job.stats.direction(direction);
            clat.merge(&stats.clat);
            lat.merge(&stats.lat);
        }
        if !clat.is_empty() {
            out.push((direction.as_str().to_string(), "clat".to_string(), clat));
        }
        if !lat.is_empty() {
            out.push((direction.as_str().to_string(), "lat".to_string(), lat));
        }
    }
    out
}
