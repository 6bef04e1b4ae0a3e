//! The sequential stream split: how a level's data writes divide between the sequential
//! stream(s) a trace saw (a log's appends, given a job of their own) and the random rest.

use super::{ReplayRequest, TracedShape};

/// The share of the traced writes that continued their stream at or above which the replay
/// gives the sequential stream(s) a job of their own: below it they are a few coincidences
/// of random IO, not a log.
pub const SEQUENTIAL_STREAM_MIN_SHARE: f64 = 0.1;

/// How the level's data writes split between the sequential stream(s) and the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamSplit {
    /// Share of the traced writes that continued their stream, 0 when under
    /// [`SEQUENTIAL_STREAM_MIN_SHARE`] or untraced.
    pub sequential_share: f64,
    /// Sequential writes per second without a flag (beyond those the `-dsync` job takes).
    pub sequential_plain: u64,
    /// The sequential writes' sizes as (bytes, IOs).
    pub sequential_sizes: Vec<(u64, u64)>,
    /// The random share of the IOs the random job keeps, 0..=1, when writes left it.
    pub random_fraction: Option<f64>,
}

impl StreamSplit {
    /// `request` with the sequential writes' sizes as its write sizes.
    pub(super) fn sequential_request(&self, request: &ReplayRequest) -> ReplayRequest {
        let mut sequential = request.clone();
        if let Some(trace) = sequential.trace.as_mut() {
            trace.write_sizes = self.sequential_sizes.clone();
        }
        sequential
    }
}

/// Splits `data_writes` per second (of which `dsync` carry their own flush) between the
/// sequential stream(s) the trace saw and the random rest: S = the sequential share of the
/// writes x `data_writes`, rounded up; the `dsync` writes are taken from S first (a log's
/// appends are the writes a database makes durable), the rest of S is a plain sequential
/// job. The random job's random share is then the trace's over the IOs it keeps.
pub fn split_streams(trace: Option<&TracedShape>, data_writes: u64, dsync: u64) -> StreamSplit {
    let Some(trace) = trace else {
        return StreamSplit::default();
    };
    let writes = crate::wide_sum(trace.write_sizes.iter().map(|(_, n)| *n));
    let sequential = crate::wide_sum(trace.sequential_write_sizes.iter().map(|(_, n)| *n));
    if writes == 0 || sequential == 0 {
        return StreamSplit::default();
    }
    let share = (sequential as f64 / writes as f64).min(1.0);
    if share < SEQUENTIAL_STREAM_MIN_SHARE {
        return StreamSplit::default();
    }
    let stream = ((data_writes as f64 * share).ceil() as u64).min(data_writes);
    let sequential_plain = stream
        .saturating_sub(dsync)
        .min(data_writes - dsync.min(data_writes));
    // The trace's random share was over every IO; the sequential writes leave the random job.
    let reads = crate::wide_sum(trace.read_sizes.iter().map(|(_, n)| *n));
    let all = (reads + writes) as f64;
    let kept = all - sequential as f64;
    let random_fraction = (kept > 0.0).then(|| {
        let sequential_kept = (all * (1.0 - trace.random_fraction) - sequential as f64).max(0.0);
        (1.0 - sequential_kept / kept).clamp(0.0, 1.0)
    });
    StreamSplit {
        sequential_share: share,
        sequential_plain,
        sequential_sizes: trace.sequential_write_sizes.clone(),
        random_fraction,
    }
}

/// The (bytes, IOs) list `sizes` less the IOs of `taken` per size.
pub(super) fn without(sizes: &[(u64, u64)], taken: &[(u64, u64)]) -> Vec<(u64, u64)> {
    sizes
        .iter()
        .map(|&(bytes, ios)| {
            let gone: u64 = taken
                .iter()
                .filter(|(b, _)| *b == bytes)
                .map(|(_, n)| *n)
                .fold(0, u64::saturating_add);
            (bytes, ios.saturating_sub(gone))
        })
        .filter(|(_, ios)| *ios > 0)
        .collect()
}
