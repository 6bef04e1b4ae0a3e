//! A profile written back in DiskSpd's XML profile schema: the `<Profile>` of the `-Rxml`
//! report and of `-Rp`. Every time span and target with the parameters used, so that the
//! text fed back with `-X` gives the same jobs.

use super::model::{Access, DiskSpdProfile, OutputForm, TargetParams, Throughput, WriteBuffers};
use std::fmt::Write;

/// `<Profile>...</Profile>`, indented by `indent` spaces (the report nests it at 2).
pub fn profile_xml(profile: &DiskSpdProfile, indent: usize) -> String {
    let mut x = Xml {
        out: String::new(),
        depth: indent / 2,
    };
    x.open("Profile");
    if !profile.command_line.is_empty() {
        x.leaf("CommandLine", &escape(&profile.command_line));
    }
    x.leaf("Progress", "0");
    x.leaf(
        "ResultFormat",
        match profile.output {
            OutputForm::Text => "text",
            OutputForm::Xml => "xml",
        },
    );
    x.leaf("Verbose", "false");
    x.open("TimeSpans");
    for span in &profile.time_spans {
        x.open("TimeSpan");
        x.leaf("CompletionRoutines", "false");
        x.leaf("MeasureLatency", bool_text(span.measure_latency));
        x.leaf(
            "CalculateIopsStdDev",
            bool_text(span.iops_interval_ms.is_some()),
        );
        x.leaf("DisableAffinity", bool_text(span.affinity_disabled));
        x.leaf("Duration", &span.duration_s.to_string());
        x.leaf("Warmup", &span.warmup_s.to_string());
        x.leaf("Cooldown", &span.cooldown_s.to_string());
        x.leaf("ThreadCount", &span.thread_count.to_string());
        x.leaf(
            "RequestCount",
            &span.requests_per_thread.unwrap_or(0).to_string(),
        );
        if let Some(ms) = span.iops_interval_ms {
            x.leaf("IoBucketDuration", &ms.to_string());
        }
        if let Some(seed) = span.random_seed {
            x.leaf("RandSeed", &seed.to_string());
        }
        if !span.affinity_cpus.is_empty() {
            x.open("Affinity");
            for cpu in &span.affinity_cpus {
                x.leaf("AffinityAssignment", &cpu.to_string());
            }
            x.close("Affinity");
        }
        x.open("Targets");
        for t in &span.targets {
            target(&mut x, t);
        }
        x.close("Targets");
        x.close("TimeSpan");
    }
    x.close("TimeSpans");
    x.close("Profile");
    x.out
}

fn target(x: &mut Xml, t: &TargetParams) {
    x.open("Target");
    x.leaf("Path", &escape(&t.path));
    x.leaf("BlockSize", &t.block_size_bytes.to_string());
    x.leaf("BaseFileOffset", &t.base_offset_bytes.to_string());
    x.leaf("SequentialScan", bool_text(t.sequential_scan_hint));
    x.leaf("RandomAccess", bool_text(t.random_access_hint));
    x.leaf("TemporaryFile", bool_text(t.temporary_file_hint));
    x.leaf("UseLargePages", bool_text(t.large_pages));
    if t.software_cache_disabled {
        x.leaf("DisableOSCache", "true");
    }
    if t.write_through {
        x.leaf("WriteThrough", "true");
    }
    x.open("WriteBufferContent");
    match t.write_buffers {
        WriteBuffers::Default => x.leaf("Pattern", "sequential"),
        WriteBuffers::Zero => x.leaf("Pattern", "zero"),
        WriteBuffers::PerIoRandom => x.leaf("Pattern", "random"),
        WriteBuffers::RandomSource { size_bytes } => {
            x.leaf("Pattern", "random");
            x.open("RandomDataSource");
            x.leaf("SizeInBytes", &size_bytes.to_string());
            x.close("RandomDataSource");
        }
    }
    x.close("WriteBufferContent");
    x.leaf("ParallelAsyncIO", "false");
    if let Some(burst) = t.burst_size {
        x.leaf("BurstSize", &burst.to_string());
    }
    if let Some(think) = t.think_time_ms {
        x.leaf("ThinkTime", &think.to_string());
    }
    if let Some(size) = t.create_size_bytes {
        x.leaf("FileSize", &size.to_string());
    }
    match t.access {
        Access::Sequential => {
            let stride = t.sequential_stride_bytes.unwrap_or(t.block_size_bytes);
            x.leaf("StrideSize", &stride.to_string());
            x.leaf("InterlockedSequential", bool_text(t.interlocked));
        }
        Access::Random | Access::Mixed(_) => {
            let align = t.random_align_bytes.unwrap_or(t.block_size_bytes);
            x.leaf("Random", &align.to_string());
            if let Access::Mixed(pct) = t.access {
                x.leaf("RandomRatio", &pct.to_string());
            }
            if let Some(d) = &t.distribution {
                let kind = if d.absolute { "Absolute" } else { "Percent" };
                x.open("Distribution");
                x.open(kind);
                for (io, span) in &d.ranges {
                    x.line(&format!("<Range IO=\"{io}\">{span}</Range>"));
                }
                x.close(kind);
                x.close("Distribution");
            }
        }
    }
    x.leaf("ThreadStride", &t.thread_stride_bytes.to_string());
    x.leaf("MaxFileSize", &t.max_size_bytes.unwrap_or(0).to_string());
    x.leaf("RequestCount", &t.outstanding.to_string());
    x.leaf("WriteRatio", &t.write_percent.to_string());
    match t.throughput {
        Some(Throughput::Iops(n)) => x.line(&format!("<Throughput unit=\"IOPS\">{n}</Throughput>")),
        Some(Throughput::BytesPerMs(n)) => x.leaf("Throughput", &n.to_string()),
        None => x.leaf("Throughput", "0"),
    }
    x.leaf("ThreadsPerFile", &t.threads_per_file.to_string());
    x.leaf("IOPriority", &t.io_priority.to_string());
    x.leaf("Weight", "1");
    x.close("Target");
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// `&`, `<`, `>` as XML entities.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// An indenting writer.
struct Xml {
    out: String,
    depth: usize,
}

impl Xml {
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(self.depth));
    }
    fn open(&mut self, name: &str) {
        self.line(&format!("<{name}>"));
        self.depth += 1;
    }
    fn close(&mut self, name: &str) {
        self.depth -= 1;
        self.line(&format!("</{name}>"));
    }
    fn leaf(&mut self, name: &str, value: &str) {
        self.line(&format!("<{name}>{value}</{name}>"));
    }
}
