//! fio's zoned random distributions: `random_distribution=zoned:A/S:...` (zones as shares of
//! the region) and `zoned_abs:A/SIZE:...` (zones in bytes), each zone taking a share of the
//! random IOs; and how absolute zones fit a target's region ([`fit_abs_zones`]): fio refuses
//! zones past its end, DiskSpd drops them and re-weights the rest. The sampler that draws
//! from them is the runner's `skew.rs`.

use crate::patterns::{PatternError, RandomDistribution};
use diskmeter_units::{parse_size, KbBase};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One zone of fio's `random_distribution=zoned`: a share of the IOs that goes to a share of
/// the region, zones laid out from the region's start in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    /// Share of the random IOs that land in this zone, percent.
    pub access_percent: u8,
    /// Share of the region this zone spans, percent.
    pub size_percent: u8,
}

/// One zone of fio's `random_distribution=zoned_abs`: a share of the IOs that goes to a
/// number of bytes, zones laid out from the region's start in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsZone {
    /// Share of the random IOs that land in this zone, percent.
    pub access_percent: u8,
    /// Bytes this zone spans.
    pub size_bytes: u64,
}

/// fio's `ZONESPLIT_MAX`: the most zones a `zoned` list may have.
pub const MAX_ZONES: usize = 256;

/// Parses the zones of `zoned:A/S:A/S...` (fio's `zone_split_ddir` rules: access shares add up
/// to 100, sizes to at most 100). A zone written without its size (`20/`) spans an even part
/// of what the other zones leave, as fio's example `zoned:50/5:30/15:20/` ("20 % of the IO
/// in the remaining 80 %") reads.
pub(crate) fn parse_zones(list: &str) -> Result<RandomDistribution, PatternError> {
    if list.contains(',') {
        return Err(PatternError::ZonedPerDirection);
    }
    let entries = zone_entries(list, |text| {
        text.parse::<u8>().ok().filter(|p| *p <= 100).map(u64::from)
    })?;
    let given: u64 = entries.iter().filter_map(|(_, size)| *size).sum();
    let blanks = entries.iter().filter(|(_, size)| size.is_none()).count() as u64;
    let left = 100u64.saturating_sub(given);
    let mut zones = Vec::with_capacity(entries.len());
    let mut blank_index = 0;
    for (access_percent, size) in entries {
        let size_percent = size.unwrap_or_else(|| {
            // The first blanks take the remainder's odd points, so the sizes add up to it.
            blank_index += 1;
            left / blanks + u64::from(blank_index <= left % blanks)
        });
        zones.push(Zone {
            access_percent,
            size_percent: size_percent as u8,
        });
    }
    let access_percent: u32 = zones.iter().map(|z| u32::from(z.access_percent)).sum();
    let size_percent: u32 = zones.iter().map(|z| u32::from(z.size_percent)).sum();
    if access_percent != 100 || size_percent > 100 {
        return Err(PatternError::ZoneShares {
            access_percent,
            size_percent,
        });
    }
    Ok(RandomDistribution::Zoned { zones })
}

/// Parses the zones of `zoned_abs:A/SIZE:A/SIZE...`: access shares add up to 100, sizes are
/// byte counts with fio's suffixes (`10G`), zones laid out from the region's start.
pub(crate) fn parse_abs_zones(list: &str) -> Result<RandomDistribution, PatternError> {
    if list.contains(',') {
        return Err(PatternError::ZonedPerDirection);
    }
    let entries = zone_entries(list, |text| {
        parse_size(text, KbBase::Binary)
            .ok()
            .filter(|bytes| *bytes > 0)
    })?;
    let mut zones = Vec::with_capacity(entries.len());
    for (access_percent, size) in entries {
        let size_bytes = size.ok_or_else(|| PatternError::BadAbsZone {
            entry: format!("{access_percent}/"),
        })?;
        zones.push(AbsZone {
            access_percent,
            size_bytes,
        });
    }
    let access_percent: u32 = zones.iter().map(|z| u32::from(z.access_percent)).sum();
    if access_percent != 100 {
        return Err(PatternError::ZoneShares {
            access_percent,
            size_percent: 0,
        });
    }
    Ok(RandomDistribution::ZonedAbs {
        zones,
        past_end: ZonesPastEnd::default(),
    })
}

