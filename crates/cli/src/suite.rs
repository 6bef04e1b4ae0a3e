//! `diskmeter suite NAME [TARGET]`: runs a named suite's steps one after another on a
//! target (a test file diskmeter creates, a folder for it, or a block device) and prints the
//! suite's table.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::verdict::{judge, merged_job_histogram, Judgement, StepEvidence};
use diskmeter_orchestrator::{
    Batch, CommandKind, FinishedStep, Session, Step, StepContext, Warmth,
};
use diskmeter_report::RunResult;
use diskmeter_suites::{expect, CacheRole, SuiteOptions, SUITES};
use diskmeter_units::{format_bytes_binary, parse_size, KbBase};
use diskmeter_views::suite::table;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The test file a suite creates in a folder.
const SUITE_FILE: &str = "diskmeter-suite.dat";
/// The default test file size: CrystalDiskMark's default, small enough for any machine, and
/// with direct IO (every suite's default) no page cache can serve it.
const DEFAULT_SIZE_BYTES: u64 = 1 << 30;

/// The `suite` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("suite")
        .about("Run a named suite of the guides (quick, cloud, matrix, max-write-iops, ...)")
        .long_about(
            "Runs a named suite: each step is an ordinary diskmeter run (direct IO, io_uring), \
             and the results come as one table. TARGET is a file (created, laid out once for \
             every step and removed at the end unless --keep), a folder (the file \
             diskmeter-suite.dat in it) or a block device (the safety rules of `diskmeter run` \
             apply). The warmup suite keeps its file (warming it is the point) and records in \
             the history that it is warm in this boot; the suites that read from a cached \
             volume say before they start when their read target was not warmed since the \
             last boot, and --warmup runs the warm-up first; by default the file diskmeter-suite.dat in the current folder, 1 GiB \
             (--size), or a quarter of the free space when that is less. --list shows every \
             suite with its steps; --dry-run prints each step's jobs.\n\n\
             Exit codes: 0 ok; 1 a step failed or the run was interrupted; 2 usage error.",
        )
        .arg(Arg::new("name").value_name("NAME").help("The suite (see --list)"))
        .arg(
            Arg::new("target")
                .value_name("TARGET")
                .help("File, folder or block device (default: ./diskmeter-suite.dat)"),
        )
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .help("List the suites and their steps"),
        )
        .arg(
            Arg::new("size")
                .long("size")
                .value_name("SIZE")
                .help("Test file size, or the region of a device (default 1g for files, the whole device)"),
        )
        .arg(
            Arg::new("read-target")
                .long("read-target")
                .value_name("PATH")
                .help("Reads go to this file or device (the guides read from a cached volume)"),
        )
        .arg(
            Arg::new("write-target")
                .long("write-target")
                .value_name("PATH")
                .help("Writes go to this file or device (the guides write to an uncached stripe)"),
        )
        .arg(
            Arg::new("write-cap")
                .long("write-cap")
                .value_name("IOPS")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("Total write IOPS cap, split evenly over the writers (the guides: 4 x 12,500 = 50,000)"),
        )
        .arg(
            Arg::new("expect")
                .long("expect")
                .value_name("SET")
                .value_parser(expect::EXPECTATION_SETS)
                .help("Print a guide's expected figures beside the measured ones (cloud suite)"),
        )
        .arg(
            Arg::new("warmup")
                .long("warmup")
                .action(ArgAction::SetTrue)
                .help("Before a suite that reads from a cached volume (max-read-iops, max-mixed-iops, max-throughput, max-mixed-throughput), run the warm-up suite on its read target"),
        )
        .arg(
            Arg::new("warmup-runtime")
                .long("warmup-runtime")
                .value_name("TIME")
                .requires("warmup")
                .help("Runtime of each warm-up step with --warmup (default: the guide's 2 hours)"),
        )
        .arg(
            Arg::new("no-auto-stop")
                .long("no-auto-stop")
                .action(ArgAction::SetTrue)
                .help("Run every step for its full runtime instead of ending it once IOPS and bandwidth are steady (within 2 % of their mean over 5 s) and their means known to +-1.5 % (95 % interval)"),
        )
        .arg(
            Arg::new("output-format")
                .long("output-format")
                .value_name("FORMAT")
                .value_parser(["normal", "json"])
                .default_value("normal")
                .help("normal: the suite's table; json: every step's full result"),
        );
    let command = ["runtime", "iodepth", "numjobs", "bs", "ioengine"]
        .into_iter()
        .fold(command, |command, name| {
            command.arg(Arg::new(name).long(name).value_name("VALUE").help(format!(
                "Sets fio's {name} for every job of every step (as `diskmeter run --{name}`)"
            )))
        });
    args::add_run_flags(args::add_emulate_flags(command, "suite"))
}

