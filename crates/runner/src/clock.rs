//! The worker's clock, injected so the IO loop can be tested without waiting.
//!
//! Production workers read [`TscClock`] (the engine's TSC clock, `sys::monotonic_ns`) and
//! sleep for real. Tests use [`ManualClock`]: sleeping moves its time forward at once, and
//! each reading can advance it by a fixed step so IOs take time. The worker is generic over
//! the clock, so the production loop is monomorphised with the TSC read inlined: no dynamic
//! dispatch and no extra work per IO.

use diskmeter_engine::sys;
use std::cell::Cell;

/// Where a worker gets the time and how it waits.
pub(crate) trait Clock {
    /// The current time, ns on a monotonic scale.
    fn now_ns(&self) -> u64;

    /// Returns at `deadline_ns` or later; at once when it has passed.
    fn sleep_until(&self, deadline_ns: u64);

    /// Asks for sleeps that end close to their deadline (rate-limited and throttled
    /// workers); best effort.
    fn want_precise_sleeps(&self) {}
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline(always)]
    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }

    #[inline]
    fn sleep_until(&self, deadline_ns: u64) {
        (**self).sleep_until(deadline_ns);
    }

    fn want_precise_sleeps(&self) {
        (**self).want_precise_sleeps();
    }
}

/// The production clock: the engine's calibrated TSC (CLOCK_MONOTONIC where there is none),
/// and real sleeps.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TscClock;

impl Clock for TscClock {
    #[inline(always)]
    fn now_ns(&self) -> u64 {
        sys::monotonic_ns()
    }

    fn sleep_until(&self, deadline_ns: u64) {
        let now = sys::monotonic_ns();
        if deadline_ns <= now {
            return;
        }
        if !PRECISE.with(Cell::get) {
            std::thread::sleep(std::time::Duration::from_nanos(deadline_ns - now));
            return;
        }
        // A timed wake-up on a virtual machine comes tens to hundreds of us late (measured on
        // this project's VMs, timer slack 1 ns: 40 us at the median, 120 us at p90): sleep to
        // SPIN_NS before the deadline, then spin, so a paced IO goes out at its intended time
        // and its latency from that time is the storage's, not the scheduler's.
        if deadline_ns - now > SPIN_NS {
            std::thread::sleep(std::time::Duration::from_nanos(deadline_ns - now - SPIN_NS));
        }
        // Yielding in the spin keeps a busy machine's other threads (another worker, another
        // job) running: on an idle CPU the yield returns at once.
        while sys::monotonic_ns() < deadline_ns {
            std::thread::yield_now();
        }
    }

    fn want_precise_sleeps(&self) {
        // Without it sleeps overshoot by the default 50 us of timer slack.
        let _ = sys::set_timer_slack_ns(1);
        PRECISE.with(|p| p.set(true));
    }
}

/// How long before a deadline a precise sleep stops sleeping and spins (see
/// [`TscClock::sleep_until`]); a rate-limited worker's waits in the engine end this early too.
pub(crate) const SPIN_NS: u64 = 200_000;

thread_local! {
    /// This worker thread asked for precise sleeps (it is rate-limited or throttled).
    static PRECISE: Cell<bool> = const { Cell::new(false) };
}

/// A clock for tests: time moves only when the worker sleeps (to the sleep's deadline), when
/// a test moves it, and, if asked, by `step_ns` at every reading, so no test waits for real
/// time. Atomic so a test engine can hold it too (engines are `Send`).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct ManualClock {
    now_ns: std::sync::atomic::AtomicU64,
    step_ns: u64,
}

#[cfg(test)]
impl ManualClock {
    /// A clock at `start_ns` that moves `step_ns` at every reading (0: only when sleeping).
    pub(crate) fn new(start_ns: u64, step_ns: u64) -> ManualClock {
        ManualClock {
            now_ns: std::sync::atomic::AtomicU64::new(start_ns),
            step_ns,
        }
    }

    /// The time now, without moving it.
    pub(crate) fn peek_ns(&self) -> u64 {
        self.now_ns.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Moves time forward by `ns`, as a stalled device or a descheduled thread would.
    pub(crate) fn advance(&self, ns: u64) {
        self.now_ns
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.now_ns
            .fetch_add(self.step_ns, std::sync::atomic::Ordering::Relaxed)
    }

    fn sleep_until(&self, deadline_ns: u64) {
        self.now_ns
            .fetch_max(deadline_ns, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_by_its_step_and_jumps_to_a_sleeps_deadline() {
        let clock = ManualClock::new(1_000, 10);
        assert_eq!((clock.now_ns(), clock.now_ns()), (1_000, 1_010));
        clock.sleep_until(5_000);
        assert_eq!(clock.now_ns(), 5_000);
        // A deadline in the past does not move time back.
        clock.sleep_until(10);
        assert_eq!(clock.peek_ns(), 5_010);
    }

    #[test]
    fn the_tsc_clock_does_not_go_back() {
        let clock = TscClock;
        let (a, b) = (clock.now_ns(), clock.now_ns());
        assert!(b >= a);
    }
}
