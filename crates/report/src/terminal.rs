//! The human summary printed at the end of a run, laid out like fio's so its users find every
//! figure where they expect it, but with every value carrying its own scaled unit ("9.37 us",
//! "4.25 ms": [`diskmeter_units::format_duration`]) and the percentiles as one table per job
//! (a row per direction and kind, a column per percentile).

use std::fmt::Write as _;

use diskmeter_workload::Direction;

use diskmeter_units::format_duration;

use crate::format::{bytes_both, count, iops, rate_both, seconds, utc_timestamp};
use crate::schema::{
    DirectionResult, GroupDirection, JobResult, LabeledPercent, LatencySummary, RunResult,
};

/// Renders the whole result. Deterministic: the same result gives the same text.
pub fn render_terminal(result: &RunResult) -> String {
    let mut out = String::new();
    let meta = &result.meta;
    if meta.partial {
        out.push_str("*** PARTIAL RESULTS (interrupted): figures cover only the time run ***\n\n");
    }
    let _ = writeln!(
        out,
        "diskmeter {} on {}: {} .. {} ({})",
        meta.diskmeter_version,
        meta.hostname,
        utc_timestamp(meta.started_unix_ms),
        utc_timestamp(meta.finished_unix_ms),
        seconds(meta.finished_unix_ms.saturating_sub(meta.started_unix_ms) * 1_000_000),
    );
    for note in &meta.notes {
        let _ = writeln!(out, "note: {note}");
    }
    for job in &result.jobs {
        out.push('\n');
        render_job(&mut out, job);
    }
    for group in &result.groups {
        let _ = writeln!(out, "\nRun status group {} (all jobs):", group.group_id);
        for (label, dir) in [("READ", &group.read), ("WRITE", &group.write)] {
            if dir.ios > 0 {
                group_line(&mut out, label, dir);
            }
        }
        if let Some(trim) = &group.trim {
            group_line(&mut out, "TRIM", trim);
        }
    }
    if let Some(scale_out) = &result.scale_out {
        crate::scale_out::render_terminal(&mut out, scale_out);
    }
    out
}

fn render_job(out: &mut String, job: &JobResult) {
    let workload = &job.workload;
    let clone = job
        .clone_index
        .map(|c| format!(", clone={c}"))
        .unwrap_or_default();
    let error = job
        .error
        .as_deref()
        .map(|e| format!("err={e}"))
        .unwrap_or("err=none".into());
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}{clone}): {error}",
        job.name, job.group_id, job.workers
    );
    let bs = |spread: &Option<String>, bytes: u64| match spread {
        None => format!("{bytes} B"),
        Some(spread) => spread.clone(),
    };
    let _ = writeln!(
        out,
        "  rw={}, bs=(R) {}, (W) {}, ioengine={}, iodepth={}",
        workload.rw,
        bs(&workload.bs_read_spread, workload.bs_read_bytes),
        bs(&workload.bs_write_spread, workload.bs_write_bytes),
        workload.ioengine,
        workload.iodepth
    );
    for direction in Direction::BOTH {
        let d = job.direction(direction);
        if d.ios > 0 {
            render_direction(out, direction.as_str(), d);
        }
    }
    if let Some(trim) = &job.trim {
        render_direction(out, "trim", trim);
    }
    if let Some(sync) = &job.sync {
        let _ = writeln!(
            out,
            "  sync: {} file syncs (fsync/fdatasync)",
            count(sync.count)
        );
        latency_line(out, "    sync lat", sync);
    }
    if let Some(c) = &job.connections {
        // Iometer's connection-rate figures.
        let _ = writeln!(
            out,
            "  connections  : {} ({:.2}/s), every {} IOs; time mean={}, max={}",
            count(c.count),
            c.per_second,
            c.transactions_per_connection,
            format_duration(c.mean_ns),
            format_duration(c.max_ns as f64)
        );
    }
    if let Some(verify) = &job.verify {
        render_verify(out, verify);
    }
    percentile_table(out, job);
    render_lat_buckets(out, job);
    let cpu = &job.cpu;
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={} (voluntary {}, involuntary {})",
        cpu.usr_percent,
        cpu.sys_percent,
        count(cpu.ctx),
        count(cpu.voluntary_ctx),
        count(cpu.involuntary_ctx)
    );
    crate::steady::render_lines(out, job);
    if let Some(search) = &job.latency_target {
        // fio's line for its latency_target search.
        let _ = writeln!(
            out,
            "  latency      : target={}, window={}, percentile={:.2}%, depth={}",
            format_duration(search.target_ns as f64),
            format_duration(search.window_ns as f64),
            search.percentile,
            search.depth
        );
    }
    let _ = writeln!(out, "  IO depths    : {}", percents(&job.depth.iodepth));
    if job.depth.submit.iter().any(|b| b.percent > 0.0) {
        let _ = writeln!(out, "     submit    : {}", percents(&job.depth.submit));
    }
    if job.depth.complete.iter().any(|b| b.percent > 0.0) {
        let _ = writeln!(out, "     complete  : {}", percents(&job.depth.complete));
    }
    let _ = writeln!(
        out,
        "     issued    : total={},{} short={},{} errors={},{}",
        count(job.read.ios),
        count(job.write.ios),
        count(job.read.short_ios),
        count(job.write.short_ios),
        count(job.read.errors),
        count(job.write.errors)
    );
    if let Some(trim) = &job.trim {
        let _ = writeln!(
            out,
            "     trims     : total={} short={} errors={}",
            count(trim.ios),
            count(trim.short_ios),
            count(trim.errors)
        );
    }
    if let Some(errors) = &job.io_errors {
        render_io_errors(out, errors);
    }
    for target in &job.targets {
        let _ = writeln!(
            out,
            "  target       : {} ({}, {})",
            target.path,
            target.kind,
            bytes_both(target.size_bytes as f64)
        );
    }
}

