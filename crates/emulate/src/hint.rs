//! What to use instead when an emulation cannot be made for want of root: the in-engine
//! throttle's flags that give the same caps (and burst bucket) without a cgroup.

use crate::{EmulateError, EmulationSpec};

/// For [`EmulateError::NotRoot`]: " (for these caps: --throttle-iops 5000 --throttle-bw
/// 200MiB/s)", to append to the error, with the `--throttle-burst-*` flags of a bursting
/// disk; empty for any other error or when no cap is set.
pub fn throttle_flags_hint(error: &EmulateError, spec: &EmulationSpec) -> String {
    let caps = &spec.caps;
    if !matches!(error, EmulateError::NotRoot) {
        return String::new();
    }
    // Whole numbers only: the flag takes no fractions.
    let rate_flag = |bytes: u64| match bytes {
        b if b % (1 << 20) == 0 => format!("{}MiB/s", b >> 20),
        b if b % (1 << 10) == 0 => format!("{}KiB/s", b >> 10),
        b => b.to_string(),
    };
    let mut flags = Vec::new();
    let pairs = [
        ("iops", caps.read_iops, caps.write_iops, false),
        (
            "bw",
            caps.read_bytes_per_sec,
            caps.write_bytes_per_sec,
            true,
        ),
    ];
    for (name, read, write, is_rate) in pairs {
        let show = |v: u64| if is_rate { rate_flag(v) } else { v.to_string() };
        match (read, write) {
            (Some(r), Some(w)) if r == w => flags.push(format!("--throttle-{name} {}", show(r))),
            (r, w) => {
                if let Some(r) = r {
                    flags.push(format!("--throttle-read-{name} {}", show(r)));
                }
                if let Some(w) = w {
                    flags.push(format!("--throttle-write-{name} {}", show(w)));
                }
            }
        }
    }
    if flags.is_empty() {
        return String::new();
    }
    // The engine's bucket is on the total caps: a burst over equal directions' caps only.
    let burst = spec.burst.filter(|_| caps.read_iops == caps.write_iops);
    let burst = burst.filter(|_| caps.read_bytes_per_sec == caps.write_bytes_per_sec);
    if let Some(burst) = burst {
        if let Some(iops) = burst.iops.filter(|_| caps.read_iops.is_some()) {
            flags.push(format!("--throttle-burst-iops {iops}"));
        }
        if let Some(bw) = burst
            .bytes_per_sec
            .filter(|_| caps.read_bytes_per_sec.is_some())
        {
            flags.push(format!("--throttle-burst-bw {}", rate_flag(bw)));
        }
        let time = match burst.time_ns % 1_000_000_000 {
            0 => format!("{}s", burst.time_ns / 1_000_000_000),
            _ => format!("{}ms", burst.time_ns.div_ceil(1_000_000)),
        };
        flags.push(format!("--throttle-burst-time {time}"));
    }
    format!(" (for these caps: {})", flags.join(" "))
}
