//! `diskmeter replay ID|last --level p90 [TARGET]`: a captured application's IO at one level
//! as a workload (built by `diskmeter_analysis::replay`), shown as the fio job file it is,
//! written with `--emit-fio`, and run through the orchestrator like `run`.

use crate::{args, requirements, run, session, write_output, Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::replay::{
    build_exact_replay, build_replay, exact_request, LevelFigures, ReplayRequest, ReplayWorkload,
    TracedShape,
};
use diskmeter_analysis::requirements::{Level, Requirements, WindowSet};
use diskmeter_capture::TraceProfile;
use diskmeter_history::{HistoryStore, ReadOpenError};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use std::path::{Path, PathBuf};

/// The `replay` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("replay")
        .about("Run a workload that mimics a captured application at one level (p50, p90, p99, max, mean)")
        .long_about(
            "Builds a workload that mimics the application a capture (diskmeter capture) \
             watched, at one level of its intervals, and runs it like `diskmeter run`. From \
             the capture's counters at that level: the rate (rate_iops, reads and writes, rounded up so the replay can reach the level; rate= in bytes at the mean size where sizes are a split, as fio paces rate_iops at the smallest size), the \
             read share (rwmixread), the queue depth (iodepth: the larger of aqu-sz rounded \
             up, the trace's queue depth p99, and Little's law for the level's rate at 4x \
             its r_await/w_await, so a slower target keeps the rate), the flushes \
             (fdatasync=N: one sync every N writes for the level's f/s) and, \
             without a trace, the mean IO sizes (bs = rareq-sz,wareq-sz). From a trace \
             (capture --trace), where there is one: the size distribution per direction \
             (bssplit, with norandommap so fio's random map cuts no IO of the split short), the random share (percentage_random), the hot set \
             (random_distribution=zoned), a sequential write stream such as a commit log as a \
             job of its own (rw=write, NAME-seq), and the flushes that rode on data writes \
             (a journal commit's) as O_DSYNC writes of a job of their own (sync=dsync, \
             NAME-dsync); the notes say what became which job. A counter capture does not know the random share: \
             give --random PCT, else the replay is fully random and says so.\n\n\
             The workload is printed as an fio job file (with a note on where each figure \
             came from) on stderr, and --emit-fio FILE writes it for fio to run unchanged.\n\n\
             TARGET is a file, folder or block device as in `run` (default: a test file in the \
             current folder); --emulate runs it on an emulated cloud disk.\n\n\
             --exact replays the traced IO stream itself (the fio iolog capture --trace \
             wrote): every IO and flush (as an fsync) at its traced time, direction, offset \
             and size, redirected onto TARGET or the --emulate disk (fio's read_iolog and replay_redirect, so fio runs \
             the emitted file too).\n\n\
             Exit codes: 0 ok; 1 the run failed, was refused or was interrupted; 2 usage \
             error (unknown capture, a run that is not a capture, a bad level).",
        )
        .arg(
            Arg::new("capture")
                .value_name("ID")
                .required(true)
                .help("The capture to replay: its run id (diskmeter history --kind capture) or 'last'"),
        )
        .arg(
            Arg::new("target")
                .value_name("TARGET")
                .help("File, folder or block device to run on (default: a test file in the current folder)"),
        )
        .arg(
            Arg::new("level")
                .long("level")
                .value_name("LEVEL")
                .default_value("p90")
                .help("Which level of the capture's intervals to replay: p50, p90, p99, max or mean"),
        )
        .arg(requirements::device_arg())
        .arg(
            Arg::new("random")
                .long("random")
                .value_name("PCT")
                .value_parser(clap::value_parser!(u8).range(0..=100))
                .help("Share of random IOs, percent (a counter capture does not know it; default: the trace's, else 100 with a note)"),
        )
        .arg(
            Arg::new("size")
                .long("size")
                .value_name("SIZE")
                .default_value("1g")
                .help("Size of the region to replay on (fio size=)"),
        )
        .arg(
            Arg::new("runtime")
                .long("runtime")
                .value_name("TIME")
                .default_value("60s")
                .help("How long to run (fio runtime=, time based; seconds without a unit)"),
        )
        .arg(
            Arg::new("emit-fio")
                .long("emit-fio")
                .value_name("FILE")
                .help("Write the workload as an fio job file that fio runs unchanged"),
        )
        .arg(
            Arg::new("exact")
                .long("exact")
                .action(ArgAction::SetTrue)
                .help("Replay the traced IO stream itself, every IO at its traced time, offset and size (fio's read_iolog, redirected onto TARGET or the --emulate disk), instead of a workload like it"),
        )
        .arg(run::output_format_arg())
        .arg(crate::formats::terse_version_arg());
    let command = args::add_emulate_flags(command, "replay");
    args::add_run_flags(command)
}

