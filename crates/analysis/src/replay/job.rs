//! One job of a replay: its options in job-file order (sizes, randomness, depth, pacing,
//! flush flags), the kinds of job a replay runs, and the builder that collects options and
//! notes as they are decided.

use super::depth::{depth_cut_note, replay_depth};
use super::sizes::{rates, sizes};
use super::{ReplayRequest, HOT_IO_PERCENT, REPLAY_ENGINE, SECTOR_BYTES};
use diskmeter_units::{format_size_suffix, format_time_suffix, KbBase};

/// One job's options: reads and writes at `rates`, the sizes, randomness, depth and pacing
/// of the module docs; `sync` opens it with fio's `sync=` (`dsync`).
pub(super) fn job(
    request: &ReplayRequest,
    name: String,
    [read_rate, write_rate]: [u64; 2],
    kind: JobKind,
    fdatasync: Option<u64>,
    out: &mut Builder,
) -> Vec<(String, String)> {
    let level = &request.level;
    // The first job's notes say where every figure came from; a later job's would repeat
    // them (the caller notes what is its own).
    out.notes_closed = out.jobs_built > 0;
    let sequential = matches!(kind, JobKind::Sequential | JobKind::SequentialDsync);
    out.options.clear();
    out.push("name", name);
    out.push(
        "size",
        format_size_suffix(request.size_bytes, KbBase::Binary),
    );
    let rw = match (read_rate > 0, write_rate > 0) {
        (_, true) if sequential => "write",
        (true, true) => "randrw",
        (true, false) => "randread",
        _ => "randwrite",
    };
    out.push("rw", rw.to_string());
    if read_rate > 0 && write_rate > 0 {
        // In floating point: rates from a damaged capture can be near u64::MAX each.
        let share = read_rate as f64 / (read_rate as f64 + write_rate as f64) * 100.0;
        out.push("rwmixread", format!("{}", share.round() as u64));
        if (share - share.round()).abs() > 0.05 {
            out.note(format!(
                "rwmixread {}: the level's read share {share:.1} % rounded to fio's whole percent",
                share.round()
            ));
        }
    }
    let split_means = sizes(request, read_rate > 0, write_rate > 0, out);
    if !sequential {
        randomness(request, out);
        if split_means.is_some_and(|means| means.iter().any(|&(_, several)| several)) {
            // fio's random map cuts an IO of a size split short where it reaches blocks
            // already done in the pass (diskmeter's too); the application's IOs were whole.
            out.push("norandommap", "1".to_string());
            out.note(
                "norandommap: random IOs keep the traced sizes (the random map would cut \
                 some short)"
                    .to_string(),
            );
        }
    }
    let depth = replay_depth(
        level,
        [read_rate, write_rate],
        request.trace.as_ref().and_then(|t| t.queue_depth_p99),
    );
    if matches!(kind, JobKind::RandomDsync | JobKind::SequentialDsync) {
        // One write and its flush at a time, as a log writer commits: the block layer merges
        // flushes that wait together into one (blk-flush), so a deeper queue of O_DSYNC
        // writes would send fewer flushes than the application did.
        out.push("iodepth", "1".to_string());
    } else {
        out.push("iodepth", depth.iodepth.to_string());
        out.note(depth.note(level.level));
        if let Some(note) = depth_cut_note(depth.wanted) {
            out.note(note);
        }
    }
    rates([read_rate, write_rate], split_means, out);
    if let Some(every) = fdatasync.filter(|_| write_rate > 0) {
        out.push("fdatasync", every.to_string());
    }
    if matches!(kind, JobKind::RandomDsync | JobKind::SequentialDsync) {
        out.push("sync", "dsync".to_string());
    }
    out.push("runtime", format_time_suffix(request.runtime_ns));
    out.push("time_based", "1".to_string());
    out.push("direct", "1".to_string());
    out.push("ioengine", REPLAY_ENGINE.to_string());
    out.jobs_built += 1;
    out.notes_closed = false;
    std::mem::take(&mut out.options)
}

/// What a job of the replay does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JobKind {
    /// Reads and writes at the traced random share and hot set.
    Random,
    /// Writes with their own flush (`sync=dsync`) at random places.
    RandomDsync,
    /// A sequential stream's writes (`rw=write`).
    Sequential,
    /// A sequential stream's writes with their own flush.
    SequentialDsync,
}

/// Options and notes in the order they are decided.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) options: Vec<(String, String)>,
    pub(super) notes: Vec<String>,
    /// Notes of a second job that would repeat the first's are dropped.
    pub(super) notes_closed: bool,
    /// Jobs built so far.
    pub(super) jobs_built: usize,
}

impl Builder {
    pub(super) fn push(&mut self, option: &str, value: String) {
        self.options.push((option.to_string(), value));
    }

    pub(super) fn note(&mut self, note: String) {
        if !self.notes_closed {
            self.notes.push(note);
        }
    }
}

/// `percentage_random` (trace, `--random`, or 100 with a note) and the hot set.
pub(super) fn randomness(request: &ReplayRequest, out: &mut Builder) {
    let traced = request.trace.as_ref();
    let percent = match (request.random_percent, traced) {
        (Some(pct), Some(trace)) => {
            out.note(format!(
                "random share: {pct} % as --random gave it (the trace measured {:.0} %)",
                trace.random_fraction * 100.0
            ));
            pct
        }
        (Some(pct), None) => {
            out.note(format!(
                "random share: {pct} % as --random gave it (a counter capture does not know it)"
            ));
            pct
        }
        (None, Some(trace)) => {
            let pct = (trace.random_fraction.clamp(0.0, 1.0) * 100.0).round() as u8;
            out.note(format!("random share: {pct} %, traced"));
            pct
        }
        (None, None) => {
            out.note(
                "random share: unknown (a counter capture does not know it): replaying fully \
                 random IO; give --random PCT for the application's share (capture --trace \
                 measures it)"
                    .to_string(),
            );
            100
        }
    };
    if percent < 100 {
        out.push("percentage_random", percent.to_string());
    }
    let Some(trace) = traced else {
        return;
    };
    match trace.hot_share {
        Some(share) if share.is_finite() && share > 0.0 && share < 0.8 => {
            let hot = ((share * 100.0).round() as u64).clamp(1, 99);
            out.push(
                "random_distribution",
                format!(
                    "zoned:{HOT_IO_PERCENT}/{hot}:{}/{}",
                    100 - HOT_IO_PERCENT,
                    100 - hot
                ),
            );
            let set = trace
                .working_set_bytes
                .map(|b| {
                    format!(
                        "; the traced working set was {} (--size {} replays it over the same span)",
                        diskmeter_units::format_bytes_binary(b),
                        format_size_suffix(b.max(SECTOR_BYTES), KbBase::Binary)
                    )
                })
                .unwrap_or_default();
            out.note(format!(
                "hot set: {HOT_IO_PERCENT} % of the IOs on the first {hot} % of the region, \
                 as traced ({HOT_IO_PERCENT} % of the IOs went to {hot} % of the bytes touched){set}"
            ));
        }
        Some(_) => out.note(
            "hot set: the traced IOs were spread evenly (80 % of them took 80 % or more of \
             the bytes touched): uniform offsets"
                .to_string(),
        ),
        None => out.note("hot set: not measured by the trace: uniform offsets".to_string()),
    }
}
