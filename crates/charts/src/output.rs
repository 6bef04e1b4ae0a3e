//! A sweep's output with its charts written: the grid's tables and summaries or the curve's
//! table and SLO (or their JSON documents), as `diskmeter_views::sweep` renders them, after
//! the charts are drawn into the folder, so the text can list the files. Shared by `sweep`
//! and `analyze`; the caller says why any chart is missing.

use crate::{write_spec_charts, write_sweep_charts, ChartError};
use diskmeter_analysis::curve::Curve;
use diskmeter_analysis::PointGroup;
use diskmeter_views::sweep::curve::{curve_chart, curve_results};
use diskmeter_views::sweep::text::{self, AutoStopSummary};
use std::path::Path;

/// A grid's points per pattern on `target`: charts into `dir` (when given), then the text or
/// JSON ([`text::results`]); with why any chart could not be written.
pub fn sweep_output(
    groups: &[PointGroup],
    target: &str,
    (dir, json): (Option<&Path>, bool),
    auto_stop: Option<AutoStopSummary>,
) -> (String, Vec<ChartError>) {
    let (charts, errors) = match dir {
        Some(dir) => write_sweep_charts(dir, target, groups),
        None => Default::default(),
    };
    (
        text::results(groups, target, &charts, json, auto_stop),
        errors,
    )
}

/// A curve on `target`: its IOPS vs latency chart into `dir` (when given), then the text or
/// JSON ([`curve_results`]); with why the chart could not be written.
pub fn curve_output(
    curve: &Curve,
    target: &str,
    (dir, json): (Option<&Path>, bool),
) -> (String, Vec<ChartError>) {
    // No whole paced point, no curve: no empty chart.
    let paced = curve
        .points
        .iter()
        .any(|p| p.target_iops.is_some() && p.partial.is_none());
    let (charts, errors) = match dir {
        Some(dir) if paced => write_spec_charts(dir, &[curve_chart("curve", target, curve)]),
        _ => Default::default(),
    };
    (curve_results(curve, target, &charts, json), errors)
}
