//! A plain run, and any one stored step: summary, command line and job file, host and
//! device facts, per-second IOPS, bandwidth and latency series, the latency percentile
//! curve on a nines axis, the histogram, CPU, steady-state and confidence figures.
//!
//! A run of one step shows that step in its own section; a run of several steps (a job file
//! whose steps the orchestrator saved one by one, a replay) shows a table of its steps and
//! one child section per step, as a suite does. [`step_section`] is the section of any one
//! step, for the suite and sweep views too.

/// `diskmeter merge --help`'s description (kept with the rest of its words).
pub const MERGE_ABOUT: &str =
    "Merges diskmeter JSON results (`--output-format json` of `run`, one file per \
    host or rank: an MPI run's ranks, a Kubernetes Indexed Job's pods, hosts run by \
    hand) into the aggregate, exactly: counters are summed and the latency \
    histograms every result carries are merged, so the percentiles are those of \
    all the ranks' IOs together, not an average of percentiles. Rates are fio's \
    group_reporting rates (bytes over the longest rank's runtime); the scale-out \
    figures add IOR's aggregate bandwidth and IOPS (total over the time from the \
    earliest start to the latest end) beside the sum of the ranks' own rates, and \
    each stonewall phase's start skew between the ranks.\n\n\
    Rank order is each result's rank (`run --rank`, MPI) when every file has one, \
    else the order of the files. The results must be of the same workload: the \
    same jobs with the same options, except where each host's files are \
    (filename, directory, filename_format), its offset in a shared file, its CPUs \
    and memory nodes, its log paths and its pre/post commands. Results of a \
    diskmeter before result schema 4 carry no histograms and are refused. Files \
    of several steps (a suite's `--output-format json`, `diskmeter export`) are \
    merged step by step.\n\n\
    The merged run is not saved in the history.\n\n\
    Exit codes: 0 ok; 1 a rank failed or was interrupted (the aggregate is still \
    written); 2 a file cannot be read or the results cannot be merged.";

mod charts;
mod facts;
mod figures;
#[cfg(test)]
mod run_tests;

pub(crate) use facts::{host_groups, run_summary};
pub(crate) use figures::StepFigures;

use crate::{CodeBlock, Section, SectionKind, ViewError};
use charts::DirectionHistogram;
use diskmeter_history::{HistoryStore, StoredRun};
use diskmeter_stats::SIGNIFICANT_DIGITS;

/// The section of a run whose steps are shown one after another.
pub fn section(store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    let mut section = Section::new(
        format!("run-{id}"),
        format!("Run {id}: {}", run.summary.name),
        SectionKind::Run,
    );
    run_header(&mut section, run);
    match run.steps.len() {
        0 => section
            .notes
            .push("The run finished no step: there are no figures to show.".to_string()),
        1 => step_content(store, run, 0, &mut section)?,
        _ => {
            section.tables.push(crate::suite::steps_table(run));
            for position in 0..run.steps.len() {
                section.children.push(step_section(store, run, position)?);
            }
        }
    }
    Ok(section)
}

/// What every run's section starts with: the history's headline, the summary and host
/// facts, and the command line.
pub(crate) fn run_header(section: &mut Section, run: &StoredRun) {
    if !run.summary.summary.is_empty() {
        section.headline = Some(run.summary.summary.clone());
    }
    section.facts.push(run_summary(run));
    if let Some(host) = &run.host {
        section.facts.extend(host_groups(host));
    }
    if !run.summary.command_line.is_empty() {
        section.code.push(CodeBlock {
            title: "Command line".to_string(),
            text: run.summary.command_line.clone(),
        });
    }
    if run.summary.unfinished {
        section.notes.push(
            "This run was begun but never finished: still running, or its process ended \
             before it closed the run. The steps it finished are shown."
                .to_string(),
        );
    } else if run.summary.partial {
        section
            .notes
            .push("This run was interrupted: its figures cover only the time it ran.".to_string());
    }
}

/// Where a run ran, for a chart's title: its target, and the emulated tier it was when the
/// command line asked for one (`--emulate azure-p30`: "/dev/loop3 (emulated azure-p30)"),
/// so a chart shown alone says which disk it stands for.
pub(crate) fn target_title(run: &StoredRun) -> String {
    tier_title(&run.summary.target, &run.summary.command_line)
}

/// [`target_title`] of a target and the command line that ran on it.
fn tier_title(target: &str, command_line: &str) -> String {
    let words: Vec<&str> = command_line.split_whitespace().collect();
    let tier =
        words
            .iter()
            .enumerate()
            .find_map(|(i, word)| match word.strip_prefix("--emulate") {
                Some("") => words.get(i + 1).copied(),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            });
    match tier.map(|t| t.trim_matches(['"', '\''])) {
        Some(tier) if !tier.is_empty() => format!("{target} (emulated {tier})"),
        _ => target.to_string(),
    }
}

/// A step's name as every view shows it: "NAME (partial)" when it was interrupted or failed
/// ([`diskmeter_report::RunResult::partial_reason`]), so no table or chart shows part of a
/// step as if it were all of it.
pub(crate) fn step_label(step: &diskmeter_history::StoredStep) -> String {
    if step.result.is_partial() {
        format!("{} (partial)", step.name)
    } else {
        step.name.clone()
    }
}

