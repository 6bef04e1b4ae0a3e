//! The one path by which finished runs reach the results history: a sink every session adds
//! for itself (unless `--no-save` or a dry run), so no command can run IO without saving it.

use crate::convert;
use crate::step::{Batch, FinishedStep};
use diskmeter_history::{HistoryStore, HostFacts, NewRun, NewStep};
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

/// Collects a batch's finished steps and saves them as one run.
pub(crate) struct HistorySink {
    path: PathBuf,
    steps: Vec<NewStep>,
    first_input: Option<RunInput>,
}

impl HistorySink {
    /// A sink saving into `path`.
    pub(crate) fn new(path: PathBuf) -> HistorySink {
        HistorySink {
            path,
            steps: Vec::new(),
            first_input: None,
        }
    }

    /// Takes a finished step.
    pub(crate) fn add(&mut self, step: &FinishedStep) {
        if self.first_input.is_none() {
            self.first_input = Some(step.input.clone());
        }
        self.steps.push(NewStep {
            name: step.name.clone(),
            result: step.result.clone(),
            histograms: merged_histograms(&step.input),
        });
    }

    /// Saves what was taken as one run of `batch`; `Ok(None)` when no step finished.
    pub(crate) fn save(self, batch: &Batch) -> Result<Option<SavedRun>, HistorySaveError> {
        let Some(first) = &self.first_input else {
            return Ok(None);
        };
        let target = batch
            .target
            .clone()
            .or_else(|| convert::first_target(first))
            .unwrap_or_else(|| PathBuf::from("."));
        let target = std::path::absolute(&target).unwrap_or(target);
        let run = NewRun {
            kind: batch.kind.as_str().to_string(),
            name: batch
                .name
                .clone()
                .unwrap_or_else(|| convert::job_names(first)),
            target: target.display().to_string(),
            command_line: batch.command_line.clone(),
            host: HostFacts::collect(&target),
            steps: self.steps,
        };
        let at = |source| HistorySaveError::Store {
            path: self.path.clone(),
            source,
        };
        let mut store = HistoryStore::open(&self.path).map_err(at)?;
        let id = store.save(&run).map_err(at)?;
        Ok(Some(SavedRun {
            id,
            path: self.path,
        }))
    }
}

/// The workers' completion and total latency histograms merged per direction.
fn merged_histograms(input: &RunInput) -> Vec<(String, String, LatencyHistogram)> {
    let mut out = Vec::new();
    for (direction, pick) in [("read", 0usize), ("write", 1)] {
        let mut clat = LatencyHistogram::new();
        let mut lat = LatencyHistogram::new();
        for job in &input.jobs {
            let stats = job.stats.direction(pick);
            clat.merge(&stats.clat);
            lat.merge(&stats.lat);
        }
        if !clat.is_empty() {
            out.push((direction.to_string(), "clat".to_string(), clat));
        }
        if !lat.is_empty() {
            out.push((direction.to_string(), "lat".to_string(), lat));
        }
    }
    out
}
