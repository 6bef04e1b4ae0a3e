//! A capture session (`diskmeter capture`): the counter sampler, and the block tracer when
//! asked, run beside each other until the duration or the stop signal, every interval
//! handed to the command's view and appended to the history as it is measured.
//!
//! The session owns what the command must not: the devices' choice and what they sit on,
//! the stop flag, the history entry ([`CaptureRecorder`]), the tracer and where its fio
//! iolog goes (`iologs/capture-ID.log` beside the history, where `replay --exact` finds it:
//! [`diskmeter_history::capture_iolog_path`]), and the closing summary. The command gives
//! [`CaptureSettings`] and a [`CaptureView`] and renders the [`CaptureOutcome`].

use crate::history::{CaptureHeader, CaptureRecorder, HistoryChoice, HistorySaveError, SavedRun};
use diskmeter_capture::devices::{device_stack, select_devices, StackLink};
use diskmeter_capture::procfs::ProcFiles;
use diskmeter_capture::sampler::{BootClock, Interval, Sampler, SamplerConfig, SamplerEnd};
use diskmeter_capture::summary::Summary;
use diskmeter_capture::trace::{TraceError, TraceOptions, TraceSession, TraceTarget};
use diskmeter_capture::{CaptureError, TraceProfile};
use diskmeter_units::{parse_time_ns, TimeUnit};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Where the kernel's counters are read.
const PROC_ROOT: &str = "/proc";
/// Where the kernel says how devices stack.
const SYS_ROOT: &str = "/sys";

/// What to capture.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureSettings {
    /// The devices, as given (kernel names or /dev paths); empty: every whole disk with IO
    /// since boot.
    pub devices: Vec<String>,
    /// How often and how long.
    pub config: SamplerConfig,
    /// The name in the history (default: the devices).
    pub name: Option<String>,
    /// Where the capture is saved.
    pub history: HistoryChoice,
    /// Trace every IO through the block tracepoints too.
    pub trace: bool,
    /// Where the trace's fio iolog goes (default: beside the history; none without one).
    pub iolog: Option<PathBuf>,
    /// The command line, as the history lists it.
    pub command_line: String,
}

/// Why `--interval`/`--duration` cannot be sampled (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum SamplingError {
    /// A time that does not read, or is 0.
    #[error("--{option} '{text}': {reason}")]
    Time {
        /// The option, without its dashes.
        option: &'static str,
        /// What was given.
        text: String,
        /// Why it cannot be taken.
        reason: String,
    },
    /// Not one whole interval in the duration.
    #[error(
        "--duration {duration:?} is shorter than --interval {interval:?}: not one whole interval"
    )]
    ShorterThanInterval {
        /// `--duration`.
        duration: Duration,
        /// `--interval`.
        interval: Duration,
    },
}

/// Reads `--interval` and `--duration` (fio's times: a bare number is seconds): each longer
/// than 0, the duration at least one interval.
pub fn sampler_config(
    interval: &str,
    duration: Option<&str>,
) -> Result<SamplerConfig, SamplingError> {
    let time = |option: &'static str, text: &str| {
        let error = |reason: String| SamplingError::Time {
            option,
            text: text.to_string(),
            reason,
        };
        match parse_time_ns(text, TimeUnit::Seconds) {
            Err(e) => Err(error(e.to_string())),
            Ok(0) => Err(error("must be longer than 0".to_string())),
            Ok(ns) => Ok(Duration::from_nanos(ns)),
        }
    };
    let interval = time("interval", interval)?;
    let duration = duration.map(|text| time("duration", text)).transpose()?;
    if let Some(duration) = duration.filter(|&d| d < interval) {
        return Err(SamplingError::ShorterThanInterval { duration, interval });
    }
    Ok(SamplerConfig { interval, duration })
}

/// What the command shows of a capture, called in this order: [`begin`](CaptureView::begin)
/// once, [`interval`](CaptureView::interval) per interval, [`traced`](CaptureView::traced)
/// when traced, [`end`](CaptureView::end) once.
pub trait CaptureView {
    /// Before the first interval: the devices and what they sit on.
    fn begin(&mut self, devices: &[String], stacks: &[StackLink], config: &SamplerConfig);
    /// One interval as it is measured; false when nobody reads any more (a closed pipe),
    /// which ends the capture as the stop signal does.
    fn interval(&mut self, interval: &Interval) -> bool;
    /// The trace's profile of each traced device, after the last interval.
    fn traced(&mut self, profiles: &[TraceProfile]);
    /// After everything else.
    fn end(&mut self);
}

/// How a capture ended.
#[derive(Debug)]
pub struct CaptureOutcome {
    /// The one-line summary (the history listing's headline).
    pub headline: String,
    /// Where it was saved (`None` with `--no-save`, or when the history failed).
    pub saved: Option<SavedRun>,
    /// Why the history has none or only part of it.
    pub history_error: Option<HistorySaveError>,
}

