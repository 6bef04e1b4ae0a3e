//! Sizing a formula disk type: the smallest volume of a scaled or provisioned type (its size,
//! and the IOPS and MiB/s bought with it) that gives one disk of a stripe what it must carry,
//! and its monthly price from the type's price components.
//!
//! The rules are the providers' own, as the catalog writes them ([`DiskTier`]'s formula
//! fields): a scaled type's limits are `free + per_gib x size` between a floor and a cap; a
//! provisioned type includes `iops_free` and `mibps_free` at any size and sells more up to
//! `iops_max_per_gib x size`, `mibps_max_per_iops x IOPS` and the absolute maxima. Sizes,
//! IOPS and MiB/s are rounded up to whole units, as the providers sell them.

use crate::catalog::{DiskKind, DiskTier};
use crate::format::group;
use serde::Serialize;

/// A disk's name in a configuration: its id, and for a sized volume of a scaled or
/// provisioned type its size and limits: `gp3 (500 GiB, 6,000 IOPS, 250 MiB/s)`.
pub fn volume_label(disk: &DiskTier) -> String {
    if disk.kind == DiskKind::Fixed {
        return disk.id.clone();
    }
    let mut parts = Vec::new();
    if let Some(gib) = disk.size_gib {
        parts.push(format!("{} GiB", group(gib)));
    }
    if let Some(iops) = disk.iops {
        parts.push(format!("{} IOPS", group(iops)));
    }
    if let Some(mibps) = disk.mibps {
        parts.push(format!("{} MiB/s", group(mibps)));
    }
    if parts.is_empty() {
        disk.id.clone()
    } else {
        format!("{} ({})", disk.id, parts.join(", "))
    }
}

/// What one disk must give.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PerDiskNeed {
    /// Space, GiB.
    pub gib: f64,
    /// IOPS.
    pub iops: f64,
    /// MiB/s.
    pub mibps: f64,
}

/// A sized volume's price, by component.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceParts {
    /// Capacity: GiB x USD per GiB-month.
    pub capacity_usd: f64,
    /// IOPS above the free allowance.
    pub iops_usd: f64,
    /// MiB/s above the free allowance.
    pub mibps_usd: f64,
}

/// The largest volume a formula type offers (its most size, IOPS and MiB/s): the probe that
/// tells whether any volume of the type can carry a share of the demand.
pub fn largest(tier: &DiskTier) -> DiskTier {
    let gib = tier.max_size_gib.or(tier.min_size_gib).unwrap_or(1.0);
    let (iops, mibps) = match tier.kind {
        DiskKind::Provisioned => {
            let iops = cap(tier.iops_max, tier.iops_max_per_gib.map(|p| p * gib))
                .or(tier.iops_free)
                .unwrap_or(0.0)
                .max(tier.iops_free.unwrap_or(0.0));
            (iops, provisioned_mibps_ceiling(tier, iops))
        }
        _ => scaled_limits(tier, gib),
    };
    sized(tier, gib, iops, mibps)
}

/// A scaled or provisioned type's smallest volume, with what comes free with it (gp3: 3,000
/// IOPS, 125 MiB/s); `None` for a fixed tier (it is its own volume) or a type no volume of
/// which can be sized.
pub fn smallest(tier: &DiskTier) -> Option<DiskTier> {
    tier.is_formula()
        .then(|| size_for(tier, PerDiskNeed::default()))
        .flatten()
}

/// The smallest volume of `tier` that gives `need`, or `None` when no volume of it can.
/// A fixed tier is returned as it is when it gives the need.
pub fn size_for(tier: &DiskTier, need: PerDiskNeed) -> Option<DiskTier> {
    let min = tier.min_size_gib.unwrap_or(1.0).max(1.0);
    let max = tier.max_size_gib.unwrap_or(f64::INFINITY);
    let mut gib = min.max(need.gib).ceil();
    let volume = match tier.kind {
        DiskKind::Fixed => return Some(tier.clone()),
        DiskKind::Scaled => {
            // The size whose scaled limits reach the need, then the limits of that size.
            let for_rate = |need: f64, free: Option<f64>, per_gib: Option<f64>| match per_gib {
                Some(per) if per > 0.0 && need > free.unwrap_or(0.0) => {
                    (need - free.unwrap_or(0.0)) / per
                }
                _ => 0.0,
            };
            gib = gib
                .max(for_rate(need.iops, tier.iops_free, tier.iops_per_gib).ceil())
                .max(for_rate(need.mibps, tier.mibps_free, tier.mibps_per_gib).ceil());
            let (iops, mibps) = scaled_limits(tier, gib);
            sized(tier, gib, iops, mibps)
        }
        DiskKind::Provisioned => {
            let free_iops = tier.iops_free.unwrap_or(0.0);
            let mut iops = need.iops.ceil().max(free_iops);
            let mibps = if tier.mibps_per_iops.is_some() {
                // Throughput comes with the IOPS: buy the IOPS that bring it.
                let per = tier.mibps_per_iops.unwrap_or(0.0);
                if per > 0.0 {
                    iops = iops.max((need.mibps / per).ceil());
                }
                provisioned_mibps_ceiling(tier, iops)
            } else {
                let mibps = need.mibps.ceil().max(tier.mibps_free.unwrap_or(0.0));
                if let Some(per) = tier.mibps_max_per_iops.filter(|p| *p > 0.0) {
                    if mibps > tier.mibps_free.unwrap_or(0.0) {
                        iops = iops.max((mibps / per).ceil());
                    }
                }
                mibps
            };
            if let Some(per_gib) = tier.iops_max_per_gib.filter(|p| *p > 0.0) {
                if iops > free_iops {
                    gib = gib.max((iops / per_gib).ceil());
                }
            }
            sized(tier, gib, iops, mibps)
        }
    };
    let fits_size = gib <= max;
    let gives_iops = volume.iops.unwrap_or(0.0) >= need.iops
        && tier
            .iops_max
            .is_none_or(|m| volume.iops.unwrap_or(0.0) <= m);
    let gives_mibps = volume.mibps.unwrap_or(0.0) >= need.mibps
        && tier
            .mibps_max
            .is_none_or(|m| volume.mibps.unwrap_or(0.0) <= m);
    (fits_size && gives_iops && gives_mibps).then_some(volume)
}

