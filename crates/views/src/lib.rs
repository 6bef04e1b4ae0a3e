//! What a stored run looks like: the history's runs turned into a [`Document`] of sections
//! with facts, tables and chart specifications ([`model`]). The HTML report
//! (`diskmeter report`), the dashboard (`diskmeter serve`) and `diskmeter chart` all draw
//! from this one model, so every chart the report has can be written as PNG or SVG too.
//!
//! Building reads the history (runs, histograms, captures) and computes nothing the
//! analysis crate does not already compute: sweeps are analysed by
//! [`diskmeter_analysis::analyse`], comparisons by [`diskmeter_analysis::compare`].
//! One module per kind of section: [`run`] (a plain run and any single step), [`suite`],
//! [`sweep`], [`compare`] and [`capture`]; [`find`] finds a chart in a built section.
//!
//! This crate is also the terminal's rendering home: [`text::TextTable`] draws every table
//! the CLI prints (the only user of comfy-table), and the terminal forms of a suite's table
//! ([`suite::table`]), a sweep's points ([`sweep::text`]), a capture's checklist
//! ([`capture::checklist_text`]), the history commands' listings ([`history`]), a
//! session's dry-run plan and closing messages ([`session`]), the planner's answers
//! ([`plan`], a rehearsal of one: [`rehearse`]) and the emulated disks ([`emulate`]) are
//! built here, beside the report's forms of the same data. So are the outputs of `diskmeter requirements` ([`requirements`]: a
//! capture's checklist as text, JSON or CSV) and `diskmeter check` ([`check`]: a result's
//! judgements). The help's texts are here too ([`help`]: every command's examples, the
//! one-line summaries of `-h`, the long descriptions).

#![forbid(unsafe_code)]

pub mod burst;
pub mod capture;
pub mod catalog;
pub mod check;
pub mod compare;
pub mod emulate;
pub mod find;
pub mod headline;
pub mod help;
pub mod history;
pub mod linked;
pub mod model;
pub mod palette;
pub mod plan;
pub mod rehearse;
pub mod requirements;
pub mod run;
pub mod session;
pub mod suite;
pub mod sweep;
pub mod text;

#[cfg(test)]
mod tests;

pub use headline::render_steps;
pub use model::{
    Axis, Cell, ChartSpec, ChartStyle, CodeBlock, Document, FactGroup, Scale, Section, SectionKind,
    SeriesSpec, Table, Tone,
};

use diskmeter_analysis::compare::CompareOptions;
use diskmeter_history::{HistoryError, HistoryStore};

/// The intervals a per-second chart draws: all but a last one shorter than half of the
/// first. A run's series ends with the few milliseconds between its last whole second and
/// the end of the measurement; drawn as a point, that sliver's rate (often a 0 over no time)
/// would look like a collapse at the end of every run. Its IOs are in the step's totals.
pub(crate) fn charted_intervals(
    series: &[diskmeter_stats::IntervalSample],
) -> &[diskmeter_stats::IntervalSample] {
    match (series.first(), series.split_last()) {
        (Some(first), Some((last, rest)))
            if !rest.is_empty() && last.duration_ms * 2 < first.duration_ms =>
        {
            rest
        }
        _ => series,
    }
}

/// Why a view could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The history could not be read (no such run, a damaged row).
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The run's stored data cannot make this view (a sweep whose steps are not sweep
    /// points, a comparison with no step in common).
    #[error("run {run_id}: {reason}")]
    Unusable {
        /// The run.
        run_id: i64,
        /// Why.
        reason: String,
    },
}

/// One thing a document shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item {
    /// A stored run of any kind (run, suite, sweep, diskspd, iometer, replay, capture).
    Run(i64),
    /// A capture and what was made from it, in the loop's order: its requirements, plans,
    /// replays and checks (`report CAPTURE_ID --with-replays`, [`linked::loop_sections`]).
    Loop(i64),
    /// Run `candidate` compared with run `baseline`.
    Compare {
        /// Run A.
        baseline: i64,
        /// Run B.
        candidate: i64,
        /// The thresholds of the verdicts.
        options: CompareOptions,
    },
}

impl Item {
    /// What a report shows, in order: the comparison first (it is the verdict the runs
    /// explain), then each of `runs` once (`report last 12` when 12 is the last run: its
    /// section once, as anchors are unique).
    pub fn report(compare: Option<Item>, runs: &[i64]) -> Vec<Item> {
        let mut items: Vec<Item> = compare.into_iter().collect();
        for (position, &id) in runs.iter().enumerate() {
            if !runs[..position].contains(&id) {
                items.push(Item::Run(id));
            }
        }
        items
    }

    /// With `with_replays`, a run becomes its loop ([`Item::Loop`]); else unchanged.
    pub fn with_replays(self, with_replays: bool) -> Item {
        match self {
            Item::Run(id) if with_replays => Item::Loop(id),
            item => item,
        }
    }
}

