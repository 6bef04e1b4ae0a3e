//! The ranks of a run across hosts, as the session sees them: the [`Ranks`] trait (the two
//! collectives a transport such as MPI gives) and the protocol the session speaks over it.
//!
//! Every rank must reach every collective, also after it failed, or the others wait for
//! ever. So each collective is a round of [`Checkpoint`]s: every rank says where it is in
//! the batch (the start, a step's layout, a stonewall phase, the end of a step) and whether
//! it is fine, and every rank learns where all are. A round in which all stand at the same
//! place and all are fine lets them go on (the barrier); any other round stops the ranks
//! that are not at a step's end yet, and the ranks at the end wait in further rounds until
//! the others join them. Once all are at the end of the step, all know whether it failed
//! and, if so, the first failure (the lowest rank that failed, with its host and error);
//! only then are the results gathered to rank 0. A rank whose runner skipped a phase (it
//! stopped on its own) comes straight to the step's end; the others are stopped at their
//! next gate. A rank that dies outright is the launcher's (`mpirun`) to handle.

use serde::{Deserialize, Serialize};

/// The collectives of a run across hosts, rank order everywhere. Each call is collective:
/// every rank makes the same calls in the same order.
pub trait Ranks: Send + Sync {
    /// This process's rank, 0-based.
    fn rank(&self) -> u32;
    /// How many ranks the run has.
    fn size(&self) -> u32;
    /// Every rank gives `mine`; every rank gets every rank's, in rank order.
    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, RanksError>;
    /// Every rank gives `mine`; rank 0 gets every rank's in rank order, the others `None`.
    fn gather(&self, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, RanksError>;
}

impl std::fmt::Debug for dyn Ranks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rank {} of {}", self.rank(), self.size())
    }
}

/// Why the ranks could not talk, or why a rank stopped the run.
#[derive(Debug, thiserror::Error)]
pub enum RanksError {
    /// The transport failed (an MPI call returned an error).
    #[error("the ranks cannot exchange messages: {message}")]
    Transport {
        /// What the transport said.
        message: String,
    },
    /// A rank sent what this build cannot read (ranks of different diskmeter builds).
    #[error("rank {rank} sent a message this diskmeter cannot read ({source}); are all ranks the same diskmeter?")]
    Garbled {
        /// The rank.
        rank: u32,
        /// Why it could not be read.
        source: serde_json::Error,
    },
    /// A rank failed: the run stops on every rank with its error.
    #[error("rank {rank} ({host}) failed: {message}")]
    RankFailed {
        /// The rank that failed first (the lowest one, when several did).
        rank: u32,
        /// Its host.
        host: String,
        /// Its error.
        message: String,
    },
    /// A rank ended the step before the others reached a phase (it was interrupted, or
    /// its jobs ended early on their own); the others cannot start the phase without it.
    #[error("rank {rank} ({host}) ended the step before {stage}; stopping the other ranks")]
    RankLeft {
        /// The rank.
        rank: u32,
        /// Its host.
        host: String,
        /// Where the others were.
        stage: String,
    },
}

/// Where a rank is in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Stage {
    /// The start of the batch: every step validated and guarded.
    Start,
    /// The last rank laid its files out (the other ranks plan after it, so a file they
    /// share is made once, by the rank whose region reaches furthest).
    LaidOut,
    /// Before a stonewall phase (0: after the layout).
    Phase(u32),
    /// The step is over for this rank.
    StepEnd,
    /// After a step: whether every rank goes on to the next one.
    Verdict,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::Start => write!(f, "the start"),
            Stage::LaidOut => write!(f, "the layout"),
            Stage::Phase(phase) => write!(f, "phase {phase}"),
            Stage::StepEnd => write!(f, "the end of the step"),
            Stage::Verdict => write!(f, "the verdict on the step"),
        }
    }
}

/// How a rank is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Health {
    /// Fine.
    Fine,
    /// Failed, with its error.
    Failed(String),
    /// Interrupted (Ctrl-C, SIGTERM).
    Interrupted,
    /// Stopped because another rank failed or left.
    Stopped,
}

/// What a rank says in a round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// The step, 0-based (the batch's start counts as step 0).
    pub step: usize,
    /// Where it is.
    pub stage: Stage,
    /// How it is.
    pub health: Health,
    /// Its host, for the errors that name it.
    pub host: String,
}

