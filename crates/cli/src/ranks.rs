//! The flags of a run across hosts (`--mpi`, `--rank`/`--ranks`, `--start-at`), shared by
//! every command that runs steps, and this process's MPI membership.
//!
//! MPI is joined once, by the first thing that asks (the flags are read before the session
//! opens), and left in [`leave`] when the command is done, so Open MPI sees every rank
//! finalise. A rank other than 0 prints nothing but its own errors: [`silent`] tells the
//! writers.

use crate::UsageError;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_orchestrator::{RankPlace, Settings};
use std::cell::RefCell;
use std::time::SystemTime;

/// Adds `--mpi`, `--rank`, `--ranks` and `--start-at` to `command`.
pub fn add_rank_flags(command: Command) -> Command {
    command
        .arg(
            Arg::new("mpi")
                .long("mpi")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["rank", "ranks"])
                .help("Run as one rank of an MPI job (mpirun -n N diskmeter ... --mpi, or srun): every stonewall phase starts at a barrier of all ranks, a failing rank stops all, rank 0 merges the results, prints them and saves one run; $rank, $nranks and $hostname in filename, directory and filename_format name each rank's files. Needs a build with --features mpi"),
        )
        .arg(
            Arg::new("rank")
                .long("rank")
                .value_name("R")
                .value_parser(clap::value_parser!(u32))
                .requires("ranks")
                .help("Run as rank R (0-based) of a run started by other means (a Kubernetes Indexed Job, hosts by hand): the result carries the rank and $rank, $nranks, $hostname expand in the jobs' paths; no barrier, merge the results with `diskmeter merge`"),
        )
        .arg(
            Arg::new("ranks")
                .long("ranks")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(1..))
                .requires("rank")
                .help("How many ranks the run has (with --rank)"),
        )
        .arg(
            Arg::new("start-at")
                .long("start-at")
                .value_name("TIME")
                .help("After laying out the files, wait until TIME (RFC 3339 UTC, e.g. 2026-11-27T15:00:00Z) before the IO starts, so ranks started apart begin together; a time already past is noted in the result (started late by ...)"),
        )
}

thread_local! {
    /// The MPI job joined by this process (MPI is used from the main thread only).
    static WORLD: RefCell<Option<World>> = const { RefCell::new(None) };
}

/// This process's MPI membership.
struct World {
    rank: u32,
    #[cfg(feature = "mpi")]
    world: diskmeter_cluster::MpiWorld,
}

/// Joins the MPI job if `--mpi` was given (once per process); `Ok(None)` without `--mpi`.
fn join(matches: &ArgMatches) -> anyhow::Result<Option<u32>> {
    if !matches
        .try_get_one::<bool>("mpi")
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false)
    {
        return Ok(None);
    }
    if let Some(rank) = WORLD.with(|w| w.borrow().as_ref().map(|w| w.rank)) {
        return Ok(Some(rank));
    }
    let world = open_world()?;
    let rank = world.rank;
    WORLD.with(|w| *w.borrow_mut() = Some(world));
    Ok(Some(rank))
}

#[cfg(feature = "mpi")]
fn open_world() -> anyhow::Result<World> {
    use diskmeter_orchestrator::Ranks;
    let world = diskmeter_cluster::mpi_world()?;
    Ok(World {
        rank: world.ranks().rank(),
        world,
    })
}

#[cfg(not(feature = "mpi"))]
fn open_world() -> anyhow::Result<World> {
    Err(UsageError(
        "--mpi: this diskmeter was built without MPI; build it with `cargo build --release --features mpi` (Open MPI's libopenmpi-dev and libclang-dev must be installed), or run each rank with --rank R --ranks N".into(),
    )
    .into())
}

/// Leaves the MPI job, if this process joined one (MPI is finalised): at the end of the
/// command, whatever its outcome.
pub fn leave() {
    // Taking the membership out drops it, which finalises MPI.
    WORLD.with(|w| {
        w.borrow_mut().take();
    });
}

