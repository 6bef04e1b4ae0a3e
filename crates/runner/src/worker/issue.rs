//! Choosing and issuing IO: what is due (the rate schedule of [`super::pacing::Pacing`], an
//! unlimited direction in between, or the read/write mix), the throttle's turn, offsets,
//! buffer stamps; the syncs of `fsync=N` and the like are queued from `syncs.rs`.

use super::control::Gate;
use super::{engine_error, mark_submitted, AfterIssue, HeldIo, SlotOp, SlotState, Worker};
use crate::clock::Clock;
use crate::replay::ReplayOp;
use crate::zbd::ZoneOp;
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp, IoUnit};
use diskmeter_workload::Direction;

/// What the pacing says may go now.
enum Due {
    /// An IO in `direction` of `len_bytes`, intended at `intended_ns`; a replayed one
    /// names its file and offset.
    Io {
        direction: Direction,
        intended_ns: u64,
        len_bytes: u64,
        at: Option<(u32, u64)>,
    },
    /// Nothing before this time.
    WaitUntil(u64),
    /// Nothing at all.
    Nothing,
}

/// An IO with its slot, ready for the engine.
struct Ready {
    slot: u32,
    direction: Direction,
    intended_ns: u64,
    len_bytes: u64,
    /// When the worker wanted it: its latency counts from here.
    wanted_ns: u64,
    /// When it was granted (its throttle turn, or now).
    granted_ns: u64,
    /// A replayed IO's file and offset.
    at: Option<(u32, u64)>,
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Fills free slots with what is due, up to a batch, and commits when more can follow at
    /// once; otherwise leaves the batch queued for the reap to submit. A job that trims runs
    /// a copy of this compiled with its trim handling, out of line, so the loop of every
    /// other job has none of it.
    #[inline]
    pub(super) fn issue(&mut self, now: u64) -> Result<AfterIssue, RunError> {
        if self.shape.trims {
            return self.issue_trimming(now);
        }
        self.issue_as::<false>(now)
    }

    /// [`Self::issue`] for a job that trims.
    #[cold]
    #[inline(never)]
    fn issue_trimming(&mut self, now: u64) -> Result<AfterIssue, RunError> {
        self.issue_as::<true>(now)
    }

