//! fio-compatible JSON: the key tree, units and value types of fio 3.x `--output-format=json`,
//! so scripts and dashboards written for fio read diskmeter's results unchanged.
//!
//! Units follow fio, not diskmeter: `bw*` in KiB/s, `runtime` and `job_runtime` in ms, latencies
//! in ns, `io_kbytes` in KiB. Fields for things diskmeter does not measure (sync, page
//! faults, latency targets, disk utilisation) are present with fio's neutral values (zeros,
//! `latency_percentile` 100, `disk_util` empty) so parsers find every key they expect.
//! diskmeter adds keys of its own only under names that start with `diskmeter_`.

use serde_json::{json, Map, Value};

use crate::format::ctime_utc;
use crate::histograms::EncodedHistogram;
use crate::input::RunMeta;
use crate::schema::{
    DirectionResult, JobResult, JobWorkload, LabeledPercent, LatencySummary, RunResult, SampleStats,
};
use diskmeter_stats::LatencyHistogram;

/// The key of each direction object that holds diskmeter's latency from the intended issue
/// time (`lat_intended`), in the shape of fio's `lat_ns`; `N` is 0 for jobs without a rate
/// limit. Keys that start with `diskmeter_` are diskmeter's additions to fio's tree.
pub const LAT_INTENDED_KEY: &str = "diskmeter_lat_intended_ns";

/// The fio 3.x JSON document for `result` (fio `--output-format=json`).
pub fn to_fio_json(result: &RunResult) -> Value {
    document(result, false)
}

/// fio's json+ document for `result` (fio `--output-format=json+`): the JSON document plus,
/// in every latency object that lists percentiles, the `"bins"` of fio's latency buckets
/// ([`crate::fio_bins`]). A result without histograms (stored before schema 4) has no bins.
pub fn to_fio_json_plus(result: &RunResult) -> Value {
    document(result, true)
}

fn document(result: &RunResult, plus: bool) -> Value {
    let meta = &result.meta;
    let jobs: Vec<Value> = result
        .jobs
        .iter()
        .map(|job| fio_job(job, meta, plus))
        .collect();
    let doc = json!({
        "fio version": format!("diskmeter-{}", meta.diskmeter_version),
        // fio stamps the document when it writes it, i.e. at the end of the run.
        "timestamp": meta.finished_unix_ms / 1000,
        "timestamp_ms": meta.finished_unix_ms,
        // fio prints local time; diskmeter prints UTC so results compare across machines.
        "time": ctime_utc(meta.finished_unix_ms),
        "jobs": jobs,
        "disk_util": [],
    });
    // fio prints "global options" only when a global option was set, before "jobs".
    if result.global_options.is_empty() {
        return doc;
    }
    let mut ordered = Map::new();
    if let Value::Object(fields) = doc {
        for (key, value) in fields {
            if key == "jobs" {
                ordered.insert(
                    "global options".into(),
                    options_object(&result.global_options),
                );
            }
            ordered.insert(key, value);
        }
    }
    Value::Object(ordered)
}

