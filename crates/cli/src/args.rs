//! The options every command that runs IO shares (`run`, `suite`, `sweep`, `diskspd`,
//! `iometer`, `replay`), declared once in [`RunFlags`] (with the in-engine throttle's
//! [`ThrottleFlags`]) so their names and help never drift apart, and read back into the
//! orchestrator's [`Settings`].

use crate::UsageError;
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_orchestrator::{
    EmulateRequest, HistoryChoice, ServiceTime, Settings, ThrottleLimits,
};
use diskmeter_units::{parse_size, KbBase};
use diskmeter_views::help::{OUTPUT, SAFETY, THROTTLE};
use std::path::PathBuf;

/// `--db`'s help (also taken by `history`, `show`, `export`, `compare`, ...).
const DB_HELP: &str = "The results history database (default: $XDG_DATA_HOME/diskmeter/history.db, else ~/.local/share/diskmeter/history.db); a run it cannot take (locked, read-only, damaged) is kept in a spool file beside it (in the data folder when its folder cannot be written) and saved at the next run";

// `--throttle-iops` and `--throttle-bw` (and their per-direction forms): the in-engine
// throttle every command that runs IO offers, read back as the runner's `ThrottleLimits`. (Not
// a doc comment: clap's derive would make it the command's about.)
#[derive(Args, Debug)]
pub struct ThrottleFlags {
    /// Cap the whole run at N IOPS, reads and writes together, shared by all its jobs like a
    /// cloud disk's or VM's cap (no root needed); an IO waits for its turn and the wait
    /// counts in its latency
    #[arg(long, value_name = "N", help_heading = THROTTLE, value_parser = iops())]
    pub throttle_iops: Option<u64>,
    /// Cap the whole run's bandwidth, shared by all its jobs (e.g. 200MiB/s; k, m, g and
    /// KiB, MiB, GiB are all powers of 1024); an IO's bytes are its cost
    #[arg(long, value_name = "RATE", help_heading = THROTTLE, value_parser = parse_bandwidth)]
    pub throttle_bw: Option<u64>,
    /// Cap the run's reads at N IOPS
    #[arg(long, value_name = "N", help_heading = THROTTLE, value_parser = iops())]
    pub throttle_read_iops: Option<u64>,
    /// Cap the run's writes at N IOPS
    #[arg(long, value_name = "N", help_heading = THROTTLE, value_parser = iops())]
    pub throttle_write_iops: Option<u64>,
    /// Cap the run's read bandwidth (e.g. 100MiB/s)
    #[arg(long, value_name = "RATE", help_heading = THROTTLE, value_parser = parse_bandwidth)]
    pub throttle_read_bw: Option<u64>,
    /// Cap the run's write bandwidth (e.g. 100MiB/s)
    #[arg(long, value_name = "RATE", help_heading = THROTTLE, value_parser = parse_bandwidth)]
    pub throttle_write_bw: Option<u64>,
    /// Add a service time to every read and write at completion, its slot busy meanwhile:
    /// 2ms (fixed), exp:2ms (exponential, that mean) or uniform:1ms-3ms; seeded per worker
    #[arg(long, value_name = "DIST", help_heading = THROTTLE, value_parser = ServiceTime::parse)]
    pub throttle_latency: Option<ServiceTime>,
    /// Let --throttle-iops (the baseline) burst to N IOPS while its credit bucket holds credits
    #[arg(long, value_name = "N", help_heading = THROTTLE, value_parser = iops())]
    pub throttle_burst_iops: Option<u64>,
    /// Let --throttle-bw burst to RATE while its credit bucket holds credits
    #[arg(long, value_name = "RATE", help_heading = THROTTLE, value_parser = parse_bandwidth)]
    pub throttle_burst_bw: Option<u64>,
    /// How long a full bucket sustains the burst (e.g. 30m, 12s): (burst - baseline) x TIME
    #[arg(long, value_name = "TIME", help_heading = THROTTLE, value_parser = diskmeter_units::parse_seconds_ns)]
    pub throttle_burst_time: Option<u64>,
}