/// Why a capture could not run.
#[derive(Debug, thiserror::Error)]
pub enum CaptureRunError {
    /// The devices asked for do not exist, or none has done IO: the user's input.
    #[error("{0}")]
    Devices(CaptureError),
    /// Reading the kernel's counters failed.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// The stop signal's handler could not be installed.
    #[error("cannot install the Ctrl-C handler")]
    Signals(#[source] std::io::Error),
    /// The tracer could not start.
    #[error("--trace")]
    Trace(#[source] TraceError),
    /// The folder of the trace's iolog could not be made.
    #[error("cannot create {}: {source}", path.display())]
    IologFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The tracer failed while the capture ran.
    #[error("the block trace failed")]
    TraceFailed(#[source] TraceError),
}

impl CaptureRunError {
    /// The user's input was wrong (exit code 2): an unknown device, no device with IO, or
    /// a trace that cannot be made here (not root, no tracefs, no such device).
    pub fn is_usage(&self) -> bool {
        match self {
            CaptureRunError::Devices(_) => true,
            CaptureRunError::Trace(error) => matches!(
                error,
                TraceError::NotRoot
                    | TraceError::NoSuchDevice { .. }
                    | TraceError::DeviceUnknown { .. }
                    | TraceError::NoDevices
            ),
            _ => false,
        }
    }
}

/// Runs a capture: samples until the duration or the stop signal, hands each interval to
/// `view` and to the history, then traces' profiles, then closes the history entry.
pub fn run_capture(
    settings: &CaptureSettings,
    view: &mut dyn CaptureView,
) -> Result<CaptureOutcome, CaptureRunError> {
    let files = ProcFiles::new(PROC_ROOT);
    let lines = files.diskstats()?;
    let devices =
        select_devices(&settings.devices, &lines, Path::new(SYS_ROOT)).map_err(|e| match e {
            CaptureError::UnknownDevice { .. } | CaptureError::NoActiveDevice => {
                CaptureRunError::Devices(e)
            }
            other => CaptureRunError::Capture(other),
        })?;
    let stacks: Vec<StackLink> = devices
        .iter()
        .flat_map(|d| device_stack(d, Path::new(SYS_ROOT)))
        .collect();
    let stop = crate::signals::stop_flag().map_err(CaptureRunError::Signals)?;

    let header = CaptureHeader {
        name: settings.name.clone().unwrap_or_else(|| devices.join(", ")),
        target: devices.join(", "),
        command_line: settings.command_line.clone(),
        started_unix_ms: now_unix_ms(),
        facts_path: Path::new("/dev").join(&devices[0]),
    };
    let (mut recorder, mut history_error) = match CaptureRecorder::begin(&settings.history, &header)
    {
        Ok(recorder) => (recorder, None),
        Err(error) => (None, Some(error)),
    };
    view.begin(&devices, &stacks, &settings.config);

    let tracer = if settings.trace {
        Some(start_tracer(&devices, settings, recorder.as_ref())?)
    } else {
        None
    };
    let mut summary = Summary::new(&devices);
    let mut sampler = Sampler::new(files, devices, settings.config, BootClock)?;
    let end: SamplerEnd = sampler.run(&stop, |interval| {
        if !view.interval(interval) {
            // Nobody reads any more: end as after Ctrl-C.
            stop.store(true, Ordering::Relaxed);
        }
        summary.add(interval);
        if let Some(open) = &mut recorder {
            if let Err(error) = open.append(&interval.capture_sample()) {
                // Keep watching; the end says the history has only part of it.
                history_error = Some(error);
                recorder = None;
            }
        }
    })?;
    if let Some(tracer) = tracer {
        let profiles = tracer.finish().map_err(CaptureRunError::TraceFailed)?;
        view.traced(&profiles);
        for profile in &profiles {
            if let Some(open) = &mut recorder {
                if let Err(error) = open.save_trace_profile(profile) {
                    history_error = Some(error);
                }
            }
        }
    }

    view.end();
    let headline = summary.headline();
    // Cut short only when a duration was asked for and not reached.
    let partial = end.stopped && settings.config.duration.is_some();
    let mut saved = None;
    if let Some(open) = recorder {
        match open.finish(now_unix_ms(), partial, headline.clone()) {
            Ok(run) => saved = Some(run),
            Err(error) => history_error = Some(error),
        }
    }
    Ok(CaptureOutcome {
        headline,
        saved,
        history_error,
    })
}

/// Starts tracing `devices`. The iolog goes to the one asked for, else beside the history
/// the capture is saved in, else nowhere.
fn start_tracer(
    devices: &[String],
    settings: &CaptureSettings,
    recorder: Option<&CaptureRecorder>,
) -> Result<TraceSession, CaptureRunError> {
    let targets = devices
        .iter()
        .map(|name| TraceTarget::from_name(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CaptureRunError::Trace)?;
    let iolog_path = match (&settings.iolog, recorder) {
        (Some(path), _) => Some(std::path::absolute(path).unwrap_or_else(|_| path.clone())),
        (None, Some(recorder)) => {
            let path = diskmeter_history::capture_iolog_path(recorder.path(), recorder.run_id());
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(|source| CaptureRunError::IologFolder {
                    path: folder.to_path_buf(),
                    source,
                })?;
            }
            Some(path)
        }
        (None, None) => None,
    };
    let options = TraceOptions {
        iolog_path,
        ..TraceOptions::default()
    };
    TraceSession::start(&targets, &options).map_err(CaptureRunError::Trace)
}

fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_interval_or_duration_is_an_error_naming_the_option() {
        let error = |i, d| sampler_config(i, d).unwrap_err().to_string();
        assert!(error("fast", None).starts_with("--interval 'fast': "));
        assert_eq!(error("0", None), "--interval '0': must be longer than 0");
        assert_eq!(
            error("1s", Some("0")),
            "--duration '0': must be longer than 0"
        );
        assert!(error("2s", Some("1s")).contains("shorter than --interval"));
        let config = sampler_config("500ms", Some("1m")).unwrap();
        assert_eq!(config.interval, Duration::from_millis(500));
        assert_eq!(config.duration, Some(Duration::from_secs(60)));
    }
}
