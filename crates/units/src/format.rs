//! Human-readable numbers for terminals and reports: `4.00 KiB`, `195.3 MiB/s`, `539.2 us`,
//! `13.1k`; the one place in diskmeter that scales a number into a unit.
//!
//! A value is divided by its scale's step (1024 or 1000) while it would *print* as one step
//! or more, so 1023.97 KiB reads `1.00 MiB`, never `1024.0 KiB`. How many decimals it then
//! gets is the [`Precision`]: diskmeter's own views use [`Precision::TwoThenOne`] so columns
//! line up (`4.00 KiB`, `1.05 ms`, `195.3 MiB/s`, `10.0 s`); the fio-style summary uses
//! [`Precision::ThreeFigures`] (`236 MiB (247 MB)`). Under either, a whole value in the base
//! unit (bytes, nanoseconds, small counts) prints without decimals. Binary units always carry
//! their IEC names (KiB, MiB/s) and decimal ones their SI names (kB, MB/s), whatever
//! `kb_base` said about the input, as fio does for output.

/// How many decimals a scaled value keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// Two decimals below 10, one from 10 up: `4.00 KiB`, `195.3 MiB/s`, `1023.9 s`.
    TwoThenOne,
    /// Three significant figures, as fio's summary: `1.50 KiB`, `52.2 us`, `236 MiB`
    /// (a value of 1000 or more in the largest unit keeps all its integer digits).
    ThreeFigures,
}

impl Precision {
    /// Decimals for `magnitude`, chosen on the value as it will print (9.996 prints `10.0`
    /// under [`Precision::TwoThenOne`], not `10.00`; 99.96 prints `100` under
    /// [`Precision::ThreeFigures`], not `100.0`).
    fn decimals(self, magnitude: f64) -> usize {
        let below = |limit: f64, places: usize| round_to(magnitude, places) < limit;
        match self {
            Precision::TwoThenOne if below(10.0, 2) => 2,
            Precision::TwoThenOne => 1,
            Precision::ThreeFigures if below(10.0, 2) => 2,
            Precision::ThreeFigures if below(100.0, 1) => 1,
            Precision::ThreeFigures => 0,
        }
    }
}

/// The units a value is scaled through: a step and the names, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Bytes in steps of 1024: B, KiB, MiB ... EiB.
    BinaryBytes,
    /// Bytes in steps of 1000: B, kB, MB ... EB.
    DecimalBytes,
    /// Bytes per second in steps of 1024: B/s, KiB/s, MiB/s ... EiB/s.
    BinaryRate,
    /// Bytes per second in steps of 1000: B/s, kB/s, MB/s ... EB/s.
    DecimalRate,
    /// Nanoseconds in steps of 1000 up to seconds, the largest unit: ns, us, ms, s.
    Duration,
    /// A count in steps of 1000, as fio's `13.1k` IOPS: (none), k, M, G, T, P.
    Count,
}

impl Scale {
    /// (step, unit names smallest first, separator between number and unit).
    fn table(self) -> (f64, &'static [&'static str], &'static str) {
        match self {
            Scale::BinaryBytes => (
                1024.0,
                &["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"],
                " ",
            ),
            Scale::DecimalBytes => (1000.0, &["B", "kB", "MB", "GB", "TB", "PB", "EB"], " "),
            Scale::BinaryRate => (
                1024.0,
                &["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s", "EiB/s"],
                " ",
            ),
            Scale::DecimalRate => (
                1000.0,
                &["B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"],
                " ",
            ),
            Scale::Duration => (1000.0, &["ns", "us", "ms", "s"], " "),
            Scale::Count => (1000.0, &["", "k", "M", "G", "T", "P"], ""),
        }
    }
}

