//! Any [`ChartSpec`] of the view model drawn with plotters, as PNG or SVG: the charts of the
//! HTML report for slides and tickets (`diskmeter chart`). Lines, lines with points and bars
//! (side by side per category), on linear, base-10 logarithmic or "nines" axes, with a
//! legend below the plot (never over data; [`draw_spec_layout`] says where each went), in
//! the colours and dashes of [`ChartSpec::look`] (the palette the HTML shares); a log axis
//! ticks 1, 2, 5 per decade, or a grid's own values. A `None` value is a gap in its line; values an axis cannot place
//! (zero on a log axis, 100 % on a nines axis) are gaps too. A chart with nothing to draw is
//! an error, and no file is written for it.

use crate::axis::{AxisCoord, Mapping};
use crate::legend::{colour, Legend};
use crate::{draw_error, register, ChartError, CHART_SIZE};
use diskmeter_views::palette::Paint;
use diskmeter_views::{ChartSpec, ChartStyle};
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;
use std::path::Path;

/// The image formats a chart is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG, 960 x 600 pixels.
    Png,
    /// SVG with text as text.
    Svg,
}

impl ImageFormat {
    /// The format a file name asks for by its extension (`.png` or `.svg`, any case).
    pub fn of_path(path: &Path) -> Result<ImageFormat, ChartError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(ChartError::UnknownFormat {
                path: path.display().to_string(),
            }),
        }
    }
}

/// The room left of the plot for the y labels, pixels; the legend starts there too.
const Y_LABEL_AREA: u32 = 88;
const MARGIN: u32 = 16;

/// One series, ready to draw: its drawable points in runs between gaps, and its paint.
struct Line {
    label: String,
    runs: Vec<Vec<(f64, f64)>>,
    paint: Paint,
}

/// A rectangle of a chart, pixels from its top left corner (right and bottom excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Its left edge.
    pub left: i32,
    /// Its top edge.
    pub top: i32,
    /// Its right edge.
    pub right: i32,
    /// Its bottom edge.
    pub bottom: i32,
}

impl Rect {
    /// Whether the two share any pixel.
    pub fn intersects(&self, other: &Rect) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }

    /// Whether it holds the pixel (x, y).
    pub fn contains(&self, x: i32, y: i32) -> bool {
        (self.left..self.right).contains(&x) && (self.top..self.bottom).contains(&y)
    }
}

/// Where a drawn chart's parts are: the plot (inside the axes) and the legend's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChartLayout {
    /// The plotting area.
    pub plot: Rect,
    /// The box the legend's entries take (empty when it has none).
    pub legend: Rect,
}

/// A chart fitted to its data.
struct Plan {
    x: AxisCoord,
    y: AxisCoord,
    /// The series with something to draw, in order; the `i`th is drawn in colour `i`.
    lines: Vec<Line>,
    /// The labels of the series with nothing to draw.
    without_data: Vec<String>,
    /// For bars: the width of one category's group of bars, as x positions.
    bar_group: f64,
}

