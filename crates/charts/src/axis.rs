//! One axis of a [`ChartSpec`](diskmeter_views::ChartSpec) as a plotters coordinate: how a
//! value maps to a position (linear, base-10 logarithmic, "nines" or categories), which
//! range is shown, where the ticks go and how they are labelled. plotters draws the mesh
//! from [`Ranged`] and [`ValueFormatter`], so one type serves every scale and the chart
//! code never needs to know which one it has.

use diskmeter_views::{Axis, Scale};
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use std::ops::Range;

/// How values map to positions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mapping {
    /// Position = value.
    Linear,
    /// Position = log10(value); values must be positive.
    Log10,
    /// Position = -log10(1 - p/100) for a percentile p in 0..100, so 90, 99 and 99.9 are
    /// evenly spaced.
    Nines,
    /// Position = the category's index; labels are the names.
    Categories(Vec<String>),
}

/// An axis fitted to the values it shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AxisCoord {
    mapping: Mapping,
    /// The shown range, as positions.
    lo_pos: f64,
    hi_pos: f64,
    /// The values of a grid (a sweep's queue depths): ticked and labelled exactly there.
    grid: Vec<f64>,
}

/// At most this many labelled ticks per numeric axis.
pub(crate) const LABELS: usize = 10;

impl Mapping {
    /// The mapping an axis asks for: categories win over the scale, since their values are
    /// indices.
    pub(crate) fn of(axis: &Axis) -> Mapping {
        if !axis.categories.is_empty() {
            return Mapping::Categories(axis.categories.clone());
        }
        match axis.scale {
            Scale::Linear => Mapping::Linear,
            Scale::Log10 => Mapping::Log10,
            Scale::Nines => Mapping::Nines,
        }
    }

    /// Where `value` goes, or `None` when it cannot be drawn on this scale (zero or less on
    /// a log axis, 100 % or more on a nines axis, not a number).
    pub(crate) fn position(&self, value: f64) -> Option<f64> {
        if !value.is_finite() {
            return None;
        }
        match self {
            Mapping::Linear => Some(value),
            // An index past the categories has no name to stand under.
            Mapping::Categories(names) => {
                (value > -0.5 && value < names.len() as f64 - 0.5).then_some(value)
            }
            Mapping::Log10 => (value > 0.0).then(|| value.log10()),
            Mapping::Nines => (0.0..100.0)
                .contains(&value)
                .then(|| -(1.0 - value / 100.0).log10()),
        }
    }

    /// The value at `position` (the inverse of [`Mapping::position`]).
    pub(crate) fn value(&self, position: f64) -> f64 {
        match self {
            Mapping::Linear | Mapping::Categories(_) => position,
            Mapping::Log10 => 10f64.powf(position),
            Mapping::Nines => 100.0 * (1.0 - 10f64.powf(-position)),
        }
    }
}

