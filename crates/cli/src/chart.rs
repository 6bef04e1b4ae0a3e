//! `diskmeter chart ID --kind KIND -o FILE.png|svg`: any chart of the report as an image,
//! for slides and tickets. The charts are the ones the HTML report draws
//! (`diskmeter_views::section`), found by kind in the run's section and its steps' sections,
//! and drawn by `diskmeter_charts::draw_spec`.
//!
//! When several steps have a chart of the kind and `--step` does not pick one, the first is
//! drawn and a note on stderr names the others: a suite's first step is the usual choice
//! for a slide, and the note says how to pick another (`--step N|NAME`, `--list`).

use crate::args::db_arg;
use crate::history::{open, resolve_id};
use crate::{Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_charts::ImageFormat;
use diskmeter_history::StoredRun;
use diskmeter_views::find::{charts_of, kinds, FoundChart};
use diskmeter_views::Item;
use std::fmt::Write;
use std::path::PathBuf;

/// The `chart` subcommand.
pub fn command() -> Command {
    Command::new("chart")
        .about("Write one chart of a saved run as PNG or SVG")
        .long_about(
            "Write one chart of a saved run as PNG or SVG (by the file's extension): the \
             charts of `diskmeter report`, for slides and tickets. `--list` prints the run's \
             charts, one a line: kind, step position (- for the run's own charts) and title \
             (after the step's name). \
             When several steps have a chart of the kind, the first is written unless \
             `--step` picks one (a note on stderr says so).",
        )
        .arg(
            Arg::new("id")
                .value_name("ID")
                .required(true)
                .help("The run's id (diskmeter history), or 'last'"),
        )
        .arg(
            Arg::new("kind")
                .long("kind")
                .value_name("KIND")
                .required_unless_present("list")
                .help("Which chart: iops, bandwidth, latency, percentiles, histogram, suite-iops, iops-vs-qd, ... (--list shows the run's)"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .long("output")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .required_unless_present("list")
                .help("The image to write: FILE.png (960 x 600 pixels) or FILE.svg"),
        )
        .arg(
            Arg::new("step")
                .long("step")
                .value_name("N|NAME")
                .help("The step whose chart to write: its position (0 for the first) or its name"),
        )
        .arg(db_arg())
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .help("Print the run's charts (kind, step, title) instead of writing one"),
        )
}

/// The step `--step` names: a position, or a step's name (exactly, else ignoring case).
fn pick_step(run: &StoredRun, text: &str) -> anyhow::Result<u32> {
    let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
    let position = match text.parse::<u32>() {
        Ok(n) if (n as usize) < names.len() => Some(n),
        Ok(_) => None,
        Err(_) => names
            .iter()
            .position(|n| *n == text)
            .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(text)))
            .map(|p| p as u32),
    };
    position.ok_or_else(|| {
        let steps: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} ({n})"))
            .collect();
        UsageError(format!(
            "run {} has no step '{text}'; its steps: {}",
            run.summary.id,
            steps.join(", ")
        ))
        .into()
    })
}

fn step_text(step: Option<u32>) -> String {
    step.map_or_else(|| "-".to_string(), |s| s.to_string())
}

/// Runs `diskmeter chart`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let output = matches.get_one::<PathBuf>("output");
    let list = matches.get_flag("list");
    if let (Some(path), false) = (output, list) {
        ImageFormat::of_path(path).map_err(|e| UsageError(e.to_string()))?;
    }
    let store = open(matches)?;
    let text = matches.get_one::<String>("id").cloned().unwrap_or_default();
    let id = resolve_id(&store, &text, None)?;
    let run = store.load(id)?;
    let section = diskmeter_views::section(&store, Item::Run(id))
        .with_context(|| format!("the charts of run {id}"))?;
    let mut found = charts_of(&section);
    let step = match matches.get_one::<String>("step") {
        Some(text) => Some(pick_step(&run, text)?),
        None => None,
    };
    // A one-step run's charts are the run's own: its step 0 is the run.
    let one_step = run.steps.len() == 1 && found.iter().all(|f| f.step.is_none());
    if let (Some(step), false) = (step, one_step) {
        found.retain(|f| f.step == Some(step));
    }
    let whose = match step {
        Some(step) => format!("run {id} step {step}"),
        None => format!("run {id}"),
    };

    if list {
        if found.is_empty() {
            eprintln!("diskmeter: note: {whose} has no charts");
        }
        let mut text = String::new();
        for f in &found {
            let step_name = f
                .step
                .and_then(|s| run.steps.get(s as usize))
                .map(|s| format!("{}: ", s.name))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "{:<20} {:<4} {step_name}{}",
                f.chart.kind,
                step_text(f.step),
                f.chart.title
            );
        }
        crate::write_output(None, &text)?;
        return Ok(Status::Success);
    }

    let kind = matches
        .get_one::<String>("kind")
        .cloned()
        .unwrap_or_default();
    let path = output.cloned().unwrap_or_default();
    let matching: Vec<&FoundChart> = found.iter().filter(|f| f.chart.kind == kind).collect();
    let Some(first) = matching.first() else {
        return Err(UsageError(if found.is_empty() {
            format!("{whose} has no charts")
        } else {
            format!(
                "{whose} has no chart of kind '{kind}'; its kinds: {}",
                kinds(&found)
            )
        })
        .into());
    };
    if matching.len() > 1 {
        let steps: Vec<String> = matching.iter().map(|f| step_text(f.step)).collect();
        eprintln!(
            "diskmeter: note: {whose} has {} charts of kind '{kind}' (steps {}); wrote the first (step {}); --step N|NAME picks another",
            matching.len(),
            steps.join(", "),
            step_text(first.step)
        );
    }
    diskmeter_charts::draw_spec(first.chart, &path)?;
    println!("wrote {}: {}", path.display(), first.chart.title);
    Ok(Status::Success)
}
