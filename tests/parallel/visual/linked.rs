//! The loop linked (issue 32, item 4): a real capture, the plan made from it, its replay and
//! the check of the replay ([`super::history::Loop`]) as one report
//! (`diskmeter report CAPTURE_ID --with-replays`) and as dashboard pages, read in headless
//! Chromium: the report's sections come in the loop's order, each linking to the next, its
//! charts drawn, its screenshot taken (into the test's folder; `DISKMETER_SCREENSHOTS=DIR`
//! saves `DIR/report-loop.png` for the docs); the replay's page links its capture and shows
//! the check's verdict with its evidence; the capture's page links the rest. And `compare`
//! refuses a capture and a run, saying what to do instead.

use super::history::history;
use crate::common::browser::{Chromium, Page};
use crate::common::readable::assert_page_latencies_readable;
use crate::common::serve::Server;
use serde_json::{json, Value};

/// The `id`s of the page's top-level sections (the report's), in order.
fn top_sections(page: &Page) -> Vec<String> {
    let ids = page.eval("[...document.querySelectorAll('main > section[id], body > section[id], section[id]')].filter(s => !s.parentElement.closest('section')).map(s => s.id)");
    serde_json::from_value(ids).unwrap_or_default()
}

/// The links of the page whose `href` has no element to land on: `#X` with no `id="X"`.
fn dead_anchors(page: &Page) -> Value {
    page.eval(
        "[...document.querySelectorAll('a[href^=\"#\"]')]\
           .map(a => a.getAttribute('href').slice(1))\
           .filter(id => !document.getElementById(id))",
    )
}

/// Whether the element with `id` has a link to `href`.
fn links(page: &Page, id: &str, href: &str) -> bool {
    page.eval(&format!(
        "document.getElementById('{id}')?.querySelector('a[href=\"{href}\"]') != null"
    )) == Value::Bool(true)
}

#[test]
fn a_captures_report_with_replays_has_the_loop_in_order_each_linked_to_the_next() {
    let Some(chromium) = Chromium::start("a_captures_report_with_replays") else {
        return;
    };
    let history = history();
    let l = &history.linked;
    let file = history.dir.join("loop.html");
    super::history::diskmeter(
        &history.dir,
        &[
            "report",
            &l.capture.to_string(),
            "--with-replays",
            "-o",
            file.to_str().unwrap(),
            "--db",
            history.db_arg(),
        ],
    );
    let url = format!("file://{}", file.display());
    let page = chromium.open(&url);
    let charts = page.assert_charts_drawn_cleanly();
    assert!(
        charts.iter().any(|c| c.kind == "capture-iops") && charts.iter().any(|c| c.kind == "iops"),
        "the capture's and the replay's charts: {charts:?}"
    );
    assert_eq!(page.outside_requests(), Vec::<String>::new());
    // capture -> (its requirements, a child) -> plan -> replay -> check.
    let (capture, requirements) = (
        format!("run-{}", l.capture),
        format!("run-{}-requirements", l.capture),
    );
    let (plan, replay, check) = (
        format!("plan-{}", l.plan),
        format!("run-{}", l.replay),
        format!("check-{}", l.check),
    );
    let order = top_sections(&page);
    let position = |id: &str| {
        order
            .iter()
            .position(|s| s == id)
            .unwrap_or_else(|| panic!("no section {id} in {order:?}"))
    };
    assert!(
        position(&capture) < position(&plan)
            && position(&plan) < position(&replay)
            && position(&replay) < position(&check),
        "the loop's order: {order:?}"
    );
    assert_eq!(
        page.eval(&format!("document.getElementById('{requirements}')?.closest('section:not([id=\"{requirements}\"])')?.id")),
        json!(capture),
        "the requirements are the capture's"
    );
    // Each section links to the next ones, and every link lands.
    for href in [&requirements, &plan, &replay, &check] {
        assert!(
            links(&page, &capture, &format!("#{href}")),
            "the capture links #{href}"
        );
    }
    assert!(
        links(&page, &replay, &format!("#{capture}")),
        "the replay links its capture"
    );
    assert!(
        links(&page, &replay, &format!("#{check}")),
        "the replay links its check"
    );
    assert!(
        links(&page, &check, &format!("#{replay}")),
        "the check links its run"
    );
    assert_eq!(dead_anchors(&page), json!([]), "links that land nowhere");
    // The verdict with its evidence, as `check` prints it.
    let text = page
        .eval(&format!("document.getElementById('{check}').innerText"))
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains(&format!("capture {} p50", l.capture)) && text.contains("measured"),
        "the check's verdicts and evidence: {text}"
    );
    // The acceptance's screenshot, into the test's folder (and the docs' with the variable).
    let png = history.dir.join("report-loop.png");
    page.screenshot(&png, 6000);
    // Every latency the loop prints (the checklist's, the plan's, the replay's, the check's
    // evidence) reads in its own unit.
    assert_page_latencies_readable(&page, &history.dir, "report-loop-readable.png");
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "{} is {size} bytes", png.display());
    page.screenshot_for_docs("report-loop.png");
}

