//! Comparing runs: paced runs judged on intended-time latency (issue 27), partial steps left
//! out, throttled reruns called regressions, noise and bursty baselines told apart, steps
//! matched by name.

use super::*;
use diskmeter_report::{JobInput, RunInput, RunMeta};
use diskmeter_stats::{Direction, IntervalRecorder, WorkerStats};
use diskmeter_workload::JobSpec;

/// `seconds` seconds of 4 KiB reads whose per-second IOPS follow `iops_at(second)`, each
/// IO taking `lat_ns`.
fn run(seconds: u64, lat_ns: u64, iops_at: impl Fn(u64) -> u64) -> RunResult {
    let mut stats = WorkerStats::new();
    let mut recorder = IntervalRecorder::new(1_000_000_000);
    for second in 0..seconds {
        let iops = iops_at(second);
        for i in 0..iops {
            stats.read.record_io(4096, 1_000, lat_ns);
            recorder.record(
                Direction::Read,
                4096,
                lat_ns,
                second * 1_000_000_000 + i * 1_000_000_000 / iops,
            );
        }
    }
    stats.runtime_ns = seconds * 1_000_000_000;
    stats.series = recorder.finish(stats.runtime_ns);
    run_of(stats)
}

/// The result of one worker's `stats`.
fn run_of(stats: WorkerStats) -> RunResult {
    RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0".into(),
            started_unix_ms: 0,
            finished_unix_ms: 0,
            partial: false,
            hostname: "h".into(),
            notes: vec![],
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        },
        jobs: vec![JobInput {
            spec: JobSpec::default(),
            clone_index: 0,
            group_id: 0,
            stats,
            error: None,
            targets: vec![],
            steady_state: None,
        }],
    })
}

/// `seconds` of 4 KiB reads paced at 1,000 IOPS, each IO 100 us from issue to
/// completion; with `stall_ms`, the IOs due in the first `stall_ms` of the second second
/// went out only when it ended (a SIGSTOP), so their intended-time latency is up to
/// `stall_ms`. `kept`: the intended-time latency was recorded (results saved before it
/// was have none).
fn paced(seconds: u64, stall_ms: u64, kept: bool) -> RunResult {
    let mut stats = WorkerStats::new();
    let mut recorder = IntervalRecorder::new(1_000_000_000);
    for second in 0..seconds {
        for i in 0..1_000u64 {
            let due_ns = second * 1_000_000_000 + i * 1_000_000;
            let late_ns = match second == 1 && i < stall_ms {
                true => (stall_ms - i) * 1_000_000,
                false => 0,
            };
            stats.read.record_io(4096, 90_000, 100_000);
            if kept {
                stats.read.lat_intended.record(late_ns + 100_000);
            }
            recorder.record(Direction::Read, 4096, 100_000, due_ns + late_ns);
        }
    }
    stats.runtime_ns = seconds * 1_000_000_000;
    stats.series = recorder.finish(stats.runtime_ns);
    let mut result = run_of(stats);
    if !kept {
        let mut spec = JobSpec::default();
        spec.rate_iops.read = Some(1_000);
        result.jobs[0].options = diskmeter_workload::describe(&spec)
            .into_iter()
            .map(|(name, value)| diskmeter_report::JobOption { name, value })
            .collect();
    }
    result
}

#[test]
fn issue27_a_stalled_paced_run_is_slower_on_intended_time_latency() {
    let (twin, stalled) = (paced(5, 0, true), paced(5, 500, true));
    let c = compare_runs(
        &[("paced".into(), &twin)],
        &[("paced".into(), &stalled)],
        CompareOptions::default(),
    );
    let p99 = c
        .metrics
        .iter()
        .find(|m| m.metric == "read p99 latency (intended)")
        .expect("the p99 on the intended clock");
    assert_eq!(p99.outcome, Outcome::Slower, "{p99:?}");
    assert!(p99.regression);
    assert!(p99.baseline < 101.0 && p99.candidate > 400_000.0, "{p99:?}");
    // The mean, each second one sample: one stalled second of five is within their
    // noise (per-second means of 0.1, 125, 0.1, 0.1, 0.1 ms); the tail is not.
    let mean = outcome(&c, "read mean latency (intended)");
    assert_ne!(mean, Outcome::Faster);
    // Issue to completion, every IO took 100 us: that clock would see no change at all.
    assert!(!c.metrics.iter().any(|m| m.metric == "read p99 latency"));
    assert!(c.method_text().contains("Latency (intended)"));
    // The twin against itself: within noise.
    let same = compare_runs(
        &[("paced".into(), &twin)],
        &[("paced".into(), &paced(5, 0, true))],
        CompareOptions::default(),
    );
    assert!(same
        .metrics
        .iter()
        .all(|m| m.outcome == Outcome::WithinNoise));
}

#[test]
fn issue27_a_paced_run_saved_without_intended_latency_is_not_compared_on_latency() {
    let (old, new) = (paced(5, 0, false), paced(5, 500, true));
    assert!(old.jobs[0].paced() && old.jobs[0].read.lat_intended.count == 0);
    let c = compare_runs(
        &[("paced".into(), &old)],
        &[("paced".into(), &new)],
        CompareOptions::default(),
    );
    assert!(
        !c.metrics.iter().any(|m| m.metric.contains("latency")),
        "{c:#?}"
    );
    assert!(c.metrics.iter().any(|m| m.metric == "read IOPS"));
    assert_eq!(c.notes.len(), 1);
    assert!(c.notes[0].contains("not known"), "{:?}", c.notes);
}

