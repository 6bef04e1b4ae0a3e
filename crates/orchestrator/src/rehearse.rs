//! `plan --rehearse`: builds the planned configuration from emulated disks and runs the
//! requirement's workload on it, then holds the plan's prediction against the measurement.
//!
//! As root: the disks are loop devices each capped by the emulation's cgroup at the tier's
//! caps, striped by btrfs raid0 (`diskmeter_emulate::stripe`), and the VM's uncached caps are
//! the in-engine throttle (one budget across the disks, which the per-device cgroup rules
//! cannot be). Each disk's rate comes from its device counters, sampled every 100 ms so the
//! ramp can be left out. Without root the in-engine throttle rehearses what it can: the VM's
//! cap and the disks' summed caps as one in-engine cap, on a plain file; what it cannot (each
//! disk's own cap, the stripe) is said, not failed.
//!
//! Everything made is removed on success, failure and Ctrl-C: the striped volume is a guard
//! whose drop unmounts, detaches and removes, and the run ends early on the stop signal.

use crate::error::OrchestrateError;
use crate::{signals, Batch, CommandKind, HistoryChoice, Session, Settings, Step};
use diskmeter_emulate::stripe::{self, StripedVolume};
use diskmeter_emulate::{Caps, EmulationSpec};
use diskmeter_plan::rehearsal::{self, Comparison, Measured, MeasuredDisk, RehearsalSetup};
use diskmeter_runner::ThrottleLimits;
use diskmeter_units::MIB_F64;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What to rehearse, and at what scale.
#[derive(Debug, Clone)]
pub struct RehearseRequest {
    /// The plan's configuration and workload ([`rehearsal::setup`]).
    pub setup: RehearsalSetup,
    /// Each emulated disk's size, bytes (`--rehearse-size`).
    pub disk_bytes: u64,
    /// The measured runtime (`--rehearse-time`); a ramp of a fifth of it (at most 5 s) runs
    /// before.
    pub runtime: Duration,
    /// The folder of the backing files and the mount (not tmpfs).
    pub dir: PathBuf,
    /// Where the workload comes from, for the reader ("--workload", "capture 12 at p99").
    pub workload_source: String,
}

impl RehearseRequest {
    /// A rehearsal in the current folder of `setup` at this scale; `capture` is the id of
    /// `--from-capture`, whose demand (not its IO stream) the workload is.
    pub fn new(
        setup: RehearsalSetup,
        disk_bytes: u64,
        runtime: Duration,
        capture: Option<&str>,
    ) -> RehearseRequest {
        let workload_source = match capture {
            Some(id) => format!("capture {id}'s demand at its level, not its IO stream"),
            None => "--workload".to_string(),
        };
        RehearseRequest {
            setup,
            disk_bytes,
            runtime,
            dir: PathBuf::from("."),
            workload_source,
        }
    }
}

/// A rehearsal's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Rehearsal {
    /// What was built and run.
    pub setup: RehearsalSetup,
    /// Where the workload comes from.
    pub workload_source: String,
    /// The workload as fio options.
    pub job: Vec<String>,
    /// Whether the disks were emulated and striped (root), or only the in-engine caps ran.
    pub emulated: bool,
    /// The in-engine cap in force: IOPS.
    pub engine_iops: Option<u64>,
    /// The in-engine cap in force: bytes per second.
    pub engine_bytes_per_sec: Option<u64>,
    /// What this rehearsal could not emulate, and why.
    pub not_rehearsed: Vec<String>,
    /// The measured runtime, ramp excluded, seconds.
    pub runtime_s: f64,
    /// The ramp before it, seconds.
    pub ramp_s: f64,
    /// What was measured.
    pub measured: Measured,
    /// Predicted against measured, per path.
    pub comparison: Comparison,
}

/// The ramp before the measured period: a fifth of the runtime, from 1 s to 5 s.
fn ramp_for(runtime: Duration) -> Duration {
    (runtime / 5).clamp(Duration::from_secs(1), Duration::from_secs(5))
}

fn failed(message: impl Into<String>) -> OrchestrateError {
    OrchestrateError::Rehearsal(message.into())
}

