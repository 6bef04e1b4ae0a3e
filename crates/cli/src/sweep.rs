//! `diskmeter sweep [TARGET]`: a grid of short runs over queue depth x block size (x pattern
//! x jobs), each point one step of the orchestrator, then the analysis of what the curves
//! show, a table and charts.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::curve::{self, Curve};
use diskmeter_charts::{curve_output, sweep_output};
use diskmeter_history::StoredRun;
use diskmeter_orchestrator::{
    test_file, Batch, CommandKind, FinishedStep, Outcome, RunPlan, Session, Sink, SinkError, Step,
    StepContext,
};
use diskmeter_suites::curve::CurvePlan;
use diskmeter_suites::sweep::{Grid, Point, PointTiming};
use diskmeter_views::sweep::text::{self, AutoStopSummary};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

const SWEEP_FILE: &str = "diskmeter-sweep.dat";

/// The `sweep` subcommand's options, in the order `--help` lists them.
#[derive(Args)]
#[command(
    about = "Sweep queue depth x block size and infer the device's IOPS cap, bandwidth cap and crossover",
    long_about = text::SWEEP_ABOUT
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
    /// Run the IOPS-latency curve instead of the grid: the maximum rate, then paced shares
    #[arg(long)]
    curve: bool,
    /// Shares of the maximum rate the curve paces at, percent
    #[arg(
        long,
        value_name = "LIST",
        default_value = "10,20,30,40,50,60,70,80,90,100"
    )]
    curve_shares: String,
    /// Find the highest rate meeting this latency SLO (implies --curve): p99=2ms, p99.9=5ms
    #[arg(long, value_name = "PCT=TIME")]
    slo: Option<String>,
}

/// The `sweep` subcommand's definition.
pub fn command() -> Command {
    let command = SweepArgs::augment_args(Command::new("sweep"));
    args::add_run_flags(command, Some("sweep"))
}

/// Runs the `sweep` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let sweep = SweepArgs::from_arg_matches(matches)?;
    let quiet = args::quiet(matches);
    let grid = Grid::parse(&sweep.qd, &sweep.numjobs, &sweep.bs, &sweep.rw)
        .map_err(|e| UsageError(e.to_string()))?;
    let curve = curve::curve_options(sweep.curve, &sweep.curve_shares, sweep.slo.as_deref())
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
    if let Some((shares, slo)) = curve {
        let plan = CurvePlan::of(&grid, shares, slo, (target, size, timing));
        let plan = plan.ok_or_else(|| UsageError("the lists give no point".into()))?;
        return run_curve(matches, &sweep, session, plan);
    }
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
        let (json, dir) = (sweep.output_format == "json", charts_folder(&sweep.charts));
        let auto_stop = AutoStopSummary::of(outcome.results());
        let target = &target.display().to_string();
        let groups = &grid.groups(steps);
        let mut text = shown(sweep_output(
            groups,
            target,
            (dir.as_deref(), json),
            auto_stop,
        ));
        if !json {
            let points = outcome.steps.iter().map(|s| (s.name.as_str(), &s.result));
            text.push_str(&diskmeter_views::burst::sweep_lines(points));
            text.push_str(&text::stopped(outcome.steps.len(), outcome.planned_steps));
        }
        Ok(write_output(matches.get_one::<String>("output"), &text)?)
    })
}

/// `--charts DIR`: the folder for the charts ([`diskmeter_charts::sweep_folder`]).
pub(crate) fn charts_folder(given: &Option<String>) -> Option<PathBuf> {
    diskmeter_charts::sweep_folder(given.as_deref())
}

/// The text of a sweep's output, saying on stderr why any chart is missing.
fn shown((text, errors): (String, Vec<diskmeter_charts::ChartError>)) -> String {
    errors.iter().for_each(|e| eprintln!("diskmeter: {e}"));
    text
}

/// A saved sweep analysed again (`analyze`): its curve, or its grid's points grouped by
/// pattern ([`diskmeter_analysis::points_of_steps`]).
pub(crate) fn analyse_run(
    run: &StoredRun,
    dir: Option<&Path>,
    json: bool,
) -> anyhow::Result<String> {
    let steps = run.steps.iter().map(|s| (s.name.as_str(), &s.result));
    let (first, target) = (
        run.steps.first().map(|s| s.name.as_str()),
        &run.summary.target,
    );
    if first.is_some_and(|name| curve::parse_curve_step_name(name).is_some()) {
        let slo = diskmeter_views::sweep::curve::slo_of_run_name(&run.summary.name);
        return Ok(shown(curve_output(
            &Curve::of(steps, slo.as_ref()),
            target,
            (dir, json),
        )));
    }
    let groups = diskmeter_analysis::points_of_steps(steps)
        .map_err(|e| anyhow::anyhow!("{e} (analyze takes runs saved by diskmeter sweep)"))?;
    let mut text = shown(sweep_output(&groups, target, (dir, json), None));
    if !json {
        text += &diskmeter_views::burst::sweep_lines(diskmeter_views::burst::steps_of(run));
    }
    Ok(text)
}

/// Runs `plan`'s curve: the maximum, then the steps it chooses from the results so far, as
/// one run of the orchestrator; then the curve, its chart and the SLO's answer.
fn run_curve(
    matches: &ArgMatches,
    sweep: &SweepArgs,
    mut session: Session,
    plan: CurvePlan,
) -> anyhow::Result<Status> {
    let (name, job) = plan.first_step().map_err(|e| UsageError(e.to_string()))?;
    let mut batch = Batch::new(CommandKind::Sweep, vec![Step::new(name, vec![job])]);
    (batch.name, batch.target) = (Some(plan.run_name()), Some(plan.target.clone()));
    batch.shared_files = vec![plan.target.clone()];
    let mut failed = None;
    let mut next = |done: &[FinishedStep]| {
        let steps = plan.next_steps(done.iter().map(|s| (s.name.as_str(), &s.result)));
        let steps = steps.map_err(|e| failed = Some(e)).unwrap_or_default();
        steps
            .into_iter()
            .map(|(name, job)| Step::new(name, vec![job]))
            .collect()
    };
    let dry_run = session.settings().dry_run;
    let mut sink = PointSink::new(std::slice::from_ref(&plan.point), dry_run, true);
    let outcome = session.run_adaptive(&batch, &mut [&mut sink], &mut next);
    session::conclude_after(outcome, args::quiet(matches), |outcome| {
        if let Some(e) = failed.take() {
            return Err(UsageError(e.to_string()).into());
        } else if outcome.dry_run {
            return Ok(());
        }
        let steps = outcome.steps.iter().map(|s| (s.name.as_str(), &s.result));
        let (dir, json) = (charts_folder(&sweep.charts), sweep.output_format == "json");
        let curve = Curve::of(steps, plan.slo.as_ref());
        let target = &plan.target.display().to_string();
        let text = shown(curve_output(&curve, target, (dir.as_deref(), json)));
        Ok(write_output(matches.get_one::<String>("output"), &text)?)
    })
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
