//! The Worker on the null engine with a manual clock: no device, no real sleeping. Time
//! moves only when the worker sleeps (for its rate schedule or a throttle turn) and by a
//! fixed step at every clock reading, so each IO takes a little time.
//!
//! The null engine is watched ([`Watched`]): the tests see every unit the worker queued and
//! how many were in flight whenever the worker waited for a completion.

use super::{Worker, WorkerContext, WorkerOutcome};
use crate::clock::ManualClock;
use crate::gate::StartGate;
use crate::prepare::{engine_choice, resolve, PlanOptions};
use crate::service_time::ServiceTime;
use crate::throttle::{Throttle, ThrottleLimits};
use crate::LiveCounters;
use diskmeter_engine::{
    BufferFill, Capabilities, EngineConfig, EngineError, IoCompletion, IoEngine, IoOp, IoUnit,
};
use diskmeter_workload::{apply_option, JobSpec};
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const MS: u64 = 1_000_000;
const SEC: u64 = 1_000_000_000;
/// Each clock reading moves time by 1 us: IOs take a few microseconds, as on a fast device.
const STEP_NS: u64 = 1_000;

/// A manual clock at 1 s that moves [`STEP_NS`] at every reading.
fn manual_clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(SEC, STEP_NS))
}

/// A null-engine job from fio-style options.
fn job(options: &[(&str, &str)]) -> JobSpec {
    let mut job = JobSpec::default();
    apply_option(&mut job, "ioengine", Some("null")).unwrap();
    for (name, value) in options {
        apply_option(&mut job, name, Some(value)).unwrap();
    }
    job
}

/// The null engine, watched. Completions are handed back at most `per_reap` at a time (the
/// oldest first), as a device that finishes IOs one by one; `stall` moves the clock at the
/// n-th queued unit, as a device that hangs.
struct Watched {
    null: Box<dyn IoEngine>,
    clock: Arc<ManualClock>,
    per_reap: usize,
    stall: Option<(usize, u64)>,
    /// Completed by the null engine, not yet handed back.
    done: VecDeque<IoCompletion>,
    pending: usize,
    in_flight: usize,
    /// Every unit's op, in queue order.
    ops: Vec<IoOp>,
    /// In flight (and queued) at every call that waits for a completion.
    depth_at_wait: Vec<usize>,
    /// In flight when each sync was queued.
    in_flight_at_sync: Vec<usize>,
}

impl Watched {
    fn new(job: &JobSpec, iodepth: u32, clock: Arc<ManualClock>) -> Watched {
        let config = EngineConfig {
            choice: engine_choice(job.ioengine),
            iodepth,
            buffer_len_bytes: job.max_bs_bytes() as usize,
            buffer_align_bytes: 4096,
            fds: Vec::new(),
            fixed_buffers: false,
            register_files: false,
            fill: BufferFill::Random,
            seed: 1,
            tuning: Default::default(),
        };
        Watched {
            null: diskmeter_engine::open_engine(&config).unwrap(),
            clock,
            per_reap: usize::MAX,
            stall: None,
            done: VecDeque::new(),
            pending: 0,
            in_flight: 0,
            ops: Vec::new(),
            depth_at_wait: Vec::new(),
            in_flight_at_sync: Vec::new(),
        }
    }

    fn count(&self, op: IoOp) -> usize {
        self.ops.iter().filter(|&&o| o == op).count()
    }
}

impl IoEngine for Watched {
    fn name(&self) -> &'static str {
        "null (watched)"
    }

    fn capabilities(&self) -> Capabilities {
        self.null.capabilities()
    }

    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        if matches!(unit.op, IoOp::Fsync | IoOp::Fdatasync) {
            self.in_flight_at_sync.push(self.in_flight + self.pending);
        }
        self.ops.push(unit.op);
        if let Some((at, ns)) = self.stall {
            if self.ops.len() == at {
                self.clock.advance(ns);
            }
        }
        self.pending += 1;
        self.null.queue(unit)
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        self.in_flight += self.pending;
        self.pending = 0;
        self.null.commit()
    }

    fn getevents(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
        if min > 0 {
            self.depth_at_wait.push(self.in_flight);
        }
        let mut ready = Vec::new();
        self.null.getevents(0, &mut ready)?;
        self.done.extend(ready);
        let n = self.done.len().min(self.per_reap.max(min));
        out.extend(self.done.drain(..n));
        self.in_flight -= n;
        Ok(n)
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.null.buffer_mut(slot)
    }
}

