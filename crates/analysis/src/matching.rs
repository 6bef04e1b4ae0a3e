//! The published tiers nearest to the inferred caps ("behaves like Azure P30"), from the
//! planner's catalog (built-in files plus the user's, each entry with its source and date).
//!
//! Distance is measured on a log scale, so 10 % off means the same at 500 IOPS as at 50,000:
//! d = sqrt(ln(iops / tier iops)^2 + ln(bandwidth / tier bandwidth)^2) over the caps that
//! were found. Tiers with equal caps tie (P30 and a DigitalOcean volume are both 5,000 IOPS /
//! 200 MiB/s) and are listed in catalog order.

use diskmeter_plan::DiskTier;
use serde::{Deserialize, Serialize};

/// How near a published tier is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierMatch {
    /// The tier's id (`P30`).
    pub id: String,
    /// Its name ("Azure Premium SSD P30").
    pub name: String,
    /// Its published IOPS cap.
    pub iops: f64,
    /// Its published bandwidth cap, MiB/s.
    pub mibps: f64,
    /// The log distance (0 = identical; 0.1 ~ 10 % off).
    pub distance: f64,
}

/// The tiers sorted nearest first (at most 5), or none when no cap was found.
pub fn nearest_tiers(iops: Option<f64>, mibps: Option<f64>, tiers: &[DiskTier]) -> Vec<TierMatch> {
    if iops.is_none() && mibps.is_none() {
        return Vec::new();
    }
    let mut matches: Vec<TierMatch> = tiers
        .iter()
        .filter_map(|tier| {
            let (tier_iops, tier_mibps) = (tier.iops?, tier.mibps?);
            let term = |found: Option<f64>, published: f64| {
                found.map_or(0.0, |v| (v.max(1e-9) / published.max(1e-9)).ln().powi(2))
            };
            Some(TierMatch {
                id: tier.id.clone(),
                name: tier.name.clone(),
                iops: tier_iops,
                mibps: tier_mibps,
                distance: (term(iops, tier_iops) + term(mibps, tier_mibps)).sqrt(),
            })
        })
        .collect();
    // Stable: equal distances keep catalog order.
    matches.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    matches.truncate(5);
    matches
}
