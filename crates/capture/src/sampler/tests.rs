//! The sampling loop on fixture /proc files and a fake clock: intervals, deadlines, stopping.

use super::*;
use std::path::Path;

const SECOND: u64 = 1_000_000_000;

/// A proc root in a temp folder whose diskstats shows `reads` reads of 8 KiB on loop3
/// (each 1 ms), and a cpu line that has ticked `reads` jiffies of user time.
fn write_proc(root: &Path, reads: u64, with_pressure: bool) {
    std::fs::write(
        root.join("diskstats"),
        format!(
            "   7 3 loop3 {reads} 0 {} {reads} 0 0 0 0 0 {reads} {reads} 0 0 0 0 0 0\n",
            reads * 16
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("stat"),
        format!(
            "cpu {reads} 0 0 {} 0 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\n",
            reads * 3
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("meminfo"),
        "MemTotal: 1000 kB\nMemAvailable: 250 kB\nCached: 100 kB\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("pressure")).unwrap();
    if with_pressure {
        std::fs::write(
            root.join("pressure/io"),
            format!(
                "some avg10=0 avg60=0 avg300=0 total={}\nfull avg10=0 avg60=0 avg300=0 total=0\n",
                reads * 100
            ),
        )
        .unwrap();
    } else {
        let _ = std::fs::remove_file(root.join("pressure/io"));
    }
}

fn sampler<C: Clock>(
    root: &Path,
    interval_ms: u64,
    duration_ms: Option<u64>,
    clock: C,
) -> Sampler<C> {
    Sampler::new(
        ProcFiles::new(root),
        vec!["loop3".to_string()],
        SamplerConfig {
            interval: Duration::from_millis(interval_ms),
            duration: duration_ms.map(Duration::from_millis),
        },
        clock,
    )
    .unwrap()
}

#[test]
fn each_interval_between_two_fixture_readings_reaches_the_callback() {
    let proc = tempfile::tempdir().unwrap();
    write_proc(proc.path(), 0, true);
    let mut sampler = sampler(
        proc.path(),
        1000,
        Some(3000),
        ManualClock::new(50 * SECOND, 1_700_000_000_000),
    );
    let stop = AtomicBool::new(false);
    let mut seen = Vec::new();
    let end = sampler
        .run(&stop, |interval| {
            seen.push(interval.clone());
            // Nothing happens in the first second, then 1000 reads a second.
            write_proc(proc.path(), 1000 * seen.len() as u64, true);
        })
        .unwrap();
    assert_eq!(
        end,
        SamplerEnd {
            intervals: 3,
            stopped: false
        }
    );
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].devices[0].reads_per_sec, 0.0);
    for (k, interval) in seen.iter().enumerate() {
        assert_eq!(interval.start_unix_ms, 1_700_000_000_000 + 1000 * k as u64);
        assert_eq!(interval.elapsed_secs, 1.0);
        assert_eq!(interval.memory.available_bytes, 250 * 1024);
    }
    let second = &seen[1].devices[0];
    assert_eq!(second.device, "loop3");
    assert_eq!(second.reads_per_sec, 1000.0);
    assert_eq!(second.read_request_kib, 8.0);
    assert_eq!(second.read_await_ms, 1.0);
    assert_eq!(seen[1].cpu.user, 25.0);
    let sample = seen[1].capture_sample();
    assert_eq!(sample.duration_ms, 1000.0);
    assert_eq!(sample.devices[0].reads_per_sec, 1000.0);
    assert_eq!(sample.system.memory_used_bytes, 750 * 1024);
    assert_eq!(sample.system.io_pressure_some_percent, Some(10.0));
}

/// A clock that always wakes `late_ns` after the deadline, like a busy machine.
struct LateClock(ManualClock, u64);

impl Clock for LateClock {
    fn now_ns(&self) -> u64 {
        self.0.now_ns()
    }
    fn unix_ms(&self) -> u64 {
        self.0.unix_ms()
    }
    fn sleep_until(&mut self, deadline_ns: u64, stop: &AtomicBool) {
        self.0.sleep_until(deadline_ns + self.1, stop);
    }
}

#[test]
fn late_wake_ups_do_not_make_the_samples_drift() {
    let proc = tempfile::tempdir().unwrap();
    write_proc(proc.path(), 0, false);
    let clock = LateClock(ManualClock::new(0, 0), 30_000_000);
    let mut sampler = sampler(proc.path(), 1000, Some(10_000), clock);
    let mut starts = Vec::new();
    sampler
        .run(&AtomicBool::new(false), |interval| {
            starts.push(interval.start_unix_ms);
            assert_eq!(interval.io_pressure_percent, None);
        })
        .unwrap();
    // Each sample ends 30 ms after its deadline, never 30 ms more per sample.
    assert_eq!(
        starts,
        [0, 1030, 2030, 3030, 4030, 5030, 6030, 7030, 8030, 9030]
    );
}

/// A clock that loses `lost_ns` once, at the second sleep (a suspended machine).
struct StallingClock(ManualClock, u32);

impl Clock for StallingClock {
    fn now_ns(&self) -> u64 {
        self.0.now_ns()
    }
    fn unix_ms(&self) -> u64 {
        self.0.unix_ms()
    }
    fn sleep_until(&mut self, deadline_ns: u64, stop: &AtomicBool) {
        self.1 += 1;
        let late = if self.1 == 2 { 2_500 * 1_000_000 } else { 0 };
        self.0.sleep_until(deadline_ns + late, stop);
    }
}

#[test]
fn missed_deadlines_are_skipped_and_the_long_interval_says_how_long_it_was() {
    let proc = tempfile::tempdir().unwrap();
    write_proc(proc.path(), 0, false);
    let mut sampler = sampler(
        proc.path(),
        1000,
        Some(6000),
        StallingClock(ManualClock::new(0, 0), 0),
    );
    let mut lengths = Vec::new();
    sampler
        .run(&AtomicBool::new(false), |i| lengths.push(i.elapsed_secs))
        .unwrap();
    assert_eq!(lengths, [1.0, 3.5, 0.5, 1.0]);
}

#[test]
fn the_stop_flag_ends_the_loop_after_the_last_whole_interval() {
    let proc = tempfile::tempdir().unwrap();
    write_proc(proc.path(), 0, true);
    let mut sampler = sampler(proc.path(), 1000, None, ManualClock::new(0, 0));
    let stop = AtomicBool::new(false);
    let mut count = 0;
    let end = sampler
        .run(&stop, |_| {
            count += 1;
            if count == 2 {
                stop.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert_eq!(
        end,
        SamplerEnd {
            intervals: 2,
            stopped: true
        }
    );
}

#[test]
fn a_zero_interval_is_refused() {
    let error = Sampler::new(
        ProcFiles::new("/proc"),
        Vec::new(),
        SamplerConfig {
            interval: Duration::ZERO,
            duration: None,
        },
        ManualClock::new(0, 0),
    )
    .err()
    .unwrap();
    assert!(matches!(error, CaptureError::ZeroInterval));
}

#[test]
fn the_boot_clock_is_the_clock_proc_uptime_shows() {
    let uptime = ProcFiles::new("/proc").uptime_ns().unwrap();
    let boot = BootClock.now_ns();
    // /proc/uptime truncates to 1/100 s; allow for the time between the two reads.
    assert!(
        boot >= uptime && boot - uptime < SECOND,
        "{boot} vs {uptime}"
    );
}