/// `value` in the largest unit of `scale` it prints as one or more of, with `precision`'s
/// decimals: `format_scaled(247_463_936.0, Scale::BinaryBytes, Precision::ThreeFigures)` is
/// `236 MiB`. Not-finite values print as Rust prints them, in the base unit.
pub fn format_scaled(value: f64, scale: Scale, precision: Precision) -> String {
    let (step, units, separator) = scale.table();
    let first = units[0];
    if !value.is_finite() {
        return format!("{value}{separator}{first}");
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let mut magnitude = value.abs();
    let mut unit = 0;
    while unit + 1 < units.len() && round_to(magnitude, precision.decimals(magnitude)) >= step {
        magnitude /= step;
        unit += 1;
    }
    let name = units[unit];
    if unit == 0 && magnitude.fract() == 0.0 {
        return format!("{sign}{magnitude:.0}{separator}{name}");
    }
    let places = precision.decimals(magnitude);
    format!("{sign}{magnitude:.places$}{separator}{name}")
}

/// A byte count in binary units: `512 B`, `4.00 KiB`, `1.00 GiB`.
pub fn format_bytes_binary(bytes: u64) -> String {
    format_scaled(bytes as f64, Scale::BinaryBytes, Precision::TwoThenOne)
}

/// A bandwidth in binary units: `195.3 MiB/s`.
pub fn format_rate_binary(bytes_per_sec: f64) -> String {
    format_scaled(bytes_per_sec, Scale::BinaryRate, Precision::TwoThenOne)
}

/// A bandwidth in decimal (SI) units: `204.8 MB/s`.
pub fn format_rate_decimal(bytes_per_sec: f64) -> String {
    format_scaled(bytes_per_sec, Scale::DecimalRate, Precision::TwoThenOne)
}

/// A duration: `850 ns`, `539.2 us`, `1.05 ms`, `10.0 s`, then minutes and hours for long
/// ones (`16.7 min`, `2.00 h`): see [`format_duration`].
pub fn format_duration_ns(ns: u64) -> String {
    format_duration(ns as f64)
}

/// A duration (or latency) of `ns` nanoseconds in the one unit that keeps it between 1 and
/// 999.9 of it, with at most four significant digits: `850 ns`, `950.4 ns`, `539.2 us`,
/// `1.05 ms`, `10.0 s`, `16.7 min`, `2.00 h`. This is the rule of every human view of a
/// latency (terminal, `show`, report, dashboard, tables): the unit is on each value, so a
/// reader never converts. A whole number of nanoseconds prints without decimals; zero is
/// `0 ns`. From 1,000 s up the unit is minutes, from 1,000 min hours (the largest unit: a
/// duration of 1,000 h or more keeps its integer digits).
pub fn format_duration(ns: f64) -> String {
    const NS_PER_S: f64 = 1e9;
    let seconds = ns.abs() / NS_PER_S;
    let precision = Precision::TwoThenOne;
    if !ns.is_finite() || round_to(seconds, precision.decimals(seconds)) < 1000.0 {
        return format_scaled(ns, Scale::Duration, precision);
    }
    let sign = if ns < 0.0 { "-" } else { "" };
    let minutes = seconds / 60.0;
    let (value, unit) = if round_to(minutes, precision.decimals(minutes)) < 1000.0 {
        (minutes, "min")
    } else {
        (minutes / 60.0, "h")
    };
    let places = precision.decimals(value);
    format!("{sign}{value:.places$} {unit}")
}

/// A rate of operations (IOPS) or a count as fio prints it: a whole number below 10,000
/// (`950`, `8962`; two decimals below 10 and one below 100 for small rates: `4.57`, `45.7`),
/// then three significant figures with k, M, G (`13.1k`, `131k`, `1.31M`). At most four
/// significant digits either way.
pub fn format_iops(value: f64) -> String {
    let magnitude = value.abs();
    if !value.is_finite() || round_to(magnitude, 0) >= 10_000.0 {
        return format_scaled(value, Scale::Count, Precision::ThreeFigures);
    }
    if magnitude == 0.0 || round_to(magnitude, 1) >= 100.0 {
        return format!("{value:.0}");
    }
    let places = if round_to(magnitude, 2) < 10.0 { 2 } else { 1 };
    format!("{value:.places$}")
}

/// A count such as IOPS: `950`, `13.1k`, `1.25M`.
pub fn format_count(n: f64) -> String {
    format_scaled(n, Scale::Count, Precision::TwoThenOne)
}

/// An integer with thousands separators: `1,234,567`.
pub fn format_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    // A separator goes before every digit whose distance from the end is a multiple of 3.
    let phase = digits.len() % 3;
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && i % 3 == phase {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn round_to(value: f64, places: usize) -> f64 {
    let scale = 10f64.powi(places as i32);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(format_thousands(0), "0");
        assert_eq!(format_thousands(999), "999");
        assert_eq!(format_thousands(1000), "1,000");
        assert_eq!(format_thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn bytes() {
        assert_eq!(format_bytes_binary(0), "0 B");
        assert_eq!(format_bytes_binary(512), "512 B");
        assert_eq!(format_bytes_binary(1023), "1023 B");
        assert_eq!(format_bytes_binary(4096), "4.00 KiB");
        assert_eq!(format_bytes_binary(1 << 30), "1.00 GiB");
        assert_eq!(format_bytes_binary(22_937 << 20), "22.4 GiB");
        assert_eq!(format_bytes_binary((1 << 20) - 1), "1.00 MiB");
        assert_eq!(format_bytes_binary(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn rates() {
        // 195,468 KiB/s: the published 1M randwrite result.
        assert_eq!(format_rate_binary(195_468.0 * 1024.0), "190.9 MiB/s");
        assert_eq!(format_rate_binary(200.0 * 1024.0 * 1024.0), "200.0 MiB/s");
        assert_eq!(format_rate_binary(204.8e6), "195.3 MiB/s");
        assert_eq!(format_rate_decimal(204.8e6), "204.8 MB/s");
        assert_eq!(format_rate_decimal(2_383_300.0), "2.38 MB/s");
        assert_eq!(format_rate_binary(100.0), "100 B/s");
        assert_eq!(format_rate_binary(0.5), "0.50 B/s");
        assert_eq!(format_rate_binary(f64::NAN), "NaN B/s");
        assert_eq!(format_rate_decimal(-2000.0), "-2.00 kB/s");
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration_ns(850), "850 ns");
        assert_eq!(format_duration_ns(539_200), "539.2 us");
        assert_eq!(format_duration_ns(1_050_000), "1.05 ms");
        assert_eq!(format_duration_ns(167_000_000), "167.0 ms");
        assert_eq!(format_duration_ns(10_000_000_000), "10.0 s");
        assert_eq!(format_duration_ns(999_999), "1.00 ms");
        assert_eq!(format_duration_ns(7_200_000_000_000), "120.0 min");
        assert_eq!(format_duration_ns(0), "0 ns");
        assert_eq!(format_duration(950.4), "950.4 ns");
        assert_eq!(format_duration(91_750_400.0), "91.8 ms");
        assert_eq!(format_duration(4_253_560.0), "4.25 ms");
        assert_eq!(format_duration(9_374.0), "9.37 us");
        assert_eq!(format_duration(999_960.0), "1.00 ms");
        assert_eq!(format_duration(999.0e9), "999.0 s");
        assert_eq!(format_duration(999.96e9), "16.7 min");
        assert_eq!(format_duration(7_200e9), "120.0 min");
        assert_eq!(format_duration(60_000e9), "16.7 h");
        assert_eq!(format_duration(-2_000.0), "-2.00 us");
    }

    /// Every latency a human view prints: at most 4 significant digits, 1 to 999.9 of its
    /// unit (0 aside), over nine decades.
    #[test]
    fn durations_stay_within_their_unit() {
        let mut ns = 0.37;
        while ns < 3.6e12 {
            let text = format_duration(ns);
            let number: f64 = text.split(' ').next().unwrap().parse().unwrap();
            let digits = text
                .split(' ')
                .next()
                .unwrap()
                .chars()
                .filter(char::is_ascii_digit)
                .collect::<String>();
            let significant = digits.trim_start_matches('0').len();
            assert!(significant <= 4, "{ns} ns printed {text}");
            assert!(
                ns < 1.0 || (1.0..1000.0).contains(&number),
                "{ns} ns printed {text}"
            );
            ns *= 1.37;
        }
    }

    #[test]
    fn iops_as_fio_prints_them() {
        assert_eq!(format_iops(0.0), "0");
        assert_eq!(format_iops(4.567), "4.57");
        assert_eq!(format_iops(45.67), "45.7");
        assert_eq!(format_iops(457.1), "457");
        assert_eq!(format_iops(8_962.4), "8962");
        assert_eq!(format_iops(9_999.6), "10.0k");
        assert_eq!(format_iops(13_052.65), "13.1k");
        assert_eq!(format_iops(131_000.0), "131k");
        assert_eq!(format_iops(1_310_000.0), "1.31M");
    }

    #[test]
    fn counts() {
        assert_eq!(format_count(950.0), "950");
        assert_eq!(format_count(950.4), "950.4");
        assert_eq!(format_count(1_782.0), "1.78k");
        assert_eq!(format_count(13_100.0), "13.1k");
        assert_eq!(format_count(78_521.23), "78.5k");
        assert_eq!(format_count(1_250_000.0), "1.25M");
        assert_eq!(format_count(0.5), "0.50");
        assert_eq!(format_count(f64::INFINITY), "inf");
    }

    #[test]
    fn three_figures_as_fio_summarises() {
        let three = |v, scale| format_scaled(v, scale, Precision::ThreeFigures);
        assert_eq!(three(247_463_936.0, Scale::BinaryBytes), "236 MiB");
        assert_eq!(three(247_463_936.0, Scale::DecimalBytes), "247 MB");
        assert_eq!(three(209_715_200.0, Scale::DecimalRate), "210 MB/s");
        assert_eq!(three(1536.0, Scale::BinaryBytes), "1.50 KiB");
        assert_eq!(three(512.0, Scale::BinaryBytes), "512 B");
        assert_eq!(three(52_245.98, Scale::Duration), "52.2 us");
        assert_eq!(three(167_000_000.0, Scale::Duration), "167 ms");
        assert_eq!(three(-2000.0, Scale::DecimalRate), "-2.00 kB/s");
        // Decided on the printed value: never "100.0" (four figures) nor "1024 KiB".
        assert_eq!(three(99.96, Scale::Count), "100");
        assert_eq!(three(1_048_500.0, Scale::BinaryBytes), "1.00 MiB");
        // Seconds are the largest duration: more than 999 keeps its integer digits.
        assert_eq!(three(7.2e12, Scale::Duration), "7200 s");
    }
}
