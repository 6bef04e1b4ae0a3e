//! From what the history holds to the page's HTML (temporary plain pages until the html
//! crate's dashboard templates are merged).

use crate::list::ListRequest;
use crate::DashboardError;
use diskmeter_history::{RunFacets, RunPage, RunSummary};
use diskmeter_report::format::utc_timestamp;
use diskmeter_views::Section;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title></head><body>\
         <nav><a href=\"/\">Runs</a> <a href=\"/compare\">Compare</a></nav>{body}</body></html>\n",
        escape(title)
    )
}

/// The run list page.
pub(crate) fn run_list(
    request: &ListRequest,
    listing: Option<(&RunPage, &RunFacets)>,
    live: &str,
    db: &str,
) -> Result<String, DashboardError> {
    let mut body = format!("<h1>Runs</h1>{live}");
    if request.filtered() {
        body.push_str("<p>Filtered.</p>");
    }
    let Some((page, _facets)) = listing else {
        body.push_str(&format!("<p>No history at {} yet.</p>", escape(db)));
        return Ok(page_html("diskmeter: runs", &body));
    };
    body.push_str("<form method=\"get\" action=\"/compare\"><table><tr><th>A</th><th>B</th><th>id</th><th>started</th><th>kind</th><th>name</th><th>target</th><th>host</th><th>result</th></tr>");
    for run in &page.runs {
        body.push_str(&row(run));
    }
    body.push_str("</table><button type=\"submit\">Compare</button></form>");
    body.push_str(&format!(
        "<p>{} runs; page {}; <a href=\"{}\">next</a></p>",
        page.total,
        request.page,
        escape(&request.href(request.page + 1))
    ));
    Ok(page_html("diskmeter: runs", &body))
}

fn page_html(title: &str, body: &str) -> String {
    page(title, body)
}

fn row(run: &RunSummary) -> String {
    format!(
        "<tr><td><input type=\"radio\" name=\"a\" value=\"{id}\"></td><td><input type=\"radio\" name=\"b\" value=\"{id}\"></td>\
         <td><a href=\"/run/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        utc_timestamp(run.started_unix_ms),
        escape(&run.kind),
        escape(&run.name),
        escape(&run.target),
        escape(&run.hostname),
        escape(&run.summary),
        id = run.id
    )
}

/// A page of one section (a run, a comparison).
pub(crate) fn section_page(title: &str, section: Section) -> Result<String, DashboardError> {
    Ok(page(
        title,
        &format!(
            "<section id=\"{}\"><h1>{}</h1></section>",
            escape(&section.anchor),
            escape(&section.title)
        ),
    ))
}

/// The compare picker.
pub(crate) fn compare_picker(
    a: Option<i64>,
    b: Option<i64>,
    recent: &[RunSummary],
) -> Result<String, DashboardError> {
    let _ = (a, b);
    let mut body =
        String::from("<h1>Compare two runs</h1><form method=\"get\" action=\"/compare\"><table>");
    for run in recent {
        body.push_str(&row(run));
    }
    body.push_str("</table><button type=\"submit\">Compare</button></form>");
    Ok(page("diskmeter: compare", &body))
}

/// The error page.
pub(crate) fn error_page(status: u16, message: &str) -> Result<String, DashboardError> {
    Ok(page(
        &format!("diskmeter: {status}"),
        &format!("<h1>{status}</h1><p>{}</p>", escape(message)),
    ))
}
