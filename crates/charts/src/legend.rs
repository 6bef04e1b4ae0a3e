//! The legend of a [`ChartSpec`](diskmeter_views::ChartSpec) chart, drawn below the plot so it
//! never hides data: a swatch in the series' colour and its label per drawn series, in rows
//! across the width, then one line naming the series that had no value at all ("no data:
//! loop1 write, ..."), which get no colour, so the colours go to the lines that are drawn.
//! Swatches show each series' paint (colour and dash) from the one palette
//! ([`diskmeter_views::palette`]).

use crate::Rect;
use diskmeter_views::palette::Paint;
use diskmeter_views::ChartStyle;
use plotters::coord::Shift;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A paint's colour for plotters.
pub(crate) fn colour(paint: &Paint) -> RGBColor {
    let (r, g, b) = paint.rgb();
    RGBColor(r, g, b)
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
    /// Its width with the swatch, pixels.
    width: i32,
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
                width: size - 24,
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
            let (text_width, _) = area.estimate_text_size(&text, &style)?;
            entries.push(Entry {
                swatch: None,
                text,
                row,
                x: left,
                width: text_width as i32,
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
            let (text_width, _) = area.estimate_text_size(&text, &style)?;
            entries.push(Entry {
                swatch: None,
                text,
                row,
                x: left,
                width: text_width as i32,
            });
        }
        let rows = if entries.is_empty() { 0 } else { row + 1 };
        Ok(Legend { entries, rows })
    }

    /// The height it needs, pixels.
    pub(crate) fn height(&self) -> u32 {
        self.rows * ROW
    }

    /// The box its entries take in `area`, in the pixels of the whole chart.
    pub(crate) fn bounds<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Rect {
        let (x0, y0) = area.get_base_pixel();
        let left = self.entries.iter().map(|e| e.x).min().unwrap_or(0);
        let right = self
            .entries
            .iter()
            .map(|e| e.x + e.width)
            .max()
            .unwrap_or(0);
        Rect {
            left: x0 + left,
            top: y0,
            right: x0 + right,
            bottom: y0 + self.height() as i32,
        }
    }

    /// Draws it into `area` (as high as [`Legend::height`]), the `i`th drawn series'
    /// swatch in `paints[i]`.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        style: ChartStyle,
        paints: &[Paint],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let text = TextStyle::from(FONT).pos(Pos::new(HPos::Left, VPos::Center));
        for entry in &self.entries {
            let y = (entry.row * ROW + ROW / 2) as i32;
            let x = entry.x;
            let Some(index) = entry.swatch else {
                area.draw(&Text::new(entry.text.clone(), (x, y), text.clone()))?;
                continue;
            };
            let Some(paint) = paints.get(index) else {
                continue;
            };
            let colour = colour(paint);
            if style == ChartStyle::Bars {
                area.draw(&Rectangle::new(
                    [(x, y - 7), (x + SWATCH, y + 7)],
                    colour.filled(),
                ))?;
            } else if let [on, off, ..] = paint.dash[..] {
                // The swatch dashed as its line is: on, off, on... across its width.
                let mut from = x;
                while from < x + SWATCH {
                    let to = (from + on as i32).min(x + SWATCH);
                    area.draw(&PathElement::new(
                        vec![(from, y), (to, y)],
                        colour.stroke_width(3),
                    ))?;
                    from = to + off as i32;
                }
            } else {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + SWATCH, y)],
                    colour.stroke_width(3),
                ))?;
            }
            if style == ChartStyle::LinesPoints {
                area.draw(&Circle::new((x + SWATCH / 2, y), 4, colour.filled()))?;
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
