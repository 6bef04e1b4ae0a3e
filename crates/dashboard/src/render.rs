//! From what the history holds to the html crate's dashboard pages
//! ([`diskmeter_html::dashboard`]): rows of runs, the filters and choices, the pager.

use crate::list::{ListRequest, RUNS_PER_PAGE};
use crate::DashboardError;
use diskmeter_history::{RunFacets, RunPage, RunSummary};
use diskmeter_html::dashboard::{
    self, ComparePicker, FilterChoices, Pager, RunFilters, RunList, RunRow,
};
use diskmeter_html::{NavItem, TrustedHtml};
use diskmeter_report::format::utc_timestamp;
use diskmeter_views::Section;

/// The run list page; `listing` is `None` when the history does not exist yet.
pub(crate) fn run_list(
    request: &ListRequest,
    listing: Option<(&RunPage, &RunFacets)>,
    live: String,
    db: &str,
) -> Result<String, DashboardError> {
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let mut list = RunList {
        filters: RunFilters {
            kind: text(&request.kind),
            suite: text(&request.suite),
            target: text(&request.target),
            host: text(&request.host),
            since: text(&request.since),
            until: text(&request.until),
        },
        live: TrustedHtml::new(live),
        ..RunList::default()
    };
    let Some((page, facets)) = listing else {
        list.pager = pager(request, 0, 0);
        list.empty = Some(format!(
            "No history at {db} yet: runs appear here as they are saved."
        ));
        return Ok(dashboard::run_list_page(&list)?);
    };
    list.choices = FilterChoices {
        kinds: facets.kinds.clone(),
        suites: facets.suites.clone(),
        hosts: facets.hosts.clone(),
    };
    list.rows = page.runs.iter().map(row).collect();
    list.pager = pager(request, page.total, page.runs.len());
    if list.rows.is_empty() {
        list.empty = Some(if request.page > list.pager.pages {
            format!(
                "No runs on page {}: the list has {} pages.",
                request.page, list.pager.pages
            )
        } else if request.filtered() {
            "No run matches the filters.".to_string()
        } else {
            "No run is saved yet: diskmeter run, suite, sweep and capture save theirs here."
                .to_string()
        });
    }
    Ok(dashboard::run_list_page(&list)?)
}

/// Where page `request.page` of `total` runs lies, `shown` of them on it.
fn pager(request: &ListRequest, total: u64, shown: usize) -> Pager {
    let per_page = u64::from(RUNS_PER_PAGE);
    let pages = total.div_ceil(per_page).max(1);
    let offset = (request.page - 1).saturating_mul(per_page);
    Pager {
        page: request.page,
        pages,
        total,
        first: if shown == 0 { 0 } else { offset + 1 },
        last: offset + shown as u64,
        previous: (request.page > 1).then(|| request.href((request.page - 1).min(pages))),
        next: (request.page < pages).then(|| request.href(request.page + 1)),
    }
}

/// A run as the list shows it.
fn row(run: &RunSummary) -> RunRow {
    let state = if run.unfinished {
        " (unfinished)"
    } else if run.partial {
        " (interrupted)"
    } else {
        ""
    };
    RunRow {
        id: run.id,
        started: utc_timestamp(run.started_unix_ms),
        kind: run.kind.clone(),
        name: run.name.clone(),
        target: run.target.clone(),
        host: run.hostname.clone(),
        steps: run.steps,
        result: format!("{}{state}", run.summary),
    }
}

/// A page of one section (a run of any kind, a comparison).
pub(crate) fn section_page(
    title: &str,
    current: NavItem,
    section: Section,
) -> Result<String, DashboardError> {
    Ok(dashboard::section_page(title, current, section)?)
}

/// The compare picker offering `runs`, saying why the chosen two could not be compared.
pub(crate) fn compare_picker(
    baseline: Option<i64>,
    candidate: Option<i64>,
    runs: &[RunSummary],
    problem: Option<String>,
) -> Result<String, DashboardError> {
    Ok(dashboard::compare_picker_page(&ComparePicker {
        baseline,
        candidate,
        runs: runs.iter().map(row).collect(),
        problem,
    })?)
}

/// The page of an error, titled with its HTTP status.
pub(crate) fn error_page(
    status: u16,
    reason: &str,
    message: &str,
) -> Result<String, DashboardError> {
    Ok(dashboard::message_page(
        &format!("{status} {reason}"),
        message,
    )?)
}
