//! The start gate of a phase: its workers (and its steady-state monitor) start together, as
//! with a barrier, but the executor can cancel the start when one of the threads could not
//! be spawned, so the threads already waiting return instead of waiting forever.

use std::sync::{Condvar, Mutex};

/// Opens when `expected` threads wait on it, or is cancelled.
#[derive(Debug)]
pub(crate) struct StartGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug)]
struct GateState {
    expected: usize,
    arrived: usize,
    /// `Some(true)` once open, `Some(false)` once cancelled.
    verdict: Option<bool>,
}

impl StartGate {
    /// A gate for `expected` threads.
    pub(crate) fn new(expected: usize) -> StartGate {
        StartGate {
            state: Mutex::new(GateState {
                expected,
                arrived: 0,
                verdict: None,
            }),
            changed: Condvar::new(),
        }
    }

    /// Waits until every expected thread has arrived (true: go) or the start was cancelled
    /// (false: do nothing).
    pub(crate) fn wait(&self) -> bool {
        // A thread that panicked while holding the lock left only counters behind; they
        // are still right, so a poisoned lock is used as it is.
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.arrived += 1;
        if state.verdict.is_none() && state.arrived >= state.expected {
            state.verdict = Some(true);
            self.changed.notify_all();
        }
        loop {
            if let Some(verdict) = state.verdict {
                return verdict;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Cancels the start: every thread waiting, and every one that comes later, is told
    /// not to go. No effect once the gate has opened.
    pub(crate) fn cancel(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.verdict.is_none() {
            state.verdict = Some(false);
            self.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StartGate;

    #[test]
    fn the_gate_opens_when_everyone_has_arrived() {
        let gate = StartGate::new(3);
        let went: Vec<bool> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3).map(|_| s.spawn(|| gate.wait())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(went, [true, true, true]);
    }

    #[test]
    fn a_cancelled_gate_releases_the_threads_already_waiting() {
        // Three expected, two come: without the cancel they would wait forever.
        let gate = StartGate::new(3);
        let went: Vec<bool> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2).map(|_| s.spawn(|| gate.wait())).collect();
            gate.cancel();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(went, [false, false]);
        assert!(!gate.wait(), "a late thread is told not to go too");
    }
}