    /// The body of [`Self::issue`]; with `TRIMS` false the trim handling compiles away.
    #[inline(always)]
    fn issue_as<const TRIMS: bool>(&mut self, mut now: u64) -> Result<AfterIssue, RunError> {
        let mut wake_at: Option<u64> = None;
        self.queue.just_queued.clear();
        if self.stopping && self.queue.held.is_empty() {
            return Ok(AfterIssue::Reap { wake_at });
        }
        if self.verify.as_ref().is_some_and(|v| v.backlog_due()) {
            // The backlog is checked once what is in flight has completed (see `run_loop`).
            return Ok(AfterIssue::Reap { wake_at });
        }
        while self.queue.just_queued.len() < self.shape.batch
            && self.tally.issued_bytes < self.shape.io_limit_bytes
            && !self.out_of_work()
        {
            // A throttled IO whose turn has come goes first, the earliest turn first.
            let ready = match self.take_due_held(now) {
                Some(ready) => ready,
                None => {
                    if self.stopping || self.queue.free.is_empty() {
                        break;
                    }
                    if self.connections.as_ref().is_some_and(|c| c.draining) {
                        // A target closes once its IOs have completed (Iometer's
                        // connection-rate test), then opens again.
                        if self.queue.busy() + self.queue.just_queued.len() > 0 {
                            break;
                        }
                        self.cycle_connections()?;
                        // Closing and opening took time: the IOs that follow are granted
                        // after it, and the runtime may have ended meanwhile (a connection
                        // that closed after the end is not counted, nor may the IOs after it).
                        now = self.clock.now_ns();
                        self.check_stop(now);
                        if self.stopping {
                            break;
                        }
                    }
                    if let Some((op, file)) = self.syncs.pending {
                        // A sync covers the writes before it: wait until they have completed,
                        // then issue it alone.
                        if self.queue.busy() + self.queue.just_queued.len() > 0 {
                            break;
                        }
                        let slot = self.queue.free.pop().unwrap_or_default();
                        self.queue_sync(slot, SlotOp::Sync, op, file, now)?;
                        self.queue.just_queued.push(slot);
                        self.syncs.pending = None;
                        break;
                    }
                    if let Some(controls) = &mut self.controls {
                        if controls.ignore_think_for_rate {
                            self.pace.shift(controls.take_new_stall_ns());
                        }
                        let in_flight = self.queue.busy() + self.queue.just_queued.len();
                        match controls.gate(now, in_flight) {
                            Gate::Go => {}
                            Gate::WaitUntil(due) => {
                                wake_at = Some(due);
                                break;
                            }
                            Gate::Full | Gate::Done => break,
                        }
                    }
                    if TRIMS && self.trim_work(now)? {
                        continue;
                    }
                    let (direction, intended_ns, len_bytes, at) = match self.pace(now) {
                        Due::Io {
                            direction,
                            intended_ns,
                            len_bytes,
                            at,
                        } => (direction, intended_ns, len_bytes, at),
                        Due::WaitUntil(due) => {
                            wake_at = Some(due);
                            break;
                        }
                        Due::Nothing => break,
                    };
                    let slot = self.queue.free.pop().unwrap_or_default();
                    if let Some(throttle) = self.throttle {
                        // The IO takes its place in the shared queue now; if its turn is later
                        // it waits in its slot, its clock already running from `now`.
                        let turn_ns = throttle.reserve(direction, len_bytes, now);
                        if turn_ns > now {
                            self.queue.held.push(HeldIo {
                                slot,
                                direction,
                                intended_ns,
                                len_bytes,
                                wanted_ns: now,
                                turn_ns,
                                at,
                            });
                            continue;
                        }
                    }
                    Ready {
                        slot,
                        direction,
                        intended_ns,
                        len_bytes,
                        wanted_ns: now,
                        granted_ns: now,
                        at,
                    }
                }
            };
            self.submit_as::<TRIMS>(ready, now)?;
        }
        if let Some(turn) = self.queue.held.iter().map(|h| h.turn_ns).min() {
            wake_at = Some(wake_at.map_or(turn, |w| w.min(turn)));
        }
        let more_now = !self.queue.free.is_empty()
            && wake_at.is_none()
            && self.tally.issued_bytes < self.shape.io_limit_bytes
            && !self.out_of_work()
            && !self.shape.synchronous;
        if !self.queue.just_queued.is_empty() && more_now {
            // Keep filling while slots are free and nothing asks us to wait.
            self.engine
                .commit()
                .map_err(|e| engine_error(self.ctx.job, e))?;
            let submitted = self.clock.now_ns();
            let queue = &mut self.queue;
            mark_submitted(&mut queue.slots, &queue.just_queued, submitted);
            queue.in_flight += queue.just_queued.len();
            self.tally.depth.record(queue.busy() as u32);
            return Ok(AfterIssue::IssueMore);
        }
        Ok(AfterIssue::Reap { wake_at })
    }

