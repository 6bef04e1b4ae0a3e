//! The facts of a run and of its steps as key-value groups: the run's summary (what, where,
//! when, how it ended), host, device and filesystem, and per step each job's workload,
//! per-direction figures, latency summaries and listed percentiles, CPU, steady state and the
//! confidence interval of the mean IOPS. Only figures the stored result holds are shown: a
//! percentile the job's `percentile_list` left out, a steady state not asked for, a host fact
//! that could not be read are left out, never printed as 0.

use crate::FactGroup;
use diskmeter_history::{HostFacts, StoredRun};
use diskmeter_report::format::{bytes_both, count, iops, rate_both, seconds, utc_timestamp};
use diskmeter_report::{
    ConfidenceInterval, DirectionResult, JobResult, LatencySummary, RunResult, SteadyStateResult,
};
use diskmeter_units::format_duration;

/// A group of facts, from (name, value) pairs.
fn group(title: impl Into<String>, rows: Vec<(String, String)>) -> FactGroup {
    FactGroup {
        title: title.into(),
        rows,
    }
}

/// What the run was: kind, name, target, when, how long, how it ended, which diskmeter.
pub(crate) fn run_summary(run: &StoredRun) -> FactGroup {
    let s = &run.summary;
    let mut rows = vec![
        ("kind".to_string(), s.kind.clone()),
        ("name".to_string(), s.name.clone()),
        ("target".to_string(), s.target.clone()),
        ("started".to_string(), utc_timestamp(s.started_unix_ms)),
        (
            "took".to_string(),
            format!(
                "{:.1} s",
                s.finished_unix_ms.saturating_sub(s.started_unix_ms) as f64 / 1000.0
            ),
        ),
    ];
    let status = if s.unfinished {
        "unfinished: begun but never finished (still running, or its process ended); the steps it finished are kept"
    } else if s.partial {
        "interrupted: the figures cover only the time run"
    } else {
        "finished"
    };
    rows.push(("status".to_string(), status.to_string()));
    if run.steps.len() > 1 {
        rows.push(("steps".to_string(), run.steps.len().to_string()));
    }
    rows.push((
        "diskmeter".to_string(),
        format!("{} on {}", s.diskmeter_version, s.hostname),
    ));
    group("Summary", rows)
}

/// The host, device and filesystem groups of the facts that could be read.
pub(crate) fn host_groups(host: &HostFacts) -> Vec<FactGroup> {
    let mut groups = Vec::new();
    let mut rows = Vec::new();
    push_text(&mut rows, "kernel", &host.kernel);
    if !host.cpu_model.is_empty() || host.cpu_count > 0 {
        let cpus = match (host.cpu_count, host.cpu_model.as_str()) {
            (0, model) => model.to_string(),
            (n, "") => format!("{n} CPUs"),
            (n, model) => format!("{n} x {model}"),
        };
        rows.push(("CPU".to_string(), cpus));
    }
    if host.memory_bytes > 0 {
        rows.push(("memory".to_string(), bytes_both(host.memory_bytes as f64)));
    }
    if !rows.is_empty() {
        groups.push(group("Host", rows));
    }
    if let Some(device) = &host.device {
        let mut rows = Vec::new();
        push_text(&mut rows, "name", &device.name);
        push_text(&mut rows, "model", &device.model);
        if device.size_bytes > 0 {
            rows.push(("size".to_string(), bytes_both(device.size_bytes as f64)));
        }
        if device.logical_block_bytes > 0 {
            rows.push((
                "block size".to_string(),
                format!(
                    "{} B logical, {} B physical",
                    device.logical_block_bytes, device.physical_block_bytes
                ),
            ));
        }
        push_text(&mut rows, "scheduler", &device.scheduler);
        if !device.name.is_empty() {
            let kind = if device.rotational {
                "rotational"
            } else {
                "non-rotational"
            };
            rows.push(("rotational".to_string(), kind.to_string()));
        }
        if !rows.is_empty() {
            groups.push(group("Device", rows));
        }
    }
    if let Some(fs) = &host.filesystem {
        let mut rows = Vec::new();
        push_text(&mut rows, "type", &fs.fs_type);
        push_text(&mut rows, "mount point", &fs.mount_point);
        push_text(&mut rows, "source", &fs.source);
        push_text(&mut rows, "options", &fs.options);
        if !rows.is_empty() {
            groups.push(group("Filesystem", rows));
        }
    }
    groups
}

