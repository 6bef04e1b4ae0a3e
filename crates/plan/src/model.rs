//! The capacity model: which caps an IO counts against, and the largest rate that keeps every
//! cap.
//!
//! An IO takes one of two paths (the Azure design guide, "disk caching" and "scalability"):
//! * the **cache path**: reads served by the VM's host cache, and all IO to the VM's local SSD,
//!   count against the VM's cache caps (IOPS and MiB/s) and nothing else;
//! * the **disk path**: reads that miss the cache, and every write, count against the sum of
//!   the disks' caps (a stripe spreads IO evenly) and against the VM's uncached caps.
//!   With ReadWrite caching a write also lands in the cache, so it counts on both paths.
//!
//! Each cap is a linear constraint on the total rate X (IOPS, or MiB/s when no IO size is
//! known): `share_of_X_on_the_cap x X <= cap`. The capacity is the smallest `cap / share`, and
//! the cap that gives it is the binding limit. A cap the catalog lacks is skipped and reported.

use crate::catalog::{DiskTier, VmSize};
use crate::demand::Demand;
pub use crate::format::group;
pub use crate::sizing::volume_label;
use diskmeter_units::MIB_F64;
use serde::Serialize;
use std::fmt;

/// The VM's host-cache setting for the data disks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum HostCache {
    /// No host cache: every IO goes to the disks.
    None,
    /// Reads may be served by the host cache; writes go to the disks.
    ReadOnly,
    /// Reads and writes go through the host cache; writes are persisted to the disks.
    ReadWrite,
}

impl HostCache {
    /// Parses `None`, `ReadOnly`, `ReadWrite` (any case; also `ro`, `rw`, `off`).
    pub fn parse(text: &str) -> Option<HostCache> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Some(HostCache::None),
            "readonly" | "read-only" | "ro" => Some(HostCache::ReadOnly),
            "readwrite" | "read-write" | "rw" => Some(HostCache::ReadWrite),
            _ => None,
        }
    }
}

impl fmt::Display for HostCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HostCache::None => "None",
            HostCache::ReadOnly => "ReadOnly",
            HostCache::ReadWrite => "ReadWrite",
        })
    }
}

/// A VM (optional: a volume can be planned alone) with `disk_count` disks of one tier.
#[derive(Debug, Clone, Copy)]
pub struct Configuration<'c> {
    /// The VM size, if any.
    pub vm: Option<&'c VmSize>,
    /// The disk tier.
    pub disk: &'c DiskTier,
    /// How many disks of that tier, striped.
    pub disk_count: u32,
    /// The host cache setting (ignored without a VM).
    pub cache: HostCache,
}

impl Configuration<'_> {
    /// `Standard_DS13 + 4 x P30 (ReadOnly)`.
    pub fn describe(&self) -> String {
        let disks = format!("{} x {}", self.disk_count, volume_label(self.disk));
        match self.vm {
            Some(vm) => format!("{} + {disks} (cache {})", vm.id, self.effective_cache()),
            None => disks,
        }
    }

    /// The cache setting in force: None when there is no VM to hold a cache.
    pub fn effective_cache(&self) -> HostCache {
        if self.vm.is_some() {
            self.cache
        } else {
            HostCache::None
        }
    }
}

/// Which cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapKind {
    /// The VM's cap on cache hits + local SSD IOs.
    VmCacheIops,
    /// The VM's cap on cache hits + local SSD bytes.
    VmCacheMibps,
    /// The VM's cap on IOs that miss the cache.
    VmUncachedIops,
    /// The VM's cap on bytes that miss the cache.
    VmUncachedMibps,
    /// The disks' IOPS caps, summed over the stripe.
    DiskIops,
    /// The disks' MiB/s caps, summed over the stripe.
    DiskMibps,
}

impl CapKind {
    /// Every cap, in report order.
    pub const ALL: [CapKind; 6] = [
        CapKind::DiskIops,
        CapKind::DiskMibps,
        CapKind::VmUncachedIops,
        CapKind::VmUncachedMibps,
        CapKind::VmCacheIops,
        CapKind::VmCacheMibps,
    ];

