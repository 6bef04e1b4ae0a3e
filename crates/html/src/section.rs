//! One section as HTML, the same in the report and on the dashboard: heading, headline,
//! fact groups, code blocks, tables (links, tones, numbers aligned right), charts, notes,
//! then its children one heading level deeper. Also the report's table of contents.

use askama::Template;
use diskmeter_views::{Cell, Section, SectionKind, Table, Tone};
use std::collections::HashSet;

/// Where a page's links may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkMode {
    /// A self-contained file: only anchors inside it (a dashboard link `/run/ID` becomes
    /// `#run-ID` when that run is in the report).
    Report,
    /// The dashboard: paths on the same server, anchors and http(s) addresses.
    Dashboard,
}

/// What every section of one page shares.
pub(crate) struct RenderContext {
    mode: LinkMode,
    /// Every anchor on the page, to keep only links that land somewhere.
    anchors: HashSet<String>,
}

impl RenderContext {
    /// The context of a page showing `sections`.
    pub(crate) fn new(sections: &[Section], mode: LinkMode) -> Self {
        let mut anchors = HashSet::new();
        fn collect(section: &Section, anchors: &mut HashSet<String>) {
            anchors.insert(section.anchor.clone());
            for chart in &section.charts {
                anchors.insert(chart.id.clone());
            }
            for child in &section.children {
                collect(child, anchors);
            }
        }
        for section in sections {
            collect(section, &mut anchors);
        }
        RenderContext { mode, anchors }
    }

    /// Where a cell's link goes on this page, if anywhere it may.
    fn href(&self, link: &str) -> Option<String> {
        if let Some(anchor) = link.strip_prefix('#') {
            return self.anchors.contains(anchor).then(|| link.to_string());
        }
        match self.mode {
            LinkMode::Report => {
                // The dashboard's address of a run, `/run/ID`, is `#run-ID` in a report, and
                // a place on its page, `/run/ID#PLACE`, is `#PLACE`.
                let id = link.strip_prefix("/run/")?;
                let anchor = match id.split_once('#') {
                    Some((_, place)) => place.to_string(),
                    None => format!("run-{id}"),
                };
                self.anchors.contains(&anchor).then(|| format!("#{anchor}"))
            }
            LinkMode::Dashboard => {
                let local = link.starts_with('/') && !link.starts_with("//");
                let web = link.starts_with("https://") || link.starts_with("http://");
                // Anything else (javascript:, data:, //host) is never made a link.
                (local || web || link.starts_with('?')).then(|| link.to_string())
            }
        }
    }
}

#[derive(Template)]
#[template(path = "section.html")]
struct SectionHtml<'a> {
    section: &'a Section,
    /// 2 for a top-level section, deeper for children (at most 6).
    level: usize,
    context: &'a RenderContext,
    /// The children, rendered.
    children: Vec<String>,
}

impl SectionHtml<'_> {
    /// The kind as the `section-{kind}` class names it.
    fn kind(&self) -> &'static str {
        match self.section.kind {
            SectionKind::Run => "run",
            SectionKind::Suite => "suite",
            SectionKind::Sweep => "sweep",
            SectionKind::Compare => "compare",
            SectionKind::Capture => "capture",
            SectionKind::Step => "step",
            SectionKind::Plan => "plan",
            SectionKind::Check => "check",
        }
    }

    /// The classes of a cell: numbers align right, verdicts have a colour.
    fn cell_class(&self, cell: &Cell) -> &'static str {
        match (cell.numeric, cell.tone) {
            (false, Tone::Plain) => "",
            (true, Tone::Plain) => "num",
            (false, Tone::Good) => "tone-good",
            (true, Tone::Good) => "num tone-good",
            (false, Tone::Bad) => "tone-bad",
            (true, Tone::Bad) => "num tone-bad",
            (false, Tone::Neutral) => "tone-neutral",
            (true, Tone::Neutral) => "num tone-neutral",
        }
    }

    /// The class of a verdict card's tone.
    fn tone_class(&self, tone: &Tone) -> &'static str {
        match tone {
            Tone::Plain => "",
            Tone::Good => "tone-good",
            Tone::Bad => "tone-bad",
            Tone::Neutral => "tone-neutral",
        }
    }

    /// A column's heading aligns right when its cells are numbers.
    fn column_class(&self, table: &Table, column: &usize) -> &'static str {
        let numeric = table
            .rows
            .iter()
            .filter_map(|row| row.get(*column))
            .all(|cell| cell.numeric);
        if numeric && !table.rows.is_empty() {
            "num"
        } else {
            ""
        }
    }

    fn href(&self, cell: &Cell) -> Option<String> {
        cell.link
            .as_deref()
            .and_then(|link| self.context.href(link))
    }
}

/// `section` as HTML with its heading at `level` (2 = `<h2>`), children one deeper.
pub(crate) fn render(
    section: &Section,
    level: usize,
    context: &RenderContext,
) -> Result<String, askama::Error> {
    let children = section
        .children
        .iter()
        .map(|child| render(child, level + 1, context))
        .collect::<Result<Vec<_>, _>>()?;
    SectionHtml {
        section,
        level: level.min(6),
        context,
        children,
    }
    .render()
}

#[derive(Template)]
#[template(path = "toc.html")]
struct TocHtml<'a> {
    entries: Vec<TocEntry<'a>>,
}

struct TocEntry<'a> {
    anchor: &'a str,
    title: &'a str,
    /// The children's list, rendered ("" for none).
    children: String,
}

/// The table of contents of `sections` and all their children, as nested lists.
pub(crate) fn toc(sections: &[Section]) -> Result<String, askama::Error> {
    let entries = sections
        .iter()
        .map(|section| {
            let children = if section.children.is_empty() {
                String::new()
            } else {
                toc(&section.children)?
            };
            Ok(TocEntry {
                anchor: &section.anchor,
                title: &section.title,
                children,
            })
        })
        .collect::<Result<Vec<_>, askama::Error>>()?;
    TocHtml { entries }.render()
}