/// A scaled type's IOPS and MiB/s at `gib`: `free + per_gib x gib`, at least the floor, at
/// most the cap. A figure the type lacks entirely stays 0 (and the volume has no such cap).
fn scaled_limits(tier: &DiskTier, gib: f64) -> (f64, f64) {
    let scaled = |free: Option<f64>, per_gib: Option<f64>, min: Option<f64>, max: Option<f64>| {
        let value = free.unwrap_or(0.0) + per_gib.unwrap_or(0.0) * gib;
        let value = value.max(min.unwrap_or(0.0));
        let value = if per_gib.is_none() && free.is_none() {
            max.unwrap_or(value)
        } else {
            max.map_or(value, |m| value.min(m))
        };
        value.floor()
    };
    (
        scaled(
            tier.iops_free,
            tier.iops_per_gib,
            tier.iops_min,
            tier.iops_max,
        ),
        scaled(
            tier.mibps_free,
            tier.mibps_per_gib,
            tier.mibps_min,
            tier.mibps_max,
        ),
    )
}

/// The most MiB/s a provisioned volume with `iops` may have.
fn provisioned_mibps_ceiling(tier: &DiskTier, iops: f64) -> f64 {
    let by_iops = tier
        .mibps_per_iops
        .or(tier.mibps_max_per_iops)
        .map(|per| per * iops);
    cap(tier.mibps_max, by_iops)
        .or(tier.mibps_free)
        .unwrap_or(0.0)
        .max(tier.mibps_free.unwrap_or(0.0))
}

