//! `diskmeter iometer`: Iometer access specifications, one after another, on a target (or a
//! scenario table of them), each reported as a diskmeter run, then a summary table; or, with
//! `--icf FILE [TARGET...]`, an Iometer configuration file run as Iometer runs it — each access
//! specification position, each cycling step a step of the run — with its targets mapped to
//! Linux paths, and Iometer's results CSV (`--csv FILE`).

use crate::session::{self, Announce};
use crate::{args, write_output, Status, UsageError, NO_NAME};
use anyhow::Context;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_jobfile::iometer::icf::Icf;
use diskmeter_jobfile::iometer::icf_request::{icf_steps, IcfRequest};
use diskmeter_jobfile::iometer::icf_run::{IcfStep, RunSettings};
use diskmeter_jobfile::iometer::steps::{self, SpecSettings};
use diskmeter_jobfile::iometer::{self as jobs, Scenario, DEFAULT_FILE_SIZE};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step, StepContext};
use diskmeter_report::RunResult;
use diskmeter_report::{iometer_results, iometer_summary, render_iometer_csv, IometerCsvStep};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};

/// The `iometer` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("iometer")
        .about("Run Iometer access specifications (NAME:SIZE,RANDOM%,READ%), a scenario table or an Iometer .icf file")
        .long_about(diskmeter_views::help::IOMETER_ABOUT);
    args::add_run_flags(IometerArgs::augment_args(command), None)
}

// `iometer`'s own options, in the order `--help` lists them (no doc comment: it would
// replace the command's about).
#[derive(Args)]
struct IometerArgs {
    /// NAME:SIZE,RANDOM%,READ% (e.g. OLTP:8k,100,70) or a built-in name (repeatable; run in order); with --icf, a name from the file's library
    #[arg(long, value_name = "SPEC")]
    spec: Vec<String>,
    /// Workers on the target (the guides: 3 or more); with --icf, the default workers of a file that has none
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    #[arg(default_value = "3")]
    workers: u32,
    /// Outstanding IOs per worker (the guides: 128); with --icf, for the default workers of a file that has none
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    #[arg(default_value = "128")]
    qd: u32,
    /// Measured time per specification (fio time syntax; bare numbers are seconds)
    #[arg(long, value_name = "TIME", default_value = "30s")]
    time: String,
    /// Ramp-up time per specification, not measured
    #[arg(long, value_name = "TIME", default_value = "0")]
    ramp: String,
    /// Size of iobw.tst when the target is a folder [default: 1g]
    #[arg(long, value_name = "SIZE")]
    size: Option<String>,
    /// A TOML scenario table: [[scenario]] rows of target, spec, duration (and ramp, workers, qd, size)
    #[arg(long, value_name = "FILE", conflicts_with = "spec")]
    table: Option<String>,
    /// An Iometer configuration file (.icf): its test setup, access specifications and workers (a worker's "test connection rate" closes and opens its targets every N IOs, reported as connections); with --spec NAME, those specifications of its library on every worker (--workers/--qd size the default workers of a file that has none); a library alone, without --spec, is listed
    #[arg(long, value_name = "FILE", conflicts_with = "table")]
    icf: Option<String>,
    /// With --icf: run the file's target NAME (C:, PHYSICALDRIVE:1 or its full name) on PATH (repeatable)
    #[arg(long, id = "target-map", value_name = "NAME=PATH", requires = "icf")]
    target_map: Vec<String>,
    /// With --icf: write Iometer's results CSV (1.1.0 columns, ALL/MANAGER/WORKER rows per step)
    #[arg(long, value_name = "FILE", requires = "icf")]
    csv: Option<String>,
    /// Folder (gets iobw.tst), file or block device; with --icf, the file's targets in order
    #[arg(value_name = "TARGET", num_args = 1)]
    target: Vec<String>,
    /// normal (each run's report and a summary) or json (a list of diskmeter results)
    #[arg(long, id = "output-format", value_names = NO_NAME, default_value = "normal")]
    #[arg(value_parser = ["normal", "json"])]
    output_format: String,
}

impl IometerArgs {
    /// The scenario rows asked: the `--table`'s, or each `--spec` on the TARGET.
    fn scenarios(&self) -> Result<Vec<Scenario>, String> {
        if self.target.len() > 1 {
            return Err("give one TARGET (several only with --icf)".to_string());
        }
        if let Some(path) = &self.table {
            let text = read(path)?;
            return jobs::parse_table(path, &text).map_err(|e| e.to_string());
        }
        let target = (self.target.first())
            .ok_or("give a TARGET (folder, file or device), or --table FILE")?;
        if self.spec.is_empty() {
            return Err("give at least one --spec (e.g. --spec RandomReads_8K)".to_string());
        }
        let settings = SpecSettings {
            target: target.clone(),
            duration_ns: time_ns("time", &self.time)?,
            ramp_ns: time_ns("ramp", &self.ramp)?,
            workers: self.workers,
            queue_depth: self.qd,
            file_size_bytes: self.file_size_bytes()?,
        };
        (settings.scenarios(&self.spec)).map_err(|e| format!("--spec {e}"))
    }

