//! The terminal form of `plan --rehearse`: what was built and run, then predicted against
//! measured per path (each disk, the VM cap, the total) with the binding limit the plan names
//! and the one the measurement shows, and the agreement. The JSON form is the
//! [`Rehearsal`] itself.

use crate::text::TextTable;
use diskmeter_orchestrator::Rehearsal;
use diskmeter_plan::model::group;
use diskmeter_plan::rehearsal::AGREEMENT_PERCENT;
use std::fmt::Write;

fn figure(v: Option<f64>) -> String {
    v.map_or("-".to_string(), group)
}

fn percent(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |d| format!("{d:+.1} %"))
}

/// `plan --rehearse` for people.
pub fn text(r: &Rehearsal) -> String {
    let s = &r.setup;
    let w = &s.workload;
    let mut out = String::new();
    let built = if r.emulated {
        format!(
            "{} emulated disks (loop devices, each capped by a cgroup at {} IOPS / {} MiB/s), \
             striped by btrfs raid0 at {} KiB",
            s.disk_count,
            figure(s.disk_iops),
            figure(s.disk_mibps),
            s.chunk_kib
        )
    } else {
        "no emulated disks (not root): one in-engine cap on a plain file".to_string()
    };
    let _ = writeln!(out, "\nRehearsal of {}: {built}", s.configuration);
    let caps = [
        r.engine_iops.map(|v| format!("{} IOPS", group(v as f64))),
        r.engine_bytes_per_sec
            .map(|v| format!("{} MiB/s", group(v as f64 / 1_048_576.0))),
    ];
    let caps: Vec<String> = caps.into_iter().flatten().collect();
    let _ = writeln!(
        out,
        "  in-engine cap (shared by every IO): {}",
        if caps.is_empty() { "none".to_string() } else { caps.join(" / ") }
    );
    let _ = writeln!(
        out,
        "  workload ({}): {}; queue depth {} ({})",
        r.workload_source,
        r.job[3..].join(" "),
        w.queue_depth,
        w.queue_depth_basis
    );
    let _ = writeln!(
        out,
        "  measured {:.1} s after a {:.1} s ramp",
        r.runtime_s, r.ramp_s
    );
    for note in s.notes.iter() {
        let _ = writeln!(out, "  note: {note}");
    }
    for what in &r.not_rehearsed {
        let _ = writeln!(out, "  not rehearsed: {what}");
    }
    let mut table = TextTable::new([
        "path",
        "caps",
        "IOPS plan",
        "measured",
        "diff",
        "MiB/s plan",
        "measured",
        "diff",
        "limit (plan)",
        "limit (measured)",
        "agrees",
    ]);
    for p in &r.comparison.paths {
        table.row([
            p.path.clone(),
            p.caps.clone(),
            figure(p.predicted_iops),
            group(p.measured_iops),
            percent(p.iops_difference_percent),
            figure(p.predicted_mibps),
            group(p.measured_mibps),
            percent(p.mibps_difference_percent),
            p.predicted_limit.clone(),
            p.measured_limit.clone(),
            if p.agrees { "yes" } else { "no" }.to_string(),
        ]);
    }
    table.align_right([2, 3, 4, 5, 6, 7]);
    let _ = writeln!(out, "{table}");
    let c = &r.comparison;
    let verdict = if c.agrees {
        format!(
            "AGREES: every path within {AGREEMENT_PERCENT} % of the plan, and both name {}",
            c.predicted_limit
        )
    } else {
        format!(
            "DIFFERS: the plan names {}, the measurement {}; a path off by more than \
             {AGREEMENT_PERCENT} % is marked 'no'",
            c.predicted_limit, c.measured_limit
        )
    };
    let _ = writeln!(out, "{verdict}");
    out
}
