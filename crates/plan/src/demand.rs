//! What the application asks of its storage: `iops=16000,bs=8k,read=70%,cache-hit=0.8`.
//!
//! One syntax serves `--workload` (evaluate a configuration) and `--require` (find the
//! cheapest configuration that meets it). Keys:
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `iops` | IO operations per second needed (plain number; `k`/`m` mean x1,000 / x1,000,000) | none |
//! | `mibps` | bandwidth needed, MiB/s | none |
//! | `bs` | IO size, fio syntax (`8k`); `bs=4k,64k` gives reads and writes their own | unknown |
//! | `read` / `write` | share of IOs that are reads / writes, percent | read 100 % |
//! | `cache-hit` | share of reads served by the host cache (0-1 or percent) | 0 |
//! | `local` | share of all IOs that go to the VM's local SSD | 0 |
//! | `latency` | latency target (fio time syntax, default unit ms) | none |
//! | `qd` | the queue depth the application keeps | none |
//! | `capacity` | space needed, fio size syntax (`2t`) | none |
//!
//! `iops` and `mibps` are two peaks, as in the guides' requirement checklist: IOPS are checked
//! at `bs`, bandwidth against the bandwidth caps (at `bs` too when no `iops` is given).

use crate::PlanError;
use diskmeter_units::{parse_percent, parse_size, parse_time_ns, KbBase, TimeUnit};
use serde::Serialize;

/// The application's demand on its storage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Demand {
    /// IOs per second needed, if stated.
    pub iops: Option<f64>,
    /// Bandwidth needed in MiB/s, if stated.
    pub mibps: Option<f64>,
    /// Read IO size in bytes, if known.
    pub read_bs_bytes: Option<u64>,
    /// Write IO size in bytes, if known.
    pub write_bs_bytes: Option<u64>,
    /// Share of IOs that are reads, 0..=1.
    pub read_fraction: f64,
    /// Share of reads served by the host cache, 0..=1.
    pub cache_hit_fraction: f64,
    /// Share of all IOs that go to the local SSD, 0..=1.
    pub local_fraction: f64,
    /// Latency target in nanoseconds.
    pub latency_ns: Option<u64>,
    /// Queue depth the application keeps.
    pub queue_depth: Option<u32>,
    /// Space needed in bytes.
    pub capacity_bytes: Option<u64>,
    /// True when `read`/`write` was given (the default 100 % reads is an assumption).
    pub mix_given: bool,
}

impl Default for Demand {
    fn default() -> Self {
        Demand {
            iops: None,
            mibps: None,
            read_bs_bytes: None,
            write_bs_bytes: None,
            read_fraction: 1.0,
            cache_hit_fraction: 0.0,
            local_fraction: 0.0,
            latency_ns: None,
            queue_depth: None,
            capacity_bytes: None,
            mix_given: false,
        }
    }
}

/// The keys, for error messages.
const KEYS: &str = "iops, mibps, bs, read, write, cache-hit, local, latency, qd, capacity";

impl Demand {
    /// Parses `key=value` pairs separated by commas (`bs=4k,64k` keeps its second value).
    pub fn parse(text: &str) -> Result<Demand, PlanError> {
        let mut demand = Demand::default();
        let mut read_given = None;
        let mut write_given = None;
        for (key, value) in split_pairs(text)? {
            let bad = |message: String| PlanError::Demand {
                key: key.clone(),
                message,
            };
            match key.as_str() {
                "iops" => demand.iops = Some(parse_rate(&value).map_err(bad)?),
                "mibps" => demand.mibps = Some(parse_rate(&value).map_err(bad)?),
                "bs" => {
                    let mut parts = value.split(',');
                    let read = parts.next().unwrap_or("");
                    let write = parts.next().unwrap_or(read);
                    if parts.next().is_some() {
                        return Err(bad("give one size, or read,write".to_string()));
                    }
                    let size = |t: &str| -> Result<u64, PlanError> {
                        match parse_size(t, KbBase::Binary) {
                            Ok(0) => Err(bad("the IO size must be more than 0".to_string())),
                            Ok(n) => Ok(n),
                            Err(e) => Err(bad(e.to_string())),
                        }
                    };
                    demand.read_bs_bytes = Some(size(read)?);
                    demand.write_bs_bytes = Some(size(write)?);
                }
                "read" => read_given = Some(parse_share(&value, false).map_err(bad)?),
                "write" => write_given = Some(parse_share(&value, false).map_err(bad)?),
                "cache-hit" | "cache_hit" | "hit" => {
                    demand.cache_hit_fraction = parse_share(&value, true).map_err(bad)?
                }
                "local" => demand.local_fraction = parse_share(&value, false).map_err(bad)?,
                "latency" => {
                    let ns = parse_time_ns(&value, TimeUnit::Milliseconds)
                        .map_err(|e| bad(e.to_string()))?;
                    if ns == 0 {
                        return Err(bad("the latency target must be more than 0".to_string()));
                    }
                    demand.latency_ns = Some(ns);
                }
                "qd" | "iodepth" => {
                    let qd: u32 =
                        value
                            .trim()
                            .parse()
                            .ok()
                            .filter(|&q| q > 0)
                            .ok_or_else(|| {
                                bad(format!("'{value}' is not a queue depth (1 or more)"))
                            })?;
                    demand.queue_depth = Some(qd);
                }
                "capacity" | "size" => {
                    let bytes =
                        parse_size(&value, KbBase::Binary).map_err(|e| bad(e.to_string()))?;
                    demand.capacity_bytes = Some(bytes);
                }
                _ => {
                    return Err(PlanError::Demand {
                        key: key.clone(),
                        message: format!("unknown key; the keys are {KEYS}"),
                    })
                }
            }
        }
        demand.read_fraction = match (read_given, write_given) {
            (None, None) => 1.0,
            (Some(r), None) => r,
            (None, Some(w)) => 1.0 - w,
            (Some(r), Some(w)) => {
                if (r + w - 1.0).abs() > 1e-9 {
                    return Err(PlanError::Demand {
                        key: "read".to_string(),
                        message: format!(
                            "read {}% and write {}% must add up to 100%",
                            r * 100.0,
                            w * 100.0
                        ),
                    });
                }
                r
            }
        };
        demand.mix_given = read_given.is_some() || write_given.is_some();
        Ok(demand)
    }

