//! `diskmeter chart` through the real binary: a run, a suite, a sweep (null engine) and a
//! capture are saved with --db, then every kind of chart `--list` names for each is written
//! as PNG and as SVG; the PNG decodes and holds drawn, coloured pixels, its legend below its
//! plot, the SVG parses and holds the chart's title and coloured shapes. An unknown kind, an unknown step and an
//! image format other than PNG or SVG are usage errors (exit 2) that say what is available.

use crate::common::{diskmeter, ok, TestDir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The ids of the saved runs, as `diskmeter chart` takes them.
struct Saved {
    db: PathBuf,
    run: String,
    suite: String,
    sweep: String,
    capture: String,
}

/// The binary's history (super::history): its two-job null-engine run (a run's CPU chart is
/// per job), its 4-step suite, its sweep and its capture.
fn saved() -> &'static Saved {
    static SAVED: OnceLock<Saved> = OnceLock::new();
    SAVED.get_or_init(|| {
        let history = super::history::history();
        Saved {
            db: history.db.clone(),
            run: history.jobs.to_string(),
            suite: history.suite.to_string(),
            sweep: history.sweep.to_string(),
            capture: history.capture.to_string(),
        }
    })
}

/// `diskmeter chart ARGS --db (the fixtures)` in `dir`.
fn chart(dir: &Path, args: &[&str]) -> Output {
    let db = saved().db.to_str().unwrap();
    diskmeter(dir, &[&["chart"], args, &["--db", db]].concat())
}

/// The first step (or `-`) listed for each kind: `--list` prints `KIND STEP TITLE`.
fn kinds(dir: &Path, id: &str) -> BTreeMap<String, String> {
    let listed = ok(chart(dir, &[id, "--list"]));
    let mut kinds = BTreeMap::new();
    for line in listed.lines() {
        let mut words = line.split_whitespace();
        let (Some(kind), Some(step)) = (words.next(), words.next()) else {
            panic!("not KIND STEP TITLE: {line:?}");
        };
        kinds
            .entry(kind.to_string())
            .or_insert_with(|| step.to_string());
    }
    kinds
}

/// Whether an RGB colour is a colour rather than a grey: the axes, grid and text are black
/// on white (greys), the series are coloured.
fn coloured(r: u8, g: u8, b: u8) -> bool {
    r.abs_diff(g) > 24 || g.abs_diff(b) > 24 || r.abs_diff(b) > 24
}

fn assert_png_drawn(path: &Path) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(
        (frame.width, frame.height),
        (960, 600),
        "{}",
        path.display()
    );
    let channels = frame.color_type.samples();
    assert!(channels >= 3, "{}: {:?}", path.display(), frame.color_type);
    let pixels = buffer[..frame.buffer_size()].chunks(channels);
    let (mut drawn, mut colour) = (0, 0);
    for p in pixels {
        if p[..3] != [255, 255, 255] {
            drawn += 1;
        }
        if coloured(p[0], p[1], p[2]) {
            colour += 1;
        }
    }
    assert!(drawn > 2_000, "{}: {drawn} drawn pixels", path.display());
    assert!(colour > 300, "{}: {colour} coloured pixels", path.display());
    assert_legend_below_plot(path, &buffer[..frame.buffer_size()], channels);
}

