//! The stop signal: Ctrl-C (SIGINT) and SIGTERM set one process-wide flag that every worker
//! and every session reads. The handlers are installed once per process, the first time a
//! session opens, and stay for the life of the process: installing them again per step (as
//! each command once did) stacked a new handler on every step.
//!
//! A first signal asks for a clean stop: the running step ends as partial, the rest of the
//! batch is skipped, files are removed and what finished is saved. A second signal while
//! stopping ends the process at once with 130 (128 + SIGINT), for a user who will not wait.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// The exit status of a process ended by a second signal.
pub const SECOND_SIGNAL_EXIT: i32 = 130;

static STOP: OnceLock<Result<Arc<AtomicBool>, std::io::ErrorKind>> = OnceLock::new();

/// The process's stop flag, installing the handlers the first time.
pub fn stop_flag() -> Result<Arc<AtomicBool>, std::io::Error> {
    STOP.get_or_init(|| install().map_err(|e| e.kind()))
        .clone()
        .map_err(std::io::Error::from)
}

fn install() -> Result<Arc<AtomicBool>, std::io::Error> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag before this signal sets it: only a second
        // signal ends the process.
        signal_hook::flag::register_conditional_shutdown(signal, SECOND_SIGNAL_EXIT, stop.clone())?;
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_one_flag_for_the_process() {
        let first = stop_flag().unwrap();
        let second = stop_flag().unwrap();
        assert!(Arc::ptr_eq(&first, &second));
    }
}
