//! How sure a mean of per-second samples is, and whether two such means differ.
//!
//! Per-second IOPS samples of a storage run are autocorrelated (a slow second is often
//! followed by another), so the plain standard error s/sqrt(n) is too small. The method of
//! batch means (Law & Kelton, "Simulation Modeling and Analysis", ch. 9) groups the samples
//! into consecutive batches long enough to be nearly independent and uses the spread of the
//! batch means instead: with b batches, the 95 % interval is
//! mean +- t(0.975, b-1) x sd(batch means) / sqrt(b). diskmeter uses b = clamp(sqrt(n), 2, 30)
//! batches of equal length (samples that do not fill the last batch are dropped from the
//! spread, not from the mean).
//!
//! Two means are compared with Welch's t-test on those batch-mean standard errors
//! (Welch-Satterthwaite degrees of freedom): the difference is real when it is larger than
//! the 95 % half-width of the difference *and* larger than `noise_floor` of the baseline.

use serde::{Deserialize, Serialize};

/// A mean with its 95 % confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanEstimate {
    /// Mean of all samples.
    pub mean: f64,
    /// Half-width of the 95 % interval (`mean +- half_width`); infinite with fewer than 4
    /// samples, which cannot make two batches of two.
    pub half_width: f64,
    /// Standard error of the mean from the batch means.
    pub standard_error: f64,
    /// Number of batches the spread came from.
    pub batches: usize,
    /// Number of samples.
    pub samples: usize,
}

impl MeanEstimate {
    /// The interval's half-width as a share of the mean (0.02 = +-2 %).
    pub fn relative_half_width(&self) -> f64 {
        if self.mean == 0.0 {
            f64::INFINITY
        } else {
            self.half_width / self.mean.abs()
        }
    }
}

/// The batch-means estimate of the mean of `samples` (in time order).
pub fn batch_means(samples: &[f64]) -> MeanEstimate {
    let n = samples.len();
    let mean = if n == 0 {
        0.0
    } else {
        samples.iter().sum::<f64>() / n as f64
    };
    let batches = ((n as f64).sqrt().floor() as usize).clamp(2, 30);
    let per_batch = n / batches;
    if per_batch < 2 {
        return MeanEstimate {
            mean,
            half_width: f64::INFINITY,
            standard_error: f64::INFINITY,
            batches: 0,
            samples: n,
        };
    }
    let means: Vec<f64> = samples
        .chunks_exact(per_batch)
        .take(batches)
        .map(|batch| batch.iter().sum::<f64>() / per_batch as f64)
        .collect();
    let grand = means.iter().sum::<f64>() / batches as f64;
    let variance = means.iter().map(|m| (m - grand).powi(2)).sum::<f64>() / (batches as f64 - 1.0);
    let standard_error = (variance / batches as f64).sqrt();
    MeanEstimate {
        mean,
        half_width: t_975(batches as f64 - 1.0) * standard_error,
        standard_error,
        batches,
        samples: n,
    }
}

/// The verdict of comparing a candidate mean with a baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is higher than the baseline beyond the noise.
    Higher,
    /// The candidate is lower than the baseline beyond the noise.
    Lower,
    /// The difference is within the noise of the two runs.
    WithinNoise,
}

/// Compares `candidate` with `baseline` (Welch's t-test at 95 % on batch-mean standard
/// errors); differences below `noise_floor` x the baseline mean (e.g. 0.01) are never called.
pub fn compare_means(
    baseline: &MeanEstimate,
    candidate: &MeanEstimate,
    noise_floor: f64,
) -> Verdict {
    let difference = candidate.mean - baseline.mean;
    if difference.abs() <= noise_floor * baseline.mean.abs() {
        return Verdict::WithinNoise;
    }
    let (a, b) = (
        baseline.standard_error.powi(2),
        candidate.standard_error.powi(2),
    );
    let se = (a + b).sqrt();
    if !se.is_finite() {
        return Verdict::WithinNoise;
    }
    let df = if a + b == 0.0 {
        f64::INFINITY
    } else {
        let dfa = (baseline.batches as f64 - 1.0).max(1.0);
        let dfb = (candidate.batches as f64 - 1.0).max(1.0);
        (a + b).powi(2) / (a * a / dfa + b * b / dfb)
    };
    if difference.abs() <= t_975(df) * se {
        Verdict::WithinNoise
    } else if difference > 0.0 {
        Verdict::Higher
    } else {
        Verdict::Lower
    }
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom (two-sided 95 %):
/// exact table values to 30, then Cornish-Fisher's expansion around the normal's 1.96.
pub fn t_975(df: f64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if df.is_nan() || df < 1.0 {
        return f64::INFINITY;
    }
    if df <= 30.0 {
        return TABLE[(df.floor() as usize).clamp(1, 30) - 1];
    }
    let z = 1.959_964;
    let z3 = z * z * z;
    let z5 = z3 * z * z;
    z + (z3 + z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
}

/// The two-sided p-value of the Mann-Whitney U test (Wilcoxon rank-sum) that `a` and `b`
/// come from the same distribution: exact (by the recursion of Mann & Whitney, 1947) when
/// both samples have at most 25 values, else the normal approximation with a tie correction.
/// Ties count half. 1.0 when either sample is empty.
///
/// It complements [`compare_means`] on short runs: four seconds of a bursty device can give
/// a mean whose batch-means interval is wider than the mean, while every one of its seconds
/// still lies above every second of the other run, which this test recognises.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return 1.0;
    }
    // U counts the pairs where a wins, ties counting half; doubled to stay an integer.
    let u2: u64 = a
        .iter()
        .map(|x| {
            b.iter()
                .map(|y| match x.partial_cmp(y) {
                    Some(std::cmp::Ordering::Greater) => 2,
                    Some(std::cmp::Ordering::Equal) => 1,
                    _ => 0,
                })
                .sum::<u64>()
        })
        .sum();
    let u = u2 as f64 / 2.0;
    let (nf, mf) = (n as f64, m as f64);
    if n <= 25 && m <= 25 {
        // counts[k][u]: arrangements of k values of `a` among the others giving U = u,
        // built up one value of `b` at a time.
        let max_u = n * m;
        let mut counts = vec![vec![0f64; max_u + 1]; n + 1];
        for row in counts.iter_mut() {
            row[0] = 1.0;
        }
        for j in 1..=m {
            let mut next = vec![vec![0f64; max_u + 1]; n + 1];
            next[0][0] = 1.0;
            for i in 1..=n {
                for v in 0..=i * j {
                    let with_a_last = if v >= j { next[i - 1][v - j] } else { 0.0 };
                    next[i][v] = with_a_last + counts[i][v];
                }
            }
            counts = next;
        }
        let total: f64 = counts[n].iter().sum();
        let lower_u = u.min(nf * mf - u).floor() as usize;
        let tail: f64 = counts[n][..=lower_u].iter().sum::<f64>() / total;
        return (2.0 * tail).min(1.0);
    }
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    all.sort_by(|x, y| x.total_cmp(y));
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1] == all[i] {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let total = nf + mf;
    let variance = nf * mf / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - nf * mf / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    (2.0 * normal_upper_tail(z)).min(1.0)
}