/// One worker run: what it measured, its error, and what the engine saw.
struct Run {
    outcome: WorkerOutcome,
    engine: Watched,
}

impl Run {
    fn reads(&self) -> u64 {
        self.outcome.stats.read.ios
    }
}

/// Runs `job` (one clone) on the watched null engine with `clock`, under `throttle`.
fn run_with(
    job: JobSpec,
    clock: &Arc<ManualClock>,
    throttle: Option<&Throttle>,
    watch: impl FnOnce(&mut Watched),
) -> Run {
    run_served(job, clock, (throttle, None), watch)
}

/// [`run_with`] with an emulated service time too.
fn run_served(
    job: JobSpec,
    clock: &Arc<ManualClock>,
    (throttle, service_time): (Option<&Throttle>, Option<ServiceTime>),
    watch: impl FnOnce(&mut Watched),
) -> Run {
    let plan = resolve(&[job], &PlanOptions::default()).unwrap();
    let (worker_plan, job) = (&plan.workers[0], &plan.jobs[0]);
    let (stop, abort) = (AtomicBool::new(false), AtomicBool::new(false));
    let (live, gate) = (LiveCounters::default(), StartGate::new(1));
    let ctx = WorkerContext {
        plan: worker_plan,
        job,
        targets: worker_plan
            .targets
            .iter()
            .map(|&t| (-1, &plan.targets[t]))
            .collect(),
        stop: &stop,
        abort: &abort,
        live: &live,
        start: &gate,
        buffer_align_bytes: 4096,
        shared_positions: None,
        iolog: None,
        steady: None,
        throttle,
        service_time,
        links: Default::default(),
    };
    let mut engine = Watched::new(job, worker_plan.iodepth, Arc::clone(clock));
    watch(&mut engine);
    let (replay, recorder) =
        crate::replay::open_for_worker(job, ctx.targets.iter().map(|(_, t)| t.path.as_path()))
            .unwrap();
    let outcome = Worker::new(&ctx, &mut engine, &**clock, None)
        .with_replay(replay)
        .with_recorder(recorder)
        .run();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    Run { outcome, engine }
}

fn run(job: JobSpec, clock: &Arc<ManualClock>) -> Run {
    run_with(job, clock, None, |_| {})
}

#[test]
fn the_queue_depth_is_held_exactly() {
    for iodepth in [1u32, 8, 32] {
        let clock = manual_clock();
        let depth = iodepth.to_string();
        let job = job(&[("size", "4m"), ("rw", "randread"), ("iodepth", &depth)]);
        // The device finishes one IO at a time: every freed slot is refilled before the
        // worker waits again.
        let r = run_with(job, &clock, None, |e| e.per_reap = 1);
        let waits = &r.engine.depth_at_wait;
        let full = waits.iter().filter(|&&d| d == iodepth as usize).count();
        // Only the drain at the end waits with fewer in flight.
        assert_eq!(
            full,
            waits.len() - (iodepth as usize - 1),
            "QD{iodepth}: {waits:?}"
        );
        assert!(waits.iter().all(|&d| d <= iodepth as usize), "QD{iodepth}");
        assert_eq!(r.reads(), 1024, "QD{iodepth}: 4 MiB of 4 KiB reads");
    }
}

#[test]
fn rate_iops_issues_on_its_schedule_and_nothing_after_the_runtime() {
    for (runtime, ios) in [("1", 1000), ("2", 2000), ("5", 5000)] {
        let clock = manual_clock();
        let job = job(&[
            ("size", "1g"),
            ("rate_iops", "1000"),
            ("runtime", runtime),
            ("time_based", "1"),
        ]);
        let r = run(job, &clock);
        // Intended at 0, 1 ms, 2 ms, ...: exactly rate x runtime inside the runtime.
        assert_eq!(r.reads(), ios, "{runtime} s");
        assert_eq!(
            r.engine.count(IoOp::Read) as u64,
            ios,
            "none issued after the end"
        );
        assert_eq!(
            r.outcome.stats.runtime_ns,
            runtime.parse::<u64>().unwrap() * SEC
        );
        // On schedule, so from the intended time each IO takes only its own few us.
        let intended = &r.outcome.stats.read.lat_intended;
        assert_eq!(intended.count(), ios);
        assert!(intended.max() < 20 * STEP_NS, "{}", intended.max());
    }
}

