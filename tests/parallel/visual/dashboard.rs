//! `diskmeter serve` read in a real headless Chromium (tests/common/browser.rs): the run list
//! and the run, suite, sweep, capture and compare pages render with no console error and
//! every chart drawn, ask nothing of any other host, and a run started while the list is open
//! appears on it live and grows. With `DISKMETER_SCREENSHOTS=DIR` each page is saved there as
//! `dashboard-*.png`.

use super::history::history;
use crate::common::browser::{Chromium, Page, PAGE_TIMEOUT};
use crate::common::readable::assert_page_latencies_readable;
use crate::common::serve::Server;
use std::process::Stdio;
use std::time::Duration;

/// Opens `path` of the server and checks what every page must do: no errors, every chart it
/// promises drawn, no request to another host. Returns the page and its charts' kinds.
fn open_page(chromium: &Chromium, server: &Server, path: &str) -> (Page, Vec<String>) {
    let page = chromium.open(&server.url(path));
    let charts = page.assert_charts_drawn_cleanly();
    let elsewhere: Vec<String> = page
        .outside_requests()
        .into_iter()
        .filter(|url| !url.starts_with(&server.url))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "{path} asks other hosts: {elsewhere:#?}"
    );
    // A screenshot into the test's folder, and every latency on the page readable.
    let shot: String = path
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    assert_page_latencies_readable(&page, &history().dir, &format!("dashboard{shot}.png"));
    (page, charts.into_iter().map(|c| c.kind).collect())
}

fn text(page: &Page) -> String {
    page.eval("document.body.innerText")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_run_list_links_every_run_and_filters_by_kind() {
    let Some(chromium) = Chromium::start("the_run_list_links_every_run") else {
        return;
    };
    let history = history();
    let server = Server::start(&history.db, &["--port", "0"]);
    let (page, _) = open_page(chromium, &server, "/");
    for id in [
        history.run,
        history.candidate,
        history.suite,
        history.sweep,
        history.capture,
    ] {
        let linked = page.eval(&format!(
            "document.querySelector('a[href=\"/run/{id}\"]') !== null"
        ));
        assert_eq!(linked, serde_json::Value::Bool(true), "no link to run {id}");
    }
    page.screenshot_for_docs("dashboard-runs.png");

    let (page, _) = open_page(chromium, &server, "/?kind=suite");
    let suite = format!("a[href=\"/run/{}\"]", history.suite);
    let run = format!("a[href=\"/run/{}\"]", history.run);
    let shown = page.eval(&format!(
        "[document.querySelector('{suite}') !== null, document.querySelector('{run}') !== null]"
    ));
    assert_eq!(shown, serde_json::json!([true, false]), "kind=suite");
}

#[test]
fn every_kind_of_run_has_a_page_with_its_charts() {
    let Some(chromium) = Chromium::start("every_kind_of_run_has_a_page") else {
        return;
    };
    let history = history();
    let server = Server::start(&history.db, &["--port", "0"]);
    for (id, kind, chart, screenshot) in [
        (history.run, "run", "iops", "dashboard-run.png"),
        (history.suite, "suite", "suite-iops", "dashboard-suite.png"),
        (history.sweep, "sweep", "iops-vs-qd", "dashboard-sweep.png"),
        (
            history.capture,
            "capture",
            "capture-iops",
            "dashboard-capture.png",
        ),
    ] {
        let (page, kinds) = open_page(chromium, &server, &format!("/run/{id}"));
        let section = page.eval(&format!(
            "document.querySelector('section.section-{kind}') !== null"
        ));
        assert_eq!(
            section,
            serde_json::Value::Bool(true),
            "/run/{id}: no {kind}"
        );
        assert!(
            kinds.iter().any(|k| k == chart),
            "/run/{id}: no {chart} chart among {kinds:?}"
        );
        page.screenshot_for_docs(screenshot);
    }
}

#[test]
fn the_compare_page_shows_both_runs_with_verdicts() {
    let Some(chromium) = Chromium::start("the_compare_page_shows_both_runs") else {
        return;
    };
    let history = history();
    let server = Server::start(&history.db, &["--port", "0"]);
    let path = format!("/compare?a={}&b={}", history.run, history.candidate);
    let (page, kinds) = open_page(chromium, &server, &path);
    assert!(kinds.iter().any(|k| k == "compare"), "{kinds:?}");
    let section = page.eval("document.querySelector('section.section-compare') !== null");
    assert_eq!(section, serde_json::Value::Bool(true));
    page.screenshot_for_docs("dashboard-compare.png");
}

#[test]
fn a_missing_run_is_a_page_that_says_so() {
    let Some(chromium) = Chromium::start("a_missing_run_is_a_page") else {
        return;
    };
    let server = Server::start(&history().db, &["--port", "0"]);
    let page = chromium.open(&server.url("/run/999999"));
    assert!(text(&page).contains("999999"), "{}", text(&page));
}

#[test]
fn a_run_started_while_the_list_is_open_appears_live_and_grows() {
    let Some(chromium) = Chromium::start("a_run_started_while_the_list_is_open") else {
        return;
    };
    // A history of its own: the other tests' pages do not see this run.
    let dir = crate::common::TestDir::new();
    let db = dir.path().join("live.db");
    let db_arg = db.to_str().unwrap();
    let null_run = |runtime: &str, name: &str| {
        crate::common::process()
            .current_dir(dir.path())
            .args(["run", "--quiet", "--ioengine=null", "--size=16m"])
            .args([format!("--runtime={runtime}"), format!("--name={name}")])
            .args(["--time_based", "--db", db_arg])
            .stdout(Stdio::null())
            .spawn()
            .expect("start diskmeter run")
    };
    // The server needs a history to open.
    let first = null_run("1", "before").wait().expect("the first run");
    assert!(first.success());
    let server = Server::start(&db, &["--port", "0"]);
    let page = chromium.open(&server.url("/"));
    assert_eq!(
        page.eval("document.querySelectorAll('.live-run').length"),
        0
    );

    let mut live = null_run("4", "live");
    let appeared = page.wait_until("document.querySelector('#live .live-run')", PAGE_TIMEOUT);
    assert!(
        appeared,
        "no .live-run appeared; errors: {:#?}",
        page.errors()
    );
    let points = || {
        page.eval("Number(document.querySelector('#live .live-run').dataset.points)")
            .as_u64()
            .unwrap_or(0)
    };
    let seen = points();
    let grew = page.wait_until(
        &format!("Number(document.querySelector('#live .live-run').dataset.points) > {seen}"),
        Duration::from_secs(10),
    );
    assert!(grew, "data-points stayed at {seen}");
    let drawn = page.pixels_of("#live .live-run");
    assert!(
        drawn.iter().any(|c| c.drawn_pixels > 0),
        "the live chart drew nothing: {drawn:?}"
    );
    if std::env::var_os(crate::common::browser::SCREENSHOTS_ENV).is_some() {
        // A picture of a few seconds rather than of the first (not asserted: the run may end).
        page.wait_until(
            "Number(document.querySelector('#live .live-run').dataset.points) >= 3",
            Duration::from_secs(5),
        );
        page.screenshot_for_docs("dashboard-live.png");
    }

    assert!(live.wait().expect("the live run").success());
    let id = super::history::last_id(dir.path(), db_arg);
    let linked = page.wait_until(
        &format!("document.querySelector('#live .live-run a[href=\"/run/{id}\"]')"),
        PAGE_TIMEOUT,
    );
    assert!(linked, "the finished live run does not link to /run/{id}");
    let errors = page.errors();
    assert!(errors.is_empty(), "{errors:#?}");
}
