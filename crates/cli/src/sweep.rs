//! `diskmeter sweep [TARGET]`: a grid of short runs over queue depth x block size (x pattern
//! x jobs), each point one step of the orchestrator, then the analysis of what the curves
//! show, a table and charts.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::PointGroup;
use diskmeter_orchestrator::{
    test_file, Batch, CommandKind, FinishedStep, Outcome, RunPlan, Session, Sink, SinkError, Step,
    StepContext,
};
use diskmeter_suites::sweep::{Grid, Point, PointTiming};
use diskmeter_views::sweep::text::{self, AutoStopSummary};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

const SWEEP_FILE: &str = "diskmeter-sweep.dat";

/// The `sweep` subcommand's options, in the order `--help` lists them.
#[derive(Args)]
#[command(
    about = "Sweep queue depth x block size and infer the device's IOPS cap, bandwidth cap and crossover",
    long_about = "Runs a grid of short runs (direct IO) over --qd x --bs (x --rw x --numjobs), then \
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
        Exit codes: 0 ok; 1 a point failed or the sweep was interrupted; 2 usage error."
)]
struct SweepArgs {
    /// File, folder or block device
    #[arg(value_name = "TARGET")]
    target: Option<String>,
    /// Queue depths (IOs in flight per job)
    #[arg(long, value_name = "LIST", default_value = "1,2,4,8,16,32,64,128")]
    qd: String,
    /// Block sizes
    #[arg(long, value_name = "LIST", default_value = "4k,16k,64k,256k,1m")]
    bs: String,
    /// Patterns: randread, randwrite, read, write, randrw:70 (70 % reads)
    #[arg(long, value_name = "LIST", default_value = "randread")]
    rw: String,
    /// Jobs per point
    #[arg(long, value_name = "LIST", default_value = "1")]
    numjobs: String,
    /// Measured time per point: auto (until steady, at most --point-max) or a fixed time
    #[arg(long, value_name = "TIME", default_value = "auto")]
    point_time: String,
    /// Longest measured time of an auto-stopped point
    #[arg(long, value_name = "TIME", default_value = "3s")]
    point_max: String,
    /// Unmeasured warm-up per point
    #[arg(long, value_name = "TIME", default_value = "500ms")]
    ramp: String,
    /// Test file size or device region (default 1g for files)
    #[arg(long, value_name = "SIZE")]
    size: Option<String>,
    /// IO engine
    #[arg(long, value_name = "ENGINE", default_value = "io_uring")]
    ioengine: String,
    /// Folder for the charts (default: diskmeter-sweep-<time> here); 'none' for no charts
    #[arg(long, value_name = "DIR")]
    charts: Option<String>,
    /// normal: table and summary; json: points and analysis
    #[arg(long, value_name = "FORMAT", value_parser = ["normal", "json"], default_value = "normal")]
    output_format: String,
}

/// The `sweep` subcommand's definition.
pub fn command() -> Command {
    let command = SweepArgs::augment_args(Command::new("sweep"));
    args::add_run_flags(args::add_emulate_flags(command, "sweep"))
}