/// `diskmeter report --help`'s description (kept with the views it describes).
pub const REPORT_ABOUT: &str =
    "Writes saved runs as one HTML file that needs nothing else: scripts, styles and \
    data are inside it, so it opens from disk, offline and as an email attachment \
    and makes no network request. For each run it shows what the history holds: \
    the summary, command line and job file, host and device, per-second IOPS, \
    bandwidth and latency, the latency percentiles on a 'nines' axis, the \
    histogram; a suite's table and each step; a sweep's charts, analysis and \
    named tier; a capture's checklist and series. Several IDs make one report \
    with a table of contents. --compare A B adds run B compared with run A \
    (verdict per metric, as `diskmeter compare`) at the top; a capture and a run are \
    not compared (replay the capture and compare the replay, or check the run).\n\n\
    --with-replays: each ID is a capture, and the report is its loop, one section \
    after the other, each linking to the next: the capture and its requirements \
    checklist, the plans made from it (plan --from-capture), its replays \
    (diskmeter replay) and the checks of them (diskmeter check), with each check's \
    verdicts and their evidence.\n\n\
    IDs are as `diskmeter show` takes them: a number from `diskmeter history`, or \
    'last'.";

/// The section of one item, built from the history.
pub fn section(store: &HistoryStore, item: Item) -> Result<Section, ViewError> {
    match item {
        Item::Compare {
            baseline,
            candidate,
            options,
        } => compare::section(store, baseline, candidate, options),
        Item::Run(id) => {
            let run = store.load(id)?;
            let mut section = match run.summary.kind.as_str() {
                "suite" => suite::section(store, &run)?,
                "sweep" => sweep::section(store, &run)?,
                diskmeter_history::CAPTURE_KIND => {
                    // A capture's page holds its plans, so its links land on the page.
                    let mut section = capture::section(store, &run)?;
                    section.tables.insert(0, linked::capture_links(store, id)?);
                    let plans = store.plans_of(id)?;
                    section
                        .children
                        .extend(plans.iter().map(linked::plan_section));
                    return Ok(section);
                }
                _ => run::section(store, &run)?,
            };
            // A replay links its capture; a checked run shows its checks' verdicts.
            let (links, checks) = linked::replay_links(store, id)?;
            section.tables.splice(0..0, links);
            section.children.extend(checks);
            Ok(section)
        }
        Item::Loop(capture) => {
            let mut sections = linked::loop_sections(store, capture)?;
            let mut first = sections.remove(0);
            // One section per item: the rest follow the capture's as its children.
            first.children.extend(sections);
            Ok(first)
        }
    }
}

/// [`document`] generated now (the clock's time, as `diskmeter report` stamps it).
pub fn document_now(store: &HistoryStore, items: &[Item]) -> Result<Document, ViewError> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    document(store, items, now_ms)
}

/// A document of several items, in the order given (its table of contents follows it).
pub fn document(
    store: &HistoryStore,
    items: &[Item],
    generated_unix_ms: u64,
) -> Result<Document, ViewError> {
    let mut sections = Vec::new();
    for item in items {
        match item {
            // The loop's sections stand side by side, each in the table of contents.
            Item::Loop(capture) => sections.extend(linked::loop_sections(store, *capture)?),
            item => sections.push(section(store, *item)?),
        }
    }
    let title = match items {
        [Item::Loop(id)] => {
            format!("diskmeter capture {id}: requirements, plans, replays and checks")
        }
        [Item::Run(id)] => format!("diskmeter run {id}"),
        [Item::Compare {
            baseline,
            candidate,
            ..
        }] => format!("diskmeter: run {candidate} compared with run {baseline}"),
        _ => format!("diskmeter report: {} sections", sections.len()),
    };
    Ok(Document {
        title,
        diskmeter_version: env!("CARGO_PKG_VERSION").to_string(),
        generated_unix_ms,
        sections,
    })
}

#[cfg(test)]
mod interval_tests {
    use super::charted_intervals;
    use diskmeter_stats::IntervalSample;

    fn interval(start_ms: u64, duration_ms: u64) -> IntervalSample {
        IntervalSample {
            start_ms,
            duration_ms,
            ..Default::default()
        }
    }

    #[test]
    fn the_sliver_after_the_last_whole_second_is_not_drawn() {
        let series = [interval(0, 1000), interval(1000, 1000), interval(2000, 3)];
        assert_eq!(charted_intervals(&series), &series[..2]);
    }

    #[test]
    fn a_last_interval_of_half_a_second_or_more_is_drawn() {
        let series = [interval(0, 1000), interval(1000, 500)];
        assert_eq!(charted_intervals(&series), &series[..]);
        let alone = [interval(0, 3)];
        assert_eq!(charted_intervals(&alone), &alone[..]);
    }
}

#[cfg(test)]
mod item_tests {
    use super::*;

    #[test]
    fn a_report_shows_the_comparison_first_then_each_run_once() {
        let compare = Item::Compare {
            baseline: 1,
            candidate: 2,
            options: CompareOptions::default(),
        };
        let items = Item::report(Some(compare), &[3, 2, 3]);
        assert_eq!(items, [compare, Item::Run(3), Item::Run(2)]);
    }
}