/// Splits each series into drawable runs and fits the axes to them.
fn plan(spec: &ChartSpec) -> Result<Plan, ChartError> {
    let x_mapping = Mapping::of(&spec.x);
    let y_mapping = Mapping::of(&spec.y);
    let look = spec.look();
    let mut lines = Vec::with_capacity(spec.series.len());
    let mut without_data = Vec::new();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (series, paint) in spec.series.iter().zip(look.series) {
        if series.x.len() != series.y.len() {
            return Err(ChartError::Mismatched {
                chart: spec.id.clone(),
                series: series.label.clone(),
                x_len: series.x.len(),
                y_len: series.y.len(),
            });
        }
        let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut run = Vec::new();
        for (&x, &y) in series.x.iter().zip(&series.y) {
            let placed = y.and_then(|y| {
                let px = x_mapping.position(x)?;
                let py = y_mapping.position(y)?;
                Some((px, py, y))
            });
            match placed {
                Some((px, py, y)) => {
                    xs.push(px);
                    ys.push(py);
                    run.push((x, y));
                }
                None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
                None => {}
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
        if runs.is_empty() {
            without_data.push(series.label.clone());
        } else {
            lines.push(Line {
                label: series.label.clone(),
                runs,
                paint,
            });
        }
    }
    if xs.is_empty() {
        return Err(ChartError::Empty {
            chart: spec.id.clone(),
            title: spec.title.clone(),
            series: spec.series.len(),
        });
    }
    let bars = spec.style == ChartStyle::Bars;
    let (bar_group, x_pad) = if !bars {
        (0.0, 0.0)
    } else if matches!(x_mapping, Mapping::Categories(_)) {
        (0.8, 0.0)
    } else {
        // Bars on a numeric axis: as wide as the closest two x values allow.
        let mut distinct = xs.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        let spacing = distinct
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        let spacing = if spacing.is_finite() { spacing } else { 1.0 };
        (0.8 * spacing, 0.5 * spacing)
    };
    let y_from_zero = y_mapping == Mapping::Linear;
    Ok(Plan {
        x: AxisCoord::fit(x_mapping, &xs, false, x_pad).with_grid(look.x_grid),
        y: AxisCoord::fit(y_mapping, &ys, y_from_zero, 0.0),
        lines,
        without_data,
        bar_group,
    })
}

/// The size of the category labels: smaller when many long names share the axis.
fn category_label_size(names: &[String], plot_width: u32) -> u32 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(1) as f64;
    let per_category = f64::from(plot_width) / names.len().max(1) as f64;
    // A character of the embedded font is about 0.6 em wide.
    (per_category / (0.6 * longest)).clamp(9.0, 15.0) as u32
}

fn draw_plan<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    plan: &Plan,
) -> Result<ChartLayout, DrawingAreaErrorKind<DB::ErrorType>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (width, height) = root.dim_in_pixel();
    let drawn: Vec<&str> = plan.lines.iter().map(|l| l.label.as_str()).collect();
    let without_data: Vec<&str> = plan.without_data.iter().map(String::as_str).collect();
    let legend = Legend::layout(
        &root,
        &drawn,
        &without_data,
        (MARGIN + Y_LABEL_AREA) as i32,
        width,
        height / 3,
    )?;
    let legend_height = legend.height() + MARGIN / 2;
    let (plot_area, legend_area) = root.split_vertically(height.saturating_sub(legend_height));

    let mut chart = ChartBuilder::on(&plot_area)
        .caption(&spec.title, ("sans-serif", 24))
        .margin(MARGIN)
        // Room for the last x label ("99.99%"), centred on the plot's right edge.
        .margin_right(MARGIN + 40)
        .x_label_area_size(56)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(plan.x.clone(), plan.y.clone())?;
    let (x_labels, x_label_size) = match plan.x.mapping() {
        Mapping::Categories(names) => (
            names.len(),
            category_label_size(names, width - Y_LABEL_AREA - 2 * MARGIN),
        ),
        _ => (10, 15),
    };
    chart
        .configure_mesh()
        .x_desc(spec.x.label.as_str())
        .y_desc(spec.y.label.as_str())
        .x_labels(x_labels)
        .y_labels(10)
        .x_label_style(("sans-serif", x_label_size))
        .y_label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.04))
        .draw()?;

    match spec.style {
        ChartStyle::Bars => {
            let x_mapping = plan.x.mapping();
            let base = match plan.y.mapping() {
                Mapping::Linear => 0.0,
                _ => plan.y.low_value(),
            };
            let slot = plan.bar_group / plan.lines.len().max(1) as f64;
            for (index, line) in plan.lines.iter().enumerate() {
                let color = colour(&line.paint);
                let bars = line.runs.iter().flatten().filter_map(|&(x, y)| {
                    let center = x_mapping.position(x)?;
                    let left = center - plan.bar_group / 2.0 + slot * (index as f64 + 0.05);
                    let right = left + slot * 0.9;
                    Some(Rectangle::new(
                        [(x_mapping.value(left), base), (x_mapping.value(right), y)],
                        color.filled(),
                    ))
                });
                chart.draw_series(bars)?;
            }
        }
        ChartStyle::Lines | ChartStyle::LinesPoints => {
            // In order: the solid first, the dashed over them, so a line under another
            // shows through the gaps of its dashes.
            for line in &plan.lines {
                let color = colour(&line.paint);
                for run in &line.runs {
                    if run.len() > 1 {
                        match line.paint.dash[..] {
                            [on, off, ..] => chart.draw_series(DashedLineSeries::new(
                                run.iter().copied(),
                                on,
                                off,
                                color.stroke_width(2),
                            ))?,
                            _ => chart.draw_series(LineSeries::new(
                                run.iter().copied(),
                                color.stroke_width(3),
                            ))?,
                        };
                    }
                    // A lone point between gaps would be invisible as a line.
                    if spec.style == ChartStyle::LinesPoints || run.len() == 1 {
                        chart
                            .draw_series(run.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
                    }
                }
            }
        }
    }
    let paints: Vec<Paint> = plan.lines.iter().map(|l| l.paint.clone()).collect();
    legend.draw(&legend_area, spec.style, &paints)?;
    let (x, y) = chart.plotting_area().get_pixel_range();
    let layout = ChartLayout {
        plot: Rect {
            left: x.start,
            top: y.start,
            right: x.end,
            bottom: y.end,
        },
        legend: legend.bounds(&legend_area),
    };
    root.present()?;
    Ok(layout)
}

/// Draws `spec` into `path`, as PNG or SVG by the file's extension.
pub fn draw_spec(spec: &ChartSpec, path: &Path) -> Result<(), ChartError> {
    draw_spec_layout(spec, path).map(|_| ())
}

/// [`draw_spec`], returning where the plot and the legend went (the legend is below the
/// plot, never over it; the tests hold the files to these boxes).
pub fn draw_spec_layout(spec: &ChartSpec, path: &Path) -> Result<ChartLayout, ChartError> {
    let format = ImageFormat::of_path(path)?;
    let plan = plan(spec)?;
    register();
    match format {
        ImageFormat::Svg => draw_plan(
            SVGBackend::new(path, CHART_SIZE).into_drawing_area(),
            spec,
            &plan,
        )
        .map_err(draw_error(path)),
        ImageFormat::Png => draw_plan(
            BitMapBackend::new(path, CHART_SIZE).into_drawing_area(),
            spec,
            &plan,
        )
        .map_err(draw_error(path)),
    }
}

/// `spec` as an SVG document.
pub fn render_svg(spec: &ChartSpec) -> Result<String, ChartError> {
    let plan = plan(spec)?;
    register();
    let mut svg = String::new();
    draw_plan(
        SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area(),
        spec,
        &plan,
    )
    .map_err(draw_error(Path::new("(SVG in memory)")))?;
    Ok(svg)
}

/// `spec` as PNG pixels (RGB, [`CHART_SIZE`]) with its layout: what the tests count
/// pixels of.
pub fn render_rgb(spec: &ChartSpec) -> Result<(Vec<u8>, ChartLayout), ChartError> {
    let plan = plan(spec)?;
    register();
    let mut pixels = vec![0u8; (CHART_SIZE.0 * CHART_SIZE.1 * 3) as usize];
    let layout = draw_plan(
        BitMapBackend::with_buffer(&mut pixels, CHART_SIZE).into_drawing_area(),
        spec,
        &plan,
    )
    .map_err(draw_error(Path::new("(PNG in memory)")))?;
    Ok((pixels, layout))
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
