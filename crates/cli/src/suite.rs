//! `diskmeter suite NAME [TARGET]`: runs a named suite's steps one after another on a
//! target (a test file diskmeter creates, a folder for it, or a block device) and prints the
//! suite's table.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_orchestrator::{
    is_block_device, test_file, Batch, CommandKind, Outcome, Session, Step, StepContext,
};
use diskmeter_report::RunResult;
use diskmeter_suites::{expect, CacheRole, Suite, SuiteOptions};
use diskmeter_units::{parse_size, KbBase};
use diskmeter_views::suite::terminal;
use std::path::Path;

/// The test file a suite creates in a folder.
const SUITE_FILE: &str = "diskmeter-suite.dat";
/// The fio options a suite sets for every job of every step (`--runtime`, ...).
const FIO_OVERRIDES: [&str; 5] = ["runtime", "iodepth", "numjobs", "bs", "ioengine"];

/// The `suite` subcommand's options, in the order `--help` lists them.
#[derive(Args)]
#[command(
    about = "Run a named suite of the guides (quick, cloud, matrix, max-write-iops, ...)",
    long_about = "Runs a named suite: each step is an ordinary diskmeter run (direct IO, io_uring), \
        and the results come as one table. TARGET is a file (created, laid out once for \
        every step and removed at the end unless --keep), a folder (the file \
        diskmeter-suite.dat in it) or a block device (the safety rules of `diskmeter run` \
        apply). The warmup suite keeps its file (warming it is the point) and records in \
        the history that it is warm in this boot; the suites that read from a cached \
        volume say before they start when their read target was not warmed since the \
        last boot, and --warmup runs the warm-up first; by default the file diskmeter-suite.dat in the current folder, 1 GiB \
        (--size), or a quarter of the free space when that is less. --list shows every \
        suite with its steps; --dry-run prints each step's jobs.\n\n\
        Exit codes: 0 ok; 1 a step failed or the run was interrupted; 2 usage error."
)]
struct SuiteArgs {
    /// The suite (see --list)
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// File, folder or block device (default: ./diskmeter-suite.dat)
    #[arg(value_name = "TARGET")]
    target: Option<String>,
    /// List the suites and their steps
    #[arg(long)]
    list: bool,
    /// Test file size, or the region of a device (default 1g for files, the whole device)
    #[arg(long, value_name = "SIZE")]
    size: Option<String>,
    /// Reads go to this file or device (the guides read from a cached volume)
    #[arg(long, value_name = "PATH")]
    read_target: Option<String>,
    /// Writes go to this file or device (the guides write to an uncached stripe)
    #[arg(long, value_name = "PATH")]
    write_target: Option<String>,
    /// Total write IOPS cap, split evenly over the writers (the guides: 4 x 12,500 = 50,000)
    #[arg(long, value_name = "IOPS", value_parser = clap::value_parser!(u64).range(1..))]
    write_cap: Option<u64>,
    /// Print a guide's expected figures beside the measured ones (cloud suite)
    #[arg(long, value_name = "SET", value_parser = expect::EXPECTATION_SETS)]
    expect: Option<String>,
    /// Before a suite that reads from a cached volume (max-read-iops, max-mixed-iops,
    /// max-throughput, max-mixed-throughput), run the warm-up suite on its read target
    #[arg(long)]
    warmup: bool,
    /// Runtime of each warm-up step with --warmup (default: the guide's 2 hours)
    #[arg(long, value_name = "TIME", requires = "warmup")]
    warmup_runtime: Option<String>,
    /// Run every step for its full runtime instead of ending it once IOPS and bandwidth are
    /// steady (within 2 % of their mean over 5 s) and their means known to +-1.5 % (95 %
    /// interval)
    #[arg(long)]
    no_auto_stop: bool,
    /// normal: the suite's table; json: every step's full result
    #[arg(long, value_name = "FORMAT", value_parser = ["normal", "json"], default_value = "normal")]
    output_format: String,
}

/// The `suite` subcommand's definition: its options, then [`FIO_OVERRIDES`].
pub fn command() -> Command {
    let command = SuiteArgs::augment_args(Command::new("suite"));
    let command = FIO_OVERRIDES.into_iter().fold(command, |command, name| {
        command.arg(Arg::new(name).long(name).value_name("VALUE").help(format!(
            "Sets fio's {name} for every job of every step (as `diskmeter run --{name}`)"
        )))
    });
    args::add_run_flags(command, Some("suite"))
}

