//! The one path by which finished runs reach the results history: every session saves into
//! it (unless `--no-save` or a dry run), step by step, so no command can run IO without
//! saving it and no finished step is lost to a later failure or a killed process. Captures
//! (`diskmeter capture`), which run no steps, reach it through [`CaptureRecorder`], which the
//! capture session (`capture_session.rs`) drives.

use crate::convert;
use crate::step::{Batch, FinishedStep};
use diskmeter_capture::{CaptureSample, TraceProfile};
use diskmeter_history::{
    HistoryError, HistoryStore, HostFacts, NewStep, RunEnd, RunHeader, SpoolError, SpoolFile,
    SpooledRun, SpooledRunBegun, Warmup,
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
    /// The database refused a finished run, which was kept in the spool instead (or could
    /// not be kept there either); the next save into the database imports it.
    #[error("{}: {source}; {}", path.display(), spooled_words(spooled))]
    Spooled {
        /// The database.
        path: PathBuf,
        /// Why it refused.
        source: diskmeter_history::HistoryError,
        /// The spool file the run is in, or why it could not be written (boxed: errors
        /// stay small to pass around).
        spooled: Box<Result<SpoolFile, SpoolError>>,
    },
}

/// The end of the message of a run that went to the spool.
fn spooled_words(spooled: &Result<SpoolFile, SpoolError>) -> String {
    match spooled {
        Ok(file) => format!(
            "the run is kept in {} and goes into the history at the next save{}",
            file.path.display(),
            file.why_not_beside()
        ),
        Err(error) => format!("the run could not be kept in a spool either ({error})"),
    }
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
    /// Earlier runs that had gone to the spool and were saved with this one, by id.
    pub from_spool: Vec<i64>,
}

/// Saves a batch's steps in the history as each finishes: the run is begun with the first
/// finished step, each step is appended in its own transaction, and the run is finished
/// (end time, partial or not) when the batch ends. A process killed in the middle keeps the
/// steps that finished (the history lists the run as unfinished).
///
/// Opening the history first imports the runs waiting in its spool. When the history
/// refuses a write (locked, read-only, damaged), nothing more is tried there, and at the end
/// the whole run — every finished step, which the session's outcome holds anyway — goes to
/// the spool (`diskmeter_history::SpooledRun`, saying which part the history took), so no
/// finished run is lost.
pub(crate) struct HistorySink {
    path: PathBuf,
    store: Option<HistoryStore>,
    header: Option<RunHeader>,
    run_id: Option<i64>,
    /// How many of the finished steps the history holds.
    saved_steps: u32,
    from_spool: Vec<i64>,
    last_finished_unix_ms: u64,
    error: Option<HistoryError>,
}

impl HistorySink {
    /// A sink saving into `path` (opened at the first finished step).
    pub(crate) fn new(path: PathBuf) -> HistorySink {
        HistorySink {
            path,
            store: None,
            header: None,
            run_id: None,
            saved_steps: 0,
            from_spool: Vec::new(),
            last_finished_unix_ms: 0,
            error: None,
        }
    }

    /// Saves a finished step of `batch` (beginning the run with the first). After a failure
    /// nothing more is written: the first error is the one reported, and [`finish`] spools
    /// the whole run.
    ///
    /// [`finish`]: HistorySink::finish
    pub(crate) fn add(&mut self, batch: &Batch, step: &FinishedStep) {
        let header = self
            .header
            .get_or_insert_with(|| run_header(batch, step))
            .clone();
        self.last_finished_unix_ms = step.input.meta.finished_unix_ms;
        if self.error.is_none() {
            if let Err(error) = self.append(&header, &new_step(step)) {
                self.fail(error);
            }
        }
    }

    /// After a refused write the connection is dropped: nothing more is written with it.
    fn fail(&mut self, error: HistoryError) {
        self.error = Some(error);
        self.store = None;
    }

    fn append(&mut self, header: &RunHeader, step: &NewStep) -> Result<(), HistoryError> {
        let store = match &mut self.store {
            Some(store) => store,
            None => {
                let mut store = HistoryStore::open(&self.path)?;
                // Runs an earlier process could not save go in first, in their order. One
                // that cannot be imported now stays in the spool for the next save.
                if let Ok(ids) = store.import_spool() {
                    self.from_spool = ids;
                }
                self.store.insert(store)
            }
        };
        match self.run_id {
            Some(run_id) => {
                store.append_step(run_id, step)?;
            }
            None => self.run_id = Some(store.begin_run_with_step(header, step)?),
        }
        self.saved_steps += 1;
        Ok(())
    }