#[test]
fn a_delayed_issue_shows_in_the_intended_time_latency() {
    let clock = manual_clock();
    let job = job(&[
        ("size", "1g"),
        ("rate_iops", "1000"),
        ("runtime", "2"),
        ("time_based", "1"),
    ]);
    // The device hangs for 500 ms on the 100th IO.
    let r = run_with(job, &clock, None, |e| e.stall = Some((100, 500 * MS)));
    let read = &r.outcome.stats.read;
    // The 500 IOs due during the hang are issued late, back to back: all are still done, and
    // their wait counts from when they were due.
    assert_eq!(read.ios, 2000);
    let late = read.lat_intended.count_by_ranges(&[100 * MS]);
    assert!(late[1] >= 400, "{late:?}");
    let max = read.lat_intended.max();
    assert!((500 * MS..510 * MS).contains(&max), "{max}");
    // The service latency sees the hang once, in the IO that hung.
    let hung = read.lat.count_by_ranges(&[100 * MS]);
    assert_eq!(hung[1], 1, "{hung:?}");
}

#[test]
fn ramp_ios_are_not_counted() {
    let clock = manual_clock();
    let job = job(&[
        ("size", "1g"),
        ("rate_iops", "1000"),
        ("ramp_time", "1"),
        ("runtime", "1"),
        ("time_based", "1"),
    ]);
    let r = run(job, &clock);
    assert_eq!(r.engine.count(IoOp::Read), 2000, "ramp and runtime issued");
    assert_eq!(r.reads(), 1000, "the runtime's only");
    assert_eq!(r.outcome.stats.runtime_ns, SEC);
    let series_ios: u64 = r.outcome.stats.series.iter().map(|s| s.read.ios).sum();
    assert_eq!(series_ios, 1000);
}

#[test]
fn a_size_limited_job_stops_at_its_size() {
    let clock = manual_clock();
    let r = run(job(&[("size", "1m"), ("iodepth", "8")]), &clock);
    assert_eq!((r.reads(), r.outcome.stats.read.bytes), (256, 1 << 20));
    assert_eq!(
        r.engine.count(IoOp::Read),
        256,
        "nothing issued past the size"
    );
    // io_size: more IO than the region, in passes over it.
    let clock = manual_clock();
    let r = run(job(&[("size", "1m"), ("io_size", "3m")]), &clock);
    assert_eq!(r.outcome.stats.read.bytes, 3 << 20);
    // The size counts measured IO only: the ramp's IO does not use it up.
    let clock = manual_clock();
    let job = job(&[
        ("size", "1m"),
        ("rate_iops", "1000"),
        ("ramp_time", "100ms"),
    ]);
    let r = run(job, &clock);
    assert_eq!(r.outcome.stats.read.bytes, 1 << 20);
    assert_eq!(r.engine.count(IoOp::Read), 256 + 100);
}

#[test]
fn syncs_are_issued_after_every_nth_write_and_counted_as_fio_counts_them() {
    for iodepth in ["1", "4"] {
        let clock = manual_clock();
        let job = job(&[
            ("rw", "write"),
            ("size", "256k"),
            ("iodepth", iodepth),
            ("fsync", "4"),
            ("end_fsync", "1"),
        ]);
        let r = run(job, &clock);
        let ops = &r.engine.ops;
        // 64 writes; a sync after every 4th except the last (the job is done then), then
        // end_fsync's one, which fio does not count.
        assert_eq!(r.engine.count(IoOp::Write), 64, "QD{iodepth}");
        assert_eq!(r.engine.count(IoOp::Fsync), 16, "QD{iodepth}");
        assert_eq!(r.outcome.stats.sync.count(), 15, "QD{iodepth}");
        for (k, op) in ops.iter().enumerate() {
            let expected = if k % 5 == 4 { IoOp::Fsync } else { IoOp::Write };
            assert_eq!(*op, expected, "QD{iodepth}: op {k} of {ops:?}");
        }
        // A sync covers the writes before it: it goes alone, once they have completed.
        assert!(
            r.engine.in_flight_at_sync.iter().all(|&n| n == 0),
            "QD{iodepth}: {:?}",
            r.engine.in_flight_at_sync
        );
    }
    let clock = manual_clock();
    let job = job(&[("rw", "randwrite"), ("size", "256k"), ("fdatasync", "8")]);
    let r = run(job, &clock);
    assert_eq!(r.engine.count(IoOp::Fdatasync), 7);
    assert_eq!(r.outcome.stats.sync.count(), 7);
    assert_eq!(r.engine.count(IoOp::Fsync), 0, "no end_fsync asked");
}

