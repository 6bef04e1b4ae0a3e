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
//! | `read` / `write` | share of IOs that are reads / writes | read 100 % |
//! | `cache-hit` | share of reads served by the host cache | 0 |
//! | `local` | share of all IOs that go to the VM's local SSD | 0 |
//! | `latency` | latency target (fio time syntax, default unit ms) | none |
//! | `qd` | the queue depth the application keeps | none |
//! | `capacity` | space needed, fio size syntax (`2t`) | none |
//! | `random` | share of IOs that are random (shown, and sets the stripe advice) | unknown |
//!
//! Every share (`read`, `write`, `cache-hit`, `local`) follows one rule ([`parse_share`]):
//! `N%` is a percentage; a bare number from 0 to 1 is a fraction and a bare number above 1
//! up to 100 a percentage, so `50%`, `50` and `0.5` all mean half (`1` is all of it; write
//! `0.5%` for half a percent). Values below 0 or above 100 % are refused.
//!
//! `iops` and `mibps` are two peaks, as in the guides' requirement checklist: IOPS are checked
//! at `bs`, bandwidth against the bandwidth caps (at `bs` too when no `iops` is given).
//!
//! A demand may also come from a capture's requirements checklist (`plan --from-capture ID
//! --level p99 --growth 30%`): the caller fills the figures, names the [`Demand::level`] they
//! were read at and says where each came from ([`FigureOrigin`]); `--growth` multiplies the
//! rates and the queue depth ([`Demand::grown`]).
//!
//! The random share does not change a predicted rate: the caps the catalog publishes count
//! every IO (and every byte) whatever its offset, so sequential and random IO of one size hit
//! the same caps. It is shown with the demand and picks the stripe advice (mostly sequential IO
//! gets the guide's 256 KiB data-warehouse stripe).

use crate::{DemandProblem, PlanError};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
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
    /// What `latency_ns` is: a per-IO bound (typed, or a traced capture's per-IO latency) or
    /// a counter-only capture's interval mean of await; `None` is a typed bound (per IO).
    pub latency_basis: Option<LatencyBasis>,
    /// Queue depth the application keeps.
    pub queue_depth: Option<u32>,
    /// Space needed in bytes.
    pub capacity_bytes: Option<u64>,
    /// True when `read`/`write` was given (the default 100 % reads is an assumption).
    pub mix_given: bool,
    /// Share of IOs that are random, 0..=1, when known.
    pub random_fraction: Option<f64>,
    /// The level of a capture's checklist the figures were read at (`p99`), when they came
    /// from a capture.
    pub level: Option<String>,
    /// Headroom for growth applied to the rates and the queue depth (0.3 = +30 %).
    pub growth_fraction: Option<f64>,
    /// Where figures came from when not typed by the user, in the order shown.
    pub origins: Vec<FigureOrigin>,
}

/// What a demand's latency figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyBasis {
    /// A latency per IO: typed as `latency=`, or a traced capture's device latency.
    PerIo,
    /// An interval mean of await from a capture's counters: queueing included, never a
    /// per-IO figure.
    IntervalAwait,
}

/// Where one figure of a demand came from, for the plan's text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureOrigin {
    /// The demand key it fills (`iops`, `bs`, `latency`).
    pub key: String,
    /// How it was worked out, e.g. "capture 12: IOPS total p99 1,200 x 1.3".
    pub text: String,
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
            latency_basis: None,
            queue_depth: None,
            capacity_bytes: None,
            mix_given: false,
            random_fraction: None,
            level: None,
            growth_fraction: None,
            origins: Vec::new(),
        }
    }
}

impl Demand {
    /// Parses `key=value` pairs separated by commas (`bs=4k,64k` keeps its second value).
    pub fn parse(text: &str) -> Result<Demand, PlanError> {
        Demand::parse_onto(Demand::default(), text)
    }

