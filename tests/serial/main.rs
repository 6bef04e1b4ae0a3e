//! The integration tests that judge a whole run's rate, cap or latency against the truth
//! (engines, control, job semantics, pattern options, check, replay, a throttled compare in
//! the history, emulated disks, and fio's averaged logs, whose line counts follow fio's own
//! timing), many on files of the host disk. scripts/test runs this
//! binary after tests/parallel, with nothing of the suite beside it (no writer from
//! tests/parallel or the crates' tests), two tests at a time (unthrottled real IO takes `common::real_io`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../seed/mod.rs"]
mod seed;

mod check;
mod control;
mod emulate;
mod engines;
mod fio_logs;
mod history;
mod job_semantics;
mod pattern_options;
mod replay;
