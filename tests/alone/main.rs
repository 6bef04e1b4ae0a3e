//! The integration tests whose figures hold only on a machine otherwise idle: caps inferred
//! from 1 s points (sweep), a throttled matrix (suites), throttles and steady state judged
//! interval by interval, a captured application's per-second levels (capture, trace,
//! capture_flow, replay_capture, replay_database, verdicts). scripts/test runs this binary
//! last, by itself, one test at a time (`--test-threads=1`). On a 2-core VM a rate-paced
//! run beside any busy process, even at nice 19, waits 20 to 40 ms on the run queue at some
//! wakeups and makes up for it later: a second at 0.6x the rate, the next at 1.4x (perf sched
//! timehist, 2026-11-27); per-second figures are off by that much.

#[path = "../common/mod.rs"]
mod common;

mod capture;
mod capture_flow;
mod replay_capture;
mod replay_database;
mod steady_state;
mod suites;
mod sweep;
mod throttle;
mod trace;
mod verdicts;
