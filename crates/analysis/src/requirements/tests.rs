//! The checklist's arithmetic on literal samples: rates, IO-weighted means, windows (across
//! midnight and at an offset), unknowns, traces and the percentiles' error bound.

use super::accumulate::is_partition_of;
use super::*;
use diskmeter_capture::{
    CaptureSample, DeviceInterval, HotSet, QuantileSummary, SizeShare, SystemInterval,
    TraceDirection, TraceProfile,
};

const HOUR_MS: u64 = 3_600_000;
/// 2026-11-25 00:00:00 UTC.
const MIDNIGHT_MS: u64 = 1_764_028_800_000;

fn device(name: &str, reads: f64, writes: f64) -> DeviceInterval {
    DeviceInterval {
        device: name.to_string(),
        reads_per_sec: reads,
        writes_per_sec: writes,
        discards_per_sec: 0.0,
        flushes_per_sec: 0.0,
        flush_await_ms: 0.0,
        read_kib_per_sec: reads * 8.0,
        write_kib_per_sec: writes * 64.0,
        read_merges_per_sec: 0.0,
        write_merges_per_sec: 0.0,
        read_await_ms: 1.0,
        write_await_ms: 4.0,
        queue_size: (reads + writes) / 1000.0,
        read_request_kib: 8.0,
        write_request_kib: 64.0,
        util_percent: 50.0,
    }
}

fn sample(start_unix_ms: u64, devices: Vec<DeviceInterval>) -> CaptureSample {
    CaptureSample {
        start_unix_ms,
        duration_ms: 1000.0,
        devices,
        system: SystemInterval {
            cpu_busy_percent: 25.0,
            cpu_user_percent: 20.0,
            cpu_system_percent: 5.0,
            cpu_iowait_percent: 1.0,
            memory_used_bytes: 512 << 20,
            memory_total_bytes: 2048 << 20,
            memory_cached_bytes: 0,
            io_pressure_some_percent: None,
            io_pressure_full_percent: None,
        },
    }
}

fn build(samples: &[CaptureSample], windows: &str) -> Requirements {
    let mut builder = ChecklistBuilder::new(None, WindowSet::parse(windows, 0).unwrap());
    for s in samples {
        builder.push(s);
    }
    builder.finish().unwrap()
}

fn close(actual: Option<f64>, expected: f64) -> bool {
    actual.is_some_and(|a| (a - expected).abs() <= expected.abs() * RELATIVE_ERROR + 1e-9)
}

#[test]
fn one_hundred_intervals_give_nearest_rank_percentiles_and_the_time_weighted_mean() {
    let samples: Vec<CaptureSample> = (1..=100)
        .map(|i| {
            sample(
                MIDNIGHT_MS + i * 1000,
                vec![device("vda", i as f64 * 10.0, 0.0)],
            )
        })
        .collect();
    let whole = build(&samples, "").whole;
    assert!(close(whole.level(Metric::IopsRead, Level::P50), 500.0));
    assert!(close(whole.level(Metric::IopsRead, Level::P90), 900.0));
    assert!(close(whole.level(Metric::IopsRead, Level::P99), 990.0));
    assert_eq!(whole.level(Metric::IopsRead, Level::Max), Some(1000.0));
    assert!(close(whole.level(Metric::IopsRead, Level::Mean), 505.0));
    assert_eq!(whole.level(Metric::IopsWrite, Level::Max), Some(0.0));
    assert_eq!(whole.level(Metric::ReadPercent, Level::Mean), Some(100.0));
    assert!(close(
        whole.level(Metric::ThroughputReadMibps, Level::Max),
        1000.0 * 8.0 / 1024.0
    ));
    assert_eq!(whole.intervals, 100);
}

