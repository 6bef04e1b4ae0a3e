//! A capture of an application's IO: the requirements checklist and the per-interval
//! series of each device.
//!
//! The checklist is [`diskmeter_analysis::requirements::ChecklistBuilder`]'s for the whole
//! capture with the default devices (every captured device except partitions of a captured
//! disk), its figures printed as `diskmeter requirements` prints them. The samples are read
//! once, streamed into the checklist and the series together. Time-of-day windows and other
//! device choices are `diskmeter requirements --window/--device`.
//!
//! The terminal's forms of a capture as it runs are here too: the live iostat-style text
//! ([`live`]), iostat's JSON document ([`json`]) and the trace's profiles ([`profiles`]).

pub mod json;
pub mod live;
#[cfg(test)]
mod live_tests;
pub mod profiles;
mod series;
#[cfg(test)]
mod tests;

use crate::{Cell, FactGroup, Section, SectionKind, Table, ViewError};
use diskmeter_analysis::requirements::{
    format_figure, format_span, Checklist, ChecklistBuilder, Level, Metric, Requirements, Source,
    WindowSet, RELATIVE_ERROR,
};
use diskmeter_history::{HistoryStore, StoredRun};
use diskmeter_units::format_thousands;
use series::DeviceSeries;

/// The section of a capture.
pub fn section(store: &HistoryStore, run: &StoredRun) -> Result<Section, ViewError> {
    let id = run.summary.id;
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    let mut series = DeviceSeries::default();
    store.for_each_capture_sample(id, |sample| {
        builder.push(&sample);
        series.push(&sample);
    })?;
    for trace in store.capture_traces(id)? {
        builder.add_trace(&trace);
    }
    let requirements = builder.finish().map_err(|e| ViewError::Unusable {
        run_id: id,
        reason: e.to_string(),
    })?;
    let anchor = format!("run-{id}");
    let mut section = Section::new(
        anchor.clone(),
        format!("Capture {id}: {}", run.summary.name),
        SectionKind::Capture,
    );
    crate::run::run_header(&mut section, run);
    section.facts.push(device_facts(&requirements));
    // The checklist is the loop's second step: a place of its own to link to.
    let mut checklist = Section::new(
        crate::linked::requirements_anchor(id),
        "Requirements: the whole capture",
        SectionKind::Step,
    );
    checklist.tables.push(checklist_table(
        "Requirements: the whole capture",
        &requirements.whole,
    ));
    checklist.notes.push(format!(
        "Percentiles: nearest rank over intervals (per IO for traced rows), within {} %; max \
         and mean exact (rates time-weighted, read %, sizes and latency IO-weighted). \
         \"unknown\": the counters cannot know it (capture --trace measures it).",
        RELATIVE_ERROR * 100.0
    ));
    if requirements.whole.row(Metric::RandomPercent).source == Source::Trace {
        checklist.notes.push(
            "random % is one figure for the whole trace (the same in every column).".to_string(),
        );
    }
    let (charts, per_point) = series.charts(&anchor, &requirements.devices);
    if charts.is_empty() {
        section
            .notes
            .push("No device had IO figures: there is no series to draw.".to_string());
    } else if per_point > 1 {
        section.notes.push(format!(
            "The charts show {per_point} consecutive intervals per point (at most {} points \
             per line), merged as one longer interval: rates weighted by time, latency by \
             IOs. Peaks shorter than that are flattened; the checklist is from every interval.",
            format_thousands(series::MAX_POINTS as u64)
        ));
    }
    section.charts = charts;
    section.children.push(checklist);
    Ok(section)
}

/// Which devices the rows sum, which were left out, which were traced, and how long.
fn device_facts(r: &Requirements) -> FactGroup {
    let devices = match r.devices.as_slice() {
        [] => "none had IO figures".to_string(),
        [one] => one.clone(),
        many => format!("{}, summed", many.join(" + ")),
    };
    let mut rows = vec![("Devices".to_string(), devices)];
    if !r.skipped_devices.is_empty() {
        rows.push((
            "Left out".to_string(),
            format!(
                "{} (partitions of a captured disk: their IO is in the disk's)",
                r.skipped_devices.join(", ")
            ),
        ));
    }
    rows.push((
        "Traced".to_string(),
        if r.traced_devices.is_empty() {
            "no (random %, the IO size distribution and device latency are unknown without \
             capture --trace)"
                .to_string()
        } else {
            r.traced_devices.join(", ")
        },
    ));
    rows.push((
        "Intervals".to_string(),
        format!(
            "{} over {}",
            format_thousands(r.whole.intervals),
            format_span(r.whole.seconds)
        ),
    ));
    FactGroup {
        title: "Devices".to_string(),
        rows,
    }
}

/// The checklist as `diskmeter requirements` prints it: [`checklist_table`] drawn as text, with
/// a trailing newline.
pub fn checklist_text(checklist: &Checklist) -> String {
    crate::text::TextTable::from(&checklist_table("", checklist)).to_string() + "\n"
}

/// A checklist row's name as the human views print it: a latency's "(ms)" goes, as each of
/// its figures carries its own unit ([`checklist_figure`]).
pub(crate) fn checklist_label(metric: Metric) -> String {
    let label = metric.label();
    if metric.is_latency() {
        label.replace("(ms, ", "(").replace(" (ms)", "")
    } else {
        label.to_string()
    }
}

/// A checklist figure as the human views print it: a latency in its own unit (0.046 ms reads
/// "46.0 us"), the rest as the JSON's figure. The key and the JSON stay in ms.
pub(crate) fn checklist_figure(metric: Metric, value: Option<f64>) -> String {
    match value {
        Some(ms) if metric.is_latency() => diskmeter_units::format_duration(ms * 1e6),
        _ => format_figure(value),
    }
}

/// The checklist as `diskmeter requirements` tabulates it: one row per metric, p50, p90,
/// p99, max and mean, and where the figures came from.
pub(crate) fn checklist_table(title: &str, checklist: &Checklist) -> Table {
    let rows = checklist
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![Cell::text(checklist_label(row.metric))];
            cells.extend(
                Level::ALL
                    .iter()
                    .map(|&l| Cell::number(checklist_figure(row.metric, row.figures.get(l)))),
            );
            cells.push(Cell::text(row.source.label()));
            cells
        })
        .collect();
    let mut columns = vec!["metric".to_string()];
    columns.extend(Level::ALL.iter().map(|l| l.name().to_string()));
    columns.push("from".to_string());
    Table {
        title: title.to_string(),
        columns,
        rows,
    }
}
