//! The caps of a named profile, from the planner's catalog of published tiers: `azure-p30`
//! (or `P30`) gives 5,000 IOPS and 200 MiB/s in each direction, `do-volume` the
//! DigitalOcean volume's. A scaled or provisioned type (gp3, pd-ssd) is emulated as its
//! smallest volume, with what comes free with it (gp3: 3,000 IOPS, 125 MiB/s); `--iops` and
//! `--bw` give a sized one.

use crate::{Burst, EmulateError};
use diskmeter_plan::sizing::smallest;
use diskmeter_plan::{Catalog, DiskTier};
use serde::{Deserialize, Serialize};

/// The throttle of an emulated disk, per direction; `None` = uncapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Caps {
    /// Read IOPS cap.
    pub read_iops: Option<u64>,
    /// Write IOPS cap.
    pub write_iops: Option<u64>,
    /// Read bandwidth cap, bytes/s.
    pub read_bytes_per_sec: Option<u64>,
    /// Write bandwidth cap, bytes/s.
    pub write_bytes_per_sec: Option<u64>,
}

/// The credit bucket of profile `name` (see [`profile_caps`]), `None` when it does not burst.
pub fn profile_burst(name: &str, catalog: &Catalog) -> Result<Option<Burst>, EmulateError> {
    Ok(crate::tier_burst(&emulated_tier(name, catalog)?))
}

/// The caps of profile `name`: a catalog disk id or alias (`P30`, `do-volume`), optionally
/// prefixed by its cloud (`azure-p30`), any case.
pub fn profile_caps(name: &str, catalog: &Catalog) -> Result<(String, Caps), EmulateError> {
    let tier = emulated_tier(name, catalog)?;
    let iops = tier.iops.map(|v| v.round() as u64);
    let bytes = tier.mibps.map(|v| (v * (1u64 << 20) as f64).round() as u64);
    Ok((
        tier.name.clone(),
        Caps {
            read_iops: iops,
            write_iops: iops,
            read_bytes_per_sec: bytes,
            write_bytes_per_sec: bytes,
        },
    ))
}

/// The tier of profile `name` as emulated: its smallest volume for a formula tier.
fn emulated_tier(name: &str, catalog: &Catalog) -> Result<DiskTier, EmulateError> {
    let lower = name.to_ascii_lowercase();
    let tier = catalog
        .disks
        .iter()
        .find(|d| {
            let ids = std::iter::once(&d.id).chain(d.aliases.iter());
            ids.clone().any(|id| id.to_ascii_lowercase() == lower)
                || ids
                    .map(|id| format!("{}-{}", d.cloud, id).to_ascii_lowercase())
                    .any(|id| id == lower)
        })
        .ok_or_else(|| EmulateError::UnknownProfile(name.to_string()))?;
    Ok(smallest(tier).unwrap_or_else(|| tier.clone()))
}

/// Caps given one by one (`emulate create --iops --bw --read-iops ...`), to lay over a
/// profile's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GivenCaps {
    /// Both directions' IOPS (`--iops`).
    pub iops: Option<u64>,
    /// Both directions' bandwidth, bytes/s (`--bw`).
    pub bytes_per_sec: Option<u64>,
    /// Read IOPS (`--read-iops`).
    pub read_iops: Option<u64>,
    /// Write IOPS (`--write-iops`).
    pub write_iops: Option<u64>,
    /// Read bandwidth, bytes/s (`--read-bw`).
    pub read_bytes_per_sec: Option<u64>,
    /// Write bandwidth, bytes/s (`--write-bw`).
    pub write_bytes_per_sec: Option<u64>,
}

impl Caps {
    /// These caps (a profile's, or none) with `given` over them: a cap for both directions
    /// first, then each direction's own, which wins.
    pub fn overridden(mut self, given: &GivenCaps) -> Caps {
        if let Some(v) = given.iops {
            (self.read_iops, self.write_iops) = (Some(v), Some(v));
        }
        if let Some(v) = given.bytes_per_sec {
            (self.read_bytes_per_sec, self.write_bytes_per_sec) = (Some(v), Some(v));
        }
        self.read_iops = given.read_iops.or(self.read_iops);
        self.write_iops = given.write_iops.or(self.write_iops);
        self.read_bytes_per_sec = given.read_bytes_per_sec.or(self.read_bytes_per_sec);
        self.write_bytes_per_sec = given.write_bytes_per_sec.or(self.write_bytes_per_sec);
        self
    }
}

/// Every profile name `profile_caps` accepts, with its caps, for `emulate profiles`.
pub fn profiles(catalog: &Catalog) -> Vec<(String, String, Option<f64>, Option<f64>)> {
    catalog
        .disks
        .iter()
        .map(|d| {
            let smallest = smallest(d);
            let emulated = smallest.as_ref().unwrap_or(d);
            (
                format!("{}-{}", d.cloud, d.id).to_ascii_lowercase(),
                d.name.clone(),
                emulated.iops,
                emulated.mibps,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_resolve_by_id_alias_and_cloud_prefix() {
        let catalog = Catalog::builtin();
        let (name, caps) = profile_caps("azure-p30", &catalog).unwrap();
        assert_eq!(name, "Azure Premium SSD P30");
        assert_eq!(caps.read_iops, Some(5000));
        assert_eq!(caps.write_bytes_per_sec, Some(200 << 20));
        assert_eq!(
            profile_caps("P10", &catalog).unwrap().1.read_iops,
            Some(500)
        );
        assert_eq!(
            profile_caps("do-volume", &catalog).unwrap().1.write_iops,
            Some(5000)
        );
        assert!(profile_caps("azure-p99", &catalog).is_err());
        // A provisioned type is its smallest volume: what comes free with it.
        let gp3 = profile_caps("aws-gp3", &catalog).unwrap().1;
        assert_eq!(
            (gp3.read_iops, gp3.read_bytes_per_sec),
            (Some(3000), Some(125 << 20))
        );
    }

    #[test]
    fn a_direction_s_own_cap_wins_over_both_and_over_the_profile() {
        let (_, p30) = profile_caps("azure-p30", &Catalog::builtin()).unwrap();
        let caps = p30.overridden(&GivenCaps {
            iops: Some(100),
            write_iops: Some(50),
            ..GivenCaps::default()
        });
        assert_eq!((caps.read_iops, caps.write_iops), (Some(100), Some(50)));
        assert_eq!(caps.read_bytes_per_sec, Some(200 << 20));
    }
}
