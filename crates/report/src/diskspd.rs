//! DiskSpd's report layouts for `diskmeter diskspd`: the text summary (per thread and total
//! bytes, I/Os, MiB/s, I/O per s, average latency and its standard deviation; with `-L` the
//! latency percentile table) and the XML document with DiskSpd's element names for the
//! fields diskmeter measures.
//!
//! With `-D<ms>` the jobs' series are sampled every `<ms>` (DiskSpd's IO buckets) and the
//! report adds DiskSpd's `IopsStdDev` column: the population standard deviation of the IOs
//! completed per whole bucket, as IOs per second (DiskSpd's `IoBucketizer`); a last bucket
//! cut short by the end of the run is left out, as DiskSpd leaves out IOs past its last
//! whole bucket. The XML carries the buckets (`<Iops>` with `<Bucket SampleMillisecond=...>`).
//!
//! One difference is stated in both forms: DiskSpd's CPU table is system-wide per processor;
//! diskmeter reports the CPU time of its own worker threads (getrusage per thread), as a share
//! of all processors over the measured time.

use crate::input::RunInput;
use diskmeter_stats::{merge_series, DirectionStats, IntervalSample, LatencyHistogram};
use diskmeter_units::MIB_F64;
use std::fmt::Write;

/// What the report prints about the profile ([`DiskSpdHeader::of_time_span`] fills it from the
/// parsed command line).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskSpdHeader {
    /// The arguments as typed.
    pub command_line: String,
    /// Measured seconds asked for (`-d`).
    pub duration_s: u64,
    /// Warm-up seconds (`-W`).
    pub warmup_s: u64,
    /// Cool-down seconds (`-C`): run after the measured period, not counted.
    pub cooldown_s: u64,
    /// Whether `-L` asked for latency statistics.
    pub latency: bool,
    /// `-D<ms>`: the IO bucket length, ms, when IOPS standard deviations were asked for
    /// (the jobs' series were sampled at it); `None` without `-D`.
    pub iops_interval_ms: Option<u64>,
    /// Block size, bytes.
    pub block_size_bytes: u64,
    /// IOs in flight per thread per target.
    pub outstanding: u32,
    /// Threads per target (`-t`) or in all (`-F`).
    pub threads: u32,
    /// `-F` rather than `-t`.
    pub fixed_threads: bool,
    /// Write percentage.
    pub write_percent: u8,
    /// "random", "sequential" or "60% random".
    pub access: String,
    /// O_DIRECT in use.
    pub software_cache_disabled: bool,
    /// `-Sh`/`-Sw`: writes opened with `O_DSYNC`.
    pub write_through: bool,
    /// Processors on the machine.
    pub proc_count: usize,
    /// The time span's number, from 1.
    pub time_span: usize,
    /// The whole profile in DiskSpd's schema (`<Profile>...</Profile>`, every time span and
    /// target), as the front-end writes it: the XML report carries it so that it can be fed
    /// back with `-X`.
    pub profile_xml: String,
}

/// DiskSpd's percentile rows: label and percentile.
const PERCENTILES: [(&str, f64); 13] = [
    ("25th", 25.0),
    ("50th", 50.0),
    ("75th", 75.0),
    ("90th", 90.0),
    ("95th", 95.0),
    ("99th", 99.0),
    ("3-nines", 99.9),
    ("4-nines", 99.99),
    ("5-nines", 99.999),
    ("6-nines", 99.9999),
    ("7-nines", 99.99999),
    ("8-nines", 99.999999),
    ("9-nines", 99.9999999),
];

/// One thread's figures (a worker), or the total.
struct Row {
    thread: Option<usize>,
    path: String,
    file_size_bytes: u64,
    stats: DirectionStats,
    reads: DirectionStats,
    writes: DirectionStats,
    seconds: f64,
    /// The worker's series (for the total: the workers' summed bucket by bucket).
    series: Vec<IntervalSample>,
}

/// IOs of reads and writes together in a sample.
fn total_ios(s: &IntervalSample) -> u64 {
    s.read.ios + s.write.ios
}

/// The whole buckets of `series` (of `interval_ms` each): a last one cut short by the end of
/// the run is not one of DiskSpd's valid buckets.
fn whole_buckets(
    series: &[IntervalSample],
    interval_ms: u64,
) -> impl Iterator<Item = &IntervalSample> {
    series.iter().filter(move |s| s.duration_ms == interval_ms)
}

