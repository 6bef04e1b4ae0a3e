//! The one look of every chart: the colours, dash patterns and grid ticks a [`ChartSpec`]
//! is drawn with, decided here once and read by both renderers: the HTML report and
//! dashboard (`charts.js` gets them in the chart data, [`ChartLook`] beside each spec) and
//! the PNG/SVG charts of `diskmeter chart` and `sweep` (diskmeter-charts).
//!
//! The colours are the Okabe-Ito palette (Okabe and Ito, "Color Universal Design", 2002;
//! jfly.uni-koeln.de/color), which stays distinct for the common kinds of colour blindness,
//! without its yellow (#F0E442), which is unreadable on white paper and screens.
//!
//! - Directions have fixed colours: read blue, write vermillion, trim bluish green; so a
//!   write is the same colour in every chart, HTML or PNG.
//! - Block sizes and queue depths are keyed by value (the power of two picks the slot), so
//!   4 KiB has the same colour in a sweep's report and in its PNG and SVG charts; runs and
//!   other series take the slots in order from reddish purple, past the directions' colours
//!   (a run A and a run B should not read as a read and a write). Two series of one chart never share a colour
//!   while the palette lasts.
//! - A bound (an SLO line) is black and dashed.
//! - Series that may lie on top of one another (reads and writes of a 50/50 mix, read mean
//!   and read p99, block sizes that all flatten at one IOPS cap) differ in dash too: the
//!   first series of a chart is solid and wider, the later ones dashed, thinner and drawn
//!   after it, so a line under another shows through the gaps of the dashes.

use crate::{ChartSpec, ChartStyle, Scale};
use serde::{Deserialize, Serialize};

/// Okabe-Ito blue: reads.
pub const READ: &str = "#0072B2";
/// Okabe-Ito vermillion: writes.
pub const WRITE: &str = "#D55E00";
/// Okabe-Ito bluish green: trims.
pub const TRIM: &str = "#009E73";
/// Black: a bound (an SLO) drawn across a chart.
pub const BOUND: &str = "#000000";

/// The ordered colours of sizes, depths, runs and any other series: Okabe-Ito without its
/// yellow, the strongest first.
pub const SEQUENCE: [&str; 7] = [
    "#0072B2", // blue
    "#D55E00", // vermillion
    "#009E73", // bluish green
    "#CC79A7", // reddish purple
    "#E69F00", // orange
    "#56B4E9", // sky blue
    "#000000", // black
];

/// The slot of [`SEQUENCE`] the first series that is neither a direction, a size nor a
/// depth takes (reddish purple; then orange, sky blue, black, ...).
const OTHERS_FIRST: usize = 3;

/// Dash patterns (on, off pixels, ...), the first solid: told apart where lines overlap.
pub const DASHES: [&[u32]; 4] = [&[], &[10, 5], &[3, 4], &[12, 4, 3, 4]];

/// How one series is drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paint {
    /// Its colour, `#RRGGBB`.
    pub colour: String,
    /// Its dash pattern in pixels (on, off, ...); empty for a solid line.
    pub dash: Vec<u32>,
}

impl Paint {
    /// The colour as red, green, blue.
    pub fn rgb(&self) -> (u8, u8, u8) {
        let value = u32::from_str_radix(self.colour.trim_start_matches('#'), 16).unwrap_or(0);
        ((value >> 16) as u8, (value >> 8) as u8, value as u8)
    }
}

/// What a legend shows while no point is pointed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LegendSummary {
    /// The mean of each series (over time: per-second rates and latencies).
    Mean,
    /// The highest value of each series (curves, histograms, bars).
    Max,
}

/// How a chart is drawn, beside its spec: one paint per series, in order; the x ticks when
/// the x values are a grid (a sweep's queue depths or block sizes: ticks exactly there);
/// the legend's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartLook {
    /// One per series of the spec.
    pub series: Vec<Paint>,
    /// The x values ticked and labelled, when they are a grid; empty: the renderer's ticks.
    pub x_grid: Vec<f64>,
    /// What the legend shows with no point pointed at.
    pub summary: LegendSummary,
}

/// What a series' label says it is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Key {
    Direction(&'static str),
    /// A power-of-two value (block size, queue depth): its preferred slot in [`SEQUENCE`].
    Power(u32),
    Bound,
    Other,
}

