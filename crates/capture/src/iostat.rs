//! iostat's arithmetic: two readings of the kernel's counters and the time between them
//! become the columns of `iostat -x` (sysstat 12.x, `write_ext_stat` in iostat.c and
//! `compute_ext_disk_stats` in rd_stats.c) and its `avg-cpu` line (`write_json_cpu_stat`).
//!
//! Rates are differences divided by the interval. iostat takes the interval from
//! /proc/uptime in 1/100 s; the caller passes the same clock's reading (CLOCK_BOOTTIME, see
//! [`crate::sampler`]), so on the same seconds the figures agree with iostat's to within its
//! own 1/100 s rounding. Times (`*_await`, `aqu-sz`, `util`) come from the kernel's
//! millisecond counters, so they need no further scaling. Differences are taken in the
//! counters' own widths (wrapping), so a counter that wraps still gives the right delta, as
//! in sysstat.

use crate::model::{DeviceInterval, SystemInterval};
use crate::procfs::{CpuTimes, DiskCounters, IoPressure, MemInfo};

/// Every column `iostat -x` prints for one device over one interval (sysstat 12.6: with
/// discards and flushes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IostatDevice {
    /// Kernel name.
    pub device: String,
    /// `r/s`: reads completed per second.
    pub reads_per_sec: f64,
    /// `w/s`.
    pub writes_per_sec: f64,
    /// `d/s`: discards.
    pub discards_per_sec: f64,
    /// `f/s`: flushes.
    pub flushes_per_sec: f64,
    /// `rkB/s` (kB = 1024 bytes, as iostat).
    pub read_kib_per_sec: f64,
    /// `wkB/s`.
    pub write_kib_per_sec: f64,
    /// `dkB/s`.
    pub discard_kib_per_sec: f64,
    /// `rrqm/s`: reads merged per second.
    pub read_merges_per_sec: f64,
    /// `wrqm/s`.
    pub write_merges_per_sec: f64,
    /// `drqm/s`.
    pub discard_merges_per_sec: f64,
    /// `%rrqm`: merged reads as a share of all reads issued, percent.
    pub read_merges_percent: f64,
    /// `%wrqm`.
    pub write_merges_percent: f64,
    /// `%drqm`.
    pub discard_merges_percent: f64,
    /// `r_await`: mean ms per read, queueing included.
    pub read_await_ms: f64,
    /// `w_await`.
    pub write_await_ms: f64,
    /// `d_await`.
    pub discard_await_ms: f64,
    /// `f_await`.
    pub flush_await_ms: f64,
    /// `rareq-sz`: mean read size, KiB.
    pub read_request_kib: f64,
    /// `wareq-sz`.
    pub write_request_kib: f64,
    /// `dareq-sz`.
    pub discard_request_kib: f64,
    /// `aqu-sz`: mean requests in flight.
    pub queue_size: f64,
    /// `%util`: share of the interval with a request in flight, percent.
    pub util_percent: f64,
}

impl IostatDevice {
    /// The columns the history keeps ([`DeviceInterval`]).
    pub fn to_device_interval(&self) -> DeviceInterval {
        DeviceInterval {
            device: self.device.clone(),
            reads_per_sec: self.reads_per_sec,
            writes_per_sec: self.writes_per_sec,
            discards_per_sec: self.discards_per_sec,
            flushes_per_sec: self.flushes_per_sec,
            flush_await_ms: self.flush_await_ms,
            read_kib_per_sec: self.read_kib_per_sec,
            write_kib_per_sec: self.write_kib_per_sec,
            read_merges_per_sec: self.read_merges_per_sec,
            write_merges_per_sec: self.write_merges_per_sec,
            read_await_ms: self.read_await_ms,
            write_await_ms: self.write_await_ms,
            queue_size: self.queue_size,
            read_request_kib: self.read_request_kib,
            write_request_kib: self.write_request_kib,
            util_percent: self.util_percent,
        }
    }
}