/// DiskSpd's IOPS standard deviation: the population standard deviation of the IOs counted
/// (by `count`) in each whole bucket, divided by the bucket's length in seconds; 0 without a
/// whole bucket.
fn iops_stddev(
    series: &[IntervalSample],
    interval_ms: u64,
    count: fn(&IntervalSample) -> u64,
) -> f64 {
    let counts: Vec<f64> = whole_buckets(series, interval_ms)
        .map(|s| count(s) as f64)
        .collect();
    if counts.is_empty() || interval_ms == 0 {
        return 0.0;
    }
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<f64>() / n;
    let variance = counts.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / n;
    variance.sqrt() / (interval_ms as f64 / 1000.0)
}

fn rows(input: &RunInput) -> (Vec<Row>, Row) {
    let mut rows = Vec::new();
    let mut total = Row {
        thread: None,
        path: String::new(),
        file_size_bytes: 0,
        stats: DirectionStats::new(),
        reads: DirectionStats::new(),
        writes: DirectionStats::new(),
        seconds: 0.0,
        series: Vec::new(),
    };
    for (i, job) in input.jobs.iter().enumerate() {
        let mut both = job.stats.read.clone();
        both.merge(&job.stats.write);
        let seconds = job.stats.runtime_ns as f64 / 1e9;
        total.stats.merge(&both);
        total.reads.merge(&job.stats.read);
        total.writes.merge(&job.stats.write);
        total.seconds = total.seconds.max(seconds);
        total.series = merge_series(&total.series, &job.stats.series);
        rows.push(Row {
            thread: Some(i),
            path: job
                .targets
                .iter()
                .map(|t| t.path.clone())
                .collect::<Vec<_>>()
                .join(", "),
            file_size_bytes: job.targets.iter().map(|t| t.size_bytes).sum(),
            stats: both,
            reads: job.stats.read.clone(),
            writes: job.stats.write.clone(),
            seconds,
            series: job.stats.series.clone(),
        });
    }
    (rows, total)
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

fn rate(count: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count / seconds
    } else {
        0.0
    }
}

/// One of the three tables: its title, the figures of a row, and the IOs a bucket counts.
struct Section {
    title: &'static str,
    pick: fn(&Row) -> &DirectionStats,
    count: fn(&IntervalSample) -> u64,
}

/// The Total, Read and Write tables, in DiskSpd's order.
const SECTIONS: [Section; 3] = [
    Section {
        title: "Total IO",
        pick: |r| &r.stats,
        count: total_ios,
    },
    Section {
        title: "Read IO",
        pick: |r| &r.reads,
        count: |s| s.read.ios,
    },
    Section {
        title: "Write IO",
        pick: |r| &r.writes,
        count: |s| s.write.ios,
    },
];

fn table(
    out: &mut String,
    section: &Section,
    rows: &[Row],
    total: &Row,
    latency: bool,
    iops_interval_ms: Option<u64>,
) {
    let _ = writeln!(out, "{}", section.title);
    // DiskSpd's column order: AvgLat, IopsStdDev, LatStdDev.
    let avg_head = if latency { "|  AvgLat  " } else { "" };
    let iops_head = if iops_interval_ms.is_some() {
        "| IopsStdDev "
    } else {
        ""
    };
    let std_head = if latency { "| LatStdDev " } else { "" };
    let _ = writeln!(
        out,
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s {avg_head}{iops_head}{std_head}|  file"
    );
    let width = 84 + if latency { 22 } else { 0 } + if iops_interval_ms.is_some() { 13 } else { 0 };
    let rule = "-".repeat(width);
    let _ = writeln!(out, "{rule}");
    let line = |out: &mut String, label: &str, row: &Row, file: String| {
        let s = (section.pick)(row);
        let h = &s.lat;
        let (avg, std) = match (latency, h.is_empty()) {
            (false, _) => (String::new(), String::new()),
            (true, true) => ("|      N/A ".to_string(), "|       N/A ".to_string()),
            (true, false) => (
                format!("| {:>8.3} ", ms(h.mean())),
                format!("| {:>9.3} ", ms(h.stddev())),
            ),
        };
        let iops = iops_interval_ms.map_or(String::new(), |interval_ms| {
            format!(
                "| {:>10.2} ",
                iops_stddev(&row.series, interval_ms, section.count)
            )
        });
        let _ = writeln!(
            out,
            "{label} {:>15} | {:>12} | {:>10.2} | {:>10.2} {avg}{iops}{std}| {file}",
            s.bytes,
            s.ios,
            rate(s.bytes as f64, row.seconds) / MIB_F64,
            rate(s.ios as f64, row.seconds),
        );
    };
    for row in rows {
        let file = format!("{} ({}MiB)", row.path, row.file_size_bytes >> 20);
        line(out, &format!("{:>6} |", row.thread.unwrap_or(0)), row, file);
    }
    let _ = writeln!(out, "{rule}");
    line(out, "total: ", total, String::new());
    let _ = writeln!(out);
}

