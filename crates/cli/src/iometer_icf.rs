//! `diskmeter iometer --icf FILE [TARGET...]`: an Iometer configuration file run as Iometer
//! runs it — each access specification position, each cycling step a step of the run — with
//! its targets mapped to Linux paths, and Iometer's results CSV (`--csv FILE`).

use crate::session;
use crate::{args, write_output, Status, UsageError};
use anyhow::Context;
use clap::ArgMatches;
use diskmeter_jobfile::iometer::icf::{self, Icf};
use diskmeter_jobfile::iometer::icf_run::{self, IcfStep, RunSettings};
use diskmeter_jobfile::iometer::{icf_targets, icf_workers};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step, StepContext};
use diskmeter_report::{IometerCsvManager, IometerCsvStep, IometerCsvWorker, RunResult};
use std::path::Path;

/// Reads the file and makes its steps.
fn plan(matches: &ArgMatches, path: &str) -> Result<(Icf, Vec<IcfStep>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut icf = icf::parse_icf(path, &text).map_err(|e| e.to_string())?;
    let positional: Vec<String> = matches
        .get_many::<String>("target")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let maps: Vec<String> = matches
        .get_many::<String>("target-map")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    icf_workers::spawn_default_workers(&mut icf, cpus, &positional);
    let given =
        |name: &str| matches.value_source(name) == Some(clap::parser::ValueSource::CommandLine);
    let count = |name: &str| {
        given(name)
            .then(|| matches.get_one::<u32>(name).copied())
            .flatten()
    };
    if !icf_workers::size_default_workers(&mut icf, count("workers"), count("qd"))
        && (given("workers") || given("qd"))
    {
        return Err(format!(
            "--workers and --qd size the default workers of an .icf file that has none; {path} \
             sets its own workers"
        ));
    }
    let specs: Vec<String> = matches
        .get_many::<String>("spec")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    if !specs.is_empty() {
        icf_workers::assign_library_specs(path, &mut icf, &specs).map_err(|e| e.to_string())?;
    }
    let resolved =
        icf_targets::resolve_targets(&icf, path, &maps, &positional).map_err(|e| e.to_string())?;
    // --time and --ramp have defaults for --spec; only given ones override the file.
    let time = |name: &str| {
        given(name)
            .then(|| crate::iometer::time_ns(matches, name))
            .transpose()
    };
    let settings = RunSettings {
        run_time_ns: time("time")?,
        ramp_ns: time("ramp")?,
        file_size_bytes: crate::iometer::file_size_bytes(matches)?,
    };
    let steps = icf_run::steps(path, &icf, &settings, &|name| resolved.get(name).cloned())
        .map_err(|e| e.to_string())?;
    Ok((icf, steps))
}

/// Runs `diskmeter iometer --icf FILE`.
pub(crate) fn main(matches: &ArgMatches, path: &str) -> anyhow::Result<Status> {
    let (icf, steps) = plan(matches, path).map_err(UsageError)?;
    let quiet = args::quiet(matches);
    let settings = args::settings(matches)?;
    let json = crate::iometer::json_asked(matches);
    let mut session = Session::open(settings)?;
    let mut batch = Batch::new(
        CommandKind::Iometer,
        steps
            .iter()
            .map(|s| Step {
                name: s.name.clone(),
                jobs: s.jobs.clone(),
            })
            .collect(),
    );
    let file_name = Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    batch.name = Some(if icf.setup.description.is_empty() {
        file_name
    } else {
        icf.setup.description.clone()
    });
    let announce = move |step: StepContext<'_>| {
        Some(format!(
            "iometer {}/{}: {}",
            step.index + 1,
            step.total(),
            step.name()
        ))
    };
    let outcome = session::run_on_terminal(
        &mut session,
        &batch,
        quiet,
        Some(Box::new(announce)),
        Some(Box::new(session::step_heading)),
    );
    let written = if outcome.dry_run {
        Ok(())
    } else {
        let results: Vec<RunResult> = outcome.results().cloned().collect();
        let csv = matches.get_one::<String>("csv").map(|csv_path| {
            let text = diskmeter_report::render_iometer_csv(
                &icf.setup.description,
                &csv_steps(&icf, &steps, &results),
            );
            std::fs::write(csv_path, text).with_context(|| format!("cannot write --csv {csv_path}"))
        });
        let out = crate::iometer::results_text(&results, json)?;
        csv.transpose()?;
        write_output(matches.get_one::<String>("output"), &out)
    };
    let status = session::conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// The CSV writer's view of the steps that ran: managers with their active workers.
fn csv_steps<'a>(
    icf: &Icf,
    steps: &[IcfStep],
    results: &'a [RunResult],
) -> Vec<IometerCsvStep<'a>> {
    steps
        .iter()
        .zip(results)
        .map(|(step, result)| {
            let mut managers: Vec<(usize, IometerCsvManager)> = Vec::new();
            for worker in &step.workers {
                let manager = &icf.managers[worker.manager];
                let settings = &manager.workers[worker.worker];
                let row = IometerCsvWorker {
                    name: settings.name.clone(),
                    spec: worker.spec.clone(),
                    targets: worker.targets,
                    queue_depth: worker.queue_depth,
                    starting_sector: settings.starting_sector,
                    max_size_sectors: settings.max_size_sectors,
                    jobs: worker.jobs.clone(),
                };
                match managers.iter_mut().find(|(m, _)| *m == worker.manager) {
                    Some((_, m)) => m.workers.push(row),
                    None => managers.push((
                        worker.manager,
                        IometerCsvManager {
                            name: manager.name_or_id(),
                            workers: vec![row],
                        },
                    )),
                }
            }
            IometerCsvStep {
                // Iometer leaves the spec name empty when workers ran different ones.
                spec: step.spec.clone().unwrap_or_default(),
                managers: managers.into_iter().map(|(_, m)| m).collect(),
                result,
            }
        })
        .collect()
}
