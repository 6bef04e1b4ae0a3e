//! What `diskmeter iometer --icf FILE` asks of an `.icf` file: the command line's changes to
//! its workers ([`icf_workers`](super::icf_workers)), its targets mapped to Linux paths
//! ([`icf_targets`](super::icf_targets)) and the steps it runs ([`icf_run`](super::icf_run)).

use super::icf::{parse_icf, Icf, IcfError};
use super::icf_run::{steps, IcfRunError, IcfStep, RunSettings};
use super::icf_targets::{resolve_targets, TargetMapError};
use super::icf_workers::{assign_library_specs, size_default_workers, spawn_default_workers};
use std::path::Path;
use thiserror::Error;

/// The command line's part in an `.icf` run.
#[derive(Debug, Clone)]
pub struct IcfRequest {
    /// The positional TARGETs, the file's targets in the order they first appear.
    pub targets: Vec<String>,
    /// `--target-map NAME=PATH` entries.
    pub target_maps: Vec<String>,
    /// `--spec` names of the file's library to run on every worker.
    pub specs: Vec<String>,
    /// `--workers`, when given: the count of default workers of a file that has none.
    pub workers: Option<u32>,
    /// `--qd`, when given: the default workers' outstanding IOs.
    pub queue_depth: Option<u32>,
    /// The CPUs of this host (Iometer's NUMBER_OF_CPUS default workers).
    pub cpus: u32,
    /// The run's times and test file size where the file does not give them.
    pub settings: RunSettings,
}

/// Why an `.icf` run cannot be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IcfRequestError {
    /// The file does not parse, or a `--spec` is not in its library.
    #[error(transparent)]
    File(#[from] IcfError),
    /// `--workers`/`--qd` given for a file with workers of its own.
    #[error(
        "--workers and --qd size the default workers of an .icf file that has none; {file} \
         sets its own workers"
    )]
    OwnWorkers {
        /// The file as named.
        file: String,
    },
    /// Its targets cannot be mapped.
    #[error(transparent)]
    Targets(#[from] TargetMapError),
    /// What it asks cannot run here.
    #[error(transparent)]
    Run(#[from] IcfRunError),
}

/// The file `path` (of `text`) as the request changes it, and the steps it runs.
pub fn icf_steps(
    path: &str,
    text: &str,
    request: &IcfRequest,
) -> Result<(Icf, Vec<IcfStep>), IcfRequestError> {
    let mut icf = parse_icf(path, text)?;
    spawn_default_workers(&mut icf, request.cpus, &request.targets);
    let sized = size_default_workers(&mut icf, request.workers, request.queue_depth);
    if !sized && (request.workers.is_some() || request.queue_depth.is_some()) {
        return Err(IcfRequestError::OwnWorkers {
            file: path.to_string(),
        });
    }
    if !request.specs.is_empty() {
        assign_library_specs(path, &mut icf, &request.specs)?;
    }
    let resolved = resolve_targets(&icf, path, &request.target_maps, &request.targets)?;
    let steps = steps(path, &icf, &request.settings, &|name| {
        resolved.get(name).cloned()
    })?;
    Ok((icf, steps))
}

impl Icf {
    /// The run's name in the history: the file's description, else its file name.
    pub fn run_name(&self, path: &str) -> String {
        if self.setup.description.is_empty() {
            Path::new(path)
                .file_name()
                .map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
        } else {
            self.setup.description.clone()
        }
    }
}