    /// The run's id, once its first step is saved.
    pub(crate) fn run_id(&self) -> Option<i64> {
        self.run_id
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
            if let Err(error) = store.record_warmup(&warmup) {
                self.fail(error);
                return;
            }
        }
    }

    /// Finishes the run (`partial` when the batch was interrupted or stopped early) and
    /// says where it is; `Ok(None)` when no step finished. A run the history refused goes
    /// to the spool whole — `steps` are every step given to [`add`](HistorySink::add) — and
    /// the error says where.
    pub(crate) fn finish(
        mut self,
        partial: bool,
        steps: &[FinishedStep],
    ) -> Result<Option<SavedRun>, HistorySaveError> {
        let end = RunEnd {
            finished_unix_ms: self.last_finished_unix_ms,
            partial,
            summary: None,
        };
        if self.error.is_none() {
            let (Some(store), Some(id)) = (&mut self.store, self.run_id) else {
                return Ok(None);
            };
            match store.finish_run(id, &end) {
                Ok(()) => {
                    return Ok(Some(SavedRun {
                        id,
                        path: self.path,
                        from_spool: self.from_spool,
                    }))
                }
                Err(error) => self.fail(error),
            }
        }
        let (Some(source), Some(header)) = (self.error.take(), self.header.take()) else {
            return Ok(None);
        };
        let begun = self.run_id.map(|run_id| SpooledRunBegun {
            run_id,
            steps_saved: self.saved_steps,
        });
        let steps: Vec<NewStep> = steps.iter().map(new_step).collect();
        let spooled = SpooledRun::new(&self.path, header, &steps, end, begun).write();
        Err(HistorySaveError::Spooled {
            path: self.path,
            source,
            spooled: Box::new(spooled),
        })
    }
}

/// A finished step as the history stores it.
fn new_step(step: &FinishedStep) -> NewStep {
    NewStep {
        name: step.name.clone(),
        result: step.result.clone(),
        histograms: match &step.result.scale_out {
            // A run across hosts: `input` is rank 0's alone, and the merged result's jobs
            // carry every rank's histograms, which the history stores.
            Some(_) => Vec::new(),
            None => merged_histograms(&step.input),
        },
    }
}