#[test]
fn issue27_a_partial_step_is_not_compared() {
    let (whole, mut cut) = (run(5, 50_000, |_| 5000), run(5, 50_000, |_| 5000));
    cut.meta.partial = true;
    let c = compare_runs(
        &[("4k".into(), &whole)],
        &[("4k".into(), &cut)],
        CompareOptions::default(),
    );
    assert!(c.metrics.is_empty());
    assert!(c.notes[0].starts_with("step 4k not compared: partial in B interrupted"));
}

fn outcome(c: &Comparison, metric: &str) -> Outcome {
    c.metrics
        .iter()
        .find(|m| m.metric == metric)
        .unwrap()
        .outcome
}

#[test]
fn a_throttled_rerun_is_slower_and_a_regression() {
    let base = run(8, 50_000, |s| 5000 + (s % 3) * 40);
    let slow = run(8, 200_000, |s| 1250 + (s % 2) * 10);
    let c = compare_runs(
        &[("4k".into(), &base)],
        &[("4k".into(), &slow)],
        CompareOptions::default(),
    );
    assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
    assert_eq!(outcome(&c, "read mean latency"), Outcome::Slower);
    assert_eq!(outcome(&c, "read p99 latency"), Outcome::Slower);
    let iops = c.metrics.iter().find(|m| m.metric == "read IOPS").unwrap();
    assert!(
        (iops.change_percent + 74.8).abs() < 1.0,
        "{}",
        iops.change_percent
    );
    assert!(c.regressions() >= 3);
    // and the other way round it is faster, with no regression
    let back = compare_runs(
        &[("4k".into(), &slow)],
        &[("4k".into(), &base)],
        CompareOptions::default(),
    );
    assert_eq!(outcome(&back, "read IOPS"), Outcome::Faster);
    assert_eq!(back.regressions(), 0);
}

#[test]
fn the_same_workload_twice_is_within_noise() {
    let a = run(8, 50_000, |s| 5000 + (s % 3) * 60);
    let b = run(8, 50_500, |s| 5030 + (s % 2) * 50);
    let c = compare_runs(
        &[("x".into(), &a)],
        &[("x".into(), &b)],
        CompareOptions::default(),
    );
    assert!(
        c.metrics.iter().all(|m| m.outcome == Outcome::WithinNoise),
        "{c:#?}"
    );
    assert_eq!(c.regressions(), 0);
}

#[test]
fn a_small_but_clear_change_is_below_the_noise_floor_until_the_floor_is_lowered() {
    let a = run(16, 50_000, |_| 5000);
    let b = run(16, 50_000, |_| 4850);
    let default = compare_runs(
        &[("x".into(), &a)],
        &[("x".into(), &b)],
        CompareOptions::default(),
    );
    assert_eq!(outcome(&default, "read IOPS"), Outcome::WithinNoise);
    let strict = CompareOptions {
        noise_floor_percent: 1.0,
        threshold_percent: 2.0,
    };
    let c = compare_runs(&[("x".into(), &a)], &[("x".into(), &b)], strict);
    assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
    assert_eq!(c.regressions(), 2); // IOPS and MiB/s
}

#[test]
fn a_bursty_baseline_is_still_told_apart_by_rank() {
    // Four seconds swinging between 1,500 and 12,000 IOPS (batch-means interval wider
    // than the mean) against a steady 100: Welch cannot call it, the ranks can.
    let bursty = [12_000u64, 1_500, 9_000, 2_000];
    let base = run(4, 50_000, |s| bursty[s as usize]);
    let slow = run(4, 2_000_000, |_| 100);
    let c = compare_runs(
        &[("x".into(), &base)],
        &[("x".into(), &slow)],
        CompareOptions::default(),
    );
    assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
    // but the same bursts twice are within noise
    let again = run(4, 50_000, |s| bursty[(s as usize + 1) % 4]);
    let c = compare_runs(
        &[("x".into(), &base)],
        &[("x".into(), &again)],
        CompareOptions::default(),
    );
    assert_eq!(outcome(&c, "read IOPS"), Outcome::WithinNoise);
}

#[test]
fn steps_are_matched_by_name_and_short_runs_get_no_verdict() {
    let a = run(2, 50_000, |_| 1000);
    let b = run(2, 50_000, |_| 500);
    let c = compare_runs(
        &[("one".into(), &a), ("two".into(), &a)],
        &[("two".into(), &b), ("three".into(), &b)],
        CompareOptions::default(),
    );
    assert!(c.metrics.iter().all(|m| m.step == "two"));
    assert_eq!(outcome(&c, "read IOPS"), Outcome::TooFewSamples);
    assert_eq!(c.regressions(), 0);
    assert_eq!(c.only_in_baseline, vec!["one".to_string()]);
    assert_eq!(c.only_in_candidate, vec!["three".to_string()]);
}
