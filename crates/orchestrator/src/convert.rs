//! The runner's per-worker output into the report's input, once for every command.

use diskmeter_report::{JobInput, RunInput, RunMeta, SteadyStateInput, TargetInfo};
use diskmeter_runner::prepare::RunPlan;
use diskmeter_runner::safety::TargetKind;
use diskmeter_runner::{RunOutcome, SteadyStateOutcome};
use std::time::{SystemTime, UNIX_EPOCH};

/// The workers of `outcome` as the report takes them, with the run's facts; also the
/// failures (workers and log files), one line each.
pub(crate) fn report_input(
    plan: &RunPlan,
    outcome: RunOutcome,
    started: SystemTime,
    finished: SystemTime,
) -> (RunInput, Vec<String>) {
    let mut errors: Vec<String> = outcome
        .workers
        .iter()
        .filter_map(|w| w.error.as_ref().map(ToString::to_string))
        .collect();
    errors.extend(outcome.log_errors.iter().map(ToString::to_string));
    let phase_starts_unix_ns = outcome.phase_starts_unix_ns;
    let jobs = outcome
        .workers
        .into_iter()
        .map(|w| JobInput {
            spec: plan.jobs[w.job_index].clone(),
            clone_index: w.clone_index,
            group_id: w.group_id,
            stats: w.stats,
            error: w.error.map(|e| e.to_string()),
            targets: w
                .targets
                .iter()
                .map(|&t| {
                    let target = &plan.targets[t];
                    TargetInfo {
                        path: target.path.display().to_string(),
                        kind: match target.kind {
                            TargetKind::BlockDevice => "block",
                            TargetKind::File => "file",
                            TargetKind::Virtual => "none",
                        }
                        .to_string(),
                        size_bytes: target.region_len_bytes,
                    }
                })
                .collect(),
            steady_state: w.steady_state.map(steady_state_input),
        })
        .collect();
    let input = RunInput {
        meta: RunMeta {
            diskmeter_version: env!("CARGO_PKG_VERSION").to_string(),
            started_unix_ms: unix_ms(started),
            finished_unix_ms: unix_ms(finished),
            partial: outcome.partial,
            hostname: kernel_hostname(),
            notes: plan.notes.clone(),
            phase_starts_unix_ns,
            io_finished_unix_ns: outcome.io_finished_unix_ns,
            rank: None,
        },
        jobs,
    };
    (input, errors)
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The runner's steady-state outcome as the report takes it.
fn steady_state_input(outcome: SteadyStateOutcome) -> SteadyStateInput {
    SteadyStateInput {
        attained_at_ns: outcome.attained_at_ns,
        window_iops: outcome.window_iops,
        window_bw_bytes_per_sec: outcome.window_bw_bytes_per_sec,
        criterion_value: outcome.last.and_then(|j| j.value),
        max_deviation: outcome.last.map_or(0.0, |j| j.max_deviation),
        slope: outcome.last.map_or(0.0, |j| j.slope),
        precision_percent: outcome.last.and_then(|j| j.precision),
    }
}

pub(crate) fn kernel_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The first file or device a run used, for the history's listing.
pub(crate) fn first_target(input: &RunInput) -> Option<std::path::PathBuf> {
    input
        .jobs
        .iter()
        .flat_map(|j| j.targets.iter())
        .map(|t| std::path::PathBuf::from(&t.path))
        .next()
}
