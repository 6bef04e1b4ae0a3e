//! A plain run, and any one stored step: summary, command line and job file, host and
//! device facts, per-second IOPS, bandwidth and latency series, the latency percentile
//! curve on a nines axis, the histogram, CPU, steady-state and confidence figures.

use crate::{Section, SectionKind, ViewError};
use diskmeter_history::{HistoryStore, StoredRun};

/// The section of a run whose steps are shown one after another.
pub fn section(_store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    Ok(Section::new(
        format!("run-{id}"),
        format!("Run {id}: {}", run.summary.name),
        SectionKind::Run,
    ))
}
