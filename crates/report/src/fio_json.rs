//! fio-compatible JSON: the key tree, units and value types of fio 3.x `--output-format=json`,
//! so scripts and dashboards written for fio read diskmeter's results unchanged.
//!
//! Units follow fio, not diskmeter: `bw*` in KiB/s, `runtime` and `job_runtime` in ms, latencies
//! in ns, `io_kbytes` in KiB. Fields for things diskmeter does not measure (trim, sync, page
//! faults, latency targets, disk utilisation) are present with fio's neutral values (zeros,
//! `latency_percentile` 100, `disk_util` empty) so parsers find every key they expect.

use serde_json::{json, Map, Value};

use crate::format::ctime_utc;
use crate::input::RunMeta;
use crate::schema::{
    DirectionResult, JobResult, LabeledPercent, LatencySummary, RunResult, SampleStats,
};
use diskmeter_workload::JobSpec;

/// The fio 3.x JSON document for `result`.
pub fn to_fio_json(result: &RunResult) -> Value {
    let meta = &result.meta;
    let jobs: Vec<Value> = result.jobs.iter().map(|job| fio_job(job, meta)).collect();
    json!({
        "fio version": format!("diskmeter-{}", meta.diskmeter_version),
        // fio stamps the document when it writes it, i.e. at the end of the run.
        "timestamp": meta.finished_unix_ms / 1000,
        "timestamp_ms": meta.finished_unix_ms,
        // fio prints local time; diskmeter prints UTC so results compare across machines.
        "time": ctime_utc(meta.finished_unix_ms),
        "global options": {},
        "jobs": jobs,
        "disk_util": [],
    })
}

fn fio_job(job: &JobResult, meta: &RunMeta) -> Value {
    let wall_ms = meta.finished_unix_ms.saturating_sub(meta.started_unix_ms);
    let b = &job.lat_buckets;
    let mut latency_ms = buckets(&b[20..31], 1_000_000);
    latency_ms[">=2000"] = json!(b[31].percent);
    let mut job_json = json!({
        "jobname": job.name,
        "groupid": job.group_id,
        // fio gives an errno here; diskmeter's errors are messages (in its own JSON), so 1 = failed.
        "error": u32::from(job.error.is_some()),
        // A finished job has nothing left to wait for (fio prints INT_MAX here).
        "eta": 0,
        "elapsed": wall_ms.div_ceil(1000),
        "job options": job_options(job),
        "read": fio_direction(&job.read, &job.spec),
        "write": fio_direction(&job.write, &job.spec),
        "trim": fio_direction(&idle_direction(), &job.spec),
        "sync": match &job.sync {
            Some(sync) => json!({ "total_ios": sync.count, "lat_ns": lat_object(sync, true) }),
            None => json!({ "total_ios": 0, "lat_ns": lat_object(&idle_summary(), false) }),
        },
        "job_runtime": job.workers_runtime_ns / 1_000_000,
        "usr_cpu": job.cpu.usr_percent,
        "sys_cpu": job.cpu.sys_percent,
        "ctx": job.cpu.ctx,
        "majf": 0,
        "minf": 0,
        "iodepth_level": labeled(&job.depth.iodepth),
        "iodepth_submit": labeled(&job.depth.submit),
        "iodepth_complete": labeled(&job.depth.complete),
        "latency_ns": buckets(&b[0..10], 1),
        "latency_us": buckets(&b[10..20], 1_000),
        "latency_ms": latency_ms,
        "latency_depth": job.spec.iodepth,
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    });
    // fio adds the object only for jobs that asked for steady state.
    if let Some(steady) = crate::steady::fio_steadystate(job) {
        job_json["steadystate"] = steady;
    }
    job_json
}

/// The options that describe the job, spelled as fio job-file options with string values.
fn job_options(job: &JobResult) -> Value {
    let spec = &job.spec;
    let mut o = Map::new();
    let mut put = |key: &str, value: String| {
        o.insert(key.to_string(), Value::String(value));
    };
    put("name", spec.name.clone());
    if !spec.filenames.is_empty() {
        let names: Vec<String> = spec
            .filenames
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        put("filename", names.join(":"));
    }
    if let Some(dir) = &spec.directory {
        put("directory", dir.display().to_string());
    }
    put("rw", spec.rw.as_str().to_string());
    let bs = spec.bs_bytes;
    put(
        "bs",
        if bs.read == bs.write {
            bs.read.to_string()
        } else {
            format!("{},{}", bs.read, bs.write)
        },
    );
    put("ioengine", spec.ioengine.as_str().to_string());
    put("iodepth", spec.iodepth.to_string());
    put("numjobs", spec.numjobs.to_string());
    put("direct", u8::from(spec.direct).to_string());
    if let Some(size) = spec.size_bytes {
        put("size", size.to_string());
    }
    if let Some(runtime) = spec.runtime_ns {
        put("runtime", format!("{}ms", runtime / 1_000_000));
    }
    if spec.time_based {
        put("time_based", "1".into());
    }
    if spec.ramp_time_ns > 0 {
        put("ramp_time", format!("{}ms", spec.ramp_time_ns / 1_000_000));
    }
    if spec.rw.is_mixed() {
        put("rwmixread", spec.rwmixread.to_string());
    }
    let per_dir = |v: diskmeter_workload::PerDirection<Option<u64>>| -> Option<String> {
        (v.read.is_some() || v.write.is_some())
            .then(|| format!("{},{}", v.read.unwrap_or(0), v.write.unwrap_or(0)))
    };
    if let Some(rate) = per_dir(spec.rate_iops) {
        put("rate_iops", rate);
    }
    if let Some(rate) = per_dir(spec.rate_bytes_per_sec) {
        put("rate", rate);
    }
    if spec.group_reporting {
        put("group_reporting", "1".into());
    }
    crate::steady::fio_job_options(spec, &mut o);
    Value::Object(o)
}

