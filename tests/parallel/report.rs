//! `diskmeter report` through the real binary: a run saved with --db (null engine) becomes
//! one self-contained HTML file (nothing fetched from the network or another file) holding
//! the run's name and a chart element for every chart spec; several IDs and --compare make
//! one document with a table of contents; missing runs and bad arguments are errors.

use crate::common;

use common::{diskmeter, ok, TestDir};
use serde_json::Value;

/// A short null-engine run named `name`, saved in `h.db`.
fn saved_run(dir: &TestDir, name: &str) {
    ok(diskmeter(
        dir,
        &[
            "run",
            "--quiet",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=8m",
            "--runtime=2",
            "--time_based",
            &format!("--name={name}"),
            "--db",
            "h.db",
        ],
    ));
}

/// The page without its `<script>` elements: the markup the browser resolves addresses in.
fn markup(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("</script>")
            .expect("every script is closed");
        rest = &rest[start + end + "</script>".len()..];
    }
    out + rest
}

/// Asserts that nothing in the page points outside it: no src attribute, no link but to
/// an anchor inside the page or inline data (the empty icon that stops a browser asking
/// for /favicon.ico), no stylesheet import or url().
fn assert_self_contained(html: &str) {
    let markup = markup(html);
    assert!(!html.contains("src="), "a src attribute");
    assert!(
        !html.contains("@import") && !html.contains("url("),
        "a style fetches"
    );
    for (at, _) in markup.match_indices("href=") {
        let target = &markup[at + 5..];
        assert!(
            target.starts_with("\"#") || target.starts_with("\"data:"),
            "a link leaves the page: {}",
            &markup[at..at + 60]
        );
    }
    assert!(!markup.contains("http://") && !markup.contains("https://"));
}