/// A shared throttle of `limits` over a `runtime_s` time-based run of `bs` random reads at
/// QD 32.
fn throttled(limits: ThrottleLimits, bs: &str, extra: &[(&str, &str)]) -> Run {
    let clock = manual_clock();
    let throttle = Throttle::new(&limits).unwrap();
    let mut options = vec![
        ("size", "1g"),
        ("rw", "randread"),
        ("bs", bs),
        ("iodepth", "32"),
        ("time_based", "1"),
    ];
    options.extend_from_slice(extra);
    run_with(job(&options), &clock, Some(&throttle), |_| {})
}

#[test]
fn a_throttle_cap_gives_exactly_its_budget() {
    let iops = ThrottleLimits {
        iops: Some(2000),
        ..ThrottleLimits::default()
    };
    let bw = ThrottleLimits {
        bytes_per_sec: Some(200 << 20),
        ..ThrottleLimits::default()
    };
    for (runtime, seconds) in [("1", 1), ("2", 2), ("5", 5)] {
        let r = throttled(iops, "4k", &[("runtime", runtime)]);
        assert_eq!(r.reads(), 2000 * seconds, "2,000 IOPS for {runtime} s");
        let r = throttled(bw, "1m", &[("runtime", runtime)]);
        assert_eq!(
            r.reads(),
            200 * seconds,
            "200 MiB/s of 1 MiB for {runtime} s"
        );
        assert_eq!(r.outcome.stats.runtime_ns, seconds * SEC);
    }
}

/// Issue 13: at the end of the runtime the IOs waiting for their throttle turn were issued
/// at their turn and counted, `iodepth` more than the cap allowed (232 IOs of 1 MiB in 1 s
/// under 200 MiB/s at QD 32). Not granted in time, they are not issued at all.
#[test]
fn throttle_does_not_over_report_by_iodepth_at_the_end_of_the_runtime() {
    let bw = ThrottleLimits {
        bytes_per_sec: Some(200 << 20),
        ..ThrottleLimits::default()
    };
    for (runtime, seconds) in [("1", 1), ("2", 2), ("5", 5)] {
        let r = throttled(bw, "1m", &[("runtime", runtime)]);
        assert_eq!(r.reads(), 200 * seconds, "{runtime} s");
        assert_eq!(
            r.engine.count(IoOp::Read) as u64,
            200 * seconds,
            "{runtime} s: IOs without a turn in the runtime are not issued"
        );
    }
}

#[test]
fn under_the_throttle_the_ramp_and_the_cool_down_are_not_counted() {
    let iops = ThrottleLimits {
        iops: Some(2000),
        ..ThrottleLimits::default()
    };
    // IOs waiting at the end of the ramp count once granted: the runtime has its whole budget.
    let r = throttled(iops, "4k", &[("ramp_time", "1"), ("runtime", "1")]);
    assert_eq!(r.reads(), 2000);
    assert_eq!(r.engine.count(IoOp::Read), 4000);
    // DiskSpd's cool-down keeps the load on, uncounted: IOs wanted in the runtime but
    // granted in the cool-down are the cool-down's.
    let mut job = job(&[
        ("size", "1g"),
        ("rw", "randread"),
        ("iodepth", "32"),
        ("runtime", "1"),
        ("time_based", "1"),
    ]);
    job.cooldown_ns = SEC;
    let clock = manual_clock();
    let throttle = Throttle::new(&iops).unwrap();
    let r = run_with(job, &clock, Some(&throttle), |_| {});
    assert_eq!(r.reads(), 2000);
    assert_eq!(r.engine.count(IoOp::Read), 4000);
}

