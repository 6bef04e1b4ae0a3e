//! The timed wait of a rate-limited worker ([`crate::IoEngine::getevents_within`]): until a unit
//! completes or a time limit passes, in one `io_uring_enter` with a timeout
//! (IORING_ENTER_EXT_ARG).

use super::UringEngine;
use crate::{EngineError, IoCompletion};
use io_uring::types;

impl UringEngine {
    /// See [`crate::IoEngine::getevents_within`].
    pub(super) fn wait_within(
        &mut self,
        timeout_ns: u64,
        out: &mut Vec<IoCompletion>,
    ) -> Result<Option<usize>, EngineError> {
        // A timed wait needs IORING_ENTER_EXT_ARG (Linux 5.11); without it the runner polls.
        if !self.ring.params().is_feature_ext_arg() || self.unsubmitted() > 0 {
            return Ok(None);
        }
        let got = self.reap_ready(out);
        if got > 0 || self.slots.in_flight() == 0 {
            return Ok(Some(got));
        }
        self.enable()?;
        let timeout = types::Timespec::new()
            .sec(timeout_ns / 1_000_000_000)
            .nsec((timeout_ns % 1_000_000_000) as u32);
        let args = types::SubmitArgs::new().timespec(&timeout);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => {}
            // ETIME: the limit passed with nothing done, which is an answer, not an error.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EAGAIN | libc::EBUSY)
                ) => {}
            Err(source) => {
                return Err(EngineError::Syscall {
                    call: "io_uring_enter",
                    source,
                })
            }
        }
        Ok(Some(self.reap(out)))
    }
}
