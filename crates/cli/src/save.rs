//! Saving a finished run (of any command) into the results history, and opening the history
//! for the commands that read it.

use crate::run::RunFlags;
use crate::EXIT_FAILURE;
use diskmeter_history::{HistoryStore, HostFacts, NewRun, NewStep};
use diskmeter_report::{RunInput, RunResult};
use diskmeter_stats::{Direction, LatencyHistogram};
use std::path::{Path, PathBuf};

/// One step to save: its name, its result and the input it was built from (for the merged
/// histograms).
pub(crate) struct StepToSave<'a> {
    pub name: String,
    pub result: RunResult,
    pub input: &'a RunInput,
}

/// The database `--db` names, or the default one.
pub(crate) fn database_path(db: Option<&PathBuf>) -> Result<PathBuf, String> {
    match db {
        Some(path) => Ok(path.clone()),
        None => diskmeter_history::default_path().ok_or_else(|| {
            "no history location: set XDG_DATA_HOME or HOME, or give --db PATH".to_string()
        }),
    }
}

/// Opens the history for reading commands; prints why and returns the exit code on failure.
pub(crate) fn open_for_reading(db: Option<&PathBuf>) -> Result<HistoryStore, i32> {
    let path = database_path(db).map_err(|e| {
        eprintln!("diskmeter: {e}");
        EXIT_FAILURE
    })?;
    if !path.exists() {
        eprintln!(
            "diskmeter: no history at {} yet: runs are saved there as they finish",
            path.display()
        );
        return Err(EXIT_FAILURE);
    }
    HistoryStore::open(&path).map_err(|e| {
        eprintln!("diskmeter: {}: {e}", path.display());
        EXIT_FAILURE
    })
}

/// Saves the steps as one run of `kind` unless `--no-save`; prints where on stderr (unless
/// quiet). `Err(exit code)` when saving failed (the results were printed already).
pub(crate) fn save_to_history(
    kind: &str,
    name: &str,
    target: &Path,
    steps: Vec<StepToSave<'_>>,
    flags: &RunFlags,
) -> Result<Option<i64>, i32> {
    if flags.no_save || flags.dry_run || steps.is_empty() {
        return Ok(None);
    }
    let fail = |message: String| {
        eprintln!("diskmeter: could not save the run in the history: {message} (--no-save runs without it)");
        EXIT_FAILURE
    };
    let path = database_path(flags.db.as_ref()).map_err(fail)?;
    let target = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
    let run = NewRun {
        kind: kind.to_string(),
        name: name.to_string(),
        target: target.display().to_string(),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        host: HostFacts::collect(&target),
        steps: steps
            .into_iter()
            .map(|step| NewStep {
                histograms: merged_histograms(step.input),
                name: step.name,
                result: step.result,
            })
            .collect(),
    };
    let mut store =
        HistoryStore::open(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let id = store
        .save(&run)
        .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    if !flags.quiet {
        eprintln!(
            "diskmeter: saved as run {id} in {} (diskmeter show {id})",
            path.display()
        );
    }
    Ok(Some(id))
}

/// The workers' completion and total latency histograms merged per direction.
fn merged_histograms(input: &RunInput) -> Vec<(String, String, LatencyHistogram)> {
    let mut out = Vec::new();
    for pick in Direction::BOTH {
        let direction = pick.as_str();
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

/// The target a plain run was about: its first job's first file or device.
pub(crate) fn run_target(input: &RunInput) -> PathBuf {
    input
        .jobs
        .iter()
        .flat_map(|j| j.targets.iter())
        .map(|t| PathBuf::from(&t.path))
        .next()
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The names of a run's jobs, each once, for its listing.
pub(crate) fn job_names(input: &RunInput) -> String {
    let mut names: Vec<&str> = Vec::new();
    for job in &input.jobs {
        if !names.contains(&job.spec.name.as_str()) {
            names.push(&job.spec.name);
        }
    }
    names.join(",")
}