fn percentile_cell(h: &LatencyHistogram, p: Option<f64>) -> String {
    if h.is_empty() {
        return "N/A".to_string();
    }
    let ns = match p {
        Some(p) => h.value_at_percentile(p),
        None => h.max(),
    };
    format!("{:.3}", ms(ns as f64))
}

fn cpu_shares(input: &RunInput, header: &DiskSpdHeader, seconds: f64) -> (f64, f64) {
    let (user, sys) = input.jobs.iter().fold((0u64, 0u64), |(u, s), j| {
        (u + j.stats.cpu.user_ns, s + j.stats.cpu.sys_ns)
    });
    let capacity = seconds * 1e9 * header.proc_count.max(1) as f64;
    if capacity > 0.0 {
        (
            user as f64 / capacity * 100.0,
            sys as f64 / capacity * 100.0,
        )
    } else {
        (0.0, 0.0)
    }
}

/// DiskSpd's text report.
pub fn render_diskspd_text(header: &DiskSpdHeader, input: &RunInput) -> String {
    let (rows, total) = rows(input);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nCommand Line: diskmeter diskspd {}\n",
        header.command_line
    );
    let _ = writeln!(out, "Input parameters:\n");
    let _ = writeln!(out, "\ttimespan:   {}\n\t-------------", header.time_span);
    let _ = writeln!(out, "\tduration: {}s", header.duration_s);
    let _ = writeln!(out, "\twarm up time: {}s", header.warmup_s);
    let _ = writeln!(out, "\tcool down time: {}s", header.cooldown_s);
    if header.latency {
        let _ = writeln!(out, "\tmeasuring latency");
    }
    if let Some(interval_ms) = header.iops_interval_ms {
        let _ = writeln!(out, "\tgathering IOPS at intervals of {interval_ms}ms");
    }
    let _ = writeln!(
        out,
        "\t{}",
        if header.software_cache_disabled {
            "software cache disabled (O_DIRECT)"
        } else {
            "using software cache"
        }
    );
    if header.write_through {
        let _ = writeln!(
            out,
            "\thardware write cache disabled, writethrough on (O_DSYNC)"
        );
    }
    let mix = match header.write_percent {
        0 => "performing read test".to_string(),
        100 => "performing write test".to_string(),
        w => format!("performing mix test (read/write ratio: {}/{w})", 100 - w),
    };
    let _ = writeln!(out, "\t{mix}");
    let _ = writeln!(out, "\tblock size: {}", header.block_size_bytes);
    let _ = writeln!(out, "\tusing {}", header.access);
    let _ = writeln!(
        out,
        "\tnumber of outstanding I/O operations per thread per target: {}",
        header.outstanding
    );
    let _ = writeln!(
        out,
        "\t{}: {}\n",
        if header.fixed_threads {
            "total threads"
        } else {
            "threads per file"
        },
        header.threads
    );
    let _ = writeln!(out, "System information:\n");
    let _ = writeln!(out, "\tcomputer name: {}", input.meta.hostname);
    let _ = writeln!(
        out,
        "\tstart time (ms since the Unix epoch): {}\n",
        input.meta.started_unix_ms
    );
    let _ = writeln!(out, "Results for timespan 1:");
    let _ = writeln!(out, "{}\n", "*".repeat(79));
    if input.meta.partial {
        let _ = writeln!(
            out,
            "INTERRUPTED: the figures below cover only the time run\n"
        );
    }
    let _ = writeln!(out, "actual test time:\t{:.2}s", total.seconds);
    let _ = writeln!(out, "thread count:\t\t{}", rows.len());
    let _ = writeln!(out, "proc count:\t\t{}\n", header.proc_count);
    let (user, kernel) = cpu_shares(input, header, total.seconds);
    let _ = writeln!(out, "CPU |  Usage |  User  |  Kernel |  (diskmeter's worker threads, share of all {} processors)", header.proc_count);
    let _ = writeln!(out, "-------------------------------------------");
    let _ = writeln!(
        out,
        "avg.| {:>5.2}% | {:>5.2}% | {:>6.2}% |\n",
        user + kernel,
        user,
        kernel
    );
    for section in &SECTIONS {
        table(
            &mut out,
            section,
            &rows,
            &total,
            header.latency,
            header.iops_interval_ms,
        );
    }
    if header.latency {
        let _ = writeln!(out, "\n  %-ile |  Read (ms) | Write (ms) | Total (ms)");
        let _ = writeln!(out, "----------------------------------------------");
        let row = |out: &mut String, label: &str, p: Option<f64>, min: bool| {
            let cell = |h: &LatencyHistogram| {
                if min && !h.is_empty() {
                    format!("{:.3}", ms(h.min() as f64))
                } else {
                    percentile_cell(h, p)
                }
            };
            let _ = writeln!(
                out,
                "{label:>7} | {:>10} | {:>10} | {:>10}",
                cell(&total.reads.lat),
                cell(&total.writes.lat),
                cell(&total.stats.lat)
            );
        };
        row(&mut out, "min", None, true);
        for (label, p) in PERCENTILES {
            row(&mut out, label, Some(p), false);
        }
        row(&mut out, "max", None, false);
        let _ = writeln!(
            out,
            "\nLatency is total latency (issue to completion) from HDR histograms, 3 significant digits (error <= 0.1 %)."
        );
    }
    out
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// DiskSpd's XML report (`-Rxml`) of the time spans run, with DiskSpd's element names for
/// what diskmeter measures; the `<Profile>` is the first span's `profile_xml`.
pub fn render_diskspd_xml(spans: &[(DiskSpdHeader, &RunInput)]) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Results>\n");
    let Some((first, input)) = spans.first() else {
        x.push_str("</Results>\n");
        return x;
    };
    let _ = writeln!(x, "  <System>\n    <ComputerName>{}</ComputerName>\n    <Tool>\n      <Version>diskmeter {}</Version>\n    </Tool>\n    <RunTime>\n      <StartTime>{}</StartTime>\n    </RunTime>\n    <ProcessorTopology>\n      <ProcCount>{}</ProcCount>\n    </ProcessorTopology>\n  </System>",
        xml_escape(&input.meta.hostname), xml_escape(&input.meta.diskmeter_version), input.meta.started_unix_ms, first.proc_count);
    x.push_str(&first.profile_xml);
    for (header, input) in spans {
        time_span_xml(&mut x, header, input);
    }
    x.push_str("</Results>\n");
    x
}