fn push_text(rows: &mut Vec<(String, String)>, name: &str, value: &str) {
    if !value.trim().is_empty() {
        rows.push((name.to_string(), value.to_string()));
    }
}

/// The groups of one step: one per reported job, then CPU, steady state and confidence when
/// the result holds them.
pub(crate) fn step_groups(result: &RunResult) -> Vec<FactGroup> {
    let mut groups: Vec<FactGroup> = result
        .jobs
        .iter()
        .map(|j| job_group(j, &result.jobs))
        .collect();
    let cpu: Vec<(String, String)> = result
        .jobs
        .iter()
        .filter(|j| cpu_measured(j))
        .map(|j| (job_title(j, &result.jobs), cpu_text(j)))
        .collect();
    if !cpu.is_empty() {
        groups.push(group("CPU", cpu));
    }
    let steady: Vec<(String, String)> = result
        .jobs
        .iter()
        .filter_map(|j| {
            j.steady_state
                .as_ref()
                .map(|ss| (job_title(j, &result.jobs), ss))
        })
        .flat_map(|(title, ss)| steady_rows(&title, ss))
        .collect();
    if !steady.is_empty() {
        groups.push(group("Steady state", steady));
    }
    let confidence: Vec<(String, String)> = result
        .jobs
        .iter()
        .filter(|j| j.iops_mean_ci.samples > 0)
        .map(|j| (job_title(j, &result.jobs), confidence_text(&j.iops_mean_ci)))
        .collect();
    if !confidence.is_empty() {
        groups.push(group("Confidence of the mean IOPS", confidence));
    }
    groups
}

/// "randread-4k (2 workers)", "writer clone 1": how a job of `jobs` is named in facts and
/// charts (its clone only when another job of `jobs` has the same name).
pub(crate) fn job_title(job: &JobResult, jobs: &[JobResult]) -> String {
    let namesakes = jobs.iter().filter(|j| j.name == job.name).count();
    match (job.clone_index, job.workers) {
        (Some(clone), _) if namesakes > 1 => format!("{} clone {clone}", job.name),
        (None, n) if n > 1 => format!("{} ({n} workers)", job.name),
        _ => job.name.clone(),
    }
}

/// A job's CPU figures are there: a result converted from elsewhere may carry none.
pub(crate) fn cpu_measured(job: &JobResult) -> bool {
    let cpu = &job.cpu;
    cpu.user_ns > 0 || cpu.sys_ns > 0 || cpu.ctx > 0
}

fn cpu_text(job: &JobResult) -> String {
    let cpu = &job.cpu;
    format!(
        "usr {:.2} %, sys {:.2} % of the workers' runtime; {} context switches ({} voluntary, {} involuntary)",
        cpu.usr_percent,
        cpu.sys_percent,
        count(cpu.ctx),
        count(cpu.voluntary_ctx),
        count(cpu.involuntary_ctx)
    )
}