/// An IOPS cap: a whole number of at least 1.
fn iops() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..)
}

impl From<&ThrottleFlags> for ThrottleLimits {
    fn from(flags: &ThrottleFlags) -> ThrottleLimits {
        ThrottleLimits {
            iops: flags.throttle_iops,
            bytes_per_sec: flags.throttle_bw,
            read_iops: flags.throttle_read_iops,
            write_iops: flags.throttle_write_iops,
            read_bytes_per_sec: flags.throttle_read_bw,
            write_bytes_per_sec: flags.throttle_write_bw,
            latency: flags.throttle_latency,
            burst_iops: flags.throttle_burst_iops,
            burst_bytes_per_sec: flags.throttle_burst_bw,
            burst_ns: flags.throttle_burst_time,
        }
    }
}

fn parse_bandwidth(text: &str) -> Result<u64, String> {
    match diskmeter_units::parse_rate(text) {
        Ok(0) => Err("a bandwidth cap of 0 would stop all IO".to_string()),
        Ok(bytes_per_sec) => Ok(bytes_per_sec),
        Err(e) => Err(e.to_string()),
    }
}

// The flags of a command that runs IO after the throttle's and the ranks' (see
// `add_run_flags`); the ids are the long names, as other commands read them.
#[derive(Args, Debug)]
pub struct RunFlags {
    /// Write the results to FILE instead of stdout
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub output: Option<String>,
    /// No live progress and no notes on stderr
    #[arg(long, short, help_heading = OUTPUT)]
    pub quiet: bool,
    /// Keep the test files diskmeter creates (default: remove them at the end)
    #[arg(long, help_heading = SAFETY)]
    pub keep: bool,
    /// Allow writing to existing files diskmeter did not create and to devices holding data
    /// (DESTROYS their contents)
    #[arg(long, id = "allow-destroy", help_heading = SAFETY)]
    pub allow_destroy: bool,
    /// Run the shell commands of job files' exec_prerun and exec_postrun (refused without it)
    #[arg(long, id = "allow-exec", help_heading = SAFETY)]
    pub allow_exec: bool,
    /// Print the resolved jobs and plan, then stop without doing IO
    #[arg(long, id = "dry-run", help_heading = SAFETY)]
    pub dry_run: bool,
    #[arg(long, value_name = "PATH", help = DB_HELP, help_heading = OUTPUT)]
    pub db: Option<PathBuf>,
    /// Do not save the run in the results history
    #[arg(long, id = "no-save", help_heading = OUTPUT)]
    pub no_save: bool,
}

/// Adds [`RunFlags`], the throttle's flags ([`ThrottleFlags`]), the emulated disk's (where the
/// command runs on one: [`add_emulate_flags`], `emulate` says what for) and the ranks'
/// (crate::ranks) to `command`, in `--help`'s order of their headings.
pub fn add_run_flags(command: Command, emulate: Option<&str>) -> Command {
    let command = ThrottleFlags::augment_args(RunFlags::augment_args(command));
    let command = match emulate {
        Some(what) => add_emulate_flags(command, what),
        None => command,
    };
    crate::ranks::add_rank_flags(command)
}

/// `--db PATH`: the history database, for a command that declares its options one by one.
pub fn db_arg() -> Arg {
    Arg::new("db")
        .long("db")
        .value_name("PATH")
        .value_parser(clap::value_parser!(PathBuf))
        .help(DB_HELP)
}

