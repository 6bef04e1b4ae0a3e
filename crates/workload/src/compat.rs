//! fio options that diskmeter accepts in job files without changing the IO it does: how fio
//! would report and time the job (`gtod_reduce`, `clocksource`, `disable_*`, `stats`, ...),
//! which random generator fio would use, fio 3.33's no-op `threads`, and the values fio reads
//! other than written (`runtime=30sec`, read as fio does). They are kept so a
//! job prints back as it was written, and [`fio_reading_notes`] says in one line each where
//! diskmeter's reading differs from fio's.

use crate::JobSpec;
use serde::{Deserialize, Serialize};

/// The accepted options, each `None` (or false) when the job does not set it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CompatOptions {
    /// fio `random_generator`: `tausworthe`, `lfsr` or `tausworthe64`. diskmeter's offsets
    /// always come from its own generator (see [`fio_reading_notes`]).
    pub random_generator: Option<String>,
    /// fio `gtod_reduce`: fio stops timing IOs; diskmeter times every IO anyway.
    pub gtod_reduce: Option<bool>,
    /// fio `gtod_cpu`: the CPU of fio's timer thread; diskmeter has none.
    pub gtod_cpu: Option<u32>,
    /// fio `clocksource`: `gettimeofday`, `clock_gettime` or `cpu`.
    pub clocksource: Option<String>,
    /// fio `disable_lat`, `disable_clat`, `disable_slat`, `disable_bw_measurement`, in that
    /// order.
    pub disable: [Option<bool>; 4],
    /// fio `stats`: 0 keeps no statistics for the job in fio.
    pub stats: Option<bool>,
    /// fio `significant_figures` of its normal output (1-10).
    pub significant_figures: Option<u32>,
    /// fio `unified_rw_reporting`: `none`, `mixed`, `both` (or 0, 1, 2).
    pub unified_rw_reporting: Option<String>,
    /// fio `bwavgtime` and `iopsavgtime`, ms: the windows of fio's bandwidth and IOPS samples.
    pub avg_time_ms: [Option<u64>; 2],
    /// fio `disk_util`: fio's disk-utilisation section.
    pub disk_util: Option<bool>,
    /// fio `unique_filename`: client prefixes for fio's client/server mode.
    pub unique_filename: Option<bool>,
    /// fio `unit_base`: 0 (auto), 8 (bits) or 1 (bytes) in fio's output.
    pub unit_base: Option<String>,
    /// fio `threads=N`, which fio 3.33 reads and then ignores (no threads, no extra jobs).
    pub threads: Option<u64>,
    /// The engine as the job wrote it when diskmeter runs it as another (`posixaio` as
    /// io_uring, `vsync` as psync).
    pub ioengine_as_written: Option<String>,
    /// Values fio 3.33 reads other than written, read as fio reads them, one note each:
    /// `runtime=30sec: read as fio 3.33 reads it, 30us (...)`; a job file's front-end puts
    /// `FILE:LINE: ` in front. A job inherits its `[global]` section's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub value_readings: Vec<String>,
}

/// The names of the `disable_*` options, in [`CompatOptions::disable`]'s order.
pub const DISABLE_OPTIONS: [&str; 4] = [
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
];

/// One line for each place where diskmeter's reading of the job differs from fio's; empty
/// when it runs and reports the job as fio would.
pub fn fio_reading_notes(spec: &JobSpec) -> Vec<String> {
    let compat = &spec.compat;
    let mut notes = Vec::new();
    let mut note = |text: String| notes.push(format!("job {}: {text}", spec.name));
    for reading in &compat.value_readings {
        note(reading.clone());
    }
    if let Some(engine) = &compat.ioengine_as_written {
        note(format!(
            "ioengine={engine} runs as {} (same IOs in flight: {})",
            spec.ioengine.as_str(),
            if spec.ioengine == crate::EngineKind::Psync {
                "one per worker"
            } else {
                "up to iodepth per worker"
            }
        ));
    }
    if spec.trim.backlog_trims()
        && !(spec.rw.writes() && spec.verify.do_verify && spec.verify.effective_kind().is_some())
    {
        note(
            "trim_percentage/trim_backlog without verify: no trims, as fio (it trims only \
             blocks of its verify log: a writing job with verify set)"
                .to_string(),
        );
    }
    if let Some(generator) = &compat.random_generator {
        note(format!(
            "random_generator={generator}: offsets come from diskmeter's generator \
             (xoshiro256++ and a keyed permutation that covers each block once per pass, as \
             fio's lfsr does); the same kind of sequence, not fio's numbers"
        ));
    }
    let untimed: Vec<&str> = std::iter::once(("gtod_reduce", compat.gtod_reduce))
        .chain(DISABLE_OPTIONS.iter().copied().zip(compat.disable))
        .filter(|(_, on)| *on == Some(true))
        .map(|(name, _)| name)
        .collect();
    if !untimed.is_empty() {
        note(format!(
            "{}: fio would not measure those latencies or bandwidths; diskmeter measures and \
             reports them all",
            untimed.join(", ")
        ));
    }
    if compat.gtod_cpu.is_some() {
        note("gtod_cpu: diskmeter has no timer thread; workers read the clock".into());
    }
    if let Some(source) = compat
        .clocksource
        .as_deref()
        .filter(|s| *s != "clock_gettime")
    {
        note(format!(
            "clocksource={source}: diskmeter times IOs with clock_gettime(CLOCK_MONOTONIC)"
        ));
    }
    if compat.stats == Some(false) {
        note("stats=0: fio would keep no statistics for this job; diskmeter reports them".into());
    }
    if let Some(mode) = compat
        .unified_rw_reporting
        .as_deref()
        .filter(|m| !matches!(*m, "none" | "0"))
    {
        note(format!(
            "unified_rw_reporting={mode}: diskmeter reports reads and writes separately (and \
             the group's total)"
        ));
    }
    if compat.unit_base.as_deref() == Some("8") {
        note("unit_base=8: diskmeter prints bandwidth in bytes per second, not bits".into());
    }
    if let Some(threads) = compat.threads {
        note(format!(
            "threads={threads} has no effect, as in fio 3.33 (use thread for threads, numjobs \
             for more workers)"
        ));
    }
    for text in crate::verify::reading_notes(spec) {
        note(text);
    }
    notes
}
