//! The capture's one-line summary (the history listing's headline and the closing note):
//! per device the time-weighted means of r/s, w/s, MiB/s and %util over the whole capture.
//! Running sums, one set per device, so it holds the same however long the capture runs.

use diskmeter_capture::sampler::Interval;

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
pub(crate) struct Summary {
    devices: Vec<(String, Sums)>,
    intervals: u64,
    seconds: f64,
}

impl Summary {
    /// Means for these devices.
    pub(crate) fn new(devices: &[String]) -> Summary {
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
    pub(crate) fn add(&mut self, interval: &Interval) {
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
    pub(crate) fn headline(&self) -> String {
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
