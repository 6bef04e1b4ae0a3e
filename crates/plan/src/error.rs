//! `PlanError`: every way a planning request can be wrong, each saying what to change.

use thiserror::Error;

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlanError {
    /// A catalog file does not parse or has an impossible figure.
    #[error("catalog {file}: {message}")]
    Catalog {
        /// The file as named by the caller.
        file: String,
        /// What is wrong, with the line where the TOML parser gives one.
        message: String,
    },

    /// A disk tier name the catalog does not know.
    #[error("unknown disk tier '{name}'; the catalog has {}", known.join(", "))]
    UnknownDisk {
        /// The name as given.
        name: String,
        /// The ids the catalog has.
        known: Vec<String>,
    },

    /// A VM size the catalog does not know.
    #[error("unknown VM size '{name}'; the catalog has {}", known.join(", "))]
    UnknownVm {
        /// The name as given.
        name: String,
        /// The ids the catalog has.
        known: Vec<String>,
    },

    /// A `--workload` / `--require` key with a bad value.
    #[error("{key}: {message}")]
    Demand {
        /// The key as given.
        key: String,
        /// What is wrong with it.
        message: String,
    },

    /// A `--disks` value that is not `N x TIER`.
    #[error("--disks '{text}': {message}")]
    Disks {
        /// The value as given.
        text: String,
        /// What is wrong with it.
        message: String,
    },

    /// A `--cache` value that is not None, ReadOnly or ReadWrite.
    #[error("--cache '{0}': use None, ReadOnly or ReadWrite")]
    Cache(String),

    /// A disk of one cloud on a VM of another.
    #[error(
        "{disk} is a {disk_cloud} disk and {vm} a {vm_cloud} VM size: pick both from one cloud"
    )]
    CloudMismatch {
        /// The disk tier id.
        disk: String,
        /// Its cloud.
        disk_cloud: String,
        /// The VM size id.
        vm: String,
        /// Its cloud.
        vm_cloud: String,
    },

    /// The demand sends IO to a local SSD but no VM size was given.
    #[error("local= sends IO to the VM's local SSD: name the VM with --vm")]
    LocalNeedsVm,

    /// The optimiser was given nothing to meet.
    #[error("--require needs iops=, mibps= or capacity= to optimise for")]
    NothingRequired,

    /// An `--optimize` goal other than cost.
    #[error("--optimize '{0}': only 'cost' is supported")]
    Goal(String),
}