    /// The next IO the schedule allows at `now`: a limited direction whose time has come,
    /// else the unlimited direction, else a wait; without limits, the mix's next pick.
    #[inline(always)]
    fn pace(&mut self, now: u64) -> Due {
        if self.replay.is_some() {
            return self.replay_due(now);
        }
        if !self.pace.rate_limited {
            let direction = if self.mix.next_is_read() {
                Direction::Read
            } else {
                Direction::Write
            };
            return Due::Io {
                direction,
                intended_ns: now,
                len_bytes: self.sizes.next(direction),
                at: None,
            };
        }
        // Each limited direction keeps its own schedule (so rates, not rwmixread, set the
        // mix); an unlimited direction fills the time between.
        let pace = &mut self.pace;
        let earliest = Direction::BOTH
            .into_iter()
            .filter(|d| pace.scheduled[d.index()])
            .min_by_key(|d| pace.next_intended_ns[d.index()]);
        match (earliest, pace.free_running) {
            (Some(direction), _) if pace.next_intended_ns[direction.index()] <= now => {
                let due = pace.next_intended_ns[direction.index()];
                let len_bytes = self.sizes.next(direction);
                let period = pace.gap_ns(direction, len_bytes);
                let gap = if pace.poisson {
                    pace.arrivals.exponential_gap(period)
                } else {
                    period
                };
                pace.next_intended_ns[direction.index()] = due + gap;
                pace.last_gap_ns[direction.index()] = gap;
                Due::Io {
                    direction,
                    intended_ns: due,
                    len_bytes,
                    at: None,
                }
            }
            (_, Some(direction)) => Due::Io {
                direction,
                intended_ns: now,
                len_bytes: self.sizes.next(direction),
                at: None,
            },
            (Some(direction), None) => Due::WaitUntil(pace.next_intended_ns[direction.index()]),
            (None, None) => Due::Nothing,
        }
    }

    /// The held IO with the earliest turn, if its turn has come.
    #[inline]
    fn take_due_held(&mut self, now: u64) -> Option<Ready> {
        let held = &mut self.queue.held;
        if held.is_empty() {
            return None;
        }
        let i = held
            .iter()
            .enumerate()
            .filter(|(_, h)| h.turn_ns <= now)
            .min_by_key(|(_, h)| h.turn_ns)
            .map(|(i, _)| i)?;
        let h = held.swap_remove(i);
        Some(Ready {
            slot: h.slot,
            direction: h.direction,
            intended_ns: h.intended_ns,
            len_bytes: h.len_bytes,
            wanted_ns: h.wanted_ns,
            granted_ns: h.turn_ns,
            at: h.at,
        })
    }

