//! Why a session could not start, or why a batch stopped before its end.

use diskmeter_runner::RunError;
use diskmeter_workload::ValidationError;

/// Why a session could not start or a batch stopped early. [`OrchestrateError::is_usage`]
/// tells the errors of the user's input (exit code 2) from the failures of a run (1).
#[derive(Debug, thiserror::Error)]
pub enum OrchestrateError {
    /// Jobs that make no sense (every problem of every step, one per line).
    #[error("{}", lines(.problems))]
    Invalid {
        /// The problems, each naming its job and option.
        problems: Vec<ValidationError>,
    },
    /// A step could not be planned because of how its jobs are written.
    #[error("{0}")]
    Job(RunError),
    /// A step could not be planned, was refused by the safety checks, or failed before its
    /// workers started (layout, opening a target).
    #[error("{0}")]
    Run(RunError),
    /// The emulated disk could not be made.
    #[error("--emulate {profile}: {message}")]
    Emulation {
        /// The profile asked for.
        profile: String,
        /// Why (from the emulation crate, with a hint where one helps).
        message: String,
        /// The profile or size was wrong, not the machine.
        usage: bool,
    },
    /// A rehearsal's striped volume could not be made, or its run did not finish.
    #[error("--rehearse: {0}")]
    Rehearsal(String),
    /// The stop signal's handlers could not be installed.
    #[error("cannot install the handlers of Ctrl-C and SIGTERM: {0}")]
    Signals(std::io::Error),
    /// A run across hosts stopped: a rank failed (this one when `own`, else another, whose
    /// rank and host the error names), or the ranks could not talk.
    #[error("{error}")]
    Ranks {
        /// Why.
        error: crate::ranks::RanksError,
        /// The failure is this rank's own (or its transport's), not another rank's.
        own: bool,
    },
    /// Rank 0 could not merge the ranks' results of a step.
    #[error("cannot merge the ranks' results: {0}")]
    Merge(#[from] diskmeter_report::merge::MergeError),
    /// A sink refused a finished step (a renderer's output could not be written).
    #[error("{0}")]
    Sink(#[from] crate::sink::SinkError),
}

impl OrchestrateError {
    /// The user's input was wrong (exit code 2), as against a run that failed (1).
    pub fn is_usage(&self) -> bool {
        match self {
            OrchestrateError::Invalid { .. } | OrchestrateError::Job(_) => true,
            OrchestrateError::Emulation { usage, .. } => *usage,
            _ => false,
        }
    }
}

impl OrchestrateError {
    /// `error` as rank `me` reports it: its own unless it names another rank.
    pub(crate) fn ranks(error: crate::ranks::RanksError, me: u32) -> OrchestrateError {
        use crate::ranks::RanksError;
        let own = match &error {
            RanksError::RankFailed { rank, .. } | RanksError::RankLeft { rank, .. } => *rank == me,
            RanksError::Transport { .. } | RanksError::Garbled { .. } => true,
        };
        OrchestrateError::Ranks { error, own }
    }

    /// Another rank's failure, which that rank reports (rank 0 reports every failure): what
    /// the other ranks need not print again.
    pub fn is_other_ranks(&self) -> bool {
        matches!(self, OrchestrateError::Ranks { own: false, .. })
    }
}

fn lines(problems: &[ValidationError]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
