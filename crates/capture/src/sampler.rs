//! The sampling loop: read the counters, wait for the next interval's deadline, read them
//! again, hand the interval to a callback, repeat, until the duration is over or the stop
//! flag is set.
//!
//! Deadlines are `start + k x interval` on the clock, not "interval after the last
//! sample", so samples do not drift however long the capture runs; a loop that falls behind
//! (a stalled disk under the history, a suspended machine) skips the deadlines it missed and
//! its next interval is simply longer, as measured. The loop keeps only the previous
//! reading: nothing grows with the number of intervals, so a 24-hour capture at 1 s holds
//! what a 10-second one does.
//!
//! Time comes from a [`Clock`]. The live one ([`BootClock`]) reads CLOCK_BOOTTIME, the clock
//! /proc/uptime prints (fs/proc/uptime.c) and so the one iostat's interval comes from, at
//! nanosecond rather than 1/100 s resolution; [`ManualClock`] is a fake that jumps to each
//! deadline, for tests.

use crate::iostat::{avg_cpu, device_columns, io_pressure_percent, system_interval};
use crate::iostat::{AvgCpu, IostatDevice};
use crate::model::CaptureSample;
use crate::procfs::{CpuTimes, DiskCounters, IoPressure, MemInfo, ProcFiles};
use crate::CaptureError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Where time comes from.
pub trait Clock {
    /// Nanoseconds since boot (CLOCK_BOOTTIME, what /proc/uptime shows).
    fn now_ns(&self) -> u64;
    /// Wall-clock time, ms since the Unix epoch, for the samples' timestamps.
    fn unix_ms(&self) -> u64;
    /// Returns at `deadline_ns` (on [`Clock::now_ns`]'s scale) or soon after `stop` is set.
    fn sleep_until(&mut self, deadline_ns: u64, stop: &AtomicBool);
}

/// The system's clocks: CLOCK_BOOTTIME for intervals, the real-time clock for timestamps.
#[derive(Debug, Default, Clone, Copy)]
pub struct BootClock;

/// How long a sleep goes without looking at the stop flag: Ctrl-C ends a capture within it.
const STOP_CHECK: Duration = Duration::from_millis(100);

impl Clock for BootClock {
    fn now_ns(&self) -> u64 {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    }

    fn unix_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }

    fn sleep_until(&mut self, deadline_ns: u64, stop: &AtomicBool) {
        loop {
            let now = self.now_ns();
            if now >= deadline_ns || stop.load(Ordering::Relaxed) {
                return;
            }
            let left = Duration::from_nanos(deadline_ns - now);
            std::thread::sleep(left.min(STOP_CHECK));
        }
    }
}

/// A fake clock for tests: it starts at `start_ns`, and each sleep jumps to its deadline.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now_ns: u64,
    unix_start_ms: u64,
    start_ns: u64,
}

impl ManualClock {
    /// A clock reading `start_ns` since boot and `unix_start_ms` on the wall.
    pub fn new(start_ns: u64, unix_start_ms: u64) -> ManualClock {
        ManualClock {
            now_ns: start_ns,
            unix_start_ms,
            start_ns,
        }
    }
}

impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    fn unix_ms(&self) -> u64 {
        self.unix_start_ms + (self.now_ns - self.start_ns) / 1_000_000
    }

    fn sleep_until(&mut self, deadline_ns: u64, _stop: &AtomicBool) {
        self.now_ns = self.now_ns.max(deadline_ns);
    }
}

/// How long to sample and how often.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerConfig {
    /// Length of one interval.
    pub interval: Duration,
    /// Stop after this long; `None` runs until the stop flag is set.
    pub duration: Option<Duration>,
}

/// One measured interval: iostat's columns per device and the system's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// Start, ms since the Unix epoch.
    pub start_unix_ms: u64,
    /// Length as measured, seconds (the divisor of every rate).
    pub elapsed_secs: f64,
    /// The watched devices present at both ends, in the capture's order.
    pub devices: Vec<IostatDevice>,
    /// iostat's avg-cpu shares.
    pub cpu: AvgCpu,
    /// /proc/meminfo at the interval's end.
    pub memory: MemInfo,
    /// IO pressure (some, full), percent; `None` without PSI.
    pub io_pressure_percent: Option<(f64, f64)>,
}

impl Interval {
    /// The record the history keeps of this interval.
    pub fn capture_sample(&self) -> CaptureSample {
        CaptureSample {
            start_unix_ms: self.start_unix_ms,
            duration_ms: self.elapsed_secs * 1000.0,
            devices: self
                .devices
                .iter()
                .map(IostatDevice::to_device_interval)
                .collect(),
            system: system_interval(&self.cpu, &self.memory, self.io_pressure_percent),
        }
    }
}

