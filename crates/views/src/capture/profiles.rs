//! `capture --trace`'s profiles as text: what counters cannot say (the trace itself is run
//! by the orchestrator's capture session).

use diskmeter_capture::TraceProfile;
use std::fmt::Write;

/// A few lines per traced device: what counters cannot say.
pub fn describe(profiles: &[TraceProfile]) -> String {
    let mut text = String::new();
    for p in profiles {
        let ios = p.ios.max(1) as f64;
        let _ = writeln!(
            text,
            "\ntrace {}: {} IOs in {:.1} s ({} lost), {:.1} % reads, {:.1} % random",
            p.device,
            p.ios,
            p.duration_ns as f64 / 1e9,
            p.lost_events,
            p.read.ios as f64 / ios * 100.0,
            p.random_fraction * 100.0
        );
        for (name, direction) in [("read", &p.read), ("write", &p.write)] {
            if direction.ios == 0 {
                continue;
            }
            let sizes: Vec<String> = direction
                .sizes
                .iter()
                .take(4)
                .map(|s| {
                    format!(
                        "{} {:.0} %",
                        diskmeter_units::format_bytes_binary(s.bytes),
                        s.ios as f64 / direction.ios as f64 * 100.0
                    )
                })
                .collect();
            let lat = &direction.latency_ns;
            let _ = writeln!(
                text,
                "  {name}s: {} IOs, sizes {}; device latency p50 {}, p99 {}, max {}",
                direction.ios,
                sizes.join(", "),
                diskmeter_units::format_duration(lat.p50),
                diskmeter_units::format_duration(lat.p99),
                diskmeter_units::format_duration(lat.max)
            );
        }
        let qd = &p.queue_depth;
        let _ = writeln!(
            text,
            "  queue depth at issue: p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}",
            qd.p50, qd.p90, qd.p99, qd.max
        );
        let hot = &p.hot_set;
        let _ = writeln!(
            text,
            "  working set {}; 80 % of the IOs on {:.1} % of it{}",
            diskmeter_units::format_bytes_binary(hot.working_set_bytes),
            hot.share_for_80_percent_of_ios * 100.0,
            hot.device_share_for_80_percent_of_ios
                .map(|d| format!(" ({:.2} % of the device)", d * 100.0))
                .unwrap_or_default()
        );
        let top: Vec<String> = p
            .processes
            .iter()
            .take(3)
            .map(|proc| {
                format!(
                    "{} ({}) {:.0} %",
                    proc.command,
                    proc.pid,
                    proc.ios as f64 / ios * 100.0
                )
            })
            .collect();
        if !top.is_empty() {
            let _ = writeln!(text, "  issued by: {}", top.join(", "));
        }
        if let Some(path) = &p.iolog_path {
            let _ = writeln!(text, "  iolog (fio version 3): {path}");
        }
    }
    text
}
