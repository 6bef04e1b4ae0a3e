//! The start of a run: fio's `wait_for` and `startdelay` before the clock starts, then the
//! ramp, the measured period and the deadline set from the start.

use super::{Window, Worker, MAX_SLEEP_NS};
use crate::clock::Clock;
use diskmeter_engine::IoEngine;
use std::sync::atomic::Ordering;

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// fio's `wait_for` (until the other job's workers have all finished), then its
    /// `startdelay`, in short slices so Ctrl-C is seen during a long delay.
    pub(super) fn start_delay(&self) {
        let links = &self.ctx.links;
        while !links.may_start()
            && !self.ctx.stop.load(Ordering::Relaxed)
            && !self.ctx.abort.load(Ordering::Relaxed)
            && !links.told_to_exit()
        {
            let now = self.clock.now_ns();
            self.clock.sleep_until(now + 1_000_000);
        }
        if self.ctx.job.startdelay_ns == 0 {
            return;
        }
        let until = self
            .clock
            .now_ns()
            .saturating_add(self.ctx.job.startdelay_ns);
        while !self.ctx.stop.load(Ordering::Relaxed) && self.clock.now_ns() < until {
            let now = self.clock.now_ns();
            self.clock.sleep_until(until.min(now + MAX_SLEEP_NS));
        }
    }

    /// Starts the clock: the ramp, the measured period and the deadline are set from now.
    pub(super) fn start(&mut self) {
        let job = self.ctx.job;
        let t0 = self.clock.now_ns();
        let measure_start = t0 + job.ramp_time_ns;
        // The measured period ends at `measure_end`; DiskSpd's cool-down keeps the load on
        // after it, uncounted, until `deadline`.
        let measure_end = self
            .ctx
            .plan
            .runtime_ns
            .map_or(u64::MAX, |r| measure_start.saturating_add(r));
        self.window = Window {
            measure_start,
            measure_end,
            deadline: self
                .ctx
                .plan
                .runtime_ns
                .map(|_| measure_end.saturating_add(job.cooldown_ns)),
        };
        self.pace.start(t0);
        if let Some(controls) = &mut self.controls {
            controls.start(t0);
        }
        if let Some(replay) = &mut self.replay {
            replay.start(t0);
        }
        if let Some(recorder) = &mut self.recorder {
            if let Err(error) = recorder.start(t0) {
                self.fail_with(error);
            }
        }
        self.tally.start(measure_start, job.ramp_time_ns == 0);
        if let Err(error) = self.open_connections() {
            self.fail_with(error);
        }
    }
}
