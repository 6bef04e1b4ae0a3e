//! Unit tests of DiskSpd's IOPS standard deviation (`-D`) and where the reports show it.

use super::*;
use crate::input::{JobInput, RunMeta};
use diskmeter_stats::{IntervalDirection, WorkerStats};
use diskmeter_workload::JobSpec;

/// A 100 ms bucket starting at `start_ms` with `reads` and `writes` IOs.
fn bucket(start_ms: u64, duration_ms: u64, reads: u64, writes: u64) -> IntervalSample {
    let direction = |ios: u64| IntervalDirection {
        ios,
        iops: ios as f64 * 1000.0 / duration_ms as f64,
        lat_mean_ns: if ios > 0 { 250_000.0 } else { 0.0 },
        ..IntervalDirection::default()
    };
    IntervalSample {
        start_ms,
        duration_ms,
        read: direction(reads),
        write: direction(writes),
    }
}

/// Reads 10, 20, 30 in three whole buckets and a short last bucket of 7.
fn series() -> Vec<IntervalSample> {
    vec![
        bucket(0, 100, 10, 1),
        bucket(100, 100, 20, 1),
        bucket(200, 100, 30, 1),
        bucket(300, 40, 7, 0),
    ]
}

#[test]
fn iops_stddev_is_the_population_stddev_of_whole_buckets_per_second() {
    // Counts 10, 20, 30: mean 20, population variance 200/3; per 0.1 s bucket: x10.
    let expected = (200.0f64 / 3.0).sqrt() * 10.0;
    let got = iops_stddev(&series(), 100, |s| s.read.ios);
    assert!((got - expected).abs() < 1e-9, "{got} vs {expected}");
    // Equal counts in every whole bucket: no deviation (the short last one is left out).
    assert_eq!(iops_stddev(&series(), 100, |s| s.write.ios), 0.0);
    assert_eq!(iops_stddev(&[], 100, total_ios), 0.0);
}

fn header(iops_interval_ms: Option<u64>) -> DiskSpdHeader {
    DiskSpdHeader {
        command_line: "-D100 t".into(),
        duration_s: 1,
        warmup_s: 0,
        cooldown_s: 0,
        latency: true,
        iops_interval_ms,
        block_size_bytes: 4096,
        outstanding: 2,
        threads: 1,
        fixed_threads: false,
        write_percent: 0,
        access: "random I/O".into(),
        software_cache_disabled: true,
        write_through: false,
        proc_count: 2,
        time_span: 1,
        profile_xml: String::new(),
    }
}

fn input() -> RunInput {
    let mut stats = WorkerStats::new();
    stats.read.ios = 67;
    stats.write.ios = 3;
    stats.runtime_ns = 340_000_000;
    stats.series = series();
    RunInput {
        meta: RunMeta::for_tests(),
        jobs: vec![JobInput {
            spec: JobSpec::default(),
            clone_index: 0,
            group_id: 0,
            stats,
            error: None,
            targets: Vec::new(),
            steady_state: None,
        }],
    }
}

#[test]
fn the_text_tables_have_iops_stddev_between_avglat_and_latstddev_only_with_d() {
    let text = render_diskspd_text(&header(Some(100)), &input());
    assert!(
        text.contains("gathering IOPS at intervals of 100ms"),
        "{text}"
    );
    let heads: Vec<&str> = text.lines().filter(|l| l.starts_with("thread |")).collect();
    assert_eq!(heads.len(), 3, "{text}");
    for head in heads {
        assert!(
            head.contains("|  AvgLat  | IopsStdDev | LatStdDev |"),
            "{head}"
        );
    }
    let read_total = text
        .split("Read IO")
        .nth(1)
        .and_then(|t| t.lines().find(|l| l.starts_with("total:")))
        .unwrap();
    assert!(
        read_total.contains(&format!("| {:>10.2} ", (200.0f64 / 3.0).sqrt() * 10.0)),
        "{read_total}"
    );
    let plain = render_diskspd_text(&header(None), &input());
    assert!(
        !plain.contains("IopsStdDev") && !plain.contains("gathering"),
        "{plain}"
    );
}

#[test]
fn the_xml_carries_the_std_devs_and_one_bucket_per_whole_interval() {
    let input = input();
    let xml = render_diskspd_xml(&[(header(Some(100)), &input)]);
    // The time span's and the target's <Iops>, each with three whole buckets.
    assert_eq!(xml.matches("<IopsStdDev>").count(), 2, "{xml}");
    assert_eq!(
        xml.matches("<ReadIopsStdDev>81.650</ReadIopsStdDev>")
            .count(),
        2,
        "{xml}"
    );
    assert_eq!(
        xml.matches("<Bucket SampleMillisecond=").count(),
        6,
        "{xml}"
    );
    assert!(
        xml.contains(
            "<Bucket SampleMillisecond=\"300\" Read=\"300\" Write=\"10\" Total=\"310\" \
         ReadAvgLatencyMilliseconds=\"0.250\" WriteAvgLatencyMilliseconds=\"0.250\"/>"
        ),
        "{xml}"
    );
    let plain = render_diskspd_xml(&[(header(None), &input)]);
    assert!(
        !plain.contains("IopsStdDev") && !plain.contains("SampleMillisecond"),
        "{plain}"
    );
}
