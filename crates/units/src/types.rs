//! Unit newtypes: `Bytes`, `Nanos`, `BytesPerSec`, `Iops`, so a size can't be passed as a time.
//!
//! Each serialises as its bare number (serde `transparent`) and displays in human units.

use crate::format::{format_bytes_binary, format_count, format_duration_ns, format_rate_binary};
use crate::{parse_size, parse_time_ns, KbBase, TimeUnit, UnitError};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A number of bytes. Displays in binary units (`4.00 KiB`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Parses fio's size syntax (see [`parse_size`]).
    pub fn parse(text: &str, kb_base: KbBase) -> Result<Bytes, UnitError> {
        parse_size(text, kb_base).map(Bytes)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_bytes_binary(self.0))
    }
}

impl From<u64> for Bytes {
    fn from(bytes: u64) -> Self {
        Bytes(bytes)
    }
}

/// A duration in nanoseconds. Displays as `539.2 us`, `1.05 ms`, `10.0 s`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    /// Parses fio's time syntax (see [`parse_time_ns`]).
    pub fn parse(text: &str, default_unit: TimeUnit) -> Result<Nanos, UnitError> {
        parse_time_ns(text, default_unit).map(Nanos)
    }

    /// The duration in seconds, as a float (for rates and plots).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration_ns(self.0))
    }
}

impl From<std::time::Duration> for Nanos {
    /// Saturates at `u64::MAX` nanoseconds (about 584 years).
    fn from(duration: std::time::Duration) -> Self {
        Nanos(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX))
    }
}

/// A bandwidth in bytes per second. Displays in binary units (`195.3 MiB/s`).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BytesPerSec(pub f64);

impl BytesPerSec {
    /// `bytes` moved in `elapsed`; zero when no time has passed.
    pub fn from_bytes(bytes: Bytes, elapsed: Nanos) -> BytesPerSec {
        if elapsed.0 == 0 {
            return BytesPerSec(0.0);
        }
        BytesPerSec(bytes.0 as f64 / elapsed.as_secs_f64())
    }
}

impl fmt::Display for BytesPerSec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_rate_binary(self.0))
    }
}

/// IO operations per second. Displays as fio does (`13.1k`).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Iops(pub f64);

impl Iops {
    /// `ios` completed in `elapsed`; zero when no time has passed.
    pub fn from_count(ios: u64, elapsed: Nanos) -> Iops {
        if elapsed.0 == 0 {
            return Iops(0.0);
        }
        Iops(ios as f64 / elapsed.as_secs_f64())
    }
}

impl fmt::Display for Iops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_count(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_uses_human_units() {
        assert_eq!(Bytes(4096).to_string(), "4.00 KiB");
        assert_eq!(Nanos(539_200).to_string(), "539.2 us");
        assert_eq!(BytesPerSec(204.8e6).to_string(), "195.3 MiB/s");
        assert_eq!(Iops(13_052.65).to_string(), "13.1k");
    }

    #[test]
    fn parse_and_derive() {
        assert_eq!(Bytes::parse("4k", KbBase::Binary), Ok(Bytes(4096)));
        assert_eq!(
            Nanos::parse("10", TimeUnit::Seconds),
            Ok(Nanos(10_000_000_000))
        );
        // The published DiskSpd run: 3,208,642,560 bytes in 30 s = 101.97 MiB/s.
        let rate = BytesPerSec::from_bytes(Bytes(3_208_642_560), Nanos(30_000_000_000));
        assert_eq!(rate.to_string(), "102.0 MiB/s");
        assert_eq!(
            Iops::from_count(391_680, Nanos(30_000_000_000)).to_string(),
            "13.1k"
        );
        assert_eq!(Iops::from_count(5, Nanos(0)), Iops(0.0));
        assert_eq!(
            Nanos::from(std::time::Duration::from_millis(2)),
            Nanos(2_000_000)
        );
    }
}
