//! Charts of hand-built specifications drawn as PNG and SVG: every style and scale draws
//! its data in the series' colours with the labels a reader needs; gaps, values an axis
//! cannot place and empty series are handled without a panic.

use super::*;
use crate::legend::colour;
use diskmeter_views::{Axis, Scale, SeriesSpec};

fn axis(label: &str, scale: Scale) -> Axis {
    Axis {
        scale,
        ..Axis::linear(label)
    }
}

fn series(label: &str, x: &[f64], y: &[Option<f64>]) -> SeriesSpec {
    SeriesSpec {
        label: label.into(),
        x: x.to_vec(),
        y: y.to_vec(),
    }
}

fn spec(kind: &str, style: ChartStyle, x: Axis, y: Axis, series: Vec<SeriesSpec>) -> ChartSpec {
    ChartSpec {
        id: format!("run-1-{kind}"),
        kind: kind.into(),
        title: format!("Run 1: {kind}"),
        style,
        x,
        y,
        series,
    }
}

/// IOPS per second, reads and writes, with a second of no writes.
fn iops() -> ChartSpec {
    let seconds: Vec<f64> = (1..=10).map(f64::from).collect();
    let reads: Vec<Option<f64>> = seconds.iter().map(|s| Some(9000.0 + s * 50.0)).collect();
    let mut writes: Vec<Option<f64>> = seconds.iter().map(|s| Some(3000.0 - s * 20.0)).collect();
    writes[4] = None;
    spec(
        "iops",
        ChartStyle::Lines,
        Axis::linear("time (s)"),
        Axis::linear("IOPS"),
        vec![
            series("read", &seconds, &reads),
            series("write", &seconds, &writes),
        ],
    )
}

/// A latency percentile curve on a nines axis, latency on a log axis.
fn percentiles() -> ChartSpec {
    let p = [1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0];
    let lat = [80.0, 95.0, 120.0, 300.0, 900.0, 2500.0, 9000.0, 15000.0];
    spec(
        "percentiles",
        ChartStyle::Lines,
        axis("percentile", Scale::Nines),
        axis("latency (us)", Scale::Log10),
        vec![series("read", &p, &lat.map(Some))],
    )
}

/// A suite's IOPS per step as bars, reads and writes.
fn suite_bars() -> ChartSpec {
    let steps = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"];
    spec(
        "suite-iops",
        ChartStyle::Bars,
        Axis {
            categories: steps.map(String::from).to_vec(),
            ..Axis::linear("step")
        },
        Axis::linear("IOPS"),
        vec![
            series(
                "read",
                &[0.0, 1.0, 2.0, 3.0],
                &[Some(2100.0), Some(1800.0), Some(48000.0), Some(9000.0)],
            ),
            series(
                "write",
                &[0.0, 1.0, 2.0, 3.0],
                &[Some(1900.0), None, Some(40000.0), Some(7000.0)],
            ),
        ],
    )
}

/// IOPS vs queue depth on a log x axis, with points.
fn sweep_points() -> ChartSpec {
    let qd = [1.0, 4.0, 16.0, 64.0];
    spec(
        "iops-vs-qd",
        ChartStyle::LinesPoints,
        axis("queue depth", Scale::Log10),
        Axis::linear("IOPS"),
        vec![
            series(
                "4K",
                &qd,
                &[Some(2000.0), Some(7000.0), Some(9800.0), Some(10000.0)],
            ),
            series(
                "64K",
                &qd,
                &[Some(1500.0), Some(3000.0), Some(3200.0), Some(3200.0)],
            ),
        ],
    )
}

/// A histogram: bars on a log x axis (bucket upper bounds, us).
fn histogram() -> ChartSpec {
    let bounds = [50.0, 100.0, 200.0, 400.0, 800.0, 1600.0];
    spec(
        "histogram",
        ChartStyle::Bars,
        axis("latency (us)", Scale::Log10),
        Axis::linear("IOs"),
        vec![series(
            "read",
            &bounds,
            &[
                Some(10.0),
                Some(4000.0),
                Some(9000.0),
                Some(700.0),
                Some(30.0),
                Some(1.0),
            ],
        )],
    )
}

fn all_specs() -> Vec<ChartSpec> {
    vec![
        iops(),
        percentiles(),
        suite_bars(),
        sweep_points(),
        histogram(),
    ]
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dm-spec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The PNG's RGB pixels.
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    let pixels = buffer[..info.buffer_size()]
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, pixels)
}

fn count_colour(pixels: &[[u8; 3]], colour: RGBColor) -> usize {
    pixels
        .iter()
        .filter(|p| **p == [colour.0, colour.1, colour.2])
        .count()
}

