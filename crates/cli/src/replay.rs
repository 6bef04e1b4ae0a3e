//! `diskmeter replay ID|last --level p90 [TARGET]`: a captured application's IO at one level
//! as a workload (built by `diskmeter_analysis::replay`), shown as the fio job file it is,
//! written with `--emit-fio`, and run through the orchestrator like `run`.

use crate::{args, requirements, run, session, write_output, Status, UsageError};
use anyhow::Context;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::replay::{CaptureReplay, CaptureReplayError};
use diskmeter_analysis::requirements::{Level, WindowSet};
use diskmeter_history::{HistoryStore, ReadOpenError};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use std::path::Path;

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
        );
    let command = ReplayArgs::augment_args(command).arg(requirements::device_arg());
    let command = run::result_format_args(ReplayShape::augment_args(command));
    args::add_run_flags(command, Some("replay"))
}

// What to replay, before `--device` (no doc comment: it would replace the command's about).
#[derive(Args)]
struct ReplayArgs {
    /// The capture to replay: its run id (diskmeter history --kind capture) or 'last'
    #[arg(value_name = "ID")]
    capture: String,
    /// File, folder or block device to run on (default: a test file in the current folder)
    #[arg(value_name = "TARGET")]
    target: Option<String>,
    /// Which level of the capture's intervals to replay: p50, p90, p99, max or mean
    #[arg(long, value_name = "LEVEL", default_value = "p90")]
    level: String,
}

// How to replay it, after `--device`.
#[derive(Args)]
struct ReplayShape {
    /// Share of random IOs, percent (a counter capture does not know it; default: the trace's, else 100 with a note)
    #[arg(long, value_name = "PCT", value_parser = clap::value_parser!(u8).range(0..=100))]
    random: Option<u8>,
    /// Size of the region to replay on (fio size=)
    #[arg(long, value_name = "SIZE", default_value = "1g")]
    size: String,
    /// How long to run (fio runtime=, time based; seconds without a unit)
    #[arg(long, value_name = "TIME", default_value = "60s")]
    runtime: String,
    /// Write the workload as an fio job file that fio runs unchanged
    #[arg(long, id = "emit-fio", value_name = "FILE")]
    emit_fio: Option<String>,
    /// Replay the traced IO stream itself, every IO at its traced time, offset and size (fio's read_iolog, redirected onto TARGET or the --emulate disk), instead of a workload like it
    #[arg(long)]
    exact: bool,
}

/// Runs `diskmeter replay`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let asked = ReplayArgs::from_arg_matches(matches)?;
    let shape = ReplayShape::from_arg_matches(matches)?;
    let quiet = args::quiet(matches);
    let level: Level = (asked.level.parse()).map_err(|e| UsageError(format!("--level: {e}")))?;
    let store = open_history(matches)?;
    // The same figures `diskmeter requirements` shows, streamed from the history.
    let devices = requirements::devices(matches);
    let loaded =
        requirements::load_requirements(&store, &asked.capture, devices, WindowSet::default())?;
    let id = loaded.summary.id;
    let traces = store.capture_traces(id)?;
    drop(store);
    let usage = |e: CaptureReplayError| UsageError(e.to_string());
    let capture = CaptureReplay::new(id, loaded.requirements, &traces).map_err(usage)?;
    let emulated = matches.get_one::<String>("emulate").is_some();
    let log_exists = |log: &str| Path::new(log).is_file();
    let (workload, comments) = if shape.exact {
        capture.exact(asked.target.clone(), emulated, log_exists)
    } else {
        let (size, runtime) = (size(&shape.size)?, runtime(&shape.runtime)?);
        capture.at_level(level, shape.random, size, runtime)
    }
    .map_err(usage)?;
    let target = asked.target.as_deref();
    let is_dir = target.is_some_and(|path| Path::new(path).is_dir());
    let target_for_file = workload.target_options(target, is_dir, emulated);
    if !quiet {
        // As it is, so it can be copied into a job file.
        eprint!("{}", workload.job_file(&comments, &target_for_file));
    }
    if let Some(path) = &shape.emit_fio {
        // fio names its files after the job unless told: the file keeps the target only when
        // one was given, so it runs anywhere (an emulated disk is gone after the run).
        write_output(Some(path), &workload.job_file(&comments, &target_for_file))
            .with_context(|| "--emit-fio".to_string())?;
    }
    // Run through the orchestrator, the result rendered like `run`'s.
    let mut jobs = workload.job_specs(&target_for_file)?;
    let mut session = Session::open(args::settings(matches)?)?;
    session.aim_at_emulated_device(&mut jobs, true);
    let name = jobs.first().map(|j| j.name.clone()).unwrap_or_default();
    let batch = Batch {
        capture_id: Some(id),
        ..Batch::new(CommandKind::Replay, vec![Step { name, jobs }])
    };
    session::run_and_conclude(&mut session, &batch, quiet, None, None, |outcome| {
        run::write_result(matches, outcome)
    })
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
fn size(text: &str) -> anyhow::Result<u64> {
    match parse_size(text, KbBase::Binary) {
        Ok(0) => Err(UsageError("--size 0: the region needs at least one block".into()).into()),
        Ok(bytes) => Ok(bytes),
        Err(e) => Err(UsageError(format!("--size {text}: {e}")).into()),
    }
}

/// `--runtime` in ns (seconds without a unit, as fio's `runtime=`).
fn runtime(text: &str) -> anyhow::Result<u64> {
    match parse_time_ns(text, TimeUnit::Seconds) {
        Ok(0) => Err(UsageError("--runtime 0: give a time to run".into()).into()),
        Ok(ns) => Ok(ns),
        Err(e) => Err(UsageError(format!("--runtime {text}: {e}")).into()),
    }
}