    /// Counts IOs (true) or bytes (false).
    pub fn is_iops(self) -> bool {
        matches!(
            self,
            CapKind::VmCacheIops | CapKind::VmUncachedIops | CapKind::DiskIops
        )
    }

    /// On the cache path (true) or the disk path (false).
    pub fn is_cache_path(self) -> bool {
        matches!(self, CapKind::VmCacheIops | CapKind::VmCacheMibps)
    }

    /// How a reader names it: "VM uncached cap", "disk cap".
    pub fn label(self) -> &'static str {
        match self {
            CapKind::VmCacheIops | CapKind::VmCacheMibps => "VM cache cap",
            CapKind::VmUncachedIops | CapKind::VmUncachedMibps => "VM uncached cap",
            CapKind::DiskIops | CapKind::DiskMibps => "disk cap",
        }
    }

    /// The unit of the cap's value.
    pub fn unit(self) -> &'static str {
        if self.is_iops() {
            "IOPS"
        } else {
            "MiB/s"
        }
    }
}

/// One cap of a configuration, with where its value comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cap {
    /// Which cap.
    pub kind: CapKind,
    /// Its value in IOPS or MiB/s; `None` when the catalog lacks the figure.
    pub value: Option<f64>,
    /// How the value is made up, e.g. "4 x 5,000" or "4,000 x 16 cores".
    pub basis: String,
}

/// The caps of a configuration.
pub fn caps(config: &Configuration) -> Vec<Cap> {
    let n = f64::from(config.disk_count);
    let disk = config.disk;
    let vm = config.vm;
    CapKind::ALL
        .iter()
        .filter(|kind| vm.is_some() || !matches_vm(**kind))
        .map(|&kind| {
            let (value, basis) = match kind {
                CapKind::DiskIops => (
                    disk.iops.map(|v| v * n),
                    per_disk_basis(config.disk_count, disk.iops, &disk.id),
                ),
                CapKind::DiskMibps => (
                    disk.mibps.map(|v| v * n),
                    per_disk_basis(config.disk_count, disk.mibps, &disk.id),
                ),
                CapKind::VmUncachedIops => vm_basis(vm.and_then(|v| v.uncached_iops), vm),
                CapKind::VmUncachedMibps => vm_basis(vm.and_then(|v| v.uncached_mibps), vm),
                CapKind::VmCacheIops => cache_basis(
                    vm,
                    vm.and_then(VmSize::cache_iops_total),
                    vm.and_then(|v| v.cache_iops_per_core.filter(|_| v.cache_iops.is_none())),
                ),
                CapKind::VmCacheMibps => cache_basis(
                    vm,
                    vm.and_then(VmSize::cache_mibps_total),
                    vm.and_then(|v| v.cache_mibps_per_core.filter(|_| v.cache_mibps.is_none())),
                ),
            };
            Cap { kind, value, basis }
        })
        .collect()
}

fn matches_vm(kind: CapKind) -> bool {
    !matches!(kind, CapKind::DiskIops | CapKind::DiskMibps)
}

fn per_disk_basis(n: u32, per_disk: Option<f64>, id: &str) -> String {
    match per_disk {
        Some(v) => format!("{n} x {id} at {}", group(v)),
        None => format!("{id}: not in the catalog"),
    }
}

/// A cache-path cap and its basis: "4,000 x 16 cores" when it is derived per core.
fn cache_basis(
    vm: Option<&VmSize>,
    total: Option<f64>,
    per_core_used: Option<f64>,
) -> (Option<f64>, String) {
    match (total, per_core_used, vm.and_then(|v| v.cores)) {
        (Some(total), Some(per), Some(cores)) => {
            (Some(total), format!("{} x {cores} cores", group(per)))
        }
        _ => vm_basis(total, vm),
    }
}

