//! DiskSpd's own shape of a workload: a profile of time spans, each with its settings and its
//! targets, each target with its own parameters. The command line fills one time span whose
//! targets share the switches; an XML profile (`-X`) may fill many, each target different.

use diskmeter_workload::JobSpec;

/// DiskSpd's output forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputForm {
    /// The text report.
    #[default]
    Text,
    /// The XML document (`-Rxml`).
    Xml,
}

/// How IO moves through a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `-s`: sequential.
    Sequential,
    /// `-r`: random, aligned to the block size.
    Random,
    /// `-rs<pct>`: this share random, the rest sequential.
    Mixed(u8),
}

/// What writes carry (`-Z` forms; XML `<WriteBufferContent>`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WriteBuffers {
    /// No `-Z`: DiskSpd's repeating 0..255 pattern; diskmeter writes its own per-IO random
    /// content (the same for storage that neither compresses nor dedupes).
    #[default]
    Default,
    /// `-Z`: zeros.
    Zero,
    /// `-Zr`: per-IO random content.
    PerIoRandom,
    /// `-Z<size>`: writes taken from a buffer of this many random bytes.
    RandomSource {
        /// The buffer's size, bytes.
        size_bytes: u64,
    },
}

/// A non-uniform random distribution (`-rdpct`, `-rdabs`, XML `<Distribution>`), complete:
/// the implicit last range DiskSpd adds is present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distribution {
    /// `-rdabs`: spans are bytes; `-rdpct`: spans are percent of the target.
    pub absolute: bool,
    /// (IO percent, span) from the target's start; an absolute span of 0 is "the rest".
    pub ranges: Vec<(u8, u64)>,
}

/// A `-g` / `<Throughput>` cap per thread per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throughput {
    /// `-g<n>`: bytes per millisecond.
    BytesPerMs(u64),
    /// `-g<n>i`: IOs per second.
    Iops(u64),
}

/// A target and the parameters DiskSpd keeps per target.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetParams {
    /// File or block device.
    pub path: String,
    /// `-b` block size, bytes.
    pub block_size_bytes: u64,
    /// `-B` base offset, bytes.
    pub base_offset_bytes: u64,
    /// `-f` / `-B<base>:<length>`: IO stays below this offset (exclusive); `None`: the target's end.
    pub max_size_bytes: Option<u64>,
    /// `-c`: the file is created at this size.
    pub create_size_bytes: Option<u64>,
    /// `-r`/`-s`/`-rs`.
    pub access: Access,
    /// `-r<align>`: random offsets on multiples of this (default: the block size).
    pub random_align_bytes: Option<u64>,
    /// `-s<stride>`: each sequential IO starts this far after the previous one.
    pub sequential_stride_bytes: Option<u64>,
    /// `-si`: the threads of a target share one sequential position.
    pub interlocked: bool,
    /// `-T<offset>`: thread `n` of a target starts `n x offset` into it.
    pub thread_stride_bytes: u64,
    /// `-w` write percentage.
    pub write_percent: u8,
    /// `-o` IOs in flight per thread on this target.
    pub outstanding: u32,
    /// `-t` threads on this target (ignored when the time span has a thread count, `-F`).
    pub threads_per_file: u32,
    /// `-g` cap per thread.
    pub throughput: Option<Throughput>,
    /// `-S`/`-Su`/`-Sh`/`-Sd`: O_DIRECT.
    pub software_cache_disabled: bool,
    /// `-Sw`/`-Sh`: write-through (`O_DSYNC`).
    pub write_through: bool,
    /// `-Ss` (DiskSpd for Linux): `O_SYNC`.
    pub sync_writes: bool,
    /// `-Z` forms.
    pub write_buffers: WriteBuffers,
    /// `-rdpct` / `-rdabs`.
    pub distribution: Option<Distribution>,
    /// `-i`: IOs per burst (with `-j`).
    pub burst_size: Option<u32>,
    /// `-j`: milliseconds of think time after each burst.
    pub think_time_ms: Option<u32>,
    /// `-I`: DiskSpd's priority, 1 very low, 2 low, 3 normal.
    pub io_priority: u8,
    /// `-fr`: the random-access hint.
    pub random_access_hint: bool,
    /// `-fs`: the sequential-scan hint.
    pub sequential_scan_hint: bool,
    /// `-ft`: the temporary-file hint (no Linux counterpart; kept for the profile).
    pub temporary_file_hint: bool,
    /// `-l`: large pages asked for.
    pub large_pages: bool,
}

