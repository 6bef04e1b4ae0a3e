//! `diskmeter report` read in a real headless Chromium (tests/common/browser.rs): the report
//! of a run, a suite, a sweep, a capture and a comparison, and one of them all together, each
//! loaded from file:// renders with no console error, draws every chart it promises, and makes
//! no request beyond the document itself — it works offline and as an email attachment.
//! With `DISKMETER_SCREENSHOTS=DIR` the run's report is saved as `DIR/report.png`.
//! Every chart's legend is beside its plot (checked for every page opened); a direction has
//! the same colour in the report and in `diskmeter chart`'s PNG; the report prints to PDF
//! with every chart within the paper's width and whole on a page.

use super::history::{diskmeter, history};
use crate::common::browser::{Chromium, Page, PRINT_HEIGHT_PX, PRINT_WIDTH_PX};
use crate::common::readable::assert_page_latencies_readable;
use std::path::PathBuf;

/// Writes the report of `args` (ids, `--compare A B`) with `diskmeter report ... -o
/// NAME.html` and returns its path.
fn report(name: &str, args: &[&str]) -> PathBuf {
    let history = history();
    let file = history.dir.join(format!("{name}.html"));
    let mut all: Vec<&str> = vec!["report"];
    all.extend(args);
    all.extend(["-o", file.to_str().unwrap(), "--db", history.db_arg()]);
    diskmeter(&history.dir, &all);
    assert!(file.is_file(), "{} was not written", file.display());
    file
}

/// Opens a report from file:// and checks what every report must hold: the document is its
/// only request, no errors, every chart drawn; returns the page and the kinds of its charts.
fn open_report(chromium: &Chromium, file: &std::path::Path) -> (Page, Vec<String>) {
    let url = format!("file://{}", file.display());
    let page = chromium.open(&url);
    let charts = page.assert_charts_drawn_cleanly();
    assert_eq!(page.requests()[0], url, "the document is the first request");
    // data: URLs are the report's own inlined contents (and the helper's SVG rasterising).
    assert_eq!(
        page.outside_requests(),
        Vec::<String>::new(),
        "the report asks the network for nothing"
    );
    // A screenshot into the test's folder, and every latency on the page readable.
    let shot = format!("{}.png", file.file_stem().unwrap().to_string_lossy());
    assert_page_latencies_readable(&page, file.parent().unwrap(), &shot);
    let kinds = charts.into_iter().map(|c| c.kind).collect();
    (page, kinds)
}

/// Whether the page has a `<section class="section-{kind}">`.
fn has_section(page: &Page, kind: &str) -> bool {
    page.eval(&format!(
        "document.querySelector('section.section-{kind}') !== null"
    )) == serde_json::Value::Bool(true)
}

/// Asserts every kind in `expected` is among the drawn chart kinds.
fn assert_kinds(kinds: &[String], expected: &[&str]) {
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|kind| !kinds.iter().any(|k| k == *kind))
        .collect();
    assert!(missing.is_empty(), "no {missing:?} chart among {kinds:?}");
}

#[test]
fn a_runs_report_renders_offline_with_its_series_percentiles_and_histogram() {
    let Some(chromium) = Chromium::start("a_runs_report_renders_offline") else {
        return;
    };
    let run = history().run.to_string();
    let (page, kinds) = open_report(chromium, &report("run", &[&run]));
    assert!(has_section(&page, "run"));
    assert_kinds(
        &kinds,
        &["iops", "bandwidth", "latency", "percentiles", "histogram"],
    );
    let text = page.eval("document.body.innerText");
    let text = text.as_str().unwrap_or_default();
    assert!(
        text.contains("browser-randrw") && text.contains("--iodepth=1"),
        "the run's name and command line: {text}"
    );
    page.screenshot_for_docs("report.png");
}

#[test]
fn last_names_the_newest_run() {
    let Some(chromium) = Chromium::start("last_names_the_newest_run") else {
        return;
    };
    let (page, _) = open_report(chromium, &report("last", &["last"]));
    assert!(has_section(&page, "sweep"));
}