#[test]
fn ratio_rows_are_io_weighted_and_skip_intervals_without_that_io() {
    // 900 reads/s at 1 ms and 100 writes/s, then an idle second, then 100 reads/s at 9 ms.
    let mut slow = device("vda", 100.0, 0.0);
    slow.read_await_ms = 9.0;
    let samples = vec![
        sample(MIDNIGHT_MS, vec![device("vda", 900.0, 100.0)]),
        sample(MIDNIGHT_MS + 1000, vec![device("vda", 0.0, 0.0)]),
        sample(MIDNIGHT_MS + 2000, vec![slow]),
    ];
    let whole = build(&samples, "").whole;
    // (900 x 1 + 100 x 9) / 1000 reads.
    assert!(close(whole.level(Metric::LatencyReadMs, Level::Mean), 1.8));
    assert_eq!(whole.row(Metric::LatencyReadMs).count, 2);
    assert!(close(whole.level(Metric::LatencyReadMs, Level::Max), 9.0));
    // 1,000 reads of 1,100 IOs.
    assert!(close(
        whole.level(Metric::ReadPercent, Level::Mean),
        100.0 * 1000.0 / 1100.0
    ));
    assert!(close(
        whole.level(Metric::IoSizeWriteKib, Level::Mean),
        64.0
    ));
    // 900 x 8 KiB + 100 x 64 KiB in the first second.
    assert!(close(
        whole.level(Metric::ThroughputTotalMibps, Level::Max),
        13_600.0 / 1024.0
    ));
    assert!(close(
        whole.level(Metric::IopsTotal, Level::Mean),
        1100.0 / 3.0
    ));
}

#[test]
fn a_counter_capture_leaves_what_it_cannot_know_unknown() {
    let whole = build(&[sample(MIDNIGHT_MS, vec![device("vda", 100.0, 50.0)])], "").whole;
    for metric in [
        Metric::RandomPercent,
        Metric::DeviceLatencyReadMs,
        Metric::DeviceLatencyWriteMs,
        Metric::DeviceQueueDepth,
    ] {
        assert!(whole.row(metric).figures.is_unknown(), "{metric}");
        assert_eq!(whole.row(metric).source, Source::Unknown);
    }
    // The counters know the mean IO size but not its distribution.
    let size = whole.row(Metric::IoSizeReadKib).figures;
    assert_eq!(
        (size.p50, size.p90, size.p99, size.max),
        (None, None, None, None)
    );
    assert!(close(size.mean, 8.0));
}