/// fio's "errors" line (`total=48, first_error=28/<No space left on device>`), then each
/// error of an `error_dump`.
fn render_io_errors(out: &mut String, errors: &crate::schema::IoErrorSummary) {
    let first = match (errors.first_errno, &errors.first_error) {
        (Some(errno), Some(text)) => format!("{errno}/<{text}>"),
        _ => "0".to_string(),
    };
    let _ = writeln!(
        out,
        "     errors    : total={}, first_error={first}",
        count(errors.total)
    );
    for e in &errors.dump {
        let _ = writeln!(
            out,
            "       {} error: {} offset={} len={} file#{}{}",
            e.op,
            crate::build::errno_text(e.errno),
            e.offset_bytes,
            e.len_bytes,
            e.file,
            if e.continued { " (went on)" } else { "" }
        );
    }
    if errors.dump_dropped > 0 {
        let _ = writeln!(
            out,
            "       ... {} more errors not listed",
            errors.dump_dropped
        );
    }
}

fn render_direction(out: &mut String, name: &str, d: &DirectionResult) {
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={}, io={} in {} IOs, runtime={}",
        iops(d.iops),
        rate_both(d.bw_bytes_per_sec),
        bytes_both(d.bytes as f64),
        count(d.ios),
        seconds(d.runtime_ns)
    );
    for (label, summary) in [
        ("    slat", &d.slat),
        ("    clat", &d.clat),
        ("     lat", &d.lat),
        ("     lat_intended", &d.lat_intended),
    ] {
        if summary.count > 0 {
            latency_line(out, label, summary);
        }
    }
    let bw = &d.bw_samples_bytes_per_sec;
    if bw.samples > 0 {
        let _ = writeln!(
            out,
            "    bw   : min={}, max={}, per={:.2}%, avg={}, stdev={}, samples={}",
            rate_both(bw.min),
            rate_both(bw.max),
            d.bw_percent_of_group,
            rate_both(bw.mean),
            rate_both(bw.stddev),
            bw.samples
        );
        let io = &d.iops_samples;
        let _ = writeln!(
            out,
            "    iops : min={}, max={}, avg={}, stdev={:.2}, samples={}",
            iops(io.min),
            iops(io.max),
            iops(io.mean),
            io.stddev,
            io.samples
        );
    }
}

/// "clat: min=640 ns, max=2.93 ms, avg=52.2 us, stdev=58.4 us, N=60,323": each value in its
/// own unit; with "saturated at 1 h=N" appended when latencies exceeded the histogram's range.
fn latency_line(out: &mut String, label: &str, s: &LatencySummary) {
    let _ = writeln!(
        out,
        "{label}: min={}, max={}, avg={}, stdev={}, N={}{}",
        format_duration(s.min_ns as f64),
        format_duration(s.max_ns as f64),
        format_duration(s.mean_ns),
        format_duration(s.stddev_ns),
        count(s.count),
        if s.saturated > 0 {
            format!(", saturated at 1 h={}", count(s.saturated))
        } else {
            "".into()
        }
    );
}

/// The percentiles a direction's table row shows: completion latency (total latency when
/// the engine gave no completion time), and the intended-time latency of a paced job.
fn percentile_rows<'a>(name: &str, d: &'a DirectionResult) -> Vec<(String, &'a LatencySummary)> {
    let mut rows = Vec::new();
    let (kind, summary) = if d.clat.count > 0 {
        ("clat", &d.clat)
    } else {
        ("lat", &d.lat)
    };
    rows.push((format!("{name} {kind}"), summary));
    if d.lat_intended.count > 0 {
        // The tail that counts for a paced job: latency from when each IO was due.
        rows.push((format!("{name} lat_intended"), &d.lat_intended));
    }
    rows.retain(|(_, s)| !s.percentiles.is_empty());
    rows
}