fn vm_basis(value: Option<f64>, vm: Option<&VmSize>) -> (Option<f64>, String) {
    let id = vm.map(|v| v.id.as_str()).unwrap_or("");
    match value {
        Some(v) => (Some(v), id.to_string()),
        None => (None, format!("{id}: not in the catalog")),
    }
}

/// How a point's rate is counted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "basis")]
pub enum Basis {
    /// In IOPS, at these (read, write) IO sizes when known.
    Iops {
        /// Read IO size in bytes.
        read_bs_bytes: Option<u64>,
        /// Write IO size in bytes.
        write_bs_bytes: Option<u64>,
    },
    /// In MiB/s with no IO size: IOPS caps are not checked.
    Bandwidth,
}

/// Where a point's traffic goes, per unit of its rate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shares {
    /// Cache-path IOs per IO (or per byte, for bandwidth points).
    cache_io: f64,
    /// Cache-path bytes per IO (bandwidth points: per byte).
    cache_bytes: f64,
    /// Disk-path IOs per IO.
    disk_io: f64,
    /// Disk-path bytes per IO.
    disk_bytes: f64,
    /// Reads served by the cache, per IO.
    hit_reads: f64,
    /// Local SSD IOs per IO.
    local: f64,
    /// Reads that reach the disks, per IO.
    disk_reads: f64,
    /// Writes, per IO.
    writes: f64,
}

/// Disk-path IOs per IO of the demand (reads that miss the cache, and writes): what the
/// disks' and the VM's uncached caps and burst buckets count.
pub(crate) fn disk_io_share(demand: &Demand, cache: HostCache) -> f64 {
    shares(demand, cache, (MIB_F64, MIB_F64)).disk_io
}

fn shares(demand: &Demand, cache: HostCache, sizes: (f64, f64)) -> Shares {
    let (br, bw) = sizes;
    let r = demand.read_fraction;
    let w = 1.0 - r;
    let l = demand.local_fraction;
    let h = if cache == HostCache::None {
        0.0
    } else {
        demand.cache_hit_fraction
    };
    let remote = 1.0 - l;
    let hit_reads = remote * r * h;
    let disk_reads = remote * r * (1.0 - h);
    let writes = remote * w;
    let cached_writes = if cache == HostCache::ReadWrite {
        writes
    } else {
        0.0
    };
    Shares {
        cache_io: l + hit_reads + cached_writes,
        cache_bytes: l * (r * br + w * bw) + hit_reads * br + cached_writes * bw,
        disk_io: disk_reads + writes,
        disk_bytes: disk_reads * br + writes * bw,
        hit_reads,
        local: l,
        disk_reads,
        writes,
    }
}

/// The traffic on one path at the predicted rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathLoad {
    /// "cache hits", "local SSD", "disk reads", "disk writes".
    pub path: String,
    /// IOs per second on it (absent for bandwidth points).
    pub iops: Option<f64>,
    /// MiB/s on it (absent when the IO size is unknown).
    pub mibps: Option<f64>,
}

/// The binding limit of a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limit {
    /// Which cap.
    pub kind: CapKind,
    /// Its value (IOPS or MiB/s).
    pub value: f64,
    /// How the value is made up.
    pub basis: String,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} ({})",
            self.kind.label(),
            group(self.value),
            self.kind.unit(),
            self.basis
        )
    }
}