#[test]
fn a_trace_fills_random_share_size_percentiles_and_device_latency() {
    let latency = QuantileSummary {
        count: 100,
        mean: 2_000_000.0,
        p50: 1_000_000.0,
        p90: 3_000_000.0,
        p99: 5_000_000.0,
        max: 9_000_000.0,
        relative_error: 0.001,
    };
    let trace = TraceProfile {
        device: "vda".to_string(),
        device_bytes: None,
        duration_ns: 1_000_000_000,
        ios: 100,
        lost_events: 0,
        read: TraceDirection {
            ios: 100,
            bytes: 60 * 8192 + 40 * 65536,
            sizes: vec![
                SizeShare {
                    bytes: 8192,
                    ios: 60,
                },
                SizeShare {
                    bytes: 65536,
                    ios: 40,
                },
            ],
            random_fraction: 0.3,
            latency_ns: latency.clone(),
        },
        write: TraceDirection::default(),
        random_fraction: 0.3,
        queue_depth: QuantileSummary {
            count: 100,
            mean: 8.0,
            p50: 8.0,
            p90: 9.0,
            p99: 12.0,
            max: 16.0,
            relative_error: 0.0,
        },
        interarrival_ns: QuantileSummary::default(),
        hot_set: HotSet::default(),
        processes: Vec::new(),
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    let mut builder = ChecklistBuilder::new(None, WindowSet::parse("all=00:00-24:00", 0).unwrap());
    builder.push(&sample(MIDNIGHT_MS, vec![device("vda", 100.0, 0.0)]));
    builder.add_trace(&trace);
    let requirements = builder.finish().unwrap();
    let whole = &requirements.whole;
    assert_eq!(requirements.traced_devices, vec!["vda"]);
    assert_eq!(whole.level(Metric::RandomPercent, Level::P90), Some(30.0));
    assert_eq!(whole.level(Metric::IoSizeReadKib, Level::P50), Some(8.0));
    assert_eq!(whole.level(Metric::IoSizeReadKib, Level::P90), Some(64.0));
    assert_eq!(
        whole.row(Metric::IoSizeReadKib).source,
        Source::CountersAndTrace
    );
    // The counters' mean (every IO) wins over the trace's.
    assert!(close(whole.level(Metric::IoSizeReadKib, Level::Mean), 8.0));
    assert_eq!(
        whole.level(Metric::DeviceLatencyReadMs, Level::P99),
        Some(5.0)
    );
    assert_eq!(whole.level(Metric::DeviceQueueDepth, Level::P50), Some(8.0));
    assert!(whole.row(Metric::DeviceLatencyWriteMs).figures.is_unknown());
    // A trace has no intervals: inside a window its rows are unknown.
    let window = &requirements.windows[0].checklist;
    assert!(window.row(Metric::RandomPercent).figures.is_unknown());
    assert!(window.level(Metric::IopsRead, Level::Max).is_some());
}

#[test]
fn windows_pick_intervals_by_time_of_day_across_midnight() {
    // One sample per hour over a day: hour h reads h x 100 IOPS.
    let samples: Vec<CaptureSample> = (0..24)
        .map(|h| {
            sample(
                MIDNIGHT_MS + h * HOUR_MS,
                vec![device("vda", h as f64 * 100.0, 0.0)],
            )
        })
        .collect();
    let requirements = build(
        &samples,
        "normal=09:00-18:00,peak=12:00-13:00,night=22:00-06:00",
    );
    let [normal, peak, night] = &requirements.windows[..] else {
        panic!("three windows")
    };
    assert_eq!(normal.checklist.intervals, 9);
    assert_eq!(
        normal.checklist.level(Metric::IopsRead, Level::Max),
        Some(1700.0)
    );
    assert_eq!(peak.checklist.intervals, 1);
    assert_eq!(
        peak.checklist.level(Metric::IopsRead, Level::Max),
        Some(1200.0)
    );
    // 22, 23, 0..=5.
    assert_eq!(night.checklist.intervals, 8);
    assert_eq!(
        night.checklist.level(Metric::IopsRead, Level::Max),
        Some(2300.0)
    );
    assert_eq!(requirements.whole.intervals, 24);
}

#[test]
fn an_offset_moves_the_windows_clock() {
    let windows =
        WindowSet::parse("peak=12:00-13:00", parse_utc_offset("+02:00").unwrap()).unwrap();
    // 10:30 UTC is 12:30 at +02:00.
    assert_eq!(
        windows
            .matching(MIDNIGHT_MS + 10 * HOUR_MS + 1_800_000)
            .count(),
        1
    );
    assert_eq!(
        windows
            .matching(MIDNIGHT_MS + 12 * HOUR_MS + 1_800_000)
            .count(),
        0
    );
    assert_eq!(parse_utc_offset("-05:30"), Ok(-330));
    assert_eq!(parse_utc_offset("UTC"), Ok(0));
    assert!(parse_utc_offset("+15:00").is_err());
}

#[test]
fn bad_windows_say_what_is_wrong() {
    for bad in [
        "peak",
        "peak=12:00",
        "peak=25:00-26:00",
        "peak=12:00-12:00",
        "=1:00-2:00",
        "p=12:60-13:00",
    ] {
        assert!(
            matches!(
                WindowSet::parse(bad, 0),
                Err(RequirementsError::BadWindow { .. })
            ),
            "{bad}"
        );
    }
    assert_eq!(
        WindowSet::parse("a=01:00-02:00,a=03:00-04:00", 0),
        Err(RequirementsError::DuplicateWindow("a".into()))
    );
}

#[test]
fn levels_and_metrics_parse_their_printed_names() {
    for level in Level::ALL {
        assert_eq!(level.name().parse::<Level>(), Ok(level));
    }
    assert_eq!("P90".parse::<Level>(), Ok(Level::P90));
    assert!("p95".parse::<Level>().is_err());
    for metric in Metric::ALL {
        assert_eq!(metric.key().parse::<Metric>(), Ok(metric));
    }
    assert_eq!("iops-total".parse::<Metric>(), Ok(Metric::IopsTotal));
}

#[test]
fn devices_are_summed_and_partitions_of_a_captured_disk_are_not_counted_twice() {
    let samples = [sample(
        MIDNIGHT_MS,
        vec![
            device("vda", 100.0, 0.0),
            device("vda1", 100.0, 0.0),
            device("vdb", 50.0, 0.0),
        ],
    )];
    let summed = build(&samples, "");
    assert_eq!(summed.devices, vec!["vda", "vdb"]);
    assert_eq!(summed.skipped_devices, vec!["vda1"]);
    assert_eq!(
        summed.whole.level(Metric::IopsRead, Level::Max),
        Some(150.0)
    );
    let mut one = ChecklistBuilder::new(Some(vec!["vda1".into()]), WindowSet::default());
    one.push(&samples[0]);
    assert_eq!(
        one.finish()
            .unwrap()
            .whole
            .level(Metric::IopsRead, Level::Max),
        Some(100.0)
    );
    let mut missing = ChecklistBuilder::new(Some(vec!["sdz".into()]), WindowSet::default());
    missing.push(&samples[0]);
    assert!(matches!(
        missing.finish(),
        Err(RequirementsError::DeviceNotCaptured { .. })
    ));
    assert!(is_partition_of("nvme0n1p2", "nvme0n1"));
    assert!(!is_partition_of("nvme0n12", "nvme0n1"));
    assert!(!is_partition_of("vdab", "vda"));
}

#[test]
fn percentiles_stay_within_the_stated_error_bound_over_a_day_of_seconds() {
    // 86,400 one-second intervals with values spread over six decades, fed one at a time.
    let mut values: Vec<f64> = (0..86_400u64)
        .map(|i| 0.01 * (1.0 + ((i * 7919) % 86_400) as f64).powf(1.4))
        .collect();
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    for (i, &v) in values.iter().enumerate() {
        builder.push(&sample(
            MIDNIGHT_MS + i as u64 * 1000,
            vec![device("vda", v, 0.0)],
        ));
    }
    let whole = builder.finish().unwrap().whole;
    values.sort_by(f64::total_cmp);
    for (level, q) in [(Level::P50, 0.5), (Level::P90, 0.9), (Level::P99, 0.99)] {
        let exact = values[((q * values.len() as f64).ceil() as usize) - 1];
        let got = whole.level(Metric::IopsRead, level).unwrap();
        assert!(
            (got - exact).abs() <= exact * RELATIVE_ERROR + ABSOLUTE_RESOLUTION,
            "{level}: {got} vs {exact}"
        );
    }
    assert_eq!(
        whole.level(Metric::IopsRead, Level::Max),
        values.last().copied()
    );
    assert_eq!(whole.intervals, 86_400);
}

#[test]
fn the_checklist_at_a_level_with_growth_becomes_the_planners_demand() {
    // 70 % reads of 8 KiB, 30 % writes of 64 KiB; 100 intervals rising to 1,000 IOPS.
    let samples: Vec<CaptureSample> = (1..=100)
        .map(|i| {
            let total = i as f64 * 10.0;
            sample(
                MIDNIGHT_MS + i * 1000,
                vec![device("vda", total * 0.7, total * 0.3)],
            )
        })
        .collect();
    let whole = build(&samples, "").whole;
    let demand = demand_from(&whole, Level::P99, "capture 7").grown(0.3);
    assert!(close(demand.iops, 990.0 * 1.3));
    assert!((demand.read_fraction - 0.7).abs() < 1e-9);
    assert_eq!(
        (demand.read_bs_bytes, demand.write_bs_bytes),
        (Some(8192), Some(65536))
    );
    // aqu-sz p99 = 0.99, x 1.3, rounded up.
    assert_eq!(demand.queue_depth, Some(2));
    // Mostly reads: the read latency (r_await 1 ms) is the target.
    assert_eq!(demand.latency_ns, Some(1_000_000));
    assert_eq!(demand.level.as_deref(), Some("p99"));
    assert_eq!(
        demand.random_fraction, None,
        "a counter capture has no random share"
    );
    let keys: Vec<&str> = demand.origins.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["iops", "mibps", "read", "bs", "qd", "latency"]);
    // 990 read from the histogram (within 0.1 %); the growth is the caller's.
    let iops = &demand.origins[0].text;
    assert!(iops.starts_with("capture 7: IOPS total p99 99"), "{iops}");
    assert_eq!(demand.growth_fraction, Some(0.3));
}