/// What becomes of `zoned_abs` zones that reach past the end of a target's region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZonesPastEnd {
    /// fio's rule: drawing a zone with IO that ends past the region stops the job ("zoned_abs
    /// sizes exceed file size", fio's io_u.c); diskmeter refuses such a job when it plans.
    #[default]
    Refused,
    /// DiskSpd's rule for `-rdabs` (its `ThreadTargetState`): a zone that spans the end is cut
    /// there unless less than a block is left; the first zone with IO that starts at or past
    /// the end (or keeps less than a block) is dropped with every zone after it; the IO shares
    /// of the zones kept count as the whole (90/10 of which only the 90 fits: all IO there).
    Reweighted,
}

/// One `zoned_abs` zone as it lies in a target's region: the zones with IO only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FittedZone {
    /// The zone's share of the IO as written (the shares kept may add up to less than 100:
    /// the sampler draws over their sum).
    pub access_percent: u8,
    /// First byte of the zone, from the region's start.
    pub start_bytes: u64,
    /// Bytes the zone spans inside the region.
    pub len_bytes: u64,
}

/// Why `zoned_abs` zones cannot be used on a region.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ZoneFitError {
    /// fio's rule: a zone with IO ends past the region.
    #[error(
        "zone {number} ({access_percent}%) ends at byte {end_bytes}, past the end of the region \
         ({region_bytes} bytes); fio stops such a job with \"zoned_abs sizes exceed file size\" \
         (shorten the zones or enlarge size=)"
    )]
    PastEnd {
        /// The zone's place in the list, from 1.
        number: usize,
        /// Its share of the IO.
        access_percent: u8,
        /// Where it ends, from the region's start.
        end_bytes: u64,
        /// The region's length.
        region_bytes: u64,
    },
    /// DiskSpd's rule: no zone with IO starts inside the region with a block's room.
    #[error(
        "no range with IO starts inside the region ({region_bytes} bytes) with room for a \
         {block_bytes}-byte block"
    )]
    NoneFits {
        /// The region's length.
        region_bytes: u64,
        /// The block size.
        block_bytes: u64,
    },
}

/// The zones with IO as they lie in a region of `region_bytes` for IOs of `block_bytes`, under
/// `rule` ([`ZonesPastEnd`]); zones without IO take their room and are left out.
pub fn fit_abs_zones(
    zones: &[AbsZone],
    region_bytes: u64,
    block_bytes: u64,
    rule: ZonesPastEnd,
) -> Result<Vec<FittedZone>, ZoneFitError> {
    let mut fitted = Vec::with_capacity(zones.len());
    let mut start = 0u64;
    for (index, zone) in zones.iter().enumerate() {
        let zone_start = start;
        start = start.saturating_add(zone.size_bytes);
        if zone.access_percent == 0 {
            continue;
        }
        let end = start;
        match rule {
            ZonesPastEnd::Refused if end > region_bytes => {
                return Err(ZoneFitError::PastEnd {
                    number: index + 1,
                    access_percent: zone.access_percent,
                    end_bytes: end,
                    region_bytes,
                });
            }
            ZonesPastEnd::Reweighted if end > region_bytes => {
                let left = region_bytes.saturating_sub(zone_start);
                if zone_start >= region_bytes || left < block_bytes {
                    break;
                }
                fitted.push(FittedZone {
                    access_percent: zone.access_percent,
                    start_bytes: zone_start,
                    len_bytes: left,
                });
            }
            _ => fitted.push(FittedZone {
                access_percent: zone.access_percent,
                start_bytes: zone_start,
                len_bytes: zone.size_bytes,
            }),
        }
    }
    if fitted.is_empty() {
        return Err(ZoneFitError::NoneFits {
            region_bytes,
            block_bytes,
        });
    }
    Ok(fitted)
}

