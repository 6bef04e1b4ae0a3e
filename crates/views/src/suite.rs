//! A suite: its table of steps, bar charts comparing the steps (IOPS, MiB/s, mean and p99
//! latency), and each step's charts as a child section.
//!
//! The table has the columns of `diskmeter show`'s (IOPS and MiB/s per direction, mean and
//! p99 latency, steady state); each step's name links to its child section. A partial step
//! (interrupted or failed) is named "NAME (partial)" in the table and on the charts' axis.

use crate::run::{run_header, step_section, StepFigures};
use crate::ViewError;
use crate::{Axis, Cell, ChartSpec, ChartStyle, Scale, Section, SectionKind, SeriesSpec, Table};
use diskmeter_history::{HistoryStore, StoredRun};
use diskmeter_report::format::{iops, latency_unit};
use diskmeter_units::MIB_F64;

#[cfg(test)]
mod suite_tests;
pub mod table;
pub mod terminal;

/// The section of a suite run.
pub fn section(store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    let anchor = format!("run-{id}");
    let mut section = Section::new(
        anchor.clone(),
        format!("Suite {id}: {}", run.summary.name),
        SectionKind::Suite,
    );
    run_header(&mut section, run);
    if run.steps.is_empty() {
        section
            .notes
            .push("The suite finished no step: there are no figures to show.".to_string());
        return Ok(section);
    }
    let steps = run.steps.iter().map(|s| (s.name.as_str(), &s.result));
    section.cards = Some(crate::headline::Headline::of_steps(steps));
    section.tables.push(steps_table(run));
    section.charts.extend(suite_charts(&anchor, run));
    for position in 0..run.steps.len() {
        section.children.push(step_section(store, run, position)?);
    }
    Ok(section)
}

/// A row per step: IOPS and MiB/s per direction, mean and p99 latency, steady state; the
/// step's name links to its section. A figure the step does not have is "-".
pub(crate) fn steps_table(run: &StoredRun) -> Table {
    let id = run.summary.id;
    let dash = || Cell::text("-");
    let rows = run
        .steps
        .iter()
        .enumerate()
        .map(|(position, step)| {
            let f = StepFigures::of(&step.result);
            let steady = step
                .result
                .jobs
                .iter()
                .find_map(|j| j.steady_state.as_ref())
                .map(|ss| match ss.attained_at_ns {
                    Some(ns) => format!("after {:.0} s", ns as f64 / 1e9),
                    None => "not reached".to_string(),
                });
            let name = Cell::text(crate::run::step_label(step))
                .with_link(format!("#run-{id}-step-{position}"));
            vec![
                match step.result.is_partial() {
                    true => name.with_tone(crate::Tone::Neutral),
                    false => name,
                },
                if f.reads() {
                    Cell::number(iops(f.read_iops))
                } else {
                    dash()
                },
                if f.reads() {
                    Cell::number(diskmeter_units::format_rate_binary(f.read_bytes_per_sec))
                } else {
                    dash()
                },
                if f.writes() {
                    Cell::number(iops(f.write_iops))
                } else {
                    dash()
                },
                if f.writes() {
                    Cell::number(diskmeter_units::format_rate_binary(f.write_bytes_per_sec))
                } else {
                    dash()
                },
                match f.latency.unknown {
                    true => Cell::text("not known"),
                    false => f
                        .lat_mean_ns
                        .map_or_else(dash, |ns| Cell::number(f.latency_cell(ns))),
                },
                match f.latency.unknown {
                    true => Cell::text("not known"),
                    false => f
                        .p99_ns
                        .map_or_else(dash, |ns| Cell::number(f.latency_cell(ns as f64))),
                },
                steady.map_or_else(dash, Cell::text),
            ]
        })
        .collect();
    Table {
        title: "Steps".to_string(),
        columns: [
            "step",
            "read IOPS",
            "read bandwidth",
            "write IOPS",
            "write bandwidth",
            "mean latency",
            "p99 latency",
            "steady state",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// The bar charts across steps: `suite-iops`, `suite-bandwidth` (a bar per direction that
/// any step did) and `suite-latency` (mean, and p99 where listed).
fn suite_charts(anchor: &str, run: &StoredRun) -> Vec<ChartSpec> {
    let figures: Vec<StepFigures> = run
        .steps
        .iter()
        .map(|s| StepFigures::of(&s.result))
        .collect();
    let x: Vec<f64> = (0..figures.len()).map(|i| i as f64).collect();
    let steps = || Axis {
        label: "step".to_string(),
        scale: Scale::Linear,
        categories: run.steps.iter().map(crate::run::step_label).collect(),
    };
    let bars = |label: &str, value: &dyn Fn(&StepFigures) -> Option<f64>| SeriesSpec {
        label: label.to_string(),
        x: x.clone(),
        y: figures.iter().map(value).collect(),
    };
    let reads = figures.iter().any(StepFigures::reads);
    let writes = figures.iter().any(StepFigures::writes);
    let mut iops_series = Vec::new();
    let mut bandwidth_series = Vec::new();
    if reads {
        iops_series.push(bars("read", &|f| Some(f.read_iops)));
        bandwidth_series.push(bars("read", &|f| Some(f.read_bytes_per_sec / MIB_F64)));
    }
    if writes {
        iops_series.push(bars("write", &|f| Some(f.write_iops)));
        bandwidth_series.push(bars("write", &|f| Some(f.write_bytes_per_sec / MIB_F64)));
    }
    let bar_chart = |kind: &str, title: &str, y: &str, series: Vec<SeriesSpec>| ChartSpec {
        id: format!("{anchor}-{kind}"),
        kind: kind.to_string(),
        title: title.to_string(),
        style: ChartStyle::Bars,
        x: steps(),
        y: Axis::linear(y),
        series,
    };
    let mut charts = Vec::new();
    if reads || writes {
        charts.push(bar_chart(
            "suite-iops",
            "IOPS per step",
            "IOPS",
            iops_series,
        ));
        charts.push(bar_chart(
            "suite-bandwidth",
            "Bandwidth per step",
            "MiB/s",
            bandwidth_series,
        ));
    }
    let max_ns = figures
        .iter()
        .flat_map(|f| [f.lat_mean_ns, f.p99_ns.map(|ns| ns as f64)])
        .flatten()
        .fold(0.0, f64::max);
    if max_ns > 0.0 {
        let (unit, scale) = latency_unit(max_ns);
        let mut latency = vec![bars("mean latency", &|f| {
            f.lat_mean_ns.map(|ns| ns / scale)
        })];
        if figures.iter().any(|f| f.p99_ns.is_some()) {
            latency.push(bars("p99", &|f| f.p99_ns.map(|ns| ns as f64 / scale)));
        }
        charts.push(bar_chart(
            "suite-latency",
            "Latency per step",
            &format!("latency ({unit})"),
            latency,
        ));
    }
    charts
}
