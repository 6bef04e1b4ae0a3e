//! Two runs side by side: each metric of each matched step with both values, the change,
//! the verdict and the noise floor.
//!
//! The verdicts are [`diskmeter_analysis::compare::compare_runs`]'s, the values formatted
//! as `diskmeter compare` prints them, so the report and the terminal agree on every row.
//! Two charts: `compare`, run B's value of each metric as a percentage of run A's (one
//! scale for IOPS, MiB/s and latency alike), and `compare-iops`, both runs' per-second IOPS
//! overlaid, matched steps one after another.

mod charts;
#[cfg(test)]
mod tests;

use crate::{Cell, FactGroup, Section, SectionKind, Table, Tone, ViewError};
use diskmeter_analysis::compare::{compare_runs, CompareOptions, Comparison, Outcome};
use diskmeter_history::{HistoryStore, RunSummary, StoredRun, CAPTURE_KIND};
use diskmeter_report::RunResult;

/// `diskmeter compare --help`'s description (kept with the comparison's view).
pub const COMPARE_ABOUT: &str =
    "Compares run B with run A (the baseline), matching steps by name. For each step and \
    metric (IOPS, MiB/s, mean and p99 latency, per direction) it prints both values, the \
    change and a verdict from the per-second samples: the means of the samples and their \
    standard errors by batch means (allowing for neighbouring seconds being correlated) \
    are compared with Welch's t-test at 95 %, and the samples by rank (Mann-Whitney U, \
    5 %: short runs of bursty devices); a change is called when either test finds it \
    and it is at least --noise-floor percent. A 'slower' change of at \
    least --threshold percent is a regression. A step paced or replayed in either \
    run is compared on latency from each IO's intended issue time ('(intended)': the \
    p99 by its distribution-free 95 % interval, the mean taking each second as one \
    sample); a paced run saved without that figure is not compared on latency, and a \
    step interrupted or failed in either run is not compared: notes say so.\n\n\
    Exit codes: 0 no regression; 1 a regression (for CI pipelines) or a run is missing; \
    2 usage error: among them a capture compared with a run (a capture has no \
    steps: replay it and compare the replay, or check the run against it).";

/// Why runs `a` and `b` cannot be compared when one is a capture, and what to do instead;
/// `None` when neither is. A capture holds an application's iostat intervals, not a
/// benchmark's steps: compared step by step it would give an empty table and "0
/// regressions", which reads as a pass.
pub fn capture_refusal(a: &RunSummary, b: &RunSummary) -> Option<String> {
    let is_capture = |s: &RunSummary| s.kind == CAPTURE_KIND;
    let (capture, other) = match (is_capture(a), is_capture(b)) {
        (false, false) => return None,
        (true, true) => {
            return Some(format!(
                "runs {0} and {1} are both captures of an application's IO, which have no \
                 steps to compare: compare their checklists (diskmeter requirements {0}, \
                 diskmeter requirements {1})",
                a.id, b.id
            ))
        }
        (true, false) => (a, b),
        (false, true) => (b, a),
    };
    let (c, r) = (capture.id, other.id);
    Some(format!(
        "run {c} is a capture of an application's IO and run {r} is a {}: a capture holds \
         the application's iostat intervals, not a benchmark's steps, so there is nothing to \
         compare step by step. Replay the capture and compare the replay with the run \
         (diskmeter replay {c} --level p90 TARGET, then diskmeter compare {r} REPLAY_ID), or \
         judge the run against the capture's checklist (diskmeter check {r} --capture {c} \
         --level p90)",
        other.kind
    ))
}