/// Runs the rehearsal of `request`: builds the striped volume (root) or a plain file, runs the
/// workload under the in-engine VM cap, and compares.
pub fn rehearse(request: &RehearseRequest) -> Result<Rehearsal, OrchestrateError> {
    let setup = &request.setup;
    // Installed before anything is made, so Ctrl-C during the making ends in the guard's drop.
    let stop = signals::stop_flag().map_err(OrchestrateError::Signals)?;
    let emulated = rustix::process::geteuid().is_root();
    let volume = if emulated {
        Some(make_volume(request)?)
    } else {
        None
    };
    if stop.load(Ordering::Relaxed) {
        return Err(failed("interrupted while the volume was made; removed"));
    }
    let (file, file_bytes) = match &volume {
        Some(v) => (v.file().to_path_buf(), v.file_bytes()),
        None => (
            request
                .dir
                .join(format!(".diskmeter-rehearse-{}.img", std::process::id())),
            request.disk_bytes,
        ),
    };
    let mut not_rehearsed = Vec::new();
    let mut throttle = ThrottleLimits {
        iops: setup.vm_iops.map(|v| v.round() as u64),
        bytes_per_sec: setup.vm_mibps.map(|v| (v * MIB_F64).round() as u64),
        ..ThrottleLimits::default()
    };
    if !emulated {
        let n = f64::from(setup.disk_count);
        let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        throttle.iops = min(
            throttle.iops,
            setup.disk_iops.map(|v| (v * n).round() as u64),
        );
        throttle.bytes_per_sec = min(
            throttle.bytes_per_sec,
            setup.disk_mibps.map(|v| (v * n * MIB_F64).round() as u64),
        );
        not_rehearsed.push(format!(
            "each disk's own cap: loop devices under a cgroup need root; the {} disks' summed \
             caps are one in-engine cap beside the VM's instead",
            setup.disk_count
        ));
        not_rehearsed.push(format!(
            "the stripe: btrfs raid0 over loop devices needs root; the workload ran on a plain \
             file, {}",
            file.display()
        ));
    }
    let ramp = ramp_for(request.runtime);
    let job = job_options(setup, &file, file_bytes, request.runtime, ramp);
    let given: Vec<(String, Option<String>)> = job
        .iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (o.clone(), None),
        })
        .collect();
    let (jobs, _) = diskmeter_workload::command_line_jobs(&given).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        failed(format!("the workload does not parse: {}", lines.join("; ")))
    })?;
    if let Some(v) = &volume {
        v.enter().map_err(|e| failed(e.to_string()))?;
    }
    let settings = Settings {
        // The striped file is the rehearsal's own.
        allow_destroy: true,
        throttle,
        history: HistoryChoice::Off,
        ..Settings::default()
    };
    let mut session = Session::open(settings)?;
    let devices: Vec<PathBuf> = volume
        .as_ref()
        .map(|v| v.disks().into_iter().map(|d| d.device).collect())
        .unwrap_or_default();
    let sampler = Sampler::start(devices.clone());
    let batch = Batch::new(CommandKind::Run, vec![Step::new("rehearse", jobs)]);
    let outcome = session.run(&batch, &mut []);
    let samples = sampler.finish();
    drop(session);
    if let Some(error) = outcome.error {
        return Err(error);
    }
    if outcome.interrupted {
        return Err(failed("interrupted; everything it made is removed"));
    }
    let step = (outcome.steps.first()).ok_or_else(|| failed("the run did not finish"))?;
    if step.partial() || step.failed() {
        return Err(failed(format!(
            "the run did not finish: {}",
            step.errors.join("; ")
        )));
    }
    let result = &step.result;
    let runtime_ns = result.jobs.iter().map(|j| j.runtime_ns).max().unwrap_or(0);
    let sum = |f: &dyn Fn(&diskmeter_report::DirectionResult) -> f64| -> f64 {
        result.jobs.iter().map(|j| f(&j.read) + f(&j.write)).sum()
    };
    // The measured period ends when the IO did; it began a runtime before (the phase's start
    // is taken before the workers are up, so start + ramp would take in idle time).
    let end_ns = result.meta.io_finished_unix_ns;
    let phase_ns = result
        .meta
        .phase_starts_unix_ns
        .first()
        .copied()
        .unwrap_or(0);
    let start_ns = end_ns
        .saturating_sub(runtime_ns)
        .max(phase_ns + ramp.as_nanos() as u64);
    let (iops, mibps) = (sum(&|d| d.iops), sum(&|d| d.bw_bytes_per_sec) / MIB_F64);
    // One job: its interval is the run's; MiB/s move with IOPS at the workload's sizes.
    let iops_half_width = result.jobs.first().and_then(|j| j.iops_mean_ci.half_width);
    let measured = Measured {
        iops,
        mibps,
        iops_half_width,
        mibps_half_width: iops_half_width
            .filter(|_| iops > 0.0)
            .map(|h| h * mibps / iops),
        disks: disk_rates(
            &devices,
            &samples,
            start_ns,
            result.meta.io_finished_unix_ns,
        ),
    };
    drop(volume);
    Ok(Rehearsal {
        comparison: rehearsal::compare(setup, &measured),
        setup: setup.clone(),
        workload_source: request.workload_source.clone(),
        job,
        emulated,
        engine_iops: throttle.iops,
        engine_bytes_per_sec: throttle.bytes_per_sec,
        not_rehearsed,
        runtime_s: runtime_ns as f64 / 1e9,
        ramp_s: ramp.as_secs_f64(),
        measured,
    })
}

