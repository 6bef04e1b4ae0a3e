//! The browser tests' helper (tests/common/browser.rs) checked on hand-written pages: it must
//! see a chart's drawn pixels (canvas and SVG), a console error, an uncaught exception and a
//! request to the network, or the report and dashboard tests built on it would prove nothing.

use crate::common;

use common::browser::Chromium;
use common::TestDir;
use std::path::Path;

/// Writes `html` as `name` in `dir` and returns its file:// URL.
fn page(dir: &Path, name: &str, html: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, html).expect("write the page");
    format!("file://{}", path.display())
}

/// A page that keeps the charts contract: two charts, one canvas drawn by inline script, one
/// SVG, and the drawn marker set once both are there.
const CHARTS_PAGE: &str = r##"<!doctype html>
<html data-charts-expected="2"><head><meta charset="utf-8"><title>charts</title></head>
<body>
<div class="chart" id="run-1-iops" data-kind="iops"></div>
<div class="chart" id="run-1-latency" data-kind="latency">
  <svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">
    <polyline points="0,50 40,20 80,30 120,5" fill="none" stroke="#1f77b4" stroke-width="3"/>
  </svg>
</div>
<script>
  setTimeout(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 200; canvas.height = 100;
    const context = canvas.getContext('2d');
    context.strokeStyle = '#d62728'; context.lineWidth = 4;
    context.beginPath(); context.moveTo(0, 90); context.lineTo(200, 10); context.stroke();
    document.getElementById('run-1-iops').appendChild(canvas);
    document.documentElement.dataset.chartsDrawn = '2';
  }, 100);
</script>
</body></html>"##;

#[test]
fn the_helper_waits_for_the_charts_and_counts_what_each_drew() {
    let Some(chromium) = Chromium::start("the_helper_waits_for_the_charts") else {
        return;
    };
    let dir = TestDir::new();
    let url = page(dir.path(), "charts.html", CHARTS_PAGE);
    let page = chromium.open(&url);
    assert_eq!(page.wait_for_charts(), 2);
    // Before the pixels are counted: that rasterises the SVG through a data: URL.
    assert_eq!(page.requests(), [url.as_str()], "only the document itself");
    let charts = page.assert_charts_drawn_cleanly();
    let ids: Vec<(&str, &str)> = charts
        .iter()
        .map(|c| (c.id.as_str(), c.kind.as_str()))
        .collect();
    assert_eq!(ids, [("run-1-iops", "iops"), ("run-1-latency", "latency")]);
    let (canvas, svg) = (&charts[0], &charts[1]);
    assert_eq!((canvas.canvases, canvas.svgs), (1, 0), "{canvas:?}");
    assert_eq!((svg.canvases, svg.svgs), (0, 1), "{svg:?}");
    // A 4 px line across a 200x100 canvas, a 3 px polyline across 120x60: far from empty,
    // far from full.
    assert!((300..20_000).contains(&canvas.drawn_pixels), "{canvas:?}");
    assert!((150..7_200).contains(&svg.drawn_pixels), "{svg:?}");
    assert!(page.outside_requests().is_empty(), "{:#?}", page.requests());

    let png = dir.path().join("charts.png");
    page.screenshot(&png, 1000);
    let bytes = std::fs::read(&png).expect("the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
}

#[test]
fn the_helper_sees_a_chart_that_drew_nothing() {
    let Some(chromium) = Chromium::start("the_helper_sees_a_chart_that_drew_nothing") else {
        return;
    };
    let dir = TestDir::new();
    let url = page(
        dir.path(),
        "blank.html",
        r#"<!doctype html><html data-charts-expected="1" data-charts-drawn="1"><body>
        <div class="chart" id="blank" data-kind="iops"><canvas width="50" height="50"></canvas></div>
        </body></html>"#,
    );
    let page = chromium.open(&url);
    assert_eq!(page.wait_for_charts(), 1);
    let charts = page.chart_pixels();
    assert_eq!(charts.len(), 1);
    assert_eq!(charts[0].drawn_pixels, 0, "{charts:?}");
}

#[test]
fn the_helper_sees_console_errors_and_uncaught_exceptions() {
    let Some(chromium) = Chromium::start("the_helper_sees_console_errors") else {
        return;
    };
    let dir = TestDir::new();
    let url = page(
        dir.path(),
        "errors.html",
        r#"<!doctype html><html><body><p>errors</p>
        <script>console.log('not an error'); console.error('deliberate', 42);</script>
        <script>null.chart();</script>
        </body></html>"#,
    );
    let page = chromium.open(&url);
    let errors = page.errors();
    assert!(
        errors.iter().any(|e| e.contains("deliberate 42")),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("uncaught exception") && e.contains("null")),
        "{errors:#?}"
    );
    assert!(
        !errors.iter().any(|e| e.contains("not an error")),
        "{errors:#?}"
    );
}

#[test]
fn the_helper_sees_every_request_a_page_makes() {
    let Some(chromium) = Chromium::start("the_helper_sees_every_request") else {
        return;
    };
    let dir = TestDir::new();
    let url = page(
        dir.path(),
        "request.html",
        r#"<!doctype html><html><body>
        <img src="http://example.invalid/x.png" alt="">
        </body></html>"#,
    );
    let page = chromium.open(&url);
    assert_eq!(page.requests()[0], url, "the document first");
    assert_eq!(
        page.outside_requests(),
        ["http://example.invalid/x.png"],
        "{:#?}",
        page.requests()
    );
    // The failed load is an error the page shows, too.
    let errors = page.errors();
    assert!(
        errors.iter().any(|e| e.contains("example.invalid")),
        "{errors:#?}"
    );
}