/// The plot's bottom is its x axis, the lowest row with a long line; below it come
/// the tick labels and axis title (black and grey) and then the legend, whose swatches are
/// the only coloured pixels there. So: coloured pixels above the axis (the data) and below
/// it (the legend), and none of the legend over the plot, which has nothing of its own.
fn assert_legend_below_plot(path: &Path, pixels: &[u8], channels: usize) {
    let (width, height) = (960usize, 600usize);
    let at = |x: usize, y: usize| &pixels[(y * width + x) * channels..][..3];
    // A line, not text: the longest run of drawn pixels in the row (a series lying on the
    // axis, such as a histogram's empty buckets, covers it in colour).
    let longest_run = |y: usize| {
        let (mut longest, mut run) = (0, 0);
        for x in 0..width {
            run = if at(x, y) == [255, 255, 255] {
                0
            } else {
                run + 1
            };
            longest = longest.max(run);
        }
        longest
    };
    let axis = (0..height)
        .rev()
        .find(|&y| longest_run(y) > width / 3)
        .unwrap_or_else(|| panic!("{}: no x axis line", path.display()));
    let coloured_in = |rows: std::ops::Range<usize>| {
        rows.flat_map(|y| (0..width).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = at(x, y);
                coloured(p[0], p[1], p[2])
            })
            .count()
    };
    let data = coloured_in(0..axis);
    let legend = coloured_in(axis + 1..height);
    assert!(
        data > 200,
        "{}: {data} coloured pixels in the plot",
        path.display()
    );
    assert!(
        legend > 30,
        "{}: {legend} coloured pixels below the plot (the legend's swatches)",
        path.display()
    );
}

fn assert_svg_drawn(path: &Path, title: &str) {
    let svg = std::fs::read_to_string(path).unwrap();
    let document =
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("960"));
    let texts: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    assert!(
        texts.contains(&title),
        "{}: no title {title:?}",
        path.display()
    );
    // Coloured shapes: the legend's swatches and at least one line, point or bar.
    let shapes = document
        .descendants()
        .filter(|n| ["polyline", "rect", "circle", "line"].contains(&n.tag_name().name()))
        .filter(|n| {
            ["stroke", "fill"].iter().any(|attribute| {
                let hex = n
                    .attribute(*attribute)
                    .unwrap_or("")
                    .trim_start_matches('#');
                hex.len() == 6
                    && u32::from_str_radix(hex, 16)
                        .is_ok_and(|v| coloured((v >> 16) as u8, (v >> 8) as u8, v as u8))
            })
        })
        .count();
    assert!(shapes >= 2, "{}: {shapes} coloured shapes", path.display());
}

/// Writes every kind `--list` names for run `id` as PNG and SVG and checks them; returns the
/// kinds.
fn draw_every_kind(id: &str) -> Vec<String> {
    let dir = TestDir::new();
    let kinds = kinds(dir.path(), id);
    for (kind, step) in &kinds {
        for extension in ["png", "svg"] {
            let file = dir.path().join(format!("{kind}.{extension}"));
            let mut args = vec![id, "--kind", kind, "-o", file.to_str().unwrap()];
            if step != "-" {
                args.extend(["--step", step]);
            }
            let out = ok(chart(dir.path(), &args));
            let title = out
                .trim()
                .split_once(": ")
                .map(|(_, title)| title.to_string())
                .unwrap_or_else(|| panic!("no 'wrote FILE: TITLE': {out}"));
            if extension == "png" {
                assert_png_drawn(&file);
            } else {
                assert_svg_drawn(&file, &title);
            }
        }
    }
    kinds.into_keys().collect()
}

#[test]
fn every_chart_of_a_run_is_written_as_png_and_svg() {
    let kinds = draw_every_kind(&saved().run);
    for kind in [
        "iops",
        "bandwidth",
        "latency",
        "percentiles",
        "histogram",
        "cpu",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} not in {kinds:?}");
    }
}

#[test]
fn every_chart_of_a_suite_and_of_its_steps_is_written_as_png_and_svg() {
    let kinds = draw_every_kind(&saved().suite);
    for kind in [
        "suite-iops",
        "suite-bandwidth",
        "suite-latency",
        "iops",
        "percentiles",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} not in {kinds:?}");
    }
}

#[test]
fn every_chart_of_a_sweep_is_written_as_png_and_svg() {
    let kinds = draw_every_kind(&saved().sweep);
    for kind in ["iops-vs-qd", "mibps-vs-bs", "latency-vs-qd"] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} not in {kinds:?}");
    }
}

#[test]
fn every_chart_of_a_capture_is_written_as_png_and_svg() {
    let kinds = draw_every_kind(&saved().capture);
    assert!(kinds.iter().any(|k| k == "capture-iops"), "{kinds:?}");
}

