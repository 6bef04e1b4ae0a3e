//! `diskmeter iometer`: Iometer access specifications, one after another, on a target (or a
//! scenario table of them), each reported as a diskmeter run, then a summary table.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_jobfile::iometer::{self, Scenario, DEFAULT_FILE_SIZE};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step, StepContext};
use diskmeter_report::RunResult;
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};

/// The `iometer` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("iometer")
        .about("Run Iometer access specifications (NAME:SIZE,RANDOM%,READ%), a scenario table or an Iometer .icf file")
        .long_about(
            "Runs Iometer access specifications one after another: each becomes a job with that \
             request size, read share and random share, --workers workers with --qd IOs each, \
             direct IO, for --time. The guides' names resolve (RandomWrites_8K, RandomReads_8K, \
             RandomWrites_64K, RandomReads_64K, RandomWrites_1MB, RandomReads_1MB). A folder \
             target gets Iometer's test file iobw.tst (--size, default 1 GiB; the guides use \
             200 GB). --table FILE runs a TOML scenario table instead (format in \
             docs/guide/2-job-files.md).\n\n--icf FILE runs an Iometer configuration file (.icf, Iometer 2004.07.30 to \
             1.1.0) as Iometer would: its access specifications in their assigned order, each \
             step of its test type's cycling (queue depth, workers, targets) a step of the run, \
             every worker a job with its outstanding IOs, maximum disk size and starting sector; \
             run time and ramp from the file unless --time/--ramp are given. The file's targets \
             (C: \"NTFS\", PHYSICALDRIVE:1) are mapped with --target-map 'C:=/mnt/data' or given \
             as TARGETs in the order they first appear. --csv FILE writes Iometer's results CSV.\n\nExit codes: 0 ok; 1 a run failed or was interrupted; 2 usage error.",
        )
        .arg(
            Arg::new("spec")
                .long("spec")
                .value_name("SPEC")
                .action(ArgAction::Append)
                .help("NAME:SIZE,RANDOM%,READ% (e.g. OLTP:8k,100,70) or a built-in name (repeatable; run in order); with --icf, a name from the file's library"),
        )
        .arg(
            Arg::new("workers")
                .long("workers")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(1..))
                .default_value("3")
                .help("Workers on the target (the guides: 3 or more); with --icf, the default workers of a file that has none"),
        )
        .arg(
            Arg::new("qd")
                .long("qd")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(1..))
                .default_value("128")
                .help("Outstanding IOs per worker (the guides: 128); with --icf, for the default workers of a file that has none"),
        )
        .arg(
            Arg::new("time")
                .long("time")
                .value_name("TIME")
                .default_value("30s")
                .help("Measured time per specification (fio time syntax; bare numbers are seconds)"),
        )
        .arg(
            Arg::new("ramp")
                .long("ramp")
                .value_name("TIME")
                .default_value("0")
                .help("Ramp-up time per specification, not measured"),
        )
        .arg(
            Arg::new("size")
                .long("size")
                .value_name("SIZE")
                .help("Size of iobw.tst when the target is a folder [default: 1g]"),
        )
        .arg(
            Arg::new("table")
                .long("table")
                .value_name("FILE")
                .conflicts_with("spec")
                .help("A TOML scenario table: [[scenario]] rows of target, spec, duration (and ramp, workers, qd, size)"),
        )
        .arg(
            Arg::new("icf")
                .long("icf")
                .value_name("FILE")
                .conflicts_with("table")
                .help("An Iometer configuration file (.icf): its test setup, access specifications and workers (a worker's \"test connection rate\" closes and opens its targets every N IOs, reported as connections); with --spec NAME, those specifications of its library on every worker (--workers/--qd size the default workers of a file that has none); a library alone, without --spec, is listed"),
        )
        .arg(
            Arg::new("target-map")
                .long("target-map")
                .value_name("NAME=PATH")
                .action(ArgAction::Append)
                .requires("icf")
                .help("With --icf: run the file's target NAME (C:, PHYSICALDRIVE:1 or its full name) on PATH (repeatable)"),
        )
        .arg(
            Arg::new("csv")
                .long("csv")
                .value_name("FILE")
                .requires("icf")
                .help("With --icf: write Iometer's results CSV (1.1.0 columns, ALL/MANAGER/WORKER rows per step)"),
        )
        .arg(
            Arg::new("target")
                .value_name("TARGET")
                .action(ArgAction::Append)
                .help("Folder (gets iobw.tst), file or block device; with --icf, the file's targets in order"),
        )
        .arg(
            Arg::new("output-format")
                .long("output-format")
                .value_parser(["normal", "json"])
                .default_value("normal")
                .help("normal (each run's report and a summary) or json (a list of diskmeter results)"),
        )
;
    args::add_run_flags(command)
}