fn make_volume(request: &RehearseRequest) -> Result<StripedVolume, OrchestrateError> {
    let setup = &request.setup;
    let w = &setup.workload;
    // The kernel caps each direction on its own; a disk's cap is on both together. Split in
    // the workload's own mix, the two rules add up to the disk's cap for this workload.
    let r = w.read_fraction;
    let read_bytes = r * w.read_bs_bytes as f64;
    let byte_share = read_bytes / (read_bytes + (1.0 - r) * w.write_bs_bytes as f64);
    let part = |cap: Option<f64>, share: f64| {
        let share = if share > 0.0 && share < 1.0 {
            share
        } else {
            1.0
        };
        cap.map(|v| (v * share).round().max(1.0) as u64)
    };
    let bytes = setup.disk_mibps.map(|v| v * MIB_F64);
    let spec = EmulationSpec {
        name: format!("rehearse-{}", std::process::id()),
        size_bytes: request.disk_bytes,
        caps: Caps {
            read_iops: part(setup.disk_iops, r),
            write_iops: part(setup.disk_iops, 1.0 - r),
            read_bytes_per_sec: part(bytes, byte_share),
            write_bytes_per_sec: part(bytes, 1.0 - byte_share),
        },
        dir: request.dir.clone(),
        owner_pid: Some(std::process::id()),
        disks: setup.disk_count,
        // A bursting tier is rehearsed at its baseline, its credits spent (the plan's notes
        // say so): a bucket of minutes would make a 20 s rehearsal measure the burst.
        burst: None,
    };
    stripe::create(&spec).map_err(|e| failed(e.to_string()))
}

/// The workload as fio options: the requirement's sizes, mix, randomness and rate, at the
/// plan's queue depth, direct IO, time based with the ramp.
fn job_options(
    setup: &RehearsalSetup,
    file: &Path,
    file_bytes: u64,
    runtime: Duration,
    ramp: Duration,
) -> Vec<String> {
    let w = &setup.workload;
    // fio's percentage_random applies to a random pattern: any random share makes it one.
    let random = w.random_fraction > 0.0;
    let rw = match (w.read_fraction, random) {
        (r, true) if r >= 1.0 => "randread",
        (r, false) if r >= 1.0 => "read",
        (r, true) if r <= 0.0 => "randwrite",
        (r, false) if r <= 0.0 => "write",
        (_, true) => "randrw",
        (_, false) => "rw",
    };
    let mut job = vec![
        "name=rehearse".to_string(),
        format!("filename={}", file.display()),
        format!("size={file_bytes}"),
        format!("rw={rw}"),
        format!("bs={},{}", w.read_bs_bytes, w.write_bs_bytes),
        format!("iodepth={}", w.queue_depth),
        "direct=1".to_string(),
        "time_based=1".to_string(),
        format!("runtime={}ms", runtime.as_millis()),
        format!("ramp_time={}ms", ramp.as_millis()),
    ];
    if rw == "randrw" || rw == "rw" {
        job.push(format!("rwmixread={}", (w.read_fraction * 100.0).round()));
    }
    if w.random_fraction > 0.0 && w.random_fraction < 1.0 {
        job.push(format!(
            "percentage_random={}",
            (w.random_fraction * 100.0).round()
        ));
    }
    if let Some(rate) = w.rate_iops {
        let reads = (rate * w.read_fraction).ceil() as u64;
        let writes = (rate * (1.0 - w.read_fraction)).ceil() as u64;
        job.push(match (reads, writes) {
            (r, 0) => format!("rate_iops={r}"),
            (0, w) => format!("rate_iops={w}"),
            (r, w) => format!("rate_iops={r},{w}"),
        });
    }
    job
}