#[test]
fn the_dashboards_replay_page_links_its_capture_and_shows_the_checks_verdict() {
    let Some(chromium) = Chromium::start("the_dashboards_replay_page_links") else {
        return;
    };
    let history = history();
    let l = &history.linked;
    let server = Server::start(&history.db, &["--port", "0"]);
    let page = chromium.open(&server.url(&format!("/run/{}", l.replay)));
    page.assert_charts_drawn_cleanly();
    let replay = format!("run-{}", l.replay);
    assert!(
        links(&page, &replay, &format!("/run/{}", l.capture)),
        "the replay links its capture"
    );
    let check = format!("check-{}", l.check);
    let verdict = page
        .eval(&format!(
            "document.getElementById('{check}')?.innerText ?? ''"
        ))
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        ["met", "within noise", "missed"]
            .iter()
            .any(|v| verdict.contains(&format!("Check {}: {v}", l.check)))
            && verdict.contains("measured"),
        "the check's verdict with its evidence on the replay's page: {verdict}"
    );
    page.screenshot_for_docs("dashboard-replay.png");
    assert_page_latencies_readable(&page, &history.dir, "dashboard-replay.png");

    // The capture's page: its requirements, plan, replay and check, linked.
    let page = chromium.open(&server.url(&format!("/run/{}", l.capture)));
    page.assert_charts_drawn_cleanly();
    assert_page_latencies_readable(&page, &history.dir, "dashboard-capture.png");
    let capture = format!("run-{}", l.capture);
    for href in [
        format!("#run-{}-requirements", l.capture),
        format!("#plan-{}", l.plan),
        format!("/run/{}", l.replay),
        format!("/run/{}#check-{}", l.replay, l.check),
    ] {
        assert!(
            links(&page, &capture, &href),
            "the capture's page links {href}"
        );
    }
    assert_eq!(dead_anchors(&page), json!([]), "links that land nowhere");

    // The Compare page refuses a capture and a run the same way as `compare`, with the
    // picker and the reason.
    let path = format!("/compare?a={}&b={}", l.capture, history.run);
    let page = chromium.open(&server.url(&path));
    let shown = page.eval("document.body.innerText");
    let shown = shown.as_str().unwrap_or_default();
    assert!(
        shown.contains(&format!("run {} is a capture", l.capture))
            && shown.contains(&format!(
                "diskmeter check {} --capture {}",
                history.run, l.capture
            )),
        "{shown}"
    );
    assert_eq!(
        page.eval("document.querySelector('section.section-compare') === null"),
        Value::Bool(true),
        "no comparison of a capture"
    );
}

#[test]
fn compare_refuses_a_capture_and_a_run_and_says_what_to_do_instead() {
    let history = history();
    let (capture, run) = (history.linked.capture.to_string(), history.run.to_string());
    for pair in [[&capture, &run], [&run, &capture]] {
        let out = crate::common::diskmeter(
            &history.dir,
            &["compare", pair[0], pair[1], "--db", history.db_arg()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "a usage error: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "no table: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        for words in [
            format!("run {capture} is a capture"),
            "nothing to compare".to_string(),
            format!("diskmeter replay {capture}"),
            format!("diskmeter check {run} --capture {capture}"),
        ] {
            assert!(stderr.contains(&words), "'{words}' in: {stderr}");
        }
    }
    // The report's comparison refuses it the same way.
    let file = history.dir.join("refused.html");
    let out = crate::common::diskmeter(
        &history.dir,
        &[
            "report",
            "--compare",
            &capture,
            &run,
            "-o",
            file.to_str().unwrap(),
            "--db",
            history.db_arg(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("is a capture"),
        "{stderr}"
    );
    assert!(!stderr.contains("0 regressions"), "{stderr}");
}
