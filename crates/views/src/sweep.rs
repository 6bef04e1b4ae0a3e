//! A sweep: IOPS vs queue depth, MiB/s vs block size and latency vs queue depth, with the
//! analysis (ceilings, crossover, knees) and the named tier.

use crate::{Section, SectionKind, ViewError};
use diskmeter_history::{HistoryStore, StoredRun};

/// The section of a sweep run.
pub fn section(_store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    Ok(Section::new(
        format!("run-{id}"),
        format!("Sweep {id}: {}", run.summary.name),
        SectionKind::Sweep,
    ))
}