    /// Parses `text` over `base`: the keys given replace `base`'s figures (and drop their
    /// [`FigureOrigin`]), the others keep them. `--workload` over `--from-capture`.
    pub fn parse_onto(base: Demand, text: &str) -> Result<Demand, PlanError> {
        let mut demand = base;
        let pairs = split_pairs(text)?;
        demand.origins.retain(|origin| {
            !pairs.iter().any(|(key, _)| {
                canonical_key(key) == origin.key
                    || (origin.key == "read" && canonical_key(key) == "write")
            })
        });
        let mut read_given = None;
        let mut write_given = None;
        for (key, value) in pairs {
            let bad = |problem: DemandProblem| PlanError::Demand {
                key: key.clone(),
                problem,
            };
            match key.as_str() {
                "iops" => demand.iops = Some(parse_rate(&value).map_err(bad)?),
                "mibps" => demand.mibps = Some(parse_rate(&value).map_err(bad)?),
                "bs" => {
                    let mut parts = value.split(',');
                    let read = parts.next().unwrap_or("");
                    let write = parts.next().unwrap_or(read);
                    if parts.next().is_some() {
                        return Err(bad(DemandProblem::TooManySizes));
                    }
                    let size = |t: &str| -> Result<u64, PlanError> {
                        match parse_size(t, KbBase::Binary) {
                            Ok(0) => Err(bad(DemandProblem::ZeroSize)),
                            Ok(n) => Ok(n),
                            Err(e) => Err(bad(e.into())),
                        }
                    };
                    demand.read_bs_bytes = Some(size(read)?);
                    demand.write_bs_bytes = Some(size(write)?);
                }
                "read" => read_given = Some(parse_share(&value).map_err(bad)?),
                "write" => write_given = Some(parse_share(&value).map_err(bad)?),
                "cache-hit" | "cache_hit" | "hit" => {
                    demand.cache_hit_fraction = parse_share(&value).map_err(bad)?
                }
                "local" => demand.local_fraction = parse_share(&value).map_err(bad)?,
                "latency" => {
                    let ns =
                        parse_time_ns(&value, TimeUnit::Milliseconds).map_err(|e| bad(e.into()))?;
                    if ns == 0 {
                        return Err(bad(DemandProblem::ZeroLatency));
                    }
                    demand.latency_ns = Some(ns);
                    demand.latency_basis = Some(LatencyBasis::PerIo);
                }
                "qd" | "iodepth" => {
                    let qd: u32 = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|&q| q > 0)
                        .ok_or_else(|| bad(DemandProblem::NotAQueueDepth(value.clone())))?;
                    demand.queue_depth = Some(qd);
                }
                "capacity" | "size" => {
                    let bytes = parse_size(&value, KbBase::Binary).map_err(|e| bad(e.into()))?;
                    demand.capacity_bytes = Some(bytes);
                }
                "random" => demand.random_fraction = Some(parse_share(&value).map_err(bad)?),
                _ => return Err(bad(DemandProblem::UnknownKey)),
            }
        }
        demand.read_fraction = match (read_given, write_given) {
            (None, None) => demand.read_fraction,
            (Some(r), None) => r,
            (None, Some(w)) => 1.0 - w,
            (Some(r), Some(w)) => {
                if (r + w - 1.0).abs() > 1e-9 {
                    return Err(PlanError::Demand {
                        key: "read".to_string(),
                        problem: DemandProblem::MixNot100 {
                            read_percent: r * 100.0,
                            write_percent: w * 100.0,
                        },
                    });
                }
                r
            }
        };
        demand.mix_given |= read_given.is_some() || write_given.is_some();
        Ok(demand)
    }

    /// This demand with the `--workload` keys `workload` over it, then the `--growth`
    /// headroom `growth` (`30%`).
    pub fn adjusted(
        self,
        workload: Option<&str>,
        growth: Option<&str>,
    ) -> Result<Demand, PlanError> {
        let demand = match workload {
            Some(text) => {
                Demand::parse_onto(self, text).map_err(|e| PlanError::Workload(Box::new(e)))?
            }
            None => self,
        };
        match growth {
            Some(text) => Ok(demand.grown(parse_growth(text).map_err(PlanError::Growth)?)),
            None => Ok(demand),
        }
    }

    /// This demand with `fraction` more headroom (0.3 = +30 %): IOPS, MiB/s and the queue
    /// depth (Little's law: more IOs at the same latency keep more in flight) grow; sizes,
    /// shares and the latency target do not.
    pub fn grown(mut self, fraction: f64) -> Demand {
        let factor = 1.0 + fraction;
        self.iops = self.iops.map(|v| v * factor);
        self.mibps = self.mibps.map(|v| v * factor);
        self.queue_depth = self
            .queue_depth
            .map(|q| (f64::from(q) * factor).ceil().max(1.0) as u32);
        self.growth_fraction = Some(fraction);
        self
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

/// The key a `--workload` alias stands for (`iodepth` -> `qd`).
fn canonical_key(key: &str) -> &str {
    match key {
        "cache_hit" | "hit" => "cache-hit",
        "iodepth" => "qd",
        "size" => "capacity",
        other => other,
    }
}

/// Growth headroom as a fraction: `30%` (or `30`, or `0.3`) is 0.3, by the shares' rule
/// ([`parse_share`]) but allowed past 100 % (`150%`); negative growth is refused.
pub fn parse_growth(text: &str) -> Result<f64, DemandProblem> {
    let t = text.trim();
    let (number, percent_sign) = match t.strip_suffix('%') {
        Some(number) => (number.trim(), true),
        None => (t, false),
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| DemandProblem::NotAShare(t.to_string()))?;
    Ok(if percent_sign || value > 1.0 {
        value / 100.0
    } else {
        value
    })
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
                        problem: DemandProblem::Repeated,
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
                        problem: DemandProblem::NotAPair,
                    })
                }
            },
        }
    }
    if pairs.is_empty() {
        return Err(PlanError::Demand {
            key: String::new(),
            problem: DemandProblem::Empty,
        });
    }
    Ok(pairs)
}

