//! The flags of a run across hosts (`--mpi`, `--rank`/`--ranks`, `--start-at`), shared by
//! every command that runs steps. What they mean for this process (the MPI job it joins,
//! its place, the silence of ranks other than 0) is [`diskmeter_cluster::membership`]'s.

use crate::UsageError;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_cluster::membership::{self, RankFlags};
use diskmeter_orchestrator::Settings;
use std::time::SystemTime;

pub use membership::{abort_if_never_met, leave, silent};

// The rank flags (each doc comment is its help, one line when clap joins it; a doc comment
// on the struct would be the command's about).
#[derive(Args, Debug)]
struct RankArgs {
    /// Run as one rank of an MPI job (mpirun -n N diskmeter ... --mpi, or srun): every
    /// stonewall phase starts at a barrier of all ranks, a failing rank stops all, rank 0
    /// merges the results, prints them and saves one run; $rank, $nranks and $hostname in
    /// filename, directory and filename_format name each rank's files. Needs a build with
    /// --features mpi
    #[arg(long, conflicts_with_all = ["rank", "ranks"])]
    mpi: bool,
    /// Run as rank R (0-based) of a run started by other means (a Kubernetes Indexed Job,
    /// hosts by hand): the result carries the rank and $rank, $nranks, $hostname expand in
    /// the jobs' paths; no barrier, merge the results with `diskmeter merge`
    #[arg(long, value_name = "R", requires = "ranks")]
    rank: Option<u32>,
    /// How many ranks the run has (with --rank)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), requires = "rank")]
    ranks: Option<u32>,
    /// After laying out the files, wait until TIME (RFC 3339 UTC, e.g. 2026-11-27T15:00:00Z)
    /// before the IO starts, so ranks started apart begin together; a time already past is
    /// noted in the result (started late by ...)
    #[arg(long, value_name = "TIME")]
    start_at: Option<String>,
}

/// Adds `--mpi`, `--rank`, `--ranks` and `--start-at` to `command`, under their heading.
pub fn add_rank_flags(command: Command) -> Command {
    let ids = ["mpi", "rank", "ranks", "start_at"];
    let heading = diskmeter_views::help::SCALE_OUT;
    (ids.iter()).fold(RankArgs::augment_args(command), |command, id| {
        command.mut_arg(id, |arg| arg.help_heading(heading))
    })
}

/// Whether `--mpi` was given (false for a command without the flag).
fn mpi(matches: &ArgMatches) -> bool {
    matches.try_get_one::<bool>("mpi").ok().flatten() == Some(&true)
}

/// Whether this process is a rank other than 0 of the MPI job `--mpi` joins (a failure
/// to join is reported when the settings are read).
pub fn other_rank(matches: &ArgMatches) -> bool {
    mpi(matches) && membership::join().is_ok_and(|rank| rank != 0)
}

/// Fills the session's rank settings from the flags: the rank's place, the MPI ranks to
/// run with, the start time.
pub fn apply(matches: &ArgMatches, settings: &mut Settings) -> anyhow::Result<()> {
    let args = RankArgs::from_arg_matches(matches)?;
    let flags = RankFlags {
        mpi: args.mpi,
        rank: args.rank.zip(args.ranks),
    };
    membership::apply(&flags, settings).map_err(|error| {
        if error.is_usage() {
            UsageError(error.to_string()).into()
        } else {
            anyhow::Error::new(error)
        }
    })?;
    if let Some(text) = &args.start_at {
        settings.start_at = Some(parse_start_at(text)?);
    }
    Ok(())
}

/// `--start-at`: an RFC 3339 time in UTC (`Z` or `+00:00`), seconds with an optional
/// fraction, read by the parser `k8s manifest --start-at` uses.
fn parse_start_at(text: &str) -> Result<SystemTime, UsageError> {
    diskmeter_k8s::parse_rfc3339(text).map_err(|_| {
        UsageError(format!(
            "--start-at {text}: give a UTC time as RFC 3339, e.g. 2026-11-27T15:00:00Z"
        ))
    })
}