/// How a sampling loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerEnd {
    /// Intervals handed to the callback.
    pub intervals: u64,
    /// Ended by the stop flag (before the duration, if there was one).
    pub stopped: bool,
}

/// One reading of every counter the capture uses.
struct Reading {
    time_ns: u64,
    unix_ms: u64,
    disks: Vec<Option<DiskCounters>>,
    cpu: CpuTimes,
    memory: MemInfo,
    pressure: Option<IoPressure>,
}

/// Samples a fixed list of devices from one proc root.
pub struct Sampler<C: Clock> {
    files: ProcFiles,
    devices: Vec<String>,
    config: SamplerConfig,
    clock: C,
}

impl<C: Clock> Sampler<C> {
    /// A sampler of `devices` (kernel names) under the proc root `files`.
    pub fn new(
        files: ProcFiles,
        devices: Vec<String>,
        config: SamplerConfig,
        clock: C,
    ) -> Result<Sampler<C>, CaptureError> {
        if config.interval.is_zero() {
            return Err(CaptureError::ZeroInterval);
        }
        Ok(Sampler {
            files,
            devices,
            config,
            clock,
        })
    }

    /// Samples until the duration is over or `stop` is set, handing each whole interval to
    /// `each` as it is measured. An interval cut short by `stop` is not handed on (iostat
    /// prints none either): its rates would rest on a fraction of the asked interval.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        mut each: impl FnMut(&Interval),
    ) -> Result<SamplerEnd, CaptureError> {
        let interval_ns = self.config.interval.as_nanos() as u64;
        let mut previous = self.read()?;
        let start_ns = previous.time_ns;
        let end_ns = self
            .config
            .duration
            .map(|d| start_ns.saturating_add(d.as_nanos() as u64));
        let mut intervals = 0u64;
        let mut k = 1u64;
        loop {
            let mut deadline = start_ns.saturating_add(k.saturating_mul(interval_ns));
            if let Some(end) = end_ns {
                deadline = deadline.min(end);
            }
            self.clock.sleep_until(deadline, stop);
            if stop.load(Ordering::Relaxed) {
                return Ok(SamplerEnd {
                    intervals,
                    stopped: true,
                });
            }
            let current = self.read()?;
            each(&self.interval(&previous, &current));
            intervals += 1;
            previous = current;
            if end_ns.is_some_and(|end| deadline >= end) {
                return Ok(SamplerEnd {
                    intervals,
                    stopped: false,
                });
            }
            // The next deadline still ahead: missed ones are skipped, not made up.
            let since_start = previous.time_ns.saturating_sub(start_ns);
            k = (since_start / interval_ns + 1).max(k + 1);
        }
    }

    fn read(&self) -> Result<Reading, CaptureError> {
        // The order of iostat's loop: the time, /proc/stat, then the disks.
        let time_ns = self.clock.now_ns();
        let unix_ms = self.clock.unix_ms();
        let cpu = self.files.cpu()?;
        let lines = self.files.diskstats()?;
        let disks = self
            .devices
            .iter()
            .map(|name| {
                lines
                    .iter()
                    .find(|l| &l.name == name)
                    .map(|line| line.counters)
            })
            .collect();
        Ok(Reading {
            time_ns,
            unix_ms,
            disks,
            cpu,
            memory: self.files.memory()?,
            pressure: self.files.io_pressure()?,
        })
    }

    fn interval(&self, previous: &Reading, current: &Reading) -> Interval {
        let elapsed_secs = current.time_ns.saturating_sub(previous.time_ns) as f64 / 1e9;
        let devices = self
            .devices
            .iter()
            .zip(previous.disks.iter().zip(&current.disks))
            .filter_map(|(name, pair)| match pair {
                (Some(before), Some(after)) => {
                    Some(device_columns(name, before, after, elapsed_secs))
                }
                // A device that vanished (a loop detached) is left out while it is gone.
                _ => None,
            })
            .collect();
        let io_pressure_percent = match (&previous.pressure, &current.pressure) {
            (Some(before), Some(after)) => Some(io_pressure_percent(before, after, elapsed_secs)),
            _ => None,
        };
        Interval {
            start_unix_ms: previous.unix_ms,
            elapsed_secs,
            devices,
            cpu: avg_cpu(&previous.cpu, &current.cpu),
            memory: current.memory,
            io_pressure_percent,
        }
    }
}

#[cfg(test)]
mod tests;
