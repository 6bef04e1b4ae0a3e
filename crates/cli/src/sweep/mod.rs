//! `diskmeter sweep [TARGET]`: a grid of short runs over queue depth x block size (x pattern
//! x jobs), each point one step of the orchestrator, then the analysis of what the curves
//! show, a table and charts.

mod render;

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgMatches, Command};
use diskmeter_analysis::PointGroup;
use diskmeter_orchestrator::{
    Batch, CommandKind, FinishedStep, Outcome, RunPlan, Session, Sink, SinkError, Step, StepContext,
};
use diskmeter_suites::sweep::{grid, job_of, Point, PointTiming};
use diskmeter_units::{parse_size, KbBase};
use render::AutoStopSummary;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

pub(crate) use render::{analyse_and_render, charts_folder, points_from_steps};

const DEFAULT_QD: &str = "1,2,4,8,16,32,64,128";
const DEFAULT_BS: &str = "4k,16k,64k,256k,1m";
const SWEEP_FILE: &str = "diskmeter-sweep.dat";

/// The `sweep` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("sweep")
        .about("Sweep queue depth x block size and infer the device's IOPS cap, bandwidth cap and crossover")
        .long_about(
            "Runs a grid of short runs (direct IO) over --qd x --bs (x --rw x --numjobs), then \
             says what the curves show: the IOPS and bandwidth ceilings (only where curves \
             flatten and block sizes agree), the crossover block size, what limits each size, \
             the queue-depth knee, QD1 latency, Little's law at every point, the throttling \
             signature and the nearest published tiers. Writes a table, a summary and charts \
             (SVG and PNG: IOPS vs QD, MiB/s vs block size, latency vs QD) into --charts DIR. \
             Each point ends once it is steady (--point-time auto: 200 ms samples, the last \
             second's within 5 % of their mean and the mean known to +-3 %, at most \
             --point-max), or runs a fixed --point-time. The default grid (8 x 5 points, a \
             0.5 s ramp and at most 3 s each) takes 1 to 2.5 minutes. \
             TARGET as for `diskmeter suite` (default ./diskmeter-sweep.dat, 1 GiB). \
             A point cut short (Ctrl-C, SIGTERM, ENOSPC, an IO error) is listed as partial, \
             with why, and left out of the analysis; with too few whole points for a curve \
             (no block size with two queue depths) nothing is inferred.\n\n\
             Exit codes: 0 ok; 1 a point failed or the sweep was interrupted; 2 usage error.",
        )
        .arg(Arg::new("target").value_name("TARGET").help("File, folder or block device"))
        .arg(Arg::new("qd").long("qd").value_name("LIST").default_value(DEFAULT_QD).help("Queue depths (IOs in flight per job)"))
        .arg(Arg::new("bs").long("bs").value_name("LIST").default_value(DEFAULT_BS).help("Block sizes"))
        .arg(Arg::new("rw").long("rw").value_name("LIST").default_value("randread").help("Patterns: randread, randwrite, read, write, randrw:70 (70 % reads)"))
        .arg(Arg::new("numjobs").long("numjobs").value_name("LIST").default_value("1").help("Jobs per point"))
        .arg(Arg::new("point-time").long("point-time").value_name("TIME").default_value("auto").help("Measured time per point: auto (until steady, at most --point-max) or a fixed time"))
        .arg(Arg::new("point-max").long("point-max").value_name("TIME").default_value("3s").help("Longest measured time of an auto-stopped point"))
        .arg(Arg::new("ramp").long("ramp").value_name("TIME").default_value("500ms").help("Unmeasured warm-up per point"))
        .arg(Arg::new("size").long("size").value_name("SIZE").help("Test file size or device region (default 1g for files)"))
        .arg(Arg::new("ioengine").long("ioengine").value_name("ENGINE").default_value("io_uring").help("IO engine"))
        .arg(Arg::new("charts").long("charts").value_name("DIR").help("Folder for the charts (default: diskmeter-sweep-<time> here); 'none' for no charts"))
        .arg(Arg::new("output-format").long("output-format").value_name("FORMAT").value_parser(["normal", "json"]).default_value("normal").help("normal: table and summary; json: points and analysis"));
    args::add_run_flags(args::add_emulate_flags(command, "sweep"))
}