/// fio's per-direction object. Percentiles go where fio puts them: under `clat_ns` unless
/// `clat_percentiles=0`, under `lat_ns` with `lat_percentiles=1` (and, as diskmeter's own
/// rule, under `lat_ns` when there is no completion latency to list them under).
fn fio_direction(d: &DirectionResult, spec: &JobSpec) -> Value {
    let bw_bytes = d.bw_bytes_per_sec.round() as u64;
    let bw: &SampleStats = &d.bw_samples_bytes_per_sec;
    let io: &SampleStats = &d.iops_samples;
    json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes / 1024,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes / 1024,
        "iops": d.iops,
        "runtime": d.runtime_ns / 1_000_000,
        "total_ios": d.ios,
        "short_ios": d.short_ios,
        "drop_ios": 0,
        "slat_ns": lat_object(&d.slat, false),
        "clat_ns": lat_object(&d.clat, spec.clat_percentiles),
        "lat_ns": lat_object(&d.lat, spec.lat_percentiles || d.clat.count == 0),
        "bw_min": (bw.min / 1024.0).round() as u64,
        "bw_max": (bw.max / 1024.0).round() as u64,
        "bw_agg": d.bw_percent_of_group,
        "bw_mean": bw.mean / 1024.0,
        "bw_dev": bw.stddev / 1024.0,
        "bw_samples": bw.samples,
        "iops_min": io.min.round() as u64,
        "iops_max": io.max.round() as u64,
        "iops_mean": io.mean,
        "iops_stddev": io.stddev,
        "iops_samples": io.samples,
    })
}

/// `{"min", "max", "mean", "stddev", "N"}` plus `"percentile"` keyed like "99.900000".
fn lat_object(s: &LatencySummary, with_percentiles: bool) -> Value {
    let mut v = json!({
        "min": s.min_ns,
        "max": s.max_ns,
        "mean": s.mean_ns,
        "stddev": s.stddev_ns,
        "N": s.count,
    });
    if with_percentiles && s.count > 0 && !s.percentiles.is_empty() {
        let table: Map<String, Value> = s
            .percentiles
            .iter()
            .map(|p| (format!("{:.6}", p.percent), json!(p.value_ns)))
            .collect();
        v["percentile"] = Value::Object(table);
    }
    v
}

fn labeled(buckets: &[LabeledPercent]) -> Value {
    Value::Object(
        buckets
            .iter()
            .map(|b| (b.label.clone(), json!(b.percent)))
            .collect(),
    )
}

/// Latency buckets keyed by their upper bound in the given unit ("2", "4", ..., "1000").
fn buckets(range: &[crate::schema::LatencyBucket], scale: u64) -> Value {
    Value::Object(
        range
            .iter()
            .map(|b| {
                (
                    ((b.upper_ns.unwrap_or(0)) / scale).to_string(),
                    json!(b.percent),
                )
            })
            .collect(),
    )
}

fn idle_summary() -> LatencySummary {
    LatencySummary {
        count: 0,
        min_ns: 0,
        max_ns: 0,
        mean_ns: 0.0,
        stddev_ns: 0.0,
        saturated: 0,
        percentiles: Vec::new(),
    }
}

/// A direction with no IO, for fio's "trim" (diskmeter does not trim).
fn idle_direction() -> DirectionResult {
    DirectionResult {
        ios: 0,
        bytes: 0,
        short_ios: 0,
        errors: 0,
        runtime_ns: 0,
        iops: 0.0,
        bw_bytes_per_sec: 0.0,
        bw_percent_of_group: 0.0,
        slat: idle_summary(),
        clat: idle_summary(),
        lat: idle_summary(),
        lat_intended: idle_summary(),
        bw_samples_bytes_per_sec: SampleStats::default(),
        iops_samples: SampleStats::default(),
    }
}
