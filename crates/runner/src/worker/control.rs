//! The job's pacing and ending rules that sit on top of the IO loop: fio's think time
//! (`thinktime` and its family), `number_ios`, the latency-target queue-depth search,
//! flow control between jobs (`flow`), `iodepth_low`, `max_latency` and `rate_iops_min`.
//!
//! A worker builds a [`Controls`] only when its job uses one of them (`Worker::new`), so a
//! job without them pays one `Option` test per issue and per completion. The loop asks
//! [`Controls::gate`] before choosing each IO, and tells [`Controls::issued`] and
//! [`Controls::completed`] what happened; each rule keeps its own few counters.
//!
//! The latency search follows fio's description (HOWTO `latency_target`): start at depth 1,
//! run a window at each depth, double the depth while a window meets the target (bisect
//! once one has failed), step down when one fails, and stop once the same depth succeeds
//! twice in a row (or keep adjusting with `latency_run`).

use diskmeter_workload::control::{Flow, LatencyTarget, ThinkTrigger};
use diskmeter_workload::JobSpec;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Longest wait before a job held back by flow control tries again when `flow_sleep` is 0.
const FLOW_POLL_NS: u64 = 50_000;

/// What the rules allow before the next IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gate {
    /// Issue it.
    Go,
    /// Not before this time (a think-time stall, flow control).
    WaitUntil(u64),
    /// Not until an IO in flight completes (think-time blocks, the searched depth,
    /// `iodepth_low`).
    Full,
    /// The job is done (`number_ios`, the latency search found its depth).
    Done,
}

/// One flow group (fio `flow_id`): the IOs its jobs have issued and their summed weight.
#[derive(Debug, Default)]
pub struct FlowGroup {
    issued: AtomicU64,
    total_weight: AtomicU64,
}

impl FlowGroup {
    /// A group with no members yet.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A worker's weight in its flow group, held from before its phase's start gate opens until
/// the worker has ended (dropped): a member whose thread passes the gate late is counted from
/// the start, so the others are held to their share meanwhile instead of running alone.
pub(crate) struct FlowMembership {
    group: Arc<FlowGroup>,
    weight: u64,
}

impl FlowMembership {
    /// Joins `job`'s flow group, when it has one and the job a weight.
    pub(crate) fn join(job: &JobSpec, group: Option<&Arc<FlowGroup>>) -> Option<FlowMembership> {
        let weight = u64::from(job.control.flow()?.weight);
        let group = Arc::clone(group?);
        group.total_weight.fetch_add(weight, Ordering::Relaxed);
        Some(FlowMembership { group, weight })
    }
}

impl Drop for FlowMembership {
    /// The worker has ended: it leaves its flow group, so the others are not held back by a
    /// share nobody uses any more.
    fn drop(&mut self) {
        self.group
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}

/// A worker's place in its flow group.
struct FlowMember {
    group: Arc<FlowGroup>,
    weight: u64,
    sleep_ns: u64,
    issued: u64,
}

/// fio's think time.
struct Think {
    stall_ns: u64,
    spin_ns: u64,
    blocks: u32,
    trigger: ThinkTrigger,
    iotime_ns: u64,
    cycle_start_ns: u64,
    issued: u32,
    completed: u32,
    /// The current stall ends here.
    until_ns: u64,
    /// In a stall (until `until_ns`).
    pending: bool,
    /// Length of a stall begun since the rate schedule last looked, ns.
    new_stall_ns: u64,
}

/// fio's latency-target search.
struct LatencySearch {
    target: LatencyTarget,
    max_depth: u32,
    depth: u32,
    low: u32,
    high: u32,
    window_start_ns: u64,
    ios: u64,
    missed: u64,
    /// The depth was confirmed once: one more successful window ends the search.
    settling: bool,
    done: bool,
}

/// The control rules of one worker.
pub(super) struct Controls {
    think: Option<Think>,
    /// Rate-limited IO does not catch up after a stall (fio `rate_ignore_thinktime`).
    pub(super) ignore_think_for_rate: bool,
    /// fio `number_ios`, 0 = none, and the measured IOs issued so far.
    number_ios: u64,
    issued_ios: u64,
    latency: Option<LatencySearch>,
    flow: Option<FlowMember>,
    /// fio `iodepth_low`: once full, wait until in-flight is down to this.
    depth_low: Option<usize>,
    draining: bool,
    max_depth: usize,
    /// fio `max_latency`, ns.
    pub(super) max_latency_ns: u64,
}

impl Controls {
    /// The rules of `job` at `max_depth`, or `None` when it uses none of them.
    pub(super) fn for_job(
        job: &JobSpec,
        max_depth: u32,
        flow_group: Option<Arc<FlowGroup>>,
    ) -> Option<Box<Controls>> {
        let c = &job.control;
        let think = c.thinks().then(|| Think {
            stall_ns: c.thinktime_ns,
            spin_ns: c.thinktime_spin_ns.min(c.thinktime_ns),
            blocks: c.thinktime_blocks.max(1),
            trigger: c.thinktime_blocks_type,
            iotime_ns: c.thinktime_iotime_ns,
            cycle_start_ns: 0,
            issued: 0,
            completed: 0,
            until_ns: 0,
            pending: false,
            new_stall_ns: 0,
        });
        let latency = c.latency_search().map(|target| LatencySearch {
            target,
            max_depth: max_depth.max(1),
            depth: 1,
            low: 1,
            high: max_depth.max(1),
            window_start_ns: 0,
            ios: 0,
            missed: 0,
            settling: false,
            done: false,
        });
        let flow = match (c.flow(), flow_group) {
            (
                Some(Flow {
                    weight, sleep_ns, ..
                }),
                Some(group),
            ) => Some(FlowMember {
                group,
                weight: u64::from(weight),
                sleep_ns: if sleep_ns == 0 {
                    FLOW_POLL_NS
                } else {
                    sleep_ns
                },
                issued: 0,
            }),
            _ => None,
        };
        let depth_low = c
            .iodepth_low
            .map(|low| low as usize)
            .filter(|&low| low < max_depth as usize);
        let any = think.is_some()
            || latency.is_some()
            || flow.is_some()
            || depth_low.is_some()
            || c.number_ios > 0
            || c.max_latency_ns.is_some();
        any.then(|| {
            Box::new(Controls {
                think,
                ignore_think_for_rate: c.rate_ignore_thinktime,
                number_ios: c.number_ios,
                issued_ios: 0,
                latency,
                flow,
                depth_low,
                draining: false,
                max_depth: max_depth.max(1) as usize,
                max_latency_ns: c.max_latency_ns.unwrap_or(u64::MAX),
            })
        })
    }

