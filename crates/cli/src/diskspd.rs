//! `diskmeter diskspd [options] SWITCHES... TARGET...`: DiskSpd command lines, run by
//! diskmeter's engine and reported in DiskSpd's text or XML layout.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_jobfile::diskspd::{self, Access, OutputForm};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
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

/// Runs `diskmeter diskspd`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args: Vec<String> = matches
        .get_many::<String>("switches")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let profile = diskspd::parse(&args).map_err(|e| UsageError(e.to_string()))?;
    let quiet = args::quiet(matches);
    let settings = args::settings(matches)?;
    let mut session = Session::open(settings)?;
    let mut batch = Batch::new(
        CommandKind::DiskSpd,
        vec![Step {
            name: profile.command_line.clone(),
            jobs: profile.jobs.clone(),
        }],
    );
    batch.name = Some(profile.command_line.clone());
    let outcome = session::run_on_terminal(&mut session, &batch, quiet, None, None);
    let written = match outcome.steps.first() {
        Some(step) => write_output(
            matches.get_one::<String>("output"),
            &render(&profile, &step.input),
        ),
        None => Ok(()),
    };
    let status = session::conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// DiskSpd's report of a run of `profile`: its text layout, or XML with `-Rxml`.
fn render(profile: &diskspd::DiskSpdProfile, input: &diskmeter_report::RunInput) -> String {
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
    match profile.output {
        OutputForm::Text => render_diskspd_text(&header, input),
        OutputForm::Xml => render_diskspd_xml(&header, input),
    }
}