/// The `ACCESS/SIZE` entries of a zone list: the access share (a whole percent) and the size
/// as `size` reads it (`None` when left blank). The error names the entry.
fn zone_entries(
    list: &str,
    size: impl Fn(&str) -> Option<u64>,
) -> Result<Vec<(u8, Option<u64>)>, PatternError> {
    let mut entries = Vec::new();
    for entry in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || PatternError::BadZone {
            entry: entry.to_string(),
        };
        let (access, size_text) = entry.split_once('/').ok_or_else(bad)?;
        let access = access
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(bad)?;
        let size_text = size_text.trim();
        let size = match size_text {
            "" => None,
            text => Some(size(text).ok_or_else(bad)?),
        };
        entries.push((access, size));
    }
    if entries.is_empty() {
        return Err(PatternError::BadZone {
            entry: list.to_string(),
        });
    }
    if entries.len() > MAX_ZONES {
        return Err(PatternError::TooManyEntries);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoned_reads_fios_zones_and_shows_them_back() {
        let zoned = RandomDistribution::parse("zoned:60/10:30/20:8/30:2/40").unwrap();
        let RandomDistribution::Zoned { zones } = &zoned else {
            panic!("{zoned:?}");
        };
        assert_eq!(zones.len(), 4);
        assert_eq!(
            zones[0],
            Zone {
                access_percent: 60,
                size_percent: 10
            }
        );
        assert_eq!(zoned.show(), "zoned:60/10:30/20:8/30:2/40");
        assert_eq!(RandomDistribution::parse(&zoned.show()), Ok(zoned));
        // Sizes may cover less than the region, as in fio.
        assert!(RandomDistribution::parse("zoned:80/20:20/30").is_ok());
    }

    /// fio's examples/rand-zones.fio: "20 % of the IO will end up in the remaining 80 %".
    #[test]
    fn a_zone_without_a_size_spans_what_the_others_leave() {
        let zoned = RandomDistribution::parse("zoned:50/5:30/15:20/").unwrap();
        assert_eq!(zoned.show(), "zoned:50/5:30/15:20/80");
        let split = RandomDistribution::parse("zoned:50/5:30/:20/").unwrap();
        assert_eq!(split.show(), "zoned:50/5:30/48:20/47");
    }

    #[test]
    fn zoned_abs_reads_byte_sizes_and_shows_them_back() {
        let zoned = RandomDistribution::parse("zoned_abs:50/10G:30/100G:20/500G").unwrap();
        let RandomDistribution::ZonedAbs { zones, .. } = &zoned else {
            panic!("{zoned:?}");
        };
        assert_eq!(
            zones[0],
            AbsZone {
                access_percent: 50,
                size_bytes: 10 << 30
            }
        );
        assert_eq!(zoned.show(), "zoned_abs:50/10g:30/100g:20/500g");
        assert_eq!(RandomDistribution::parse(&zoned.show()), Ok(zoned));
    }

    fn abs(list: &str) -> Vec<AbsZone> {
        match RandomDistribution::parse(list).unwrap() {
            RandomDistribution::ZonedAbs { zones, .. } => zones,
            other => panic!("{other:?}"),
        }
    }

    /// DiskSpd's own example of the rule: 10/10/80 whose 80 % is not addressable becomes 10:10.
    #[test]
    fn diskspd_drops_zones_past_the_end_and_reweights_the_rest() {
        let zones = abs("zoned_abs:10/1m:10/1m:80/10m");
        let fitted = fit_abs_zones(&zones, 2 << 20, 4096, ZonesPastEnd::Reweighted).unwrap();
        assert_eq!(fitted.len(), 2);
        assert_eq!(
            fitted
                .iter()
                .map(|z| u32::from(z.access_percent))
                .sum::<u32>(),
            20
        );
        // A zone that spans the end is cut there; a hole still takes its room.
        let zones = abs("zoned_abs:90/1m:0/1m:10/10m");
        let fitted = fit_abs_zones(&zones, 3 << 20, 4096, ZonesPastEnd::Reweighted).unwrap();
        assert_eq!(
            fitted[1],
            FittedZone {
                access_percent: 10,
                start_bytes: 2 << 20,
                len_bytes: 1 << 20
            }
        );
        // Less than a block left: dropped.
        let fitted = fit_abs_zones(&zones, (2 << 20) + 512, 4096, ZonesPastEnd::Reweighted);
        assert_eq!(fitted.unwrap().len(), 1);
        let none = fit_abs_zones(
            &abs("zoned_abs:0/4m:100/1m"),
            1 << 20,
            4096,
            ZonesPastEnd::Reweighted,
        );
        assert!(
            matches!(none, Err(ZoneFitError::NoneFits { .. })),
            "{none:?}"
        );
    }

    #[test]
    fn fio_refuses_a_zone_with_io_past_the_end() {
        let zones = abs("zoned_abs:60/1m:40/2m");
        assert_eq!(
            fit_abs_zones(&zones, 3 << 20, 4096, ZonesPastEnd::Refused)
                .unwrap()
                .len(),
            2
        );
        let past = fit_abs_zones(&zones, 2 << 20, 4096, ZonesPastEnd::Refused).unwrap_err();
        assert!(
            past.to_string()
                .contains("zone 2 (40%) ends at byte 3145728"),
            "{past}"
        );
        // A zone without IO past the end is never drawn: fio runs the job.
        let zones = abs("zoned_abs:100/1m:0/10m");
        assert!(fit_abs_zones(&zones, 1 << 20, 4096, ZonesPastEnd::Refused).is_ok());
    }
}