/// A positive rate: `16000`, `16k` (16,000), `1.5m` (1,500,000), `12,800` is not accepted
/// (the comma separates keys).
fn parse_rate(text: &str) -> Result<f64, DemandProblem> {
    diskmeter_units::parse_decimal_count(text)
        .filter(|v| *v > 0.0)
        .ok_or_else(|| DemandProblem::NotARate(text.trim().to_string()))
}

/// A share, by the one rule of every share the planner reads (`read`, `write`, `cache-hit`,
/// `local`): `N%` is a percentage from 0 to 100; a bare number from 0 to 1 is a fraction
/// (`0.5` = 50 %, `1` = 100 %); a bare number above 1 up to 100 is a percentage (`70` =
/// 70 %). So `50%`, `50` and `0.5` mean the same; 0.5 % is written `0.5%`. Anything below 0
/// or above 100 % is refused. Returns the fraction, 0..=1.
pub fn parse_share(text: &str) -> Result<f64, DemandProblem> {
    let t = text.trim();
    let (number, percent_sign) = match t.strip_suffix('%') {
        Some(number) => (number.trim(), true),
        None => (t, false),
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| DemandProblem::NotAShare(t.to_string()))?;
    let fraction = if percent_sign || value > 1.0 {
        value / 100.0
    } else {
        value
    };
    if !(0.0..=1.0).contains(&fraction) {
        return Err(DemandProblem::ShareOutOfRange(t.to_string()));
    }
    Ok(fraction)
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
            ("cache-hit=150", "cache-hit: '150' is out of range"),
            ("local=-0.5", "local: '-0.5' is out of range"),
            ("write=101%", "write: '101%' is out of range"),
            ("read=most", "read: 'most' is not a share"),
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

    /// Regression: `local=0.5` read as 0.5 % while `cache-hit=0.5` read as 50 %. Every share
    /// now follows one rule: `50%`, `50` and `0.5` mean half.
    #[test]
    fn planner_fractions_mean_the_same_for_every_share() {
        for half in ["0.5", "50", "50%", " 50 % "] {
            let d = Demand::parse(&format!("read={half},cache-hit={half},local={half}")).unwrap();
            assert_eq!(d.read_fraction, 0.5, "read={half}");
            assert_eq!(d.cache_hit_fraction, 0.5, "cache-hit={half}");
            assert_eq!(d.local_fraction, 0.5, "local={half}");
            let d = Demand::parse(&format!("write={half}")).unwrap();
            assert_eq!(d.write_fraction(), 0.5, "write={half}");
        }
        // The boundary: a bare number up to 1 is a fraction, above 1 a percentage.
        for (text, fraction) in [
            ("1", 1.0),
            ("0", 0.0),
            ("0.25", 0.25),
            ("1.5", 0.015),
            ("0.5%", 0.005),
            ("100", 1.0),
            ("100%", 1.0),
            ("12.5", 0.125),
        ] {
            let got = parse_share(text).unwrap();
            assert!((got - fraction).abs() < 1e-12, "{text}: {got}");
        }
        for text in [
            "100.5", "101%", "-0.1", "-5%", "nan", "inf", "", "%", "half",
        ] {
            assert!(parse_share(text).is_err(), "{text} was accepted");
        }
    }

    #[test]
    fn growth_multiplies_rates_and_queue_depth_but_not_sizes_shares_or_latency() {
        let d = Demand::parse("iops=1000,mibps=100,bs=8k,read=70%,qd=8,latency=2,random=30%")
            .unwrap()
            .grown(parse_growth("30%").unwrap());
        assert!((d.iops.unwrap() - 1300.0).abs() < 1e-9);
        assert!((d.mibps.unwrap() - 130.0).abs() < 1e-9);
        assert_eq!(d.queue_depth, Some(11));
        assert_eq!(d.read_bs_bytes, Some(8192));
        assert_eq!(d.latency_ns, Some(2_000_000));
        assert_eq!(d.random_fraction, Some(0.3));
        assert_eq!(d.growth_fraction, Some(0.3));
        assert_eq!(parse_growth("150%"), Ok(1.5));
        assert_eq!(parse_growth("0.3"), Ok(0.3));
        assert!(parse_growth("-5%").is_err());
    }

    #[test]
    fn workload_keys_override_a_capture_demand_and_drop_their_origin() {
        let base = Demand {
            iops: Some(500.0),
            read_fraction: 0.9,
            mix_given: true,
            origins: vec![
                FigureOrigin {
                    key: "iops".into(),
                    text: "capture".into(),
                },
                FigureOrigin {
                    key: "read".into(),
                    text: "capture".into(),
                },
            ],
            ..Demand::default()
        };
        let d = Demand::parse_onto(base.clone(), "cache-hit=0.8").unwrap();
        assert_eq!(
            (d.iops, d.read_fraction, d.cache_hit_fraction),
            (Some(500.0), 0.9, 0.8)
        );
        assert_eq!(d.origins.len(), 2);
        let d = Demand::parse_onto(base, "iops=900,write=50%").unwrap();
        assert_eq!((d.iops, d.read_fraction), (Some(900.0), 0.5));
        assert!(d.origins.is_empty());
    }
}
