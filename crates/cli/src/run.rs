//! `diskmeter run`: fio's options on the command line -> jobs -> plan -> run -> report.

use crate::args;
use crate::jobfile;
use crate::options;
use crate::progress::{LiveProgress, ProgressGoal};
use crate::save::{self, StepToSave};
use crate::{write_output, EXIT_FAILURE, EXIT_USAGE};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_jobfile::fio::Unsupported;
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult, SteadyStateInput, TargetInfo};
use diskmeter_runner::plan::RunPlan;
use diskmeter_runner::{ExecuteOptions, LiveCounters, PlanOptions, RunError};
use diskmeter_workload::JobSpec;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The `run` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("run")
        .about("Run IO jobs given with fio's option names (--name=... --rw=... --bs=...)")
        .long_about(
            "Run IO jobs given with fio's option names, as `--option=value` or `--option value`. \
             Options before the first --name apply to every job; each --name starts a new job. \
             With no job options, runs the default job: 4 KiB random reads, iodepth 32, \
             a 1 GiB file in the current folder, 10 seconds, direct IO.\n\n\
             Files diskmeter creates are removed at the end unless --keep (or unlink=0). \
             Writing to an existing file diskmeter did not create, or to a block device that \
             is mounted or holds a partition table or a filesystem signature, is refused \
             unless --allow-destroy.\n\n\
             Exit codes: 0 ok; 1 the run failed, was refused or was interrupted; 2 usage error.",
        )
        .arg(
            Arg::new("output-format")
                .long("output-format")
                .value_parser(["normal", "json", "fio-json"])
                .default_value("normal")
                .help("normal (human summary), json (diskmeter's schema) or fio-json (fio 3.x JSON keys and units)"),
        )
        .arg(
            Arg::new("ignore-unsupported")
                .long("ignore-unsupported")
                .action(ArgAction::SetTrue)
                .help("In job files, skip fio options diskmeter does not support with a warning (default: refuse them)"),
        )
        .arg(
            Arg::new("emulate")
                .long("emulate")
                .value_name("PROFILE")
                .help("Run on an emulated disk of this profile (e.g. azure-p30; root): a throttled loop device made for the run, every job's target, removed at the end"),
        )
        .arg(
            Arg::new("emulate-size")
                .long("emulate-size")
                .value_name("SIZE")
                .default_value("1g")
                .requires("emulate")
                .help("Size of the --emulate disk"),
        )
        .arg(
            Arg::new("jobfiles")
                .value_name("JOBFILE")
                .num_args(0..)
                .help("fio job files to run; options before them are defaults that the files' [global] sections override"),
        );
    options::add_job_options(args::add_run_flags(command))
}