/// Runs the `suite` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    if matches.get_flag("list") {
        print!("{}", list());
        return Ok(Status::Success);
    }
    let Some(name) = matches.get_one::<String>("name") else {
        return Err(
            UsageError("give a suite name (diskmeter suite --list shows them)".into()).into(),
        );
    };
    let quiet = args::quiet(matches);
    let settings = args::settings(matches)?;
    let dry_run = settings.dry_run;
    let mut options = suite_options(matches)?;
    let mut session = Session::open(settings)?;
    if let Some(device) = session.emulated_device() {
        options.target = device.to_path_buf();
        if matches.get_one::<String>("size").is_none() {
            options.size_bytes = None;
        }
    }
    let suite = diskmeter_suites::build(name, &options).map_err(|e| UsageError(e.to_string()))?;
    let expectations = matches
        .get_one::<String>("expect")
        .and_then(|set| expect::expectations(set))
        .unwrap_or_default();
    let chain_warmup = matches.get_flag("warmup");
    if chain_warmup && suite.cache != CacheRole::ReadsCached {
        return Err(UsageError(format!(
            "--warmup warms the read target before a suite that reads from a cached volume \
             ({}); `diskmeter suite warmup TARGET` warms on its own",
            cached_read_suites().join(", ")
        ))
        .into());
    }
    if chain_warmup {
        let warm_options = warmup_options(&options, &suite.read_file, matches);
        let warm = diskmeter_suites::build("warmup", &warm_options)
            .map_err(|e| UsageError(e.to_string()))?;
        let status = run_suite(&mut session, &warm, &warm_options, &[], matches, quiet)?;
        if status != Status::Success {
            return Ok(status);
        }
    } else if suite.cache == CacheRole::ReadsCached && !dry_run && !quiet {
        if let Some(line) = warmth_note(&session, &suite.read_file) {
            eprintln!("diskmeter: note: {line}");
        }
    }
    run_suite(
        &mut session,
        &suite,
        &options,
        &expectations,
        matches,
        quiet,
    )
}

