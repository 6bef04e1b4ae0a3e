//! Unit tests of the report and the dashboard page: documents built by hand cover every
//! chart style, every scale and every table feature, and hostile text in titles, cells,
//! code and chart data.

use super::*;
use diskmeter_views::{
    Axis, Cell, ChartStyle, CodeBlock, FactGroup, Scale, SectionKind, SeriesSpec, Table, Tone,
};

const HOSTILE: &str = "<script>alert('x')</script> & \"quoted\" </script><!--";

fn axis(label: &str, scale: Scale) -> Axis {
    Axis {
        label: label.to_string(),
        scale,
        categories: Vec::new(),
    }
}

fn series(label: &str, x: &[f64], y: &[Option<f64>]) -> SeriesSpec {
    SeriesSpec {
        label: label.to_string(),
        x: x.to_vec(),
        y: y.to_vec(),
    }
}

fn chart(
    id: &str,
    kind: &str,
    style: ChartStyle,
    x: Axis,
    y: Axis,
    s: Vec<SeriesSpec>,
) -> ChartSpec {
    ChartSpec {
        id: id.to_string(),
        kind: kind.to_string(),
        title: format!("{kind} chart"),
        style,
        x,
        y,
        series: s,
    }
}

/// Every style on every scale: per-second lines with a gap, a percentile curve on nines,
/// a histogram of bars on a log axis, a sweep's lines with points on log x, grouped bars
/// over categories, and a chart with no points at all.
fn all_charts(prefix: &str) -> Vec<ChartSpec> {
    let seconds: Vec<f64> = (1..=10).map(f64::from).collect();
    let iops: Vec<Option<f64>> = (1..=10)
        .map(|s| {
            if s == 4 {
                None
            } else {
                Some(1000.0 + f64::from(s) * 10.0)
            }
        })
        .collect();
    let percentiles = [1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0];
    let latency: Vec<Option<f64>> = [20.0, 30.0, 45.0, 80.0, 150.0, 400.0, 900.0, 1200.0]
        .into_iter()
        .map(Some)
        .collect();
    let mut categories = axis("metric", Scale::Linear);
    categories.categories = vec!["IOPS".into(), "MiB/s".into(), HOSTILE.into()];
    let mut steps = axis("step", Scale::Linear);
    steps.categories = (0..6)
        .map(|i| format!("Step {i}: SEQ1M Q8T1 read"))
        .collect();
    vec![
        chart(
            &format!("{prefix}-iops"),
            "iops",
            ChartStyle::Lines,
            Axis::linear("time (s)"),
            Axis::linear("IOPS"),
            vec![
                series("read", &seconds, &iops),
                series("write", &seconds[2..], &iops[2..]),
            ],
        ),
        chart(
            &format!("{prefix}-percentiles"),
            "percentiles",
            ChartStyle::Lines,
            axis("percentile", Scale::Nines),
            axis("latency (us)", Scale::Log10),
            vec![series("read", &percentiles, &latency)],
        ),
        chart(
            &format!("{prefix}-histogram"),
            "histogram",
            ChartStyle::Bars,
            axis("latency (us)", Scale::Log10),
            Axis::linear("IOs"),
            vec![series(
                "read",
                &[10.0, 20.0, 50.0, 100.0, 1000.0],
                &[Some(5.0), Some(50.0), Some(500.0), Some(40.0), Some(0.0)],
            )],
        ),
        chart(
            &format!("{prefix}-iops-vs-qd"),
            "iops-vs-qd",
            ChartStyle::LinesPoints,
            axis("queue depth", Scale::Log10),
            Axis::linear("IOPS"),
            vec![
                series(
                    "4 KiB",
                    &[1.0, 2.0, 4.0, 8.0, 16.0],
                    &[Some(10.0), Some(19.0), Some(35.0), Some(60.0), Some(61.0)],
                ),
                series(HOSTILE, &[1.0, 4.0, 16.0], &[Some(5.0), Some(15.0), None]),
            ],
        ),
        chart(
            &format!("{prefix}-compare"),
            "compare",
            ChartStyle::Bars,
            categories,
            axis("value", Scale::Log10),
            vec![
                series(
                    "run 1",
                    &[0.0, 1.0, 2.0],
                    &[Some(1000.0), Some(4.0), Some(120.0)],
                ),
                series("run 2", &[0.0, 1.0, 2.0], &[Some(900.0), None, Some(130.0)]),
            ],
        ),
        chart(
            &format!("{prefix}-empty"),
            "latency",
            ChartStyle::Lines,
            Axis::linear("time (s)"),
            Axis::linear("latency (us)"),
            vec![series("read", &[], &[])],
        ),
        chart(
            &format!("{prefix}-empty-log"),
            "percentiles",
            ChartStyle::Lines,
            axis("percentile", Scale::Nines),
            axis("latency (us)", Scale::Log10),
            vec![series("read", &[100.0], &[Some(0.0)])],
        ),
        chart(
            &format!("{prefix}-one-second"),
            "iops",
            ChartStyle::Lines,
            Axis::linear("time (s)"),
            Axis::linear("IOPS"),
            vec![series("read", &[1.0], &[Some(5.0)])],
        ),
        chart(
            &format!("{prefix}-suite-iops"),
            "suite-iops",
            ChartStyle::Bars,
            steps,
            Axis::linear("IOPS"),
            vec![series(
                "read",
                &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
                &[Some(1.0), Some(2.0), None, Some(4.0), Some(5.0), Some(6.0)],
            )],
        ),
    ]
}

