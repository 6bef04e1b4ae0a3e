//! Any [`ChartSpec`] of the view model drawn with plotters, as PNG or SVG: the charts of the
//! HTML report for slides and tickets (`diskmeter chart`). Lines, lines with points and bars
//! (side by side per category), on linear, base-10 logarithmic or "nines" axes, with a
//! legend below the plot. A `None` value is a gap in its line; values an axis cannot place
//! (zero on a log axis, 100 % on a nines axis) are gaps too. A chart with nothing to draw is
//! an error, and no file is written for it.

use crate::axis::{AxisCoord, Mapping};
use crate::{draw_error, register, ChartError, CHART_SIZE};
use diskmeter_views::{ChartSpec, ChartStyle};
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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

/// Colours of the series, in order: distinct in hue and lightness, readable on white.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 92, 175),
    RGBColor(222, 84, 24),
    RGBColor(36, 146, 72),
    RGBColor(146, 56, 168),
    RGBColor(196, 146, 0),
    RGBColor(0, 148, 160),
    RGBColor(110, 110, 110),
    RGBColor(186, 36, 92),
];

/// The room left of the plot for the y labels, pixels; the legend starts there too.
const Y_LABEL_AREA: u32 = 88;
const MARGIN: u32 = 16;
const LEGEND_ROW: u32 = 26;
const LEGEND_SWATCH: i32 = 26;

/// One series, ready to draw: its drawable points in runs between gaps.
struct Line {
    label: String,
    runs: Vec<Vec<(f64, f64)>>,
}

impl Line {
    fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// A chart fitted to its data.
struct Plan {
    x: AxisCoord,
    y: AxisCoord,
    lines: Vec<Line>,
    /// For bars: the width of one category's group of bars, as x positions.
    bar_group: f64,
}

/// Splits each series into drawable runs and fits the axes to them.
fn plan(spec: &ChartSpec) -> Result<Plan, ChartError> {
    let x_mapping = Mapping::of(&spec.x);
    let y_mapping = Mapping::of(&spec.y);
    let mut lines = Vec::with_capacity(spec.series.len());
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for series in &spec.series {
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
        lines.push(Line {
            label: series.label.clone(),
            runs,
        });
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
        x: AxisCoord::fit(x_mapping, &xs, false, x_pad),
        y: AxisCoord::fit(y_mapping, &ys, y_from_zero, 0.0),
        lines,
        bar_group,
    })
}

/// The text of a series' legend entry.
fn legend_label(line: &Line) -> String {
    if line.is_empty() {
        format!("{} (no data)", line.label)
    } else {
        line.label.clone()
    }
}

/// Where the legend's entries go.
struct LegendLayout {
    /// (row, x offset) of each entry.
    at: Vec<(u32, i32)>,
    /// How many rows.
    rows: u32,
}

/// Legend entries laid out in rows across `width`.
fn legend_layout<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    width: u32,
) -> Result<LegendLayout, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = TextStyle::from(("sans-serif", 16));
    let left = (MARGIN + Y_LABEL_AREA) as i32;
    let mut at = Vec::with_capacity(lines.len());
    let (mut row, mut x) = (0u32, left);
    for line in lines {
        let (text_width, _) = area.estimate_text_size(&legend_label(line), &style)?;
        let entry = LEGEND_SWATCH + 8 + text_width as i32 + 24;
        if x > left && x + entry > width as i32 - MARGIN as i32 {
            row += 1;
            x = left;
        }
        at.push((row, x));
        x += entry;
    }
    let rows = if lines.is_empty() { 0 } else { row + 1 };
    Ok(LegendLayout { at, rows })
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    style: ChartStyle,
    lines: &[Line],
    at: &[(u32, i32)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let text = TextStyle::from(("sans-serif", 16)).pos(Pos::new(HPos::Left, VPos::Center));
    for (index, (line, &(row, x))) in lines.iter().zip(at).enumerate() {
        let color = PALETTE[index % PALETTE.len()];
        let y = (row * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        if style == ChartStyle::Bars {
            area.draw(&Rectangle::new(
                [(x, y - 7), (x + LEGEND_SWATCH, y + 7)],
                color.filled(),
            ))?;
        } else {
            area.draw(&PathElement::new(
                vec![(x, y), (x + LEGEND_SWATCH, y)],
                color.stroke_width(3),
            ))?;
            if style == ChartStyle::LinesPoints {
                area.draw(&Circle::new((x + LEGEND_SWATCH / 2, y), 4, color.filled()))?;
            }
        }
        area.draw(&Text::new(
            legend_label(line),
            (x + LEGEND_SWATCH + 8, y),
            text.clone(),
        ))?;
    }
    Ok(())
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
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (width, height) = root.dim_in_pixel();
    let legend = legend_layout(&root, &plan.lines, width)?;
    let legend_height = legend.rows * LEGEND_ROW + MARGIN / 2;
    let (plot_area, legend_area) = root.split_vertically(height - legend_height);

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
                let color = PALETTE[index % PALETTE.len()];
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
            for (index, line) in plan.lines.iter().enumerate() {
                let color = PALETTE[index % PALETTE.len()];
                for run in &line.runs {
                    if run.len() > 1 {
                        chart.draw_series(LineSeries::new(
                            run.iter().copied(),
                            color.stroke_width(2),
                        ))?;
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
    draw_legend(&legend_area, spec.style, &plan.lines, &legend.at)?;
    root.present()
}

/// Draws `spec` into `path`, as PNG or SVG by the file's extension.
pub fn draw_spec(spec: &ChartSpec, path: &Path) -> Result<(), ChartError> {
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

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
