//! Watching an application's IO instead of generating it: the data a capture records.
//!
//! A capture is a series of [`CaptureSample`]s (one per `--interval`, each holding iostat's
//! columns per device from `/proc/diskstats` and the system's CPU, memory and IO pressure)
//! and, when traced, one [`TraceProfile`] per device from the kernel's block tracepoints.
//! Counters give rates, sizes, queue depth and latency per interval; only a trace knows the
//! size distribution, random share, hot set and issuing processes, so those are `Option`s
//! everywhere a counter capture has to say "unknown".

#![forbid(unsafe_code)]

mod model;
pub mod trace;

pub use model::{
    CaptureSample, DeviceInterval, HotSet, ProcessShare, QuantileSummary, SizeShare,
    SystemInterval, TraceDetails, TraceDirection, TraceProfile,
};