#[test]
fn every_style_and_scale_draws_its_series_in_their_colours_as_png() {
    let dir = temp_dir("png");
    for chart in all_specs() {
        let path = dir.join(format!("{}.png", chart.kind));
        draw_spec(&chart, &path).unwrap();
        let (width, height, pixels) = decode(&path);
        assert_eq!((width, height), CHART_SIZE);
        let drawn = pixels.iter().filter(|p| **p != [255, 255, 255]).count();
        assert!(drawn > 5_000, "{}: {drawn} drawn pixels", chart.kind);
        for (index, paint) in chart.look().series.iter().enumerate() {
            // Lines are 2 px wide, bars filled: each series leaves hundreds of pixels.
            let n = count_colour(&pixels, colour(paint));
            assert!(n > 150, "{} series {index}: {n} pixels", chart.kind);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_style_and_scale_writes_svg_with_its_title_axes_ticks_and_legend() {
    let dir = temp_dir("svg");
    for chart in all_specs() {
        let path = dir.join(format!("{}.SVG", chart.kind));
        draw_spec(&chart, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, render_svg(&chart).unwrap());
        assert!(text.starts_with("<svg"), "{text:.100}");
        let mut expected = vec![
            chart.title.clone(),
            chart.x.label.clone(),
            chart.y.label.clone(),
        ];
        expected.extend(chart.series.iter().map(|s| s.label.clone()));
        expected.extend(chart.x.categories.iter().cloned());
        for needle in expected {
            assert!(text.contains(&needle), "{}: no {needle:?}", chart.kind);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_nines_axis_is_labelled_in_percentiles_and_a_log_axis_in_decades() {
    let svg = render_svg(&percentiles()).unwrap();
    // plotters writes each text on a line of its own.
    let texts: Vec<&str> = svg.lines().collect();
    for tick in ["50%", "90%", "99%", "99.9%", "99.99%", "100", "1k", "10k"] {
        assert!(texts.contains(&tick), "no tick {tick}");
    }
    let svg = render_svg(&histogram()).unwrap();
    let texts: Vec<&str> = svg.lines().collect();
    assert!(texts.contains(&"100") && texts.contains(&"1k"));
}

#[test]
fn a_missing_value_is_a_gap_and_a_lone_point_between_gaps_is_still_drawn() {
    let chart = iops();
    let plan = plan(&chart).unwrap();
    assert_eq!(plan.lines[0].runs.len(), 1);
    let writes: Vec<usize> = plan.lines[1].runs.iter().map(Vec::len).collect();
    assert_eq!(writes, [4, 5], "second 5 had no writes");

    let lone = spec(
        "latency",
        ChartStyle::Lines,
        Axis::linear("time (s)"),
        Axis::linear("latency (us)"),
        vec![series(
            "write",
            &[1.0, 2.0, 3.0],
            &[None, Some(250.0), None],
        )],
    );
    let dir = temp_dir("lone");
    let path = dir.join("lone.png");
    draw_spec(&lone, &path).unwrap();
    let (_, _, pixels) = decode(&path);
    assert!(
        count_colour(&pixels, colour(&lone.look().series[0])) > 20,
        "the lone point shows"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn values_an_axis_cannot_place_are_gaps_not_panics() {
    // Zero latency on a log axis, a 100th percentile on a nines axis, NaN and infinity.
    let chart = spec(
        "percentiles",
        ChartStyle::Lines,
        axis("percentile", Scale::Nines),
        axis("latency (us)", Scale::Log10),
        vec![series(
            "read",
            &[50.0, 90.0, 99.0, 99.9, 100.0, f64::NAN],
            &[
                Some(0.0),
                Some(100.0),
                Some(f64::INFINITY),
                Some(400.0),
                Some(900.0),
                Some(1.0),
            ],
        )],
    );
    let plan = plan(&chart).unwrap();
    let runs: Vec<usize> = plan.lines[0].runs.iter().map(Vec::len).collect();
    assert_eq!(runs, [1, 1]);
    render_svg(&chart).unwrap();
}

#[test]
fn a_chart_with_nothing_to_draw_is_a_clear_error_and_writes_no_file() {
    let dir = temp_dir("empty");
    let path = dir.join("empty.png");
    let mut chart = iops();
    for s in &mut chart.series {
        s.y.iter_mut().for_each(|y| *y = None);
    }
    let error = draw_spec(&chart, &path).unwrap_err();
    assert!(
        matches!(error, ChartError::Empty { series: 2, .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "chart run-1-iops (Run 1: iops) has nothing to draw: none of its 2 series holds a value its axes can place"
    );
    chart.series.clear();
    let error = draw_spec(&chart, &path).unwrap_err();
    assert!(error.to_string().ends_with("it has no series"), "{error}");
    assert!(!path.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn series_without_data_are_named_on_one_legend_line_and_take_no_colour() {
    let mut chart = iops();
    chart
        .series
        .insert(0, series("trim", &[1.0, 2.0], &[None, None]));
    let svg = render_svg(&chart).unwrap();
    assert!(svg.lines().any(|l| l == "no data: trim"), "{svg}");
    let plan = plan(&chart).unwrap();
    let drawn: Vec<&str> = plan.lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(drawn, ["read", "write"], "read keeps the first colour");

    // Many of them: as many names as fit, then how many more.
    let names: Vec<String> = (0..40).map(|i| format!("loop{i} write")).collect();
    for name in &names {
        chart.series.push(series(name, &[1.0], &[None]));
    }
    let svg = render_svg(&chart).unwrap();
    let line = svg.lines().find(|l| l.starts_with("no data: ")).unwrap();
    assert!(line.ends_with(" more"), "{line}");
}

#[test]
fn mismatched_series_and_unknown_formats_are_refused_with_their_reason() {
    let mut chart = iops();
    chart.series[0].y.pop();
    let error = render_svg(&chart).unwrap_err();
    assert_eq!(
        error.to_string(),
        "chart run-1-iops, series read: 10 x values but 9 y values"
    );
    let error = draw_spec(&iops(), Path::new("chart.jpg")).unwrap_err();
    assert!(matches!(error, ChartError::UnknownFormat { .. }), "{error}");
    assert!(error.to_string().contains(".png or .svg"), "{error}");
}

#[test]
fn a_file_that_cannot_be_written_is_an_error_naming_it() {
    let error = draw_spec(&iops(), Path::new("/nonexistent-dir/chart.png")).unwrap_err();
    assert!(
        error.to_string().contains("/nonexistent-dir/chart.png"),
        "{error}"
    );
}

#[test]
fn a_legend_of_more_series_than_fit_counts_the_rest_on_its_last_line() {
    let seconds = [1.0, 2.0, 3.0];
    let many: Vec<SeriesSpec> = (0..120)
        .map(|i| {
            series(
                &format!("device{i} read"),
                &seconds,
                &[Some(1.0), Some(2.0), Some(f64::from(i))],
            )
        })
        .collect();
    let mut chart = iops();
    chart.series = many;
    chart
        .series
        .push(series("idle", &seconds, &[None, None, None]));
    let svg = render_svg(&chart).unwrap();
    let line = svg
        .lines()
        .find(|l| l.starts_with("and "))
        .unwrap_or_else(|| panic!("{svg}"));
    assert!(line.ends_with(" more series; 1 without data"), "{line}");
    assert!(svg.contains("device0 read") && !svg.contains("device119 read"));
}

#[test]
fn the_legend_is_below_the_plot_never_over_it_and_both_hold_drawn_pixels() {
    let mut specs = all_specs();
    // Many series: the legend takes several rows, still below the plot.
    let mut many = sweep_points();
    for k in 0..14 {
        many.series.push(series(
            &format!("{}K", 4 << k),
            &[1.0, 4.0],
            &[Some(5.0), Some(9.0)],
        ));
    }
    specs.push(many);
    for chart in specs {
        let (pixels, layout) = render_rgb(&chart).unwrap();
        assert!(
            !layout.plot.intersects(&layout.legend),
            "{}: legend {:?} over plot {:?}",
            chart.kind,
            layout.legend,
            layout.plot
        );
        assert!(
            layout.legend.top >= layout.plot.bottom,
            "{}: {layout:?}",
            chart.kind
        );
        let width = CHART_SIZE.0 as i32;
        let drawn_in = |rect: &Rect| {
            pixels
                .chunks(3)
                .enumerate()
                .filter(|(i, p)| {
                    let (x, y) = (*i as i32 % width, *i as i32 / width);
                    rect.contains(x, y) && *p != [255, 255, 255]
                })
                .count()
        };
        assert!(drawn_in(&layout.plot) > 1_000, "{}: plot", chart.kind);
        assert!(drawn_in(&layout.legend) > 100, "{}: legend", chart.kind);
    }
}

#[test]
fn a_direction_is_drawn_in_its_palette_colour() {
    let (pixels, layout) = render_rgb(&iops()).unwrap();
    for hex in [
        diskmeter_views::palette::READ,
        diskmeter_views::palette::WRITE,
    ] {
        let value = u32::from_str_radix(&hex[1..], 16).unwrap();
        let rgb = [(value >> 16) as u8, (value >> 8) as u8, value as u8];
        let n = pixels
            .chunks(3)
            .enumerate()
            .filter(|(i, p)| {
                let (x, y) = (*i as i32 % 960, *i as i32 / 960);
                layout.plot.contains(x, y) && *p == rgb
            })
            .count();
        assert!(n > 100, "{hex}: {n} pixels in the plot");
    }
}
