//! How the planner writes figures for people: thousands grouped, two decimals below 100, as
//! the guides' tables do.

/// `5000` -> `5,000`; `39.0625` -> `39.06`; `136.085` -> `136.09` (two decimals below 100,
/// whole numbers above, as a table of caps wants).
pub fn group(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let rounded = if value.abs() >= 100.0 || value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        let s = format!("{value:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    let (sign, digits) = match rounded.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", rounded.as_str()),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let point = if frac.is_empty() { "" } else { "." };
    // `int` is the digits of a finite rounded number, so it parses.
    let grouped = int
        .parse::<u64>()
        .map_or_else(|_| int.to_string(), diskmeter_units::format_thousands);
    format!("{sign}{grouped}{point}{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_formats_like_the_guides() {
        assert_eq!(group(5000.0), "5,000");
        assert_eq!(group(64_000.0), "64,000");
        assert_eq!(group(39.0625), "39.06");
        assert_eq!(group(200.0), "200");
        assert_eq!(group(1_234_567.4), "1,234,567");
        assert_eq!(group(0.5), "0.5");
        assert_eq!(group(-12.5), "-12.5");
    }
}