/// P(Z > z) of the standard normal (Abramowitz & Stegun 7.1.26, error below 1.5e-7).
fn normal_upper_tail(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-x * x).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible AR(1) series: x(t) = mean + phi (x(t-1) - mean) + noise.
    fn ar1(n: usize, mean: f64, phi: f64, sd: f64, seed: u64) -> Vec<f64> {
        let mut state = seed;
        let mut uniform = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let mut x = mean;
        (0..n)
            .map(|_| {
                let g = (-2.0 * uniform().ln()).sqrt() * (std::f64::consts::TAU * uniform()).cos();
                x = mean + phi * (x - mean) + sd * g;
                x
            })
            .collect()
    }

    #[test]
    fn mann_whitney_matches_the_tables() {
        // Complete separation of 4 and 4: 2 / C(8,4) = 2 / 70.
        let p = mann_whitney_p(&[10.0, 11.0, 12.0, 13.0], &[1.0, 2.0, 3.0, 4.0]);
        assert!((p - 2.0 / 70.0).abs() < 1e-12, "{p}");
        // Interleaved samples are not different.
        assert!(mann_whitney_p(&[1.0, 3.0, 5.0, 7.0], &[2.0, 4.0, 6.0, 8.0]) > 0.5);
        // 3 vs 3 can never reach 5 %: 2 / 20 = 0.1.
        let p = mann_whitney_p(&[7.0, 8.0, 9.0], &[1.0, 2.0, 3.0]);
        assert!((p - 0.1).abs() < 1e-12, "{p}");
        // Identical samples (all ties).
        assert!((mann_whitney_p(&[5.0; 6], &[5.0; 6]) - 1.0).abs() < 1e-12);
        // The normal approximation, by hand: U = 600 of 900, mean 450, variance
        // 30 x 30 x 61 / 12 (no ties), z = (150 - 0.5) / 67.64 = 2.210, p = 0.0271.
        let a: Vec<f64> = (0..30).map(|i| i as f64 + 6.0).collect();
        let b: Vec<f64> = (0..30).map(|i| i as f64 + 0.5).collect();
        let p = mann_whitney_p(&a, &b);
        assert!((p - 0.0271).abs() < 0.0005, "{p}");
        assert_eq!(mann_whitney_p(&[], &[1.0]), 1.0);
    }

    #[test]
    fn the_interval_covers_the_true_mean_about_95_percent_of_the_time() {
        let covered = (0..400)
            .filter(|&seed| {
                let e = batch_means(&ar1(300, 10_000.0, 0.6, 200.0, seed));
                (e.mean - 10_000.0).abs() <= e.half_width
            })
            .count();
        // Correlated samples: the naive s/sqrt(n) would cover far less than 95 %.
        assert!((350..=395).contains(&covered), "covered {covered}/400");
    }

    #[test]
    fn too_few_samples_give_an_unbounded_interval() {
        assert!(batch_means(&[1.0, 2.0, 3.0]).half_width.is_infinite());
        assert_eq!(batch_means(&[]).mean, 0.0);
    }

    #[test]
    fn same_process_is_within_noise_and_a_shift_is_not() {
        let a = batch_means(&ar1(120, 10_000.0, 0.5, 300.0, 1));
        let b = batch_means(&ar1(120, 10_000.0, 0.5, 300.0, 2));
        assert_eq!(compare_means(&a, &b, 0.01), Verdict::WithinNoise);
        let slow = batch_means(&ar1(120, 8_000.0, 0.5, 300.0, 3));
        assert_eq!(compare_means(&a, &slow, 0.01), Verdict::Lower);
        assert_eq!(compare_means(&slow, &a, 0.01), Verdict::Higher);
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t_975(1.0), 12.706);
        assert_eq!(t_975(10.0), 2.228);
        assert!((t_975(60.0) - 2.000).abs() < 0.002);
        assert!((t_975(1e9) - 1.96).abs() < 0.001);
    }
}