fn key_of(label: &str) -> Key {
    let lower = label.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    for (word, colour) in [("read", READ), ("write", WRITE), ("trim", TRIM)] {
        if words.contains(&word) {
            return Key::Direction(colour);
        }
    }
    if words.first() == Some(&"slo") {
        return Key::Bound;
    }
    if let ["qd", depth] = words.as_slice() {
        if let Ok(depth) = depth.parse::<u64>() {
            return power(depth, 0);
        }
    }
    match size_bytes(&lower) {
        // 4 KiB (2^12) takes the first slot.
        Some(bytes) => power(bytes, 12),
        None => Key::Other,
    }
}

/// The slot of a power of two: its log2 less `first`, round the palette; QD 1 and 4 KiB
/// take the first colour, QD 4 and 16 KiB the third.
fn power(value: u64, first: u32) -> Key {
    if value == 0 {
        return Key::Other;
    }
    let length = SEQUENCE.len() as u32;
    let log2 = 63 - value.leading_zeros();
    Key::Power((log2 + length * 10 - first % length) % length)
}

/// "4K", "64 KiB", "1M", "512" as bytes (a sweep's block-size label).
fn size_bytes(label: &str) -> Option<u64> {
    let label = label.trim().trim_end_matches("ib").trim_end_matches('b');
    let digits = label.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == ' ');
    let suffix = label[digits.len()..].trim();
    let number: u64 = digits.trim().parse().ok()?;
    let shift = match suffix {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        _ => return None,
    };
    number.checked_mul(1 << shift)
}

impl ChartSpec {
    /// How this chart is drawn: see the module's doc.
    pub fn look(&self) -> ChartLook {
        let keys: Vec<Key> = self.series.iter().map(|s| key_of(&s.label)).collect();
        let mut used: Vec<&str> = keys
            .iter()
            .filter_map(|k| match k {
                Key::Direction(c) => Some(*c),
                _ => None,
            })
            .collect();
        let mut colours = Vec::with_capacity(keys.len());
        let mut ordinal = 0usize;
        for key in &keys {
            let colour = match key {
                Key::Direction(colour) => *colour,
                Key::Bound => BOUND,
                Key::Power(_) | Key::Other => {
                    // Runs, CPU kinds, percentiles start past the direction colours, so
                    // a run A and a run B do not read as a read and a write.
                    let preferred = match key {
                        Key::Power(slot) => *slot as usize,
                        _ => OTHERS_FIRST + ordinal,
                    };
                    ordinal += 1;
                    // The preferred slot, or the next one no other series of the chart has.
                    let colour = (0..SEQUENCE.len())
                        .map(|k| SEQUENCE[(preferred + k) % SEQUENCE.len()])
                        .find(|c| !used.contains(c))
                        .unwrap_or(SEQUENCE[preferred % SEQUENCE.len()]);
                    used.push(colour);
                    colour
                }
            };
            colours.push(colour);
        }
        let bars = self.style == ChartStyle::Bars;
        let series = colours
            .iter()
            .enumerate()
            .map(|(index, colour)| {
                let dash = if bars {
                    &[][..]
                } else if keys[index] == Key::Bound {
                    DASHES[1]
                } else if matches!(keys[index], Key::Direction(_)) {
                    // The first direction's first series is solid; the next direction is
                    // dashed (a write level with the read shows both), and so is a
                    // direction's second series (its p99 beside its mean).
                    let mut directions: Vec<&str> = Vec::new();
                    for (k, c) in keys[..index].iter().zip(&colours) {
                        if matches!(k, Key::Direction(_)) && !directions.contains(c) {
                            directions.push(c);
                        }
                    }
                    let rank = directions
                        .iter()
                        .position(|c| c == colour)
                        .unwrap_or(directions.len());
                    let before = colours[..index].iter().filter(|c| *c == colour).count();
                    DASHES[(rank + before) % DASHES.len()]
                } else {
                    DASHES[index % DASHES.len()]
                };
                Paint {
                    colour: colour.to_string(),
                    dash: dash.to_vec(),
                }
            })
            .collect();
        let summary = if !bars && self.x.label.starts_with("time") {
            LegendSummary::Mean
        } else {
            LegendSummary::Max
        };
        ChartLook {
            series,
            x_grid: self.x_grid(),
            summary,
        }
    }