/// A suite with a step child, then a comparison with links and tones, then hostile text
/// everywhere a string is shown.
fn document() -> Document {
    let mut run = Section::new("run-1", "Run 1: suite quick", SectionKind::Suite);
    run.headline = Some("3 steps, 12,345 IOPS".into());
    run.facts.push(FactGroup {
        title: "Summary".into(),
        rows: vec![
            ("IOPS".into(), "12,345".into()),
            ("Host".into(), "box".into()),
        ],
    });
    run.code.push(CodeBlock {
        title: "Command line".into(),
        text: "diskmeter suite quick --target /dev/x".into(),
    });
    run.tables.push(Table {
        title: "Steps".into(),
        columns: vec!["step".into(), "IOPS".into()],
        rows: vec![
            vec![
                Cell::text("SEQ1M").with_link("#run-1-step-0"),
                Cell::number("1,000"),
            ],
            vec![Cell::text("RND4K"), Cell::number("11,345")],
        ],
    });
    run.charts = all_charts("run-1");
    run.notes
        .push("Latency from HDR histograms, 3 significant digits.".into());
    let mut step = Section::new("run-1-step-0", "Step 0: SEQ1M", SectionKind::Step);
    step.charts.push(all_charts("run-1-step-0").remove(0));
    run.children.push(step);

    let mut compare = Section::new(
        "compare-1-2",
        "Run 2 compared with run 1",
        SectionKind::Compare,
    );
    compare.tables.push(Table {
        title: "Verdicts".into(),
        columns: vec!["metric".into(), "baseline".into(), "verdict".into()],
        rows: vec![
            vec![
                Cell::text("IOPS").with_link("/run/1"),
                Cell::number("1,000"),
                Cell::text("faster").with_tone(Tone::Good),
            ],
            vec![
                Cell::text("p99").with_link("/run/2"),
                Cell::number("10").with_tone(Tone::Bad),
                Cell::text("slower").with_tone(Tone::Bad),
            ],
            // A place on a run's page: in a report, that place's anchor if it is there.
            vec![
                Cell::text("the step").with_link("/run/1#run-1-step-0"),
                Cell::number("2"),
                Cell::text(""),
            ],
            vec![
                Cell::text("its check").with_link("/run/2#check-7"),
                Cell::number("3"),
                Cell::text(""),
            ],
            vec![
                Cell::text("MiB/s").with_link("javascript:alert(1)"),
                Cell::number("4"),
                Cell::text("same").with_tone(Tone::Neutral),
            ],
        ],
    });

    let mut hostile = Section::new("run-3", HOSTILE, SectionKind::Run);
    hostile.headline = Some(HOSTILE.into());
    hostile.facts.push(FactGroup {
        title: HOSTILE.into(),
        rows: vec![(HOSTILE.into(), HOSTILE.into())],
    });
    hostile.code.push(CodeBlock {
        title: HOSTILE.into(),
        text: format!("[job]\nfilename={HOSTILE}\n"),
    });
    hostile.tables.push(Table {
        title: HOSTILE.into(),
        columns: vec![HOSTILE.into()],
        rows: vec![vec![Cell::text(HOSTILE).with_link(HOSTILE)]],
    });
    hostile.notes.push(HOSTILE.into());
    hostile.cards = Some(diskmeter_views::headline::Headline {
        cards: vec![diskmeter_views::headline::Card {
            label: HOSTILE.into(),
            value: "4.25 ms".into(),
            detail: HOSTILE.into(),
        }],
        verdicts: vec![diskmeter_views::headline::VerdictCard {
            verdict: "MISSED".into(),
            tone: Tone::Bad,
            what: HOSTILE.into(),
            evidence: HOSTILE.into(),
        }],
    });
    let mut spec = all_charts("run-3").remove(0);
    spec.title = HOSTILE.into();
    spec.series[0].label = HOSTILE.into();
    hostile.charts.push(spec);

    Document {
        title: format!("diskmeter report {HOSTILE}"),
        diskmeter_version: "0.1.0".into(),
        generated_unix_ms: 1_795_000_000_000,
        sections: vec![run, compare, hostile],
    }
}

