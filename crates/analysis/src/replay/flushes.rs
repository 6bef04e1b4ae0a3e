//! Flush planning: how a level's `f/s` is replayed within its `w/s` — the share of the
//! counted writes that carried data, `fdatasync` every N plain writes for the fsyncs' empty
//! writes, `sync=dsync` writes for the flushes that rode on data writes — and the note that
//! says so.

use super::job::Builder;
use super::{LevelFigures, TracedShape};

/// Share of the counted writes that carried data: the trace's data writes per second over
/// the counters' mean `w/s` (an fsync's empty preflush is a write to the counters and no
/// request to the driver). `None` without a trace or a write rate to compare.
pub fn data_write_share(level: &LevelFigures, trace: Option<&TracedShape>) -> Option<f64> {
    let traced = trace?.write_ios_per_sec?;
    let counted = level.write_iops_mean?;
    (traced.is_finite() && counted.is_finite() && counted > 0.0)
        .then(|| (traced / counted).clamp(0.0, 1.0))
}

/// How a level's flushes are replayed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushPlan {
    /// Data writes per second without a flag, of which every `every`-th is followed by an
    /// `fdatasync` (the flushes that came with an empty write: an fsync's).
    pub plain_writes: u64,
    /// One `fdatasync` after every this many plain writes (fio's `fdatasync=N`); `None`
    /// when no flush came with an empty write.
    pub every: Option<u64>,
    /// Data writes per second that carry their own flush (`sync=dsync`: a FUA write, on a
    /// device without FUA the write and a flush; a journal commit's or a preflush write's).
    pub dsync_writes: u64,
}

impl FlushPlan {
    /// Syncs per second the plain writes get.
    pub fn syncs_per_sec(&self) -> f64 {
        self.every
            .map_or(0.0, |n| self.plain_writes as f64 / n as f64)
    }
}

/// Replays `flushes_per_sec` within `counted_writes` (`w/s` at the level, rounded up), of
/// which `data_share` carried data (from a trace; `None` without one).
///
/// The kernel counts an fsync's empty preflush as a write of 0 bytes besides the flush (100
/// fsyncs of a block device add 100 writes, 0 sectors and 100 flushes to
/// `/proc/diskstats`); a flush that rides on a data write (a preflush write, a FUA write on a
/// device without FUA) adds no write. So of w counted writes, D = w x share carried data and
/// E = w - D were fsyncs' empty writes; the other f - E flushes rode on data writes.
/// Replayed: E syncs/s as `fdatasync` every N plain writes (N the whole number nearest the
/// plain writes over E), and f - E of the D data writes (rounded up) with their own flush
/// (`sync=dsync`), so the counted writes (D + E), the flushes and the bytes are the
/// level's again. Without a trace every flush is taken for an fsync's (E = f, at most half
/// the writes: one sync per data write), D = w x N / (N + 1) rounded up. `None` without
/// flushes or without writes.
pub fn plan_flushes(
    flushes_per_sec: f64,
    counted_writes: u64,
    data_share: Option<f64>,
) -> Option<FlushPlan> {
    if !(flushes_per_sec.is_finite() && flushes_per_sec > 0.0) || counted_writes == 0 {
        return None;
    }
    let writes = counted_writes as f64;
    let Some(share) = data_share.filter(|s| s.is_finite()) else {
        let data = (writes - flushes_per_sec).max(writes / 2.0);
        let every = nearest_interval(data, flushes_per_sec);
        let plain_writes = (writes * every as f64 / (every as f64 + 1.0)).ceil() as u64;
        return Some(FlushPlan {
            plain_writes: plain_writes.max(1),
            every: Some(every),
            dsync_writes: 0,
        });
    };
    let data = (writes * share.clamp(0.0, 1.0)).ceil().max(1.0);
    let empty = writes - data;
    let carried = (flushes_per_sec - empty).max(0.0).ceil().min(data);
    let plain = data - carried;
    // Under one empty write a second is the counters' and the trace's windows not meeting
    // exactly, not an fsync.
    let every = (empty >= 1.0 && plain >= 1.0).then(|| nearest_interval(plain, empty.min(plain)));
    Some(FlushPlan {
        plain_writes: plain as u64,
        every,
        dsync_writes: carried as u64,
    })
}

/// The whole N (at least 1, at most what `fdatasync` takes) whose `writes / N` is nearest
/// `syncs`.
pub(super) fn nearest_interval(writes: f64, syncs: f64) -> u64 {
    let ratio = writes / syncs;
    let below = ratio.floor().max(1.0);
    let above = ratio.ceil().max(1.0);
    let off = |n: f64| (writes / n - syncs).abs();
    let every = if off(above) < off(below) {
        above
    } else {
        below
    };
    // A damaged capture's rates can be any number; the job must still parse.
    let most = match diskmeter_workload::limits_of("fdatasync").map(|limits| limits.range) {
        Some(diskmeter_workload::Range::Int { max: Some(max), .. }) => max,
        _ => u64::from(u32::MAX),
    };
    (every.min(most as f64) as u64).max(1)
}

/// The note on the level's flushes, if it had any.
pub(super) fn flushes(
    level: &LevelFigures,
    counted_writes: u64,
    plan: Option<FlushPlan>,
    synced: Option<(u64, u64)>,
    out: &mut Builder,
) {
    let flushes = level.flushes_per_sec;
    if flushes <= 0.0 {
        return;
    }
    let Some(plan) = plan else {
        out.note(format!(
            "flushes: the capture's {flushes:.1} f/s at {} are not replayed: fio syncs after \
             writes, and the level has none",
            level.level
        ));
        return;
    };
    let Some((every, writes)) = synced else {
        return;
    };
    let syncs = writes as f64 / every as f64;
    let replayed = syncs + plan.dsync_writes as f64;
    let short = if replayed < flushes * 0.95 {
        format!(
            " (a sync after each write is the most fio issues: {:.0} % of the level's flushes)",
            replayed / flushes * 100.0
        )
    } else {
        String::new()
    };
    out.note(format!(
        "fdatasync {every}: one sync every {every} of {writes} data writes/s = {syncs:.1} syncs/s \
         for the level's {flushes:.1} f/s{short}; the kernel counts each sync's empty \
         preflush as a write too, so the level's {counted_writes} w/s are paced as data \
         writes plus the syncs; on a block device each sync is one cache flush \
         (blkdev_fsync), on a file fdatasync's flush with what the filesystem adds"
    ));
}
