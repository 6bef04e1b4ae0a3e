//! fio's terse output (`--output-format=terse`, `--minimal`): one semicolon-separated line per
//! reported job, in the field order of fio's HOWTO "Terse output" (versions 2 to 5; 3 is
//! fio's default), for the scripts that cut fields out of it by position.
//!
//! Units are fio's: sizes in KiB, bandwidth in KiB/s, runtime in ms, latencies in whole us
//! (min, max, percentiles; fio divides its ns by 1000 and truncates) and fractional us
//! (mean, standard deviation). Figures diskmeter does not measure are fio's neutral values:
//! major and minor faults 0. fio appends each disk's utilisation (9 fields) to the line when
//! it has disks to report; diskmeter does not measure disk utilisation yet, so those fields
//! are absent (as in fio's own output of a job with no disk, e.g. the null engine), and the
//! `continue_on_error` and description fields follow the latency fields directly.
//!
//! What diskmeter measures beyond fio (latency from the intended issue time) has no field.

use std::fmt::Write;

use crate::schema::{DirectionResult, JobResult, LatencySummary, RunResult, SampleStats};
use diskmeter_workload::DEFAULT_PERCENTILES;

/// Percentile fields per direction (fio `FIO_IO_U_LIST_MAX_LEN`).
const PERCENTILE_FIELDS: usize = 20;

/// A terse format version (fio `--terse-version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerseVersion {
    /// No fio version field; trims; the description on a line of its own.
    V2,
    /// fio's default: the fio version after the format version; no trims.
    V3,
    /// v3 plus trims.
    V4,
    /// v4 plus each direction's bandwidth sample count and IOPS statistics.
    V5,
}

impl TerseVersion {
    /// The version from its number (2 to 5), or `None`.
    pub fn from_number(n: u32) -> Option<TerseVersion> {
        match n {
            2 => Some(TerseVersion::V2),
            3 => Some(TerseVersion::V3),
            4 => Some(TerseVersion::V4),
            5 => Some(TerseVersion::V5),
            _ => None,
        }
    }

    fn number(self) -> u32 {
        match self {
            TerseVersion::V2 => 2,
            TerseVersion::V3 => 3,
            TerseVersion::V4 => 4,
            TerseVersion::V5 => 5,
        }
    }
}

/// fio's terse lines for `result`, one per reported job, each ending in a newline.
pub fn to_fio_terse(result: &RunResult, version: TerseVersion) -> String {
    let mut out = String::new();
    for job in &result.jobs {
        terse_job(&mut out, job, &result.meta.diskmeter_version, version);
    }
    out
}

fn terse_job(out: &mut String, job: &JobResult, diskmeter_version: &str, version: TerseVersion) {
    let error = crate::fio_json::fio_error(job);
    if version == TerseVersion::V2 {
        let _ = write!(out, "2;{};{};{}", job.name, job.group_id, error);
    } else {
        let _ = write!(
            out,
            "{};diskmeter-{};{};{};{}",
            version.number(),
            diskmeter_version,
            job.name,
            job.group_id,
            error
        );
    }
    let list = percentile_list(job);
    direction(out, job, &job.read, &list, version);
    direction(out, job, &job.write, &list, version);
    if version != TerseVersion::V3 {
        let idle = crate::fio_json::idle_direction();
        direction(out, job, job.trim.as_ref().unwrap_or(&idle), &list, version);
    }
    let _ = write!(
        out,
        ";{:.6}%;{:.6}%;{};0;0",
        job.cpu.usr_percent, job.cpu.sys_percent, job.cpu.ctx
    );
    for level in job.depth.iodepth.iter().take(7) {
        let _ = write!(out, ";{:.1}%", level.percent);
    }
    // fio's terse microsecond row folds the nanosecond buckets into its first (<= 2 us)
    // field (`stat_calc_lat_nu`); the millisecond row is the JSON's.
    let b = &job.lat_buckets;
    let under_2us: f64 = b[0..11].iter().map(|x| x.percent).sum();
    let _ = write!(out, ";{under_2us:.2}%");
    for bucket in &b[11..] {
        let _ = write!(out, ";{:.2}%", bucket.percent);
    }
    if let Some(errors) = job.io_errors.as_ref().filter(|e| e.continue_on_error) {
        let _ = write!(out, ";{};{}", errors.total, errors.first_errno.unwrap_or(0));
    }
    if let Some(description) = job.option("description") {
        if version == TerseVersion::V2 {
            out.push('\n');
        }
        let _ = write!(out, ";{description}");
    }
    out.push('\n');
}

/// The job's percentile list (fio `percentile_list`), from a direction that listed it.
fn percentile_list(job: &JobResult) -> Vec<f64> {
    [&job.read, &job.write]
        .iter()
        .flat_map(|d| [&d.clat, &d.lat])
        .find(|s| !s.percentiles.is_empty())
        .map(|s| s.percentiles.iter().map(|p| p.percent).collect())
        .unwrap_or_else(|| DEFAULT_PERCENTILES.to_vec())
}

fn direction(
    out: &mut String,
    job: &JobResult,
    d: &DirectionResult,
    list: &[f64],
    version: TerseVersion,
) {
    let bw_kib = (d.bw_bytes_per_sec / 1024.0) as u64;
    let _ = write!(
        out,
        ";{};{};{};{}",
        d.bytes / 1024,
        bw_kib,
        d.iops as u64,
        d.runtime_ns / 1_000_000
    );
    latency(out, &d.slat);
    latency(out, &d.clat);
    // fio lists the total latency's percentiles with lat_percentiles, else the completion
    // latency's with clat_percentiles (the default), else none.
    let listed = if job.workload.lat_percentiles {
        Some(&d.lat)
    } else if job.workload.clat_percentiles {
        Some(&d.clat)
    } else {
        None
    };
    for i in 0..PERCENTILE_FIELDS {
        match (listed, list.get(i)) {
            (Some(summary), Some(&percent)) => {
                let value_us = summary.percentile(percent).unwrap_or(0) / 1000;
                let _ = write!(out, ";{percent:.6}%={value_us}");
            }
            _ => out.push_str(";0%=0"),
        }
    }
    latency(out, &d.lat);
    let bw = &d.bw_samples_bytes_per_sec;
    if bw.samples > 0 {
        let _ = write!(
            out,
            ";{};{};{:.6}%;{:.6};{:.6}",
            (bw.min / 1024.0).round() as u64,
            (bw.max / 1024.0).round() as u64,
            d.bw_percent_of_group.min(100.0),
            bw.mean / 1024.0,
            bw.stddev / 1024.0
        );
    } else {
        out.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    if version == TerseVersion::V5 {
        let io: &SampleStats = &d.iops_samples;
        let _ = write!(
            out,
            ";{};{};{};{:.6};{:.6};{}",
            bw.samples,
            io.min.round() as u64,
            io.max.round() as u64,
            io.mean,
            io.stddev,
            io.samples
        );
    }
}

/// `;min;max;mean;stddev` in us, as fio: whole us for the extremes, fractional for the rest.
fn latency(out: &mut String, s: &LatencySummary) {
    if s.count == 0 {
        out.push_str(";0;0;0.000000;0.000000");
        return;
    }
    let _ = write!(
        out,
        ";{};{};{:.6};{:.6}",
        s.min_ns / 1000,
        s.max_ns / 1000,
        s.mean_ns / 1000.0,
        s.stddev_ns / 1000.0
    );
}