fn cap(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A volume of a formula `tier` with these figures (as a plan's candidate gives them), priced.
pub fn volume(tier: &DiskTier, gib: f64, iops: Option<f64>, mibps: Option<f64>) -> DiskTier {
    sized(tier, gib, iops.unwrap_or(0.0), mibps.unwrap_or(0.0))
}

/// `tier` as one volume of `gib` with `iops` and `mibps`, priced.
fn sized(tier: &DiskTier, gib: f64, iops: f64, mibps: f64) -> DiskTier {
    let mut volume = tier.clone();
    volume.size_gib = Some(gib);
    volume.iops = (iops > 0.0).then_some(iops);
    volume.mibps = (mibps > 0.0).then_some(mibps);
    volume.price_usd_month = price_parts(tier, gib, iops, mibps)
        .map(|p| round_cents(p.capacity_usd + p.iops_usd + p.mibps_usd));
    volume
}

/// The price of a volume of `tier` by component; `None` when the type has no per-GiB price
/// (or the volume buys IOPS or MiB/s that have none).
pub fn price_parts(tier: &DiskTier, gib: f64, iops: f64, mibps: f64) -> Option<PriceParts> {
    let capacity_usd = tier.price_usd_gib_month? * gib;
    let extra_iops = (iops - tier.iops_free.unwrap_or(0.0)).max(0.0);
    let iops_usd = if tier.kind != DiskKind::Provisioned || extra_iops == 0.0 {
        0.0
    } else if !tier.price_iops_tiers.is_empty() {
        tiered(&tier.price_iops_tiers, extra_iops)
    } else {
        tier.price_usd_iops_month? * extra_iops
    };
    let extra_mibps = (mibps - tier.mibps_free.unwrap_or(0.0)).max(0.0);
    let mibps_usd = if tier.kind != DiskKind::Provisioned
        || extra_mibps == 0.0
        || tier.mibps_per_iops.is_some()
    {
        0.0
    } else {
        tier.price_usd_mibps_month? * extra_mibps
    };
    Some(PriceParts {
        capacity_usd,
        iops_usd,
        mibps_usd,
    })
}

/// " (100 GiB x $0.08 + 3,000 IOPS x $0.005 + 125 MiB/s x $0.04)" for a sized volume of a
/// formula type; empty for a fixed tier (its price is the tier's).
pub fn price_text(volume: &DiskTier) -> String {
    let (Some(gib), DiskKind::Scaled | DiskKind::Provisioned) = (volume.size_gib, volume.kind)
    else {
        return String::new();
    };
    let Some(parts) = price_parts(
        volume,
        gib,
        volume.iops.unwrap_or(0.0),
        volume.mibps.unwrap_or(0.0),
    ) else {
        return String::new();
    };
    let mut text = format!("{gib} GiB x ${}", volume.price_usd_gib_month.unwrap_or(0.0));
    if parts.iops_usd > 0.0 {
        let extra = volume.iops.unwrap_or(0.0) - volume.iops_free.unwrap_or(0.0);
        text += &format!(
            " + {extra} IOPS above {} = ${:.2}",
            volume.iops_free.unwrap_or(0.0),
            parts.iops_usd
        );
    }
    if parts.mibps_usd > 0.0 {
        let extra = volume.mibps.unwrap_or(0.0) - volume.mibps_free.unwrap_or(0.0);
        text += &format!(
            " + {extra} MiB/s above {} = ${:.2}",
            volume.mibps_free.unwrap_or(0.0),
            parts.mibps_usd
        );
    }
    format!(" ({text})")
}

/// A tiered price: each tier's rate for the units within it.
fn tiered(tiers: &[[f64; 2]], units: f64) -> f64 {
    let mut usd = 0.0;
    let mut below = 0.0;
    for [up_to, rate] in tiers {
        let here = (units.min(*up_to) - below).max(0.0);
        usd += here * rate;
        below = *up_to;
        if units <= *up_to {
            break;
        }
    }
    usd
}

fn round_cents(usd: f64) -> f64 {
    (usd * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gp3() -> DiskTier {
        DiskTier {
            id: "gp3".into(),
            kind: DiskKind::Provisioned,
            min_size_gib: Some(1.0),
            max_size_gib: Some(16384.0),
            iops_free: Some(3000.0),
            iops_max: Some(16000.0),
            iops_max_per_gib: Some(500.0),
            mibps_free: Some(125.0),
            mibps_max: Some(1000.0),
            mibps_max_per_iops: Some(0.25),
            price_usd_gib_month: Some(0.08),
            price_usd_iops_month: Some(0.005),
            price_usd_mibps_month: Some(0.04),
            ..DiskTier::default()
        }
    }

    #[test]
    fn a_provisioned_volume_buys_what_the_need_takes_above_the_free_allowance() {
        let need = PerDiskNeed {
            gib: 100.0,
            iops: 6000.0,
            mibps: 250.0,
        };
        let v = size_for(&gp3(), need).unwrap();
        // 6,000 IOPS need 12 GiB at 500 per GiB: the 100 GiB asked for are more.
        assert_eq!(
            (v.size_gib, v.iops, v.mibps),
            (Some(100.0), Some(6000.0), Some(250.0))
        );
        // 100 x 0.08 + 3,000 x 0.005 + 125 x 0.04 = 8 + 15 + 5.
        assert_eq!(v.price_usd_month, Some(28.0));
        let too_much = PerDiskNeed {
            iops: 20_000.0,
            ..need
        };
        assert!(size_for(&gp3(), too_much).is_none());
        // 1,000 MiB/s takes 4,000 IOPS at 0.25 MiB/s per IOPS.
        let wide = size_for(
            &gp3(),
            PerDiskNeed {
                gib: 10.0,
                iops: 0.0,
                mibps: 1000.0,
            },
        )
        .unwrap();
        assert_eq!((wide.iops, wide.size_gib), (Some(4000.0), Some(10.0)));
    }

    #[test]
    fn a_scaled_volume_grows_until_its_limits_reach_the_need() {
        let pd_ssd = DiskTier {
            id: "pd-ssd".into(),
            kind: DiskKind::Scaled,
            min_size_gib: Some(10.0),
            max_size_gib: Some(65536.0),
            iops_per_gib: Some(30.0),
            iops_max: Some(100_000.0),
            mibps_per_gib: Some(0.48),
            mibps_max: Some(1200.0),
            price_usd_gib_month: Some(0.17),
            ..DiskTier::default()
        };
        let v = size_for(
            &pd_ssd,
            PerDiskNeed {
                gib: 50.0,
                iops: 15_000.0,
                mibps: 0.0,
            },
        )
        .unwrap();
        assert_eq!((v.size_gib, v.iops), (Some(500.0), Some(15_000.0)));
        assert_eq!(v.price_usd_month, Some(85.0));
        let l = largest(&pd_ssd);
        assert_eq!((l.iops, l.mibps), (Some(100_000.0), Some(1200.0)));
    }

    #[test]
    fn tiered_iops_prices_charge_each_tier_its_rate() {
        let tiers = [[32000.0, 0.065], [64000.0, 0.0455], [1e12, 0.032]];
        assert!((tiered(&tiers, 40_000.0) - (32000.0 * 0.065 + 8000.0 * 0.0455)).abs() < 1e-6);
        assert!((tiered(&tiers, 1000.0) - 65.0).abs() < 1e-9);
    }
}
