//! `diskmeter diskspd [options] SWITCHES... TARGET...`: DiskSpd command lines, run by
//! diskmeter's engine and reported in DiskSpd's text or XML layout.

use crate::args;
use crate::run::{execute_jobs, Executed};
use crate::{write_output, EXIT_FAILURE, EXIT_USAGE};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_jobfile::diskspd::{self, Access, OutputForm};
use diskmeter_report::{render_diskspd_text, render_diskspd_xml, DiskSpdHeader};

/// The `diskspd` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("diskspd")
        .about("Run a DiskSpd command line (diskspd -b8K -d30 -o32 -t4 -r -w30 -Sh -L FILE)")
        .long_about(
            "Runs a DiskSpd command line unchanged and prints DiskSpd's report (-Rxml for its \
             XML). DiskSpd's switches are single-dash (-b8K -o32 ...); diskmeter's own options \
             (--allow-destroy, --keep, --quiet, --output, --dry-run) go before them. \
             docs/GUIDE.md lists the switches, how each maps to a job, and what differs from \
             DiskSpd (CPU is diskmeter's worker threads, Windows-only switches are refused).\n\n\
             Exit codes: 0 ok; 1 the run failed or was interrupted; 2 usage error.",
        )
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help"),
        )
        .arg(
            Arg::new("switches")
                .value_name("SWITCHES_AND_TARGETS")
                .num_args(1..)
                .required(true)
                .allow_hyphen_values(true)
                .trailing_var_arg(true)
                .help("DiskSpd's switches and targets, as for diskspd"),
        );
    args::add_run_flags(command)
}

/// Runs `diskmeter diskspd`; returns the exit code.
pub fn main(matches: &ArgMatches) -> i32 {
    let args: Vec<String> = matches
        .get_many::<String>("switches")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let profile = match diskspd::parse(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskmeter: {e}");
            return EXIT_USAGE;
        }
    };
    let flags = args::run_flags(matches);
    let Executed {
        input,
        failed,
        partial,
    } = match execute_jobs(&profile.jobs, &flags) {
        Ok(Some(executed)) => executed,
        Ok(None) => return 0,
        Err(code) => return code,
    };
    let header = DiskSpdHeader {
        command_line: profile.command_line.clone(),
        duration_s: profile.duration_s,
        warmup_s: profile.warmup_s,
        cooldown_s: profile.cooldown_s,
        latency: profile.latency,
        block_size_bytes: profile.block_size_bytes,
        outstanding: profile.outstanding,
        threads: profile.threads,
        fixed_threads: profile.fixed_threads,
        write_percent: profile.write_percent,
        access: match profile.access {
            Access::Sequential => {
                let stride = profile
                    .sequential_stride_bytes
                    .map_or(String::new(), |s| format!(" (stride: {s})"));
                let shared = if profile.interlocked {
                    ", interlocked: the threads of a target share one position"
                } else {
                    ""
                };
                format!("sequential I/O{stride}{shared}")
            }
            Access::Random => format!(
                "random I/O (alignment: {})",
                profile
                    .random_align_bytes
                    .unwrap_or(profile.block_size_bytes)
            ),
            Access::Mixed(p) => format!("mixed I/O: {p}% random, {}% sequential", 100 - p),
        },
        software_cache_disabled: profile.software_cache_disabled,
        write_through: profile.write_through,
        proc_count: std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let text = match profile.output {
        OutputForm::Text => render_diskspd_text(&header, &input),
        OutputForm::Xml => render_diskspd_xml(&header, &input),
    };
    if let Err(error) = write_output(matches.get_one::<String>("output"), &text) {
        eprintln!("diskmeter: {error}");
        return EXIT_FAILURE;
    }
    let step = crate::save::StepToSave {
        name: profile.command_line.clone(),
        result: diskmeter_report::RunResult::build(input.clone()),
        input: &input,
    };
    if let Err(code) = crate::save::save_to_history(
        "diskspd",
        &profile.command_line,
        &crate::save::run_target(&input),
        vec![step],
        &flags,
    ) {
        return code;
    }
    if failed || partial {
        EXIT_FAILURE
    } else {
        0
    }
}
