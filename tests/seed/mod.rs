//! A capture written into a history database through diskmeter-history's API, as
//! `diskmeter capture` writes one: 60 one-second intervals in the minute before 12:00 UTC at
//! 1,000 reads/s + 500 writes/s, then 60 in the minute after at 3,000 + 1,000 (8 KiB reads,
//! 64 KiB writes, r_await 0.5 ms, w_await 2 ms).

#![allow(dead_code)]

use diskmeter_capture::{
    CaptureSample, DeviceInterval, HotSet, QuantileSummary, SizeShare, SystemInterval,
    TraceDirection, TraceProfile,
};
use diskmeter_history::{HistoryStore, HostFacts, RunEnd, RunHeader, CAPTURE_KIND};
use std::path::Path;

/// 2025-11-25 11:59:00 UTC.
pub const START_MS: u64 = 1_764_071_940_000;

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
        read_await_ms: 0.5,
        write_await_ms: 2.0,
        queue_size: (reads * 0.5 + writes * 2.0) / 1000.0,
        read_request_kib: 8.0,
        write_request_kib: 64.0,
        util_percent: 40.0,
    }
}

/// Saves the capture of `vda` (and its partition `vda1`, which the checklist leaves out) in
/// the history at `db`; returns its run id.
pub fn seed_capture(db: &Path) -> i64 {
    seed(db, None)
}

/// The same capture with a block trace of `vda`: 60 % 8 KiB / 40 % 64 KiB reads, 30 %
/// random, device read latency p50 0.4 ms / p99 2 ms.
pub fn seed_traced_capture(db: &Path) -> i64 {
    let latency = QuantileSummary {
        count: 1000,
        mean: 500_000.0,
        p50: 400_000.0,
        p90: 900_000.0,
        p99: 2_000_000.0,
        max: 5_000_000.0,
        relative_error: 0.001,
    };
    let trace = TraceProfile {
        device: "vda".to_string(),
        device_bytes: Some(1 << 34),
        duration_ns: 120_000_000_000,
        ios: 1000,
        lost_events: 0,
        read: TraceDirection {
            ios: 1000,
            bytes: 600 * 8192 + 400 * 65536,
            sizes: vec![
                SizeShare {
                    bytes: 8192,
                    ios: 600,
                },
                SizeShare {
                    bytes: 65536,
                    ios: 400,
                },
            ],
            random_fraction: 0.3,
            latency_ns: latency,
        },
        write: TraceDirection::default(),
        random_fraction: 0.3,
        queue_depth: QuantileSummary::default(),
        interarrival_ns: QuantileSummary::default(),
        hot_set: HotSet::default(),
        processes: Vec::new(),
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    seed(db, Some(trace))
}

/// A capture of `vda` in one-minute intervals: 10 quiet minutes at 200 IOPS, a peak of
/// `peak_minutes` at 3,000 IOPS (70 % 8 KiB reads, 30 % writes), 10 quiet minutes again.
pub fn seed_peak_capture(db: &Path, peak_minutes: u64) -> i64 {
    let minutes = 10 + peak_minutes + 10;
    let (mut store, id) = begin(db, "diskmeter capture --device vda --interval 60s");
    for minute in 0..minutes {
        let iops = if (10..10 + peak_minutes).contains(&minute) {
            3000.0
        } else {
            200.0
        };
        let mut device = device("vda", iops * 0.7, iops * 0.3);
        device.write_kib_per_sec = iops * 0.3 * 8.0;
        device.write_request_kib = 8.0;
        let sample = CaptureSample {
            start_unix_ms: START_MS + minute * 60_000,
            duration_ms: 60_000.0,
            devices: vec![device],
            system: system(20.0, None),
        };
        store
            .append_capture_sample(id, &sample)
            .expect("append a sample");
    }
    store
        .finish_run(
            id,
            &RunEnd {
                finished_unix_ms: START_MS + minutes * 60_000,
                partial: false,
                summary: Some(format!("vda: {minutes} min")),
            },
        )
        .expect("finish the capture");
    id
}

/// A capture of `vda` begun in the history at `db`, as `command_line` would begin it.
fn begin(db: &Path, command_line: &str) -> (HistoryStore, i64) {
    let mut store = HistoryStore::open(db).expect("open the history");
    let id = store
        .begin_run(&RunHeader {
            kind: CAPTURE_KIND.to_string(),
            name: "capture".to_string(),
            target: "vda".to_string(),
            command_line: command_line.to_string(),
            host: HostFacts::default(),
            started_unix_ms: START_MS,
            diskmeter_version: "test".to_string(),
            hostname: "seed".to_string(),
            capture_id: None,
        })
        .expect("begin the capture");
    (store, id)
}

/// The system's interval: `cpu_busy` % busy, 1 of 4 GiB used, IO pressure `psi` (some,
/// full) when the kernel has it.
fn system(cpu_busy: f64, psi: Option<(f64, f64)>) -> SystemInterval {
    SystemInterval {
        cpu_busy_percent: cpu_busy,
        cpu_user_percent: 10.0,
        cpu_system_percent: 5.0,
        cpu_iowait_percent: 1.0,
        memory_used_bytes: 1 << 30,
        memory_total_bytes: 4 << 30,
        memory_cached_bytes: 1 << 29,
        io_pressure_some_percent: psi.map(|p| p.0),
        io_pressure_full_percent: psi.map(|p| p.1),
    }
}

fn seed(db: &Path, trace: Option<TraceProfile>) -> i64 {
    let (mut store, id) = begin(db, "diskmeter capture --device vda");
    for second in 0..120u64 {
        let (reads, writes) = if second < 60 {
            (1000.0, 500.0)
        } else {
            (3000.0, 1000.0)
        };
        let sample = CaptureSample {
            start_unix_ms: START_MS + second * 1000,
            duration_ms: 1000.0,
            devices: vec![device("vda", reads, writes), device("vda1", reads, writes)],
            system: system(if second < 60 { 20.0 } else { 60.0 }, Some((1.0, 0.5))),
        };
        store
            .append_capture_sample(id, &sample)
            .expect("append a sample");
    }
    if let Some(trace) = trace {
        store
            .save_trace_profile(id, &trace)
            .expect("save the trace");
    }
    store
        .finish_run(
            id,
            &RunEnd {
                finished_unix_ms: START_MS + 120_000,
                partial: false,
                summary: Some("vda: 2 min".to_string()),
            },
        )
        .expect("finish the capture");
    id
}
