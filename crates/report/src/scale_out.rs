//! The figures of a run across several hosts (ranks) that no single rank has: the aggregate
//! rates measured IOR's way, beside the sums of the ranks' own rates, and how far apart the
//! ranks started each stonewall phase. [`crate::merge::merge_ranks`] fills them.

use serde::{Deserialize, Serialize};

/// The aggregate figures of a merged scale-out run (`scale_out` in diskmeter's JSON).
///
/// IOR's aggregate bandwidth is the total bytes of every rank over the time from the
/// earliest start to the latest end; the sum of the ranks' own rates is higher when the
/// ranks did not run exactly side by side (a rank that started late or finished early is
/// credited with its own shorter time). Both are given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleOut {
    /// Number of ranks merged.
    pub ranks: u32,
    /// Each rank's host, in rank order.
    pub hostnames: Vec<String>,
    /// The earliest start of phase 0 (the IO after the layout) over the ranks, ns since the
    /// Unix epoch (a result without phase times counts from its `started_unix_ms`).
    pub earliest_start_unix_ns: u64,
    /// The latest end of the IO over the ranks, ns since the Unix epoch (a result without
    /// it counts to its `finished_unix_ms`).
    pub latest_end_unix_ns: u64,
    /// `latest_end_unix_ns - earliest_start_unix_ns`: the time IOR's rates are over, ns.
    pub window_ns: u64,
    /// IOs of every rank, job and direction (reads, writes, trims).
    pub total_ios: u64,
    /// Bytes of every rank, job and direction.
    pub total_bytes: u64,
    /// IOR's aggregate IOPS: `total_ios / window`.
    pub aggregate_iops: f64,
    /// IOR's aggregate bandwidth: `total_bytes / window`, bytes per second.
    pub aggregate_bw_bytes_per_sec: f64,
    /// The sum of each rank's own IOPS (each job's rate over its own runtime).
    pub sum_of_rank_iops: f64,
    /// The sum of each rank's own bandwidth, bytes per second.
    pub sum_of_rank_bw_bytes_per_sec: f64,
    /// Each stonewall phase's start over the ranks; phases that only some ranks reached
    /// count the ranks that did.
    pub phases: Vec<PhaseStart>,
    /// Each rank's own figures, in rank order.
    pub per_rank: Vec<RankFigures>,
}

/// When the ranks started one stonewall phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseStart {
    /// The phase: 0 is the first after the layout, one more per stonewall.
    pub phase: u32,
    /// The first rank's start, ns since the Unix epoch.
    pub earliest_unix_ns: u64,
    /// The last rank's start, ns since the Unix epoch.
    pub latest_unix_ns: u64,
    /// `latest - earliest`: the start skew between the ranks, ns.
    pub skew_ns: u64,
    /// How many ranks started the phase.
    pub ranks: u32,
}

/// One rank's headline figures, for the per-rank table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankFigures {
    /// The rank (its `meta.rank` when every input had one, else its place in the input).
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// IOs of its jobs, every direction.
    pub ios: u64,
    /// Bytes of its jobs, every direction.
    pub bytes: u64,
    /// Its IOPS (the sum of its jobs' rates).
    pub iops: f64,
    /// Its bandwidth, bytes per second.
    pub bw_bytes_per_sec: f64,
    /// When it started phase 0, ns after the earliest rank did.
    pub start_offset_ns: u64,
    /// Its first job error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The terminal lines of a merged run: the aggregate figures, each phase's start skew and
/// one line per rank (the first 64; the JSON has them all).
pub(crate) fn render_terminal(out: &mut String, s: &ScaleOut) {
    use crate::format::{bytes_both, count, iops, rate_both, seconds};
    use std::fmt::Write as _;
    /// Ranks listed one per line: a thousand would drown the aggregate.
    const LISTED_RANKS: usize = 64;
    let _ = writeln!(
        out,
        "\nScale-out: {} ranks on {} host(s), IO from first start to last end {}",
        s.ranks,
        {
            let mut hosts = s.hostnames.clone();
            hosts.sort_unstable();
            hosts.dedup();
            hosts.len()
        },
        seconds(s.window_ns)
    );
    let _ = writeln!(
        out,
        "  aggregate (IOR: total / (latest end - earliest start)): IOPS={}, BW={}, {} IOs, {}",
        iops(s.aggregate_iops),
        rate_both(s.aggregate_bw_bytes_per_sec),
        count(s.total_ios),
        bytes_both(s.total_bytes as f64)
    );
    let _ = writeln!(
        out,
        "  sum of the ranks' own rates: IOPS={}, BW={}",
        iops(s.sum_of_rank_iops),
        rate_both(s.sum_of_rank_bw_bytes_per_sec)
    );
    for phase in &s.phases {
        let _ = writeln!(
            out,
            "  phase {} start skew: {} over {} rank(s)",
            phase.phase,
            skew(phase.skew_ns),
            phase.ranks
        );
    }
    let _ = writeln!(
        out,
        "  rank  host                        IOPS  start        BW"
    );
    for rank in s.per_rank.iter().take(LISTED_RANKS) {
        let _ = writeln!(
            out,
            "  {:>4}  {:<20}  {:>10}  +{:<11} {}{}",
            rank.rank,
            rank.hostname,
            iops(rank.iops),
            skew(rank.start_offset_ns),
            rate_both(rank.bw_bytes_per_sec),
            rank.error
                .as_deref()
                .map(|e| format!("  err={e}"))
                .unwrap_or_default()
        );
    }
    if s.per_rank.len() > LISTED_RANKS {
        let _ = writeln!(
            out,
            "  ... and {} more ranks (--output-format json lists them all)",
            s.per_rank.len() - LISTED_RANKS
        );
    }
}

/// A skew in its scaled unit: "850 ns", "12.4 us", "3.10 ms".
fn skew(ns: u64) -> String {
    diskmeter_units::format_duration_ns(ns)
}
