//! The whole-system files a capture reads beside /proc/diskstats: the `cpu` line of
//! /proc/stat (jiffies per mode, as sysstat's `read_stat_cpu` reads it), /proc/meminfo,
//! /proc/pressure/io (PSI, Linux 4.20 and later, when the kernel has it enabled) and
//! /proc/uptime (the clock iostat takes its interval from, in 1/100 s).

use crate::CaptureError;
use std::path::Path;

/// The `cpu` line of /proc/stat: jiffies (USER_HZ ticks) all CPUs spent in each mode since
/// boot. Fields a kernel does not print are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// User mode, guest time included.
    pub user: u64,
    /// User mode at low priority (nice), guest_nice included.
    pub nice: u64,
    /// Kernel mode.
    pub system: u64,
    /// Idle.
    pub idle: u64,
    /// Idle with IO outstanding.
    pub iowait: u64,
    /// Servicing hardware interrupts.
    pub irq: u64,
    /// Servicing softirqs.
    pub softirq: u64,
    /// Stolen by the hypervisor.
    pub steal: u64,
}

impl CpuTimes {
    /// The jiffies of all modes (guest is inside user and guest_nice inside nice, so they
    /// are not added again: sysstat's `tot_jiffies`).
    pub fn total(&self) -> u64 {
        self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
    }
}

/// Reads the `cpu` (all CPUs) line of /proc/stat's text.
pub fn parse_stat_cpu(text: &str, path: &Path) -> Result<CpuTimes, CaptureError> {
    let (index, line) = text
        .lines()
        .enumerate()
        .find(|(_, line)| line.starts_with("cpu "))
        .ok_or_else(|| CaptureError::Format {
            path: path.to_path_buf(),
            line: 0,
            reason: "no 'cpu ' line".to_string(),
        })?;
    let mut values = [0u64; 8];
    for (at, field) in line.split_whitespace().skip(1).take(8).enumerate() {
        values[at] = field.parse().map_err(|_| CaptureError::Format {
            path: path.to_path_buf(),
            line: index + 1,
            reason: format!("cpu field {} ('{field}') is not a whole number", at + 1),
        })?;
    }
    let [user, nice, system, idle, iowait, irq, softirq, steal] = values;
    Ok(CpuTimes {
        user,
        nice,
        system,
        idle,
        iowait,
        irq,
        softirq,
        steal,
    })
}

/// The figures of /proc/meminfo a capture keeps, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemInfo {
    /// MemTotal.
    pub total_bytes: u64,
    /// MemAvailable; on kernels before 3.14, which lack it, MemFree + Buffers + Cached.
    pub available_bytes: u64,
    /// Cached (the page cache).
    pub cached_bytes: u64,
}

/// Reads /proc/meminfo's text (values are in kB = 1024 bytes).
pub fn parse_meminfo(text: &str, path: &Path) -> Result<MemInfo, CaptureError> {
    let mut total = None;
    let mut available = None;
    let (mut free, mut buffers, mut cached) = (0, 0, 0);
    for (index, line) in text.lines().enumerate() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let slot = match key {
            "MemTotal" | "MemAvailable" | "MemFree" | "Buffers" | "Cached" => key,
            _ => continue,
        };
        let kib: u64 = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| CaptureError::Format {
                path: path.to_path_buf(),
                line: index + 1,
                reason: format!("{slot}: '{}' is not a number of kB", rest.trim()),
            })?;
        let bytes = kib * 1024;
        match slot {
            "MemTotal" => total = Some(bytes),
            "MemAvailable" => available = Some(bytes),
            "MemFree" => free = bytes,
            "Buffers" => buffers = bytes,
            _ => cached = bytes,
        }
    }
    let total_bytes = total.ok_or_else(|| CaptureError::Format {
        path: path.to_path_buf(),
        line: 0,
        reason: "no MemTotal line".to_string(),
    })?;
    Ok(MemInfo {
        total_bytes,
        available_bytes: available.unwrap_or(free + buffers + cached),
        cached_bytes: cached,
    })
}

/// `MemAvailable` alone, in bytes (the kernel's "kB" is KiB), for the runner's memory guard:
/// `None` where the kernel does not print it (before 3.14) or prints no number of kB, and
/// then the guard refuses nothing rather than guess from MemFree.
pub fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// The cumulative stall times of /proc/pressure/io, microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoPressure {
    /// `some total=`: time at least one task was stalled on IO.
    pub some_us: u64,
    /// `full total=`: time all non-idle tasks were stalled on IO (0 where the kernel prints
    /// no `full` line).
    pub full_us: u64,
}