/// One `<TimeSpan>` of the results.
fn time_span_xml(x: &mut String, header: &DiskSpdHeader, input: &RunInput) {
    let (rows, total) = rows(input);
    let (user, kernel) = cpu_shares(input, header, total.seconds);
    let _ = writeln!(*x, "  <TimeSpan>\n    <TestTimeSeconds>{:.2}</TestTimeSeconds>\n    <ThreadCount>{}</ThreadCount>\n    <ProcCount>{}</ProcCount>\n    <Partial>{}</Partial>",
        total.seconds, rows.len(), header.proc_count, input.meta.partial);
    let _ = writeln!(*x, "    <!-- diskmeter: CPU time of its worker threads only, as a share of all processors -->\n    <CpuUtilization>\n      <Average>\n        <UsagePercent>{:.2}</UsagePercent>\n        <UserPercent>{:.2}</UserPercent>\n        <KernelPercent>{:.2}</KernelPercent>\n      </Average>\n    </CpuUtilization>", user + kernel, user, kernel);
    if header.latency {
        let _ = writeln!(*x, "    <Latency>");
        let bucket = |x: &mut String, p: f64, value: &dyn Fn(&LatencyHistogram) -> String| {
            let _ = writeln!(*x, "      <Bucket>\n        <Percentile>{p}</Percentile>\n        <ReadMilliseconds>{}</ReadMilliseconds>\n        <WriteMilliseconds>{}</WriteMilliseconds>\n        <TotalMilliseconds>{}</TotalMilliseconds>\n      </Bucket>",
                value(&total.reads.lat), value(&total.writes.lat), value(&total.stats.lat));
        };
        bucket(x, 0.0, &|h| {
            if h.is_empty() {
                "N/A".into()
            } else {
                format!("{:.3}", ms(h.min() as f64))
            }
        });
        for (_, p) in PERCENTILES {
            bucket(x, p, &|h| percentile_cell(h, Some(p)));
        }
        bucket(x, 100.0, &|h| percentile_cell(h, None));
        let _ = writeln!(*x, "    </Latency>");
    }
    let _ = writeln!(
        *x,
        "    <Iops>\n      <Total>{:.2}</Total>",
        rate(total.stats.ios as f64, total.seconds)
    );
    if let Some(interval_ms) = header.iops_interval_ms {
        iops_xml(x, &total.series, interval_ms, "      ");
    }
    let _ = writeln!(*x, "    </Iops>");
    for row in &rows {
        let s = &row.stats;
        let lat = if header.latency && !s.lat.is_empty() {
            format!("\n        <AverageLatencyMilliseconds>{:.3}</AverageLatencyMilliseconds>\n        <LatencyStdev>{:.3}</LatencyStdev>", ms(s.lat.mean()), ms(s.lat.stddev()))
        } else {
            String::new()
        };
        let _ = writeln!(*x, "    <Thread>\n      <Id>{}</Id>\n      <Target>\n        <Path>{}</Path>\n        <BytesCount>{}</BytesCount>\n        <FileSize>{}</FileSize>\n        <IOCount>{}</IOCount>\n        <ReadBytes>{}</ReadBytes>\n        <ReadCount>{}</ReadCount>\n        <WriteBytes>{}</WriteBytes>\n        <WriteCount>{}</WriteCount>{lat}",
            row.thread.unwrap_or(0), xml_escape(&row.path), s.bytes, row.file_size_bytes, s.ios, row.reads.bytes, row.reads.ios, row.writes.bytes, row.writes.ios);
        if let Some(interval_ms) = header.iops_interval_ms {
            let _ = writeln!(*x, "        <Iops>");
            iops_xml(x, &row.series, interval_ms, "          ");
            let _ = writeln!(*x, "        </Iops>");
        }
        let _ = writeln!(*x, "      </Target>\n    </Thread>");
    }
    x.push_str("  </TimeSpan>\n");
}