/// A trace profile whose every count is `u64::MAX`, as a damaged stored document can say.
fn damaged_trace(device: &str) -> TraceProfile {
    let huge = QuantileSummary {
        count: u64::MAX,
        mean: 1.0,
        ..QuantileSummary::default()
    };
    let direction = TraceDirection {
        ios: u64::MAX,
        bytes: u64::MAX,
        sizes: vec![
            SizeShare {
                bytes: 4096,
                ios: u64::MAX,
            },
            SizeShare {
                bytes: 4096,
                ios: u64::MAX,
            },
        ],
        random_fraction: 0.5,
        latency_ns: huge.clone(),
    };
    TraceProfile {
        device: device.to_string(),
        device_bytes: None,
        duration_ns: 1,
        ios: u64::MAX,
        lost_events: 0,
        read: direction.clone(),
        write: direction,
        random_fraction: 0.5,
        queue_depth: huge.clone(),
        interarrival_ns: huge,
        hot_set: HotSet::default(),
        processes: Vec::new(),
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    }
}

#[test]
fn trace_counts_that_add_up_past_u64_max_give_a_checklist_not_a_panic() {
    // The sums of IOs, bytes and counts overflowed (found by fuzzing saved captures).
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    builder.push(&sample(MIDNIGHT_MS, vec![device("vda", 100.0, 10.0)]));
    builder.add_trace(&damaged_trace("vda"));
    builder.add_trace(&damaged_trace("vda"));
    let requirements = builder.finish().unwrap();
    assert_eq!(
        requirements.whole.level(Metric::IoSizeReadKib, Level::P50),
        Some(4.0)
    );
    assert_eq!(
        requirements.whole.level(Metric::RandomPercent, Level::Max),
        Some(50.0)
    );
}

