//! The files every page inlines: uPlot (vendored unchanged from the npm registry, see
//! `assets/vendor/uplot/README.md`), our `charts.js` that draws the chart specs with it,
//! and the styles.

/// uPlot 1.6.32, minified, defines the global `uPlot`.
pub(crate) const UPLOT_JS: &str = include_str!("../assets/vendor/uplot/uPlot.iife.min.js");

/// Draws every chart spec of `#chart-data` with uPlot.
pub(crate) const CHARTS_JS: &str = include_str!("../assets/charts.js");

/// uPlot's stylesheet, then ours.
pub(crate) const STYLES: &str = concat!(
    include_str!("../assets/vendor/uplot/uPlot.min.css"),
    "\n",
    include_str!("../assets/report.css")
);