/// Runs `diskmeter run`; returns the exit code.
pub fn main(matches: &ArgMatches) -> i32 {
    let quiet = matches.get_flag("quiet");
    let given = options::ordered_job_options(matches);
    let files: Vec<String> = matches
        .get_many::<String>("jobfiles")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let jobs = if !files.is_empty() {
        if given.iter().any(|(name, _)| name == "name") {
            eprintln!(
                "diskmeter: --name with job files: give the jobs in the files or on the command line, not both"
            );
            return EXIT_USAGE;
        }
        let defaults = match diskmeter_workload::jobs_from_options(&given) {
            Ok(jobs) => jobs.into_iter().next().unwrap_or_default(),
            Err(errors) => {
                for error in errors {
                    eprintln!("diskmeter: {error}");
                }
                return EXIT_USAGE;
            }
        };
        let unsupported = if matches.get_flag("ignore-unsupported") {
            Unsupported::Warn
        } else {
            Unsupported::Refuse
        };
        match jobfile::jobs_from_files(&files, &defaults, unsupported, quiet) {
            Ok(jobs) => jobs,
            Err(errors) => {
                for error in errors {
                    eprintln!("diskmeter: {error}");
                }
                return EXIT_USAGE;
            }
        }
    } else if given.is_empty() {
        vec![JobSpec::newcomer_default()]
    } else {
        match diskmeter_workload::jobs_from_options(&given) {
            Ok(jobs) => jobs,
            Err(errors) => {
                for error in errors {
                    eprintln!("diskmeter: {error}");
                }
                return EXIT_USAGE;
            }
        }
    };
    let flags = args::run_flags(matches);
    let mut jobs = jobs;
    // Held to the end of the run: dropping it removes the emulated disk, also after an
    // error or Ctrl-C.
    let _emulation = match matches.get_one::<String>("emulate") {
        Some(profile) if !flags.dry_run => {
            let size = matches
                .get_one::<String>("emulate-size")
                .map_or("1g", String::as_str);
            match crate::emulate::start_ephemeral(profile, size) {
                Ok(guard) => {
                    for job in &mut jobs {
                        job.filenames = vec![guard.0.device.clone()];
                    }
                    Some(guard)
                }
                Err(code) => return code,
            }
        }
        _ => None,
    };
    let executed = match execute_jobs(&jobs, &flags) {
        Ok(Some(executed)) => executed,
        Ok(None) => return 0,
        Err(code) => return code,
    };
    let Executed {
        input,
        failed,
        partial,
    } = executed;
    let result = RunResult::build(input.clone());
    let text = match matches
        .get_one::<String>("output-format")
        .map(String::as_str)
    {
        Some("json") => diskmeter_report::to_json(&result),
        Some("fio-json") => serde_json::to_string_pretty(&diskmeter_report::to_fio_json(&result))
            .unwrap_or_default(),
        _ => diskmeter_report::render_terminal(&result),
    };
    if let Err(error) = write_output(matches.get_one::<String>("output"), &text) {
        eprintln!("diskmeter: {error}");
        return EXIT_FAILURE;
    }
    let step = StepToSave {
        name: save::job_names(&input),
        result,
        input: &input,
    };
    if let Err(code) = save::save_to_history(
        "run",
        &step.name.clone(),
        &save::run_target(&input),
        vec![step],
        &flags,
    ) {
        return code;
    }
    if partial {
        eprintln!("diskmeter: interrupted: the results above are partial");
    }
    if failed || partial {
        EXIT_FAILURE
    } else {
        0
    }
}

/// How `execute_jobs` runs.
pub(crate) struct RunFlags {
    /// Print the plan and stop.
    pub dry_run: bool,
    /// `--allow-destroy`.
    pub allow_destroy: bool,
    /// `--keep`.
    pub keep: bool,
    /// No progress and no notes.
    pub quiet: bool,
    /// `--db`: the history database instead of the default.
    pub db: Option<std::path::PathBuf>,
    /// `--no-save`: leave the history alone.
    pub no_save: bool,
    /// The in-engine throttle's caps (`--throttle-iops`, `--throttle-bw`, ...).
    pub throttle: diskmeter_runner::ThrottleLimits,
}

/// What a run gave.
pub(crate) struct Executed {
    /// Per-worker results.
    pub input: RunInput,
    /// A worker failed.
    pub failed: bool,
    /// Interrupted.
    pub partial: bool,
}

