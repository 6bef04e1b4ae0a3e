//! The pages: the run list (filters, paging, the compare picker, the runs-in-progress slot),
//! a run of any kind, a comparison, and the error pages. Each handler reads the history on a
//! blocking thread ([`AppState::read`]) and renders through [`crate::render`].

use crate::list::{ListQuery, RUNS_PER_PAGE};
use crate::{live, render, AppState, DashboardError};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use diskmeter_analysis::compare::CompareOptions;
use diskmeter_history::{HistoryError, HistoryStore};
use diskmeter_html::NavItem;
use diskmeter_views::{Item, ViewError};
use serde::Deserialize;

/// `/`: the run list.
pub(crate) async fn run_list(
    State(state): State<AppState>,
    Query(query): Query<ListQuery>,
) -> Response {
    let db = state.db().display().to_string();
    let page = state
        .read(move |store| {
            let request = query.to_request()?;
            let live = live::runs_in_progress(store)?;
            let Some(store) = store else {
                return render::run_list(&request, None, live, &db);
            };
            let page = store.list_page(&request.page_query(RUNS_PER_PAGE))?;
            let facets = store.facets()?;
            render::run_list(&request, Some((&page, &facets)), live, &db)
        })
        .await;
    respond(page)
}

/// `/run/ID`: one run of any kind (run, suite, sweep, capture...).
pub(crate) async fn run_page(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return respond(Err(DashboardError::NotFound(format!(
            "'{id}' is not a run id"
        ))));
    };
    let page = state
        .read(move |store| {
            let store = store.ok_or(diskmeter_history::HistoryError::NoSuchRun(id))?;
            let section = diskmeter_views::section(store, Item::Run(id))?;
            let title = format!("Run {id}");
            render::section_page(&title, NavItem::None, section)
        })
        .await;
    respond(page)
}

/// The query of `/compare`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CompareQuery {
    /// The baseline run.
    a: Option<String>,
    /// The candidate run.
    b: Option<String>,
}

/// `/compare?a=ID&b=ID`: run B compared with run A; without both, the picker.
pub(crate) async fn compare_page(
    State(state): State<AppState>,
    Query(query): Query<CompareQuery>,
) -> Response {
    let id = |text: &Option<String>, which: &str| -> Result<Option<i64>, DashboardError> {
        match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => text
                .parse()
                .map(Some)
                .map_err(|_| DashboardError::BadRequest(format!("{which}={text} is not a run id"))),
        }
    };
    let ids = id(&query.a, "a").and_then(|a| Ok((a, id(&query.b, "b")?)));
    let (baseline, candidate) = match ids {
        Ok(ids) => ids,
        Err(e) => return respond(Err(e)),
    };
    let page = state
        .read(move |store| match (store, baseline, candidate) {
            (Some(store), Some(baseline), Some(candidate)) => {
                let item = Item::Compare {
                    baseline,
                    candidate,
                    options: CompareOptions::default(),
                };
                match diskmeter_views::section(store, item) {
                    Ok(section) => {
                        let title = format!("Run {candidate} compared with run {baseline}");
                        render::section_page(&title, NavItem::Compare, section)
                            .map(|html| (StatusCode::OK, html))
                    }
                    // Two runs that cannot be compared: the picker again, saying why.
                    Err(problem @ ViewError::Unusable { .. }) => {
                        let chosen = (Some(baseline), Some(candidate));
                        picker(Some(store), chosen, Some(problem.to_string()))
                            .map(|html| (StatusCode::UNPROCESSABLE_ENTITY, html))
                    }
                    Err(error) => Err(error.into()),
                }
            }
            (store, baseline, candidate) => {
                picker(store, (baseline, candidate), None).map(|html| (StatusCode::OK, html))
            }
        })
        .await;
    match page {
        Ok((status, html)) => (status, Html(html)).into_response(),
        Err(error) => respond(Err(error)),
    }
}

/// The compare picker: the newest runs, and the runs already chosen if they are older.
fn picker(
    store: Option<&HistoryStore>,
    (baseline, candidate): (Option<i64>, Option<i64>),
    problem: Option<String>,
) -> Result<String, DashboardError> {
    let mut runs = match store {
        Some(store) => store.list(&diskmeter_history::RunFilter {
            limit: Some(RUNS_PER_PAGE),
            ..Default::default()
        })?,
        None => Vec::new(),
    };
    if let Some(store) = store {
        for id in [baseline, candidate].into_iter().flatten() {
            if !runs.iter().any(|run| run.id == id) {
                match store.load(id) {
                    Ok(run) => runs.push(run.summary),
                    Err(HistoryError::NoSuchRun(_)) => {}
                    Err(error) => return Err(error.into()),
                }
            }
        }
    }
    render::compare_picker(baseline, candidate, &runs, problem)
}

/// Any other path.
pub(crate) async fn not_found() -> Response {
    respond(Err(DashboardError::NotFound(
        "no such page: the dashboard has the run list (/), runs (/run/ID) and comparisons \
         (/compare)"
            .to_string(),
    )))
}

/// The answer to a request that names another site as its `Host` (see `guard.rs`).
pub(crate) fn forbidden_host(host: &str) -> Response {
    respond(Err(DashboardError::ForeignHost(host.to_string())))
}

/// A page, or the error page with the status the error deserves.
fn respond(page: Result<String, DashboardError>) -> Response {
    match page {
        Ok(html) => Html(html).into_response(),
        Err(error) => {
            let status = status_of(&error);
            let reason = status.canonical_reason().unwrap_or("Error");
            let html = render::error_page(status.as_u16(), reason, &error.to_string())
                .unwrap_or_else(|_| {
                    // The message page itself failed: a bare page still says the status.
                    format!("<!doctype html><html><title>{status}</title><p>{status}</p></html>\n")
                });
            (status, Html(html)).into_response()
        }
    }
}

/// 404 for what is not there, 400 for a malformed query, 500 for the rest.
fn status_of(error: &DashboardError) -> StatusCode {
    use diskmeter_history::HistoryError::NoSuchRun;
    use diskmeter_views::ViewError;
    match error {
        DashboardError::NotFound(_)
        | DashboardError::History(NoSuchRun(_))
        | DashboardError::View(ViewError::History(NoSuchRun(_))) => StatusCode::NOT_FOUND,
        DashboardError::BadRequest(_) => StatusCode::BAD_REQUEST,
        DashboardError::ForeignHost(_) => StatusCode::FORBIDDEN,
        DashboardError::View(ViewError::Unusable { .. }) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}