/// A session's ranks with this rank's host: the rounds of the protocol.
#[derive(Clone)]
pub(crate) struct Cluster {
    pub ranks: std::sync::Arc<dyn Ranks>,
    pub host: String,
}

impl Cluster {
    /// The last rank: the one that lays its files out first.
    pub fn is_last(&self) -> bool {
        self.ranks.rank() + 1 == self.ranks.size()
    }

    /// One round: this rank at `stage` of `step`, `health`; every rank's checkpoint back.
    fn round(
        &self,
        step: usize,
        stage: Stage,
        health: &Health,
    ) -> Result<Vec<Checkpoint>, RanksError> {
        let mine = Checkpoint {
            step,
            stage,
            health: health.clone(),
            host: self.host.clone(),
        };
        let bytes = serde_json::to_vec(&mine).map_err(|e| RanksError::Transport {
            message: e.to_string(),
        })?;
        self.ranks.all_gather(&bytes).and_then(|all| {
            all.iter()
                .enumerate()
                .map(|(rank, bytes)| {
                    serde_json::from_slice(bytes).map_err(|source| RanksError::Garbled {
                        rank: rank as u32,
                        source,
                    })
                })
                .collect()
        })
    }

    /// The barrier at the start of a batch, with this rank's `health` (it may have found
    /// its jobs invalid): `Ok` when every rank is fine.
    pub fn start(&self, health: &Health) -> Result<(), RanksError> {
        let all = self.round(0, Stage::Start, health)?;
        match first_failure(&all) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The barrier at `stage` of `step`: `Ok` when every rank stands there and is fine,
    /// else the error that stops this rank (the first failure, or the rank that left).
    pub fn barrier(&self, step: usize, stage: Stage) -> Result<(), RanksError> {
        let all = self.round(step, stage, &Health::Fine)?;
        match first_failure(&all) {
            Some(error) => Err(error),
            None => match all.iter().position(|c| c.step != step || c.stage != stage) {
                Some(rank) => Err(RanksError::RankLeft {
                    rank: rank as u32,
                    host: all[rank].host.clone(),
                    stage: stage.to_string(),
                }),
                None => Ok(()),
            },
        }
    }

    /// The end of `step` for this rank, `health`: rounds until every rank is at the end;
    /// every rank's checkpoint back, in rank order.
    pub fn end_step(&self, step: usize, health: &Health) -> Result<Vec<Checkpoint>, RanksError> {
        loop {
            let all = self.round(step, Stage::StepEnd, health)?;
            if all
                .iter()
                .all(|c| c.step == step && c.stage == Stage::StepEnd)
            {
                return Ok(all);
            }
        }
    }
}

/// What the ranks decided after a step ([`Cluster::verdict`]).
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Every rank is fine: all go on to the next step.
    GoOn,
    /// Some rank failed (the first failure) or was interrupted (`None`): all stop here.
    Stop(Option<RanksError>),
}

impl Cluster {
    /// After every step, every rank says whether it can go on (`health`): a failure or a
    /// Ctrl-C seen by one rank only (rank 0's merge or output, a signal that reached the
    /// ranks at different moments) stops them all after the same step, so no rank waits
    /// in the next step's rounds for ranks that stopped.
    pub fn verdict(&self, step: usize, health: &Health) -> Result<Verdict, RanksError> {
        let all = self.round(step, Stage::Verdict, health)?;
        if let Some(error) = first_failure(&all) {
            return Ok(Verdict::Stop(Some(error)));
        }
        if all.iter().any(|c| c.health != Health::Fine) {
            return Ok(Verdict::Stop(None));
        }
        Ok(Verdict::GoOn)
    }
}

/// The lowest rank that failed, as an error.
pub(crate) fn first_failure(all: &[Checkpoint]) -> Option<RanksError> {
    all.iter()
        .enumerate()
        .find_map(|(rank, c)| match &c.health {
            Health::Failed(message) => Some(RanksError::RankFailed {
                rank: rank as u32,
                host: c.host.clone(),
                message: message.clone(),
            }),
            _ => None,
        })
}

#[cfg(test)]
#[path = "ranks_tests.rs"]
mod tests;