/// The prediction for one point of the demand.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointPrediction {
    /// How the rate is counted.
    #[serde(flatten)]
    pub basis: Basis,
    /// The IOPS asked for (IOPS points).
    pub required_iops: Option<f64>,
    /// The MiB/s asked for.
    pub required_mibps: Option<f64>,
    /// The most IOPS the configuration sustains at this point (IOPS points).
    pub capacity_iops: Option<f64>,
    /// The most MiB/s it sustains (when the IO size is known, or for bandwidth points).
    pub capacity_mibps: Option<f64>,
    /// The cap that sets the capacity; `None` when no known cap applies.
    pub limit: Option<Limit>,
    /// Caps on a path with traffic whose figure the catalog lacks: they may bind.
    pub unknown_caps: Vec<CapKind>,
    /// Caps not checked because the point has no IO size (MiB/s caps of IOPS points without
    /// `bs`, IOPS caps of bandwidth points).
    pub unchecked_caps: Vec<CapKind>,
    /// The predicted rate (the requirement when met, else the capacity) split by path.
    pub paths: Vec<PathLoad>,
    /// IOPS each disk of the stripe sees at the predicted rate.
    pub per_disk_iops: Option<f64>,
    /// MiB/s each disk sees at the predicted rate.
    pub per_disk_mibps: Option<f64>,
    /// Whether the capacity covers the requirement (`None` without one, or when no cap applies).
    pub meets: Option<bool>,
    /// Capacity over requirement, minus one, in percent (negative: the shortfall).
    pub headroom_percent: Option<f64>,
}

impl PointPrediction {
    /// "20,000 IOPS / 156 MiB/s", "200 MiB/s", or that no cap in the catalog bounds it.
    pub fn capacity_text(&self) -> String {
        match (self.capacity_iops, self.capacity_mibps) {
            (Some(i), Some(m)) => format!("{} IOPS / {} MiB/s", group(i), group(m)),
            (Some(i), None) => format!("{} IOPS", group(i)),
            (None, Some(m)) => format!("{} MiB/s", group(m)),
            (None, None) => "not bounded by any cap in the catalog".to_string(),
        }
    }
}

/// Evaluates one point: `required` is in the basis unit (IOPS, or MiB/s).
pub fn predict_point(
    config: &Configuration,
    caps: &[Cap],
    demand: &Demand,
    basis: Basis,
    required: Option<f64>,
) -> PointPrediction {
    let cache = config.effective_cache();
    let sizes = match basis {
        Basis::Iops {
            read_bs_bytes: Some(r),
            write_bs_bytes: Some(w),
        } => Some((r as f64, w as f64)),
        _ => None,
    };
    let is_bandwidth = basis == Basis::Bandwidth;
    // Bandwidth points count bytes with a notional IO of one MiB, so the "IO" shares are byte
    // shares and the rate X is in MiB/s.
    let s = shares(demand, cache, sizes.unwrap_or((MIB_F64, MIB_F64)));
    let mut limit: Option<(f64, &Cap)> = None;
    let mut unknown_caps = Vec::new();
    let mut unchecked_caps = Vec::new();
    for cap in caps {
        let share_of_rate = match (cap.kind.is_iops(), is_bandwidth, sizes) {
            (true, true, _) => {
                unchecked_caps.push(cap.kind);
                continue;
            }
            (false, false, None) => {
                unchecked_caps.push(cap.kind);
                continue;
            }
            (true, false, _) => path_share(cap.kind, s.cache_io, s.disk_io),
            (false, false, Some(_)) => path_share(cap.kind, s.cache_bytes, s.disk_bytes) / MIB_F64,
            (false, true, _) => path_share(cap.kind, s.cache_bytes, s.disk_bytes) / MIB_F64,
        };
        if share_of_rate <= 0.0 {
            continue;
        }
        match cap.value {
            None => unknown_caps.push(cap.kind),
            Some(value) => {
                let rate = value / share_of_rate;
                let tighter = match limit {
                    Some((best, _)) => rate < best,
                    None => true,
                };
                if tighter {
                    limit = Some((rate, cap));
                }
            }
        }
    }
    let capacity = limit.map(|(rate, _)| rate);
    let delivered = match (required, capacity) {
        (Some(req), Some(cap)) => Some(req.min(cap)),
        (Some(req), None) => Some(req),
        (None, cap) => cap,
    };
    let mean_io_bytes =
        sizes.map(|(br, bw)| demand.read_fraction * br + demand.write_fraction() * bw);
    let to_mibps = |rate: f64, bytes_per_io: Option<f64>| -> Option<f64> {
        if is_bandwidth {
            Some(rate)
        } else {
            bytes_per_io.map(|b| rate * b / MIB_F64)
        }
    };
    let (required_iops, required_mibps) = if is_bandwidth {
        (None, required)
    } else {
        (required, required.and_then(|r| to_mibps(r, mean_io_bytes)))
    };
    let paths = delivered
        .map(|x| {
            let mut paths = Vec::new();
            let mut push = |name: &str, share: f64, bytes: Option<f64>| {
                if share > 0.0 {
                    paths.push(PathLoad {
                        path: name.to_string(),
                        iops: (!is_bandwidth).then_some(x * share),
                        mibps: to_mibps(x * share, bytes),
                    });
                }
            };
            let (br, bw) = sizes.map_or((None, None), |(r, w)| (Some(r), Some(w)));
            push("cache hits", s.hit_reads, br);
            push("local SSD", s.local, mean_io_bytes);
            push("disk reads", s.disk_reads, br);
            push("disk writes", s.writes, bw);
            paths
        })
        .unwrap_or_default();
    let n = f64::from(config.disk_count.max(1));
    let per_disk_iops = delivered
        .filter(|_| !is_bandwidth)
        .map(|x| x * s.disk_io / n);
    let per_disk_mibps = delivered.and_then(|x| {
        if is_bandwidth {
            Some(x * s.disk_bytes / MIB_F64 / n)
        } else {
            sizes.map(|_| x * s.disk_bytes / MIB_F64 / n)
        }
    });
    let meets = match (required, capacity) {
        (Some(req), Some(cap)) => Some(cap >= req * (1.0 - 1e-9)),
        _ => None,
    };
    let headroom_percent = match (required, capacity) {
        (Some(req), Some(cap)) => Some((cap / req - 1.0) * 100.0),
        _ => None,
    };
    PointPrediction {
        basis,
        required_iops,
        required_mibps,
        capacity_iops: capacity.filter(|_| !is_bandwidth),
        capacity_mibps: capacity.and_then(|c| to_mibps(c, mean_io_bytes)),
        limit: limit.map(|(_, cap)| Limit {
            kind: cap.kind,
            value: cap.value.unwrap_or_default(),
            basis: cap.basis.clone(),
        }),
        unknown_caps,
        unchecked_caps,
        paths,
        per_disk_iops,
        per_disk_mibps,
        meets,
        headroom_percent,
    }
}

