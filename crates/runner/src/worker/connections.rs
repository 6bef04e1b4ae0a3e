//! Iometer's connection-rate test for disk targets ("Test Connection Rate", "Transactions
//! per Connection"): after N IOs of its own a target is closed and opened again, once the
//! IOs in flight have completed, and each connection (open, IOs, close) is timed. Iometer's
//! `Grunt::Do_IOs` (IOGrunt.cpp) does the same per target; its results count the
//! connections that closed while results were recorded, their mean and maximum time.
//!
//! Closing and opening keep the descriptor number the engine uses: the file is opened again
//! with the same flags and the new open file put in the old one's place (`dup3`), which
//! closes the old one. A target that is not a file (the null engine's) has nothing to open;
//! its connections are still counted and timed.

use super::{engine_error, Worker};
use crate::clock::Clock;
use crate::safety::TargetKind;
use crate::RunError;
use diskmeter_engine::IoEngine;
use diskmeter_stats::ConnectionStats;
use diskmeter_workload::JobSpec;

/// The connections of one worker's targets.
pub(super) struct Connections {
    /// IOs per connection.
    every: u32,
    /// IOs left in each target's connection.
    left: Vec<u32>,
    /// When each target's connection began to open, ns.
    started_ns: Vec<u64>,
    /// Targets whose connection has had its IOs and closes once the queue is empty.
    closing: Vec<bool>,
    /// Some target is closing: no new IO until the queue has drained.
    pub(super) draining: bool,
    /// The connections closed in the measured period.
    pub(super) stats: ConnectionStats,
}

impl Connections {
    /// The test for `job` over `files` targets; `None` when the job keeps its files open.
    pub(super) fn for_job(job: &JobSpec, files: usize) -> Option<Box<Connections>> {
        let every = job.control.transactions_per_connection?.max(1);
        Some(Box::new(Connections {
            every,
            left: vec![every; files],
            started_ns: vec![0; files],
            closing: vec![false; files],
            draining: false,
            stats: ConnectionStats::default(),
        }))
    }

    /// An IO of `file` was issued: the last of its connection closes the connection.
    #[inline]
    pub(super) fn issued(&mut self, file: u32) {
        let f = file as usize;
        if let Some(left) = self.left.get_mut(f) {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.closing[f] = true;
                self.draining = true;
            }
        }
    }
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Opens each target's first connection (when the clock starts, as Iometer opens a
    /// connection-rate target at its first IO).
    pub(super) fn open_connections(&mut self) -> Result<(), RunError> {
        let Some(mut connections) = self.connections.take() else {
            return Ok(());
        };
        let mut result = Ok(());
        for file in 0..connections.left.len() {
            match self.reconnect(file) {
                // The setup's descriptor closed in `reconnect` is no connection's.
                Ok((open_start, open_end, closed)) => {
                    connections.started_ns[file] = open_start + (closed - open_end);
                }
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
        }
        self.connections = Some(connections);
        result
    }

    /// With the queue empty, closes the connections that have had their IOs and opens the
    /// next ones, counting each closed connection that ended in the measured period.
    #[cold]
    pub(super) fn cycle_connections(&mut self) -> Result<(), RunError> {
        let Some(mut connections) = self.connections.take() else {
            return Ok(());
        };
        let mut result = Ok(());
        for file in 0..connections.left.len() {
            if !connections.closing[file] {
                continue;
            }
            match self.reconnect(file) {
                Ok((open_start, open_end, closed)) => {
                    // The connection ran from its open to its close; the next one's open,
                    // done just before the close, is not part of it.
                    let lasted = (closed - connections.started_ns[file])
                        .saturating_sub(open_end - open_start);
                    if self.window.counts(closed) {
                        connections.stats.record(lasted);
                    }
                    connections.started_ns[file] = open_start;
                    connections.left[file] = connections.every;
                    connections.closing[file] = false;
                }
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
        }
        connections.draining = connections.closing.iter().any(|&c| c);
        self.connections = Some(connections);
        result
    }

    /// Opens target `file` again and closes its current open file; returns when the open
    /// started and ended and when the close ended, ns.
    fn reconnect(&mut self, file: usize) -> Result<(u64, u64, u64), RunError> {
        let (fd, target) = self.ctx.targets[file];
        let open_start = self.clock.now_ns();
        if target.kind == TargetKind::Virtual {
            let now = self.clock.now_ns();
            return Ok((open_start, now, now));
        }
        let failed = |call: &'static str, source: std::io::Error| {
            engine_error(
                self.ctx.job,
                diskmeter_engine::EngineError::Syscall { call, source },
            )
        };
        let new = diskmeter_engine::sys::reopen_like(fd, &target.path)
            .map_err(|e| failed("open (connection rate)", e))?;
        let open_end = self.clock.now_ns();
        diskmeter_engine::sys::replace_descriptor(new, fd)
            .map_err(|e| failed("close (connection rate)", e))?;
        Ok((open_start, open_end, self.clock.now_ns()))
    }
}
