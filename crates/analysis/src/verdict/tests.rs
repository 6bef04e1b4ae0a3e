//! Verdicts on synthetic steps: the three outcomes, the paced rule, the intended clock, partial
//! steps, and the requirement vocabulary.

use super::*;
use crate::requirements::{Checklist, ChecklistBuilder, Level, WindowSet};
use diskmeter_capture::{
    CaptureSample, DeviceInterval, HotSet, QuantileSummary, SizeShare, SystemInterval,
    TraceDirection, TraceProfile,
};
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult};
use diskmeter_stats::{Direction, IntervalRecorder, WorkerStats};
use diskmeter_workload::JobSpec;

const SEC: u64 = 1_000_000_000;

/// A step of `seconds` seconds of 4 KiB reads: `iops_at(second)` IOs each second, each taking
/// `lat_ns(second, i)` from issue to completion; `paced` = Some(rate) paces it at that rate
/// with each IO `late_ns(second)` late against its intended time.
struct Step {
    seconds: u64,
    paced: Option<u64>,
    partial: bool,
}

fn step(
    s: Step,
    iops_at: impl Fn(u64) -> u64,
    lat_ns: impl Fn(u64, u64) -> u64,
    late_ns: impl Fn(u64) -> u64,
) -> RunResult {
    let mut stats = WorkerStats::new();
    let mut recorder = IntervalRecorder::new(SEC);
    for second in 0..s.seconds {
        let iops = iops_at(second);
        for i in 0..iops {
            let lat = lat_ns(second, i);
            stats.read.record_io(4096, 1_000, lat - 1_000);
            let now = second * SEC + i * SEC / iops;
            recorder.record(Direction::Read, 4096, lat, now);
            if s.paced.is_some() {
                let intended = lat + late_ns(second);
                stats.read.lat_intended.record(intended);
                recorder.record_intended(Direction::Read, intended);
            }
        }
    }
    stats.runtime_ns = s.seconds * SEC;
    stats.series = recorder.finish(stats.runtime_ns);
    let mut spec = JobSpec::default();
    spec.rate_iops.read = s.paced;
    RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0".into(),
            started_unix_ms: 0,
            finished_unix_ms: 0,
            partial: s.partial,
            hostname: "h".into(),
            notes: vec![],
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        },
        jobs: vec![JobInput {
            spec,
            clone_index: 0,
            group_id: 0,
            stats,
            error: None,
            targets: vec![],
            steady_state: None,
        }],
    })
}

fn evidence(result: &RunResult) -> StepEvidence {
    StepEvidence::of(result, &mut |d, kind| merged_job_histogram(result, d, kind))
}

fn plain(seconds: u64) -> Step {
    Step {
        seconds,
        paced: None,
        partial: false,
    }
}

fn require(text: &str) -> Requirement {
    parse_requirements(text).unwrap().remove(0)
}