/// One job: its workload, then per direction that did IO its rates, latencies and listed
/// percentiles, then what went wrong if anything did.
fn job_group(job: &JobResult, jobs: &[JobResult]) -> FactGroup {
    let w = &job.workload;
    let bs = |spread: &Option<String>, bytes: u64| match spread {
        Some(spread) => spread.clone(),
        None => format!("{bytes} B"),
    };
    let (read_bs, write_bs) = (
        bs(&w.bs_read_spread, w.bs_read_bytes),
        bs(&w.bs_write_spread, w.bs_write_bytes),
    );
    let block_size = if read_bs == write_bs {
        read_bs
    } else {
        format!("{read_bs} (read), {write_bs} (write)")
    };
    let mut rows = vec![(
        "workload".to_string(),
        format!(
            "rw={}, bs={block_size}, ioengine={}, iodepth={}, group {}",
            w.rw, w.ioengine, w.iodepth, job.group_id
        ),
    )];
    // The series' sample length: a second unless DiskSpd's -D asked for another.
    let sample_ms = job
        .series
        .iter()
        .map(|s| s.duration_ms)
        .max()
        .unwrap_or(1000);
    for (name, d) in [("read", &job.read), ("write", &job.write)] {
        if d.ios > 0 {
            direction_rows(&mut rows, name, d, sample_ms);
        }
    }
    if let Some(trim) = job.trim.as_ref().filter(|t| t.ios > 0) {
        direction_rows(&mut rows, "trim", trim, sample_ms);
    }
    if let Some(sync) = job.sync.as_ref().filter(|s| s.count > 0) {
        rows.push(("sync latency".to_string(), latency_summary_text(sync)));
    }
    if let Some(verify) = &job.verify {
        rows.push((
            "verify".to_string(),
            format!(
                "{} blocks, {} checked in {} ({}), {} errors",
                count(verify.blocks),
                bytes_both(verify.bytes as f64),
                seconds(verify.runtime_ns),
                rate_both(verify.bw_bytes_per_sec),
                count(verify.errors)
            ),
        ));
    }
    if let Some(search) = &job.latency_target {
        rows.push((
            "latency target".to_string(),
            format!(
                "{} at p{} over {} windows: depth {}",
                format_duration(search.target_ns as f64),
                search.percentile,
                seconds(search.window_ns),
                search.depth
            ),
        ));
    }
    let depths: Vec<String> = job
        .depth
        .iodepth
        .iter()
        .filter(|b| b.percent >= 0.05)
        .map(|b| format!("{}={:.1}%", b.label, b.percent))
        .collect();
    if !depths.is_empty() {
        rows.push(("IO depths".to_string(), depths.join(", ")));
    }
    if let Some(errors) = job.io_errors.as_ref().filter(|e| e.total > 0) {
        let first = errors
            .first_error
            .as_deref()
            .map(|e| format!(", first: {e}"))
            .unwrap_or_default();
        rows.push((
            "IO errors".to_string(),
            format!("{}{first}", count(errors.total)),
        ));
    }
    if let Some(error) = &job.error {
        rows.push(("stopped early".to_string(), error.clone()));
    }
    for target in &job.targets {
        rows.push((
            "target".to_string(),
            format!(
                "{} ({}, {})",
                target.path,
                target.kind,
                bytes_both(target.size_bytes as f64)
            ),
        ));
    }
    group(format!("Job {}", job_title(job, jobs)), rows)
}

fn direction_rows(
    rows: &mut Vec<(String, String)>,
    name: &str,
    d: &DirectionResult,
    sample_ms: u64,
) {
    rows.push((
        name.to_string(),
        format!(
            "{} IOPS, {}, {} in {} IOs over {}",
            iops(d.iops),
            rate_both(d.bw_bytes_per_sec),
            bytes_both(d.bytes as f64),
            count(d.ios),
            seconds(d.runtime_ns)
        ),
    ));
    for (kind, summary) in [
        ("slat", &d.slat),
        ("clat", &d.clat),
        ("lat", &d.lat),
        ("lat_intended", &d.lat_intended),
    ] {
        if summary.count == 0 {
            continue;
        }
        rows.push((format!("{name} {kind}"), latency_summary_text(summary)));
    }
    if d.short_ios > 0 || d.errors > 0 {
        rows.push((
            format!("{name} short / failed"),
            format!("{} short, {} errors", count(d.short_ios), count(d.errors)),
        ));
    }
    let per_second = &d.iops_samples;
    if per_second.samples > 0 {
        let label = if sample_ms == 1000 {
            format!("{name} per-second IOPS")
        } else {
            format!("{name} IOPS per {sample_ms} ms sample")
        };
        rows.push((
            label,
            format!(
                "min {}, max {}, mean {}, stdev {:.2} over {} samples",
                iops(per_second.min),
                iops(per_second.max),
                iops(per_second.mean),
                per_second.stddev,
                per_second.samples
            ),
        ));
    }
}

/// "mean 182.40 usec, stdev 58.10 usec, min 90.00 usec, max 1.85 msec, 16,800 IOs".
fn latency_summary_text(s: &LatencySummary) -> String {
    let mut text = format!(
        "mean {}, stdev {}, min {}, max {}, {} IOs",
        format_duration(s.mean_ns),
        format_duration(s.stddev_ns),
        format_duration(s.min_ns as f64),
        format_duration(s.max_ns as f64),
        count(s.count)
    );
    if s.saturated > 0 {
        text.push_str(&format!(", {} above 1 h", count(s.saturated)));
    }
    text
}

