//! The integration tests that judge a whole run's rate, cap or latency against the truth
//! (engines, control, job semantics, pattern options, check, replay, a throttled compare in
//! the history, emulated disks). scripts/test runs this binary with nothing of the suite
//! beside it (no writer from tests/parallel or the crates' tests) and one test at a time
//! (`--test-threads=1`), after tests/parallel and before tests/alone.

#[path = "../common/mod.rs"]
mod common;
#[path = "../seed/mod.rs"]
mod seed;

mod check;
mod control;
mod emulate;
mod engines;
mod history;
mod job_semantics;
mod pattern_options;
mod replay;