/// Runs the `suite` subcommand.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let given = SuiteArgs::from_arg_matches(matches)?;
    if given.list {
        print!("{}", terminal::list());
        return Ok(Status::Success);
    }
    let missing = || UsageError("give a suite name (diskmeter suite --list shows them)".into());
    let name = given.name.as_deref().ok_or_else(missing)?;
    let quiet = args::quiet(matches);
    let settings = args::settings(matches)?;
    let mut options = given.options(matches)?;
    let mut session = Session::open(settings)?;
    if let Some(device) = session.emulated_device() {
        options.on_emulated(device, given.size.is_some());
    }
    let suite = diskmeter_suites::build(name, &options).map_err(|e| UsageError(e.to_string()))?;
    let expectations = given
        .expect
        .as_deref()
        .and_then(expect::expectations)
        .unwrap_or_default();
    if given.warmup {
        let runtime = given.warmup_runtime.as_deref();
        let (warm, warm_options) = diskmeter_suites::warmup_for(&suite, &options, runtime)
            .map_err(|e| UsageError(e.to_string()))?;
        let status = given.run(&mut session, &warm, &warm_options, &[], matches)?;
        if status != Status::Success {
            return Ok(status);
        }
    } else if suite.cache == CacheRole::ReadsCached && !session.settings().dry_run && !quiet {
        if let Some(line) = session.warmth(&suite.read_file).note(&suite.read_file) {
            eprintln!("diskmeter: note: {line}");
        }
    }
    given.run(&mut session, &suite, &options, &expectations, matches)
}

impl SuiteArgs {
    /// Runs one suite as one batch, prints its table (or JSON document) to `--output` and
    /// concludes.
    fn run(
        &self,
        session: &mut Session,
        suite: &Suite,
        options: &SuiteOptions,
        expectations: &[expect::Expectation],
        matches: &ArgMatches,
    ) -> anyhow::Result<Status> {
        let (quiet, output) = (args::quiet(matches), matches.get_one::<String>("output"));
        let steps = suite.steps.iter().map(|step| Step {
            name: step.name.clone(),
            jobs: step.jobs.clone(),
        });
        let mut batch = Batch::new(CommandKind::Suite, steps.collect());
        batch.name = Some(suite.name.clone());
        batch.target = Some(options.target.clone());
        // The suite's files are removed at the end; files that were there stay.
        batch.shared_files = options.files();
        if suite.cache == CacheRole::Warms {
            // A warm-up exists to leave its file in the host cache: it is kept and recorded.
            batch.warms = vec![suite.read_file.clone()];
        }
        let announce = Box::new(|step: StepContext<'_>| {
            let name = step.batch.name.as_deref().unwrap_or_default();
            let line = terminal::step_line(name, step.index, step.total(), step.name());
            Some(line)
        });
        let heading = Box::new(session::step_heading);
        let write = |outcome: &Outcome| -> anyhow::Result<()> {
            if outcome.dry_run {
                return Ok(());
            }
            let text = if self.output_format == "json" {
                let steps = outcome.steps.iter().map(|s| (s.name.as_str(), &s.result));
                terminal::json(&suite.name, steps)
            } else {
                let results: Vec<RunResult> = outcome.results().cloned().collect();
                let (profile, saved) = (self.expect.as_deref(), outcome.saved.is_some());
                terminal::text(suite, options, &results, expectations, profile, saved)
            };
            Ok(write_output(output, &text)?)
        };
        session::run_and_conclude(session, &batch, quiet, Some(announce), Some(heading), write)
    }

    /// The user's target and choices (the [`FIO_OVERRIDES`] from `matches`), with the test
    /// file's default size.
    fn options(&self, matches: &ArgMatches) -> Result<SuiteOptions, UsageError> {
        let resolve = |given: &Option<String>| -> Option<std::path::PathBuf> {
            given.as_deref().map(|p| test_file(Some(p), SUITE_FILE))
        };
        let target = test_file(self.target.as_deref(), SUITE_FILE);
        let mut options = SuiteOptions {
            auto_stop: !self.no_auto_stop,
            read_target: resolve(&self.read_target),
            write_target: resolve(&self.write_target),
            write_cap_iops: self.write_cap,
            size_bytes: region_bytes(self.size.as_deref(), &target, || {
                diskmeter_orchestrator::default_suite_file_bytes(&target)
            })?,
            ..SuiteOptions::new(&target)
        };
        for name in FIO_OVERRIDES {
            let Some(value) = matches.get_one::<String>(name).cloned() else {
                continue;
            };
            match name {
                "ioengine" => options.ioengine = value,
                _ => options.overrides.push((name.to_string(), value)),
            }
        }
        Ok(options)
    }
}

/// `--size` of a suite or a sweep in bytes: as given; else none on a block device (the
/// whole device) and `default` for a file.
pub(crate) fn region_bytes(
    given: Option<&str>,
    target: &Path,
    default: impl FnOnce() -> u64,
) -> Result<Option<u64>, UsageError> {
    match given {
        Some(text) => parse_size(text, KbBase::Binary)
            .map(Some)
            .map_err(|e| UsageError(format!("--size: {e}"))),
        None if is_block_device(target) => Ok(None),
        None => Ok(Some(default())),
    }
}
