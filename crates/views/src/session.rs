//! The terminal's text of a session of the orchestrator: the resolved jobs and what the
//! runner will do (`--dry-run`, [`describe_plan`]) and the closing messages of a batch
//! (where it was saved, what was left behind, why it stopped: [`closing_messages`]).

use diskmeter_orchestrator::{Outcome, RunPlan};
use diskmeter_units::{format_bytes_binary, format_cpu_list, format_duration_ns};

/// The closing messages of a session, one line each (the CLI prefixes `diskmeter: `): the
/// stale test files swept, each step's errors, where the run and the spool's runs were
/// saved, a history that failed, test files that stayed, and an interruption. `quiet`
/// leaves out what is only news (the sweep and where the run was saved).
pub fn closing_messages(outcome: &Outcome, quiet: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if !quiet {
        for path in &outcome.swept_files {
            lines.push(format!(
                "removed {}, a test file left behind by a diskmeter that was killed",
                path.display()
            ));
        }
    }
    for step in &outcome.steps {
        lines.extend(step.errors.iter().map(ToString::to_string));
    }
    if let Some(saved) = &outcome.saved {
        if !saved.from_spool.is_empty() {
            let ids: Vec<String> = saved.from_spool.iter().map(i64::to_string).collect();
            lines.push(format!(
                "saved {} earlier run(s) kept in the spool in {} (runs {})",
                ids.len(),
                saved.path.display(),
                ids.join(", ")
            ));
        }
        if !quiet {
            lines.push(format!(
                "saved as run {} in {} (diskmeter show {})",
                saved.id,
                saved.path.display(),
                saved.id
            ));
        }
    }
    if let Some(error) = &outcome.history_error {
        lines.push(format!(
            "could not save the run in the history: {error} (--no-save runs without it)"
        ));
    }
    for (path, error) in &outcome.leftover_files {
        lines.push(format!(
            "could not remove the test file {}: {error}",
            path.display()
        ));
    }
    if outcome.interrupted {
        lines.push(if outcome.steps.is_empty() {
            "interrupted before the workers started; nothing was measured".to_string()
        } else {
            "interrupted: the results above are partial".to_string()
        });
    }
    lines
}

/// The resolved jobs and what the runner will do, for `--dry-run`.
pub fn describe_plan(plan: &RunPlan) -> String {
    let mut out = String::new();
    for (index, job) in plan.jobs.iter().enumerate() {
        out.push_str(&format!("[{}]\n", job.name));
        for (name, value) in diskmeter_workload::describe(job) {
            out.push_str(&format!("  {name}={value}\n"));
        }
        let workers: Vec<_> = plan
            .workers
            .iter()
            .filter(|w| w.job_index == index)
            .collect();
        out.push_str(&format!("  # {} worker(s)\n", workers.len()));
        if let Some(every) = job.control.transactions_per_connection {
            out.push_str(&format!(
                "  # Iometer's connection-rate test: each target closed and opened again every \
                 {every} IOs\n"
            ));
        }
        for worker in workers {
            out.push_str(&format!(
                "  # clone {}: iodepth {} (submit batch {}), {}{}\n",
                worker.clone_index,
                worker.iodepth,
                worker.submit_batch,
                match worker.io_limit_bytes {
                    Some(b) => format!("stops after {}", format_bytes_binary(b)),
                    None if job.iolog.read_iolog.is_some() => "stops at the log's end".to_string(),
                    None => "time-based".to_string(),
                },
                match worker.runtime_ns {
                    Some(ns) => format!(", at most {}", format_duration_ns(ns)),
                    None => String::new(),
                }
            ));
            if let Some(cpus) = &worker.placement.cpus {
                out.push_str(&format!("  #   on CPUs {}\n", format_cpu_list(cpus)));
            }
            for &t in &worker.targets {
                let target = &plan.targets[t];
                out.push_str(&format!(
                    "  #   {} ({:?}, {:?}): bytes {}..{}\n",
                    target.path.display(),
                    target.kind,
                    target.preparation,
                    target.region_start_bytes,
                    target.region_start_bytes + target.region_len_bytes
                ));
            }
            if !worker.logs.is_empty() {
                let paths: Vec<String> = worker
                    .logs
                    .iter()
                    .map(|log| log.path.display().to_string())
                    .collect();
                out.push_str(&format!("  #   logs: {}\n", paths.join(", ")));
            }
        }
    }
    for note in &plan.notes {
        out.push_str(&format!("# note: {note}\n"));
    }
    out
}
