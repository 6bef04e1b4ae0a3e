//! What the chart style promises, checked in the page (issue 32): each uPlot chart's legend
//! sits outside its plot (`.u-legend` vs `.u-over`) and shows a value while nothing is
//! hovered; the colours each chart's series are drawn in; and printing: the page as a PDF
//! (`Page.printToPDF`) and, under print media at the paper's width, where every chart is.

use super::Page;
use base64::Engine as _;
use serde_json::{json, Value};

/// A4's printable width and height at 96 CSS px per inch, with report.css's 12 mm margins:
/// (210 - 24) mm and (297 - 24) mm. Letter (216 x 279 mm) is as wide and less high; a
/// chart that fits A4's width fits both, and is checked against the lower height.
pub const PRINT_WIDTH_PX: f64 = 186.0 / 25.4 * 96.0;
/// See [`PRINT_WIDTH_PX`]: Letter's printable height (279 - 24 mm), the lower of the two.
pub const PRINT_HEIGHT_PX: f64 = 255.0 / 25.4 * 96.0;

/// One chart's boxes, CSS pixels from the page's top left corner.
#[derive(Debug, Clone)]
pub struct ChartBoxes {
    /// The chart's id.
    pub id: String,
    /// Its figure (title and chart): [left, top, right, bottom].
    pub figure: [f64; 4],
    /// Its plot area (`.u-over`), when drawn by uPlot.
    pub plot: Option<[f64; 4]>,
    /// Its legend (`.u-legend`), when it has one.
    pub legend: Option<[f64; 4]>,
    /// Its first canvas (what uPlot drew), when it has one.
    pub canvas: Option<[f64; 4]>,
    /// The text of the legend's first value (the x series'), as shown with nothing hovered.
    pub idle_value: String,
    /// The computed `break-inside` of its figure.
    pub break_inside: String,
}

impl ChartBoxes {
    /// Whether the legend and the plot share any pixel.
    pub fn legend_overlaps_plot(&self) -> bool {
        match (self.plot, self.legend) {
            (Some(p), Some(l)) => p[0] < l[2] && l[0] < p[2] && p[1] < l[3] && l[1] < p[3],
            _ => false,
        }
    }
}

const BOXES_JS: &str = r#"(() => {
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY];
  };
  return [...document.querySelectorAll('.chart')].map((chart) => {
    const figure = chart.closest('figure') || chart;
    const value = chart.querySelector('.u-legend .u-value');
    return { id: chart.id, figure: box(figure), plot: box(chart.querySelector('.u-over')),
             legend: box(chart.querySelector('.u-legend')),
             canvas: box(chart.querySelector('canvas')),
             idle: value ? value.textContent : '',
             brk: getComputedStyle(figure).breakInside };
  });
})()"#;

impl Page {
    /// Every chart's boxes as the page is laid out now.
    pub fn chart_boxes(&self) -> Vec<ChartBoxes> {
        let rect = |v: &Value| -> Option<[f64; 4]> {
            let a = v.as_array()?;
            let n = |i: usize| a.get(i).and_then(Value::as_f64).unwrap_or(0.0);
            Some([n(0), n(1), n(2), n(3)])
        };
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        self.eval(BOXES_JS)
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| ChartBoxes {
                id: text(&c["id"]),
                figure: rect(&c["figure"]).unwrap_or_default(),
                plot: rect(&c["plot"]),
                legend: rect(&c["legend"]),
                canvas: rect(&c["canvas"]),
                idle_value: text(&c["idle"]),
                break_inside: text(&c["brk"]),
            })
            .collect()
    }

    /// Asserts that no chart's legend overlaps its plot and that each legend shows what it
    /// summarises ("mean", "max", or a category) while nothing is hovered, never "--".
    pub fn assert_legends_beside_plots(&self) {
        for chart in self.chart_boxes() {
            assert!(
                !chart.legend_overlaps_plot(),
                "{}: the legend of {} overlaps its plot: {chart:?}",
                self.url,
                chart.id
            );
            if chart.legend.is_some() {
                assert!(
                    !chart.idle_value.is_empty() && chart.idle_value != "--",
                    "{}: the legend of {} shows {:?} until hovered",
                    self.url,
                    chart.id,
                    chart.idle_value
                );
            }
        }
    }

    /// The stroke colour of each series of chart `id` as uPlot draws it, by label.
    pub fn series_strokes(&self, id: &str) -> Vec<(String, String)> {
        let id = Value::String(id.to_string());
        let strokes = self.eval(&format!(
            "(() => {{ const u = window.diskmeterCharts.instances[{id}]; \
               return u.series.slice(1).map((s, i) => \
                 [s.label, typeof s.stroke === 'function' ? s.stroke(u, i + 1) : s.stroke]); }})()"
        ));
        strokes
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|pair| {
                let text = |i: usize| pair[i].as_str().unwrap_or_default().to_string();
                (text(0), text(1))
            })
            .collect()
    }

    /// Lays the page out as it prints (print media, the printable width of A4) and waits
    /// for the charts to be redrawn at that width; [`Page::show_on_screen`] undoes it.
    pub fn emulate_print(&self) {
        self.call("Emulation.setEmulatedMedia", json!({ "media": "print" }))
            .unwrap_or_else(|e| panic!("print media on {}: {e}", self.url));
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": PRINT_WIDTH_PX.floor() as u32, "height": PRINT_HEIGHT_PX as u32,
                    "deviceScaleFactor": 1, "mobile": false }),
        )
        .unwrap_or_else(|e| panic!("paper width on {}: {e}", self.url));
        self.eval(
            "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))",
        );
    }

    /// How many pixels of chart `id`'s canvas are exactly `rgb`.
    pub fn canvas_pixels_of(&self, id: &str, rgb: (u8, u8, u8)) -> u64 {
        let id = Value::String(id.to_string());
        let (r, g, b) = rgb;
        self.eval(&format!(
            "(() => {{ const c = document.getElementById({id}).querySelector('canvas');                const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;                let n = 0; for (let i = 0; i < d.length; i += 4)                  if (d[i] === {r} && d[i + 1] === {g} && d[i + 2] === {b} && d[i + 3] === 255) n++;                return n; }})()"
        ))
        .as_u64()
        .unwrap_or(0)
    }

    /// Undoes [`Page::emulate_print`].
    pub fn show_on_screen(&self) {
        let _ = self.call("Emulation.setEmulatedMedia", json!({ "media": "" }));
        let _ = self.call("Emulation.clearDeviceMetricsOverride", json!({}));
    }

    /// The page printed as a PDF on A4 (`Page.printToPDF`, as Chromium's Print > Save as
    /// PDF and `--print-to-pdf` make it), with the margins of report.css.
    pub fn print_to_pdf(&self) -> Vec<u8> {
        let pdf = self
            .call(
                "Page.printToPDF",
                json!({ "paperWidth": 210.0 / 25.4, "paperHeight": 297.0 / 25.4,
                        "preferCSSPageSize": true, "printBackground": true }),
            )
            .unwrap_or_else(|e| panic!("print {} to PDF: {e}", self.url));
        base64::engine::general_purpose::STANDARD
            .decode(pdf["data"].as_str().unwrap_or_default())
            .unwrap_or_else(|e| panic!("the PDF of {}: {e}", self.url))
    }
}