/// The chart specs the page carries.
fn chart_specs(html: &str) -> Vec<Value> {
    let tag = r#"<script type="application/json" id="chart-data">"#;
    let start = html.find(tag).expect("chart data") + tag.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str::<Value>(&html[start..end])
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// Asserts `data-charts-expected` is the number of specs and each has its chart element.
fn assert_a_chart_element_per_spec(html: &str) {
    let specs = chart_specs(html);
    assert!(html.contains(&format!(r#"data-charts-expected="{}""#, specs.len())));
    assert_eq!(
        markup(html).matches(r#"<div class="chart" "#).count(),
        specs.len()
    );
    for spec in &specs {
        let div = format!(
            r#"<div class="chart" id="{}" data-kind="{}">"#,
            spec["id"].as_str().unwrap(),
            spec["kind"].as_str().unwrap()
        );
        assert!(html.contains(&div), "{div}");
    }
}

#[test]
fn report_last_writes_one_self_contained_file_with_the_run_and_a_chart_element_per_spec() {
    let dir = TestDir::new();
    saved_run(&dir, "report-me");
    let stdout = ok(diskmeter(
        &dir,
        &["report", "last", "--db", "h.db", "-o", "r.html"],
    ));
    assert_eq!(stdout, "", "the report goes to the file only");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"), "{}", &html[..40]);
    assert!(html.contains("report-me"));
    assert!(html.contains(r#"<section id="run-1" class="section-run">"#));
    assert!(html.contains("var uPlot="), "uPlot is inlined");
    assert!(html.contains("diskmeterCharts"), "charts.js is inlined");
    assert_self_contained(&html);
    assert_a_chart_element_per_spec(&html);
}

#[test]
fn without_output_the_report_goes_to_stdout_and_output_is_the_long_form_of_o() {
    let dir = TestDir::new();
    saved_run(&dir, "to-stdout");
    let html = ok(diskmeter(&dir, &["report", "1", "--db", "h.db"]));
    assert!(html.starts_with("<!doctype html>") && html.contains("to-stdout"));
    ok(diskmeter(
        &dir,
        &["report", "1", "--db", "h.db", "--output", "long.html"],
    ));
    let file = std::fs::read_to_string(dir.path().join("long.html")).unwrap();
    assert!(file.contains("to-stdout"));
}

#[test]
fn several_ids_and_a_comparison_make_one_document_with_a_table_of_contents() {
    let dir = TestDir::new();
    // A comparison matches steps by name: the same job twice.
    saved_run(&dir, "same-job");
    saved_run(&dir, "same-job");
    ok(diskmeter(
        &dir,
        &[
            "report",
            "1",
            "last",
            "--compare",
            "1",
            "2",
            "--db",
            "h.db",
            "-o",
            "both.html",
        ],
    ));
    let html = std::fs::read_to_string(dir.path().join("both.html")).unwrap();
    assert!(html.contains("same-job"));
    let toc = &html[html.find(r#"<nav class="toc""#).unwrap()..];
    let toc = &toc[..toc.find("</nav>").unwrap()];
    assert!(
        toc.contains(r##"href="#run-1""##) && toc.contains(r##"href="#run-2""##),
        "{toc}"
    );
    assert_eq!(html.matches(r#"class="section-compare""#).count(), 1);
    // The comparison is the first section: the verdict the runs explain.
    let compare_at = html.find(r#"class="section-compare""#).unwrap();
    assert!(compare_at < html.find(r#"<section id="run-1""#).unwrap());
    assert_self_contained(&html);
    assert_a_chart_element_per_spec(&html);
}

#[test]
fn the_same_run_twice_is_shown_once() {
    let dir = TestDir::new();
    saved_run(&dir, "only-once");
    let html = ok(diskmeter(&dir, &["report", "1", "last", "--db", "h.db"]));
    assert_eq!(html.matches(r#"<section id="run-1" "#).count(), 1);
}

#[test]
fn a_missing_run_fails_naming_it_and_bad_arguments_are_usage_errors() {
    let dir = TestDir::new();
    saved_run(&dir, "exists");
    let missing = diskmeter(&dir, &["report", "7", "--db", "h.db", "-o", "r.html"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no run 7"));
    assert!(
        !dir.path().join("r.html").exists(),
        "no file for a failed report"
    );
    for args in [
        &["report", "--db", "h.db"][..],
        &["report", "seven", "--db", "h.db"],
        &["report", "1", "--noise-floor", "3", "--db", "h.db"],
        &["report", "--compare", "1", "--db", "h.db"],
    ] {
        assert_eq!(diskmeter(&dir, args).status.code(), Some(2), "{args:?}");
    }
}

/// Issue 32: `report --png FILE` draws the first result's headline cards: a valid PNG of the
/// cards' size (1200 x 220 with no verdict), with text and card panels drawn on white.
#[test]
fn issue32_report_png_draws_the_headline_cards() {
    let dir = TestDir::new();
    saved_run(&dir, "png");
    ok(diskmeter(
        &dir,
        &[
            "report", "last", "--png", "h.png", "-o", "r.html", "--db", "h.db",
        ],
    ));
    let decoder = png::Decoder::new(std::fs::File::open(dir.path().join("h.png")).unwrap());
    let mut reader = decoder.read_info().expect("a valid PNG");
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).expect("a PNG frame");
    assert_eq!((info.width, info.height), (1200, 220));
    let pixels: Vec<&[u8]> = buffer[..info.buffer_size()].chunks(3).collect();
    let ink = pixels
        .iter()
        .filter(|p| p.iter().all(|&c| c < 0x60))
        .count();
    let panel = pixels.iter().filter(|p| **p == [0xf6, 0xf8, 0xfa]).count();
    assert!(ink > 2_000, "{ink} dark pixels: the figures were not drawn");
    assert!(
        panel > 100_000,
        "{panel} panel pixels: the cards were not drawn"
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(
        html.contains("class=\"card-value\""),
        "the report has the cards too"
    );
}
