//! The live text view of `diskmeter capture`: once, the devices and what they sit on; then per
//! interval iostat's avg-cpu line, the memory and IO pressure, and one row per device with
//! iostat -x's columns (iostat -m's units: MB = MiB, kB = KiB).

use diskmeter_capture::devices::StackLink;
use diskmeter_capture::sampler::{Interval, SamplerConfig};
use diskmeter_report::format::utc_timestamp;
use diskmeter_units::format_bytes_binary;
use std::fmt::Write;

/// The device table's columns: (heading, width).
const COLUMNS: [(&str, usize); 10] = [
    ("r/s", 9),
    ("w/s", 9),
    ("rMB/s", 8),
    ("wMB/s", 8),
    ("r_await", 8),
    ("w_await", 8),
    ("aqu-sz", 7),
    ("rareq-sz", 9),
    ("wareq-sz", 9),
    ("%util", 7),
];

/// Width of the device name column.
const NAME_WIDTH: usize = 12;

/// Renders the capture as text; keeps nothing between intervals.
#[derive(Debug, Default)]
pub struct LiveView;

impl LiveView {
    /// The view (it has no state).
    pub fn new() -> LiveView {
        LiveView
    }

    /// The lines printed before the first interval.
    pub fn header(
        &self,
        devices: &[String],
        stacks: &[StackLink],
        config: &SamplerConfig,
    ) -> String {
        let mut text = format!(
            "diskmeter capture: {} every {:?}{}\n",
            devices.join(", "),
            config.interval,
            match config.duration {
                Some(d) => format!(" for {d:?}"),
                None => " until Ctrl-C".to_string(),
            }
        );
        for link in stacks {
            let _ = writeln!(text, "  {link}");
        }
        text.push_str("  (MB = MiB and kB = KiB, as iostat's; await in ms)\n");
        text
    }

    /// One interval's block.
    pub fn interval(&self, interval: &Interval) -> String {
        let mut text = String::new();
        let cpu = &interval.cpu;
        let _ = writeln!(
            text,
            "\n{} ({:.2} s)",
            utc_timestamp(interval.start_unix_ms),
            interval.elapsed_secs
        );
        let _ = writeln!(
            text,
            "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n         {:>6.2}  {:>6.2}  {:>6.2}  {:>6.2}  {:>6.2}  {:>6.2}",
            cpu.user, cpu.nice, cpu.system, cpu.iowait, cpu.steal, cpu.idle
        );
        let memory = &interval.memory;
        let used = memory.total_bytes.saturating_sub(memory.available_bytes);
        let _ = write!(
            text,
            "memory:   {} used of {} ({:.1} %), page cache {}",
            format_bytes_binary(used),
            format_bytes_binary(memory.total_bytes),
            used as f64 / memory.total_bytes.max(1) as f64 * 100.0,
            format_bytes_binary(memory.cached_bytes)
        );
        match interval.io_pressure_percent {
            Some((some, full)) => {
                let _ = writeln!(text, "; IO pressure some {some:.2} %, full {full:.2} %");
            }
            None => text.push_str("; IO pressure: not available (no PSI)\n"),
        }
        let _ = write!(text, "\n{:<NAME_WIDTH$}", "Device");
        for (heading, width) in COLUMNS {
            let _ = write!(text, "{heading:>width$}");
        }
        text.push('\n');
        for device in &interval.devices {
            let values = [
                device.reads_per_sec,
                device.writes_per_sec,
                device.read_kib_per_sec / 1024.0,
                device.write_kib_per_sec / 1024.0,
                device.read_await_ms,
                device.write_await_ms,
                device.queue_size,
                device.read_request_kib,
                device.write_request_kib,
                device.util_percent,
            ];
            let _ = write!(text, "{:<NAME_WIDTH$}", device.device);
            for (value, (_, width)) in values.iter().zip(COLUMNS) {
                let _ = write!(text, "{value:>width$.2}");
            }
            text.push('\n');
        }
        text
    }
}