/// Runs `diskmeter replay`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let quiet = args::quiet(matches);
    let level_text = matches
        .get_one::<String>("level")
        .map_or("p90", String::as_str);
    let level: Level = level_text
        .parse()
        .map_err(|e| UsageError(format!("--level: {e}")))?;
    let store = open_history(matches)?;
    let id_text = matches
        .get_one::<String>("capture")
        .map_or("", String::as_str);
    // The same figures `diskmeter requirements` shows, streamed from the history.
    let loaded = requirements::load_requirements(
        &store,
        id_text,
        requirements::devices(matches),
        WindowSet::default(),
    )?;
    let id = loaded.summary.id;
    let all_traces = store.capture_traces(id)?;
    drop(store);
    let Requirements {
        devices,
        traced_devices,
        whole: checklist,
        ..
    } = loaded.requirements;
    if devices.is_empty() || checklist.intervals == 0 {
        return Err(UsageError(format!(
            "capture {id} has no device samples: nothing to replay"
        ))
        .into());
    }
    let traces: Vec<&TraceProfile> = all_traces
        .iter()
        .filter(|t| traced_devices.contains(&t.device))
        .collect();
    let device = devices.join("+");
    let target = matches.get_one::<String>("target").map(PathBuf::from);
    let emulated = matches.get_one::<String>("emulate").is_some();
    let (workload, comments) = if matches.get_flag("exact") {
        let redirect = target.as_ref().map(|t| t.display().to_string());
        let request = exact_request(id, &traces, redirect, emulated, |log| {
            Path::new(log).is_file()
        })
        .map_err(|e| UsageError(e.to_string()))?;
        let workload = build_exact_replay(&request);
        let comments = vec![format!(
            "diskmeter replay --exact of capture {id} (device {device}): the traced IO stream"
        )];
        (workload, comments)
    } else {
        let request = ReplayRequest {
            name: format!("replay-{id}-{level}"),
            level: LevelFigures::from_checklist(&checklist, level),
            trace: TracedShape::from_traces(&traces),
            random_percent: matches.get_one::<u8>("random").copied(),
            size_bytes: size(matches)?,
            runtime_ns: runtime(matches)?,
        };
        let workload = build_replay(&request)
            .map_err(|e| UsageError(format!("capture {id} (device {device}): {e}")))?;
        let header = header(id, checklist.intervals, &device, &request.level);
        (workload, header)
    };
    // An exact replay names its target in replay_redirect; a workload in filename=.
    let target_for_file = match (emulated, workload.option("read_iolog")) {
        (true, _) | (false, Some(_)) => Vec::new(),
        (false, None) => target_options(target.as_deref()),
    };
    if !quiet {
        // As it is, so it can be copied into a job file.
        eprint!("{}", workload.job_file(&comments, &target_for_file));
    }
    if let Some(path) = matches.get_one::<String>("emit-fio") {
        // fio names its files after the job unless told: the file keeps the target only when
        // one was given, so it runs anywhere (an emulated disk is gone after the run).
        write_output(Some(path), &workload.job_file(&comments, &target_for_file))
            .with_context(|| "--emit-fio".to_string())?;
    }
    run_workload(matches, &workload, &target_for_file, quiet)
}

/// Runs the workload's job through the orchestrator and renders its result like `run`.
fn run_workload(
    matches: &ArgMatches,
    workload: &ReplayWorkload,
    target: &[(String, String)],
    quiet: bool,
) -> anyhow::Result<Status> {
    let mut jobs = workload.job_specs(target)?;
    let settings = args::settings(matches)?;
    let mut session = Session::open(settings)?;
    if let Some(device) = session.emulated_device() {
        for job in &mut jobs {
            if job.iolog.read_iolog.is_some() {
                job.iolog.replay_redirect = Some(device.to_path_buf());
            } else {
                job.filenames = vec![device.to_path_buf()];
            }
        }
    }
    let name = jobs.first().map(|j| j.name.clone()).unwrap_or_default();
    let batch = Batch::new(CommandKind::Replay, vec![Step { name, jobs }]);
    session::run_and_conclude(&mut session, &batch, quiet, None, None, |outcome| {
        run::write_result(matches, outcome)
    })
}

/// `filename=TARGET`, or `directory=TARGET` for a folder; nothing without a target.
fn target_options(target: Option<&Path>) -> Vec<(String, String)> {
    match target {
        Some(path) if path.is_dir() => vec![("directory".into(), path.display().to_string())],
        Some(path) => vec![("filename".into(), path.display().to_string())],
        None => Vec::new(),
    }
}

/// The job file's opening comment: what was replayed, at which figures.
fn header(id: i64, intervals: u64, device: &str, level: &LevelFigures) -> Vec<String> {
    vec![
        format!(
            "diskmeter replay of capture {id} (device {device}, {intervals} intervals) at {}",
            level.level
        ),
        format!(
            "at {}: {:.1} r/s, {:.1} w/s, {:.1} f/s, aqu-sz {:.2}",
            level.level,
            level.read_iops,
            level.write_iops,
            level.flushes_per_sec,
            level.queue_depth
        ),
    ]
}

/// The history the capture is read from: `--db` or the default, even with `--no-save`
/// (which only keeps the replay's own result out of it).
fn open_history(matches: &ArgMatches) -> anyhow::Result<HistoryStore> {
    match diskmeter_history::open_for_reading(requirements::db(matches)) {
        Err(ReadOpenError::Missing(path)) => Err(UsageError(format!(
            "no history at {}: there is no capture to replay (diskmeter capture makes one)",
            path.display()
        ))
        .into()),
        opened => Ok(opened?),
    }
}

/// `--size` in bytes.
fn size(matches: &ArgMatches) -> anyhow::Result<u64> {
    let text = matches
        .get_one::<String>("size")
        .map_or("1g", String::as_str);
    match parse_size(text, KbBase::Binary) {
        Ok(0) => Err(UsageError("--size 0: the region needs at least one block".into()).into()),
        Ok(bytes) => Ok(bytes),
        Err(e) => Err(UsageError(format!("--size {text}: {e}")).into()),
    }
}

/// `--runtime` in ns (seconds without a unit, as fio's `runtime=`).
fn runtime(matches: &ArgMatches) -> anyhow::Result<u64> {
    let text = matches
        .get_one::<String>("runtime")
        .map_or("60s", String::as_str);
    match parse_time_ns(text, TimeUnit::Seconds) {
        Ok(0) => Err(UsageError("--runtime 0: give a time to run".into()).into()),
        Ok(ns) => Ok(ns),
        Err(e) => Err(UsageError(format!("--runtime {text}: {e}")).into()),
    }
}