#[test]
fn a_replay_issues_its_ios_at_their_times_and_a_stall_does_not_delay_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("trace.log");
    // 2,000 reads 1 ms apart (µs timestamps), then a datasync.
    let mut text = String::from("fio version 3 iolog\n0 /virtual/a add\n");
    for i in 0..2000u64 {
        text.push_str(&format!(
            "{} /virtual/a read {} 4096\n",
            i * 1000,
            (i % 64) * 4096
        ));
    }
    text.push_str("1999500 /virtual/a datasync 0 0\n");
    std::fs::write(&log, text).unwrap();
    let clock = manual_clock();
    let job = job(&[("read_iolog", log.to_str().unwrap()), ("iodepth", "8")]);
    // The device hangs for 500 ms on the 100th IO.
    let r = run_with(job, &clock, None, |e| e.stall = Some((100, 500 * MS)));
    let read = &r.outcome.stats.read;
    assert_eq!(read.ios, 2000);
    assert_eq!(r.engine.count(IoOp::Read), 2000);
    assert_eq!(r.engine.count(IoOp::Fdatasync), 1);
    assert_eq!(r.outcome.stats.sync.count(), 1);
    // The IOs due during the hang go late, back to back; the ones after it are on time, so
    // the replay still ends when its log does (2 s), not 500 ms later.
    assert!(
        r.outcome.stats.runtime_ns < 2 * SEC + 10 * MS,
        "{}",
        r.outcome.stats.runtime_ns
    );
    let late = read.lat_intended.count_by_ranges(&[100 * MS]);
    assert!(late[1] >= 400, "{late:?}");
    assert_eq!(read.lat_intended.count(), 2000);
}

#[test]
fn a_connection_closes_after_its_transactions_once_the_queue_has_drained() {
    let clock = manual_clock();
    let mut job = job(&[("size", "4m"), ("rw", "randread"), ("iodepth", "8")]);
    job.control.transactions_per_connection = Some(10);
    let r = run_with(job, &clock, None, |e| e.per_reap = 1);
    assert_eq!(r.reads(), 1024);
    // 102 connections had their 10 IOs and closed; the 103rd was open at the end.
    let connections = r.outcome.stats.connections;
    assert_eq!(connections.count, 102);
    assert!(connections.max_ns >= connections.total_ns / connections.count);
    // The queue drains before each close: 101 times it waits down to one IO in flight
    // before the last drain at the end.
    let drained = r.engine.depth_at_wait.iter().filter(|&&d| d == 1).count();
    assert!(drained >= 102, "{:?}", r.engine.depth_at_wait);
}

#[test]
fn a_bandwidth_cap_counts_the_bytes_of_ios_the_random_map_shrank() {
    let clock = manual_clock();
    // 1 MiB of 512-byte blocks, filled many times over in 2 s: most IOs shrink.
    let job = job(&[
        ("size", "1m"),
        ("rw", "randread"),
        ("bssplit", "512/50:64k/50"),
        ("rate", "8m"),
        ("runtime", "2"),
        ("time_based", "1"),
    ]);
    let r = run(job, &clock);
    let read = &r.outcome.stats.read;
    let mean = read.bytes / read.ios;
    assert!(
        mean < 20_000,
        "IOs shrank: mean {mean} bytes of a 33,024 split"
    );
    // 8 MiB/s for 2 s, on the bytes done.
    let wanted = 16u64 << 20;
    assert!(
        read.bytes.abs_diff(wanted) * 100 <= wanted,
        "{} bytes, wanted {wanted}",
        read.bytes
    );
}

#[test]
fn a_service_time_keeps_the_slot_busy_so_littles_law_holds() {
    // 1 s at QD 1 and QD 4 with a fixed 2 ms per IO on an instant engine: 500 and 2,000 IOPS,
    // every latency at least 2 ms.
    for (iodepth, expected) in [("1", 500u64), ("4", 2000)] {
        let clock = manual_clock();
        let options = [
            ("size", "1g"),
            ("rw", "randread"),
            ("iodepth", iodepth),
            ("time_based", "1"),
            ("runtime", "1"),
        ];
        let served = Some(ServiceTime::Fixed { ns: 2_000_000 });
        let r = run_served(job(&options), &clock, (None, served), |_| {});
        let reads = r.reads();
        assert!(
            reads.abs_diff(expected) <= 4,
            "QD {iodepth}: {reads} IOs in 1 s"
        );
        let lat = &r.outcome.stats.read.lat;
        assert!(
            lat.min() >= 2_000_000,
            "QD {iodepth}: min lat {}",
            lat.min()
        );
        assert!(r.outcome.stats.read.clat.min() >= 2_000_000);
    }
}
