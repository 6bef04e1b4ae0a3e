//! The transports of a run across hosts: what stands behind the orchestrator's
//! [`Ranks`](diskmeter_orchestrator::Ranks) trait. The orchestrator owns the protocol
//! (barriers, agreement, gathering); this crate only moves its bytes.
//!
//! With the `mpi` feature, [`mpi_world`] joins the MPI job this process was started in
//! (`mpirun`, `srun`) and gives its ranks; without it, the default build needs no MPI
//! library, and `--mpi` is refused. [`membership`] is this process's place in a run as the
//! rank flags give it, and the one MPI job it joins.

#![forbid(unsafe_code)]

pub mod membership;
#[cfg(feature = "mpi")]
mod world;

#[cfg(feature = "mpi")]
pub use world::{mpi_world, MpiRanks, MpiWorld, WorldError};
