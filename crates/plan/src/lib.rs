//! Storage planning as pure functions over data: a catalog of published disk and VM limits
//! and prices, a capacity model that counts each IO against the caps on its path (host cache,
//! VM uncached, disks), and the planner's answers: evaluate a configuration and name its
//! binding limit or why it cannot be built, find the cheapest configuration that meets a requirement, queue-depth and
//! stripe advice, and caps by IO size.
//!
//! The model follows the Azure "Premium Storage: design for high performance" guide and is
//! explained in docs/guide/4-plan.md ("Planning"). Nothing here does IO: catalogs arrive as text.
#![forbid(unsafe_code)]

pub mod burst;
pub mod catalog;
pub mod cost;
pub mod demand;
mod error;
pub mod format;
pub mod latency;
pub mod model;
pub mod optimise;
pub mod planner;
pub mod possible;
pub mod rehearsal;
pub mod request;
pub mod sizing;

pub use catalog::{Catalog, DiskTier, Entry, VmSize};
pub use demand::{parse_growth, Demand, FigureOrigin, LatencyBasis};
pub use error::{CatalogProblem, DemandProblem, DisksProblem, PlanError};
pub use model::{CapKind, Configuration, HostCache, Limit, PointPrediction};
pub use optimise::{optimise, Candidate, Optimisation, SearchSpace};
pub use planner::{
    evaluate, io_size_table, parse_disks, parse_io_sizes, Evaluation, IoSizeRow, DEFAULT_IO_SIZES,
};
pub use possible::{not_possible, NotPossible};
pub use request::{answer, Answer, IoSizes, Request};