/// Runs one suite as one batch, prints its table and concludes.
fn run_suite(
    session: &mut Session,
    suite: &diskmeter_suites::Suite,
    options: &SuiteOptions,
    expectations: &[expect::Expectation],
    matches: &ArgMatches,
    quiet: bool,
) -> anyhow::Result<Status> {
    let mut batch = Batch::new(
        CommandKind::Suite,
        suite
            .steps
            .iter()
            .map(|step| Step {
                name: step.name.clone(),
                jobs: step.jobs.clone(),
            })
            .collect(),
    );
    batch.name = Some(suite.name.clone());
    batch.target = Some(options.target.clone());
    // The suite's files are removed at the end; files that were there stay.
    batch.shared_files = [
        Some(options.target.clone()),
        options.read_target.clone(),
        options.write_target.clone(),
    ]
    .into_iter()
    .flatten()
    .collect();
    if suite.cache == CacheRole::Warms {
        // A warm-up exists to leave its file in the host cache: it is kept and recorded.
        batch.warms = vec![suite.read_file.clone()];
    }
    let announce = |step: StepContext<'_>| {
        Some(format!(
            "suite {}: step {}/{}: {}",
            step.batch.name.as_deref().unwrap_or_default(),
            step.index + 1,
            step.total(),
            step.name()
        ))
    };
    let outcome = session::run_on_terminal(
        session,
        &batch,
        quiet,
        Some(Box::new(announce)),
        Some(Box::new(session::step_heading)),
    );
    let written = if outcome.dry_run {
        Ok(())
    } else {
        let results: Vec<RunResult> = outcome.results().cloned().collect();
        let text = match matches
            .get_one::<String>("output-format")
            .map(String::as_str)
        {
            Some("json") => json(&suite.name, &outcome.steps),
            _ => {
                let mut text = header(suite, options);
                text.push_str(&table::render(suite, &results, expectations));
                text.push('\n');
                text.push_str(&table::step_notes(suite, &results));
                if let Some(profile) = matches.get_one::<String>("expect") {
                    text.push_str(&expectation_verdicts(
                        suite,
                        &results,
                        expectations,
                        profile,
                    ));
                }
                if results.len() < suite.steps.len() {
                    let _ = writeln!(
                        text,
                        "(stopped after {} of {} steps)",
                        results.len(),
                        suite.steps.len()
                    );
                } else if suite.cache == CacheRole::Warms {
                    let _ = writeln!(
                        text,
                        "kept {} warm in the host cache{}",
                        suite.read_file.display(),
                        if outcome.saved.is_some() {
                            " (recorded in the history for this boot)"
                        } else {
                            ""
                        }
                    );
                }
                text
            }
        };
        write_output(matches.get_one::<String>("output"), &text)
    };
    let status = session::conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// The guide's figures judged on the steps that ran, one line each (met, missed or within
/// noise, with the measured figure's interval): the same requirements `check --expect` judges.
fn expectation_verdicts(
    suite: &diskmeter_suites::Suite,
    results: &[RunResult],
    expectations: &[expect::Expectation],
    profile: &str,
) -> String {
    let mut text = format!("\nAgainst the guide ({profile}):\n");
    for e in expectations {
        let requirement = e.requirement(profile);
        let judgement = match suite
            .steps
            .iter()
            .position(|s| s.name == e.step)
            .and_then(|i| results.get(i))
        {
            Some(result) => judge(
                &requirement,
                &StepEvidence::of(result, &mut |d, kind| merged_job_histogram(result, d, kind)),
            ),
            None => Judgement::not_measured(&requirement, format!("step '{}' did not run", e.step)),
        };
        let _ = writeln!(text, "  {}", judgement.line());
    }
    text
}

/// The suites whose published figures read from a warm cache.
fn cached_read_suites() -> Vec<&'static str> {
    SUITES
        .iter()
        .filter(|s| s.cache == CacheRole::ReadsCached)
        .map(|s| s.name)
        .collect()
}

/// The warm-up `--warmup` chains: the warm-up suite on the main suite's read file, each
/// step for `--warmup-runtime` (the guide's 2 hours by default).
fn warmup_options(options: &SuiteOptions, read_file: &Path, matches: &ArgMatches) -> SuiteOptions {
    let mut warm = SuiteOptions::new(read_file);
    warm.size_bytes = options.size_bytes;
    warm.ioengine = options.ioengine.clone();
    if let Some(runtime) = matches.get_one::<String>("warmup-runtime") {
        warm.overrides
            .push(("runtime".to_string(), runtime.clone()));
    }
    warm
}

/// What the history knows of the read file's warmth, as a note before a cached-read suite.
fn warmth_note(session: &Session, read_file: &Path) -> Option<String> {
    match session.warmth(read_file) {
        Warmth::Warm(warmup) => Some(format!(
            "{} was warmed in this boot (history run {}): cached reads come from the host cache",
            read_file.display(),
            warmup.run_id.map_or("-".to_string(), |id| id.to_string())
        )),
        Warmth::Cold { last } => Some(format!(
            "{} has not been warmed since the last boot{}: reads that the guide serves from a \
             warm host cache will come from the disk (warm it first: `diskmeter suite warmup \
             {}`, or add --warmup)",
            read_file.display(),
            if last.is_some() {
                " (its last warm-up was in an earlier boot)"
            } else {
                ""
            },
            read_file.display()
        )),
        Warmth::Unknown => None,
    }
}