    /// Hands one read or write (or, with `TRIMS`, a trim) to the engine: its offset, its
    /// buffer's stamps, the syncs it makes due, its slot's times.
    #[inline(always)]
    fn submit_as<const TRIMS: bool>(&mut self, io: Ready, now: u64) -> Result<(), RunError> {
        let Ready {
            slot,
            direction,
            intended_ns,
            mut len_bytes,
            wanted_ns,
            granted_ns,
            at,
        } = io;
        // Like fio, the last IO is whole even if it passes the limit: a cut IO could break
        // O_DIRECT alignment.
        let (file, offset_bytes) = match at {
            Some(replayed) => replayed,
            None if self.shape.shrinks => {
                let drawn = len_bytes;
                let (file, offset, len) = self.offsets.next_shrunk(
                    direction.index(),
                    len_bytes,
                    self.shape.align[direction.index()],
                );
                if len < drawn {
                    len_bytes = len;
                    self.pace.shrunk(direction, drawn, len);
                    if let Some(throttle) = self.throttle {
                        throttle.refund(direction, drawn - len);
                    }
                }
                (file, offset)
            }
            None => match &mut self.identical {
                None => self.offsets.next(
                    direction.index(),
                    len_bytes,
                    self.shape.align[direction.index()],
                ),
                Some(identical) => identical.next(
                    &mut self.offsets,
                    direction.index(),
                    len_bytes,
                    self.shape.align[direction.index()],
                ),
            },
        };
        let trim = TRIMS && direction == Direction::Write && self.is_trim(at);
        let offset_bytes = match &mut self.zbd {
            Some(zbd) if at.is_none() => {
                let op = match direction {
                    _ if trim => ZoneOp::Trim,
                    Direction::Read => ZoneOp::Read,
                    Direction::Write => ZoneOp::Write,
                };
                zbd.place(op, file, offset_bytes, len_bytes)
            }
            _ => offset_bytes,
        };
        if self.shape.serialize && self.overlaps_in_flight(slot, file, offset_bytes, len_bytes) {
            // fio's serialize_overlap: the IO waits in its slot, its offset kept, until the
            // IO it overlaps has completed (checked again at each poll).
            self.queue.held.push(HeldIo {
                slot,
                direction,
                intended_ns,
                len_bytes,
                wanted_ns,
                turn_ns: now + super::RATE_POLL_NS,
                at: Some((file, offset_bytes)),
            });
            return Ok(());
        }
        if trim {
            if !self.trims.only {
                // trimwrite: this block is written right after its trim (which every
                // engine completes before the write is submitted); the pair counts once
                // towards the size, as in fio.
                self.trims.write_after = Some((file, offset_bytes, len_bytes));
            }
        } else if direction == Direction::Write {
            if let Some(verify) = self.verify.as_deref_mut() {
                let buffer = &mut self.engine.buffer_mut(slot)[..len_bytes as usize];
                verify.fill(slot, buffer, offset_bytes);
            } else if let Some(dedupe) = &mut self.dedupe {
                dedupe.fill(&mut self.engine.buffer_mut(slot)[..len_bytes as usize]);
            } else if self.shape.scramble {
                self.stamp(slot, len_bytes);
            }
            self.count_write_for_syncs(file);
        }
        self.queue.slots[slot as usize] = SlotState {
            op: if trim {
                SlotOp::Trim
            } else {
                SlotOp::Transfer(direction)
            },
            len_bytes: len_bytes as u32,
            offset_bytes,
            file,
            // A trim's is set below if the engine trims while queueing.
            intended_ns: if trim { 0 } else { intended_ns },
            issue_ns: wanted_ns,
            granted_ns,
            submit_ns: now,
        };
        let op = match direction {
            _ if trim => IoOp::Trim,
            Direction::Read => IoOp::Read,
            Direction::Write => IoOp::Write,
        };
        if let Some(chooser) = &mut self.cmdprio {
            let ioprio = chooser.choose(direction.index(), len_bytes);
            self.engine.set_ioprio(slot, ioprio);
        }
        self.engine
            .queue(IoUnit {
                op,
                file,
                offset_bytes,
                len_bytes: len_bytes as u32,
                slot,
            })
            .map_err(|e| engine_error(self.ctx.job, e))?;
        if trim && !self.shape.synchronous {
            // The engine trimmed while queueing: the trim ended now, not at the reap after
            // the rest of the batch (kept in `intended_ns`, which a trim has no other use for).
            self.queue.slots[slot as usize].intended_ns = self.clock.now_ns();
        }
        if let Some(recorder) = &mut self.recorder {
            recorder.record(now, op, file, offset_bytes, len_bytes)?;
        }
        self.queue.just_queued.push(slot);
        if let Some(connections) = &mut self.connections {
            if !trim {
                connections.issued(file);
            }
        }
        if let Some(controls) = &mut self.controls {
            controls.issued(now, now >= self.window.measure_start);
        }
        if self.zones.is_some() {
            self.zone_issued(len_bytes);
        }
        // The size limit counts measured IO only: a fast device must not finish `size`
        // inside the ramp and report nothing.
        // A trimwrite's trim rides on its write's bytes.
        let counted = !trim || self.trims.only;
        if counted && now >= self.window.measure_start {
            self.tally.issued_bytes += len_bytes;
        }
        Ok(())
    }

    /// Whether a write-side IO of a trimming job is a trim: always for `trim`/`randtrim`;
    /// for `trimwrite` the first of each pair (the write comes back with its place, `at`).
    #[cold]
    fn is_trim(&self, at: Option<(u32, u64)>) -> bool {
        self.trims.only || (self.trims.before_write && at.is_none())
    }

