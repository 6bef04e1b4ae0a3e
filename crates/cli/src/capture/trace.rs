//! `capture --trace`: starts the block-tracepoint session (crates/capture `trace`) beside the
//! counters, chooses where its fio iolog goes, and describes the profiles it gives.

use super::CaptureRequest;
use crate::UsageError;
use diskmeter_capture::trace::{TraceError, TraceOptions, TraceSession, TraceTarget};
use diskmeter_capture::TraceProfile;
use std::fmt::Write;
use std::path::PathBuf;

/// Starts tracing `devices`. The iolog goes to `--iolog`, else next to the history
/// (`iologs/capture-ID.log`, so `replay --exact` finds it later), else nowhere.
pub(super) fn start(
    devices: &[String],
    request: &CaptureRequest,
    capture_id: Option<i64>,
) -> anyhow::Result<TraceSession> {
    let targets = devices
        .iter()
        .map(|name| TraceTarget::from_name(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage_or_failure)?;
    let iolog_path = match (&request.iolog, capture_id) {
        (Some(path), _) => Some(std::path::absolute(path).unwrap_or_else(|_| path.clone())),
        (None, Some(id)) => default_iolog(request, id)?,
        (None, None) => None,
    };
    let options = TraceOptions {
        iolog_path,
        ..TraceOptions::default()
    };
    TraceSession::start(&targets, &options).map_err(usage_or_failure)
}

/// `iologs/capture-ID.log` in the history's folder.
fn default_iolog(request: &CaptureRequest, id: i64) -> anyhow::Result<Option<PathBuf>> {
    let Some(db) = request.history.path()? else {
        return Ok(None);
    };
    let folder = db
        .parent()
        .map_or_else(|| PathBuf::from("iologs"), |p| p.join("iologs"));
    std::fs::create_dir_all(&folder)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", folder.display()))?;
    let folder = std::path::absolute(&folder).unwrap_or(folder);
    Ok(Some(folder.join(format!("capture-{id}.log"))))
}

/// What the user can fix (not root, no such device, no tracefs) is a usage error (exit 2).
fn usage_or_failure(error: TraceError) -> anyhow::Error {
    match error {
        TraceError::NotRoot
        | TraceError::NoSuchDevice { .. }
        | TraceError::DeviceUnknown { .. }
        | TraceError::NoDevices => UsageError(format!("--trace: {error}")).into(),
        other => anyhow::Error::new(other).context("--trace"),
    }
}

/// A few lines per traced device: what counters cannot say.
pub(super) fn describe(profiles: &[TraceProfile]) -> String {
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
                "  {name}s: {} IOs, sizes {}; device latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
                direction.ios,
                sizes.join(", "),
                lat.p50 / 1e6,
                lat.p99 / 1e6,
                lat.max / 1e6
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
