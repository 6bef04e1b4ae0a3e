//! `diskmeter capture`: watch the block devices an application uses, iostat-style, and save
//! the series in the history as a capture (no root needed).
//!
//! The command reads its options ([`CaptureRequest`]), picks the devices and what they sit on
//! (crates/capture `devices`), then runs the sampler with [`record_intervals`], which hands
//! every interval to the [`CaptureSinks`]: the live view (text, [`view`]) or iostat's JSON
//! ([`json`]), the history, and the running means of the closing summary ([`summary`]).

mod json;
mod summary;
mod trace;
mod view;

use crate::{Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_capture::devices::{device_stack, select_devices, StackLink};
use diskmeter_capture::procfs::ProcFiles;
use diskmeter_capture::sampler::{BootClock, Interval, Sampler, SamplerConfig, SamplerEnd};
use diskmeter_capture::CaptureError;
use diskmeter_orchestrator::{CaptureHeader, CaptureRecorder, HistoryChoice, HistorySaveError};
use diskmeter_units::{parse_time_ns, TimeUnit};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Where the kernel's counters are read.
const PROC_ROOT: &str = "/proc";
/// Where the kernel says how devices stack.
const SYS_ROOT: &str = "/sys";

/// The `capture` subcommand's definition.
pub fn command() -> Command {
    Command::new("capture")
        .about("Watch the block devices' IO like iostat -x and save the series (no root needed)")
        .long_about(
            "Samples /proc/diskstats, /proc/stat, /proc/meminfo and /proc/pressure/io every \
             --interval and shows iostat -x's columns per device (r/s, w/s, rMB/s, wMB/s, \
             r_await, w_await, aqu-sz, rareq-sz, wareq-sz, %util) with the CPU and memory, \
             computed as sysstat's iostat computes them: over the same seconds they agree with \
             `iostat -x` within 1 %. MB and kB are iostat's: MiB and KiB.\n\n\
             Without --device, watches every whole disk that has done IO since boot, as iostat \
             does. Each device is shown with what it sits on, where the kernel says so \
             (device-mapper and md members, partitions, a loop device's backing file).\n\n\
             Runs for --duration, or until Ctrl-C (which ends it normally, exit 0, after the \
             last whole interval). Saves the series in the results history as a capture, one \
             interval at a time (diskmeter history --kind capture lists them). \
             --format json prints iostat's own JSON (iostat -x -o JSON), so tools that read \
             iostat's JSON read it.",
        )
        .arg(
            Arg::new("device")
                .long("device")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Watch this device: a kernel name (sda, nvme0n1p2, loop3, dm-0) or a /dev path; repeat for more (default: every whole disk with IO since boot)"),
        )
        .arg(
            Arg::new("interval")
                .long("interval")
                .value_name("TIME")
                .default_value("1s")
                .help("Length of one sample (e.g. 1s, 500ms, 5m; a bare number is seconds)"),
        )
        .arg(
            Arg::new("duration")
                .long("duration")
                .value_name("TIME")
                .help("Stop after this long (default: run until Ctrl-C)"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["text", "json"])
                .default_value("text")
                .help("text: a live iostat-style view; json: iostat -x -o JSON's document, one statistics entry per interval"),
        )
        .arg(
            Arg::new("trace")
                .long("trace")
                .action(ArgAction::SetTrue)
                .help("Also trace every IO of the devices through the kernel's block tracepoints (root): size distribution, random share, queue depth, device latency, hot set, processes"),
        )
        .arg(
            Arg::new("iolog")
                .long("iolog")
                .value_name("FILE")
                .requires("trace")
                .value_parser(clap::value_parser!(std::path::PathBuf))
                .help("With --trace: write the traced IO as an fio iolog (version 3) here [default: next to the history, iologs/capture-ID.log; none with --no-save]"),
        )
        .arg(
            Arg::new("name")
                .long("name")
                .value_name("NAME")
                .help("Name the capture in the history (default: the devices)"),
        )
        .arg(crate::args::db_arg())
        .arg(
            Arg::new("no-save")
                .long("no-save")
                .action(ArgAction::SetTrue)
                .help("Do not save the capture in the results history"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .short('q')
                .action(ArgAction::SetTrue)
                .help("No notes on stderr (where the capture was saved)"),
        )
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaptureRequest {
    /// `--device`, as given.
    pub devices: Vec<String>,
    /// How often and how long.
    pub config: SamplerConfig,
    /// `--format json`.
    pub json: bool,
    /// `--name`.
    pub name: Option<String>,
    /// `--db` / `--no-save`.
    pub history: HistoryChoice,
    /// `--quiet`.
    pub quiet: bool,
    /// `--trace`.
    pub trace: bool,
    /// `--iolog FILE`.
    pub iolog: Option<std::path::PathBuf>,
}

impl CaptureRequest {
    /// Reads and checks the options; a bad one is a usage error naming it.
    pub(crate) fn from_matches(matches: &ArgMatches) -> Result<CaptureRequest, UsageError> {
        let time = |option: &str| -> Result<Option<Duration>, UsageError> {
            let Some(text) = matches.get_one::<String>(option) else {
                return Ok(None);
            };
            let ns = parse_time_ns(text, TimeUnit::Seconds)
                .map_err(|e| UsageError(format!("--{option} '{text}': {e}")))?;
            if ns == 0 {
                return Err(UsageError(format!(
                    "--{option} '{text}': must be longer than 0"
                )));
            }
            Ok(Some(Duration::from_nanos(ns)))
        };
        let interval = time("interval")?.unwrap_or(Duration::from_secs(1));
        let duration = time("duration")?;
        if let Some(duration) = duration {
            if duration < interval {
                return Err(UsageError(format!(
                    "--duration {duration:?} is shorter than --interval {interval:?}: not one whole interval"
                )));
            }
        }
        Ok(CaptureRequest {
            devices: matches
                .get_many::<String>("device")
                .map(|names| names.cloned().collect())
                .unwrap_or_default(),
            config: SamplerConfig { interval, duration },
            json: matches.get_one::<String>("format").map(String::as_str) == Some("json"),
            name: matches.get_one::<String>("name").cloned(),
            history: if matches.get_flag("no-save") {
                HistoryChoice::Off
            } else {
                matches
                    .get_one::<std::path::PathBuf>("db")
                    .map_or(HistoryChoice::Default, |p| HistoryChoice::At(p.clone()))
            },
            quiet: matches.get_flag("quiet"),
            trace: matches.get_flag("trace"),
            iolog: matches.get_one::<std::path::PathBuf>("iolog").cloned(),
        })
    }
}

/// Runs `diskmeter capture`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let request = CaptureRequest::from_matches(matches)?;
    let files = ProcFiles::new(PROC_ROOT);
    let lines = files.diskstats()?;
    let devices = select_devices(&request.devices, &lines, Path::new(SYS_ROOT)).map_err(
        |e| -> anyhow::Error {
            match e {
                CaptureError::UnknownDevice { .. } | CaptureError::NoActiveDevice => {
                    UsageError(e.to_string()).into()
                }
                other => other.into(),
            }
        },
    )?;
    let stacks: Vec<StackLink> = devices
        .iter()
        .flat_map(|d| device_stack(d, Path::new(SYS_ROOT)))
        .collect();
    let stop = diskmeter_orchestrator::signals::stop_flag()
        .context("cannot install the Ctrl-C handler")?;

    let started_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let header = CaptureHeader {
        name: request.name.clone().unwrap_or_else(|| devices.join(", ")),
        target: devices.join(", "),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        started_unix_ms,
        facts_path: Path::new("/dev").join(&devices[0]),
    };
    let (recorder, history_error) = match CaptureRecorder::begin(&request.history, &header) {
        Ok(recorder) => (recorder, None),
        Err(error) => (None, Some(error)),
    };
    let output = if request.json {
        Output::Json(json::JsonWriter::new())
    } else {
        Output::Text(view::LiveView::new())
    };
    let mut sinks = CaptureSinks {
        output,
        recorder,
        history_error,
        summary: summary::Summary::new(&devices),
        stop: stop.clone(),
    };
    sinks.output.begin(&devices, &stacks, &request.config);

    let tracer = if request.trace {
        Some(trace::start(
            &devices,
            &request,
            sinks.recorder.as_ref().map(CaptureRecorder::run_id),
        )?)
    } else {
        None
    };
    let mut sampler = Sampler::new(files, devices, request.config, BootClock)?;
    let end = record_intervals(&mut sampler, &stop, &mut sinks)?;
    if let Some(tracer) = tracer {
        let profiles = tracer.finish().context("the block trace failed")?;
        sinks.traced(&profiles, &request);
    }
    sinks.conclude(end, &request)
}

/// The sampling loop: every interval goes to every sink as it is measured. (The place a
/// block trace started beside the counters would join, around this call.)
pub(crate) fn record_intervals(
    sampler: &mut Sampler<BootClock>,
    stop: &AtomicBool,
    sinks: &mut CaptureSinks,
) -> anyhow::Result<SamplerEnd> {
    Ok(sampler.run(stop, |interval| sinks.interval(interval))?)
}

/// The live output.
enum Output {
    Text(view::LiveView),
    Json(json::JsonWriter),
}

impl Output {
    fn begin(&mut self, devices: &[String], stacks: &[StackLink], config: &SamplerConfig) {
        let text = match self {
            Output::Text(view) => view.header(devices, stacks, config),
            Output::Json(writer) => writer.header(stacks),
        };
        write_stdout(&text);
    }

    /// Writes one interval; false when stdout is closed.
    fn interval(&mut self, interval: &Interval) -> bool {
        let text = match self {
            Output::Text(view) => view.interval(interval),
            Output::Json(writer) => writer.statistics(interval),
        };
        write_stdout(&text)
    }

    fn end(&mut self) {
        if let Output::Json(writer) = self {
            write_stdout(&writer.footer());
        }
    }
}

/// Writes to stdout; false when it is closed (`| head`), which ends the capture normally.
fn write_stdout(text: &str) -> bool {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .is_ok()
}

/// Everything an interval goes to.
pub(crate) struct CaptureSinks {
    output: Output,
    recorder: Option<CaptureRecorder>,
    history_error: Option<HistorySaveError>,
    summary: summary::Summary,
    stop: std::sync::Arc<AtomicBool>,
}

impl CaptureSinks {
    /// Shows each traced device's profile and saves it with the capture.
    fn traced(&mut self, profiles: &[diskmeter_capture::TraceProfile], request: &CaptureRequest) {
        let text = trace::describe(profiles);
        if request.json || request.quiet {
            if !request.quiet {
                eprint!("{text}");
            }
        } else {
            write_stdout(&text);
        }
        for profile in profiles {
            if profile.lost_events > 0 {
                eprintln!(
                    "diskmeter: warning: {}: {} trace events lost (the figures cover the rest; see docs/guide/3-capture.md, Tracing block IO)",
                    profile.device, profile.lost_events
                );
            }
            if let Some(recorder) = &mut self.recorder {
                if let Err(error) = recorder.save_trace_profile(profile) {
                    self.history_error = Some(error);
                }
            }
        }
    }

    fn interval(&mut self, interval: &Interval) {
        if !self.output.interval(interval) {
            // Nobody reads any more: end as after Ctrl-C.
            self.stop.store(true, Ordering::Relaxed);
        }
        self.summary.add(interval);
        if let Some(recorder) = &mut self.recorder {
            if let Err(error) = recorder.append(&interval.capture_sample()) {
                // Keep watching; the end says the history has only part of it.
                self.history_error = Some(error);
                self.recorder = None;
            }
        }
    }

    /// Closes the output and the history entry, says where it went.
    fn conclude(mut self, end: SamplerEnd, request: &CaptureRequest) -> anyhow::Result<Status> {
        self.output.end();
        let headline = self.summary.headline();
        let finished_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        // Cut short only when a duration was asked for and not reached.
        let partial = end.stopped && request.config.duration.is_some();
        if let Some(recorder) = self.recorder.take() {
            match recorder.finish(finished_unix_ms, partial, headline.clone()) {
                Ok(saved) if !request.quiet => eprintln!(
                    "diskmeter: saved as capture {} in {} (diskmeter history --kind capture)",
                    saved.id,
                    saved.path.display()
                ),
                Ok(_) => {}
                Err(error) => self.history_error = Some(error),
            }
        }
        if let Some(error) = &self.history_error {
            eprintln!(
                "diskmeter: could not save the capture in the history: {error} (--no-save runs without it)"
            );
        }
        if !request.quiet {
            eprintln!("diskmeter: {headline}");
        }
        Ok(if self.history_error.is_some() {
            Status::Failure
        } else {
            Status::Success
        })
    }
}

#[cfg(test)]
mod tests;