/// The child section of step `position` of `run`: anchor `run-{id}-step-{position}`
/// (`position` counts from 0, as the history stores it), with that step's facts, job file,
/// charts and notes.
pub fn step_section(
    store: &HistoryStore,
    run: &StoredRun,
    position: usize,
) -> Result<Section, ViewError> {
    let id = run.summary.id;
    let step = run.steps.get(position).ok_or_else(|| ViewError::Unusable {
        run_id: id,
        reason: format!("it has no step {position}"),
    })?;
    let mut section = Section::new(
        format!("run-{id}-step-{position}"),
        format!(
            "Step {} of {}: {}",
            position + 1,
            run.steps.len(),
            step_label(step)
        ),
        SectionKind::Step,
    );
    step_content(store, run, position, &mut section)?;
    Ok(section)
}

/// Fills `section` with step `position`'s headline, facts, job file, charts and notes.
fn step_content(
    store: &HistoryStore,
    run: &StoredRun,
    position: usize,
    section: &mut Section,
) -> Result<(), ViewError> {
    let id = run.summary.id;
    let step = &run.steps[position];
    let result = &step.result;
    let figures = StepFigures::of(result);
    // Richer than the history's one-line summary: per direction, with latency.
    section.headline = Some(figures.headline());
    section.cards = Some(crate::headline::Headline::of(result));
    section.facts.extend(facts::step_groups(result));
    section.tables.extend(facts::percentile_table(result));
    if let Some(job_file) = store.job_file(id, position as u32)? {
        if !job_file.trim().is_empty() {
            section.code.push(CodeBlock {
                title: "Job file".to_string(),
                text: job_file,
            });
        }
    }
    let anchor = section.anchor.clone();
    let first_chart = section.charts.len();
    let series = step.series();
    section.charts.extend(charts::series_charts(
        &anchor,
        &series,
        figures.reads(),
        figures.writes(),
    ));
    let histograms = histograms(store, id, position as u32)?;
    match charts::percentile_chart(&anchor, &histograms) {
        Some(chart) => {
            section.charts.push(chart);
            section.notes.push(format!(
                "Percentiles and the histogram come from the step's merged HDR histograms of \
                 {} per direction: {SIGNIFICANT_DIGITS} significant digits, so every value \
                 is within 0.1 % of the true latency (exact below 2.048 us). The per-second \
                 p99 comes from coarser histograms (2 digits, within 1 %); with several \
                 workers it is the largest worker's p99, an upper bound.",
                histogram_kinds(&histograms)
            ));
        }
        None => {
            if let Some(chart) = charts::listed_percentile_chart(&anchor, result) {
                section.charts.push(chart);
                section.notes.push(
                    "No latency histogram was stored for this step: the percentile curve \
                     shows only the percentiles the job listed (each within 0.1 %)."
                        .to_string(),
                );
            } else if figures.ios > 0 {
                section.notes.push(
                    "No latency histogram was stored for this step: no percentile curve \
                     or histogram can be drawn."
                        .to_string(),
                );
            }
        }
    }
    if let Some((chart, at_zero)) = charts::histogram_chart(&anchor, &histograms) {
        section.charts.push(chart);
        if at_zero > 0 {
            section.notes.push(format!(
                "{at_zero} IOs measured 0 ns (the clock did not tick between issue and \
                 completion) are counted in the shares but not drawn on the log axis."
            ));
        }
    }
    section.charts.extend(charts::cpu_chart(&anchor, result));
    // A chart read on its own (a slide, a ticket, `diskmeter chart`) says what and where.
    let about = format!("{} on {}", step_label(step), target_title(run));
    for chart in &mut section.charts[first_chart..] {
        chart.title = format!("{}: {about}", chart.title);
    }
    if figures.latency.unknown {
        section.notes.push(format!(
            "This step was rate-limited or replayed, but its result was saved before \
             diskmeter kept the latency from each IO's intended issue time: its headline \
             latency is not known ({}); the issue-to-completion latency in the job's facts \
             leaves out the time IOs waited behind a slow device.",
            diskmeter_report::HeadlineLatency::UNKNOWN
        ));
    } else if result
        .jobs
        .iter()
        .any(|j| j.read.lat_intended.count > 0 || j.write.lat_intended.count > 0)
    {
        section.notes.push(
            "This step was rate-limited or replayed: its headline latency is from when each \
             IO was due (its intended issue time, lat_intended), which includes the time it \
             waited behind a slow device; the curves show latency from when each IO was \
             issued, and both are in the job's facts."
                .to_string(),
        );
    }
    if let Some(reason) = result.partial_reason() {
        section.notes.push(format!(
            "This step is partial ({reason}): its figures cover only the time it ran, and \
             analyses of the run leave it out."
        ));
    }
    section.notes.extend(result.meta.notes.iter().cloned());
    Ok(())
}

/// The step's completion-latency histogram per direction; a direction's total latency
/// ("lat") stands in when its completion latency was not stored.
fn histograms(
    store: &HistoryStore,
    id: i64,
    position: u32,
) -> Result<Vec<DirectionHistogram>, ViewError> {
    let mut found = Vec::new();
    for direction in ["read", "write"] {
        for kind in ["clat", "lat"] {
            if let Some(histogram) = store.histogram(id, position, direction, kind)? {
                if !histogram.is_empty() {
                    found.push((direction.to_string(), kind.to_string(), histogram));
                    break;
                }
            }
        }
    }
    Ok(found)
}

/// "completion latency (clat)", or with "total latency (lat)" where that stood in: what
/// the note says the curves are of.
fn histogram_kinds(histograms: &[DirectionHistogram]) -> String {
    let mut kinds: Vec<&str> = histograms
        .iter()
        .map(|(_, kind, _)| match kind.as_str() {
            "clat" => "completion latency (clat)",
            _ => "total latency (lat)",
        })
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.join(" and ")
}
