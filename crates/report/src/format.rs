//! How the fio-style views write numbers with their units: a size or rate in binary and
//! decimal units side by side, counts with separators, the latency unit of a table, runtimes,
//! and UTC timestamps. The scaling into units is diskmeter-units' [`format_scaled`]; this
//! module only composes it.

use diskmeter_units::{format_scaled, Precision, Scale};

/// A size as fio prints it, binary first, three significant figures: "236 MiB (247 MB)".
pub fn bytes_both(bytes: f64) -> String {
    format!(
        "{} ({})",
        format_scaled(bytes, Scale::BinaryBytes, Precision::ThreeFigures),
        format_scaled(bytes, Scale::DecimalBytes, Precision::ThreeFigures)
    )
}

/// A rate as fio prints it, binary first, three significant figures: "118 MiB/s (123 MB/s)".
pub fn rate_both(bytes_per_sec: f64) -> String {
    format!(
        "{} ({})",
        format_scaled(bytes_per_sec, Scale::BinaryRate, Precision::ThreeFigures),
        format_scaled(bytes_per_sec, Scale::DecimalRate, Precision::ThreeFigures)
    )
}

/// An integer with thousands separators: 1,234,567.
pub fn count(value: u64) -> String {
    diskmeter_units::format_thousands(value)
}

/// IOPS: whole numbers with separators from 1,000 up, one decimal below.
pub fn iops(value: f64) -> String {
    if value >= 1000.0 {
        count(value.round() as u64)
    } else {
        format!("{value:.1}")
    }
}

/// The latency unit that keeps `max_ns` below 10,000 of it: (name, ns per unit).
pub fn latency_unit(max_ns: f64) -> (&'static str, f64) {
    if max_ns < 10_000.0 {
        ("nsec", 1.0)
    } else if max_ns < 10_000_000.0 {
        ("usec", 1e3)
    } else if max_ns < 10_000_000_000.0 {
        ("msec", 1e6)
    } else {
        ("sec", 1e9)
    }
}

/// A runtime in its scaled unit, at most four significant digits: "2.00 s", "908.0 ms",
/// "16.7 min" ([`diskmeter_units::format_duration`]).
pub fn seconds(ns: u64) -> String {
    diskmeter_units::format_duration(ns as f64)
}

// UTC dates both ways by Howard Hinnant's algorithms ("chrono-Compatible Low-Level Date
// Algorithms"), the only date arithmetic in diskmeter, so it needs no date crate.

/// Civil date (year, month 1-12, day 1-31) of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12, day 1-31); the inverse of
/// [`civil_from_days`].
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A UTC date as users type it, `2026-11-23` or `2026-11-23T14:20` (a space may stand for the
/// `T`), as ms since the Unix epoch; `None` when it is not such a date or is before 1970.
pub fn parse_utc_date_ms(text: &str) -> Option<u64> {
    let (date, time) = match text.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (year, month, day): (i64, u32, u32) = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    if parts.next().is_some() || !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    // 2026-02-30 is not a date: it would come back as another day.
    if civil_from_days(days) != (year, month, day) {
        return None;
    }
    let seconds_of_day = match time {
        None => 0,
        Some(t) => {
            let mut hm = t.split(':');
            let h: u64 = hm.next()?.parse().ok()?;
            let mi: u64 = hm.next().unwrap_or("0").parse().ok()?;
            if h > 23 || mi > 59 || hm.next().is_some() {
                return None;
            }
            h * 3600 + mi * 60
        }
    };
    (days >= 0).then(|| (days as u64 * 86_400 + seconds_of_day) * 1000)
}

/// Broken-down UTC time of a Unix ms timestamp: (year, month, day, weekday 0 = Sunday, h, m, s).
fn utc_parts(unix_ms: u64) -> (i64, u32, u32, usize, u64, u64, u64) {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let weekday = ((days + 4) % 7) as usize;
    let rest = secs % 86_400;
    (
        year,
        month,
        day,
        weekday,
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
    )
}

/// "2026-11-23 14:20:08 UTC".
pub fn utc_timestamp(unix_ms: u64) -> String {
    let (y, mo, d, _, h, mi, s) = utc_parts(unix_ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// ctime(3) style in UTC, as fio's "time" field: "Mon Nov 23 14:20:08 2026".
pub fn ctime_utc(unix_ms: u64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, mo, d, wd, h, mi, s) = utc_parts(unix_ms);
    format!(
        "{} {} {d:2} {h:02}:{mi:02}:{s:02} {y}",
        DAYS[wd],
        MONTHS[mo as usize - 1]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rates_name_their_units() {
        assert_eq!(bytes_both(247_463_936.0), "236 MiB (247 MB)");
        assert_eq!(rate_both(209_715_200.0), "200 MiB/s (210 MB/s)");
        assert_eq!(bytes_both(512.0), "512 B (512 B)");
        assert_eq!(bytes_both(1536.0), "1.50 KiB (1.54 kB)");
    }

    #[test]
    fn counts_and_iops() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(iops(13_052.65), "13,053");
        assert_eq!(iops(190.26), "190.3");
    }

    #[test]
    fn latency_tables_pick_their_unit() {
        assert_eq!(latency_unit(2_930_600.0), ("usec", 1e3));
        assert_eq!(latency_unit(9_999.0), ("nsec", 1.0));
        assert_eq!(latency_unit(12_000_000_000.0), ("sec", 1e9));
    }

    #[test]
    fn timestamps_match_ctime() {
        // fio printed "Mon Nov 23 14:20:08 2026" for 1795443608975 on a UTC machine.
        assert_eq!(ctime_utc(1_795_443_608_975), "Mon Nov 23 14:20:08 2026");
        assert_eq!(utc_timestamp(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(ctime_utc(951_782_400_000), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn dates_parse_as_utc() {
        assert_eq!(parse_utc_date_ms("1970-01-01"), Some(0));
        assert_eq!(parse_utc_date_ms("2000-03-01"), Some(951_868_800_000));
        assert_eq!(
            parse_utc_date_ms("2026-11-24T10:30"),
            Some(1_795_516_200_000)
        );
        assert_eq!(
            parse_utc_date_ms("2026-11-24 10:30"),
            Some(1_795_516_200_000)
        );
        assert_eq!(parse_utc_date_ms("2000-02-29"), Some(951_782_400_000));
        for bad in [
            "2026-13-01",
            "2026-02-30",
            "2026-11-24T24:00",
            "1969-12-31",
            "yesterday",
        ] {
            assert_eq!(parse_utc_date_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_two_date_algorithms_are_inverses() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        // and a parsed date prints back as itself
        let ms = parse_utc_date_ms("2031-07-04T09:05").unwrap();
        assert_eq!(utc_timestamp(ms), "2031-07-04 09:05:00 UTC");
    }
}
