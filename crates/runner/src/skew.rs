//! Skewed random block choice for fio's `random_distribution`: Zipf, Pareto, normal and zoned.
//!
//! The methods are the ones fio's HOWTO and its `t/genzipf` tool describe:
//! - Zipf: Gray et al., "Quickly generating billion-record synthetic databases" (SIGMOD 1994):
//!   a rank from one uniform draw, after computing the generalised harmonic number
//!   zeta(n, theta) once (over at most 10 million ranks, as fio caps it).
//! - Pareto: rank = (n - 1) x u^(ln h / ln(1 - h)), so that h = 0.2 sends ~80 % of the IOs to
//!   the hottest 20 % of the blocks.
//! - Normal: Box-Muller around `center` with a standard deviation of `deviation %` of the
//!   blocks, wrapped into the region.
//! - Zoned: a zone by its share of the IOs, then a uniform block inside it; zones are laid out
//!   from the region's start in the order given (fio's HOWTO, `random_distribution=zoned`).
//!
//! Zipf and Pareto ranks are hot-first; without a center they are scattered over the region
//! by a keyed bijection (fio hashes them too), with one the hottest block sits at that share
//! of the region and the next ones follow it.

use diskmeter_workload::{fit_abs_zones, RandomDistribution, ZonesPastEnd};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// fio's `ZIPF_MAX_GEN`: zeta(n) is summed over at most this many ranks.
const ZIPF_MAX_GEN: u64 = 10_000_000;

/// Draws block numbers in `0..n` from a skewed distribution.
#[derive(Debug, Clone)]
pub struct SkewSampler {
    n: u64,
    kind: Kind,
    /// `Some(first block)` when a center was given; `None` scatters ranks.
    center_block: Option<u64>,
    scatter_key: u64,
    rng: Xoshiro256PlusPlus,
}

#[derive(Debug, Clone)]
enum Kind {
    Uniform,
    Zipf {
        theta: f64,
        alpha: f64,
        zetan: f64,
        eta: f64,
    },
    Pareto {
        power: f64,
    },
    Normal {
        mean: f64,
        deviation: f64,
    },
    Zoned {
        zones: Vec<ZoneBlocks>,
        /// The zones' access shares added up: 100, or less where DiskSpd dropped zones past
        /// the end (the draw spans the shares kept, which re-weights them).
        access_total: u32,
    },
}

/// One zone of a zoned distribution, in blocks.
#[derive(Debug, Clone)]
struct ZoneBlocks {
    /// Draws (0..100) below this pick the zone: the cumulative access share up to it.
    access_until: u32,
    first_block: u64,
    blocks: u64,
}