/// The setting, the outcome and the last window's figures.
fn steady_rows(title: &str, ss: &SteadyStateResult) -> Vec<(String, String)> {
    let unit = if ss.limit_is_percent { "%" } else { "" };
    let mut setting = format!(
        "{}:{}{unit} over {} s",
        ss.criterion.as_str(),
        ss.limit,
        ss.window_ns as f64 / 1e9
    );
    if let Some(limit) = ss.precision_limit_percent {
        setting.push_str(&format!(", mean known to +-{limit}%"));
    }
    let outcome = match ss.attained_at_ns {
        Some(at) => format!("attained at {}", seconds(at)),
        None => "not attained".to_string(),
    };
    let mut rows = vec![(title.to_string(), format!("{setting}: {outcome}"))];
    if !ss.window_iops.is_empty() {
        let mut window = format!(
            "mean {} IOPS, {}",
            iops(ss.window_iops_mean),
            rate_both(ss.window_bw_mean_bytes_per_sec)
        );
        if let Some(value) = ss.criterion_value {
            window.push_str(&format!("; criterion {value:.4}{unit}"));
        }
        if let Some(precision) = ss.precision_percent {
            window.push_str(&format!("; mean +-{precision:.2}%"));
        }
        rows.push((format!("{title} last window"), window));
    }
    rows
}

/// "4,000 +- 12 IOPS (95 % CI, batch means of 6 per-second samples in 3 batches)".
fn confidence_text(ci: &ConfidenceInterval) -> String {
    match ci.half_width {
        Some(half) => format!(
            "{} +- {} IOPS (95 % CI, batch means of {} per-second samples in {} batches)",
            iops(ci.mean),
            iops(half),
            ci.samples,
            ci.batches
        ),
        None => format!(
            "{} IOPS (no 95 % CI: {} per-second samples, at least 4 needed)",
            iops(ci.mean),
            ci.samples
        ),
    }
}

/// The most latency kinds (direction, clock, job) the percentile table shows as columns.
const TRANSPOSED_UP_TO: usize = 6;

/// The step's listed percentiles as one table: a column per job, direction and kind
/// (completion latency, and intended-time latency for a paced job) and a row per percentile
/// for up to [`TRANSPOSED_UP_TO`] kinds, else a row per kind; each cell in its own unit; the
/// histogram's error bound in the caption, once. `None` when no job listed a percentile.
pub(crate) fn percentile_table(result: &RunResult) -> Option<crate::Table> {
    let several = result.jobs.len() > 1;
    let mut percents: Vec<f64> = Vec::new();
    let mut rows = Vec::new();
    for job in &result.jobs {
        for (name, d) in [("read", &job.read), ("write", &job.write)] {
            for (kind, summary) in [("clat", &d.clat), ("lat_intended", &d.lat_intended)] {
                if summary.count == 0 || summary.percentiles.is_empty() {
                    continue;
                }
                if percents.is_empty() {
                    percents = summary.percentiles.iter().map(|p| p.percent).collect();
                }
                let label = match several {
                    true => format!("{} {name} {kind}", job.name),
                    false => format!("{name} {kind}"),
                };
                let mut row = vec![crate::Cell::text(label)];
                row.extend(percents.iter().map(|&percent| {
                    crate::Cell::number(
                        summary
                            .percentile(percent)
                            .map_or("-".to_string(), |ns| format_duration(ns as f64)),
                    )
                }));
                rows.push(row);
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    let title = "Latency percentiles (values within 0.1 %: HDR histogram, 3 significant digits)";
    // A few latency kinds read down the percentiles, one column each, as fio lists them, and
    // fit a printed page; many (a job each) go one row each, wide, scrolled on screen.
    if rows.len() <= TRANSPOSED_UP_TO {
        let mut columns = vec!["percentile".to_string()];
        columns.extend(rows.iter().map(|row| row[0].text.clone()));
        let rows = percents
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut row = vec![crate::Cell::text(format!("p{p}"))];
                row.extend(rows.iter().map(|kind| kind[i + 1].clone()));
                row
            })
            .collect();
        return Some(crate::Table {
            title: title.to_string(),
            columns,
            rows,
        });
    }
    let mut columns = vec!["latency".to_string()];
    columns.extend(percents.iter().map(|p| format!("p{p}")));
    Some(crate::Table {
        title: title.to_string(),
        columns,
        rows,
    })
}
