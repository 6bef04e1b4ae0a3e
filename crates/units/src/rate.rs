//! Bandwidth caps on diskmeter's own flags (`--throttle-bw 200MiB/s`): a size per second
//! where every prefix is a power of 1024, whichever way it is written.
//!
//! fio's `rate=200m` means 200 MiB/s (kb_base=1024), while fio's compatibility rule would
//! read `200MiB` as 200,000,000: on a flag that is not fio's, a user writing `MiB` means
//! 2^20, so the `i` form is read as the standard says and the plain form as fio reads it.

use crate::size::{parse_size, KbBase};
use crate::UnitError;

/// Parses a bandwidth in bytes per second: a size with an optional `/s`, where `k`, `m`,
/// `g` (with or without `b`) and `KiB`, `MiB`, `GiB` are all powers of 1024.
///
/// ```
/// use diskmeter_units::parse_rate;
/// assert_eq!(parse_rate("200MiB/s"), Ok(200 << 20));
/// assert_eq!(parse_rate("200m"), Ok(200 << 20));
/// assert_eq!(parse_rate("1g/s"), Ok(1 << 30));
/// assert_eq!(parse_rate("4096"), Ok(4096));
/// ```
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    let trimmed = text.trim();
    let size = trimmed
        .strip_suffix("/s")
        .or_else(|| trimmed.strip_suffix("/S"))
        .unwrap_or(trimmed);
    let lower = size.to_ascii_lowercase();
    // Under kb_base=1000 the `ib` forms are powers of 1024; under 1024 the plain forms are, and
    // `mi` without the `b` (fio reads it as `m`).
    let iec = lower.ends_with("ib");
    parse_size(size, if iec { KbBase::Decimal } else { KbBase::Binary })
}

#[cfg(test)]
mod tests {
    use super::parse_rate;

    #[test]
    fn every_prefix_is_a_power_of_1024() {
        for text in [
            "200m", "200M", "200mb", "200MB", "200MiB", "200mi", "200MiB/s", "200m/s",
        ] {
            assert_eq!(parse_rate(text), Ok(200 << 20), "{text}");
        }
        assert_eq!(parse_rate("64KiB/s"), Ok(64 << 10));
        assert_eq!(parse_rate("2g"), Ok(2 << 30));
        assert_eq!(parse_rate(" 1000 "), Ok(1000));
    }

    #[test]
    fn nonsense_is_refused() {
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("1.5m/s").is_err());
        assert!(parse_rate("200m/min").is_err());
        assert!(parse_rate("").is_err());
        assert!(parse_rate("-5m").is_err());
    }
}