/// The section comparing run `candidate` with run `baseline`.
pub fn section(
    store: &HistoryStore,
    baseline: i64,
    candidate: i64,
    options: CompareOptions,
) -> Result<Section, ViewError> {
    let (a, b) = (store.load(baseline)?, store.load(candidate)?);
    if let Some(reason) = capture_refusal(&a.summary, &b.summary) {
        return Err(ViewError::Unusable {
            run_id: candidate,
            reason,
        });
    }
    let comparison = compare_runs(&step_refs(&a), &step_refs(&b), options);
    if comparison.metrics.is_empty() {
        return Err(ViewError::Unusable {
            run_id: candidate,
            reason: match comparison.notes.is_empty() {
                true => {
                    format!("no step in common with run {baseline} (steps are matched by name)")
                }
                // Steps in common, each left out (partial): say why, not "none in common".
                false => format!(
                    "nothing to compare with run {baseline}: {}",
                    comparison.notes.join("; ")
                ),
            },
        });
    }
    let mut section = Section::new(
        format!("compare-{baseline}-{candidate}"),
        format!("Run {candidate} compared with run {baseline}"),
        SectionKind::Compare,
    );
    section.headline = Some(headline(&comparison));
    section.cards = Some(crate::headline::Headline::of_comparison(&comparison));
    section
        .facts
        .push(side_facts(&format!("A: run {baseline} (baseline)"), &a));
    section
        .facts
        .push(side_facts(&format!("B: run {candidate} (candidate)"), &b));
    section.facts.push(verdict_facts(&comparison));
    section.tables.push(metrics_table(&comparison));
    section.notes.push(comparison.method_text());
    section.notes.extend(comparison.notes.iter().cloned());
    if comparison
        .metrics
        .iter()
        .any(|m| m.outcome == Outcome::TooFewSamples)
    {
        section.notes.push(
            "too few samples: a run of that step has fewer than 4 full seconds, so no \
             verdict can be given; the change is shown as measured."
                .to_string(),
        );
    }
    for (which, names) in [
        ("A", &comparison.only_in_baseline),
        ("B", &comparison.only_in_candidate),
    ] {
        if !names.is_empty() {
            section.notes.push(format!(
                "only in {which} (not compared): {}",
                names.join(", ")
            ));
        }
    }
    let anchor = section.anchor.clone();
    section
        .charts
        .push(charts::relative_chart(&anchor, &comparison));
    section
        .charts
        .push(charts::iops_chart(&anchor, &a, &b, &comparison));
    Ok(section)
}

/// Each step with its result, as [`compare_runs`] takes them.
fn step_refs(run: &StoredRun) -> Vec<(String, &RunResult)> {
    run.steps
        .iter()
        .map(|s| (s.name.clone(), &s.result))
        .collect()
}

fn headline(c: &Comparison) -> String {
    let count = |outcome: Outcome| c.metrics.iter().filter(|m| m.outcome == outcome).count();
    format!(
        "{} regression{}: {} faster, {} slower, {} within noise of {} metrics",
        c.regressions(),
        if c.regressions() == 1 { "" } else { "s" },
        count(Outcome::Faster),
        count(Outcome::Slower),
        count(Outcome::WithinNoise),
        c.metrics.len()
    )
}

/// One run's side: its summary facts (kind, name, target, when, how it ended, which
/// diskmeter) headed by its id, and the host in one line.
fn side_facts(title: &str, run: &StoredRun) -> FactGroup {
    let mut group = crate::run::run_summary(run);
    group.title = title.to_string();
    group
        .rows
        .insert(0, ("run".to_string(), run.summary.id.to_string()));
    if let Some(host) = &run.host {
        group.rows.push(("host".to_string(), host.one_line()));
    }
    group
}

fn verdict_facts(c: &Comparison) -> FactGroup {
    FactGroup {
        title: "Verdicts".to_string(),
        rows: vec![
            (
                "Noise floor".to_string(),
                format!("{} % of run A's value", c.options.noise_floor_percent),
            ),
            (
                "Regression threshold".to_string(),
                format!(
                    "a slower change of {} % or more",
                    c.options.threshold_percent
                ),
            ),
            ("Metrics compared".to_string(), c.metrics.len().to_string()),
            ("Regressions".to_string(), c.regressions().to_string()),
        ],
    }
}

fn tone(outcome: Outcome) -> Tone {
    match outcome {
        Outcome::Faster => Tone::Good,
        Outcome::Slower => Tone::Bad,
        Outcome::WithinNoise | Outcome::TooFewSamples => Tone::Neutral,
    }
}

/// One row per metric of each matched step: both values, the change, the verdict and
/// whether it is a regression.
fn metrics_table(c: &Comparison) -> Table {
    let rows = c
        .metrics
        .iter()
        .map(|m| {
            vec![
                Cell::text(&m.step),
                Cell::text(&m.metric),
                Cell::number(m.format_value(m.baseline)),
                Cell::number(m.format_value(m.candidate)),
                Cell::number(m.format_change()).with_tone(tone(m.outcome)),
                Cell::text(m.outcome.label()).with_tone(tone(m.outcome)),
                if m.regression {
                    Cell::text("regression").with_tone(Tone::Bad)
                } else {
                    Cell::text("no")
                },
            ]
        })
        .collect();
    Table {
        title: "Metrics".to_string(),
        columns: [
            "step",
            "metric",
            "A (baseline)",
            "B (candidate)",
            "change",
            "verdict",
            "regression",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}
