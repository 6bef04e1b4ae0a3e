//! Watching an application's IO instead of generating it: the data a capture records, and the
//! counter capture that records it.
//!
//! A capture is a series of [`CaptureSample`]s (one per `--interval`, each holding iostat's
//! columns per device from `/proc/diskstats` and the system's CPU, memory and IO pressure)
//! and, when traced, one [`TraceProfile`] per device from the kernel's block tracepoints.
//! Counters give rates, sizes, queue depth and latency per interval; only a trace knows the
//! size distribution, random share, hot set and issuing processes, so those are `Option`s
//! everywhere a counter capture has to say "unknown".
//!
//! The counter capture: [`procfs`] parses the kernel's files, [`iostat`] turns two readings
//! into iostat's columns exactly as sysstat computes them, [`devices`] picks the devices and
//! tells what each sits on, [`host`] names the host, [`sampler`] runs the loop in bounded
//! memory, and [`summary`] keeps the running means of the capture's one-line summary. The
//! session that runs them (with the tracer, the stop signal and the history) is the
//! orchestrator's `run_capture`.

#![forbid(unsafe_code)]

pub mod devices;
mod error;
pub mod host;
pub mod iostat;
mod model;
pub mod procfs;
pub mod sampler;
pub mod summary;
pub mod trace;

pub use error::CaptureError;
pub use model::{
    CaptureSample, DeviceInterval, HotSet, ProcessShare, QuantileSummary, SizeShare,
    SystemInterval, TraceDetails, TraceDirection, TraceProfile,
};