/// Adds `--emulate PROFILE`, `--emulate-size SIZE` and the `--emulate-burst-*` overrides of
/// the profile's credit bucket (`run`, `suite`, `sweep`); `what` says what the disk is for.
fn add_emulate_flags(command: Command, what: &str) -> Command {
    let burst = diskmeter_emulate::BURST_FLAGS.map(|(flag, value, help)| {
        let (id, help) = (format!("emulate-{flag}"), format!("For --emulate: {help}"));
        Arg::new(&id)
            .long(id)
            .value_name(value)
            .requires("emulate")
            .help_heading(THROTTLE)
            .help(help)
    });
    command
        .arg(
            Arg::new("emulate")
                .long("emulate")
                .value_name("PROFILE")
                .help_heading(THROTTLE)
                .help(format!(
                    "Run on an emulated disk of this profile (e.g. azure-p30; root): a throttled \
                     loop device made for the {what} and removed at the end"
                )),
        )
        .arg(
            Arg::new("emulate-size")
                .long("emulate-size")
                .value_name("SIZE")
                .default_value("1g")
                .requires("emulate")
                .help_heading(THROTTLE)
                .help("Size of the --emulate disk"),
        )
        .args(burst)
}

/// The session settings the flags of [`add_run_flags`] (and [`add_emulate_flags`], where the
/// command has them) give.
pub fn settings(matches: &ArgMatches) -> anyhow::Result<Settings> {
    let emulate = match matches.try_get_one::<String>("emulate").ok().flatten() {
        Some(profile) => {
            let size = matches
                .get_one::<String>("emulate-size")
                .map_or("1g", String::as_str);
            let size_bytes = parse_size(size, KbBase::Binary)
                .map_err(|e| UsageError(format!("--emulate {profile}: --emulate-size: {e}")))?;
            let given = |id: String| matches.try_get_one::<String>(&id).ok().flatten().cloned();
            let burst = diskmeter_emulate::BURST_FLAGS.map(|f| given(format!("emulate-{}", f.0)));
            Some(EmulateRequest {
                profile: profile.clone(),
                size_bytes,
                burst,
            })
        }
        None => None,
    };
    let flags = RunFlags::from_arg_matches(matches)?;
    let mut settings = Settings {
        dry_run: flags.dry_run,
        allow_destroy: flags.allow_destroy,
        keep_files: flags.keep,
        allow_exec: flags.allow_exec,
        throttle: (&ThrottleFlags::from_arg_matches(matches)?).into(),
        history: match (flags.no_save, flags.db) {
            (true, _) => HistoryChoice::Off,
            (false, Some(path)) => HistoryChoice::At(path),
            (false, None) => HistoryChoice::Default,
        },
        emulate,
        ..Settings::default()
    };
    crate::ranks::apply(matches, &mut settings)?;
    Ok(settings)
}

/// `--quiet`: no live progress and no notes on stderr; also a rank other than 0 of an MPI
/// job, which prints nothing but its errors.
pub fn quiet(matches: &ArgMatches) -> bool {
    matches.get_flag("quiet") || crate::ranks::other_rank(matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ThrottleLimits, clap::Error> {
        let command = ThrottleFlags::augment_args(Command::new("t"));
        let matches =
            command.try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))?;
        Ok((&ThrottleFlags::from_arg_matches(&matches)?).into())
    }

    #[test]
    fn caps_are_read_in_their_units() {
        let limits = parse(&[
            "--throttle-iops",
            "8000",
            "--throttle-bw",
            "200MiB/s",
            "--throttle-write-bw=50m",
        ])
        .unwrap();
        assert_eq!(limits.iops, Some(8000));
        assert_eq!(limits.bytes_per_sec, Some(200 << 20));
        assert_eq!(limits.write_bytes_per_sec, Some(50 << 20));
        assert_eq!(limits.read_iops, None);
        assert!(parse(&[]).unwrap().is_unlimited());
    }

    #[test]
    fn zero_and_nonsense_are_usage_errors() {
        for args in [
            ["--throttle-iops", "0"],
            ["--throttle-iops", "5k"],
            ["--throttle-bw", "0"],
            ["--throttle-bw", "fast"],
            ["--throttle-latency", "gamma:2ms"],
        ] {
            assert!(parse(&args).is_err(), "{args:?}");
        }
    }
}