/// When this process joined an MPI job and failed before taking part in any of its
/// collectives (the other ranks then wait for it in the run's first round), the whole MPI
/// job is ended with `exit_code` (no return); otherwise nothing happens. The error is
/// printed first, by the caller.
pub fn abort_if_never_met(exit_code: i32) {
    #[cfg(feature = "mpi")]
    WORLD.with(|w| {
        if let Some(world) = w.borrow().as_ref() {
            world.world.abort_if_never_met(exit_code);
        }
    });
    #[cfg(not(feature = "mpi"))]
    let _ = exit_code;
}

/// This process is a rank other than 0 of an MPI job: it prints nothing but its errors.
pub fn silent() -> bool {
    WORLD.with(|w| w.borrow().as_ref().is_some_and(|w| w.rank != 0))
}

/// Whether this process is a rank other than 0 of the MPI job `--mpi` joins (a failure
/// to join is reported when the settings are read).
pub fn other_rank(matches: &ArgMatches) -> bool {
    join(matches).ok().flatten().is_some_and(|rank| rank != 0)
}

/// Fills the session's rank settings from the flags: the rank's place, the MPI ranks to
/// run with, the start time.
pub fn apply(matches: &ArgMatches, settings: &mut Settings) -> anyhow::Result<()> {
    let hostname = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    if join(matches)?.is_some() {
        set_cluster(settings, hostname);
    } else if let (Some(&rank), Some(&ranks)) = (
        matches.get_one::<u32>("rank"),
        matches.get_one::<u32>("ranks"),
    ) {
        if rank >= ranks {
            return Err(UsageError(format!(
                "--rank {rank} --ranks {ranks}: ranks count from 0, so the rank must be less than {ranks}"
            ))
            .into());
        }
        settings.rank = Some(RankPlace {
            rank,
            ranks,
            hostname,
        });
    }
    if let Some(text) = matches.get_one::<String>("start-at") {
        settings.start_at = Some(parse_start_at(text)?);
    }
    Ok(())
}

#[cfg(feature = "mpi")]
fn set_cluster(settings: &mut Settings, hostname: String) {
    use diskmeter_orchestrator::Ranks;
    let ranks = WORLD.with(|w| w.borrow().as_ref().map(|w| w.world.ranks()));
    if let Some(ranks) = ranks {
        settings.rank = Some(RankPlace {
            rank: ranks.rank(),
            ranks: ranks.size(),
            hostname,
        });
        settings.cluster = Some(ranks);
    }
}

#[cfg(not(feature = "mpi"))]
fn set_cluster(_settings: &mut Settings, _hostname: String) {}

/// `--start-at`: an RFC 3339 time in UTC (`Z` or `+00:00`), seconds with an optional
/// fraction, read by the parser `k8s manifest --start-at` uses.
fn parse_start_at(text: &str) -> Result<SystemTime, UsageError> {
    diskmeter_k8s::parse_rfc3339(text).map_err(|_| {
        UsageError(format!(
            "--start-at {text}: give a UTC time as RFC 3339, e.g. 2026-11-27T15:00:00Z"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn start_times_are_read_as_utc() {
        let at = |t| parse_start_at(t).map(|t| t.duration_since(UNIX_EPOCH).unwrap());
        assert_eq!(at("1970-01-01T00:00:00Z").unwrap(), Duration::ZERO);
        assert_eq!(
            at("2026-11-27T15:00:00Z").unwrap(),
            Duration::from_secs(1_795_791_600)
        );
        assert_eq!(
            at("2024-02-29T00:00:01.5+00:00").unwrap(),
            Duration::from_millis(1_709_164_801_500)
        );
        for bad in [
            "2026-11-27T15:00:00",
            "2026-02-30T00:00:00Z",
            "tomorrow",
            "2026-11-27T15:00:00+01:00",
        ] {
            assert!(at(bad).is_err(), "{bad}");
        }
    }
}