impl TargetParams {
    /// A target with DiskSpd's defaults: `-b64K -o2 -t1 -w0`, sequential, caching on.
    pub fn new(path: &str) -> TargetParams {
        TargetParams {
            path: path.to_string(),
            block_size_bytes: 64 << 10,
            base_offset_bytes: 0,
            max_size_bytes: None,
            create_size_bytes: None,
            access: Access::Sequential,
            random_align_bytes: None,
            sequential_stride_bytes: None,
            interlocked: false,
            thread_stride_bytes: 0,
            write_percent: 0,
            outstanding: 2,
            threads_per_file: 1,
            throughput: None,
            software_cache_disabled: false,
            write_through: false,
            sync_writes: false,
            write_buffers: WriteBuffers::Default,
            distribution: None,
            burst_size: None,
            think_time_ms: None,
            io_priority: 3,
            random_access_hint: false,
            sequential_scan_hint: false,
            temporary_file_hint: false,
            large_pages: false,
        }
    }

    /// Whether two targets differ only in their path (so one job can run both).
    pub(crate) fn same_workload(&self, other: &TargetParams) -> bool {
        let mut other = other.clone();
        other.path.clone_from(&self.path);
        *self == other
    }
}

/// One time span: settings, targets, and the jobs that run it.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSpan {
    /// `-d` seconds measured.
    pub duration_s: u64,
    /// `-W` warm-up seconds.
    pub warmup_s: u64,
    /// `-C` cool-down seconds: the load keeps running, unmeasured, after `-d`.
    pub cooldown_s: u64,
    /// `-F`: threads in all, each on every target; 0: `-t` threads per target.
    pub thread_count: u32,
    /// `-O`: IOs in flight per thread across its targets (replaces `-o` x targets).
    pub requests_per_thread: Option<u32>,
    /// `-z` random seed; `None`: diskmeter's own.
    pub random_seed: Option<u64>,
    /// `-a`: the Linux CPUs threads are assigned to, round-robin; empty: not pinned.
    pub affinity_cpus: Vec<u32>,
    /// `-n`: DiskSpd's default affinity switched off.
    pub affinity_disabled: bool,
    /// `-L`.
    pub measure_latency: bool,
    /// `-D<ms>`: the IOPS sampling interval asked for; `None` without `-D`.
    pub iops_interval_ms: Option<u64>,
    /// The targets.
    pub targets: Vec<TargetParams>,
    /// The jobs that run this time span (filled by the parser).
    pub jobs: Vec<JobSpec>,
}

impl Default for TimeSpan {
    fn default() -> TimeSpan {
        TimeSpan {
            duration_s: 10,
            warmup_s: 5,
            cooldown_s: 0,
            thread_count: 0,
            requests_per_thread: None,
            random_seed: None,
            affinity_cpus: Vec::new(),
            affinity_disabled: false,
            measure_latency: false,
            iops_interval_ms: None,
            targets: Vec::new(),
            jobs: Vec::new(),
        }
    }
}

/// A parsed DiskSpd command line or XML profile: its time spans and what the report prints.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskSpdProfile {
    /// The arguments as given (for the report's "Command Line").
    pub command_line: String,
    /// The time spans, run in order (the command line gives one).
    pub time_spans: Vec<TimeSpan>,
    /// `-R`.
    pub output: OutputForm,
    /// `-Rp`: print the profile, run nothing.
    pub profile_only: bool,
    /// One line each about switches accepted that change nothing here (the CLI prints them
    /// on stderr before the run).
    pub notes: Vec<String>,
}

impl DiskSpdProfile {
    /// Every time span's jobs, in order.
    pub fn jobs(&self) -> Vec<JobSpec> {
        self.time_spans
            .iter()
            .flat_map(|span| span.jobs.iter().cloned())
            .collect()
    }
}

impl DiskSpdProfile {
    /// `-Rp`: the profile as DiskSpd would re-output it (its XML with `-Rpxml`).
    pub fn profile_text(&self) -> String {
        match self.output {
            OutputForm::Xml => super::profile_xml(self, 0),
            OutputForm::Text => self.jobs_text(),
        }
    }

    /// The steps of the run, one per time span: (name, jobs), the name the command line
    /// followed by the span's number when there are several.
    pub fn steps(&self) -> Vec<(String, Vec<JobSpec>)> {
        let several = self.time_spans.len() > 1;
        (self.time_spans.iter().enumerate())
            .map(|(i, span)| {
                let name = if several {
                    format!("{} (time span {})", self.command_line, i + 1)
                } else {
                    self.command_line.clone()
                };
                (name, span.jobs.clone())
            })
            .collect()
    }

    /// `-Rptext`: each time span's jobs as the dry run lists them.
    pub fn jobs_text(&self) -> String {
        let mut out = format!("Command Line: diskmeter diskspd {}\n", self.command_line);
        for (i, span) in self.time_spans.iter().enumerate() {
            out.push_str(&format!("\ntimespan: {}\n", i + 1));
            for job in &span.jobs {
                let options = diskmeter_workload::describe(job);
                let name = options
                    .iter()
                    .find(|(k, _)| k == "name")
                    .map_or("", |(_, v)| v.as_str());
                out.push_str(&format!("[{name}]\n"));
                for (key, value) in options.iter().filter(|(k, _)| k != "name") {
                    out.push_str(&format!("{key}={value}\n"));
                }
            }
        }
        out
    }
}