impl AxisCoord {
    /// An axis showing every position in `positions` (as [`Mapping::position`] gives them)
    /// with round ends: whole decades on a log axis, whole nines on a nines axis, every
    /// category. `include_zero` starts a linear axis at zero (bar heights and rates are read
    /// against zero); `pad` widens both ends by that many positions (half a bar).
    pub(crate) fn fit(
        mapping: Mapping,
        positions: &[f64],
        include_zero: bool,
        pad: f64,
    ) -> AxisCoord {
        let min = positions.iter().copied().fold(f64::INFINITY, f64::min);
        let max = positions.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (min, max) = if min.is_finite() {
            (min, max)
        } else {
            (0.0, 1.0)
        };
        let (mut lo, mut hi) = match &mapping {
            Mapping::Categories(names) => (-0.5, names.len().max(1) as f64 - 0.5),
            Mapping::Linear => {
                let (mut lo, mut hi) = (min, max);
                if include_zero {
                    lo = lo.min(0.0);
                    hi = hi.max(0.0);
                }
                if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
                    let half = (hi.abs() * 0.1).max(1.0);
                    lo -= half;
                    hi += half;
                } else if include_zero {
                    // Headroom above the highest value; the zero end stays at zero.
                    let span = hi - lo;
                    if hi > 0.0 {
                        hi += span * 0.05;
                    }
                    if lo < 0.0 {
                        lo -= span * 0.05;
                    }
                }
                (lo, hi)
            }
            Mapping::Log10 => {
                let lo = min.floor();
                let hi = max.ceil().max(lo + 1.0);
                (lo, hi)
            }
            Mapping::Nines => {
                // Below 90 % the whole lower part is shown, from 0 %.
                let lo = if min < 1.0 { 0.0 } else { min.floor() };
                let hi = (max - 1e-9).ceil().max(lo + 1.0);
                (lo, hi)
            }
        };
        lo -= pad;
        hi += pad;
        AxisCoord {
            mapping,
            lo_pos: lo,
            hi_pos: hi,
            grid: Vec::new(),
        }
    }

    /// The axis ticked at the values of a grid (a sweep's 1, 4, 16, 64), a little beyond
    /// its ends, instead of at round numbers: 4/16/64 reads as 4/16/64, not as 10-70. Only
    /// for a log axis (a grid doubles or quadruples from value to value).
    pub(crate) fn with_grid(mut self, grid: Vec<f64>) -> AxisCoord {
        let positions: Vec<f64> = grid
            .iter()
            .filter_map(|v| self.mapping.position(*v))
            .collect();
        if self.mapping != Mapping::Log10 || positions.len() < 2 {
            return self;
        }
        let min = positions.iter().copied().fold(f64::INFINITY, f64::min);
        let max = positions.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pad = (max - min) * 0.06;
        self.lo_pos = min - pad;
        self.hi_pos = max + pad;
        self.grid = grid;
        self
    }

    /// How values map to positions.
    pub(crate) fn mapping(&self) -> &Mapping {
        &self.mapping
    }

    /// The value at the lower end.
    pub(crate) fn low_value(&self) -> f64 {
        self.mapping.value(self.lo_pos)
    }

    /// A position clamped into the shown range (values that cannot be placed go to the
    /// low end; the chart code leaves them out before they get here).
    fn clamped(&self, value: f64) -> f64 {
        self.mapping
            .position(value)
            .unwrap_or(self.lo_pos)
            .clamp(self.lo_pos, self.hi_pos)
    }

    fn in_range(&self, position: f64) -> bool {
        let slack = (self.hi_pos - self.lo_pos) * 1e-9;
        position >= self.lo_pos - slack && position <= self.hi_pos + slack
    }

    /// Tick positions of a linear axis: multiples of a 1-2-5 step, at most `max` of them.
    fn linear_ticks(&self, max: usize) -> Vec<f64> {
        let span = self.hi_pos - self.lo_pos;
        let raw = span / max.max(1) as f64;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * magnitude)
            .find(|step| *step >= raw)
            .unwrap_or(10.0 * magnitude);
        let first = (self.lo_pos / step).ceil() as i64;
        let last = (self.hi_pos / step).floor() as i64;
        // At most max + 1 whatever the rounding of huge values.
        (first..=last)
            .take(max + 1)
            .map(|k| k as f64 * step)
            .collect()
    }

    /// Positions `start, start+1, ...` in range, every k-th so that at most `max` remain.
    fn whole_ticks(&self, start: f64, max: usize) -> Vec<f64> {
        let all: Vec<f64> = (0..)
            .map(|k| start + f64::from(k))
            .take_while(|p| *p <= self.hi_pos + 1e-9)
            .filter(|p| self.in_range(*p))
            .collect();
        thin(all, max)
    }
}

/// Every k-th of `ticks`, so that at most `max` remain (the first is kept).
fn thin(ticks: Vec<f64>, max: usize) -> Vec<f64> {
    let max = max.max(1);
    if ticks.len() <= max {
        return ticks;
    }
    let every = ticks.len().div_ceil(max);
    ticks.into_iter().step_by(every).collect()
}

