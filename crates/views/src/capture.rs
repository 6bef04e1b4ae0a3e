//! A capture of an application's IO: the requirements checklist and the per-interval
//! series of each device.

use crate::{Section, SectionKind, ViewError};
use diskmeter_history::{HistoryStore, StoredRun};

/// The section of a capture.
pub fn section(_store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    Ok(Section::new(
        format!("run-{id}"),
        format!("Capture {id}: {}", run.summary.name),
        SectionKind::Capture,
    ))
}
