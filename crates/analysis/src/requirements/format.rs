//! How the checklist's figures are printed, shared by `diskmeter requirements`, `check`
//! and the report's capture section so that a figure reads the same everywhere.

use super::Source;
use diskmeter_units::format_thousands;

/// A figure as printed: grouped thousands from 1,000, one decimal from 100, four below
/// 0.01 (a small latency or share must not print as 0.00), two otherwise; "unknown" for
/// `None` (what the capture cannot know).
pub fn format_figure(value: Option<f64>) -> String {
    match value {
        None => "unknown".to_string(),
        Some(v) if v.abs() >= 1000.0 => format_thousands(v.round() as u64),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v != 0.0 && v.abs() < 0.01 => format!("{v:.4}"),
        Some(v) => format!("{v:.2}"),
    }
}

/// A capture's length as printed: "42 s", "12 min 5 s", "26 h 3 min".
pub fn format_span(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=119 => format!("{seconds:.0} s"),
        120..=7199 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// A UTC offset in minutes as `+HH:MM` / `-HH:MM`.
pub fn format_utc_offset(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let m = minutes.unsigned_abs();
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

impl Source {
    /// Where the row's figures came from, as printed in the checklist's last column.
    pub fn label(self) -> &'static str {
        match self {
            Source::Counters => "counters",
            Source::CountersAndTrace => "counters + trace",
            Source::Trace => "trace",
            Source::Unknown => "-",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_keep_their_precision_at_every_magnitude() {
        assert_eq!(format_figure(None), "unknown");
        assert_eq!(format_figure(Some(12_345.4)), "12,345");
        assert_eq!(format_figure(Some(123.45)), "123.5");
        assert_eq!(format_figure(Some(0.004)), "0.0040");
        assert_eq!(format_figure(Some(0.0)), "0.00");
        assert_eq!(format_span(3725.0), "62 min 5 s");
        assert_eq!(format_span(7300.0), "2 h 1 min");
        assert_eq!(format_utc_offset(-90), "-01:30");
    }
}