impl SkewSampler {
    /// A sampler over `n` blocks of `block_bytes` (which places `zoned_abs` zones).
    pub fn new(distribution: RandomDistribution, n: u64, block_bytes: u64, seed: u64) -> Self {
        let n = n.max(1);
        let (kind, center) = match distribution {
            RandomDistribution::Uniform => (Kind::Uniform, None),
            RandomDistribution::Zipf { theta, center } => {
                let zetan = zeta(n.min(ZIPF_MAX_GEN), theta);
                let zeta2 = zeta(2, theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                (
                    Kind::Zipf {
                        theta,
                        alpha: 1.0 / (1.0 - theta),
                        zetan,
                        eta,
                    },
                    center,
                )
            }
            RandomDistribution::Pareto { h, center } => (
                Kind::Pareto {
                    power: h.ln() / (1.0 - h).ln(),
                },
                center,
            ),
            RandomDistribution::Normal {
                deviation_percent,
                center,
            } => (
                Kind::Normal {
                    mean: center * n as f64,
                    deviation: deviation_percent / 100.0 * n as f64,
                },
                None,
            ),
            RandomDistribution::Zoned { zones } => (
                Kind::Zoned {
                    zones: zone_blocks(&zones, n),
                    access_total: 100,
                },
                None,
            ),
            RandomDistribution::ZonedAbs { zones, past_end } => {
                let block_bytes = block_bytes.max(1);
                let zones = match past_end {
                    // The plan refused zones with IO past the end; files as units (fio's
                    // file_service_type) are cut at the last file.
                    ZonesPastEnd::Refused => abs_zone_blocks(&zones, n, block_bytes),
                    ZonesPastEnd::Reweighted => fitted_zone_blocks(&zones, n, block_bytes),
                };
                let access_total = zones.last().map_or(100, |zone| zone.access_until);
                (
                    Kind::Zoned {
                        zones,
                        access_total,
                    },
                    None,
                )
            }
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6a09_e667_f3bc_c909);
        SkewSampler {
            n,
            kind,
            center_block: center.map(|c| ((c * n as f64) as u64).min(n - 1)),
            scatter_key: rng.next_u64(),
            rng,
        }
    }

    /// A uniform draw in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// The next block.
    pub fn next_block(&mut self) -> u64 {
        let n = self.n;
        if let Kind::Zoned {
            zones,
            access_total,
        } = &self.kind
        {
            let draw = ((self.rng.next_u64() as u128 * u128::from(*access_total)) >> 64) as u32;
            let zone = zones
                .iter()
                .find(|zone| draw < zone.access_until)
                .or(zones.last())
                .expect("a zoned distribution has a zone");
            let inside = ((self.rng.next_u64() as u128 * zone.blocks as u128) >> 64) as u64;
            return (zone.first_block + inside).min(n - 1);
        }
        let rank = match self.kind.clone() {
            Kind::Uniform => return ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64,
            Kind::Normal { mean, deviation } => {
                let (u1, u2) = (self.unit(), self.unit());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let x = (mean + z * deviation).floor() as i64;
                return x.rem_euclid(n as i64) as u64;
            }
            Kind::Zipf {
                theta,
                alpha,
                zetan,
                eta,
            } => {
                let u = self.unit();
                let uz = u * zetan;
                let rank = if uz < 1.0 {
                    0
                } else if uz < 1.0 + 0.5f64.powf(theta) {
                    1
                } else {
                    (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                rank.min(n - 1)
            }
            Kind::Pareto { power } => {
                let u = self.unit();
                (((n - 1) as f64) * u.powf(power)) as u64
            }
            Kind::Zoned { .. } => unreachable!("zoned draws return above"),
        };
        match self.center_block {
            Some(first) => (first + rank) % n,
            None => scatter(rank, n, self.scatter_key),
        }
    }
}

/// The zones laid out over `n` blocks from the start: each spans its share of the blocks (at
/// least one), and is picked by its cumulative access share.
fn zone_blocks(zones: &[diskmeter_workload::Zone], n: u64) -> Vec<ZoneBlocks> {
    let mut access_until = 0u32;
    let mut size_until = 0u64;
    zones
        .iter()
        .map(|zone| {
            let first_block = (size_until * n / 100).min(n - 1);
            size_until += u64::from(zone.size_percent);
            access_until += u32::from(zone.access_percent);
            let end = (size_until * n / 100).min(n);
            ZoneBlocks {
                access_until,
                first_block,
                blocks: end.saturating_sub(first_block).max(1),
            }
        })
        .collect()
}

/// `zoned_abs` zones laid out over `n` blocks of `block_bytes` from the start: each spans its
/// bytes (at least one block), cut at the region's end (the plan refused fio jobs whose zones
/// with IO pass it, so only files as units are cut here).
fn abs_zone_blocks(
    zones: &[diskmeter_workload::AbsZone],
    n: u64,
    block_bytes: u64,
) -> Vec<ZoneBlocks> {
    let mut access_until = 0u32;
    let mut next_block = 0u64;
    zones
        .iter()
        .map(|zone| {
            let first_block = next_block.min(n - 1);
            next_block = next_block.saturating_add(zone.size_bytes / block_bytes);
            access_until += u32::from(zone.access_percent);
            ZoneBlocks {
                access_until,
                first_block,
                blocks: next_block.min(n).saturating_sub(first_block).max(1),
            }
        })
        .collect()
}

/// `zoned_abs` zones as DiskSpd fits them to `n` blocks of `block_bytes` (see
/// [`ZonesPastEnd::Reweighted`]); the access shares kept add up to the draw's span. When no
/// zone fits (the plan refuses that) the whole region is one zone.
fn fitted_zone_blocks(
    zones: &[diskmeter_workload::AbsZone],
    n: u64,
    block_bytes: u64,
) -> Vec<ZoneBlocks> {
    let region_bytes = n.saturating_mul(block_bytes);
    let Ok(fitted) = fit_abs_zones(zones, region_bytes, block_bytes, ZonesPastEnd::Reweighted)
    else {
        return vec![ZoneBlocks {
            access_until: 100,
            first_block: 0,
            blocks: n,
        }];
    };
    let mut access_until = 0u32;
    fitted
        .iter()
        .map(|zone| {
            access_until += u32::from(zone.access_percent);
            let first_block = (zone.start_bytes / block_bytes).min(n - 1);
            ZoneBlocks {
                access_until,
                first_block,
                blocks: (zone.len_bytes / block_bytes).min(n - first_block).max(1),
            }
        })
        .collect()
}

/// zeta(n, theta) = sum over i = 1..=n of 1 / i^theta.
fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| (i as f64).powf(-theta)).sum()
}

/// Spreads ranks over `0..n` one-to-one: a keyed bijection on the next power of two, walked
/// until it lands inside `0..n` (cycle walking), so no two ranks share a block.
fn scatter(rank: u64, n: u64, key: u64) -> u64 {
    let bits = (64 - (n.max(2) - 1).leading_zeros()).max(2);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let half = bits / 2;
    let mut x = rank;
    loop {
        x = (x ^ key) & mask;
        x ^= x >> half;
        x = x.wrapping_mul(key | 1) & mask;
        x ^= x >> half;
        if x < n {
            return x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Share of all draws that land on the hottest `top` share of the blocks.
    fn hot_share(distribution: RandomDistribution, n: u64, top: f64) -> f64 {
        let mut sampler = SkewSampler::new(distribution, n, 4096, 11);
        let mut hits = vec![0u64; n as usize];
        let draws = 400_000;
        for _ in 0..draws {
            hits[sampler.next_block() as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let k = (n as f64 * top) as usize;
        hits[..k].iter().sum::<u64>() as f64 / draws as f64
    }

    #[test]
    fn pareto_0_2_is_the_80_20_rule() {
        let share = hot_share(
            RandomDistribution::Pareto {
                h: 0.2,
                center: None,
            },
            10_000,
            0.2,
        );
        assert!((share - 0.8).abs() < 0.02, "{share}");
    }

    #[test]
    fn zipf_matches_its_probability_law() {
        // P(rank <= k) = zeta(k) / zeta(n): the share of the hottest 1% of 10,000 blocks.
        let theta = 1.2;
        let expected = zeta(100, theta) / zeta(10_000, theta);
        let share = hot_share(
            RandomDistribution::Zipf {
                theta,
                center: None,
            },
            10_000,
            0.01,
        );
        assert!((share - expected).abs() < 0.03, "{share} vs {expected}");
        let uniform = hot_share(RandomDistribution::Uniform, 10_000, 0.01);
        assert!(uniform < 0.02, "{uniform}");
    }

    #[test]
    fn normal_keeps_68_percent_within_one_deviation_of_its_center() {
        let n = 10_000u64;
        let mut sampler = SkewSampler::new(
            RandomDistribution::Normal {
                deviation_percent: 5.0,
                center: 0.25,
            },
            n,
            4096,
            3,
        );
        let inside = (0..100_000)
            .filter(|_| (2000..3000).contains(&sampler.next_block()))
            .count();
        assert!((inside as f64 / 100_000.0 - 0.683).abs() < 0.01, "{inside}");
    }

    #[test]
    fn a_center_puts_the_hottest_block_there() {
        let n = 1000;
        let mut sampler = SkewSampler::new(
            RandomDistribution::Zipf {
                theta: 1.2,
                center: Some(0.25),
            },
            n,
            4096,
            5,
        );
        let mut hits = vec![0u64; n as usize];
        for _ in 0..50_000 {
            hits[sampler.next_block() as usize] += 1;
        }
        let hottest = (0..n as usize).max_by_key(|&i| hits[i]).unwrap();
        assert_eq!(hottest, 250);
    }

    #[test]
    fn scatter_is_one_to_one() {
        for n in [1u64, 2, 7, 1000, 4097] {
            let mut seen = vec![false; n as usize];
            for rank in 0..n {
                let b = scatter(rank, n, 0x1234_5678_9abc_def1) as usize;
                assert!(!seen[b]);
                seen[b] = true;
            }
        }
    }

    #[test]
    fn zoned_sends_each_zones_share_of_the_ios_to_its_span() {
        let zoned = RandomDistribution::parse("zoned:80/20:20/80").unwrap();
        let n = 10_000u64;
        let mut sampler = SkewSampler::new(zoned, n, 4096, 7);
        let draws = 200_000;
        let in_first_fifth = (0..draws).filter(|_| sampler.next_block() < n / 5).count();
        let share = in_first_fifth as f64 / draws as f64;
        assert!((share - 0.8).abs() < 0.01, "{share}");
    }

    #[test]
    fn zoned_spreads_evenly_inside_a_zone_and_never_leaves_the_sizes_given() {
        // Sizes cover 50 % of the region: the other half is never touched, as in fio.
        let zoned = RandomDistribution::parse("zoned:50/25:50/25").unwrap();
        let n = 1000u64;
        let mut sampler = SkewSampler::new(zoned, n, 4096, 3);
        let mut hits = vec![0u64; n as usize];
        for _ in 0..100_000 {
            hits[sampler.next_block() as usize] += 1;
        }
        assert!(hits[500..].iter().all(|h| *h == 0));
        let first: u64 = hits[..250].iter().sum();
        assert!((first as f64 / 100_000.0 - 0.5).abs() < 0.01, "{first}");
        assert!(
            hits[..500].iter().all(|h| *h > 100),
            "uniform inside each zone"
        );
    }

    /// The share of 100,000 draws below block `limit` (every draw checked to be under `n`).
    fn share_below(mut sampler: SkewSampler, n: u64, limit: u64) -> f64 {
        let draws = 100_000;
        let below = (0..draws)
            .filter(|_| {
                let block = sampler.next_block();
                assert!(block < n);
                block < limit
            })
            .count();
        below as f64 / draws as f64
    }

    #[test]
    fn zoned_abs_places_its_zones_in_bytes_and_cuts_them_at_the_regions_end() {
        // 1000 blocks of 4 KiB: 60 % of the IOs to the first 400 KiB (100 blocks), the rest to
        // a zone asked as 1 GiB, cut at the region's end.
        let zoned = RandomDistribution::parse("zoned_abs:60/400k:40/1g").unwrap();
        let n = 1000u64;
        let share = share_below(SkewSampler::new(zoned, n, 4096, 5), n, 100);
        assert!((share - 0.6).abs() < 0.01, "{share}");
    }

    #[test]
    fn diskspd_zones_past_the_end_are_dropped_and_the_rest_reweighted() {
        // -rdabs30/400k:10/400k:60/10g on 150 blocks of 4 KiB (600 KiB): the third range
        // starts past the end and is dropped, the second is cut at it: 30:10 becomes 75:25.
        let zones = RandomDistribution::parse("zoned_abs:30/400k:10/400k:60/10g").unwrap();
        let RandomDistribution::ZonedAbs { zones, .. } = zones else {
            panic!()
        };
        let reweighted = RandomDistribution::ZonedAbs {
            zones,
            past_end: ZonesPastEnd::Reweighted,
        };
        let n = 150u64;
        let share = share_below(SkewSampler::new(reweighted, n, 4096, 9), n, 100);
        assert!((share - 0.75).abs() < 0.01, "{share}");
    }
}
