//! A capture's one-line summary (the history listing's headline and the closing note):
//! per device the time-weighted means of r/s, w/s, MiB/s and %util over the whole capture.
//! Running sums, one set per device, so it holds the same however long the capture runs.

use crate::sampler::Interval;

/// Sums of rate x seconds per device.
#[derive(Debug, Clone, Default)]
struct Sums {
    reads: f64,
    writes: f64,
    kib: f64,
    util: f64,
    seconds: f64,
}

/// The running means.
pub struct Summary {
    devices: Vec<(String, Sums)>,
    intervals: u64,
    seconds: f64,
}

impl Summary {
    /// Means for these devices.
    pub fn new(devices: &[String]) -> Summary {
        Summary {
            devices: devices
                .iter()
                .map(|d| (d.clone(), Sums::default()))
                .collect(),
            intervals: 0,
            seconds: 0.0,
        }
    }

    /// Adds one interval.
    pub fn add(&mut self, interval: &Interval) {
        let secs = interval.elapsed_secs;
        self.intervals += 1;
        self.seconds += secs;
        for device in &interval.devices {
            if let Some((_, sums)) = self.devices.iter_mut().find(|(n, _)| n == &device.device) {
                sums.reads += device.reads_per_sec * secs;
                sums.writes += device.writes_per_sec * secs;
                sums.kib += (device.read_kib_per_sec + device.write_kib_per_sec) * secs;
                sums.util += device.util_percent * secs;
                sums.seconds += secs;
            }
        }
    }

    /// "12 intervals over 12.0 s; loop3: 1400.0 r/s, 600.0 w/s, 15.62 MiB/s, 35.0 %util".
    pub fn headline(&self) -> String {
        let mut parts = vec![format!(
            "capture: {} interval{} over {:.1} s",
            self.intervals,
            if self.intervals == 1 { "" } else { "s" },
            self.seconds
        )];
        for (name, sums) in &self.devices {
            if sums.seconds <= 0.0 {
                continue;
            }
            let mean = |total: f64| total / sums.seconds;
            parts.push(format!(
                "{name}: {:.1} r/s, {:.1} w/s, {:.2} MiB/s, {:.1} %util",
                mean(sums.reads),
                mean(sums.writes),
                mean(sums.kib) / 1024.0,
                mean(sums.util)
            ));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iostat::{AvgCpu, IostatDevice};
    use crate::procfs::MemInfo;

    #[test]
    fn the_summary_is_the_time_weighted_mean_of_each_device() {
        let interval = Interval {
            start_unix_ms: 1_795_000_000_000,
            elapsed_secs: 2.0,
            devices: vec![IostatDevice {
                device: "loop3".into(),
                reads_per_sec: 1400.0,
                writes_per_sec: 600.0,
                read_kib_per_sec: 11_200.0,
                write_kib_per_sec: 9_600.0,
                util_percent: 35.126,
                ..IostatDevice::default()
            }],
            cpu: AvgCpu::default(),
            memory: MemInfo::default(),
            io_pressure_percent: None,
        };
        let mut summary = Summary::new(&["loop3".to_string()]);
        summary.add(&interval);
        let mut idle = interval.clone();
        idle.elapsed_secs = 6.0;
        idle.devices[0] = IostatDevice {
            device: "loop3".into(),
            ..IostatDevice::default()
        };
        summary.add(&idle);
        assert_eq!(
            summary.headline(),
            "capture: 2 intervals over 8.0 s; loop3: 350.0 r/s, 150.0 w/s, 5.08 MiB/s, 8.8 %util"
        );
    }
}