fn path_share(kind: CapKind, cache: f64, disk: f64) -> f64 {
    if kind.is_cache_path() {
        cache
    } else {
        disk
    }
}

/// The points a demand is checked at (see the `demand` module: IOPS and bandwidth are two
/// peaks; with neither, the capacity is reported).
pub fn points(demand: &Demand) -> Vec<(Basis, Option<f64>)> {
    let iops_basis = Basis::Iops {
        read_bs_bytes: demand.read_bs_bytes,
        write_bs_bytes: demand.write_bs_bytes,
    };
    let mut points = Vec::new();
    if let Some(iops) = demand.iops {
        points.push((iops_basis, Some(iops)));
    }
    if let Some(mibps) = demand.mibps {
        match (demand.iops, demand.io_sizes()) {
            (None, Some((br, bw))) => {
                let mean = demand.read_fraction * br as f64 + demand.write_fraction() * bw as f64;
                points.push((iops_basis, Some(mibps * MIB_F64 / mean)));
            }
            _ => points.push((Basis::Bandwidth, Some(mibps))),
        }
    }
    if points.is_empty() {
        points.push((iops_basis, None));
        if demand.io_sizes().is_none() {
            points.push((Basis::Bandwidth, None));
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_cache_names() {
        assert_eq!(HostCache::parse("readonly"), Some(HostCache::ReadOnly));
        assert_eq!(HostCache::parse("RW"), Some(HostCache::ReadWrite));
        assert_eq!(HostCache::parse("None"), Some(HostCache::None));
        assert_eq!(HostCache::parse("sometimes"), None);
        assert_eq!(HostCache::ReadWrite.to_string(), "ReadWrite");
    }
}