/// The job's percentiles as one table: a row per direction and kind, a column per listed
/// percentile, each cell in its own unit; columns in blocks of at most nine so a line fits
/// a terminal. The histogram's error bound is stated once, in the heading.
fn percentile_table(out: &mut String, job: &JobResult) {
    let mut rows = Vec::new();
    for direction in Direction::BOTH {
        let d = job.direction(direction);
        if d.ios > 0 {
            rows.extend(percentile_rows(direction.as_str(), d));
        }
    }
    if let Some(trim) = &job.trim {
        rows.extend(percentile_rows("trim", trim));
    }
    let Some((_, first)) = rows.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "  percentiles  : values within 0.1 % (HDR histogram, 3 significant digits)"
    );
    let percents: Vec<f64> = first.percentiles.iter().map(|p| p.percent).collect();
    let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for block in (0..percents.len()).collect::<Vec<_>>().chunks(9) {
        let mut header = format!("    {:label_width$}", "");
        for &i in block {
            let _ = write!(header, " {:>9}", format!("p{}", percents[i]));
        }
        let _ = writeln!(out, "{}", header.trim_end());
        for (label, summary) in &rows {
            let mut line = format!("    {label:label_width$}");
            for &i in block {
                let cell = summary
                    .percentiles
                    .get(i)
                    .map_or("-".to_string(), |p| format_duration(p.value_ns as f64));
                let _ = write!(line, " {cell:>9}");
            }
            let _ = writeln!(out, "{line}");
        }
    }
}

/// fio's "lat (usec) : 2=22.27%, 4=31.57%" lines: non-empty buckets (>= 0.01 %), one line per
/// unit, labelled by each bucket's upper bound.
fn render_lat_buckets(out: &mut String, job: &JobResult) {
    for (unit, scale, low, high) in [
        ("nsec", 1, 0, 1_000),
        ("usec", 1_000, 1_000, 1_000_000),
        ("msec", 1_000_000, 1_000_000, u64::MAX),
    ] {
        let cells: Vec<String> = job
            .lat_buckets
            .iter()
            .filter(|b| b.lower_ns >= low && b.lower_ns < high && b.percent >= 0.005)
            .map(|b| match b.upper_ns {
                Some(upper) => format!("{}={:.2}%", upper / scale, b.percent),
                None => format!(">={}={:.2}%", b.lower_ns / scale, b.percent),
            })
            .collect();
        if !cells.is_empty() {
            let _ = writeln!(out, "  lat ({unit})   : {}", cells.join(", "));
        }
    }
}

fn percents(buckets: &[LabeledPercent]) -> String {
    let cells: Vec<String> = buckets
        .iter()
        .map(|b| format!("{}={:.1}%", b.label, b.percent))
        .collect();
    cells.join(", ")
}

/// "READ: bw=118 MiB/s (123 MB/s), 118 MiB/s (123 MB/s)-118 MiB/s (123 MB/s), io=..., run=...".
fn group_line(out: &mut String, label: &str, d: &GroupDirection) {
    let _ = writeln!(
        out,
        "  {label:>5}: bw={}, {}-{}, io={}, run={}-{}",
        rate_both(d.bw_bytes_per_sec),
        rate_both(d.min_bw_bytes_per_sec),
        rate_both(d.max_bw_bytes_per_sec),
        bytes_both(d.io_bytes as f64),
        seconds(d.min_runtime_ns),
        seconds(d.max_runtime_ns)
    );
}

/// The read-back verification: what was checked, how fast, and each kept mismatch with its
/// offset, kind, expected and found values.
fn render_verify(out: &mut String, verify: &crate::schema::VerifyResult) {
    let _ = writeln!(
        out,
        "  verify: {} blocks, {} checked in {} ({}), {} errors",
        count(verify.blocks),
        bytes_both(verify.bytes as f64),
        seconds(verify.runtime_ns),
        rate_both(verify.bw_bytes_per_sec),
        count(verify.errors)
    );
    for f in &verify.failures {
        let _ = writeln!(
            out,
            "    verify error: {} offset {} (len {}, damage at {}): {}, expected {}, found {}",
            f.path, f.offset_bytes, f.len_bytes, f.damage_offset_bytes, f.kind, f.expected, f.found
        );
    }
    let unlisted = verify.errors.saturating_sub(verify.failures.len() as u64);
    if unlisted > 0 {
        let _ = writeln!(out, "    ... and {} more verify errors", count(unlisted));
    }
}