    /// Issues what trimming owes before a new IO is chosen, in a free slot: the write of a
    /// `trimwrite` block just trimmed, a replayed trim, or the next trim of a
    /// `trim_backlog` batch. True when it issued something.
    #[cold]
    fn trim_work(&mut self, now: u64) -> Result<bool, RunError> {
        if let Some((file, offset, len)) = self.trims.write_after.take() {
            let ready = Ready {
                slot: self.queue.free.pop().unwrap_or_default(),
                direction: Direction::Write,
                intended_ns: now,
                len_bytes: len,
                wanted_ns: now,
                granted_ns: now,
                at: Some((file, offset)),
            };
            self.submit_as::<true>(ready, now)?;
            return Ok(true);
        }
        let block = match self.trims.replayed.take() {
            Some(replayed) => Some(replayed),
            None => {
                let block = self.trims.backlog.as_mut().and_then(|b| b.next());
                if let (Some((file, offset, _)), Some(verify)) = (block, self.verify.as_mut()) {
                    // A backlog trim undoes a logged write: checked as trimmed from now.
                    verify.log_trim(file, offset);
                }
                block
            }
        };
        if let Some(block) = block {
            let slot = self.queue.free.pop().unwrap_or_default();
            self.queue_trim_at(slot, block, now)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// True when `len_bytes` at `offset_bytes` of `file` overlaps a read or write in flight
    /// (or queued in this pass) in a slot other than `slot`. Only with `serialize_overlap`: it looks at every slot.
    #[cold]
    fn overlaps_in_flight(&self, slot: u32, file: u32, offset_bytes: u64, len_bytes: u64) -> bool {
        let queue = &self.queue;
        let end = offset_bytes + len_bytes;
        queue.slots.iter().enumerate().any(|(k, other)| {
            let k = k as u32;
            k != slot
                && matches!(other.op, SlotOp::Transfer(_))
                && other.file == file
                && other.offset_bytes < end
                && offset_bytes < other.offset_bytes + u64::from(other.len_bytes)
                && !queue.free.contains(&k)
                && !queue.held.iter().any(|h| h.slot == k)
        })
    }

    /// Like fio's scramble_buffers: every written 512-byte sector (every chunk of a
    /// compressible buffer) is unique, so deduplicating storage cannot make writes look
    /// cheaper than they are.
    #[inline]
    fn stamp(&mut self, slot: u32, len_bytes: u64) {
        let stamp = (self.tally.writes_issued ^ self.ctx.plan.seed).to_le_bytes();
        self.tally.writes_issued += 1;
        let (every, len) = (self.shape.stamp_every, self.shape.stamp_len);
        let buffer = self.engine.buffer_mut(slot);
        for sector in buffer[..len_bytes as usize].chunks_mut(every) {
            let n = sector.len().min(len);
            sector[..n].copy_from_slice(&stamp[..n]);
        }
    }

    /// What the replay has due at `now`: its next IO once its intended time has come, a
    /// logged sync (issued once the IOs before it have completed, as `fsync=N` is), or the
    /// end of the log.
    fn replay_due(&mut self, now: u64) -> Due {
        let Some(replay) = self.replay.as_mut() else {
            return Due::Nothing;
        };
        let next = match replay.peek() {
            Ok(Some(next)) => *next,
            Ok(None) => return Due::Nothing,
            Err(error) => {
                self.fail_with(error);
                return Due::Nothing;
            }
        };
        if let Some(at) = next.intended_ns.filter(|&at| at > now) {
            return Due::WaitUntil(at);
        }
        replay.take();
        match next.op {
            ReplayOp::Transfer(direction) => Due::Io {
                direction,
                intended_ns: next.intended_ns.unwrap_or(now),
                len_bytes: next.len_bytes,
                at: Some((next.file, next.offset_bytes)),
            },
            ReplayOp::Trim => {
                // Issued by `issue_trim_work` in the next pass, in the log's order.
                self.trims.replayed = Some((next.file, next.offset_bytes, next.len_bytes));
                Due::WaitUntil(now)
            }
            ReplayOp::Sync(op) => {
                self.syncs.pending = Some((op, next.file));
                Due::WaitUntil(now)
            }
        }
    }
}
