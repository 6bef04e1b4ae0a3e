//! iostat's columns computed by hand from literal /proc texts, column by column.

use super::*;
use crate::procfs::{parse_diskstats, parse_stat_cpu};
use std::path::Path;

fn counters(line: &str) -> DiskCounters {
    parse_diskstats(line, Path::new("/proc/diskstats")).unwrap()[0].counters
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

#[test]
fn two_readings_two_seconds_apart_give_iostat_x_columns() {
    let before = counters("7 3 loop3 1000 10 16000 2000 500 50 8000 1500 0 1800 3600 0 0 0 0 0 0");
    let after =
        counters("7 3 loop3 3000 30 48000 6000 1100 150 27200 4500 2 3800 11600 4 2 64 8 10 20");
    let x = device_columns("loop3", &before, &after, 2.0);
    let expected = [
        ("r/s", x.reads_per_sec, 1000.0),
        ("w/s", x.writes_per_sec, 300.0),
        ("d/s", x.discards_per_sec, 2.0),
        ("f/s", x.flushes_per_sec, 5.0),
        ("rkB/s", x.read_kib_per_sec, 8000.0),
        ("wkB/s", x.write_kib_per_sec, 4800.0),
        ("dkB/s", x.discard_kib_per_sec, 16.0),
        ("rrqm/s", x.read_merges_per_sec, 10.0),
        ("wrqm/s", x.write_merges_per_sec, 50.0),
        ("drqm/s", x.discard_merges_per_sec, 1.0),
        ("%rrqm", x.read_merges_percent, 20.0 / 2020.0 * 100.0),
        ("%wrqm", x.write_merges_percent, 100.0 / 700.0 * 100.0),
        ("%drqm", x.discard_merges_percent, 2.0 / 6.0 * 100.0),
        ("r_await", x.read_await_ms, 2.0),
        ("w_await", x.write_await_ms, 5.0),
        ("d_await", x.discard_await_ms, 2.0),
        ("f_await", x.flush_await_ms, 2.0),
        ("rareq-sz", x.read_request_kib, 8.0),
        ("wareq-sz", x.write_request_kib, 16.0),
        ("dareq-sz", x.discard_request_kib, 8.0),
        ("aqu-sz", x.queue_size, 4.0),
        ("%util", x.util_percent, 100.0),
    ];
    for (column, actual, wanted) in expected {
        assert!(close(actual, wanted), "{column}: {actual} != {wanted}");
    }
    let kept = x.to_device_interval();
    assert_eq!(kept.device, "loop3");
    assert_eq!(kept.read_await_ms, 2.0);
    assert_eq!(kept.util_percent, 100.0);
}

#[test]
fn an_idle_interval_gives_zeros_not_nan() {
    let same = counters("8 0 sda 5 0 40 3 0 0 0 0 0 3 3");
    let x = device_columns("sda", &same, &same, 1.0);
    for value in [
        x.read_await_ms,
        x.read_request_kib,
        x.read_merges_percent,
        x.queue_size,
        x.util_percent,
    ] {
        assert_eq!(value, 0.0);
    }
}

#[test]
fn millisecond_counters_that_wrap_at_2_to_the_32_still_give_the_interval_s_time() {
    let before = counters("8 0 sda 100 0 800 4294967000 0 0 0 0 0 4294966000 4294967200");
    let after = counters("8 0 sda 200 0 1600 200 0 0 0 0 0 704 1800");
    let x = device_columns("sda", &before, &after, 1.0);
    assert!(close(x.read_await_ms, 496.0 / 100.0), "{}", x.read_await_ms);
    assert!(close(x.util_percent, 2000.0 / 10.0), "{}", x.util_percent);
    assert!(close(x.queue_size, 1896.0 / 1000.0), "{}", x.queue_size);
}

#[test]
fn a_device_whose_counters_restarted_is_measured_from_zero_as_iostat_does() {
    let before = counters("7 3 loop3 9000 0 72000 900 0 0 0 0 0 900 900");
    let after = counters("7 3 loop3 100 0 800 10 0 0 0 0 0 10 10");
    let x = device_columns("loop3", &before, &after, 1.0);
    assert!(close(x.reads_per_sec, 100.0));
    assert!(close(x.read_request_kib, 4.0));
}

#[test]
fn avg_cpu_is_each_mode_s_share_of_all_jiffies() {
    let before = parse_stat_cpu("cpu 100 10 50 800 20 5 5 10\n", Path::new("s")).unwrap();
    let after = parse_stat_cpu("cpu 160 10 80 880 40 10 10 10\n", Path::new("s")).unwrap();
    // 60 + 0 + 30 + 80 + 20 + 5 + 5 + 0 = 200 jiffies.
    let cpu = avg_cpu(&before, &after);
    assert!(close(cpu.user, 30.0));
    assert!(close(cpu.nice, 0.0));
    assert!(close(cpu.system, 20.0));
    assert!(close(cpu.iowait, 10.0));
    assert!(close(cpu.idle, 40.0));
    assert!(close(cpu.busy(), 50.0));
    let system = system_interval(
        &cpu,
        &MemInfo {
            total_bytes: 1000,
            available_bytes: 600,
            cached_bytes: 300,
        },
        None,
    );
    assert!(close(system.cpu_busy_percent, 50.0));
    assert_eq!(system.memory_used_bytes, 400);
    assert_eq!(system.io_pressure_some_percent, None);
}

#[test]
fn io_pressure_is_the_stalled_share_of_the_interval() {
    let before = IoPressure {
        some_us: 1_000_000,
        full_us: 500_000,
    };
    let after = IoPressure {
        some_us: 1_250_000,
        full_us: 600_000,
    };
    let (some, full) = io_pressure_percent(&before, &after, 2.0);
    assert!(close(some, 12.5));
    assert!(close(full, 5.0));
}
