//! The page templates: the base layout both kinds of page share (inlined styles, uPlot,
//! chart data, `charts.js`), the report (title, generation facts, table of contents) and a
//! dashboard page (nav bar, the page's own HTML, sections).

use askama::Template;
use diskmeter_views::Section;

/// Which entry of the dashboard's nav bar is the page shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavItem {
    /// The run list (`/`).
    Runs,
    /// The compare picker or a comparison (`/compare`).
    Compare,
    /// Neither (a run's page, an error page).
    None,
}

/// HTML the caller vouches for: built by its own escaping template, never from user text
/// pasted in as is. It is inserted into the page unescaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedHtml(String);

impl TrustedHtml {
    /// Wraps HTML the caller built safely (an askama template's output).
    pub fn new(html: impl Into<String>) -> Self {
        TrustedHtml(html.into())
    }

    /// The HTML.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One page of the dashboard, for [`crate::render_page`].
#[derive(Debug, Clone, PartialEq)]
pub struct DashboardPage {
    /// The `<title>` and the page's `<h1>`.
    pub title: String,
    /// The nav bar entry to mark as current.
    pub current: NavItem,
    /// The page's own HTML, shown under the heading before the sections (the run list and
    /// its filters form, the compare picker, the runs in progress, a "no such run" text).
    /// The report's styles apply to it: `<table class="data">` with `class="num"` cells,
    /// `tone-good`/`tone-bad`/`tone-neutral`, `<p class="note">`.
    pub fragment: Option<TrustedHtml>,
    /// Sections drawn as the report draws them (a run, a suite, a comparison...). Their
    /// charts are the page's `data-charts-expected`.
    pub sections: Vec<Section>,
}

impl DashboardPage {
    /// A page with a title and nothing else yet.
    pub fn new(title: impl Into<String>, current: NavItem) -> Self {
        DashboardPage {
            title: title.into(),
            current,
            fragment: None,
            sections: Vec::new(),
        }
    }
}

/// What the base layout shows on every page.
pub(crate) struct Head<'a> {
    pub(crate) title: &'a str,
    /// The number of chart specs on the page.
    pub(crate) charts_expected: usize,
    /// The chart specs as script-safe JSON.
    pub(crate) chart_json: String,
    pub(crate) styles: &'static str,
    pub(crate) uplot_js: &'static str,
    pub(crate) charts_js: &'static str,
}

/// The self-contained report.
#[derive(Template)]
#[template(path = "report.html")]
pub(crate) struct ReportHtml<'a> {
    pub(crate) head: Head<'a>,
    /// When the report was made, UTC.
    pub(crate) generated: String,
    pub(crate) version: &'a str,
    /// The table of contents, rendered.
    pub(crate) toc: String,
    /// The sections, rendered.
    pub(crate) sections: Vec<String>,
}

/// A dashboard page.
#[derive(Template)]
#[template(path = "page.html")]
pub(crate) struct PageHtml<'a> {
    pub(crate) head: Head<'a>,
    pub(crate) nav: NavItem,
    /// Trusted HTML of the page's own.
    pub(crate) fragment: &'a str,
    /// The sections, rendered.
    pub(crate) sections: Vec<String>,
}

impl PageHtml<'_> {
    /// `aria-current` value of a nav entry: "page" for the current one.
    fn current(&self, item: &str) -> &'static str {
        let is = match self.nav {
            NavItem::Runs => item == "runs",
            NavItem::Compare => item == "compare",
            NavItem::None => false,
        };
        if is {
            "page"
        } else {
            "false"
        }
    }
}