fn header(suite: &diskmeter_suites::Suite, options: &SuiteOptions) -> String {
    let size = options
        .size_bytes
        .map_or_else(|| "the whole device".to_string(), format_bytes_binary);
    let mut text = format!(
        "suite {} on {} ({size}, {})\n",
        suite.name,
        options.target.display(),
        if options.ioengine == "null" {
            "null engine: no IO".to_string()
        } else {
            format!("direct IO, {}", options.ioengine)
        }
    );
    for (what, path) in [
        ("reads", &options.read_target),
        ("writes", &options.write_target),
    ] {
        if let Some(path) = path {
            let _ = writeln!(text, "{what} on {}", path.display());
        }
    }
    text.push('\n');
    text
}

fn json(name: &str, finished: &[FinishedStep]) -> String {
    let steps: Vec<serde_json::Value> = finished
        .iter()
        .map(|step| {
            serde_json::json!({
                "step": step.name,
                // Why the step must not be read as whole (interrupted, failed); null if whole.
                "partial": step.result.partial_reason(),
                "result": serde_json::from_str::<serde_json::Value>(&diskmeter_report::to_json(&step.result))
                    .unwrap_or_default(),
            })
        })
        .collect();
    let doc = serde_json::json!({ "suite": name, "steps": steps });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn list() -> String {
    let mut text = String::new();
    for suite in SUITES {
        let _ = writeln!(text, "{}: {}", suite.name, suite.description);
        for line in suite.step_lines() {
            let _ = writeln!(text, "    {line}");
        }
    }
    text
}

/// The user's target and choices, with the test file's default size.
fn suite_options(matches: &ArgMatches) -> Result<SuiteOptions, UsageError> {
    let resolve = |given: Option<&String>| -> PathBuf {
        match given {
            None => PathBuf::from(SUITE_FILE),
            Some(path) if Path::new(path).is_dir() => Path::new(path).join(SUITE_FILE),
            Some(path) => PathBuf::from(path),
        }
    };
    let target = resolve(matches.get_one::<String>("target"));
    let mut options = SuiteOptions::new(&target);
    options.auto_stop = !matches.get_flag("no-auto-stop");
    options.read_target = matches
        .get_one::<String>("read-target")
        .map(|p| resolve(Some(p)));
    options.write_target = matches
        .get_one::<String>("write-target")
        .map(|p| resolve(Some(p)));
    options.write_cap_iops = matches.get_one::<u64>("write-cap").copied();
    options.size_bytes = match matches.get_one::<String>("size") {
        Some(text) => {
            Some(parse_size(text, KbBase::Binary).map_err(|e| UsageError(format!("--size: {e}")))?)
        }
        None if diskmeter_orchestrator::is_block_device(&target) => None,
        None => Some(default_size(&target)),
    };
    for name in ["runtime", "iodepth", "numjobs", "bs", "ioengine"] {
        if let Some(value) = matches.get_one::<String>(name) {
            if name == "ioengine" {
                options.ioengine = value.clone();
            } else {
                options.overrides.push((name.to_string(), value.clone()));
            }
        }
    }
    Ok(options)
}

/// 1 GiB, or a quarter of the free space of the file's folder when that is less (at least
/// 64 MiB), in whole MiB.
fn default_size(file: &Path) -> u64 {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let free = rustix::fs::statvfs(folder)
        .map(|s| s.f_bavail.saturating_mul(s.f_frsize))
        .unwrap_or(u64::MAX);
    let quarter = (free / 4) >> 20 << 20;
    DEFAULT_SIZE_BYTES.min(quarter.max(64 << 20))
}
