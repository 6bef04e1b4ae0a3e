//! The terminal form of `plan --rehearse`: what was built and run, then predicted against
//! measured per path (each disk, the VM cap, the total) with the binding limit the plan names
//! and the one the measurement shows, and the agreement. The JSON form is the
//! [`Rehearsal`] itself.

use crate::text::TextTable;
use diskmeter_orchestrator::Rehearsal;
use diskmeter_plan::model::group;
use diskmeter_plan::rehearsal::{Agreement, AGREEMENT_PERCENT};
use std::fmt::Write;

fn figure(v: Option<f64>) -> String {
    v.map_or("-".to_string(), group)
}

/// "12,800 +- 2": the measured figure and its 95 % half-width, when known.
fn with_interval(value: f64, half_width: Option<f64>) -> String {
    match half_width {
        Some(h) => format!("{} +- {}", group(value), group(h)),
        None => group(value),
    }
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
        if caps.is_empty() {
            "none".to_string()
        } else {
            caps.join(" / ")
        }
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
        "agreement",
    ]);
    for p in &r.comparison.paths {
        table.row([
            p.path.clone(),
            p.caps.clone(),
            figure(p.predicted_iops),
            with_interval(p.measured_iops, p.measured_iops_half_width),
            percent(p.iops_difference_percent),
            figure(p.predicted_mibps),
            with_interval(p.measured_mibps, p.measured_mibps_half_width),
            percent(p.mibps_difference_percent),
            p.predicted_limit.clone(),
            p.measured_limit.clone(),
            p.agreement.word().to_string(),
        ]);
    }
    table.align_right([2, 3, 4, 5, 6, 7]);
    let _ = writeln!(out, "{table}");
    let c = &r.comparison;
    let limits = if c.same_limit {
        format!("both name {}", c.predicted_limit)
    } else {
        format!(
            "the plan names {}, the measurement {}",
            c.predicted_limit, c.measured_limit
        )
    };
    let verdict = match c.agreement {
        Agreement::Agrees => format!(
            "AGREES: every path's measured 95 % interval lies within {AGREEMENT_PERCENT} % of \
             the plan, and {limits}"
        ),
        Agreement::WithinNoise => format!(
            "WITHIN NOISE: an interval straddles the {AGREEMENT_PERCENT} % band (a longer \
             --rehearse-time narrows it); {limits}"
        ),
        Agreement::Differs => format!(
            "DIFFERS: a path lies more than {AGREEMENT_PERCENT} % from the plan, or {limits}"
        ),
    };
    let _ = writeln!(out, "{verdict}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_plan::rehearsal::{self, Measured};
    use diskmeter_plan::{Catalog, Configuration, Demand, HostCache};

    #[test]
    fn the_text_names_what_ran_each_path_and_the_verdict() {
        let catalog = Catalog::builtin();
        let demand = Demand::default()
            .adjusted(Some("iops=16000,bs=8k"), None)
            .unwrap();
        let config = Configuration {
            vm: Some(catalog.vm("Standard_D8s_v5").unwrap()),
            disk: catalog.disk("P30").unwrap(),
            disk_count: 4,
            cache: HostCache::None,
        };
        let evaluation = diskmeter_plan::evaluate(&catalog, &config, &demand).unwrap();
        let setup = rehearsal::setup(&evaluation).unwrap();
        let measured = Measured {
            iops: 12_800.0,
            mibps: 100.0,
            iops_half_width: Some(72.0),
            mibps_half_width: Some(0.56),
            disks: Vec::new(),
        };
        let r = Rehearsal {
            comparison: rehearsal::compare(&setup, &measured),
            setup,
            workload_source: "--workload".into(),
            job: ["name=rehearse", "filename=f", "size=1g", "rw=randread"]
                .map(String::from)
                .to_vec(),
            emulated: false,
            engine_iops: Some(12_800),
            engine_bytes_per_sec: None,
            not_rehearsed: vec!["the stripe: needs root".into()],
            runtime_s: 6.0,
            ramp_s: 1.2,
            measured,
        };
        let out = text(&r);
        assert!(out.contains("no emulated disks (not root)"), "{out}");
        assert!(
            out.contains("in-engine cap (shared by every IO): 12,800 IOPS"),
            "{out}"
        );
        assert!(
            out.contains("not rehearsed: the stripe: needs root"),
            "{out}"
        );
        assert!(out.contains("12,800 +- 72"), "{out}");
        assert!(out.contains("AGREES"), "{out}");
    }
}