/// Reads /proc/pressure/io's text.
pub fn parse_pressure(text: &str, path: &Path) -> Result<IoPressure, CaptureError> {
    let mut pressure = IoPressure::default();
    let mut seen_some = false;
    for (index, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let kind = words.next();
        let total = words
            .find_map(|w| w.strip_prefix("total="))
            .map(|n| n.parse::<u64>());
        let total = match total {
            Some(Ok(n)) => n,
            _ => {
                return Err(CaptureError::Format {
                    path: path.to_path_buf(),
                    line: index + 1,
                    reason: "no whole-number 'total=' field".to_string(),
                })
            }
        };
        match kind {
            Some("some") => {
                pressure.some_us = total;
                seen_some = true;
            }
            Some("full") => pressure.full_us = total,
            _ => {}
        }
    }
    if !seen_some {
        return Err(CaptureError::Format {
            path: path.to_path_buf(),
            line: 0,
            reason: "no 'some' line".to_string(),
        });
    }
    Ok(pressure)
}

/// Reads /proc/uptime's first figure ("9196.74"): time since boot in nanoseconds, at the
/// 1/100 s resolution the kernel prints (sysstat's `read_uptime` reads it the same way).
pub fn parse_uptime(text: &str, path: &Path) -> Result<u64, CaptureError> {
    let error = || CaptureError::Format {
        path: path.to_path_buf(),
        line: 1,
        reason: format!("'{}' is not seconds.hundredths", text.trim()),
    };
    let first = text.split_whitespace().next().ok_or_else(error)?;
    let (seconds, hundredths) = first.split_once('.').ok_or_else(error)?;
    let seconds: u64 = seconds.parse().map_err(|_| error())?;
    if hundredths.len() != 2 {
        return Err(error());
    }
    let hundredths: u64 = hundredths.parse().map_err(|_| error())?;
    Ok(seconds * 1_000_000_000 + hundredths * 10_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  532001 1 172607 771399 321451 0 10158 552 0 0\n\
                        cpu0 266000 0 86000 385000 160000 0 5000 276 0 0\n\
                        intr 123\n";

    #[test]
    fn the_cpu_line_gives_jiffies_per_mode_and_their_total() {
        let cpu = parse_stat_cpu(STAT, Path::new("/proc/stat")).unwrap();
        assert_eq!((cpu.user, cpu.nice, cpu.system), (532_001, 1, 172_607));
        assert_eq!((cpu.idle, cpu.iowait), (771_399, 321_451));
        assert_eq!((cpu.irq, cpu.softirq, cpu.steal), (0, 10_158, 552));
        assert_eq!(
            cpu.total(),
            532_001 + 1 + 172_607 + 771_399 + 321_451 + 10_158 + 552
        );
    }

    #[test]
    fn an_old_kernel_cpu_line_with_four_modes_reads_the_rest_as_zero() {
        let cpu = parse_stat_cpu("cpu 10 20 30 40\n", Path::new("/proc/stat")).unwrap();
        assert_eq!((cpu.idle, cpu.iowait, cpu.steal), (40, 0, 0));
    }

    #[test]
    fn a_stat_without_a_cpu_line_is_an_error() {
        let error = parse_stat_cpu("intr 1\n", Path::new("/proc/stat")).unwrap_err();
        assert!(error.to_string().contains("no 'cpu ' line"), "{error}");
    }

    #[test]
    fn meminfo_gives_total_available_and_cache_in_bytes() {
        let text = "MemTotal:       24576000 kB\nMemFree:         1000000 kB\n\
                    MemAvailable:   20000000 kB\nBuffers:          100000 kB\n\
                    Cached:          9000000 kB\nSwapCached:            0 kB\n";
        let mem = parse_meminfo(text, Path::new("/proc/meminfo")).unwrap();
        assert_eq!(mem.total_bytes, 24_576_000 * 1024);
        assert_eq!(mem.available_bytes, 20_000_000 * 1024);
        assert_eq!(mem.cached_bytes, 9_000_000 * 1024);
    }

    #[test]
    fn before_memavailable_free_buffers_and_cache_count_as_available() {
        let text = "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 20 kB\nCached: 300 kB\n";
        let mem = parse_meminfo(text, Path::new("/proc/meminfo")).unwrap();
        assert_eq!(mem.available_bytes, 420 * 1024);
    }

    #[test]
    fn pressure_gives_the_some_and_full_totals() {
        let text = "some avg10=0.25 avg60=2.07 avg300=14.37 total=3077091631\n\
                    full avg10=0.23 avg60=1.79 avg300=13.16 total=2557880886\n";
        let psi = parse_pressure(text, Path::new("/proc/pressure/io")).unwrap();
        assert_eq!(psi.some_us, 3_077_091_631);
        assert_eq!(psi.full_us, 2_557_880_886);
    }

    #[test]
    fn uptime_is_read_in_hundredths_of_a_second() {
        let ns = parse_uptime("9196.74 7713.99\n", Path::new("/proc/uptime")).unwrap();
        assert_eq!(ns, 9_196_740_000_000);
        assert!(parse_uptime("9196 1\n", Path::new("/proc/uptime")).is_err());
        assert!(parse_uptime("9196.7 1\n", Path::new("/proc/uptime")).is_err());
    }
}
