//! HTML for people: the self-contained report (`diskmeter report`) and the dashboard's
//! pages, both rendered from the view model ([`diskmeter_views::Document`]) with askama
//! templates. Scripts (uPlot and our `charts.js`), styles and chart data are inlined so a
//! report works from file://, offline and as an email attachment, with zero network
//! requests.
//!
//! The DOM the browser tests rely on: every chart is `<div class="chart" id="{spec.id}"
//! data-kind="{spec.kind}">` (uPlot draws its `<canvas>` inside); `<html>` carries
//! `data-charts-expected="N"`, the number of chart specs on the page, and `charts.js` sets
//! `data-charts-drawn="N"` once all N are drawn; sections are `<section id="{anchor}"
//! class="section-{kind}">`.

#![forbid(unsafe_code)]

mod assets;
pub mod dashboard;
mod page;
mod section;

pub use page::{DashboardPage, NavItem, TrustedHtml};

use askama::Template;
use diskmeter_views::{ChartSpec, Document, Section};
use section::{LinkMode, RenderContext};

/// Why a page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// A template failed to render.
    #[error("cannot render {page}: {reason}")]
    Render {
        /// Which page.
        page: String,
        /// Why.
        reason: String,
    },
    /// The chart data could not be written as JSON.
    #[error("cannot write the chart data of {page} as JSON: {source}")]
    ChartData {
        /// Which page.
        page: String,
        /// Why.
        source: serde_json::Error,
    },
}

/// The whole report as one self-contained HTML file: a title, when and by which diskmeter
/// version it was made, a table of contents of every section and sub-section, then the
/// sections. Links between runs point to their sections in the same file (a link to a run
/// that is not in the report is shown as plain text).
pub fn render_report(document: &Document) -> Result<String, HtmlError> {
    let context = RenderContext::new(&document.sections, LinkMode::Report);
    let sections = render_sections(&document.sections, &context, &document.title)?;
    let page = page::ReportHtml {
        head: head(&document.title, &document.sections, &document.title)?,
        generated: diskmeter_report::format::utc_timestamp(document.generated_unix_ms),
        version: &document.diskmeter_version,
        toc: section::toc(&document.sections).map_err(|e| render_error(&document.title, e))?,
        sections,
    };
    page.render().map_err(|e| render_error(&document.title, e))
}

/// One dashboard page: the nav bar (Runs, Compare), the page's own trusted HTML (the run
/// list and its filters, a compare picker, the runs in progress) and then sections drawn
/// exactly as the report draws them. uPlot is loaded in `<head>`, so a script inside
/// [`DashboardPage::fragment`] may use `uPlot`; `charts.js` runs at the end of `<body>`
/// and exposes `window.diskmeterCharts.draw(spec, element)` for charts a fragment builds
/// itself (those do not count in `data-charts-expected`).
pub fn render_page(page: &DashboardPage) -> Result<String, HtmlError> {
    let context = RenderContext::new(&page.sections, LinkMode::Dashboard);
    let sections = render_sections(&page.sections, &context, &page.title)?;
    let html = page::PageHtml {
        head: head(&page.title, &page.sections, &page.title)?,
        nav: page.current,
        fragment: page.fragment.as_ref().map_or("", TrustedHtml::as_str),
        sections,
    };
    html.render().map_err(|e| render_error(&page.title, e))
}

fn render_sections(
    sections: &[Section],
    context: &RenderContext,
    page: &str,
) -> Result<Vec<String>, HtmlError> {
    sections
        .iter()
        .map(|s| section::render(s, 2, context).map_err(|e| render_error(page, e)))
        .collect()
}

/// A chart as `charts.js` gets it: the spec with its look (colours, dashes, grid ticks)
/// beside it, decided in Rust once for the HTML and the PNG/SVG charts alike.
#[derive(serde::Serialize)]
struct Drawn<'a> {
    #[serde(flatten)]
    spec: &'a ChartSpec,
    look: diskmeter_views::palette::ChartLook,
}

/// What the base layout needs: the title, the inlined assets and the chart data.
fn head<'a>(title: &'a str, sections: &[Section], page: &str) -> Result<page::Head<'a>, HtmlError> {
    let charts: Vec<Drawn> = sections
        .iter()
        .flat_map(Section::all_charts)
        .map(|spec| Drawn {
            look: spec.look(),
            spec,
        })
        .collect();
    let json = serde_json::to_string(&charts).map_err(|source| HtmlError::ChartData {
        page: page.to_string(),
        source,
    })?;
    Ok(page::Head {
        title,
        charts_expected: charts.len(),
        chart_json: script_safe_json(&json),
        styles: assets::STYLES,
        uplot_js: assets::UPLOT_JS,
        charts_js: assets::CHARTS_JS,
    })
}

fn render_error(page: &str, error: askama::Error) -> HtmlError {
    HtmlError::Render {
        page: page.to_string(),
        reason: error.to_string(),
    }
}

/// JSON that can sit inside `<script type="application/json">`: `<`, `>` and `&` become
/// `\u003c`, `\u003e` and `\u0026` (identical to JSON.parse, but a `</script>` or `<!--`
/// in a title can no longer end the script element early).
fn script_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
