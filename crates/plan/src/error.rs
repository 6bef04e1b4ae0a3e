//! `PlanError`: every way a planning request can be wrong, each saying what to change, and
//! the typed reasons inside it ([`CatalogProblem`], [`DemandProblem`], [`DisksProblem`]).

use diskmeter_units::UnitError;
use thiserror::Error;

/// The keys of `--workload` / `--require`, for messages.
pub(crate) const DEMAND_KEYS: &str =
    "iops, mibps, bs, read, write, cache-hit, local, latency, qd, capacity, random";

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlanError {
    /// A catalog file does not parse or has an impossible figure.
    #[error("catalog {file}: {problem}")]
    Catalog {
        /// The file as named by the caller.
        file: String,
        /// What is wrong with it.
        problem: CatalogProblem,
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

    /// A `--workload` / `--require` key with a bad value (or a bad key).
    #[error("{key}: {problem}")]
    Demand {
        /// The key as given (empty when the whole text is at fault).
        key: String,
        /// What is wrong with it.
        problem: DemandProblem,
    },

    /// A `--disks` value that is not `N x TIER`.
    #[error("--disks '{text}': {problem}")]
    Disks {
        /// The value as given.
        text: String,
        /// What is wrong with it.
        problem: DisksProblem,
    },

    /// An `--io-sizes` entry that is not a size above 0.
    #[error("--io-sizes: {0}")]
    IoSize(String),

    /// A `--cache` value that is not None, ReadOnly or ReadWrite.
    #[error("--cache '{0}': use None, ReadOnly or ReadWrite")]
    Cache(String),

    /// A name that is neither a disk tier nor a VM size.
    #[error(
        "'{name}' is neither a disk tier nor a VM size in the catalog; it has {}",
        known.join(", ")
    )]
    UnknownEntry {
        /// The name as given.
        name: String,
        /// The ids of the catalog's disk tiers, then of its VM sizes.
        known: Vec<String>,
    },

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

    /// A `--workload` that does not parse.
    #[error("--workload: {0}")]
    Workload(Box<PlanError>),

    /// A `--growth` that is not a percentage.
    #[error("--growth: {0}")]
    Growth(DemandProblem),

    /// `--duration` that is not a positive time, or without an IOPS requirement to play.
    #[error("--duration {0}")]
    Duration(String),

    /// `--optimize` with nothing to meet.
    #[error("--optimize needs --require (e.g. --require iops=16000,bs=8k) or --from-capture")]
    OptimiseNeedsRequirement,

    /// `--family` or `--cloud` outside a search.
    #[error("--family and --cloud only apply with --optimize")]
    FamilyWithoutOptimise,

    /// Neither disks to evaluate nor a search.
    #[error(
        "give --disks (e.g. --disks 4xP30) to evaluate a configuration, or --require ... \
         --optimize cost to search for one"
    )]
    NoDisks,

    /// `--rehearse` on a plan a rehearsal cannot stand for.
    #[error("--rehearse: {0}")]
    Rehearsal(String),
}

/// What is wrong with a catalog file.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CatalogProblem {
    /// The TOML does not parse, or an entry lacks a field or has an unknown one; the
    /// parser's message gives the line.
    #[error("{}", .0.to_string().trim_end())]
    Toml(#[source] Box<toml::de::Error>),

    /// An entry's id is empty or blank.
    #[error("an entry has an empty id")]
    EmptyId,

    /// A cap, size or price that is zero, negative or not finite: such a figure would make
    /// every plan fail for a reason no reader could see.
    #[error("{id}: {field} = {value} must be a positive number")]
    NotPositive {
        /// The entry's id.
        id: String,
        /// The field's name in the file.
        field: &'static str,
        /// The value as read.
        value: f64,
    },
    /// A formula's figure (a free allowance, a per-GiB rate, a price) that is negative or
    /// not finite.
    #[error("{id}: {field} = {value} must be a number of at least 0")]
    Negative {
        /// The entry's id.
        id: String,
        /// The field's name in the file.
        field: &'static str,
        /// The value as read.
        value: f64,
    },
    /// A citation that names no `[[source]]` of the file.
    #[error("{id}: {field} = \"{cited}\" names no [[source]] of this file")]
    UnknownSource {
        /// The entry's id.
        id: String,
        /// The citing field.
        field: &'static str,
        /// The id cited.
        cited: String,
    },
}

/// What is wrong with one key of a demand (`--workload` / `--require`).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DemandProblem {
    /// The text has no `key=value` pair at all.
    #[error("empty; give key=value pairs ({DEMAND_KEYS})")]
    Empty,

    /// A piece before the first `key=` (`16000` alone).
    #[error("expected key=value; the keys are {DEMAND_KEYS}")]
    NotAPair,

    /// A key the planner does not know.
    #[error("unknown key; the keys are {DEMAND_KEYS}")]
    UnknownKey,

    /// The same key twice.
    #[error("given twice")]
    Repeated,

    /// An `iops` or `mibps` value that is not a positive number.
    #[error("'{0}' is not a positive number (e.g. 16000 or 16k)")]
    NotARate(String),

    /// `bs` with more than a read and a write size.
    #[error("give one size, or read,write")]
    TooManySizes,

    /// An IO size of 0.
    #[error("the IO size must be more than 0")]
    ZeroSize,

    /// A latency target of 0.
    #[error("the latency target must be more than 0")]
    ZeroLatency,

    /// A `qd` that is not a whole number of 1 or more.
    #[error("'{0}' is not a queue depth (1 or more)")]
    NotAQueueDepth(String),

    /// A size or time the units parser refused.
    #[error(transparent)]
    Unit(#[from] UnitError),

    /// A share (`read`, `write`, `cache-hit`, `local`) that is not a number.
    #[error(
        "'{0}' is not a share: write a fraction from 0 to 1 (0.7) or a percentage (70 or 70%)"
    )]
    NotAShare(String),

    /// A share below 0 or above 100 %.
    #[error(
        "'{0}' is out of range: a share is a fraction from 0 to 1 (0.7) or a percentage from \
         0 to 100 (70 or 70%)"
    )]
    ShareOutOfRange(String),

    /// `read` and `write` given with a sum other than 100 %.
    #[error("read {read_percent}% and write {write_percent}% must add up to 100%")]
    MixNot100 {
        /// The read share, percent.
        read_percent: f64,
        /// The write share, percent.
        write_percent: f64,
    },
}

/// What is wrong with a `--disks` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DisksProblem {
    /// More than one tier (`2xP30+2xP40`): a plan is one stripe of equal disks.
    #[error("one tier per plan (a stripe of equal disks), e.g. 4xP30")]
    MixedTiers,

    /// A count that does not fit a number.
    #[error("the count is too large")]
    CountTooLarge,

    /// A count of 0.
    #[error("the count must be 1 or more")]
    ZeroCount,

    /// More disks than any VM attaches.
    #[error("more than 1,024 disks is not a plan")]
    MoreThan1024,
}
