//! The in-engine emulator's service-time model (`--throttle-latency`): a per-IO latency added
//! at completion, so an emulated tier shows its published latency class as well as its caps.
//!
//! The delay is fixed (`2ms`), exponential with a mean (`exp:2ms`) or uniform over a range
//! (`uniform:1ms-3ms`), drawn from a generator seeded by the worker's seed, so a run repeats.
//! The worker holds a completed read or write in its slot until the delay has passed and only
//! then counts it and frees the slot ([`crate::worker`]): the IO occupies its place in the
//! queue as on a device whose service takes that long, so queue depth and Little's law hold
//! (at QD 1 a fixed 2 ms gives at most 500 IOPS), and the delay is in clat, lat and the
//! latency from the intended issue time.

use diskmeter_units::{format_duration_ns, parse_time_ns, TimeUnit, UnitError};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// A service-time distribution, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "distribution", rename_all = "lowercase")]
pub enum ServiceTime {
    /// Every IO takes this long.
    Fixed {
        /// The delay.
        ns: u64,
    },
    /// Exponentially distributed delays with this mean (an M/M/1-like device).
    Exp {
        /// The mean delay.
        mean_ns: u64,
    },
    /// Delays uniform between the two bounds.
    Uniform {
        /// The shortest delay.
        low_ns: u64,
        /// The longest delay.
        high_ns: u64,
    },
}

/// A `--throttle-latency` value that cannot be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ServiceTimeError {
    /// A time in it is not a time.
    #[error("{0}")]
    Time(#[from] UnitError),
    /// A distribution other than the three.
    #[error("unknown distribution '{0}' (use 2ms, exp:2ms or uniform:1ms-3ms)")]
    Distribution(String),
    /// A uniform range without two bounds in order.
    #[error("uniform needs LOW-HIGH with LOW <= HIGH, e.g. uniform:1ms-3ms (got '{0}')")]
    Range(String),
}

impl ServiceTime {
    /// Reads `2ms`, `exp:2ms` or `uniform:1ms-3ms`; a bare number is in microseconds, as fio's
    /// latency options are.
    pub fn parse(text: &str) -> Result<ServiceTime, ServiceTimeError> {
        let time = |t: &str| parse_time_ns(t, TimeUnit::Microseconds);
        let text = text.trim();
        match text.split_once(':') {
            None => Ok(ServiceTime::Fixed { ns: time(text)? }),
            Some(("fixed", t)) => Ok(ServiceTime::Fixed { ns: time(t)? }),
            Some(("exp", t)) => Ok(ServiceTime::Exp { mean_ns: time(t)? }),
            Some(("uniform", range)) => {
                let (low, high) = range
                    .split_once('-')
                    .ok_or_else(|| ServiceTimeError::Range(range.to_string()))?;
                let (low_ns, high_ns) = (time(low)?, time(high)?);
                if low_ns > high_ns {
                    return Err(ServiceTimeError::Range(range.to_string()));
                }
                Ok(ServiceTime::Uniform { low_ns, high_ns })
            }
            Some((name, _)) => Err(ServiceTimeError::Distribution(name.to_string())),
        }
    }

    /// The mean delay.
    pub fn mean_ns(&self) -> u64 {
        match *self {
            ServiceTime::Fixed { ns } => ns,
            ServiceTime::Exp { mean_ns } => mean_ns,
            ServiceTime::Uniform { low_ns, high_ns } => low_ns / 2 + high_ns / 2,
        }
    }
}

impl fmt::Display for ServiceTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ServiceTime::Fixed { ns } => write!(f, "{} fixed", format_duration_ns(ns)),
            ServiceTime::Exp { mean_ns } => {
                write!(f, "exponential, mean {}", format_duration_ns(mean_ns))
            }
            ServiceTime::Uniform { low_ns, high_ns } => write!(
                f,
                "uniform {} to {}",
                format_duration_ns(low_ns),
                format_duration_ns(high_ns)
            ),
        }
    }
}

/// One worker's draws from a [`ServiceTime`].
#[derive(Debug)]
pub struct ServiceDelays {
    model: ServiceTime,
    rng: rand_xoshiro::Xoshiro256PlusPlus,
}