    /// The x values, when they are a grid every series shares and there are few of them
    /// (a sweep's queue depths or block sizes): a log axis ticked there reads 4, 16, 64.
    fn x_grid(&self) -> Vec<f64> {
        if self.style != ChartStyle::LinesPoints || self.x.scale != Scale::Log10 {
            return Vec::new();
        }
        let mut xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.x.iter().copied())
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        if xs.len() > 12 {
            return Vec::new();
        }
        xs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Axis, SeriesSpec};

    fn spec(style: ChartStyle, labels: &[&str]) -> ChartSpec {
        ChartSpec {
            id: "c".into(),
            kind: "k".into(),
            title: "t".into(),
            style,
            x: Axis {
                label: "queue depth".into(),
                scale: Scale::Log10,
                categories: Vec::new(),
            },
            y: Axis::linear("IOPS"),
            series: labels
                .iter()
                .map(|l| SeriesSpec {
                    label: l.to_string(),
                    x: vec![1.0, 4.0, 16.0, 64.0],
                    y: vec![Some(1.0); 4],
                })
                .collect(),
        }
    }

    fn colours(look: &ChartLook) -> Vec<&str> {
        look.series.iter().map(|p| p.colour.as_str()).collect()
    }

    #[test]
    fn directions_have_their_colour_whatever_else_the_chart_holds() {
        let look = spec(
            ChartStyle::Lines,
            &["write", "read mean", "read p99", "vda trim"],
        )
        .look();
        assert_eq!(colours(&look), [WRITE, READ, READ, TRIM]);
        assert!(look.series[0].dash.is_empty(), "the first direction: solid");
        assert!(!look.series[1].dash.is_empty(), "the next: dashed");
        assert_ne!(
            look.series[1].dash, look.series[2].dash,
            "mean and p99 differ"
        );
        let both = spec(ChartStyle::Lines, &["read", "write"]).look();
        assert!(both.series[0].dash.is_empty() && !both.series[1].dash.is_empty());
    }

    #[test]
    fn a_block_size_has_one_colour_in_every_chart_and_none_is_shared_in_one() {
        let small = spec(ChartStyle::LinesPoints, &["4K", "64K"]).look();
        let large = spec(ChartStyle::LinesPoints, &["4K", "16K", "64K", "1M"]).look();
        assert_eq!(small.series[0].colour, large.series[0].colour);
        assert_eq!(small.series[1].colour, large.series[2].colour);
        assert_eq!(key_of("4 KiB"), key_of("4K"));
        assert_eq!(key_of("QD 16"), Key::Power(4));
        assert_eq!(
            small.series[0].colour, SEQUENCE[0],
            "4 KiB: the first colour"
        );
        let many: Vec<String> = (9..16).map(|p| format!("{}K", 1u64 << p)).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let look = spec(ChartStyle::LinesPoints, &many).look();
        let mut distinct = colours(&look);
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 7, "{:?}", colours(&look));
        assert!(SEQUENCE.iter().all(|c| *c != "#F0E442"), "no yellow");
    }

    #[test]
    fn overlapping_lines_differ_in_dash_and_bars_have_none() {
        let look = spec(ChartStyle::LinesPoints, &["4K", "16K", "64K"]).look();
        let dashes: Vec<&Vec<u32>> = look.series.iter().map(|p| &p.dash).collect();
        assert!(dashes[0].is_empty() && dashes[1] != dashes[2] && !dashes[1].is_empty());
        let bars = spec(ChartStyle::Bars, &["A (baseline)", "B (candidate)"]).look();
        assert!(bars.series.iter().all(|p| p.dash.is_empty()));
        assert_ne!(bars.series[0].colour, bars.series[1].colour);
        assert!(
            bars.series
                .iter()
                .all(|p| p.colour != READ && p.colour != WRITE),
            "runs are not coloured as directions: {:?}",
            bars.series
        );
        assert_eq!(bars.summary, LegendSummary::Max);
    }

    #[test]
    fn a_sweeps_grid_is_ticked_at_its_values() {
        let look = spec(ChartStyle::LinesPoints, &["4K"]).look();
        assert_eq!(look.x_grid, [1.0, 4.0, 16.0, 64.0]);
        assert!(spec(ChartStyle::Lines, &["read"]).look().x_grid.is_empty());
        assert_eq!(
            Paint {
                colour: WRITE.into(),
                dash: vec![]
            }
            .rgb(),
            (0xD5, 0x5E, 0x00)
        );
    }
}