/// The comma-separated list of option `name`, trimmed, blanks dropped.
fn list(matches: &ArgMatches, name: &str) -> Vec<String> {
    matches
        .get_one::<String>(name)
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the `sweep` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let quiet = args::quiet(matches);
    let numbers = |name: &str| -> Result<Vec<u32>, UsageError> {
        list(matches, name)
            .iter()
            .map(|q| {
                q.parse::<u32>()
                    .map_err(|e| UsageError(format!("--{name} {q}: {e}")))
            })
            .collect()
    };
    let (qds, jobs_list) = (numbers("qd")?, numbers("numjobs")?);
    let mut block_sizes = Vec::new();
    for bs in list(matches, "bs") {
        let bytes =
            parse_size(&bs, KbBase::Binary).map_err(|e| UsageError(format!("--bs {bs}: {e}")))?;
        block_sizes.push((bs, bytes));
    }
    let patterns = list(matches, "rw");
    let settings = args::settings(matches)?;
    let session_target = match matches.get_one::<String>("target") {
        None => PathBuf::from(SWEEP_FILE),
        Some(p) if Path::new(p).is_dir() => Path::new(p).join(SWEEP_FILE),
        Some(p) => PathBuf::from(p),
    };
    let mut session = Session::open(settings)?;
    let target = session
        .emulated_device()
        .map_or(session_target, Path::to_path_buf);
    let is_device = diskmeter_orchestrator::is_block_device(&target);
    let size = match matches.get_one::<String>("size") {
        Some(text) => {
            Some(parse_size(text, KbBase::Binary).map_err(|e| UsageError(format!("--size: {e}")))?)
        }
        None if is_device => None,
        None => Some(1 << 30),
    };
    let bs_names: Vec<String> = block_sizes.iter().map(|(bs, _)| bs.clone()).collect();
    let grid = grid(&patterns, &jobs_list, &bs_names, &qds);
    let text = |name: &str| matches.get_one::<String>(name).cloned().unwrap_or_default();
    let timing = PointTiming {
        ioengine: text("ioengine"),
        point_time: text("point-time"),
        point_max: text("point-max"),
        ramp: text("ramp"),
    };
    let mut steps = Vec::with_capacity(grid.len());
    for point in &grid {
        steps.push(Step {
            name: point.step_name(),
            jobs: vec![
                job_of(point, &target, size, &timing).map_err(|e| UsageError(e.to_string()))?
            ],
        });
    }
    let mut batch = Batch::new(CommandKind::Sweep, steps);
    batch.name = Some(patterns.join(","));
    batch.target = Some(target.clone());
    batch.shared_files = vec![target.clone()];
    let outcome = if session.settings().dry_run {
        session.run(&batch, &mut [&mut DryRunPoints { grid: &grid }])
    } else {
        // No per-point notes, which would drown the table: the bar says where the sweep is.
        let mut bar = PointBar::new(quiet, grid.len());
        session.run(&batch, &mut [&mut bar])
    };
    let written = if outcome.dry_run {
        Ok(())
    } else {
        let text = results_text(matches, &patterns, &block_sizes, &grid, &target, &outcome);
        write_output(matches.get_one::<String>("output"), &text)
    };
    let status = session::conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// The table, summary and charts of the points that ran (or the JSON document).
fn results_text(
    matches: &ArgMatches,
    patterns: &[String],
    block_sizes: &[(String, u64)],
    grid: &[Point],
    target: &Path,
    outcome: &Outcome,
) -> String {
    let bytes_of = |bs: &str| {
        block_sizes
            .iter()
            .find(|(b, _)| b == bs)
            .map_or(0, |(_, v)| *v)
    };
    let groups: Vec<PointGroup> = patterns
        .iter()
        .map(|rw| {
            let mut group = PointGroup::whole(rw.clone(), Vec::new());
            for step in &outcome.steps {
                let point = &grid[step.index];
                if &point.rw == rw {
                    let qd = point.qd * point.numjobs;
                    group.add(&step.name, &step.result, bytes_of(&point.bs), qd);
                }
            }
            group
        })
        .collect();
    let json = matches
        .get_one::<String>("output-format")
        .map(String::as_str)
        == Some("json");
    let mut text = analyse_and_render(
        &groups,
        &target.display().to_string(),
        charts_folder(matches.get_one::<String>("charts")),
        json,
        AutoStopSummary::of(outcome.results()),
    );
    if !json && outcome.steps.len() < outcome.planned_steps {
        text.push_str(&format!(
            "The sweep stopped after {} of its {} points: the rest were not measured.\n",
            outcome.steps.len(),
            outcome.planned_steps
        ));
    }
    text
}

/// `--dry-run`: one line per point with its job's options.
struct DryRunPoints<'a> {
    grid: &'a [Point],
}

impl Sink for DryRunPoints<'_> {
    fn step_planned(&mut self, step: StepContext<'_>, plan: &RunPlan) {
        let point = &self.grid[step.index];
        let options: Vec<String> = plan
            .jobs
            .iter()
            .flat_map(diskmeter_workload::describe)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        println!(
            "point {}/{}: {} {} QD{} x{}: {}",
            step.index + 1,
            step.total(),
            point.rw,
            point.bs,
            point.qd,
            point.numjobs,
            options.join(" ")
        );
    }
}

/// A bar over the points (a terminal only, not with `--quiet`).
struct PointBar {
    bar: Option<indicatif::ProgressBar>,
}

impl PointBar {
    fn new(quiet: bool, points: usize) -> PointBar {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(points as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} points ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        PointBar { bar }
    }
}

impl Sink for PointBar {
    fn step_planned(&mut self, step: StepContext<'_>, _plan: &RunPlan) {
        if let Some(bar) = &self.bar {
            bar.set_message(step.name().to_string());
        }
    }

    fn step_finished(&mut self, _step: &FinishedStep) -> Result<(), SinkError> {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        Ok(())
    }

    fn batch_finished(&mut self, _outcome: &Outcome) -> Result<(), SinkError> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}
