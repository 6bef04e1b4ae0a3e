//! The dashboard's own pages, around the sections every page shares: the run list (filters,
//! a page of runs with A/B choices for a comparison, the pager, the runs-in-progress slot),
//! the compare picker, a section's page and the message page (a 404, a bad query). The
//! dashboard crate fills these plain structs from the history; the templates are
//! `templates/dashboard_*.html`, framed by [`crate::render_page`].

use crate::{render_page, DashboardPage, HtmlError, NavItem, TrustedHtml};
use askama::Template;
use diskmeter_views::Section;

/// One run as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// The run's id (its page is `/run/ID`).
    pub id: i64,
    /// When it started, UTC, as printed.
    pub started: String,
    /// "run", "suite", "sweep", ...
    pub kind: String,
    /// Suite name or job names.
    pub name: String,
    /// The target.
    pub target: String,
    /// The machine.
    pub host: String,
    /// Number of steps.
    pub steps: u32,
    /// The headline figures and how the run ended ("(interrupted)").
    pub result: String,
}

/// The filters as the form shows them: an empty string is no filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFilters {
    /// Kind of run.
    pub kind: String,
    /// Suite name.
    pub suite: String,
    /// Text the target contains.
    pub target: String,
    /// Host.
    pub host: String,
    /// Started at or after, UTC date.
    pub since: String,
    /// Started before, UTC date.
    pub until: String,
}

/// The values the filters offer (what the history holds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterChoices {
    /// Kinds of runs.
    pub kinds: Vec<String>,
    /// Suite names.
    pub suites: Vec<String>,
    /// Hosts.
    pub hosts: Vec<String>,
}

/// Where the shown page of runs lies in the whole list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pager {
    /// This page, from 1.
    pub page: u64,
    /// Pages in all (at least 1).
    pub pages: u64,
    /// Runs matching the filters, on all pages.
    pub total: u64,
    /// Position of the first run shown, from 1 (0 when none is).
    pub first: u64,
    /// Position of the last run shown.
    pub last: u64,
    /// The previous page's address, if any.
    pub previous: Option<String>,
    /// The next page's address, if any.
    pub next: Option<String>,
}

/// The run list page (`/`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunList {
    /// The filters as asked.
    pub filters: RunFilters,
    /// What they offer.
    pub choices: FilterChoices,
    /// This page's runs, newest first.
    pub rows: Vec<RunRow>,
    /// Where this page is.
    pub pager: Pager,
    /// Why no run is listed ("No run matches the filters", "No history at ... yet").
    pub empty: Option<String>,
    /// The "Runs in progress" block, placed above the filters.
    pub live: TrustedHtml,
}

/// The compare picker (`/compare` without both runs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComparePicker {
    /// Run A, if one was chosen.
    pub baseline: Option<i64>,
    /// Run B, if one was chosen.
    pub candidate: Option<i64>,
    /// The runs offered, newest first.
    pub runs: Vec<RunRow>,
    /// Why the two runs chosen could not be compared, if they were.
    pub problem: Option<String>,
}

#[derive(Template)]
#[template(path = "dashboard_runs.html")]
struct RunListHtml<'a> {
    list: &'a RunList,
}

impl RunListHtml<'_> {
    /// ` selected` when an option is the filter's current value.
    fn selected(&self, option: &str, current: &str) -> &'static str {
        if option == current {
            " selected"
        } else {
            ""
        }
    }

    /// Whether `current` is a value the choices do not list (kept so the form shows it).
    fn unlisted(&self, current: &str, choices: &[String]) -> bool {
        !current.is_empty() && !choices.iter().any(|c| c == current)
    }
}

#[derive(Template)]
#[template(path = "dashboard_compare.html")]
struct ComparePickerHtml<'a> {
    picker: &'a ComparePicker,
}

impl ComparePickerHtml<'_> {
    /// ` selected` when run `id` is the chosen one.
    fn selected(&self, id: &i64, chosen: &Option<i64>) -> &'static str {
        if *chosen == Some(*id) {
            " selected"
        } else {
            ""
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard_message.html")]
struct MessageHtml<'a> {
    message: &'a str,
}

fn fragment<T: Template>(template: &T, page: &str) -> Result<TrustedHtml, HtmlError> {
    template
        .render()
        .map(TrustedHtml::new)
        .map_err(|e| HtmlError::Render {
            page: page.to_string(),
            reason: e.to_string(),
        })
}

/// The run list page.
pub fn run_list_page(list: &RunList) -> Result<String, HtmlError> {
    let title = "Runs";
    let mut page = DashboardPage::new(title, NavItem::Runs);
    page.fragment = Some(fragment(&RunListHtml { list }, title)?);
    render_page(&page)
}

/// The compare picker page.
pub fn compare_picker_page(picker: &ComparePicker) -> Result<String, HtmlError> {
    let title = "Compare two runs";
    let mut page = DashboardPage::new(title, NavItem::Compare);
    page.fragment = Some(fragment(&ComparePickerHtml { picker }, title)?);
    render_page(&page)
}

/// A page showing one section (a run of any kind, a comparison) as the report draws it.
pub fn section_page(title: &str, current: NavItem, section: Section) -> Result<String, HtmlError> {
    let mut page = DashboardPage::new(title, current);
    page.sections.push(section);
    render_page(&page)
}

/// A page that only says something (why a page is missing, what in a query is wrong).
pub fn message_page(title: &str, message: &str) -> Result<String, HtmlError> {
    let mut page = DashboardPage::new(title, NavItem::None);
    page.fragment = Some(fragment(&MessageHtml { message }, title)?);
    render_page(&page)
}

#[cfg(test)]
#[path = "dashboard_tests.rs"]
mod tests;