    /// The clock has started: the first think cycle and latency window begin (the worker
    /// joined its flow group before the start gate: [`FlowMembership`]).
    pub(super) fn start(&mut self, t0: u64) {
        if let Some(think) = &mut self.think {
            think.cycle_start_ns = t0;
        }
        if let Some(search) = &mut self.latency {
            search.window_start_ns = t0;
        }
    }

    /// Whether the next IO may go at `now` with `in_flight` IOs outstanding (queued in this
    /// pass included). A think-time stall's spin part is spent here.
    pub(super) fn gate(&mut self, now: u64, in_flight: usize) -> Gate {
        if self.number_ios > 0 && self.issued_ios >= self.number_ios {
            return Gate::Done;
        }
        if let Some(search) = &self.latency {
            if search.done {
                return Gate::Done;
            }
            if in_flight >= search.depth as usize {
                return Gate::Full;
            }
        }
        if let Some(low) = self.depth_low {
            if in_flight >= self.max_depth {
                self.draining = true;
            }
            if self.draining {
                if in_flight > low {
                    return Gate::Full;
                }
                self.draining = false;
            }
        }
        if let Some(think) = &mut self.think {
            if let Some(gate) = think.gate(now) {
                return gate;
            }
        }
        if let Some(flow) = &self.flow {
            // Ahead of the share: my IOs / the group's > my weight / the group's weight.
            let group_issued = flow.group.issued.load(Ordering::Relaxed);
            let total_weight = flow.group.total_weight.load(Ordering::Relaxed).max(1);
            if u128::from(flow.issued) * u128::from(total_weight)
                > u128::from(flow.weight) * u128::from(group_issued)
            {
                return Gate::WaitUntil(now + flow.sleep_ns);
            }
        }
        Gate::Go
    }

