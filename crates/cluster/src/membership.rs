//! This process's place in a run across hosts, as the rank flags (`--mpi`, `--rank`/`--ranks`,
//! `--start-at`) give it: the MPI job it joined, if any, and the session settings that follow.
//!
//! MPI is joined once, by the first thing that asks (the flags are read before the session
//! opens), and left in [`leave`] when the command is done, so Open MPI sees every rank
//! finalise. A rank other than 0 prints nothing but its own errors: [`silent`] tells the
//! writers.

use diskmeter_orchestrator::{RankPlace, Settings};
use std::cell::RefCell;

/// The rank flags as the command line gave them (`--start-at` is read by the CLI, with the
/// parser `k8s manifest --start-at` uses).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankFlags {
    /// `--mpi`: run as one rank of the MPI job this process was started in.
    pub mpi: bool,
    /// `--rank R --ranks N`: run as rank R of N started by other means.
    pub rank: Option<(u32, u32)>,
}

/// Why the rank flags cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum MembershipError {
    /// `--mpi` in a build without MPI.
    #[error("--mpi: this diskmeter was built without MPI; build it with `cargo build --release --features mpi` (Open MPI's libopenmpi-dev and libclang-dev must be installed), or run each rank with --rank R --ranks N")]
    NoMpi,
    /// The MPI job could not be joined.
    #[cfg(feature = "mpi")]
    #[error(transparent)]
    World(#[from] crate::WorldError),
    /// `--rank` not below `--ranks`.
    #[error(
        "--rank {rank} --ranks {ranks}: ranks count from 0, so the rank must be less than {ranks}"
    )]
    RankOutOfRange {
        /// `--rank`.
        rank: u32,
        /// `--ranks`.
        ranks: u32,
    },
}

impl MembershipError {
    /// The user's input was wrong (exit code 2), as against MPI failing (1).
    pub fn is_usage(&self) -> bool {
        match self {
            #[cfg(feature = "mpi")]
            MembershipError::World(_) => false,
            _ => true,
        }
    }
}

thread_local! {
    /// The MPI job joined by this process (MPI is used from the main thread only).
    static WORLD: RefCell<Option<World>> = const { RefCell::new(None) };
}

/// This process's MPI membership.
struct World {
    rank: u32,
    #[cfg(feature = "mpi")]
    world: crate::MpiWorld,
}

/// Joins the MPI job (once per process) and gives this process's rank.
pub fn join() -> Result<u32, MembershipError> {
    if let Some(rank) = WORLD.with(|w| w.borrow().as_ref().map(|w| w.rank)) {
        return Ok(rank);
    }
    let world = open_world()?;
    let rank = world.rank;
    WORLD.with(|w| *w.borrow_mut() = Some(world));
    Ok(rank)
}

#[cfg(feature = "mpi")]
fn open_world() -> Result<World, MembershipError> {
    use diskmeter_orchestrator::Ranks;
    let world = crate::mpi_world()?;
    Ok(World {
        rank: world.ranks().rank(),
        world,
    })
}

#[cfg(not(feature = "mpi"))]
fn open_world() -> Result<World, MembershipError> {
    Err(MembershipError::NoMpi)
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

/// Fills the session's rank settings from the flags: the rank's place, the MPI ranks to
/// run with.
pub fn apply(flags: &RankFlags, settings: &mut Settings) -> Result<(), MembershipError> {
    let hostname = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    if flags.mpi {
        join()?;
        set_cluster(settings, hostname);
    } else if let Some((rank, ranks)) = flags.rank {
        if rank >= ranks {
            return Err(MembershipError::RankOutOfRange { rank, ranks });
        }
        settings.rank = Some(RankPlace {
            rank,
            ranks,
            hostname,
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_is_placed_below_the_ranks() {
        let mut settings = Settings::default();
        let flags = RankFlags {
            rank: Some((2, 4)),
            ..RankFlags::default()
        };
        apply(&flags, &mut settings).unwrap();
        let place = settings.rank.unwrap();
        assert_eq!((place.rank, place.ranks), (2, 4));
        assert!(settings.cluster.is_none());
        let flags = RankFlags {
            rank: Some((4, 4)),
            ..RankFlags::default()
        };
        let error = apply(&flags, &mut Settings::default()).unwrap_err();
        assert!(error.is_usage());
        assert_eq!(
            error.to_string(),
            "--rank 4 --ranks 4: ranks count from 0, so the rank must be less than 4"
        );
    }
}