impl Ranged for AxisCoord {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (self.clamped(*value) - self.lo_pos) / (self.hi_pos - self.lo_pos);
        (f64::from(limit.0) + fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points();
        if max == 0 {
            return Vec::new();
        }
        // Light grid lines only between the decades of a log axis, where they show the
        // scale; elsewhere they would only add noise.
        let light = hint.weight().allow_light_points();
        if light && (self.mapping != Mapping::Log10 || !self.grid.is_empty()) {
            return Vec::new();
        }
        if !self.grid.is_empty() {
            return thin(self.grid.clone(), max);
        }
        match &self.mapping {
            Mapping::Linear => self.linear_ticks(max),
            Mapping::Categories(_) => self.whole_ticks(self.lo_pos.ceil().max(0.0), max),
            Mapping::Log10 => {
                let decades = self.whole_ticks(self.lo_pos.ceil(), max);
                if !light && self.hi_pos - self.lo_pos <= 3.0 {
                    // Few decades: 1, 2, 5, 10, 20, 50... as a log axis is read.
                    let mut values = Vec::new();
                    let mut decade = self.lo_pos.floor();
                    while decade <= self.hi_pos {
                        for m in [1.0f64, 2.0, 5.0] {
                            let p = decade + m.log10();
                            if self.in_range(p) {
                                values.push(self.mapping.value(p));
                            }
                        }
                        decade += 1.0;
                    }
                    if values.len() <= max {
                        return values;
                    }
                }
                if !light {
                    return decades.into_iter().map(|p| self.mapping.value(p)).collect();
                }
                // Light lines at 2..9 times each decade.
                let mut values = Vec::new();
                let mut decade = self.lo_pos.floor();
                while decade <= self.hi_pos {
                    for m in 1..10 {
                        let p = decade + f64::from(m).log10();
                        if self.in_range(p) {
                            values.push(self.mapping.value(p));
                        }
                    }
                    decade += 1.0;
                }
                thin(values, max)
            }
            Mapping::Nines => {
                // 50 % (or 0 % when 50 % is not shown: it would crowd it), then 90 %,
                // 99 %, 99.9 %...: one nine per tick, as charts.js ticks it.
                let mut positions = Vec::new();
                if self.in_range(2f64.log10()) {
                    positions.push(2f64.log10());
                } else if self.in_range(0.0) {
                    positions.push(0.0);
                }
                positions.extend(self.whole_ticks(self.lo_pos.ceil().max(1.0), max));
                thin(positions, max)
                    .into_iter()
                    .map(|p| self.mapping.value(p))
                    .collect()
            }
        }
    }

    fn range(&self) -> Range<f64> {
        self.mapping.value(self.lo_pos)..self.mapping.value(self.hi_pos)
    }
}