#[test]
fn a_suites_report_renders_its_table_and_charts_per_step() {
    let Some(chromium) = Chromium::start("a_suites_report_renders") else {
        return;
    };
    let suite = history().suite.to_string();
    let (page, kinds) = open_report(chromium, &report("suite", &[&suite]));
    assert!(has_section(&page, "suite"));
    assert_kinds(&kinds, &["suite-iops", "iops", "latency"]);
    // A child section per step: RND4K Q1T1, SEQ1M Q1T1, read and write each.
    let steps = page.eval("document.querySelectorAll('section[id*=\"-step-\"]').length");
    assert!(steps.as_u64().unwrap_or(0) >= 4, "step sections: {steps}");
}

#[test]
fn a_sweeps_report_renders_its_three_charts_and_analysis() {
    let Some(chromium) = Chromium::start("a_sweeps_report_renders") else {
        return;
    };
    let sweep = history().sweep.to_string();
    let (page, kinds) = open_report(chromium, &report("sweep", &[&sweep]));
    assert!(has_section(&page, "sweep"));
    assert_kinds(&kinds, &["iops-vs-qd", "mibps-vs-bs", "latency-vs-qd"]);
}

#[test]
fn a_captures_report_renders_its_checklist_and_series() {
    let Some(chromium) = Chromium::start("a_captures_report_renders") else {
        return;
    };
    let capture = history().capture.to_string();
    let (page, kinds) = open_report(chromium, &report("capture", &[&capture]));
    assert!(has_section(&page, "capture"));
    assert_kinds(&kinds, &["capture-iops", "capture-latency"]);
    let text = page.eval("document.body.innerText");
    assert!(text.as_str().unwrap_or_default().contains("vda"), "{text}");
}

#[test]
fn a_comparisons_report_renders_side_by_side_with_verdicts() {
    let Some(chromium) = Chromium::start("a_comparisons_report_renders") else {
        return;
    };
    let history = history();
    let (a, b) = (history.run.to_string(), history.candidate.to_string());
    let (page, kinds) = open_report(chromium, &report("compare", &["--compare", &a, &b]));
    assert!(has_section(&page, "compare"));
    assert_kinds(&kinds, &["compare", "compare-iops"]);
}

#[test]
fn several_ids_make_one_report_with_a_table_of_contents() {
    let Some(chromium) = Chromium::start("several_ids_make_one_report") else {
        return;
    };
    let history = history();
    let ids: Vec<String> = [history.run, history.suite, history.sweep, history.capture]
        .iter()
        .map(i64::to_string)
        .collect();
    let (a, b) = (history.run.to_string(), history.candidate.to_string());
    let mut args: Vec<&str> = ids.iter().map(String::as_str).collect();
    args.extend(["--compare", &a, &b]);
    let (page, _) = open_report(chromium, &report("all", &args));
    for kind in ["run", "suite", "sweep", "capture", "compare"] {
        assert!(has_section(&page, kind), "no {kind} section");
    }
    // Every section is in the table of contents: a link to its anchor.
    let unlisted = page.eval(
        "[...document.querySelectorAll('section[id]')]\
           .filter(s => !document.querySelector(`a[href=\"#${s.id}\"]`))\
           .map(s => s.id)",
    );
    assert_eq!(
        unlisted,
        serde_json::json!([]),
        "sections the contents miss"
    );
}

/// The RGB of `#RRGGBB`.
fn rgb(hex: &str) -> (u8, u8, u8) {
    let value = u32::from_str_radix(hex.trim_start_matches('#'), 16)
        .unwrap_or_else(|e| panic!("not #RRGGBB: {hex:?}: {e}"));
    ((value >> 16) as u8, (value >> 8) as u8, value as u8)
}

