//! The rate schedule of a worker ([`Pacing`]): fio's `rate_iops` and `rate` per direction,
//! Poisson arrivals (`rate_process=poisson`), the free-running direction of a mixed job
//! between paced IOs, and the gap an IO the random map shrank leaves. `issue.rs` asks it
//! what is due.

use crate::arrivals::PoissonGaps;
use crate::prepare::WorkerPlan;
use diskmeter_workload::{Direction, JobSpec};

/// The rate schedule of fio's `rate_iops` and `rate`: each limited direction has its own
/// intended issue times; an unlimited direction of a mixed job fills the time between.
pub(super) struct Pacing {
    /// Interval between IOs per direction, ns (`rate_iops`, or `rate` at the block size).
    pub(super) period_ns: [Option<u64>; 2],
    /// A bandwidth cap paces each IO by its own size (sizes vary with bsrange/bssplit).
    pub(super) bytes_per_sec: [Option<u64>; 2],
    /// Some direction the job does is limited.
    pub(super) rate_limited: bool,
    /// The direction a rate-limited mixed job issues between its limited IOs, if any.
    pub(super) free_running: Option<Direction>,
    /// fio `rate_process=poisson`: exponential gaps with the period as their mean.
    pub(super) poisson: bool,
    pub(super) arrivals: PoissonGaps,
    /// When the next IO of each direction is due.
    pub(super) next_intended_ns: [u64; 2],
    /// The gap the last IO of each direction put before the next (for [`Pacing::shrunk`]).
    pub(super) last_gap_ns: [u64; 2],
    /// Which directions are on a schedule (done by the job and limited).
    pub(super) scheduled: [bool; 2],
    /// A timed replay: every IO has an intended time from the log.
    pub(super) replay_timed: bool,
}

impl Pacing {
    pub(super) fn new(job: &JobSpec, plan: &WorkerPlan, issues: [bool; 2]) -> Pacing {
        let period_ns = [plan.rate_period_ns.read, plan.rate_period_ns.write];
        let bytes_per_sec = Direction::BOTH.map(|d| {
            job.rate_bytes_per_sec
                .get(d)
                .filter(|&r| r > 0 && job.rate_iops.get(d).is_none())
        });
        let scheduled = [0, 1].map(|d| issues[d] && period_ns[d].is_some());
        Pacing {
            period_ns,
            bytes_per_sec,
            rate_limited: scheduled.iter().any(|&s| s),
            free_running: Direction::BOTH
                .into_iter()
                .find(|d| issues[d.index()] && period_ns[d.index()].is_none()),
            poisson: job.rate_poisson,
            arrivals: PoissonGaps::new(plan.seed),
            next_intended_ns: [0; 2],
            last_gap_ns: [0; 2],
            scheduled,
            replay_timed: false,
        }
    }

    /// The schedule starts when the worker's clock does (the ramp is on it too).
    pub(super) fn start(&mut self, t0: u64) {
        self.next_intended_ns = [t0; 2];
    }

    /// Moves the schedule `ns` later (fio `rate_ignore_thinktime`: no catching up on the IOs
    /// a think-time stall delayed).
    pub(super) fn shift(&mut self, ns: u64) {
        for due in &mut self.next_intended_ns {
            *due += ns;
        }
    }

    /// True when `direction` is rate-limited, so its IOs have an intended issue time.
    #[inline]
    pub(super) fn is_limited(&self, direction: Direction) -> bool {
        self.replay_timed || self.period_ns[direction.index()].is_some()
    }

    /// The last IO of `direction` shrank from `drawn_bytes` to `len_bytes` (fio's random map):
    /// under a bandwidth cap its gap shrinks in proportion, so the cap holds on the bytes
    /// done, as fio's rate counts them.
    #[cold]
    pub(super) fn shrunk(&mut self, direction: Direction, drawn_bytes: u64, len_bytes: u64) {
        let d = direction.index();
        if !self.scheduled[d] || self.bytes_per_sec[d].is_none() || drawn_bytes == 0 {
            return;
        }
        let gap = self.last_gap_ns[d];
        let kept = (u128::from(gap) * u128::from(len_bytes) / u128::from(drawn_bytes)) as u64;
        self.next_intended_ns[d] -= gap - kept.max(1).min(gap);
        self.last_gap_ns[d] = kept;
    }

    /// The gap after an IO of `len_bytes` in `direction`.
    pub(super) fn gap_ns(&self, direction: Direction, len_bytes: u64) -> u64 {
        let d = direction.index();
        match self.bytes_per_sec[d] {
            Some(rate) => {
                ((u128::from(len_bytes) * 1_000_000_000) / u128::from(rate)).max(1) as u64
            }
            None => self.period_ns[d].unwrap_or(0),
        }
    }
}