#[test]
fn a_kind_several_steps_have_draws_the_first_says_so_and_step_picks_by_position_or_name() {
    let dir = TestDir::new();
    let suite = &saved().suite;
    let file = dir.path().join("iops.svg");
    let file = file.to_str().unwrap();
    let out = chart(dir.path(), &[suite, "--kind", "iops", "-o", file]);
    ok(out.clone());
    let note = text(&out.stderr);
    assert!(
        note.contains("has 4 charts of kind 'iops' (steps 0, 1, 2, 3); wrote the first (step 0)"),
        "{note}"
    );
    let listed = ok(chart(dir.path(), &[suite, "--list", "--step", "2"]));
    assert!(
        listed
            .lines()
            .all(|l| l.split_whitespace().nth(1) == Some("2")),
        "{listed}"
    );
    assert!(listed.contains("RND4K Q1T1 read: "), "{listed}");
    for step in ["2", "RND4K Q1T1 read", "rnd4k q1t1 READ"] {
        let out = chart(
            dir.path(),
            &[suite, "--kind", "iops", "--step", step, "-o", file],
        );
        ok(out.clone());
        assert_eq!(text(&out.stderr), "", "no note when --step picks one");
    }
    // A plain run's one step is the run itself.
    let run = &saved().run;
    ok(chart(
        dir.path(),
        &[run, "--kind", "iops", "--step", "0", "-o", file],
    ));
    let out = chart(
        dir.path(),
        &[suite, "--kind", "iops", "--step", "9", "-o", file],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("has no step '9'; its steps: 0 (SEQ1M Q1T1 read)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_unknown_kind_or_image_format_is_a_usage_error_saying_what_there_is() {
    let dir = TestDir::new();
    let run = &saved().run;
    let out = chart(dir.path(), &[run, "--kind", "pie", "-o", "pie.png"]);
    assert_eq!(out.status.code(), Some(2));
    let error = text(&out.stderr);
    assert!(
        error.contains("has no chart of kind 'pie'; its kinds: bandwidth, cpu, histogram, iops"),
        "{error}"
    );
    let out = chart(dir.path(), &[run, "--kind", "iops", "-o", "iops.jpg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("iops.jpg: charts are written as .png or .svg"));
    let out = chart(dir.path(), &[run, "--kind", "iops"]);
    assert_eq!(out.status.code(), Some(2), "-o is required");
    assert!(dir.files().is_empty(), "{:?}", dir.files());
}

#[test]
fn a_sweeps_own_charts_have_their_legend_below_the_plot_and_the_grids_ticks() {
    let dir = TestDir::new();
    ok(diskmeter(
        dir.path(),
        &[
            "sweep",
            "sweep.dat",
            "--quiet",
            "--ioengine=null",
            "--qd=1,4,16",
            "--bs=4k,64k",
            "--point-time=300ms",
            "--ramp=50ms",
            "--size=16m",
            "--no-save",
            "--charts=charts",
        ],
    ));
    for stem in ["iops-vs-qd", "mibps-vs-bs", "latency-vs-qd"] {
        let png = dir.path().join(format!("charts/{stem}.png"));
        assert_png_drawn(&png);
        let svg = std::fs::read_to_string(dir.path().join(format!("charts/{stem}.svg"))).unwrap();
        // plotters writes each text on a line of its own: the grid's values are the ticks.
        let texts: Vec<&str> = svg.lines().map(str::trim).collect();
        let ticks: &[&str] = if stem == "mibps-vs-bs" {
            &["4", "64"]
        } else {
            &["1", "4", "16"]
        };
        for tick in ticks {
            assert!(texts.contains(tick), "{stem}: no tick {tick}");
        }
        // 4 KiB in the palette's first colour, as in the report (and 64 KiB apart from it).
        if stem != "mibps-vs-bs" {
            assert!(svg.contains("#0072B2"), "{stem}: 4K not in Okabe-Ito blue");
        }
    }
}
