//! A suite: its table of steps, and each step's charts as a child section.

use crate::{Section, SectionKind, ViewError};
use diskmeter_history::{HistoryStore, StoredRun};

/// The section of a suite run.
pub fn section(_store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    Ok(Section::new(
        format!("run-{id}"),
        format!("Suite {id}: {}", run.summary.name),
        SectionKind::Suite,
    ))
}