/// Validates, plans, checks safety, runs the jobs and collects the workers' results (shared by
/// `run` and the front-ends). `Ok(None)` after a dry run; `Err(exit code)` after printing why.
pub(crate) fn execute_jobs(jobs: &[JobSpec], flags: &RunFlags) -> Result<Option<Executed>, i32> {
    let problems: Vec<String> = jobs
        .iter()
        .flat_map(|job| {
            diskmeter_workload::validate(job)
                .into_iter()
                .map(|e| e.to_string())
        })
        .collect();
    if !problems.is_empty() {
        for problem in problems {
            eprintln!("diskmeter: {problem}");
        }
        return Err(EXIT_USAGE);
    }
    let plan_options = PlanOptions {
        throttle: flags.throttle,
        ..PlanOptions::default()
    };
    let plan = match diskmeter_runner::resolve(jobs, &plan_options) {
        Ok(plan) => plan,
        Err(error) => {
            eprintln!("diskmeter: {error}");
            return Err(match error {
                RunError::Job { .. } => EXIT_USAGE,
                _ => EXIT_FAILURE,
            });
        }
    };
    if flags.dry_run {
        print!("{}", describe_plan(&plan));
        return Ok(None);
    }
    if let Err(error) = diskmeter_runner::check_safety(&plan, flags.allow_destroy) {
        eprintln!("diskmeter: {error}");
        return Err(EXIT_FAILURE);
    }
    if !flags.quiet {
        for note in &plan.notes {
            eprintln!("diskmeter: note: {note}");
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    if let Err(error) = install_signal_handlers(&stop) {
        eprintln!("diskmeter: cannot install signal handlers: {error}");
        return Err(EXIT_FAILURE);
    }
    let live = Arc::new(LiveCounters::default());
    let options = ExecuteOptions {
        keep_files: flags.keep,
        stop: stop.clone(),
        live: live.clone(),
    };
    let started = SystemTime::now();
    let outcome = {
        let mut announced = std::collections::HashSet::new();
        let layout_note = |path: &std::path::Path, _done: u64, total: u64| {
            if !flags.quiet && announced.insert(path.to_path_buf()) {
                eprintln!(
                    "diskmeter: laying out {} ({})",
                    path.display(),
                    diskmeter_units::format_bytes_binary(total)
                );
            }
        };
        let _progress = LiveProgress::start(live, progress_goal(&plan), flags.quiet);
        diskmeter_runner::execute(&plan, &options, layout_note)
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(RunError::Interrupted) => {
            eprintln!("diskmeter: interrupted before the workers started; nothing was measured");
            return Err(EXIT_FAILURE);
        }
        Err(error) => {
            eprintln!("diskmeter: {error}");
            return Err(EXIT_FAILURE);
        }
    };
    let finished = SystemTime::now();
    let failed =
        outcome.workers.iter().any(|w| w.error.is_some()) || !outcome.log_errors.is_empty();
    for worker in &outcome.workers {
        if let Some(error) = &worker.error {
            eprintln!("diskmeter: {error}");
        }
    }
    for error in &outcome.log_errors {
        eprintln!("diskmeter: {error}");
    }
    let input = report_input(&plan, outcome, started, finished);
    let partial = input.meta.partial;
    Ok(Some(Executed {
        input,
        failed,
        partial,
    }))
}

fn install_signal_handlers(stop: &Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        // A second signal while stopping ends the process at once.
        signal_hook::flag::register_conditional_shutdown(signal, 130, stop.clone())?;
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(())
}

fn progress_goal(plan: &RunPlan) -> ProgressGoal {
    // Stonewall phases run one after another: the run lasts the sum of each phase's longest.
    let last_phase = plan.workers.iter().map(|w| w.phase).max().unwrap_or(0);
    let mut total_ns = 0;
    for phase in 0..=last_phase {
        total_ns += plan
            .workers
            .iter()
            .filter(|w| w.phase == phase)
            .filter_map(|w| {
                w.runtime_ns
                    .map(|r| r + plan.jobs[w.job_index].ramp_time_ns)
            })
            .max()
            .unwrap_or(0);
    }
    let time_only = plan.workers.iter().all(|w| w.io_limit_bytes.is_none());
    if total_ns > 0 && (time_only || plan.workers.iter().all(|w| w.runtime_ns.is_some())) {
        ProgressGoal::Time(Duration::from_nanos(total_ns))
    } else {
        ProgressGoal::Bytes(plan.workers.iter().filter_map(|w| w.io_limit_bytes).sum())
    }
}

fn report_input(
    plan: &RunPlan,
    outcome: diskmeter_runner::RunOutcome,
    started: SystemTime,
    finished: SystemTime,
) -> RunInput {
    let unix_ms = |t: SystemTime| {
        t.duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    };
    let jobs = outcome
        .workers
        .into_iter()
        .map(|w| JobInput {
            spec: plan.jobs[w.job_index].clone(),
            clone_index: w.clone_index,
            group_id: w.group_id,
            stats: w.stats,
            error: w.error,
            targets: w
                .targets
                .iter()
                .map(|&t| {
                    let target = &plan.targets[t];
                    TargetInfo {
                        path: target.path.display().to_string(),
                        kind: match target.kind {
                            diskmeter_runner::safety::TargetKind::BlockDevice => "block",
                            diskmeter_runner::safety::TargetKind::File => "file",
                            diskmeter_runner::safety::TargetKind::Virtual => "none",
                        }
                        .to_string(),
                        size_bytes: target.region_len_bytes,
                    }
                })
                .collect(),
            steady_state: w.steady_state.map(steady_state_input),
        })
        .collect();
    RunInput {
        meta: RunMeta {
            diskmeter_version: env!("CARGO_PKG_VERSION").to_string(),
            started_unix_ms: unix_ms(started),
            finished_unix_ms: unix_ms(finished),
            partial: outcome.partial,
            hostname: kernel_hostname(),
            notes: plan.notes.clone(),
        },
        jobs,
    }
}

/// The runner's steady-state outcome as the report takes it.
fn steady_state_input(outcome: diskmeter_runner::SteadyStateOutcome) -> SteadyStateInput {
    SteadyStateInput {
        attained_at_ns: outcome.attained_at_ns,
        window_iops: outcome.window_iops,
        window_bw_bytes_per_sec: outcome.window_bw_bytes_per_sec,
        criterion_value: outcome.last.and_then(|j| j.value),
        max_deviation: outcome.last.map_or(0.0, |j| j.max_deviation),
        slope: outcome.last.map_or(0.0, |j| j.slope),
        precision_percent: outcome.last.and_then(|j| j.precision),
    }
}

fn kernel_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The resolved jobs and what the runner will do, for `--dry-run`.
fn describe_plan(plan: &RunPlan) -> String {
    let mut out = String::new();
    for (index, job) in plan.jobs.iter().enumerate() {
        out.push_str(&format!("[{}]\n", job.name));
        for (name, value) in diskmeter_workload::describe(job) {
            out.push_str(&format!("  {name}={value}\n"));
        }
        let workers: Vec<_> = plan
            .workers
            .iter()
            .filter(|w| w.job_index == index)
            .collect();
        out.push_str(&format!("  # {} worker(s)\n", workers.len()));
        for worker in workers {
            out.push_str(&format!(
                "  # clone {}: iodepth {} (submit batch {}), {}{}\n",
                worker.clone_index,
                worker.iodepth,
                worker.submit_batch,
                match worker.io_limit_bytes {
                    Some(b) => format!("stops after {}", diskmeter_units::format_bytes_binary(b)),
                    None => "time-based".to_string(),
                },
                match worker.runtime_ns {
                    Some(ns) => format!(", at most {}", diskmeter_units::format_duration_ns(ns)),
                    None => String::new(),
                }
            ));
            for &t in &worker.targets {
                let target = &plan.targets[t];
                out.push_str(&format!(
                    "  #   {} ({:?}, {:?}): bytes {}..{}\n",
                    target.path.display(),
                    target.kind,
                    target.preparation,
                    target.region_start_bytes,
                    target.region_start_bytes + target.region_len_bytes
                ));
            }
            if !worker.logs.is_empty() {
                let paths: Vec<String> = worker
                    .logs
                    .iter()
                    .map(|log| log.path.display().to_string())
                    .collect();
                out.push_str(&format!("  #   logs: {}\n", paths.join(", ")));
            }
        }
    }
    for note in &plan.notes {
        out.push_str(&format!("# note: {note}\n"));
    }
    out
}
