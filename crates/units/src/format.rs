//! Human-readable numbers for terminals and reports: `4.00 KiB`, `195.3 MiB/s`, `539.2 us`, `13.1k`.
//!
//! One precision rule everywhere, so columns line up and no value claims more digits than it
//! has: two decimals below 10, one decimal from 10 up (`4.00 KiB`, `1.05 ms`, `195.3 MiB/s`,
//! `10.0 s`). Values in the base unit that are whole (bytes, nanoseconds, small counts) print
//! without decimals. Binary units always carry their IEC names (KiB, MiB/s) and decimal ones
//! their SI names (kB, MB/s), whatever `kb_base` said about the input, as fio does for output.

/// Binary byte units, in steps of 1024.
const BINARY_BYTES: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
/// Binary rate units, in steps of 1024.
const BINARY_RATES: [&str; 7] = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s", "EiB/s"];
/// Decimal rate units, in steps of 1000.
const DECIMAL_RATES: [&str; 7] = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"];
/// Duration units, in steps of 1000, from nanoseconds up to seconds.
const DURATIONS: [&str; 4] = ["ns", "us", "ms", "s"];
/// Count suffixes, in steps of 1000 (fio's `13.1k` IOPS).
const COUNTS: [&str; 6] = ["", "k", "M", "G", "T", "P"];

/// A byte count in binary units: `512 B`, `4.00 KiB`, `1.00 GiB`.
pub fn format_bytes_binary(bytes: u64) -> String {
    scaled(bytes as f64, 1024.0, &BINARY_BYTES, " ")
}

/// A bandwidth in binary units: `195.3 MiB/s`.
pub fn format_rate_binary(bytes_per_sec: f64) -> String {
    scaled(bytes_per_sec, 1024.0, &BINARY_RATES, " ")
}

/// A bandwidth in decimal (SI) units: `204.8 MB/s`.
pub fn format_rate_decimal(bytes_per_sec: f64) -> String {
    scaled(bytes_per_sec, 1000.0, &DECIMAL_RATES, " ")
}

/// A duration: `850 ns`, `539.2 us`, `1.05 ms`, `10.0 s` (seconds are the largest unit, so a
/// two-hour warm-up reads `7200.0 s`).
pub fn format_duration_ns(ns: u64) -> String {
    scaled(ns as f64, 1000.0, &DURATIONS, " ")
}

/// A count such as IOPS: `950`, `13.1k`, `1.25M`.
pub fn format_count(n: f64) -> String {
    scaled(n, 1000.0, &COUNTS, "")
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

/// Divides `value` by `base` until it fits its unit and prints it by the module's precision rule.
fn scaled(value: f64, base: f64, units: &[&str], separator: &str) -> String {
    let first = units.first().copied().unwrap_or("");
    if !value.is_finite() {
        return format!("{value}{separator}{first}");
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let mut magnitude = value.abs();
    let mut unit = 0;
    // Promote while the value would *print* as `base` or more, so 1023.97 KiB reads 1.00 MiB.
    while unit + 1 < units.len() && round_to(magnitude, decimals(magnitude)) >= base {
        magnitude /= base;
        unit += 1;
    }
    let name = units.get(unit).copied().unwrap_or("");
    if unit == 0 && magnitude.fract() == 0.0 {
        return format!("{sign}{magnitude:.0}{separator}{name}");
    }
    let places = decimals(magnitude);
    format!("{sign}{magnitude:.places$}{separator}{name}")
}

/// Two decimals below 10 (after rounding), one from there up.
fn decimals(magnitude: f64) -> usize {
    if round_to(magnitude, 2) < 10.0 {
        2
    } else {
        1
    }
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
        assert_eq!(format_duration_ns(7_200_000_000_000), "7200.0 s");
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
}
