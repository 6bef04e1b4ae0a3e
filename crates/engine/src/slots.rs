//! Which slots are in flight, and the checks every engine runs on a queued unit.
//!
//! A slot's buffer is handed to the kernel from `queue` until its completion is reaped, so
//! the engines must refuse to queue it twice or to lend it out through `buffer_mut` in that
//! window (either would let the kernel and Rust code touch the same bytes at once), and must
//! refuse a length larger than the slot (the kernel would write past the buffer). Keeping the
//! bookkeeping here makes all four engines enforce the same contract with the same messages.

use crate::{EngineError, IoUnit};

/// Per-slot in-flight flags plus the limits a unit is checked against.
#[derive(Debug)]
pub(crate) struct SlotTracker {
    busy: Vec<bool>,
    in_flight: usize,
    slot_len: usize,
    files: usize,
}

impl SlotTracker {
    /// Tracks `slots` slots of `slot_len` bytes over `files` files.
    pub(crate) fn new(slots: usize, slot_len: usize, files: usize) -> Self {
        SlotTracker {
            busy: vec![false; slots],
            in_flight: 0,
            slot_len,
            files,
        }
    }

    /// Checks `unit` and marks its slot busy.
    #[inline]
    pub(crate) fn begin(&mut self, unit: &IoUnit) -> Result<(), EngineError> {
        let slot = unit.slot;
        let Some(busy) = self.busy.get_mut(slot as usize) else {
            return Err(bad(slot, "names a slot beyond the iodepth"));
        };
        if *busy {
            return Err(bad(
                slot,
                "was queued while its previous IO is still in flight",
            ));
        }
        // A trim moves no data through the buffer, so it may be longer than a slot.
        if unit.len_bytes as usize > self.slot_len && unit.op != crate::IoOp::Trim {
            return Err(bad(slot, "is longer than the engine's buffer slots"));
        }
        if unit.file as usize >= self.files {
            return Err(bad(slot, "names a file index the engine was not given"));
        }
        *busy = true;
        self.in_flight += 1;
        Ok(())
    }

    /// Marks `slot` free again once its completion is reaped.
    #[inline]
    pub(crate) fn end(&mut self, slot: u32) {
        if let Some(busy) = self.busy.get_mut(slot as usize) {
            if *busy {
                *busy = false;
                self.in_flight -= 1;
            }
        }
    }

    /// Units queued and not yet reaped.
    #[inline]
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Panics unless `slot` may be lent out as `&mut [u8]` (not in flight).
    #[inline]
    pub(crate) fn assert_idle(&self, slot: u32) {
        assert!(
            !self.busy.get(slot as usize).copied().unwrap_or(false),
            "buffer_mut({slot}) while that slot's IO is in flight"
        );
    }
}

fn bad(slot: u32, problem: &'static str) -> EngineError {
    EngineError::BadUnit { slot, problem }
}

/// The negated errno of an `io::Error` (EIO if it carries none), as completions report it.
pub(crate) fn neg_errno(err: &std::io::Error) -> i64 {
    -i64::from(err.raw_os_error().unwrap_or(libc::EIO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IoOp;

    fn unit(slot: u32, len: u32, file: u32) -> IoUnit {
        IoUnit {
            op: IoOp::Read,
            file,
            offset_bytes: 0,
            len_bytes: len,
            slot,
        }
    }

    #[test]
    fn rejects_busy_oversized_and_unknown() {
        let mut t = SlotTracker::new(2, 4096, 1);
        t.begin(&unit(0, 4096, 0)).unwrap();
        assert!(matches!(
            t.begin(&unit(0, 512, 0)),
            Err(EngineError::BadUnit { slot: 0, .. })
        ));
        assert!(t.begin(&unit(1, 8192, 0)).is_err());
        assert!(t.begin(&unit(1, 512, 1)).is_err());
        assert!(t.begin(&unit(2, 512, 0)).is_err());
        assert_eq!(t.in_flight(), 1);
        t.end(0);
        t.end(0);
        assert_eq!(t.in_flight(), 0);
        t.assert_idle(0);
    }

    #[test]
    #[should_panic(expected = "in flight")]
    fn lending_a_busy_slot_panics() {
        let mut t = SlotTracker::new(1, 4096, 1);
        t.begin(&unit(0, 1, 0)).unwrap();
        t.assert_idle(0);
    }
}
