//! The analysis in 3-6 plain lines a DBA can paste into a ticket.

use crate::{Analysis, CeilingFinding, Limit};
use diskmeter_units::{format_size_suffix, format_thousands, KbBase};

fn size(bytes: f64) -> String {
    let whole = bytes.round() as u64;
    if whole.is_multiple_of(1024) {
        format_size_suffix(whole, KbBase::Binary).to_uppercase()
    } else {
        format!("{:.1} KiB", bytes / 1024.0)
    }
}

fn mib(bytes_per_sec: f64) -> String {
    format!("{:.0} MiB/s", bytes_per_sec / (1u64 << 20) as f64)
}

/// The summary lines: first the partial points left out and why, then what the whole
/// points show (or why nothing is inferred from them).
pub fn summary_lines(a: &Analysis) -> Vec<String> {
    let mut lines: Vec<String> = a
        .partial_points
        .iter()
        .map(|p| {
            format!(
                "Partial point left out of the analysis: {} ({} IOPS over the part that ran): {}.",
                p.step,
                format_thousands(p.iops.round() as u64),
                p.reason
            )
        })
        .collect();
    if let Some(reason) = &a.nothing_inferred {
        lines.push(format!(
            "Nothing inferred: {reason} (no ceiling, limit, knee or tier is stated)."
        ));
        if !a.little_failures.is_empty() {
            lines.push(little_line(a));
        }
        return lines;
    }
    match (&a.iops_ceiling, &a.bandwidth_ceiling) {
        (CeilingFinding::Found(i), CeilingFinding::Found(b)) => lines.push(format!(
            "Caps: {} IOPS (measured {}-{}) and {} (measured {}-{}).",
            format_thousands(i.value.round() as u64),
            format_thousands(i.low.round() as u64),
            format_thousands(i.high.round() as u64),
            mib(b.value),
            mib(b.low),
            mib(b.high)
        )),
        (CeilingFinding::Found(i), CeilingFinding::NotFound { reason, .. }) => lines.push(format!(
            "IOPS cap {} IOPS; no bandwidth cap found ({reason}).",
            format_thousands(i.value.round() as u64)
        )),
        (CeilingFinding::NotFound { reason, .. }, CeilingFinding::Found(b)) => lines.push(format!(
            "Bandwidth cap {}; no IOPS cap found ({reason}).",
            mib(b.value)
        )),
        (
            CeilingFinding::NotFound {
                reason: ri,
                highest: hi,
            },
            CeilingFinding::NotFound {
                reason: rb,
                highest: hb,
            },
        ) => lines.push(format!(
            "No IOPS plateau below the top of the grid ({ri}; best {} IOPS) and no bandwidth \
             plateau ({rb}; best {}): the device was not capped within the grid.",
            format_thousands(hi.round() as u64),
            mib(*hb)
        )),
    }
    if let Some(crossover) = a.crossover_bytes {
        let iops_limited: Vec<String> = a
            .block_sizes
            .iter()
            .filter(|f| f.limit == Limit::Iops)
            .map(|f| size(f.bs_bytes as f64))
            .collect();
        lines.push(format!(
            "Crossover at {}: smaller IOs hit the IOPS cap ({}), larger ones the bandwidth cap.",
            size(crossover),
            if iops_limited.is_empty() {
                "none in the grid".to_string()
            } else {
                iops_limited.join(", ")
            }
        ));
    }
    let knees: Vec<String> = a
        .block_sizes
        .iter()
        .filter_map(|f| {
            f.knee_qd
                .map(|k| format!("{} at QD {k}", size(f.bs_bytes as f64)))
        })
        .collect();
    if !knees.is_empty() {
        lines.push(format!(
            "90 % of the best IOPS is reached {}.",
            knees.join(", ")
        ));
    }
    if let Some(qd1) = a.block_sizes.iter().find_map(|f| f.qd1_lat_ns) {
        lines.push(format!(
            "QD1 latency {} ({} IOs).",
            diskmeter_units::format_duration(qd1),
            size(
                a.block_sizes
                    .iter()
                    .find(|f| f.qd1_lat_ns.is_some())
                    .map_or(0, |f| f.bs_bytes) as f64
            )
        ));
    }
    if a.block_sizes.iter().any(|f| f.throttled) {
        lines.push(
            "Throttling signature: IOPS flat past the knee while latency grows with queue \
             depth: a rate limiter (a cloud disk's cap) or a saturated device; deeper queues \
             only add latency."
                .to_string(),
        );
    }
    if !a.little_failures.is_empty() {
        lines.push(little_line(a));
    }
    if let Some((names, first)) = a.nearest_tier() {
        lines.push(format!(
            "Behaves like {}: {} IOPS / {:.0} MiB/s.",
            names,
            format_thousands(first.iops.round() as u64),
            first.mibps
        ));
    }
    if !a.burst_of.is_empty() {
        let names: Vec<String> = a
            .burst_of
            .iter()
            .map(|t| {
                let bucket = t
                    .bucket_s
                    .map_or_else(String::new, |s| format!(", bucket {:.0} min", s / 60.0));
                format!(
                    "{} ({} IOPS baseline{bucket})",
                    t.id,
                    format_thousands(t.baseline.round() as u64)
                )
            })
            .collect();
        lines.push(format!(
            "The IOPS ceiling is the burst rate of {}: on such a disk a sweep shorter than its \
             bucket measured the burst, not the baseline (analyze a longer run to see the step \
             down).",
            names.join(", ")
        ));
    }
    lines
}

fn little_line(a: &Analysis) -> String {
    format!(
        "Little's law fails at {} point(s) (the device saw less queue than asked): the host \
         or the tool was the bottleneck there, not the device.",
        a.little_failures.len()
    )
}
