//! When rate-limited IOs are due under `rate_process=poisson`: exponential gaps, so arrivals
//! are independent (a Poisson process) with the rate's mean.

/// Exponentially distributed gaps with a given mean: the arrivals of a Poisson process
/// (fio `rate_process=poisson`).
pub struct PoissonGaps {
    rng: rand_xoshiro::Xoshiro256PlusPlus,
}

impl PoissonGaps {
    /// Gaps drawn from a generator seeded by `seed`.
    pub fn new(seed: u64) -> Self {
        use rand_xoshiro::rand_core::SeedableRng;
        PoissonGaps {
            rng: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x3c6e_f372_fe94_f82b),
        }
    }

    /// A gap with mean `mean_ns`: -ln(U) x mean, U uniform in (0, 1].
    pub fn exponential_gap(&mut self, mean_ns: u64) -> u64 {
        use rand_xoshiro::rand_core::RngCore;
        let u = ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        (-u.ln() * mean_ns as f64).round() as u64
    }
}

#[cfg(test)]
mod poisson_tests {
    use super::PoissonGaps;

    #[test]
    fn gaps_have_the_mean_and_the_spread_of_an_exponential() {
        let mut g = PoissonGaps::new(5);
        let gaps: Vec<f64> = (0..200_000)
            .map(|_| g.exponential_gap(1_000_000) as f64)
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "mean {mean}");
        // An exponential's standard deviation equals its mean (coefficient of variation 1).
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.02,
            "cv {}",
            var.sqrt() / mean
        );
    }
}