#[test]
fn flushes_per_second_and_their_latency_are_rows_of_their_own() {
    // 100 intervals at 1..=100 flushes/s, each flush taking 2 ms, plus one at none.
    let mut samples: Vec<CaptureSample> = (1..=100)
        .map(|i| {
            let mut d = device("vda", 100.0, 100.0);
            d.flushes_per_sec = i as f64;
            d.flush_await_ms = if i <= 50 { 1.0 } else { 3.0 };
            sample(MIDNIGHT_MS + i * 1000, vec![d])
        })
        .collect();
    samples.push(sample(
        MIDNIGHT_MS + 101_000,
        vec![device("vda", 100.0, 100.0)],
    ));
    let whole = build(&samples, "").whole;
    assert!(close(whole.level(Metric::FlushesPerSec, Level::P90), 90.0));
    assert!(close(whole.level(Metric::FlushesPerSec, Level::Max), 100.0));
    // Time-weighted: 5050 flushes over 101 s.
    assert!(close(
        whole.level(Metric::FlushesPerSec, Level::Mean),
        5050.0 / 101.0
    ));
    // Flush-weighted mean latency: (1 x 1275 + 3 x 3775) / 5050; the interval without
    // flushes has no flush latency.
    assert!(close(
        whole.level(Metric::FlushLatencyMs, Level::Mean),
        (1275.0 + 3.0 * 3775.0) / 5050.0
    ));
    assert_eq!(whole.row(Metric::FlushLatencyMs).count, 100);
    assert!(close(whole.level(Metric::FlushLatencyMs, Level::P90), 3.0));
    // IOPS rows do not count flushes.
    assert!(close(whole.level(Metric::IopsTotal, Level::Max), 200.0));
    assert_eq!(
        "flushes_per_sec".parse::<Metric>(),
        Ok(Metric::FlushesPerSec)
    );
    assert_eq!(
        "latency_flush_ms".parse::<Metric>(),
        Ok(Metric::FlushLatencyMs)
    );
}

#[test]
fn the_latency_rows_are_those_in_ms() {
    for metric in Metric::ALL {
        assert_eq!(
            metric.is_latency(),
            metric.key().ends_with("_ms"),
            "{metric}"
        );
    }
}