/// Runs the `sweep` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let sweep = SweepArgs::from_arg_matches(matches)?;
    let quiet = args::quiet(matches);
    let grid = Grid::parse(&sweep.qd, &sweep.numjobs, &sweep.bs, &sweep.rw)
        .map_err(|e| UsageError(e.to_string()))?;
    let mut session = Session::open(args::settings(matches)?)?;
    let target = session.emulated_device().map_or_else(
        || test_file(sweep.target.as_deref(), SWEEP_FILE),
        Path::to_path_buf,
    );
    let size = crate::suite::region_bytes(sweep.size.as_deref(), &target, || 1 << 30)?;
    let timing = PointTiming {
        ioengine: sweep.ioengine.clone(),
        point_time: sweep.point_time.clone(),
        point_max: sweep.point_max.clone(),
        ramp: sweep.ramp.clone(),
    };
    let jobs = grid
        .jobs(&target, size, &timing)
        .map_err(|e| UsageError(e.to_string()))?;
    let steps = jobs.into_iter().map(|(name, job)| Step {
        name,
        jobs: vec![job],
    });
    let mut batch = Batch::new(CommandKind::Sweep, steps.collect());
    batch.name = Some(grid.patterns.join(","));
    batch.target = Some(target.clone());
    batch.shared_files = vec![target.clone()];
    // No per-point notes, which would drown the table: the bar says where the sweep is.
    let mut points = PointSink::new(&grid.points, session.settings().dry_run, quiet);
    let outcome = session.run(&batch, &mut [&mut points]);
    session::conclude_after(outcome, quiet, |outcome| {
        if outcome.dry_run {
            return Ok(());
        }
        let steps = outcome
            .steps
            .iter()
            .map(|s| (s.index, s.name.as_str(), &s.result));
        let json = sweep.output_format == "json";
        let charts = charts_folder(sweep.charts.as_ref());
        let auto_stop = AutoStopSummary::of(outcome.results());
        let target = target.display().to_string();
        let mut text = analyse_and_render(&grid.groups(steps), &target, charts, json, auto_stop);
        if !json {
            text.push_str(&text::stopped(outcome.steps.len(), outcome.planned_steps));
        }
        Ok(write_output(matches.get_one::<String>("output"), &text)?)
    })
}

/// `--charts DIR`: the folder for the charts ([`diskmeter_charts::sweep_folder`]).
pub(crate) fn charts_folder(given: Option<&String>) -> Option<PathBuf> {
    diskmeter_charts::sweep_folder(given.map(String::as_str))
}

/// Writes each pattern's charts into `charts_dir` (saying on stderr why any are missing)
/// and renders the tables and summaries, or the JSON document ([`text::results`]): shared
/// by `sweep` and `analyze`.
pub(crate) fn analyse_and_render(
    groups: &[PointGroup],
    target: &str,
    charts_dir: Option<PathBuf>,
    json: bool,
    auto_stop: Option<AutoStopSummary>,
) -> String {
    let charts = charts_dir.map_or_else(Vec::new, |dir| {
        let (files, errors) = diskmeter_charts::write_sweep_charts(&dir, target, groups);
        errors.iter().for_each(|e| eprintln!("diskmeter: {e}"));
        files
    });
    text::results(groups, target, &charts, json, auto_stop)
}

/// A sweep's points rebuilt from its steps in the history, grouped by pattern
/// ([`diskmeter_analysis::points_of_steps`]).
pub(crate) fn points_from_steps(
    steps: &[diskmeter_history::StoredStep],
) -> anyhow::Result<Vec<PointGroup>> {
    diskmeter_analysis::points_of_steps(steps.iter().map(|s| (s.name.as_str(), &s.result)))
        .map_err(|e| anyhow::anyhow!("{e} (analyze takes runs saved by diskmeter sweep)"))
}

/// The points on the terminal: with `--dry-run` one line per point of `grid` with its
/// job's options, otherwise a bar over the points (a terminal only, not with `--quiet`).
struct PointSink<'a> {
    grid: Option<&'a [Point]>,
    bar: Option<indicatif::ProgressBar>,
}

impl PointSink<'_> {
    fn new(grid: &[Point], dry_run: bool, quiet: bool) -> PointSink<'_> {
        let bar = (!dry_run && !quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(grid.len() as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} points ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        let grid = dry_run.then_some(grid);
        PointSink { grid, bar }
    }
}

impl Sink for PointSink<'_> {
    fn step_planned(&mut self, step: StepContext<'_>, plan: &RunPlan) {
        if let Some(bar) = &self.bar {
            bar.set_message(step.name().to_string());
        }
        if let Some(grid) = self.grid {
            let line = text::point_plan(step.index, step.total(), &grid[step.index], &plan.jobs);
            println!("{line}");
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