impl ServiceDelays {
    /// Draws from `model`, seeded by `seed` (the worker's, so each worker has its own stream
    /// and a run repeats).
    pub fn new(model: ServiceTime, seed: u64) -> ServiceDelays {
        ServiceDelays {
            model,
            rng: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5be0_cd19_137e_2179),
        }
    }

    /// The next IO's delay.
    #[inline]
    pub fn next_ns(&mut self) -> u64 {
        match self.model {
            ServiceTime::Fixed { ns } => ns,
            ServiceTime::Exp { mean_ns } => {
                // -ln(U) x mean with U uniform in (0, 1].
                (-self.unit().ln() * mean_ns as f64).round() as u64
            }
            ServiceTime::Uniform { low_ns, high_ns } => {
                low_ns + ((high_ns - low_ns) as f64 * (1.0 - self.unit())).round() as u64
            }
        }
    }

    /// A uniform draw in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_are_read() {
        let parse = |t| ServiceTime::parse(t).unwrap();
        assert_eq!(parse("2ms"), ServiceTime::Fixed { ns: 2_000_000 });
        assert_eq!(parse("500"), ServiceTime::Fixed { ns: 500_000 });
        assert_eq!(parse("exp:2ms"), ServiceTime::Exp { mean_ns: 2_000_000 });
        assert_eq!(
            parse("uniform:1ms-3ms"),
            ServiceTime::Uniform {
                low_ns: 1_000_000,
                high_ns: 3_000_000
            }
        );
        assert_eq!(parse("uniform:1ms-3ms").mean_ns(), 2_000_000);
        for bad in [
            "gamma:2ms",
            "uniform:3ms-1ms",
            "uniform:2ms",
            "fast",
            "exp:",
        ] {
            assert!(ServiceTime::parse(bad).is_err(), "{bad}");
        }
    }

    fn mean_and_cv(model: ServiceTime) -> (f64, f64, Vec<u64>) {
        let mut d = ServiceDelays::new(model, 7);
        let draws: Vec<u64> = (0..200_000).map(|_| d.next_ns()).collect();
        let n = draws.len() as f64;
        let mean = draws.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = draws
            .iter()
            .map(|&x| (x as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, var.sqrt() / mean, draws)
    }

    #[test]
    fn a_fixed_delay_is_the_same_every_time() {
        let (mean, cv, _) = mean_and_cv(ServiceTime::Fixed { ns: 2_000_000 });
        assert_eq!((mean, cv), (2_000_000.0, 0.0));
    }

    #[test]
    fn exponential_delays_have_their_mean_and_a_cv_of_one() {
        let (mean, cv, _) = mean_and_cv(ServiceTime::Exp { mean_ns: 2_000_000 });
        assert!((mean / 2e6 - 1.0).abs() < 0.01, "mean {mean}");
        assert!((cv - 1.0).abs() < 0.02, "cv {cv}");
    }

    #[test]
    fn uniform_delays_stay_in_their_range_with_its_mean() {
        let (mean, cv, draws) = mean_and_cv(ServiceTime::Uniform {
            low_ns: 1_000_000,
            high_ns: 3_000_000,
        });
        assert!(draws.iter().all(|&d| (1_000_000..=3_000_000).contains(&d)));
        assert!((mean / 2e6 - 1.0).abs() < 0.01, "mean {mean}");
        // Uniform over [1, 3]: sd = 2 / sqrt(12) = 0.577, cv 0.289.
        assert!((cv - 0.2887).abs() < 0.01, "cv {cv}");
    }

    #[test]
    fn the_same_seed_draws_the_same_delays() {
        let model = ServiceTime::Exp { mean_ns: 1_000_000 };
        let (mut a, mut b) = (ServiceDelays::new(model, 3), ServiceDelays::new(model, 3));
        let draws = |d: &mut ServiceDelays| (0..100).map(|_| d.next_ns()).collect::<Vec<_>>();
        assert_eq!(draws(&mut a), draws(&mut b));
    }
}
