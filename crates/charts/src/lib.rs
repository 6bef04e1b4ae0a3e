//! Charts as SVG and PNG images, drawn with plotters: any chart of the view model
//! ([`draw_spec`] of a [`diskmeter_views::ChartSpec`], module [`spec`], for `diskmeter
//! chart`), and the charts of a sweep as the guides teach users to read them
//! ([`write_charts`], the view model's sweep charts drawn the same way): IOPS vs queue depth
//! per block size (flattening at the IOPS cap), MiB/s vs block size per queue depth
//! (flattening at the bandwidth cap) and mean latency vs queue depth (growing linearly once
//! throttled). Colours, dashes and a grid's ticks come from the one palette
//! ([`diskmeter_views::palette`]), so a chart looks as the report's does.
//!
//! Text uses DejaVu Sans embedded in
//! the binary (fonts/, Bitstream Vera licence), so no system font is needed.

#![forbid(unsafe_code)]

mod axis;
mod headline;
mod legend;
mod output;
pub mod spec;

pub use headline::{first_headline, headline_size, write_headline_png};
pub use output::{curve_output, sweep_output};
pub use spec::{
    draw_spec, draw_spec_layout, render_rgb, render_svg, ChartLayout, ImageFormat, Rect,
};

use diskmeter_analysis::{PointGroup, SweepPoint};
use diskmeter_views::ChartSpec;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::style::{register_font, FontStyle};
use std::path::{Path, PathBuf};
use std::sync::Once;
use thiserror::Error;

/// Width and height of every chart, pixels.
pub const CHART_SIZE: (u32, u32) = (960, 600);

static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// Why a chart could not be written.
#[derive(Debug, Error)]
pub enum ChartError {
    /// plotters could not draw it or write its file (the backend's error: an IO error for
    /// SVG, an image-encoding or IO error for PNG).
    #[error("chart {path}: {source}")]
    Draw {
        /// The file being written.
        path: String,
        /// The drawing area's error, with the backend's inside.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The file name asks for neither PNG nor SVG.
    #[error("{path}: charts are written as .png or .svg (the file's extension picks which)")]
    UnknownFormat {
        /// The file asked for.
        path: String,
    },
    /// No series holds a value the chart's axes can place: every value is missing (`None`),
    /// or zero or less on a log axis, or 100 % or more on a nines axis.
    #[error(
        "chart {chart} ({title}) has nothing to draw: {}",
        if *series == 0 { "it has no series".to_string() }
        else { format!("none of its {series} series holds a value its axes can place") }
    )]
    Empty {
        /// The chart's id.
        chart: String,
        /// Its title.
        title: String,
        /// How many series it has (all empty).
        series: usize,
    },
    /// The folder for a sweep's charts could not be made.
    #[error("cannot create {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `report --png`: none of the report's sections has headline cards (a capture alone).
    #[error("{path}: none of the report's sections has a headline to draw (a capture has none)")]
    NoHeadline {
        /// The PNG asked for.
        path: String,
    },
    /// A series has a different number of x and y values.
    #[error("chart {chart}, series {series}: {x_len} x values but {y_len} y values")]
    Mismatched {
        /// The chart's id.
        chart: String,
        /// The series' label.
        series: String,
        /// How many x values.
        x_len: usize,
        /// How many y values.
        y_len: usize,
    },
}

/// Turns a drawing area's error on `path` into a [`ChartError::Draw`].
fn draw_error<E: std::error::Error + Send + Sync + 'static>(
    path: &Path,
) -> impl FnOnce(DrawingAreaErrorKind<E>) -> ChartError + '_ {
    move |source| ChartError::Draw {
        path: path.display().to_string(),
        source: Box::new(source),
    }
}

