//! The view model every visual output shares: a [`Document`] of [`Section`]s, each holding
//! facts, tables, code blocks and [`ChartSpec`]s. The HTML report and the dashboard render
//! it with templates and uPlot; `diskmeter chart` draws one of its charts with plotters.
//! Keeping one model means every chart the report has can also be written as PNG or SVG,
//! and no figure is computed twice in two places.

use serde::{Deserialize, Serialize};

/// A whole report: one or more runs (several IDs make one document with a table of
/// contents).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The document's title ("diskmeter run 12", "diskmeter runs 12, 14").
    pub title: String,
    /// The diskmeter version that built it.
    pub diskmeter_version: String,
    /// When it was built, ms since the Unix epoch.
    pub generated_unix_ms: u64,
    /// Top-level sections, one per run asked for (a comparison is one section too).
    pub sections: Vec<Section>,
}

/// What a section shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// A plain run (`run`, `diskspd`, `iometer`, `replay` of one step).
    Run,
    /// A suite: its table, then one child section per step.
    Suite,
    /// A sweep: its charts, analysis and named tier.
    Sweep,
    /// Two runs side by side with a verdict per metric.
    Compare,
    /// A capture of an application's IO: the requirements checklist and the series.
    Capture,
    /// One step of a suite, sweep or multi-step run.
    Step,
    /// A plan made from a capture (`plan --from-capture`), as saved.
    Plan,
    /// A check's verdicts with their evidence, as saved.
    Check,
}

/// One part of a document, with a stable anchor for the table of contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// HTML id, unique in the document: `run-12`, `run-12-step-3`, `compare-12-14`.
    pub anchor: String,
    /// Heading ("Run 12: randread 4k QD32", "Step 3: SEQ1M Q8T1 read").
    pub title: String,
    /// What it shows.
    pub kind: SectionKind,
    /// A one-line headline under the heading (the history's summary line), if any.
    pub headline: Option<String>,
    /// The result's headline cards (and verdicts), shown first in the section.
    #[serde(default)]
    pub cards: Option<crate::headline::Headline>,
    /// Groups of key-value facts (summary, host, device, steady state, confidence).
    pub facts: Vec<FactGroup>,
    /// Tables (a suite's steps, a comparison's metrics, a capture's checklist).
    pub tables: Vec<Table>,
    /// Charts, in the order shown.
    pub charts: Vec<ChartSpec>,
    /// Verbatim text: the command line, the job file.
    pub code: Vec<CodeBlock>,
    /// Remarks in prose (why a figure is missing, what a verdict means).
    pub notes: Vec<String>,
    /// Sub-sections (a suite's or sweep's steps).
    pub children: Vec<Section>,
}

impl Section {
    /// An empty section with this anchor, title and kind.
    pub fn new(anchor: impl Into<String>, title: impl Into<String>, kind: SectionKind) -> Self {
        Section {
            anchor: anchor.into(),
            title: title.into(),
            kind,
            headline: None,
            cards: None,
            facts: Vec::new(),
            tables: Vec::new(),
            charts: Vec::new(),
            code: Vec::new(),
            notes: Vec::new(),
            children: Vec::new(),
        }
    }

    /// This section's charts and its children's, depth first.
    pub fn all_charts(&self) -> Vec<&ChartSpec> {
        let mut charts: Vec<&ChartSpec> = self.charts.iter().collect();
        for child in &self.children {
            charts.extend(child.all_charts());
        }
        charts
    }
}

/// A titled list of key-value facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactGroup {
    /// "Summary", "Host", "Device", "Steady state", ...
    pub title: String,
    /// (name, value as printed with its unit).
    pub rows: Vec<(String, String)>,
}

/// A table with a header row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Caption.
    pub title: String,
    /// Column headings (with units: "IOPS", "MiB/s", "p99 (us)").
    pub columns: Vec<String>,
    /// Rows, each as many cells as columns.
    pub rows: Vec<Vec<Cell>>,
}

/// One table cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// Right-aligned as a number.
    pub numeric: bool,
    /// How to colour it, if it is a verdict.
    pub tone: Tone,
    /// Where it links to (a run's page in the dashboard, a section's anchor), if anywhere.
    pub link: Option<String>,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            numeric: false,
            tone: Tone::Plain,
            link: None,
        }
    }

    /// A number, already formatted with its precision.
    pub fn number(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            numeric: true,
            tone: Tone::Plain,
            link: None,
        }
    }

    /// The same cell linking to `href`.
    pub fn with_link(mut self, href: impl Into<String>) -> Self {
        self.link = Some(href.into());
        self
    }

    /// The same cell with a tone.
    pub fn with_tone(mut self, tone: Tone) -> Self {
        self.tone = tone;
        self
    }
}

/// The colour of a verdict cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// No verdict.
    Plain,
    /// Better, met, pass.
    Good,
    /// Worse, missed, regression.
    Bad,
    /// Within noise, no verdict possible.
    Neutral,
}

/// Verbatim text shown in a monospace block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeBlock {
    /// "Command line", "Job file".
    pub title: String,
    /// The text.
    pub text: String,
}

/// One chart, as data: the HTML draws it with uPlot, `diskmeter chart` with plotters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSpec {
    /// HTML id, unique in the document (`run-12-step-0-iops`).
    pub id: String,
    /// The chart's kind, the value `diskmeter chart --kind` takes: `iops`, `bandwidth`,
    /// `latency`, `percentiles`, `histogram`, `cpu`, `iops-vs-qd`, `bandwidth-vs-bs`,
    /// `latency-vs-qd`, `compare`, `capture-iops`, ...
    pub kind: String,
    /// Title shown above it.
    pub title: String,
    /// How the series are drawn.
    pub style: ChartStyle,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The lines or bar groups.
    pub series: Vec<SeriesSpec>,
}

/// How a chart's series are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartStyle {
    /// Lines through the points (series over time, percentile curves, sweep lines).
    Lines,
    /// Lines with a marker at each point (few points: a sweep's queue depths).
    LinesPoints,
    /// Bars per x category, one bar per series (a comparison, a histogram's buckets).
    Bars,
}

/// An axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Label with unit: "time (s)", "IOPS", "latency (us)", "percentile".
    pub label: String,
    /// How values map to positions.
    pub scale: Scale,
    /// For [`ChartStyle::Bars`] on x: the category names; x values are then their
    /// indices 0, 1, 2...
    pub categories: Vec<String>,
}

impl Axis {
    /// A linear axis with this label.
    pub fn linear(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            categories: Vec::new(),
        }
    }
}

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Linear.
    Linear,
    /// Base-10 logarithmic (latency, block sizes, queue depths).
    Log10,
    /// Percentiles on a "nines" axis: position = -log10(1 - p/100), so 90, 99, 99.9 and
    /// 99.99 are evenly spaced; values are percentiles in 0..100 (100 itself is not drawn).
    Nines,
}

/// One line (or one bar colour) of a chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesSpec {
    /// Legend label ("read", "write", "4 KiB", "run 12").
    pub label: String,
    /// x values, ascending for lines.
    pub x: Vec<f64>,
    /// y values, one per x; `None` is a gap (a second with no IO of that direction).
    pub y: Vec<Option<f64>>,
}
