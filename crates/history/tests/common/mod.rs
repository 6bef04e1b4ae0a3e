//! Fixtures the history's integration tests share: a step with real statistics and a
//! histogram, and the header of the run it belongs to.

use diskmeter_history::{NewStep, RunHeader};
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult};
use diskmeter_stats::{IntervalRecorder, LatencyHistogram, WorkerStats};
use diskmeter_workload::JobSpec;

/// A 2-second step of `iops` 4 KiB reads, with its histogram.
pub fn step(name: &str, started_unix_ms: u64, iops: u64) -> NewStep {
    let mut stats = WorkerStats::new();
    let mut recorder = IntervalRecorder::new(1_000_000_000);
    for i in 0..iops * 2 {
        stats.read.record_io(4096, 1_000, 40_000 + i % 1000);
        let at_ns = i * 1_000_000_000 / iops;
        recorder.record(diskmeter_stats::Direction::Read, 4096, 41_000, at_ns);
    }
    stats.runtime_ns = 2_000_000_000;
    stats.series = recorder.finish(stats.runtime_ns);
    let mut clat = LatencyHistogram::new();
    clat.record_n(40_000, iops * 2);
    NewStep {
        name: name.into(),
        result: RunResult::build(RunInput {
            meta: RunMeta {
                diskmeter_version: "0.1.0".into(),
                started_unix_ms,
                finished_unix_ms: started_unix_ms + 2000,
                partial: false,
                hostname: "testhost".into(),
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
        }),
        histograms: vec![("read".into(), "clat".into(), clat)],
    }
}

/// The header of a suite run named `name`.
pub fn header(name: &str, started_unix_ms: u64) -> RunHeader {
    RunHeader {
        kind: "suite".into(),
        name: name.into(),
        target: "/dev/loop9".into(),
        command_line: format!("diskmeter suite {name}"),
        host: Default::default(),
        started_unix_ms,
        diskmeter_version: "0.1.0".into(),
        hostname: "testhost".into(),
        capture_id: None,
    }
}