fn fio_job(job: &JobResult, meta: &RunMeta, plus: bool) -> Value {
    // json+ adds bins from the job's exact histograms, decoded here (a few hundred bytes
    // each); one that does not decode gives no bins rather than wrong ones.
    let hist = |encoded: Option<&EncodedHistogram>| -> Option<LatencyHistogram> {
        encoded
            .filter(|_| plus)
            .and_then(|e| e.decode().ok())
            .filter(|h| !h.is_empty())
    };
    let histograms = job.histograms.as_ref();
    let direction = |name: &str| -> DirectionBins {
        let d = histograms.and_then(|h| match name {
            "read" => Some(&h.read),
            "write" => Some(&h.write),
            _ => h.trim.as_ref(),
        });
        DirectionBins {
            clat: hist(d.map(|d| &d.clat)),
            lat: hist(d.map(|d| &d.lat)),
            lat_intended: hist(d.map(|d| &d.lat_intended)),
        }
    };
    let sync_bins = hist(histograms.map(|h| &h.sync));
    let wall_ms = meta.finished_unix_ms.saturating_sub(meta.started_unix_ms);
    let b = &job.lat_buckets;
    let mut latency_ms = buckets(&b[20..31], 1_000_000);
    latency_ms[">=2000"] = json!(b[31].percent);
    let mut job_json = json!({
        "jobname": job.name,
        "groupid": job.group_id,
        // fio gives the errno of the job's (first) IO error here, also when the job went on
        // after it; a job that failed for another reason (rate_min) gives 1; a verify failure
        // ends the job with EILSEQ (84) in fio, and here.
        "error": fio_error(job),
        // A finished job has nothing left to wait for (fio prints INT_MAX here).
        "eta": 0,
        "elapsed": wall_ms.div_ceil(1000),
        "job options": job_options(job),
        "read": fio_direction(&job.read, &job.workload, &direction("read")),
        "write": fio_direction(&job.write, &job.workload, &direction("write")),
        "trim": fio_direction(
            job.trim.as_ref().unwrap_or(&idle_direction()),
            &job.workload,
            &direction("trim"),
        ),
        "sync": match &job.sync {
            Some(sync) => json!({
                "total_ios": sync.count,
                "lat_ns": lat_object(sync, true, sync_bins.as_ref()),
            }),
            None => json!({ "total_ios": 0, "lat_ns": lat_object(&idle_summary(), false, None) }),
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
        // fio's latency_target search: the depth found, and the target in fio's units (us).
        "latency_depth": job.latency_target.map_or(job.workload.iodepth, |l| l.depth),
        "latency_target": job.latency_target.map_or(0, |l| l.target_ns / 1_000),
        "latency_percentile": job.latency_target.map_or(100.0, |l| l.percentile),
        "latency_window": job.latency_target.map_or(0, |l| l.window_ns / 1_000),
    });
    // fio adds these two only for jobs with continue_on_error.
    if let Some(errors) = job.io_errors.as_ref().filter(|e| e.continue_on_error) {
        job_json["total_err"] = json!(errors.total);
        job_json["first_error"] = json!(errors.first_errno.unwrap_or(0));
    }
    // fio adds the job's `description` as "desc" only for jobs that have one.
    if let Some(description) = job.option("description") {
        job_json["desc"] = json!(description);
    }
    // fio adds the object only for jobs that asked for steady state.
    if let Some(steady) = crate::steady::fio_steadystate(job) {
        job_json["steadystate"] = steady;
    }
    // fio's JSON has no verify object (its verify reads are in "read"); diskmeter counts
    // them apart and adds its own key.
    if let Some(verify) = &job.verify {
        job_json["diskmeter_verify"] = json!({
            "blocks": verify.blocks,
            "io_kbytes": verify.bytes / 1024,
            "errors": verify.errors,
            "runtime": verify.runtime_ns / 1_000_000,
            "failures": verify.failures,
        });
    }
    job_json
}

/// fio's `error` of a job: EILSEQ (84) after a verify failure, else [`error_number`].
pub(crate) fn fio_error(job: &JobResult) -> i64 {
    match &job.verify {
        Some(verify) if verify.errors > 0 => 84,
        _ => error_number(job),
    }
}

/// fio's `error`: the first IO error's errno, 1 for a job that failed otherwise, else 0.
fn error_number(job: &JobResult) -> i64 {
    let first_io_error = job.io_errors.as_ref().and_then(|e| e.first_errno);
    match (first_io_error, &job.error) {
        (Some(errno), _) => i64::from(errno),
        (None, Some(_)) => 1,
        (None, None) => 0,
    }
}

/// fio's "job options": the options as the user typed them; for a job that did not come
/// from fio options (DiskSpd, Iometer) or a result stored before they were kept, its resolved
/// options as a job file gives them. An option typed twice is listed once, with its last
/// value (fio writes the key twice; JSON readers keep the last).
fn job_options(job: &JobResult) -> Value {
    options_object(job.given_options.as_ref().unwrap_or(&job.options))
}

fn options_object(options: &[crate::schema::JobOption]) -> Value {
    Value::Object(
        options
            .iter()
            .map(|o| (o.name.clone(), Value::String(o.value.clone())))
            .collect(),
    )
}

/// fio's per-direction object. Percentiles go where fio puts them: under `clat_ns` unless
/// `clat_percentiles=0`, under `lat_ns` with `lat_percentiles=1` (and, as diskmeter's own
/// rule, under `lat_ns` when there is no completion latency to list them under).
///
/// One key is diskmeter's own, [`LAT_INTENDED_KEY`]: fio has no latency from the intended
/// issue time, and without it a stall of a rate-limited job is invisible to readers of this
/// document (the service latency of the IOs issued late is short).
fn fio_direction(d: &DirectionResult, workload: &JobWorkload, bins: &DirectionBins) -> Value {
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
        // fio counts issued IOs here, the failed ones too (`continue_on_error`).
        "total_ios": d.ios + d.errors,
        "short_ios": d.short_ios,
        "drop_ios": 0,
        "slat_ns": lat_object(&d.slat, false, None),
        "clat_ns": lat_object(&d.clat, workload.clat_percentiles, bins.clat.as_ref()),
        "lat_ns": lat_object(
            &d.lat,
            workload.lat_percentiles || d.clat.count == 0,
            bins.lat.as_ref(),
        ),
        LAT_INTENDED_KEY: lat_object(&d.lat_intended, true, bins.lat_intended.as_ref()),
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

/// The decoded histograms of one direction, for json+'s bins (`None`: no bins).
struct DirectionBins {
    clat: Option<LatencyHistogram>,
    lat: Option<LatencyHistogram>,
    lat_intended: Option<LatencyHistogram>,
}

/// `{"min", "max", "mean", "stddev", "N"}` plus `"percentile"` keyed like "99.900000" and,
/// for json+, `"bins"` where the percentiles are (as fio: `stat.c` `add_ddir_lat_json`).
fn lat_object(
    s: &LatencySummary,
    with_percentiles: bool,
    bins: Option<&LatencyHistogram>,
) -> Value {
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
        if let Some(histogram) = bins {
            v["bins"] = crate::fio_bins::bins_object(histogram);
        }
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

/// A direction with no IO, for fio's "trim" of a job that did not trim.
pub(crate) fn idle_direction() -> DirectionResult {
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
