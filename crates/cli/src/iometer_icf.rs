//! `diskmeter iometer --icf FILE [TARGET...]`: an Iometer configuration file run as Iometer
//! runs it — each access specification position, each cycling step a step of the run — with
//! its targets mapped to Linux paths, and Iometer's results CSV (`--csv FILE`).

use crate::iometer::{read, time_ns, IometerArgs};
use crate::{args, session, write_output, Status, UsageError};
use anyhow::Context;
use clap::parser::ValueSource;
use clap::ArgMatches;
use diskmeter_jobfile::iometer::icf::Icf;
use diskmeter_jobfile::iometer::icf_request::{icf_steps, IcfRequest};
use diskmeter_jobfile::iometer::icf_run::{IcfStep, RunSettings};
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step, StepContext};
use diskmeter_report::{iometer_results, render_iometer_csv, IometerCsvStep, RunResult};

/// Reads the file and makes its steps.
fn plan(
    matches: &ArgMatches,
    asked: &IometerArgs,
    path: &str,
) -> Result<(Icf, Vec<IcfStep>), String> {
    let text = read(path)?;
    // --workers, --qd, --time and --ramp have defaults for --spec; only given ones count.
    let given = |name: &str| matches.value_source(name) == Some(ValueSource::CommandLine);
    let time = |name: &str, text: &str| given(name).then(|| time_ns(name, text)).transpose();
    let request = IcfRequest {
        targets: asked.target.clone(),
        target_maps: asked.target_map.clone(),
        specs: asked.spec.clone(),
        workers: given("workers").then_some(asked.workers),
        queue_depth: given("qd").then_some(asked.qd),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        settings: RunSettings {
            run_time_ns: time("time", &asked.time)?,
            ramp_ns: time("ramp", &asked.ramp)?,
            file_size_bytes: asked.file_size_bytes()?,
        },
    };
    icf_steps(path, &text, &request).map_err(|e| e.to_string())
}

/// Runs `diskmeter iometer --icf FILE`.
pub(crate) fn main(
    matches: &ArgMatches,
    asked: &IometerArgs,
    path: &str,
) -> anyhow::Result<Status> {
    let (icf, icf_steps) = plan(matches, asked, path).map_err(UsageError)?;
    let quiet = args::quiet(matches);
    let mut session = Session::open(args::settings(matches)?)?;
    let steps = (icf_steps.iter())
        .map(|s| Step {
            name: s.name.clone(),
            jobs: s.jobs.clone(),
        })
        .collect();
    let mut batch = Batch::new(CommandKind::Iometer, steps);
    batch.name = Some(icf.run_name(path));
    let announce = |step: StepContext<'_>| {
        let (number, total) = (step.index + 1, step.total());
        Some(format!("iometer {number}/{total}: {}", step.name()))
    };
    let (announce, heading) = (Box::new(announce), Box::new(session::step_heading));
    session::run_and_conclude(
        &mut session,
        &batch,
        quiet,
        Some(announce),
        Some(heading),
        |outcome| {
            if outcome.dry_run {
                return Ok(());
            }
            let results: Vec<RunResult> = outcome.results().cloned().collect();
            if let Some(csv_path) = &asked.csv {
                let steps = IometerCsvStep::of_icf_steps(&icf, &icf_steps, &results);
                let text = render_iometer_csv(&icf.setup.description, &steps);
                std::fs::write(csv_path, text)
                    .with_context(|| format!("cannot write --csv {csv_path}"))?;
            }
            let out = iometer_results(&results, asked.json())?;
            Ok(write_output(matches.get_one::<String>("output"), &out)?)
        },
    )
}