/// iostat's extended columns for `device` between the readings `previous` and `current`,
/// `elapsed_secs` apart.
pub fn device_columns(
    device: &str,
    previous: &DiskCounters,
    current: &DiskCounters,
    elapsed_secs: f64,
) -> IostatDevice {
    // A device removed and added again starts its counters from 0: iostat then measures
    // from 0 rather than across the reset (its "removed then inserted again" test).
    let total = |c: &DiskCounters| c.read_ios + c.write_ios + c.discard_ios + c.flush_ios;
    let reset = total(current) < total(previous)
        && (previous.read_sectors == 0 || current.read_sectors < previous.read_sectors)
        && (previous.write_sectors == 0 || current.write_sectors < previous.write_sectors)
        && (previous.discard_sectors == 0 || current.discard_sectors < previous.discard_sectors);
    let zero = DiskCounters::default();
    let p = if reset { &zero } else { previous };
    let c = current;
    let secs = if elapsed_secs > 0.0 {
        elapsed_secs
    } else {
        // iostat's "paranoia check": an interval of 0 counts as one unit.
        0.01
    };
    let count = |now: u64, then: u64| now.wrapping_sub(then) as f64;
    let ms = |now: u32, then: u32| now.wrapping_sub(then) as f64;
    let per_sec = |delta: f64| delta / secs;
    // Mean per request, 0 when there was none (iostat prints 0.00).
    let mean = |total: f64, requests: f64| {
        if requests > 0.0 {
            total / requests
        } else {
            0.0
        }
    };
    let merged_share = |merges: f64, ios: f64| {
        if merges + ios > 0.0 {
            merges / (merges + ios) * 100.0
        } else {
            0.0
        }
    };

    let (reads, writes) = (
        count(c.read_ios, p.read_ios),
        count(c.write_ios, p.write_ios),
    );
    let discards = count(c.discard_ios, p.discard_ios);
    let flushes = count(c.flush_ios, p.flush_ios);
    let read_sectors = count(c.read_sectors, p.read_sectors);
    let write_sectors = count(c.write_sectors, p.write_sectors);
    let discard_sectors = count(c.discard_sectors, p.discard_sectors);
    let read_merges = count(c.read_merges, p.read_merges);
    let write_merges = count(c.write_merges, p.write_merges);
    let discard_merges = count(c.discard_merges, p.discard_merges);
    // Sectors are 512 bytes: two to the KiB.
    IostatDevice {
        device: device.to_string(),
        reads_per_sec: per_sec(reads),
        writes_per_sec: per_sec(writes),
        discards_per_sec: per_sec(discards),
        flushes_per_sec: per_sec(flushes),
        read_kib_per_sec: per_sec(read_sectors) / 2.0,
        write_kib_per_sec: per_sec(write_sectors) / 2.0,
        discard_kib_per_sec: per_sec(discard_sectors) / 2.0,
        read_merges_per_sec: per_sec(read_merges),
        write_merges_per_sec: per_sec(write_merges),
        discard_merges_per_sec: per_sec(discard_merges),
        read_merges_percent: merged_share(read_merges, reads),
        write_merges_percent: merged_share(write_merges, writes),
        discard_merges_percent: merged_share(discard_merges, discards),
        read_await_ms: mean(ms(c.read_ticks_ms, p.read_ticks_ms), reads),
        write_await_ms: mean(ms(c.write_ticks_ms, p.write_ticks_ms), writes),
        discard_await_ms: mean(ms(c.discard_ticks_ms, p.discard_ticks_ms), discards),
        flush_await_ms: mean(ms(c.flush_ticks_ms, p.flush_ticks_ms), flushes),
        read_request_kib: mean(read_sectors, reads) / 2.0,
        write_request_kib: mean(write_sectors, writes) / 2.0,
        discard_request_kib: mean(discard_sectors, discards) / 2.0,
        // time_in_queue is in-flight requests x ms: per second of interval and per 1000 ms.
        queue_size: per_sec(ms(c.queue_ms, p.queue_ms)) / 1000.0,
        // io_ticks ms per second, as a percent: / 1000 * 100.
        util_percent: per_sec(ms(c.busy_ms, p.busy_ms)) / 10.0,
    }
}

/// iostat's `avg-cpu` line: the share of all CPUs' jiffies spent in each mode, percent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AvgCpu {
    /// `%user` (guest time included, nice excluded).
    pub user: f64,
    /// `%nice`.
    pub nice: f64,
    /// `%system`: kernel, hard and soft interrupts.
    pub system: f64,
    /// `%iowait`.
    pub iowait: f64,
    /// `%steal`.
    pub steal: f64,
    /// `%idle`.
    pub idle: f64,
}

impl AvgCpu {
    /// Everything but idle and iowait, percent.
    pub fn busy(&self) -> f64 {
        self.user + self.nice + self.system + self.steal
    }
}

/// The `avg-cpu` shares between two readings of /proc/stat's `cpu` line.
pub fn avg_cpu(previous: &CpuTimes, current: &CpuTimes) -> AvgCpu {
    let total = current.total().saturating_sub(previous.total());
    // sysstat's ll_sp_value: a counter that went backwards counts as 0; an interval of no
    // jiffies counts as 1 (its get_interval).
    let share = |then: u64, now: u64| {
        if now < then {
            0.0
        } else {
            (now - then) as f64 / total.max(1) as f64 * 100.0
        }
    };
    let p = previous;
    let c = current;
    AvgCpu {
        user: share(p.user, c.user),
        nice: share(p.nice, c.nice),
        system: share(p.system + p.irq + p.softirq, c.system + c.irq + c.softirq),
        iowait: share(p.iowait, c.iowait),
        steal: share(p.steal, c.steal),
        idle: share(p.idle, c.idle),
    }
}

/// The stall shares of /proc/pressure/io over an interval of `elapsed_secs`, percent:
/// (some, full).
pub fn io_pressure_percent(
    previous: &IoPressure,
    current: &IoPressure,
    elapsed_secs: f64,
) -> (f64, f64) {
    let share = |then: u64, now: u64| {
        now.saturating_sub(then) as f64 / 1e6 / elapsed_secs.max(f64::MIN_POSITIVE) * 100.0
    };
    (
        share(previous.some_us, current.some_us),
        share(previous.full_us, current.full_us),
    )
}

/// The system's figures for the history: CPU shares, memory at the interval's end and IO
/// pressure (when the kernel has PSI at both ends).
pub fn system_interval(
    cpu: &AvgCpu,
    memory: &MemInfo,
    pressure: Option<(f64, f64)>,
) -> SystemInterval {
    SystemInterval {
        cpu_busy_percent: cpu.busy(),
        cpu_user_percent: cpu.user + cpu.nice,
        cpu_system_percent: cpu.system,
        cpu_iowait_percent: cpu.iowait,
        memory_used_bytes: memory.total_bytes.saturating_sub(memory.available_bytes),
        memory_total_bytes: memory.total_bytes,
        memory_cached_bytes: memory.cached_bytes,
        io_pressure_some_percent: pressure.map(|(some, _)| some),
        io_pressure_full_percent: pressure.map(|(_, full)| full),
    }
}

#[cfg(test)]
mod tests;