/// What the history lists a batch under, from its first finished step.
fn run_header(batch: &Batch, step: &FinishedStep) -> RunHeader {
    let target = batch
        .target
        .clone()
        .or_else(|| convert::first_target(&step.input))
        .unwrap_or_else(|| PathBuf::from("."));
    let target = std::path::absolute(&target).unwrap_or(target);
    let meta = &step.input.meta;
    RunHeader {
        kind: batch.kind.as_str().to_string(),
        name: batch.name.clone().unwrap_or_else(|| step.name.clone()),
        target: target.display().to_string(),
        command_line: batch.command_line.clone(),
        host: HostFacts::collect(&target),
        started_unix_ms: meta.started_unix_ms,
        diskmeter_version: meta.diskmeter_version.clone(),
        hostname: meta.hostname.clone(),
        capture_id: batch.capture_id,
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
pub(crate) fn merged_histograms(input: &RunInput) -> Vec<(String, String, LatencyHistogram)> {
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

/// What a capture is saved under ([`CaptureRecorder::begin`]).
#[derive(Debug, Clone)]
pub struct CaptureHeader {
    /// The capture's name (`--name`), or the devices.
    pub name: String,
    /// The devices watched, as listed ("loop3, vda").
    pub target: String,
    /// The command line as given.
    pub command_line: String,
    /// Start, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// The path whose device the host facts describe (`/dev/NAME` of the first device).
    pub facts_path: PathBuf,
}

/// Saves a capture in the history as it is measured: begun once, one sample appended per
/// interval (each in its own transaction, so a killed capture keeps what it saw and nothing
/// is held in memory), finished with a one-line summary. The capture counterpart of the
/// sessions' history sink, and like it the only code that writes captures.
pub struct CaptureRecorder {
    store: HistoryStore,
    path: PathBuf,
    run_id: i64,
}

impl CaptureRecorder {
    /// Begins a capture in the history `choice` names; `Ok(None)` for `--no-save`.
    pub fn begin(
        choice: &HistoryChoice,
        header: &CaptureHeader,
    ) -> Result<Option<CaptureRecorder>, HistorySaveError> {
        let Some(path) = choice.path()? else {
            return Ok(None);
        };
        let store_error = |source| HistorySaveError::Store {
            path: path.clone(),
            source,
        };
        let mut store = HistoryStore::open(&path).map_err(store_error)?;
        let run_id = store
            .begin_run(&RunHeader {
                kind: diskmeter_history::CAPTURE_KIND.to_string(),
                name: header.name.clone(),
                target: header.target.clone(),
                command_line: header.command_line.clone(),
                host: HostFacts::collect(&header.facts_path),
                started_unix_ms: header.started_unix_ms,
                diskmeter_version: env!("CARGO_PKG_VERSION").to_string(),
                hostname: convert::kernel_hostname(),
                capture_id: None,
            })
            .map_err(store_error)?;
        Ok(Some(CaptureRecorder {
            store,
            path,
            run_id,
        }))
    }

    /// The capture's id in the history.
    pub fn run_id(&self) -> i64 {
        self.run_id
    }

    /// The database the capture is saved in.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Appends one interval.
    pub fn append(&mut self, sample: &CaptureSample) -> Result<(), HistorySaveError> {
        self.store
            .append_capture_sample(self.run_id, sample)
            .map(|_| ())
            .map_err(|source| self.error(source))
    }

    /// Saves the trace profile of one device.
    pub fn save_trace_profile(&mut self, profile: &TraceProfile) -> Result<(), HistorySaveError> {
        self.store
            .save_trace_profile(self.run_id, profile)
            .map_err(|source| self.error(source))
    }

    /// Closes the capture: its end, whether it was cut short, and its listing's headline.
    pub fn finish(
        mut self,
        finished_unix_ms: u64,
        partial: bool,
        summary: String,
    ) -> Result<SavedRun, HistorySaveError> {
        let end = RunEnd {
            finished_unix_ms,
            partial,
            summary: Some(summary),
        };
        self.store
            .finish_run(self.run_id, &end)
            .map_err(|source| self.error(source))?;
        Ok(SavedRun {
            id: self.run_id,
            path: self.path,
            from_spool: Vec::new(),
        })
    }

    fn error(&self, source: HistoryError) -> HistorySaveError {
        HistorySaveError::Store {
            path: self.path.clone(),
            source,
        }
    }
}

/// A plan made from a capture or a check's verdicts, to keep beside the runs they link
/// ([`save_linked`]).
#[derive(Debug, Clone)]
pub enum LinkedRecord {
    /// `diskmeter plan --from-capture ID`'s answer.
    Plan(diskmeter_history::NewPlan),
    /// `diskmeter check`'s verdicts.
    Check(diskmeter_history::NewCheck),
}

/// Saves `record` into the history `db` names (or the default one) in one transaction, with
/// this process's command line and the time now, and says where. Its command printed it
/// already: a refused save (locked, read-only, damaged) loses only the link, which running
/// the command again makes, so it goes to no spool; the caller reports it.
pub fn save_linked(
    db: Option<&std::path::Path>,
    record: LinkedRecord,
) -> Result<SavedRun, HistorySaveError> {
    let path = match db {
        Some(path) => path.to_path_buf(),
        None => diskmeter_history::default_path().ok_or(HistorySaveError::NoLocation)?,
    };
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    let now_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let saved = HistoryStore::open(&path).and_then(|mut store| match record {
        LinkedRecord::Plan(mut plan) => {
            (plan.command_line, plan.created_unix_ms) = (command_line, now_unix_ms);
            store.save_plan(&plan)
        }
        LinkedRecord::Check(mut check) => {
            (check.command_line, check.created_unix_ms) = (command_line, now_unix_ms);
            store.save_check(&check)
        }
    });
    match saved {
        Ok(id) => Ok(SavedRun {
            id,
            path,
            from_spool: Vec::new(),
        }),
        Err(source) => Err(HistorySaveError::Store { path, source }),
    }
}