    /// The write share, 0..=1.
    pub fn write_fraction(&self) -> f64 {
        1.0 - self.read_fraction
    }

    /// The IO sizes (read, write) when `bs` was given.
    pub fn io_sizes(&self) -> Option<(u64, u64)> {
        Some((self.read_bs_bytes?, self.write_bs_bytes?))
    }
}

/// Splits `a=1,bs=4k,64k,c=2` into pairs: a comma starts a new pair only when what follows
/// has an `=`, so `bs=4k,64k` keeps both sizes.
fn split_pairs(text: &str) -> Result<Vec<(String, String)>, PlanError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for piece in text.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        match piece.split_once('=') {
            Some((key, value)) => {
                let key = key.trim().to_ascii_lowercase();
                if pairs.iter().any(|(k, _)| *k == key) {
                    return Err(PlanError::Demand {
                        key,
                        message: "given twice".to_string(),
                    });
                }
                pairs.push((key, value.trim().to_string()))
            }
            None => match pairs.last_mut() {
                Some((_, value)) => {
                    value.push(',');
                    value.push_str(piece);
                }
                None => {
                    return Err(PlanError::Demand {
                        key: piece.to_string(),
                        message: format!("expected key=value; the keys are {KEYS}"),
                    })
                }
            },
        }
    }
    if pairs.is_empty() {
        return Err(PlanError::Demand {
            key: String::new(),
            message: format!("empty; give key=value pairs ({KEYS})"),
        });
    }
    Ok(pairs)
}

/// A positive rate: `16000`, `16k` (16,000), `1.5m` (1,500,000), `12,800` is not accepted
/// (the comma separates keys).
fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('m' | 'M') => (&t[..t.len() - 1], 1e6),
        _ => (t, 1.0),
    };
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * scale),
        _ => Err(format!(
            "'{t}' is not a positive number (e.g. 16000 or 16k)"
        )),
    }
}

/// A share: `70%`, `70` (percent), or, when `fraction_ok`, `0.7` (a value up to 1 with a point).
fn parse_share(text: &str, fraction_ok: bool) -> Result<f64, String> {
    let t = text.trim();
    if fraction_ok && !t.ends_with('%') && t.contains('.') {
        return match t.parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
            _ => Err(format!(
                "'{t}' is not a share: use 0 to 1 (0.8) or a percentage (80%)"
            )),
        };
    }
    if fraction_ok && t == "1" {
        return Ok(1.0);
    }
    parse_percent(t)
        .map(|p| p / 100.0)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_issue_example() {
        let d = Demand::parse("iops=16000,bs=8k,read=70%,cache-hit=0.8").unwrap();
        assert_eq!(d.iops, Some(16_000.0));
        assert_eq!(d.io_sizes(), Some((8192, 8192)));
        assert!((d.read_fraction - 0.7).abs() < 1e-12);
        assert!((d.cache_hit_fraction - 0.8).abs() < 1e-12);
        assert!(d.mix_given);
    }

    #[test]
    fn split_block_sizes_percent_shares_and_suffixes() {
        let d = Demand::parse("mibps=200, bs=4k,64k, write=30, cache-hit=80%, iops=12.8k").unwrap();
        assert_eq!(d.io_sizes(), Some((4096, 65536)));
        assert!((d.read_fraction - 0.7).abs() < 1e-12);
        assert!((d.cache_hit_fraction - 0.8).abs() < 1e-12);
        assert_eq!(d.iops, Some(12_800.0));
        assert_eq!(d.mibps, Some(200.0));
        let d = Demand::parse("iops=5000,latency=1ms,qd=2,capacity=2t,cache-hit=1").unwrap();
        assert_eq!(d.latency_ns, Some(1_000_000));
        assert_eq!(d.queue_depth, Some(2));
        assert_eq!(d.capacity_bytes, Some(2 << 40));
        assert_eq!(d.cache_hit_fraction, 1.0);
        assert!(!d.mix_given);
        assert_eq!(
            Demand::parse("latency=2").unwrap().latency_ns,
            Some(2_000_000)
        );
    }

    #[test]
    fn errors_name_the_key() {
        for (text, needle) in [
            ("iops=lots", "iops: 'lots' is not a positive number"),
            ("iops=0", "iops:"),
            ("bs=4q", "bs:"),
            ("bs=0", "bs: the IO size must be more than 0"),
            ("read=120", "read:"),
            ("read=70,write=40", "must add up to 100%"),
            ("cache-hit=1.5", "cache-hit:"),
            ("speed=3", "speed: unknown key"),
            ("iops=1,iops=2", "iops: given twice"),
            ("16000", "expected key=value"),
            ("", "empty"),
            ("qd=0", "qd:"),
            ("latency=0", "latency:"),
        ] {
            let e = Demand::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