/// DiskSpd's IOPS standard deviations and time series (`-D`) inside an `<Iops>` element: one
/// `<Bucket>` per whole bucket, stamped at its end, with the IOs per second of each direction
/// and the mean latency of its IOs. DiskSpd's per-bucket minimum, maximum and standard
/// deviation of latency are not kept by diskmeter's series and are left out.
fn iops_xml(x: &mut String, series: &[IntervalSample], interval_ms: u64, indent: &str) {
    if whole_buckets(series, interval_ms).next().is_none() {
        return;
    }
    let _ = writeln!(
        *x,
        "{indent}<ReadIopsStdDev>{:.3}</ReadIopsStdDev>\n{indent}<WriteIopsStdDev>{:.3}</WriteIopsStdDev>\n{indent}<IopsStdDev>{:.3}</IopsStdDev>",
        iops_stddev(series, interval_ms, |s| s.read.ios),
        iops_stddev(series, interval_ms, |s| s.write.ios),
        iops_stddev(series, interval_ms, total_ios),
    );
    let seconds = interval_ms as f64 / 1000.0;
    for (i, s) in whole_buckets(series, interval_ms).enumerate() {
        let (read, write) = (s.read.ios as f64 / seconds, s.write.ios as f64 / seconds);
        let _ = writeln!(
            *x,
            "{indent}<Bucket SampleMillisecond=\"{}\" Read=\"{read:.0}\" Write=\"{write:.0}\" Total=\"{:.0}\" ReadAvgLatencyMilliseconds=\"{:.3}\" WriteAvgLatencyMilliseconds=\"{:.3}\"/>",
            interval_ms * (i as u64 + 1),
            read + write,
            ms(s.read.lat_mean_ns),
            ms(s.write.lat_mean_ns),
        );
    }
}

mod header;
pub use header::render_diskspd;

#[cfg(test)]
mod tests;
