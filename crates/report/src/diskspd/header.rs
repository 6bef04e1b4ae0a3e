//! A DiskSpd time span's header, from the parsed command line (diskmeter-jobfile's
//! `diskspd` profile): what DiskSpd's text and XML reports print about the test before the
//! results, with DiskSpd's wording of the access pattern.

use super::{render_diskspd_text, render_diskspd_xml, DiskSpdHeader};
use crate::input::RunInput;
use diskmeter_jobfile::diskspd::{profile_xml, Access, DiskSpdProfile, OutputForm};
use diskmeter_jobfile::diskspd::{TargetParams, TimeSpan};

/// DiskSpd's report of the time spans run, each `(index of its time span, its input)`: its
/// text layout, or XML with `-Rxml`.
pub fn render_diskspd(profile: &DiskSpdProfile, ran: &[(usize, &RunInput)]) -> String {
    let profile_xml = match profile.output {
        OutputForm::Xml => profile_xml(profile, 2),
        OutputForm::Text => String::new(),
    };
    let spans: Vec<(DiskSpdHeader, &RunInput)> = ran
        .iter()
        .filter_map(|&(index, input)| {
            let span = profile.time_spans.get(index)?;
            let header = DiskSpdHeader::of_time_span(profile, span, index, &profile_xml);
            Some((header, input))
        })
        .collect();
    match profile.output {
        OutputForm::Text => spans
            .iter()
            .map(|(header, input)| render_diskspd_text(header, input))
            .collect(),
        OutputForm::Xml => render_diskspd_xml(&spans),
    }
}

impl DiskSpdHeader {
    /// What the report prints about a time span (from its first target: the command line's
    /// targets share their switches).
    pub fn of_time_span(
        profile: &DiskSpdProfile,
        span: &TimeSpan,
        index: usize,
        profile_xml: &str,
    ) -> DiskSpdHeader {
        let fallback = TargetParams::new("");
        let t = span.targets.first().unwrap_or(&fallback);
        let fixed_threads = span.thread_count > 0;
        DiskSpdHeader {
            command_line: profile.command_line.clone(),
            duration_s: span.duration_s,
            warmup_s: span.warmup_s,
            cooldown_s: span.cooldown_s,
            latency: span.measure_latency,
            iops_interval_ms: span.iops_interval_ms,
            block_size_bytes: t.block_size_bytes,
            outstanding: span.requests_per_thread.unwrap_or(t.outstanding),
            threads: if fixed_threads {
                span.thread_count
            } else {
                t.threads_per_file
            },
            fixed_threads,
            write_percent: t.write_percent,
            access: match t.access {
                Access::Sequential => {
                    let stride = t
                        .sequential_stride_bytes
                        .map_or(String::new(), |s| format!(" (stride: {s})"));
                    let shared = if t.interlocked {
                        ", interlocked: the threads of a target share one position"
                    } else {
                        ""
                    };
                    format!("sequential I/O{stride}{shared}")
                }
                Access::Random => format!(
                    "random I/O (alignment: {})",
                    t.random_align_bytes.unwrap_or(t.block_size_bytes)
                ),
                Access::Mixed(p) => format!("mixed I/O: {p}% random, {}% sequential", 100 - p),
            },
            software_cache_disabled: t.software_cache_disabled,
            write_through: t.write_through,
            proc_count: std::thread::available_parallelism().map_or(1, |n| n.get()),
            time_span: index + 1,
            profile_xml: profile_xml.to_string(),
        }
    }
}