    /// An IO was issued at `now`; `measured` when inside the measured period.
    pub(super) fn issued(&mut self, now: u64, measured: bool) {
        if measured {
            self.issued_ios += 1;
        }
        if let Some(think) = &mut self.think {
            think.issued += 1;
            if think.trigger == ThinkTrigger::Issue && think.issued >= think.blocks {
                think.stall(now);
            }
        }
        if let Some(flow) = &mut self.flow {
            flow.issued += 1;
            flow.group.issued.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An IO completed at `now` after `lat_ns`. False when the latency search gives up: an
    /// IO missed a 100 % target at depth 1 (fio ends the job with ETIMEDOUT then).
    pub(super) fn completed(&mut self, now: u64, lat_ns: u64) -> bool {
        if let Some(think) = &mut self.think {
            think.completed += 1;
            if think.trigger == ThinkTrigger::Complete && think.completed >= think.blocks {
                think.stall(now);
            }
        }
        if let Some(search) = &mut self.latency {
            search.ios += 1;
            if lat_ns > search.target.target_ns && !search.done {
                if search.target.percentile < 100.0 {
                    search.missed += 1;
                } else if search.depth == 1 {
                    return false;
                } else {
                    // fio: with a 100 % target one slow IO is enough; step down at once.
                    search.failed();
                    search.new_window(now);
                }
            }
        }
        true
    }

    /// The latency target the search could not meet even at depth 1, ns.
    pub(super) fn latency_target_ns(&self) -> u64 {
        self.latency.as_ref().map_or(0, |s| s.target.target_ns)
    }

    /// Once per pass: closes a latency window that has run its time.
    pub(super) fn tick(&mut self, now: u64) {
        if let Some(search) = &mut self.latency {
            search.tick(now);
        }
    }

    /// The job has done what these rules allow (`number_ios` issued, the search over).
    pub(super) fn done(&self) -> bool {
        (self.number_ios > 0 && self.issued_ios >= self.number_ios)
            || self.latency.as_ref().is_some_and(|s| s.done)
    }

    /// The depth the latency search settled on (or is at), if the job searches.
    pub(super) fn latency_depth(&self) -> Option<u32> {
        self.latency.as_ref().map(|s| s.depth)
    }

    /// The stall that just started, ns, for a rate schedule to move by (fio
    /// `rate_ignore_thinktime`); 0 when none started.
    pub(super) fn take_new_stall_ns(&mut self) -> u64 {
        match &mut self.think {
            Some(think) => std::mem::take(&mut think.new_stall_ns),
            None => 0,
        }
    }
}

impl Think {
    /// The cycle's IOs are issued (or completed): stall from now.
    fn stall(&mut self, now: u64) {
        self.until_ns = now + self.stall_ns;
        self.new_stall_ns = self.stall_ns;
        self.issued = 0;
        self.completed = 0;
        self.pending = true;
    }

    /// `None` when think time lets the IO go; else what to wait for.
    fn gate(&mut self, now: u64) -> Option<Gate> {
        if !self.pending && self.iotime_ns > 0 && now >= self.cycle_start_ns + self.iotime_ns {
            self.stall(now);
        }
        if self.pending {
            if now < self.until_ns {
                let spin_end = self.until_ns - self.stall_ns + self.spin_ns;
                if now < spin_end {
                    // fio's thinktime_spin: busy on the CPU, as an application processing
                    // the data would be.
                    spin_until(now, spin_end);
                }
                return Some(Gate::WaitUntil(self.until_ns));
            }
            self.pending = false;
            self.cycle_start_ns = now;
        }
        // Completion-counted blocks: at most `blocks` IOs per cycle, the stall after they
        // have all completed.
        if self.trigger == ThinkTrigger::Complete && self.issued >= self.blocks {
            return Some(Gate::Full);
        }
        None
    }
}

/// Busy-waits `until - now` ns of wall time.
fn spin_until(now: u64, until: u64) {
    let start = std::time::Instant::now();
    let span = std::time::Duration::from_nanos(until.saturating_sub(now));
    while start.elapsed() < span {
        std::hint::spin_loop();
    }
}

impl LatencySearch {
    /// Closes the window when it has run `latency_window` and has IOs to judge.
    fn tick(&mut self, now: u64) {
        if self.done || now < self.window_start_ns + self.target.window_ns || self.ios == 0 {
            return;
        }
        let met = (self.ios - self.missed) as f64 * 100.0 / self.ios as f64;
        if met >= self.target.percentile {
            self.succeeded();
        } else {
            self.failed();
        }
        self.new_window(now);
    }

    /// A new window at the current depth starts at `now`.
    fn new_window(&mut self, now: u64) {
        self.window_start_ns = now;
        self.ios = 0;
        self.missed = 0;
    }

    /// The window met the target: deeper, doubling until a depth has failed, then halfway
    /// to the lowest failed one.
    fn succeeded(&mut self) {
        let before = self.depth;
        self.low = self.depth;
        let next = if self.high < self.max_depth {
            (self.depth + self.high) / 2
        } else {
            self.depth.saturating_mul(2)
        };
        self.depth = next.clamp(1, self.max_depth);
        if self.depth == before && !self.target.keep_running {
            // The same depth again: one more window at it, so the results are its own.
            if self.settling {
                self.done = true;
            }
            self.settling = true;
        }
    }

    /// The window missed the target: halfway down to the deepest depth that met it.
    fn failed(&mut self) {
        self.high = self.depth;
        if self.high == self.low {
            self.low = self.low.saturating_sub(1).max(1);
        }
        self.depth = ((self.depth + self.low) / 2).max(1);
        self.settling = false;
    }
}

#[cfg(test)]
#[path = "control_tests.rs"]
mod tests;