#[test]
fn keys_name_a_scope_a_quantity_and_a_statistic_and_round_trip() {
    let parsed = parse_requirements(
        "iops=5k,read-mibps=200,write-lat-p99.9=500us,lat-max=2,read-lat=0.5,write-await-p90=3",
    )
    .unwrap();
    let keys: Vec<String> = parsed.iter().map(Requirement::key).collect();
    assert_eq!(
        keys,
        [
            "iops",
            "read-mibps",
            "write-lat-p99.9",
            "lat-max",
            "read-lat-mean",
            "write-await-p90"
        ]
    );
    for r in &parsed {
        assert_eq!(Measure::parse_key(&r.key()), Some(r.measure), "{}", r.key());
    }
    let thresholds: Vec<f64> = parsed.iter().map(|r| r.threshold).collect();
    assert_eq!(thresholds, [5000.0, 200.0, 0.5, 2.0, 0.5, 3.0]);
    assert_eq!(parsed[0].bound, Bound::AtLeast);
    assert_eq!(parsed[2].bound, Bound::AtMost);
    for bad in [
        "iops",
        "speed=1",
        "read-lat-p101=1",
        "iops=1,iops=2",
        "read-lat=0",
        "",
    ] {
        assert!(parse_requirements(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_steady_rate_well_above_the_bound_is_met_and_well_below_missed() {
    let run = step(plain(10), |s| 1000 + (s % 2) * 10, |_, _| 100_000, |_| 0);
    let e = evidence(&run);
    let met = judge(&require("iops=900"), &e);
    assert_eq!(met.verdict, Verdict::Met, "{}", met.line());
    let m = met.measured.as_ref().unwrap();
    assert!(m.low < 1005.0 && m.high > 1005.0, "{m:?}");
    let missed = judge(&require("read-iops=1100"), &e);
    assert_eq!(missed.verdict, Verdict::Missed, "{}", missed.line());
    assert!(missed.margin_percent.unwrap() < -8.0);
}

#[test]
fn a_bound_inside_the_interval_is_within_noise() {
    // Seconds wander around 1,000: a 1,000 IOPS bound cannot be told apart.
    const WANDER: [i64; 12] = [-60, 40, 20, -30, 50, -10, 30, -40, 10, -20, 60, -50];
    let run = step(
        plain(12),
        |s| (1000 + WANDER[s as usize]) as u64,
        |_, _| 100_000,
        |_| 0,
    );
    let judged = judge(&require("iops=1000"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::WithinNoise, "{}", judged.line());
    assert!(judged.line().starts_with("WITHIN NOISE iops >= 1,000 IOPS"));
}

#[test]
fn too_few_seconds_give_no_interval_and_no_coin_flip() {
    let run = step(plain(3), |_| 1000, |_, _| 100_000, |_| 0);
    let judged = judge(&require("iops=999"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::WithinNoise, "{}", judged.line());
    assert!(judged.line().contains("too few"), "{}", judged.line());
    assert!(!judged.line().contains("(("), "{}", judged.line());
}

#[test]
fn a_rate_at_the_pacing_is_met_when_its_interval_reaches_it_and_missed_below() {
    let paced = |rate| Step {
        seconds: 8,
        paced: Some(rate),
        partial: false,
    };
    // Paced at 1,401 (a level of 1,400.4 rounded up): delivered 1,400-1,401.
    let run = step(paced(1401), |s| 1400 + s % 2, |_, _| 50_000, |_| 10_000);
    let judged = judge(&require("read-iops=1400.4"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::Met, "{}", judged.line());
    assert!(
        judged.line().contains("paced at 1,401"),
        "{}",
        judged.line()
    );
    // The same pacing delivering 80 %: missed, with how late its IOs went.
    let slow = step(
        paced(1401),
        |s| 1120 + s % 2,
        |_, _| 50_000,
        |_| 200_000_000,
    );
    let judged = judge(&require("read-iops=1400.4"), &evidence(&slow));
    assert_eq!(judged.verdict, Verdict::Missed, "{}", judged.line());
    assert!(
        judged.line().contains("fell behind its pacing"),
        "{}",
        judged.line()
    );
    // Paced well below the requirement: it cannot tell.
    let judged = judge(&require("read-iops=2000"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::NotMeasured, "{}", judged.line());
}

#[test]
fn a_paced_step_is_judged_on_latency_from_the_intended_issue_time() {
    // 5 s at 1,000 IOPS, 0.1 ms each; in second 2 every IO went out 400 ms late (a stall).
    let stalled = step(
        Step {
            seconds: 5,
            paced: Some(1000),
            partial: false,
        },
        |_| 1000,
        |_, _| 100_000,
        |s| if s == 2 { 400_000_000 } else { 0 },
    );
    let e = evidence(&stalled);
    assert_eq!(e.clock, LatencyClock::Intended);
    let judged = judge(&require("read-lat-p99=10ms"), &e);
    assert_eq!(judged.verdict, Verdict::Missed, "{}", judged.line());
    assert!(judged.line().contains("from the intended issue time"));
    let calm = step(
        Step {
            seconds: 5,
            paced: Some(1000),
            partial: false,
        },
        |_| 1000,
        |_, _| 100_000,
        |_| 0,
    );
    let judged = judge(&require("read-lat-p99=10ms"), &evidence(&calm));
    assert_eq!(judged.verdict, Verdict::Met, "{}", judged.line());
}

#[test]
fn a_percentile_interval_comes_from_order_statistics_widened_by_the_histogram() {
    // Latencies 1..=1000 us spread evenly: p90 is 900 us, its ranks 9,000 -+ 59 of 10,000.
    let run = step(plain(10), |_| 1000, |_, i| (i + 1) * 1_000 + 1_000, |_| 0);
    let judged = judge(&require("read-lat-p90=0.95"), &evidence(&run));
    let m = judged.measured.clone().unwrap();
    assert!(m.low < 0.901 && m.low > 0.88, "{m:?}");
    assert!(m.high > 0.901 && m.high < 0.93, "{m:?}");
    assert_eq!(judged.verdict, Verdict::Met, "{}", judged.line());
    assert_eq!(order_statistic_ranks(10_000, 0.9), (8941, 9059));
    let judged = judge(&require("read-lat-p90=0.9"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::WithinNoise, "{}", judged.line());
}

#[test]
fn a_partial_step_is_not_judged() {
    let run = step(
        Step {
            seconds: 10,
            paced: None,
            partial: true,
        },
        |_| 1000,
        |_, _| 100_000,
        |_| 0,
    );
    let judged = judge(&require("iops=10"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::NotMeasured);
    assert!(judged.line().contains("partial"), "{}", judged.line());
}

#[test]
fn a_direction_with_no_io_is_not_measured() {
    let run = step(plain(10), |_| 1000, |_, _| 100_000, |_| 0);
    let judged = judge(&require("write-iops=1"), &evidence(&run));
    assert_eq!(judged.verdict, Verdict::NotMeasured);
    assert!(judged.line().contains("no write IO"), "{}", judged.line());
}

fn capture_sample(start_unix_ms: u64, reads: f64, await_ms: f64) -> CaptureSample {
    CaptureSample {
        start_unix_ms,
        duration_ms: 1000.0,
        devices: vec![DeviceInterval {
            device: "vda".to_string(),
            reads_per_sec: reads,
            writes_per_sec: 0.0,
            discards_per_sec: 0.0,
            flushes_per_sec: 0.0,
            flush_await_ms: 0.0,
            read_kib_per_sec: reads * 8.0,
            write_kib_per_sec: 0.0,
            read_merges_per_sec: 0.0,
            write_merges_per_sec: 0.0,
            read_await_ms: await_ms,
            write_await_ms: 0.0,
            queue_size: 1.0,
            read_request_kib: 8.0,
            write_request_kib: 0.0,
            util_percent: 50.0,
        }],
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

fn trace_profile() -> TraceProfile {
    let latency = QuantileSummary {
        count: 100,
        mean: 400_000.0,
        p50: 300_000.0,
        p90: 600_000.0,
        p99: 900_000.0,
        max: 1_000_000.0,
        relative_error: 0.001,
    };
    TraceProfile {
        device: "vda".to_string(),
        device_bytes: None,
        duration_ns: 1_000_000_000,
        ios: 100,
        lost_events: 0,
        read: TraceDirection {
            ios: 100,
            bytes: 100 * 8192,
            sizes: vec![SizeShare {
                bytes: 8192,
                ios: 100,
            }],
            random_fraction: 1.0,
            latency_ns: latency,
        },
        write: TraceDirection::default(),
        random_fraction: 1.0,
        queue_depth: QuantileSummary::default(),
        interarrival_ns: QuantileSummary::default(),
        hot_set: HotSet::default(),
        processes: Vec::new(),
        iolog_path: None,
        details: Default::default(),
        sequential_writes: Default::default(),
    }
}

fn traced_checklist(traced: bool) -> Checklist {
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    builder.push(&capture_sample(1_764_028_800_000, 1000.0, 0.5));
    builder.push(&capture_sample(1_764_028_801_000, 1200.0, 0.7));
    if traced {
        builder.add_trace(&trace_profile());
    }
    builder.finish().unwrap().whole
}

#[test]
fn a_capture_gives_per_io_latency_where_traced_and_await_levels_where_counted() {
    let counted = requirements_from_checklist(&traced_checklist(false), Level::P90, "capture 1");
    let keys: Vec<String> = counted.iter().map(Requirement::key).collect();
    assert!(keys.contains(&"read-await-p90".to_string()), "{keys:?}");
    assert!(!keys.iter().any(|k| k.contains("lat-p")), "{keys:?}");
    let traced = requirements_from_checklist(&traced_checklist(true), Level::P90, "capture 1");
    let keys: Vec<String> = traced.iter().map(Requirement::key).collect();
    assert!(keys.contains(&"read-lat-p90".to_string()), "{keys:?}");
    let latency = traced.iter().find(|r| r.key() == "read-lat-p90").unwrap();
    assert!((latency.allowance - 0.15).abs() < 1e-9, "{latency:?}");
}