/// Device counters sampled every 100 ms on a thread of their own: (unix ns, [(requests,
/// bytes)] per device).
type Samples = Vec<(u64, Vec<(u64, u64)>)>;

struct Sampler {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Samples>>,
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

impl Sampler {
    fn start(devices: Vec<PathBuf>) -> Sampler {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let thread = (!devices.is_empty()).then(|| {
            std::thread::spawn(move || {
                let mut samples = Vec::new();
                loop {
                    let counters = devices
                        .iter()
                        .map(|d| stripe::device_counters(d).unwrap_or_default())
                        .collect();
                    samples.push((unix_ns(), counters));
                    if flag.load(Ordering::Relaxed) {
                        return samples;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        });
        Sampler { done, thread }
    }

    fn finish(mut self) -> Samples {
        self.done.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

/// Each device's rate between the first sample at or after `start_ns` and the last at or
/// before `end_ns`, with the 95 % half-width of its 1 s rates over that period (batch
/// means, as the run's own interval).
fn disk_rates(
    devices: &[PathBuf],
    samples: &Samples,
    start_ns: u64,
    end_ns: u64,
) -> Vec<MeasuredDisk> {
    let inside: Vec<&(u64, Vec<(u64, u64)>)> = samples
        .iter()
        .filter(|(t, _)| *t >= start_ns && *t <= end_ns)
        .collect();
    let (Some((t0, _)), Some((t1, _))) = (inside.first(), inside.last()) else {
        return Vec::new();
    };
    if t1 <= t0 {
        return Vec::new();
    }
    // The samples that open each whole second of the period.
    let mut seconds = vec![inside[0]];
    for sample in &inside {
        if sample.0 >= seconds.last().map_or(0, |s| s.0) + 1_000_000_000 {
            seconds.push(sample);
        }
    }
    let rate = |a: &(u64, Vec<(u64, u64)>), b: &(u64, Vec<(u64, u64)>), i: usize| {
        let span = (b.0 - a.0) as f64 / 1e9;
        let (r0, b0) = a.1.get(i).copied().unwrap_or_default();
        let (r1, b1) = b.1.get(i).copied().unwrap_or_default();
        (
            r1.saturating_sub(r0) as f64 / span,
            b1.saturating_sub(b0) as f64 / MIB_F64 / span,
        )
    };
    let interval = |values: Vec<f64>| {
        let estimate = diskmeter_stats::batch_means(&values);
        estimate
            .half_width
            .is_finite()
            .then_some(estimate.half_width)
    };
    devices
        .iter()
        .enumerate()
        .map(|(i, device)| {
            let (iops, mibps) = rate(inside[0], inside[inside.len() - 1], i);
            let per_second: Vec<(f64, f64)> =
                seconds.windows(2).map(|w| rate(w[0], w[1], i)).collect();
            MeasuredDisk {
                device: device.display().to_string(),
                iops,
                mibps,
                iops_half_width: interval(per_second.iter().map(|r| r.0).collect()),
                mibps_half_width: interval(per_second.iter().map(|r| r.1).collect()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_is_a_fifth_of_the_runtime_within_1_to_5_s() {
        assert_eq!(ramp_for(Duration::from_secs(20)), Duration::from_secs(4));
        assert_eq!(ramp_for(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(ramp_for(Duration::from_secs(60)), Duration::from_secs(5));
    }

    #[test]
    fn disk_rates_leave_out_the_samples_outside_the_period() {
        let s = |t: u64, r: u64| (t * 100_000_000, vec![(r, r * 8192)]);
        // 1,000 requests a second from 0.2 s on; a burst before it is left out.
        let samples = vec![s(0, 0), s(1, 900), s(2, 1000), s(12, 2000), s(13, 2100)];
        let rates = disk_rates(
            &[PathBuf::from("/dev/loop9")],
            &samples,
            150_000_000,
            1_250_000_000,
        );
        assert_eq!(rates[0].iops, 1000.0);
        assert_eq!(rates[0].mibps, 1000.0 * 8192.0 / MIB_F64);
    }
}
