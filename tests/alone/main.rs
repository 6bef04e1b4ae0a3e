//! The integration tests that judge measured figures against the truth: a whole run's rate,
//! cap or latency (engines, control, job semantics, pattern options, check, replay, a
//! throttled compare in the history, emulated disks, fio's averaged logs, whose line counts
//! follow fio's own timing), and figures second by second (caps inferred from 1 s sweep
//! points, a throttled matrix, throttles and steady state judged interval by interval, a
//! captured application's per-second levels: capture, trace, capture_flow, replay_capture,
//! replay_database, verdicts). scripts/test runs this binary last, by itself, with nothing of
//! the suite beside it (no writer from tests/parallel or the crates' tests: their disk writes,
//! SIGKILLed runs, loop devices and SQLite's fsyncs, moved replayed rates and caps by 6 % in CI
//! runs of 2026-11-27), a few tests at a time: a test of unthrottled real IO takes
//! `common::real_io` and runs by itself; throttled ones share with `common::throttled_io`. On a
//! 2-core VM a rate-paced run beside any busy process, even at nice 19 or under SCHED_IDLE
//! (whose IO the kernel still serves at normal priority), waits tens of ms on the run queue at
//! some wakeups (perf sched timehist, 2026-11-27; CI runs of 2026-11-28). Floors under a rate
//! take off the share of time the host kept the test off a CPU (`SchedulingJitter`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../seed/mod.rs"]
mod seed;

mod bursts;
mod capture;
mod capture_flow;
mod check;
mod control;
mod curve;
mod diskspd_throttles;
mod emulate;
mod engines;
mod fio_logs;
mod history;
mod job_semantics;
mod pattern_options;
mod rehearse;
mod replay;
mod replay_capture;
mod replay_database;
mod steady_state;
mod suites;
mod sweep;
mod throttle;
mod trace;
mod verdicts;