fn scenarios(matches: &ArgMatches) -> Result<Vec<Scenario>, String> {
    if matches
        .get_many::<String>("target")
        .is_some_and(|t| t.len() > 1)
    {
        return Err("give one TARGET (several only with --icf)".to_string());
    }
    if let Some(path) = matches.get_one::<String>("table") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        return iometer::parse_table(path, &text).map_err(|e| e.to_string());
    }
    let target = matches
        .get_one::<String>("target")
        .ok_or("give a TARGET (folder, file or device), or --table FILE")?;
    let specs: Vec<&String> = matches
        .get_many::<String>("spec")
        .into_iter()
        .flatten()
        .collect();
    if specs.is_empty() {
        return Err("give at least one --spec (e.g. --spec RandomReads_8K)".to_string());
    }
    let time = |name: &str| time_ns(matches, name);
    let file_size_bytes = file_size_bytes(matches)?;
    let known = iometer::builtin_specs();
    specs
        .into_iter()
        .map(|text| {
            Ok(Scenario {
                target: target.clone(),
                spec: iometer::parse_spec(text, &known).map_err(|e| format!("--spec {e}"))?,
                duration_ns: time("time")?,
                ramp_ns: time("ramp")?,
                workers: *matches.get_one::<u32>("workers").unwrap_or(&3),
                queue_depth: *matches.get_one::<u32>("qd").unwrap_or(&128),
                file_size_bytes,
                together: None,
            })
        })
        .collect()
}

/// `--time` or `--ramp` (fio time syntax, bare numbers seconds; 0 when not given).
pub(crate) fn time_ns(matches: &ArgMatches, name: &str) -> Result<u64, String> {
    let text = matches
        .get_one::<String>(name)
        .map(String::as_str)
        .unwrap_or("0");
    parse_time_ns(text, TimeUnit::Seconds).map_err(|e| format!("--{name}: {e}"))
}

/// `--size`: the size of `iobw.tst` in a folder target.
pub(crate) fn file_size_bytes(matches: &ArgMatches) -> Result<u64, String> {
    match matches.get_one::<String>("size") {
        Some(text) => parse_size(text, KbBase::Binary).map_err(|e| format!("--size: {e}")),
        None => Ok(DEFAULT_FILE_SIZE),
    }
}

/// Runs `diskmeter iometer`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    if let Some(path) = matches.get_one::<String>("icf") {
        return crate::iometer_icf::main(matches, path);
    }
    let rows = scenarios(matches).map_err(UsageError)?;
    let quiet = args::quiet(matches);
    let settings = args::settings(matches)?;
    let json = json_asked(matches);
    let groups = iometer::steps_of(&rows);
    let mut steps = Vec::with_capacity(groups.len());
    for group in &groups {
        let jobs = iometer::step_jobs(&rows, group, |target| std::path::Path::new(target).is_dir())
            .map_err(|e| UsageError(e.to_string()))?;
        steps.push(Step {
            name: group
                .iter()
                .map(|&i| rows[i].spec.name.as_str())
                .collect::<Vec<_>>()
                .join(" + "),
            jobs,
        });
    }
    let mut session = Session::open(settings)?;
    let mut batch = Batch::new(CommandKind::Iometer, steps);
    batch.name = Some(
        rows.iter()
            .map(|row| row.spec.name.as_str())
            .collect::<Vec<_>>()
            .join(","),
    );
    let targets: Vec<String> = groups
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|&i| rows[i].target.as_str())
                .collect::<Vec<_>>()
                .join(" + ")
        })
        .collect();
    let announce = move |step: StepContext<'_>| {
        Some(format!(
            "iometer {}/{}: {} on {}",
            step.index + 1,
            step.total(),
            step.name(),
            targets[step.index]
        ))
    };
    let outcome =
        session::run_on_terminal(&mut session, &batch, quiet, Some(Box::new(announce)), None);
    let written = if outcome.dry_run {
        Ok(())
    } else {
        let results: Vec<RunResult> = outcome.results().cloned().collect();
        let mut out = results_text(&results, json)?;
        if !json {
            let names: Vec<(&str, &str)> = (rows.iter())
                .map(|r| (r.spec.name.as_str(), r.target.as_str()))
                .collect();
            out += &diskmeter_report::iometer_summary(&names, &groups, &results);
        }
        write_output(matches.get_one::<String>("output"), &out)
    };
    let status = session::conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// Whether `--output-format json` was asked: a list of diskmeter results.
pub(crate) fn json_asked(matches: &ArgMatches) -> bool {
    matches
        .get_one::<String>("output-format")
        .map(String::as_str)
        == Some("json")
}

/// The steps' results as `--output-format` asks: a JSON list of diskmeter results, or each
/// step's terminal report followed by an empty line.
pub(crate) fn results_text(results: &[RunResult], json: bool) -> anyhow::Result<String> {
    Ok(if json {
        serde_json::to_string_pretty(results)? + "\n"
    } else {
        results
            .iter()
            .map(|result| diskmeter_report::render_terminal(result) + "\n")
            .collect()
    })
}
