//! A sweep pattern as `diskmeter sweep` and `diskmeter analyze` print it in the terminal: the
//! points table (drawn by [`crate::text`]) and the analysis' summary lines.
//!
//! The report's points table ([`super::section`]) shows the same points with longer column
//! names and units in the headings; this is the terminal's compact form, kept as it was.

use crate::text::TextTable;
use diskmeter_analysis::{summary_lines, Analysis, PointGroup};
use diskmeter_units::{format_size_suffix, format_thousands, KbBase, MIB_F64};
use std::fmt::Write;

/// "sweep RW on TARGET", the points table (whole points, then partial ones marked) and the
/// summary lines of `analysis`, ending with a blank line.
pub fn terminal(rw: &str, target: &str, group: &PointGroup, analysis: &Analysis) -> String {
    let mut table = TextTable::new(["bs", "QD", "IOPS", "MiB/s", "mean lat", "p99 lat", "limit"]);
    for p in &group.points {
        let limit = analysis
            .block_sizes
            .iter()
            .find(|f| f.bs_bytes == p.bs_bytes)
            .map(|f| format!("{:?}", f.limit).to_lowercase())
            .unwrap_or_default();
        table.row([
            format_size_suffix(p.bs_bytes, KbBase::Binary),
            p.qd.to_string(),
            format_thousands(p.iops.round() as u64),
            format!("{:.1}", p.bytes_per_sec / MIB_F64),
            format!("{:.3} ms", p.lat_mean_ns / 1e6),
            format!("{:.3} ms", p.lat_p99_ns / 1e6),
            limit,
        ]);
    }
    // A partial point is in the table, marked, so a reader sees it was run; its figures
    // cover only part of the time and no column is filled in as if it were whole.
    for p in &group.partial {
        table.row([
            format_size_suffix(p.bs_bytes, KbBase::Binary),
            p.qd.to_string(),
            format!("({}) partial", format_thousands(p.iops.round() as u64)),
            "-".to_string(),
            "-".to_string(),
            "-".to_string(),
            "partial: left out".to_string(),
        ]);
    }
    let mut text = format!("sweep {rw} on {target}\n\n");
    if !group.points.is_empty() || !group.partial.is_empty() {
        let _ = write!(text, "{table}\n\n");
    }
    for line in summary_lines(analysis) {
        let _ = writeln!(text, "  {line}");
    }
    text.push('\n');
    text
}