#[test]
fn a_direction_has_the_same_colour_in_the_report_and_in_its_png_chart() {
    let Some(chromium) = Chromium::start("a_direction_has_the_same_colour") else {
        return;
    };
    let history = history();
    let run = history.run.to_string();
    let (page, _) = open_report(chromium, &report("colours", &[&run]));
    let id = page.eval("document.querySelector('.chart[data-kind=iops]').id");
    let id = id.as_str().expect("the run's report has an IOPS chart");
    // The legend is beside the plot and shows the series' means with nothing hovered.
    let boxes = page.chart_boxes();
    assert!(
        boxes.iter().all(|b| b.legend.is_some() && b.plot.is_some()),
        "{boxes:#?}"
    );
    let iops = boxes.iter().find(|b| b.id == id).unwrap();
    assert_eq!(iops.idle_value, "mean", "{iops:?}");
    let strokes = page.series_strokes(id);
    let labels: Vec<&str> = strokes.iter().map(|(label, _)| label.as_str()).collect();
    assert_eq!(labels, ["read", "write"], "{strokes:?}");
    // The palette's (diskmeter_views::palette): Okabe-Ito blue and vermillion.
    assert_eq!(strokes[0].1.to_uppercase(), "#0072B2");
    assert_eq!(strokes[1].1.to_uppercase(), "#D55E00");

    let png = history.dir.join("colours-iops.png");
    diskmeter(
        &history.dir,
        &[
            "chart",
            &run,
            "--kind",
            "iops",
            "-o",
            png.to_str().unwrap(),
            "--db",
            history.db_arg(),
        ],
    );
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    let channels = frame.color_type.samples();
    let pixels: Vec<&[u8]> = buffer[..frame.buffer_size()].chunks(channels).collect();
    for (label, stroke) in &strokes {
        let (r, g, b) = rgb(stroke);
        let in_png = pixels.iter().filter(|p| p[..3] == [r, g, b]).count();
        let in_html = page.canvas_pixels_of(id, (r, g, b));
        assert!(in_png > 200, "{label} {stroke}: {in_png} pixels in the PNG");
        assert!(
            in_html > 200,
            "{label} {stroke}: {in_html} pixels in the report's canvas"
        );
    }
}

#[test]
fn a_runs_report_prints_to_pdf_with_every_chart_inside_its_page() {
    let Some(chromium) = Chromium::start("a_runs_report_prints_to_pdf") else {
        return;
    };
    let run = history().run.to_string();
    let (page, _) = open_report(chromium, &report("print", &[&run]));
    let pdf = page.print_to_pdf();
    assert!(
        pdf.starts_with(b"%PDF-"),
        "not a PDF: {:?}",
        &pdf[..pdf.len().min(16)]
    );
    assert!(pdf.len() > 20_000, "a {}-byte PDF", pdf.len());

    // Laid out as it prints: each chart within the paper's width, no taller than a page
    // and kept whole by a page break (break-inside: avoid moves it to the next page).
    page.emulate_print();
    let charts = page.chart_boxes();
    assert!(charts.len() >= 4, "{charts:?}");
    for chart in &charts {
        let [left, top, right, bottom] = chart.figure;
        assert!(
            left >= 0.0 && right <= PRINT_WIDTH_PX + 0.5,
            "{} sticks out of the paper's {PRINT_WIDTH_PX:.0} px: {chart:?}",
            chart.id
        );
        let canvas = chart
            .canvas
            .unwrap_or_else(|| panic!("{}: no canvas", chart.id));
        assert!(
            canvas[0] >= left - 0.5
                && canvas[2] <= right + 0.5
                && canvas[2] <= PRINT_WIDTH_PX + 0.5,
            "{}'s drawing is wider than its figure: {chart:?}",
            chart.id
        );
        assert!(
            bottom - top <= PRINT_HEIGHT_PX,
            "{} is taller than a page: {chart:?}",
            chart.id
        );
        assert_eq!(chart.break_inside, "avoid", "{}: {chart:?}", chart.id);
        assert!(!chart.legend_overlaps_plot(), "{chart:?}");
    }
    // The PDF's pages: at least as many as the print layout's height fills on A4 (273 mm
    // of content, 1032 px), so the PDF was laid out at the paper's width as checked above,
    // not at the screen's, where the page is shorter.
    let height = page
        .eval("document.documentElement.scrollHeight")
        .as_f64()
        .unwrap();
    let pages = pdf
        .windows(12)
        .filter(|w| w.starts_with(b"/Type /Page") && w[11] != b's')
        .count();
    // 5 % off the height: the layout's bottom margin and the last block's spacing do not
    // print (4,205 px went on 4 pages once); the screen's layout is shorter by far more.
    let least = (0.95 * height / (273.0 / 25.4 * 96.0)).ceil() as usize;
    assert!(
        pages >= least,
        "{pages} PDF pages for {height} px of print layout"
    );
    page.show_on_screen();
}
