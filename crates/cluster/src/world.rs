//! MPI's `MPI_COMM_WORLD` as the orchestrator's [`Ranks`]: Open MPI through the `mpi`
//! crate, initialised once per process and finalised when the [`MpiWorld`] is dropped.

use diskmeter_orchestrator::{Ranks, RanksError};
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use mpi::Count;

/// Why this process could not join an MPI job.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// MPI was initialised already in this process (a second `--mpi` session).
    #[error("MPI is already initialised in this process")]
    AlreadyInitialised,
}

/// This process's membership of its MPI job: MPI is finalised when it is dropped, so it
/// lives as long as the command.
pub struct MpiWorld {
    // Finalises MPI on drop.
    _universe: mpi::environment::Universe,
    ranks: std::sync::Arc<MpiRanks>,
}

impl MpiWorld {
    /// The job's ranks, for the session.
    pub fn ranks(&self) -> std::sync::Arc<MpiRanks> {
        self.ranks.clone()
    }

    /// Whether this rank has taken part in a collective of the job.
    pub fn has_met(&self) -> bool {
        self.ranks.met.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Ends the whole MPI job with `exit_code` when this rank fails before it took part in
    /// any collective (a job file missing on its host, its settings refused): the other
    /// ranks wait in the run's first round for a rank that will never come, so only
    /// `MPI_Abort` ends them. A rank that took part tells the others in the rounds instead,
    /// and this returns.
    pub fn abort_if_never_met(&self, exit_code: i32) {
        if !self.has_met() && self.ranks.size > 1 {
            SimpleCommunicator::world().abort(exit_code);
        }
    }
}

/// Joins the MPI job this process was started in. A process started without `mpirun` or
/// `srun` is a job of one rank (MPI's singleton start).
pub fn mpi_world() -> Result<MpiWorld, WorldError> {
    let universe = mpi::initialize().ok_or(WorldError::AlreadyInitialised)?;
    let world = universe.world();
    let ranks = MpiRanks {
        rank: world.rank() as u32,
        size: world.size() as u32,
        met: std::sync::atomic::AtomicBool::new(false),
    };
    Ok(MpiWorld {
        _universe: universe,
        ranks: std::sync::Arc::new(ranks),
    })
}

/// The ranks of `MPI_COMM_WORLD`. Holds no MPI handle (the world communicator is taken
/// for each call), so it can be shared with the runner's thread as the trait asks; every
/// call is made on the thread that runs the session.
#[derive(Debug)]
pub struct MpiRanks {
    rank: u32,
    size: u32,
    /// This rank has taken part in a collective: the others learn of its end through them.
    met: std::sync::atomic::AtomicBool,
}

impl MpiRanks {
    /// Every rank's message length, then the messages: lengths differ between ranks.
    fn counts(world: &SimpleCommunicator, mine: &[u8]) -> Result<Vec<Count>, RanksError> {
        let length = Count::try_from(mine.len()).map_err(|_| RanksError::Transport {
            message: format!("a message of {} bytes is too long for MPI", mine.len()),
        })?;
        let mut counts = vec![0 as Count; world.size() as usize];
        world.all_gather_into(&length, &mut counts[..]);
        Ok(counts)
    }
}

/// Offsets of messages of `counts` bytes laid end to end, and their total.
fn displacements(counts: &[Count]) -> (Vec<Count>, usize) {
    let mut displs = Vec::with_capacity(counts.len());
    let mut total: Count = 0;
    for &count in counts {
        displs.push(total);
        total += count;
    }
    (displs, total as usize)
}

/// `buffer` cut into the messages of `counts` bytes.
fn split(buffer: &[u8], counts: &[Count]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(counts.len());
    let mut at = 0usize;
    for &count in counts {
        out.push(buffer[at..at + count as usize].to_vec());
        at += count as usize;
    }
    out
}

impl Ranks for MpiRanks {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
        // MPI's errors abort the job (its default handler): what comes back succeeded.
        self.met.store(true, std::sync::atomic::Ordering::Relaxed);
        let world = SimpleCommunicator::world();
        let counts = Self::counts(&world, mine)?;
        let (displs, total) = displacements(&counts);
        let mut buffer = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displs[..]);
            world.all_gather_varcount_into(mine, &mut partition);
        }
        Ok(split(&buffer, &counts))
    }

    fn gather(&self, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, RanksError> {
        self.met.store(true, std::sync::atomic::Ordering::Relaxed);
        let world = SimpleCommunicator::world();
        let counts = Self::counts(&world, mine)?;
        let root = world.process_at_rank(0);
        if self.rank != 0 {
            root.gather_varcount_into(mine);
            return Ok(None);
        }
        let (displs, total) = displacements(&counts);
        let mut buffer = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(mine, &mut partition);
        }
        Ok(Some(split(&buffer, &counts)))
    }
}
