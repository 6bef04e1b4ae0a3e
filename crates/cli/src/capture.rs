//! `diskmeter capture`: watch the block devices an application uses, iostat-style, and save
//! the series in the history as a capture (no root needed).
//!
//! The command reads its options ([`CaptureRequest`]) and hands them to the orchestrator's
//! capture session ([`run_capture`]), which samples, traces and saves; what is shown of it
//! (the live text, iostat's JSON, the trace's profiles) is drawn by
//! [`diskmeter_views::capture`]; here only the closing notes.

use crate::{Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_capture::devices::StackLink;
use diskmeter_capture::host::HostFacts;
use diskmeter_capture::sampler::{Interval, SamplerConfig};
use diskmeter_capture::TraceProfile;
use diskmeter_orchestrator::{
    run_capture, sampler_config, CaptureOutcome, CaptureSettings, CaptureView, HistoryChoice,
};
use diskmeter_views::capture::{json::JsonWriter, live::LiveView, profiles};
use std::path::PathBuf;

// The options before `--db`, in `--help`'s order (each doc comment is its help, one line
// when clap joins it; a doc comment on the struct would be the command's about).
#[derive(Args, Debug)]
struct WatchArgs {
    /// Watch this device: a kernel name (sda, nvme0n1p2, loop3, dm-0) or a /dev path; repeat
    /// for more (default: every whole disk with IO since boot)
    #[arg(long, value_name = "NAME")]
    device: Vec<String>,
    /// Length of one sample (e.g. 1s, 500ms, 5m; a bare number is seconds)
    #[arg(long, value_name = "TIME", default_value = "1s")]
    interval: String,
    /// Stop after this long (default: run until Ctrl-C)
    #[arg(long, value_name = "TIME")]
    duration: Option<String>,
    /// text: a live iostat-style view; json: iostat -x -o JSON's document, one statistics
    /// entry per interval
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"], default_value = "text")]
    format: String,
    /// Also trace every IO of the devices through the kernel's block tracepoints (root): size
    /// distribution, random share, queue depth, device latency, hot set, processes
    #[arg(long)]
    trace: bool,
    #[arg(
        long,
        value_name = "FILE",
        requires = "trace",
        help = "With --trace: write the traced IO as an fio iolog (version 3) here [default: next to the history, iologs/capture-ID.log; none with --no-save]"
    )]
    iolog: Option<PathBuf>,
    /// Name the capture in the history (default: the devices)
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

// The options after `--db`.
#[derive(Args, Debug)]
struct SaveArgs {
    /// Do not save the capture in the results history
    #[arg(long = "no-save")]
    no_save: bool,
    /// No notes on stderr (where the capture was saved)
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// The `capture` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("capture")
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
        );
    SaveArgs::augment_args(WatchArgs::augment_args(command).arg(crate::args::db_arg()))
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaptureRequest {
    /// What the session captures.
    pub settings: CaptureSettings,
    /// `--format json`.
    pub json: bool,
    /// `--quiet`.
    pub quiet: bool,
}

impl CaptureRequest {
    /// Reads and checks the options; a bad one is a usage error naming it.
    pub(crate) fn from_matches(matches: &ArgMatches) -> Result<CaptureRequest, UsageError> {
        let watch = WatchArgs::from_arg_matches(matches).map_err(|e| UsageError(e.to_string()))?;
        let save = SaveArgs::from_arg_matches(matches).map_err(|e| UsageError(e.to_string()))?;
        let config = sampler_config(&watch.interval, watch.duration.as_deref())
            .map_err(|e| UsageError(e.to_string()))?;
        let settings = CaptureSettings {
            devices: watch.device,
            config,
            name: watch.name,
            history: if save.no_save {
                HistoryChoice::Off
            } else {
                matches
                    .get_one::<PathBuf>("db")
                    .map_or(HistoryChoice::Default, |p| HistoryChoice::At(p.clone()))
            },
            trace: watch.trace,
            iolog: watch.iolog,
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
        };
        Ok(CaptureRequest {
            settings,
            json: watch.format == "json",
            quiet: save.quiet,
        })
    }
}

/// Runs `diskmeter capture`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let request = CaptureRequest::from_matches(matches)?;
    let mut view = Terminal {
        output: if request.json {
            Output::Json(JsonWriter::new(HostFacts::read()))
        } else {
            Output::Text(LiveView::new())
        },
        json: request.json,
        quiet: request.quiet,
    };
    let outcome = run_capture(&request.settings, &mut view).map_err(|error| {
        if error.is_usage() {
            UsageError(format!("{:#}", anyhow::Error::new(error))).into()
        } else {
            anyhow::Error::new(error)
        }
    })?;
    Ok(conclude(&outcome, request.quiet))
}

/// The closing notes on stderr: where the capture was saved, the history's failure, the
/// summary; a history that could not take it all fails the command.
fn conclude(outcome: &CaptureOutcome, quiet: bool) -> Status {
    if let (Some(saved), false) = (&outcome.saved, quiet) {
        eprintln!(
            "diskmeter: saved as capture {} in {} (diskmeter history --kind capture)",
            saved.id,
            saved.path.display()
        );
    }
    if let Some(error) = &outcome.history_error {
        eprintln!(
            "diskmeter: could not save the capture in the history: {error} (--no-save runs without it)"
        );
    }
    if !quiet {
        eprintln!("diskmeter: {}", outcome.headline);
    }
    if outcome.history_error.is_some() {
        Status::Failure
    } else {
        Status::Success
    }
}

/// The live output.
enum Output {
    Text(LiveView),
    Json(JsonWriter),
}

/// What the terminal shows of the session.
struct Terminal {
    output: Output,
    json: bool,
    quiet: bool,
}

impl CaptureView for Terminal {
    fn begin(&mut self, devices: &[String], stacks: &[StackLink], config: &SamplerConfig) {
        let text = match &self.output {
            Output::Text(view) => view.header(devices, stacks, config),
            Output::Json(writer) => writer.header(stacks),
        };
        write_stdout(&text);
    }

    fn interval(&mut self, interval: &Interval) -> bool {
        let text = match &mut self.output {
            Output::Text(view) => view.interval(interval),
            Output::Json(writer) => writer.statistics(interval),
        };
        write_stdout(&text)
    }

    /// Each traced device's profile: on stdout beside the text view, on stderr beside JSON.
    fn traced(&mut self, profiles: &[TraceProfile]) {
        let text = profiles::describe(profiles);
        if self.json || self.quiet {
            if !self.quiet {
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
        }
    }

    fn end(&mut self) {
        if let Output::Json(writer) = &self.output {
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