/// The part of `html` outside `<script>` elements: what the parser treats as markup.
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
    out.push_str(rest);
    out
}

/// The chart data as the page holds it.
fn chart_json(html: &str) -> String {
    let start = html
        .find(r#"<script type="application/json" id="chart-data">"#)
        .unwrap();
    let body = &html[start..];
    let open = body.find('>').unwrap() + 1;
    let close = body.find("</script>").unwrap();
    body[open..close].to_string()
}

#[test]
fn every_chart_has_its_div_and_the_page_expects_as_many_as_there_are_specs() {
    let doc = document();
    let html = render_report(&doc).unwrap();
    let specs: Vec<&ChartSpec> = doc.sections.iter().flat_map(Section::all_charts).collect();
    assert_eq!(specs.len(), 9 + 1 + 1);
    assert!(
        html.contains(&format!(
            r#"<html lang="en" data-charts-expected="{}">"#,
            specs.len()
        )),
        "{}",
        &html[..200]
    );
    for spec in &specs {
        let div = format!(
            r#"<div class="chart" id="{}" data-kind="{}"></div>"#,
            spec.id, spec.kind
        );
        assert_eq!(html.matches(&div).count(), 1, "{div}");
    }
    assert_eq!(
        markup(&html).matches(r#"<div class="chart""#).count(),
        specs.len()
    );
}

#[test]
fn the_chart_data_is_every_spec_in_page_order_and_survives_a_script_tag() {
    let doc = document();
    let html = render_report(&doc).unwrap();
    let json = chart_json(&html);
    assert!(
        !json.contains('<') && !json.contains('>') && !json.contains('&'),
        "{json}"
    );
    let parsed: Vec<ChartSpec> = serde_json::from_str(&json).unwrap();
    let specs: Vec<ChartSpec> = doc
        .sections
        .iter()
        .flat_map(Section::all_charts)
        .cloned()
        .collect();
    assert_eq!(parsed, specs);
    assert!(parsed.iter().any(|s| s.title == HOSTILE));
    // Beside each spec, its look: the colours charts.js draws with, from the one palette.
    let looks: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    for (look, spec) in looks.iter().zip(&specs) {
        assert_eq!(look["look"], serde_json::to_value(spec.look()).unwrap());
    }
}

#[test]
fn hostile_text_is_escaped_in_titles_cells_code_and_notes() {
    let html = render_report(&document()).unwrap();
    let markup = markup(&html);
    assert!(!markup.contains("<script>alert"), "raw script in markup");
    assert!(!markup.contains("<!--"), "raw comment opener in markup");
    assert!(markup.contains("&#60;script&#62;alert("));
    // The only scripts are ours: uPlot, the chart data and charts.js.
    assert_eq!(html.matches("<script").count(), 3);
    assert_eq!(html.matches("</script>").count(), 3);
}

#[test]
fn sections_carry_their_anchor_and_kind_and_children_nest_one_level_deeper() {
    let html = render_report(&document()).unwrap();
    assert!(html.contains(r#"<section id="run-1" class="section-suite">"#));
    assert!(html.contains(r#"<section id="run-1-step-0" class="section-step">"#));
    assert!(html.contains(r#"<section id="compare-1-2" class="section-compare">"#));
    assert!(html.contains(r#"<section id="run-3" class="section-run">"#));
    assert!(html.contains("<h2>Run 1: suite quick</h2>"));
    assert!(html.contains("<h3>Step 0: SEQ1M</h3>"));
}

#[test]
fn the_table_of_contents_lists_every_section_and_child() {
    let html = render_report(&document()).unwrap();
    let toc = &html[html.find(r#"<nav class="toc""#).unwrap()..html.find("</nav>").unwrap()];
    for anchor in ["run-1", "run-1-step-0", "compare-1-2", "run-3"] {
        assert!(
            toc.contains(&format!(r##"href="#{anchor}""##)),
            "{anchor}: {toc}"
        );
    }
    assert!(
        html.contains("Generated 2026-11-18 11:06:40 UTC"),
        "the generation time in UTC"
    );
    assert!(html.contains("by diskmeter 0.1.0"));
}

#[test]
fn tables_align_numbers_colour_verdicts_and_link_only_where_a_link_lands() {
    let html = render_report(&document()).unwrap();
    assert!(html.contains(r#"<th scope="col" class="num">IOPS</th>"#));
    assert!(html.contains(r#"<td class="num">1,000</td>"#));
    assert!(html.contains(r#"<td class="tone-good">faster</td>"#));
    assert!(html.contains(r#"<td class="num tone-bad">10</td>"#));
    assert!(html.contains(r#"<td class="tone-neutral">same</td>"#));
    assert!(html.contains(r##"<a href="#run-1-step-0">SEQ1M</a>"##));
    // In a file, the dashboard's /run/1 is the run's section; run 2 is not in the report.
    assert!(html.contains(r##"<a href="#run-1">IOPS</a>"##));
    assert!(html.contains("<td class=\"\">p99</td>"));
    assert!(html.contains(r##"<a href="#run-1-step-0">the step</a>"##));
    assert!(html.contains("<td class=\"\">its check</td>"));
    assert!(!html.contains("javascript:"));
    assert!(
        !markup(&html).contains("href=\"/"),
        "no link leaves the file"
    );
    // An empty inline icon: no browser asks the server or the disk for /favicon.ico.
    assert!(html.contains(r#"<link rel="icon" href="data:,">"#));
}

#[test]
fn a_report_names_no_outside_resource() {
    let html = render_report(&document()).unwrap();
    let markup = markup(&html);
    for needle in ["src=", "http://", "https://", "@import", "url("] {
        assert!(!markup.contains(needle), "{needle}");
    }
    let css = assets::STYLES;
    assert!(!css.contains("@import") && !css.contains("url("));
}

#[test]
fn the_inlined_assets_cannot_end_their_elements_early() {
    for (name, text) in [
        ("uPlot", assets::UPLOT_JS),
        ("charts.js", assets::CHARTS_JS),
    ] {
        assert!(!text.to_ascii_lowercase().contains("</script"), "{name}");
        assert!(!text.contains("<!--"), "{name}");
    }
    assert!(!assets::STYLES.to_ascii_lowercase().contains("</style"));
}

#[test]
fn a_dashboard_page_has_the_nav_bar_its_fragment_and_the_same_sections() {
    let doc = document();
    let mut page = DashboardPage::new("Run 1", NavItem::Runs);
    page.fragment = Some(TrustedHtml::new(r#"<form id="filters"></form>"#));
    page.sections = doc.sections.clone();
    let html = render_page(&page).unwrap();
    assert!(html.contains(r#"<a href="/" aria-current="page">Runs</a>"#));
    assert!(html.contains(r#"<a href="/compare" aria-current="false">Compare</a>"#));
    assert!(html.contains(r#"<form id="filters"></form>"#));
    assert!(html.contains(r#"data-charts-expected="11""#));
    assert!(html.contains(r#"<section id="run-1" class="section-suite">"#));
    // On the dashboard a run's address is a link; script addresses never are.
    assert!(html.contains(r#"<a href="/run/2">p99</a>"#));
    assert!(html.contains(r##"<a href="/run/2#check-7">its check</a>"##));
    assert!(!html.contains("javascript:"));
    assert!(!html.contains(r#"<nav class="toc""#));
}

#[test]
fn a_page_without_charts_expects_none() {
    let page = DashboardPage::new("No such run", NavItem::None);
    let html = render_page(&page).unwrap();
    assert!(html.contains(r#"data-charts-expected="0""#));
    assert!(html.contains("<h1>No such run</h1>"));
    assert_eq!(chart_json(&html), "[]");
}

/// Writes the sample document to `DISKMETER_HTML_SAMPLE` (and as a dashboard page to the
/// same path + `.page.html`) for a look in a browser.
#[test]
fn the_sample_document_renders_for_a_browser() {
    let doc = document();
    let html = render_report(&doc).unwrap();
    let mut page = DashboardPage::new("diskmeter: run 1", NavItem::Compare);
    page.fragment = Some(TrustedHtml::new("<p>A fragment of the page's own.</p>"));
    page.sections = doc.sections;
    let page = render_page(&page).unwrap();
    if let Ok(path) = std::env::var("DISKMETER_HTML_SAMPLE") {
        std::fs::write(&path, &html).unwrap();
        std::fs::write(format!("{path}.page.html"), &page).unwrap();
    }
}

/// Issue 32: the headline cards come first in their section, before the one-line headline
/// and the facts; a verdict card carries its tone's class.
#[test]
fn headline_cards_open_their_section_and_verdicts_are_coloured() {
    let html = render_report(&document()).unwrap();
    let section = &html[html.find("<section id=\"run-3\"").unwrap()..];
    let cards = section.find("class=\"cards\"").expect("the cards");
    assert!(cards < section.find("class=\"headline\"").unwrap());
    assert!(cards < section.find("class=\"facts\"").unwrap());
    assert!(section.contains("<div class=\"card-value\">4.25 ms</div>"));
    assert!(section.contains("class=\"card verdict tone-bad\""));
}
