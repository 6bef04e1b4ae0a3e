//! The legend of a [`ChartSpec`](diskmeter_views::ChartSpec) chart, drawn below the plot so it
//! never hides data: a swatch in the series' colour and its label per drawn series, in rows
//! across the width, then one line naming the series that had no value at all ("no data:
//! loop1 write, ..."), which get no colour, so the colours go to the lines that are drawn.

use diskmeter_views::ChartStyle;
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Colours of the drawn series, in order: distinct in hue and lightness, readable on white.
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 92, 175),
    RGBColor(222, 84, 24),
    RGBColor(36, 146, 72),
    RGBColor(146, 56, 168),
    RGBColor(196, 146, 0),
    RGBColor(0, 148, 160),
    RGBColor(110, 110, 110),
    RGBColor(186, 36, 92),
    RGBColor(120, 80, 40),
    RGBColor(100, 150, 225),
];

/// The colour of the `index`th drawn series.
pub(crate) fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

const ROW: u32 = 26;
const SWATCH: i32 = 26;
const FONT: (&str, u32) = ("sans-serif", 16);

/// One entry: a swatch of the `index`th colour (or none) and a text.
struct Entry {
    swatch: Option<usize>,
    text: String,
    /// (row, x offset) where it goes.
    row: u32,
    x: i32,
}

/// A legend laid out across a width.
pub(crate) struct Legend {
    entries: Vec<Entry>,
    rows: u32,
}

impl Legend {
    /// Lays out the labels of the drawn series and the series without data across `width`,
    /// starting `left` pixels in (under the plot), in at most `max_height` pixels: series
    /// that do not fit are counted on the last line instead.
    pub(crate) fn layout<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        drawn: &[&str],
        without_data: &[&str],
        left: i32,
        width: u32,
        max_height: u32,
    ) -> Result<Legend, DrawingAreaErrorKind<DB::ErrorType>> {
        let max_rows = (max_height / ROW).max(1);
        let style = TextStyle::from(FONT);
        let right = width as i32 - left / 4;
        let mut entries = Vec::new();
        let (mut row, mut x) = (0u32, left);
        for (index, label) in drawn.iter().enumerate() {
            let (text_width, _) = area.estimate_text_size(label, &style)?;
            let size = SWATCH + 8 + text_width as i32 + 24;
            if x > left && x + size > right {
                row += 1;
                x = left;
            }
            entries.push(Entry {
                swatch: Some(index),
                text: label.to_string(),
                row,
                x,
            });
            x += size;
        }
        let rows_needed = row + 1 + u32::from(!without_data.is_empty());
        if !drawn.is_empty() && rows_needed > max_rows {
            // Keep the rows that fit with one line to spare, and say how many are left out.
            entries.retain(|e| e.row + 1 < max_rows);
            let hidden = drawn.len() - entries.len();
            let text = if without_data.is_empty() {
                format!("and {hidden} more series")
            } else {
                format!(
                    "and {hidden} more series; {} without data",
                    without_data.len()
                )
            };
            let row = max_rows - 1;
            entries.push(Entry {
                swatch: None,
                text,
                row,
                x: left,
            });
            return Ok(Legend {
                entries,
                rows: row + 1,
            });
        }
        if !without_data.is_empty() {
            // As many names as fit on one line, then how many more.
            let mut text = format!("no data: {}", without_data.join(", "));
            for shown in (1..without_data.len()).rev() {
                let (text_width, _) = area.estimate_text_size(&text, &style)?;
                if left + text_width as i32 <= right {
                    break;
                }
                text = format!(
                    "no data: {}, and {} more",
                    without_data[..shown].join(", "),
                    without_data.len() - shown
                );
            }
            if !entries.is_empty() {
                row += 1;
            }
            entries.push(Entry {
                swatch: None,
                text,
                row,
                x: left,
            });
        }
        let rows = if entries.is_empty() { 0 } else { row + 1 };
        Ok(Legend { entries, rows })
    }

    /// The height it needs, pixels.
    pub(crate) fn height(&self) -> u32 {
        self.rows * ROW
    }

    /// Draws it into `area` (as high as [`Legend::height`]).
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        style: ChartStyle,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let text = TextStyle::from(FONT).pos(Pos::new(HPos::Left, VPos::Center));
        for entry in &self.entries {
            let y = (entry.row * ROW + ROW / 2) as i32;
            let x = entry.x;
            let Some(index) = entry.swatch else {
                area.draw(&Text::new(entry.text.clone(), (x, y), text.clone()))?;
                continue;
            };
            let colour = colour(index);
            if style == ChartStyle::Bars {
                area.draw(&Rectangle::new(
                    [(x, y - 7), (x + SWATCH, y + 7)],
                    colour.filled(),
                ))?;
            } else {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + SWATCH, y)],
                    colour.stroke_width(3),
                ))?;
                if style == ChartStyle::LinesPoints {
                    area.draw(&Circle::new((x + SWATCH / 2, y), 4, colour.filled()))?;
                }
            }
            area.draw(&Text::new(
                entry.text.clone(),
                (x + SWATCH + 8, y),
                text.clone(),
            ))?;
        }
        Ok(())
    }
}