impl ValueFormatter<f64> for AxisCoord {
    fn format_ext(&self, value: &f64) -> String {
        match &self.mapping {
            Mapping::Linear => axis_number(*value, &self.linear_ticks(LABELS)),
            // A grid's values as they are (a 1024 KiB block is 1024, not 1.02k).
            Mapping::Log10 if !self.grid.is_empty() => scaled_number(*value, 1e6),
            // 1, 10, 100, 1k, 10k: a log axis's thousands alike.
            Mapping::Log10 => scaled_number(*value, 1e3),
            Mapping::Nines => percent_label(*value),
            Mapping::Categories(names) => {
                let index = value.round();
                if (value - index).abs() < 1e-6 && index >= 0.0 {
                    names.get(index as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
        }
    }
}

/// A percentile as a tick label: `50%`, `90%`, `99%`, `99.9%`, `99.99%`.
pub(crate) fn percent_label(percentile: f64) -> String {
    let nines = -(1.0 - percentile / 100.0).log10();
    let decimals = ((nines - 1e-6).ceil() - 2.0).max(0.0) as usize;
    format!("{percentile:.decimals$}%")
}

/// A tick of a linear axis, labelled as all its `ticks` are: one unit suffix for the axis
/// (none, k, M or G: `0, 2k, 4k`, never `0.00` beside `1000`) and as many decimals as its
/// step needs (`0, 0.25, 0.5`; `0, 2.5k, 5k`).
pub(crate) fn axis_number(value: f64, ticks: &[f64]) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let top = ticks.iter().fold(value.abs(), |m, t| m.max(t.abs()));
    let step = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    let step = if step.is_finite() { step } else { top };
    let (divisor, suffix) = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        // k only from 10k: 0 to 1000 in steps of 100 reads better without it.
        .find(|(d, _)| top >= d * if *d == 1e3 { 10.0 } else { 1.0 } && step / d >= 0.1)
        .unwrap_or((1.0, ""));
    let scaled_step = step / divisor;
    let decimals = (0..6)
        .find(|d| {
            let shifted = scaled_step * 10f64.powi(*d);
            (shifted - shifted.round()).abs() < 1e-6 * shifted.max(1.0)
        })
        .unwrap_or(6) as usize;
    let text = format!("{:.decimals$}", value / divisor);
    // 2.5k beside 5k, not 5.0k: the step's decimals, without trailing zeros.
    format!("{}{suffix}", without_trailing_zeros(text))
}

/// `text` without the zeros after its decimal point (2.50 reads 2.5, 5.0 reads 5), and
/// "-0" as "0".
fn without_trailing_zeros(text: String) -> String {
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    if text == "-0" {
        "0".to_string()
    } else {
        text
    }
}

/// A tick value of a log axis, short: `0.25`, `750`, `2.5k`, `12.5k`, `3M`, with thousands
/// as `k` from `k_from` on (1e3: `1k` beside `10k`, never `1000` beside `10k`).
fn scaled_number(value: f64, k_from: f64) -> String {
    let magnitude = value.abs();
    let (scaled, suffix) = if magnitude >= 1e9 {
        (value / 1e9, "G")
    } else if magnitude >= 1e6 {
        (value / 1e6, "M")
    } else if magnitude >= k_from {
        (value / 1e3, "k")
    } else {
        (value, "")
    };
    let scaled_magnitude = scaled.abs();
    let decimals = if scaled_magnitude == 0.0 || scaled_magnitude >= 100.0 {
        0
    } else if scaled_magnitude >= 1.0 {
        2
    } else {
        // Three significant digits below one.
        (-scaled_magnitude.log10()).ceil() as usize + 2
    };
    let text = format!("{scaled:.decimals$}");
    format!("{}{suffix}", without_trailing_zeros(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::coord::ranged1d::BoldPoints;

    fn fitted(mapping: Mapping, values: &[f64], include_zero: bool) -> AxisCoord {
        let positions: Vec<f64> = values.iter().filter_map(|v| mapping.position(*v)).collect();
        AxisCoord::fit(mapping, &positions, include_zero, 0.0)
    }

    fn labels(axis: &AxisCoord) -> Vec<String> {
        axis.key_points(BoldPoints(20))
            .iter()
            .map(|v| axis.format_ext(v))
            .collect()
    }

    #[test]
    fn a_nines_axis_spaces_90_99_and_999_evenly_and_labels_them_as_percentiles() {
        let axis = fitted(Mapping::Nines, &[1.0, 50.0, 99.0, 99.95], false);
        assert_eq!(labels(&axis), ["50%", "90%", "99%", "99.9%", "99.99%"]);
        let at = |p: f64| axis.map(&p, (0, 4000));
        assert_eq!(at(90.0), 1000);
        assert_eq!(at(99.0), 2000);
        assert_eq!(at(99.9), 3000);
        assert_eq!(at(99.99), 4000);
    }

    #[test]
    fn a_nines_axis_places_nothing_at_or_beyond_100_percent() {
        assert_eq!(Mapping::Nines.position(100.0), None);
        assert_eq!(Mapping::Nines.position(-1.0), None);
        assert_eq!(Mapping::Nines.position(0.0), Some(0.0));
    }

    #[test]
    fn a_log_axis_spans_whole_decades_and_labels_them_shortly() {
        let axis = fitted(Mapping::Log10, &[3.0, 450.0, 12_000.0], false);
        assert_eq!(axis.range(), 1.0..100_000.0);
        assert_eq!(
            axis.key_points(BoldPoints(10))
                .iter()
                .map(|v| axis.format_ext(v))
                .collect::<Vec<_>>(),
            ["1", "10", "100", "1k", "10k", "100k"]
        );
        assert_eq!(Mapping::Log10.position(0.0), None);
    }

    #[test]
    fn a_linear_axis_starts_at_zero_when_asked_and_ticks_in_round_steps() {
        let axis = fitted(Mapping::Linear, &[120.0, 980.0], true);
        let range = axis.range();
        assert_eq!(range.start, 0.0);
        assert!(range.end > 980.0 && range.end < 1100.0, "{range:?}");
        assert_eq!(
            labels(&axis)[..4],
            ["0", "100", "200", "300"].map(String::from)
        );
        let flat = fitted(Mapping::Linear, &[5.0, 5.0], false);
        assert!(flat.range().start < 5.0 && flat.range().end > 5.0);
    }

    #[test]
    fn a_category_axis_labels_each_index_with_its_name() {
        let names = vec!["SEQ1M".to_string(), "RND4K".to_string()];
        let axis = fitted(Mapping::Categories(names), &[0.0, 1.0], false);
        assert_eq!(axis.range(), -0.5..1.5);
        assert_eq!(labels(&axis), ["SEQ1M", "RND4K"]);
        assert_eq!(axis.format_ext(&0.5), "");
        assert_eq!(axis.mapping().position(2.0), None, "no third category");
    }

    #[test]
    fn a_linear_axis_labels_its_ticks_alike() {
        let ticks = [0.0, 2500.0, 5000.0, 7500.0, 10_000.0, 12_500.0];
        let texts: Vec<String> = ticks.iter().map(|t| axis_number(*t, &ticks)).collect();
        assert_eq!(texts, ["0", "2.5k", "5k", "7.5k", "10k", "12.5k"]);
        let ticks = [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0];
        let texts: Vec<String> = ticks.iter().map(|t| axis_number(*t, &ticks)).collect();
        assert_eq!(texts, ["0", "200", "400", "600", "800", "1000"]);
        let ticks = [0.0, 0.25, 0.5, 0.75];
        let texts: Vec<String> = ticks.iter().map(|t| axis_number(*t, &ticks)).collect();
        assert_eq!(texts, ["0", "0.25", "0.5", "0.75"]);
    }

    #[test]
    fn a_grid_is_ticked_at_its_values_and_a_few_decades_at_1_2_5() {
        let axis = fitted(Mapping::Log10, &[4.0, 64.0], false).with_grid(vec![4.0, 16.0, 64.0]);
        assert_eq!(labels(&axis), ["4", "16", "64"]);
        let sizes = fitted(Mapping::Log10, &[4.0, 1024.0], false).with_grid(vec![4.0, 1024.0]);
        assert_eq!(labels(&sizes), ["4", "1024"]);
        assert!(axis.range().start > 3.0 && axis.range().end < 80.0);
        let axis = fitted(Mapping::Log10, &[3.0, 450.0], false);
        assert_eq!(
            labels(&axis),
            ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1k"]
        );
    }

    #[test]
    fn tick_numbers_are_short() {
        for (value, text) in [
            (0.0, "0"),
            (0.25, "0.25"),
            (0.001234, "0.00123"),
            (7.5, "7.5"),
            (750.0, "750"),
            (2500.0, "2.5k"),
            (12_500.0, "12.5k"),
            (3_000_000.0, "3M"),
            (-40.0, "-40"),
        ] {
            assert_eq!(scaled_number(value, 1e3), text);
        }
    }
}