fn register() {
    REGISTER.call_once(|| {
        // The embedded font is tested to load; failing here would only lose the text.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Writes every chart of `points` into `dir` as SVG and PNG ([`draw_spec`] of the view
/// model's sweep charts, so they look as the report's do), `title` saying what was swept;
/// returns the files written.
pub fn write_charts(
    dir: &Path,
    title: &str,
    points: &[SweepPoint],
) -> Result<Vec<PathBuf>, ChartError> {
    let specs = diskmeter_views::sweep::sweep_charts("sweep", title, points);
    let (written, mut errors) = write_spec_charts(dir, &specs);
    if errors.is_empty() {
        Ok(written)
    } else {
        Err(errors.remove(0))
    }
}

/// The folder for a sweep's charts as `--charts` gives it: none for `none`, the folder
/// given, or by default a new `diskmeter-sweep-<unix time>` folder here.
pub fn sweep_folder(given: Option<&str>) -> Option<PathBuf> {
    match given {
        Some("none") => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(PathBuf::from(format!(
            "diskmeter-sweep-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        ))),
    }
}

/// Writes the charts of each pattern of a sweep on `target` into `dir` ([`write_charts`]):
/// in a folder of its own per pattern when there are several (`randrw:70` in `randrw70`).
/// A pattern with no whole point has no curve to draw: no empty charts. Returns the files
/// written and why each pattern whose charts are missing could not be drawn.
pub fn write_sweep_charts(
    dir: &Path,
    target: &str,
    groups: &[PointGroup],
) -> (Vec<PathBuf>, Vec<ChartError>) {
    let (mut written, mut errors) = (Vec::new(), Vec::new());
    for group in groups.iter().filter(|g| !g.points.is_empty()) {
        let folder = if groups.len() > 1 {
            dir.join(group.rw.replace(':', ""))
        } else {
            dir.to_path_buf()
        };
        if let Err(source) = std::fs::create_dir_all(&folder) {
            errors.push(ChartError::Folder {
                path: folder.display().to_string(),
                source,
            });
            continue;
        }
        let about = format!("{} on {target}", group.rw);
        match write_charts(&folder, &about, &group.points) {
            Ok(files) => written.extend(files),
            Err(e) => errors.push(e),
        }
    }
    (written, errors)
}

/// Writes each of `specs` into `dir` as `<kind>.svg` and `<kind>.png` ([`draw_spec`]): a
/// sweep's IOPS-latency curve. Returns the files written and why any could not be.
pub fn write_spec_charts(dir: &Path, specs: &[ChartSpec]) -> (Vec<PathBuf>, Vec<ChartError>) {
    let (mut written, mut errors) = (Vec::new(), Vec::new());
    if let Err(source) = std::fs::create_dir_all(dir) {
        let path = dir.display().to_string();
        return (written, vec![ChartError::Folder { path, source }]);
    }
    for spec in specs {
        for extension in ["svg", "png"] {
            let path = dir.join(format!("{}.{extension}", spec.kind));
            match draw_spec(spec, &path) {
                Ok(()) => written.push(path),
                Err(e) => errors.push(e),
            }
        }
    }
    (written, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points() -> Vec<SweepPoint> {
        let mut v = Vec::new();
        for bs in [4096u64, 65536, 1 << 20] {
            for qd in [1u32, 4, 16, 64] {
                let iops = (f64::from(qd) / 0.0005)
                    .min(5000.0)
                    .min((200u64 << 20) as f64 / bs as f64);
                v.push(SweepPoint {
                    bs_bytes: bs,
                    qd,
                    iops,
                    bytes_per_sec: iops * bs as f64,
                    lat_mean_ns: f64::from(qd) / iops * 1e9,
                    lat_p99_ns: 0.0,
                });
            }
        }
        v
    }

    #[test]
    fn charts_are_written_with_their_size_and_text() {
        let dir = std::env::temp_dir().join(format!("dm-charts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = write_charts(&dir, "P30 sweep", &points()).unwrap();
        assert_eq!(files.len(), 6);
        for file in &files {
            let bytes = std::fs::read(file).unwrap();
            assert!(
                bytes.len() > 2000,
                "{} is {} bytes",
                file.display(),
                bytes.len()
            );
            if file.extension().is_some_and(|e| e == "png") {
                assert_eq!(&bytes[1..4], b"PNG");
                // IHDR: width and height, big-endian, at bytes 16..24.
                let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
                let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
                assert_eq!((width, height), CHART_SIZE);
            } else {
                let text = String::from_utf8(bytes).unwrap();
                assert!(text.contains("width=\"960\""), "{text:.300}");
                let name = file.display().to_string();
                let (axis, legend) = if name.contains("mibps") {
                    ("MiB/s", "QD 16")
                } else if name.contains("latency") {
                    ("mean latency (", "64K")
                } else {
                    ("IOPS", "4K")
                };
                assert!(text.contains(axis) && text.contains(legend), "{name}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
