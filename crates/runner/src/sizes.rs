//! The size of each IO: fixed (`bs`), drawn uniformly from a range (`bsrange`, on multiples of
//! its minimum unless `blocksize_unaligned`) or from a weighted list (`bssplit`), as fio's
//! HOWTO describes them.

use diskmeter_workload::{BlockSizeSpread, Direction, JobSpec};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How one direction's sizes are drawn.
#[derive(Debug, Clone)]
enum SizeRule {
    Fixed(u64),
    /// `min x m` for m uniform in `1..=multiples`.
    Multiples {
        min_bytes: u64,
        multiples: u64,
    },
    /// Any byte count in `min..=max`.
    Any {
        min_bytes: u64,
        max_bytes: u64,
    },
    /// Sizes with cumulative shares (in millionths, the last one 1,000,000).
    Split(Vec<(u64, u64)>),
}

/// Draws IO sizes for both directions of one worker.
pub struct SizeChooser {
    rules: [SizeRule; 2],
    rng: Xoshiro256PlusPlus,
}

const PARTS: u64 = 1_000_000;

impl SizeChooser {
    /// The chooser for `job`, seeded by `seed`.
    pub fn new(job: &JobSpec, seed: u64) -> Self {
        let rule = |direction: Direction| match job.bs_spread.get_ref(direction) {
            BlockSizeSpread::Fixed => SizeRule::Fixed(job.bs_bytes.get(direction).max(1)),
            BlockSizeSpread::Range {
                min_bytes,
                max_bytes,
            } if job.blocksize_unaligned => SizeRule::Any {
                min_bytes: (*min_bytes).max(1),
                max_bytes: (*max_bytes).max(1),
            },
            BlockSizeSpread::Range {
                min_bytes,
                max_bytes,
            } => {
                let min_bytes = (*min_bytes).max(1);
                SizeRule::Multiples {
                    min_bytes,
                    multiples: (max_bytes / min_bytes).max(1),
                }
            }
            BlockSizeSpread::Split(shares) => {
                let mut total = 0.0;
                let mut cumulative: Vec<(u64, u64)> = shares
                    .iter()
                    .map(|share| {
                        total += share.percent;
                        (share.bytes, (total / 100.0 * PARTS as f64).round() as u64)
                    })
                    .collect();
                if let Some(last) = cumulative.last_mut() {
                    last.1 = PARTS;
                }
                SizeRule::Split(cumulative)
            }
        };
        SizeChooser {
            rules: [rule(Direction::Read), rule(Direction::Write)],
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x8f1b_bcdc_ca62_c1d6),
        }
    }

    /// The size of the next IO in `direction`.
    #[inline]
    pub fn next(&mut self, direction: Direction) -> u64 {
        match &self.rules[direction.index()] {
            SizeRule::Fixed(bytes) => *bytes,
            SizeRule::Multiples {
                min_bytes,
                multiples,
            } => min_bytes * (1 + bounded(self.rng.next_u64(), *multiples)),
            SizeRule::Any {
                min_bytes,
                max_bytes,
            } => min_bytes + bounded(self.rng.next_u64(), max_bytes - min_bytes + 1),
            SizeRule::Split(cumulative) => {
                let draw = bounded(self.rng.next_u64(), PARTS);
                cumulative
                    .iter()
                    .find(|(_, upto)| draw < *upto)
                    .or(cumulative.last())
                    .map_or(1, |(bytes, _)| *bytes)
            }
        }
    }
}

/// A uniform value in `0..n` (Lemire's multiply-shift).
fn bounded(random: u64, n: u64) -> u64 {
    ((random as u128 * n as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_jobs::job;

    #[test]
    fn bssplit_shares_hold_within_half_a_percent() {
        let job = job(&[("rw", "randrw"), ("bssplit", "4k/10:64k/50:32k/40,8k/")]);
        let mut sizes = SizeChooser::new(&job, 1);
        let n = 200_000;
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..n {
            *counts.entry(sizes.next(Direction::Read)).or_insert(0u64) += 1;
        }
        for (bytes, percent) in [(4096u64, 10.0), (65536, 50.0), (32768, 40.0)] {
            let share = counts[&bytes] as f64 / n as f64 * 100.0;
            assert!((share - percent).abs() < 0.5, "{bytes}: {share}%");
        }
        assert!((0..100).all(|_| sizes.next(Direction::Write) == 8192));
    }

    #[test]
    fn bsrange_draws_multiples_of_the_minimum_unless_unaligned() {
        let mut aligned = SizeChooser::new(&job(&[("bsrange", "4k-16k")]), 2);
        let drawn: std::collections::BTreeSet<u64> =
            (0..10_000).map(|_| aligned.next(Direction::Read)).collect();
        assert_eq!(
            drawn.into_iter().collect::<Vec<_>>(),
            vec![4096, 8192, 12288, 16384]
        );
        let mut any = SizeChooser::new(
            &job(&[("bsrange", "1000-1100"), ("blocksize_unaligned", "1")]),
            3,
        );
        let drawn: Vec<u64> = (0..10_000).map(|_| any.next(Direction::Write)).collect();
        assert!(drawn.iter().all(|b| (1000..=1100).contains(b)));
        assert!(drawn.iter().any(|b| b % 4 != 0));
    }
}
