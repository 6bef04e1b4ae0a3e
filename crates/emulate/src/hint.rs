//! What to use instead when an emulation cannot be made for want of root: the in-engine
//! throttle's flags that give the same caps without a cgroup.

use crate::{Caps, EmulateError};

/// For [`EmulateError::NotRoot`]: " (for these caps: --throttle-iops 5000 --throttle-bw
/// 200MiB/s)", to append to the error; empty for any other error or when no cap is set.
pub fn throttle_flags_hint(error: &EmulateError, caps: &Caps) -> String {
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
    format!(" (for these caps: {})", flags.join(" "))
}