    /// `--size`: the size of `iobw.tst` in a folder target.
    fn file_size_bytes(&self) -> Result<u64, String> {
        match &self.size {
            Some(text) => parse_size(text, KbBase::Binary).map_err(|e| format!("--size: {e}")),
            None => Ok(DEFAULT_FILE_SIZE),
        }
    }

    /// Whether `--output-format json` was asked: a list of diskmeter results.
    fn json(&self) -> bool {
        self.output_format == "json"
    }
}

/// A file the command reads (`--table`, `--icf`).
fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// `--time` or `--ramp` (`name`) in ns: fio time syntax, bare numbers seconds.
fn time_ns(name: &str, text: &str) -> Result<u64, String> {
    parse_time_ns(text, TimeUnit::Seconds).map_err(|e| format!("--{name}: {e}"))
}

/// Runs `diskmeter iometer`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let asked = IometerArgs::from_arg_matches(matches)?;
    if let Some(path) = &asked.icf {
        return icf_main(matches, &asked, path);
    }
    let rows = asked.scenarios().map_err(UsageError)?;
    let is_dir = |target: &str| std::path::Path::new(target).is_dir();
    let spec_steps = steps::spec_steps(&rows, is_dir).map_err(|e| UsageError(e.to_string()))?;
    let quiet = args::quiet(matches);
    let mut session = Session::open(args::settings(matches)?)?;
    let (targets, steps): (Vec<String>, Vec<Step>) = (spec_steps.into_iter())
        .map(|s| (s.targets, Step::new(s.name, s.jobs)))
        .unzip();
    let mut batch = Batch::new(CommandKind::Iometer, steps);
    batch.name = Some(steps::run_name(&rows));
    let announce = move |step: StepContext<'_>| {
        let (number, total, target) = (step.index + 1, step.total(), &targets[step.index]);
        Some(format!(
            "iometer {number}/{total}: {} on {target}",
            step.name()
        ))
    };
    let announce = Some(Box::new(announce) as Announce);
    session::run_and_conclude(&mut session, &batch, quiet, announce, None, |outcome| {
        if outcome.dry_run {
            return Ok(());
        }
        let results: Vec<RunResult> = outcome.results().cloned().collect();
        let mut out = iometer_results(&results, asked.json())?;
        if !asked.json() {
            out += &iometer_summary(&rows, &results);
        }
        Ok(write_output(matches.get_one::<String>("output"), &out)?)
    })
}

/// The `.icf` file and its steps as the command line changes them.
fn icf_plan(
    matches: &ArgMatches,
    asked: &IometerArgs,
    path: &str,
) -> Result<(Icf, Vec<IcfStep>), String> {
    let text = read(path)?;
    // --workers, --qd, --time and --ramp have defaults for --spec; only given ones count.
    let given = |name: &str| matches.value_source(name) == Some(ValueSource::CommandLine);
    let time = |name: &str, text: &str| given(name).then(|| time_ns(name, text)).transpose();
    let request = IcfRequest {
        targets: asked.target.clone(),
        target_maps: asked.target_map.clone(),
        specs: asked.spec.clone(),
        workers: given("workers").then_some(asked.workers),
        queue_depth: given("qd").then_some(asked.qd),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        settings: RunSettings {
            run_time_ns: time("time", &asked.time)?,
            ramp_ns: time("ramp", &asked.ramp)?,
            file_size_bytes: asked.file_size_bytes()?,
        },
    };
    icf_steps(path, &text, &request).map_err(|e| e.to_string())
}

/// Runs `diskmeter iometer --icf FILE`.
fn icf_main(matches: &ArgMatches, asked: &IometerArgs, path: &str) -> anyhow::Result<Status> {
    let (icf, icf_steps) = icf_plan(matches, asked, path).map_err(UsageError)?;
    let quiet = args::quiet(matches);
    let mut session = Session::open(args::settings(matches)?)?;
    let steps = (icf_steps.iter()).map(|s| Step::new(&s.name, s.jobs.clone()));
    let steps = steps.collect();
    let mut batch = Batch::new(CommandKind::Iometer, steps);
    batch.name = Some(icf.run_name(path));
    let announce = |step: StepContext<'_>| {
        let (number, total) = (step.index + 1, step.total());
        Some(format!("iometer {number}/{total}: {}", step.name()))
    };
    let announce = Some(Box::new(announce) as Announce);
    let heading = Some(Box::new(session::step_heading) as Announce);
    session::run_and_conclude(&mut session, &batch, quiet, announce, heading, |outcome| {
        if outcome.dry_run {
            return Ok(());
        }
        let results: Vec<RunResult> = outcome.results().cloned().collect();
        if let Some(csv_path) = &asked.csv {
            let steps = IometerCsvStep::of_icf_steps(&icf, &icf_steps, &results);
            let text = render_iometer_csv(&icf.setup.description, &steps);
            std::fs::write(csv_path, text)
                .with_context(|| format!("cannot write --csv {csv_path}"))?;
        }
        let out = iometer_results(&results, asked.json())?;
        Ok(write_output(matches.get_one::<String>("output"), &out)?)
    })
}
