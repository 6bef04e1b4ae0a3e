//! The catalog's entries as its data files write them: sources, disk tiers and VM sizes.
//!
//! A disk tier is one of three kinds, as the providers sell them: a **fixed** tier (one size
//! with fixed limits: Azure P30), a **scaled** type whose limits grow with the size bought
//! (gp2, pd-ssd) and a **provisioned** type whose size, IOPS and throughput are bought apart
//! (gp3, io2, Premium SSD v2, Hyperdisk). Scaled and provisioned types are formulas; the
//! planner turns them into a concrete volume for a need ([`crate::sizing`]). Every figure is
//! optional because sources leave gaps: a missing figure stays missing and the planner says
//! when one limits an answer.

use serde::{Deserialize, Serialize};

/// Hours in a month for hourly list prices (365 x 24 / 12, the providers' own convention).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// A public document the figures come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The key entries cite it by.
    pub id: String,
    /// The document's title.
    pub title: String,
    /// Where it is published.
    pub url: String,
    /// How it was read (a repository and path, a stored copy), when not at `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_via: Option<String>,
    /// The document's own date, or "undated".
    pub published: String,
    /// The day the figures were read from it.
    pub read: String,
    /// The catalog file it was read from.
    #[serde(default)]
    pub file: String,
}

/// How a disk tier is sold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiskKind {
    /// One size with fixed limits (Azure P/E/S tiers).
    #[default]
    Fixed,
    /// Limits grow with the size bought; nothing else to buy (gp2, pd-ssd).
    Scaled,
    /// Size, IOPS and throughput bought apart, within per-GiB and absolute maxima (gp3, io2).
    Provisioned,
}

/// The latency a provider publishes for a disk type, as a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LatencyClass {
    /// "Sub-millisecond": below 1 ms.
    #[serde(rename = "sub-ms")]
    SubMillisecond,
    /// "Single-digit millisecond": 1 to 10 ms.
    #[serde(rename = "single-digit-ms")]
    SingleDigitMillisecond,
    /// Hard-disk class: 10 ms and more for a random IO (a 7,200 rpm disk's seek and half a
    /// turn take 8-12 ms).
    #[serde(rename = "hdd")]
    Hdd,
}

impl LatencyClass {
    /// The class's range in milliseconds: (lowest, highest) latency it promises.
    pub fn range_ms(self) -> (f64, f64) {
        match self {
            LatencyClass::SubMillisecond => (0.0, 1.0),
            LatencyClass::SingleDigitMillisecond => (1.0, 10.0),
            LatencyClass::Hdd => (10.0, f64::INFINITY),
        }
    }

    /// "sub-ms", "single-digit ms", "HDD-class".
    pub fn label(self) -> &'static str {
        match self {
            LatencyClass::SubMillisecond => "sub-ms",
            LatencyClass::SingleDigitMillisecond => "single-digit ms",
            LatencyClass::Hdd => "HDD-class (10 ms and more)",
        }
    }
}

/// How a disk bursts above its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BurstKind {
    /// A credit bucket: filled while below the baseline, drained above it.
    Credit,
    /// On-demand bursting, billed per burst IO; no bucket.
    OnDemand,
}

/// How a VM's burst credits come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BurstRefill {
    /// Credits accrue at the unused part of the baseline (Azure).
    BelowBaseline,
    /// The bucket fills once a day (AWS: the maximum "for 30 minutes at least once every
    /// 24 hours"), modelled as a steady refill of a bucket per 24 hours.
    Daily,
}

/// A disk tier: one volume's caps, size and price, or the formulas that give them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskTier {
    /// Short name used on the command line, e.g. `P30`, `gp3`.
    pub id: String,
    /// Other names accepted for it, e.g. `S30`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Human name, e.g. "Azure Premium SSD P30".
    pub name: String,
    /// Provider, e.g. `azure`; disks are only paired with VMs of the same cloud.
    pub cloud: String,
    /// How it is sold.
    #[serde(default)]
    pub kind: DiskKind,
    /// Needs a VM size with premium-storage support (Azure).
    #[serde(default)]
    pub premium: bool,
    /// The published latency class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_class: Option<LatencyClass>,
    /// Capacity in GiB (a fixed tier, or a volume the planner sized).
    pub size_gib: Option<f64>,
    /// IOPS cap of one disk (fixed, or sized).
    pub iops: Option<f64>,
    /// Bandwidth cap of one disk, MiB/s (fixed, or sized).
    pub mibps: Option<f64>,
    /// Smallest size one may buy, GiB (scaled, provisioned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size_gib: Option<f64>,
    /// Largest size, GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size_gib: Option<f64>,
    /// IOPS that come with any size (gp3 3,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_free: Option<f64>,
    /// IOPS each GiB adds (scaled: gp2 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_per_gib: Option<f64>,
    /// The floor of a scaled baseline (gp2 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_min: Option<f64>,
    /// The most IOPS one disk gives or may be provisioned with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_max: Option<f64>,
    /// The most IOPS one may provision per GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_max_per_gib: Option<f64>,
    /// MiB/s that come with any size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_free: Option<f64>,
    /// MiB/s each GiB adds (scaled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_per_gib: Option<f64>,
    /// The floor of a scaled throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_min: Option<f64>,
    /// The most MiB/s one disk gives or may be provisioned with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_max: Option<f64>,
    /// The most MiB/s one may provision per provisioned IOPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_max_per_iops: Option<f64>,
    /// MiB/s that come with each provisioned IOPS when throughput is not bought apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mibps_per_iops: Option<f64>,
    /// How it bursts, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_kind: Option<BurstKind>,
    /// Burst IOPS ceiling of one disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_iops: Option<f64>,
    /// Burst MiB/s ceiling of one disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_mibps: Option<f64>,
    /// Burst MiB/s per GiB (st1, sc1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_mibps_per_gib: Option<f64>,
    /// Minutes at the full burst ceiling from a full bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_minutes: Option<f64>,
    /// The IO-credit bucket, IOs (gp2 5.4 million).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket_ios: Option<f64>,
    /// The throughput-credit bucket per GiB, MiB (st1, sc1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket_mib_per_gib: Option<f64>,
    /// Monthly price of a fixed (or sized) disk, USD.
    pub price_usd_month: Option<f64>,
    /// USD per GiB-month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_gib_month: Option<f64>,
    /// USD per provisioned IOPS-month above `iops_free`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_iops_month: Option<f64>,
    /// Tiered IOPS prices: (up to this many IOPS, USD per IOPS-month), ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub price_iops_tiers: Vec<[f64; 2]>,
    /// USD per provisioned MiB/s-month above `mibps_free`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_mibps_month: Option<f64>,
    /// Where the limits come from: a `[[source]]` id of its file, or a text.
    pub source: String,
    /// Where the price comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Where the latency class comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_source: Option<String>,
    /// Where the burst figures come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_source: Option<String>,
    /// When the source published the figures (files without `[[source]]` tables).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub date: String,
    /// Anything a reader of the figures should know (derivations, caveats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The catalog file the entry was read from.
    #[serde(default)]
    pub file: String,
}

/// A VM size: its disk-path caps (uncached, burst and host-cache) and its shape.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmSize {
    /// Full size name, e.g. `Standard_DS13`, `m6i.xlarge`.
    pub id: String,
    /// Other names accepted for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Size family for `--family`, e.g. `DS`, `Dsv5`, `m6i`.
    pub family: String,
    /// Provider, e.g. `azure`.
    pub cloud: String,
    /// Can attach premium disks (Azure).
    #[serde(default)]
    pub premium_storage: bool,
    /// vCPUs.
    pub cores: Option<u32>,
    /// Memory in GiB.
    pub memory_gib: Option<f64>,
    /// Local (temporary) SSD in GiB; its IO shares the cache path.
    pub local_ssd_gib: Option<f64>,
    /// Most data disks the size can attach.
    pub max_data_disks: Option<u32>,
    /// Widest stripe the guide supports on this family (32 DS, 64 GS).
    pub max_stripe_disks: Option<u32>,
    /// VM cap on IOs that miss the host cache (all disks together).
    pub uncached_iops: Option<f64>,
    /// VM cap on bytes that miss the host cache, MiB/s.
    pub uncached_mibps: Option<f64>,
    /// The VM's burst cap on uncached IOs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_uncached_iops: Option<f64>,
    /// The VM's burst cap on uncached bytes, MiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_uncached_mibps: Option<f64>,
    /// Minutes at the burst caps from a full bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_minutes: Option<f64>,
    /// How the burst bucket refills.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_refill: Option<BurstRefill>,
    /// VM cap on host-cache hits plus local SSD IO, total.
    pub cache_iops: Option<f64>,
    /// VM cap on host-cache hits plus local SSD bytes, MiB/s, total.
    pub cache_mibps: Option<f64>,
    /// The cache-path IOPS cap per core (total = this x cores).
    pub cache_iops_per_core: Option<f64>,
    /// The cache-path MiB/s cap per core (total = this x cores).
    pub cache_mibps_per_core: Option<f64>,
    /// Host cache size in GiB.
    pub cache_size_gib: Option<f64>,
    /// Monthly price in USD, as published.
    pub price_usd_month: Option<f64>,
    /// Hourly on-demand price in USD (a month is [`HOURS_PER_MONTH`] hours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_hour: Option<f64>,
    /// Where the limits come from: a `[[source]]` id of its file, or a text.
    pub source: String,
    /// Where the price comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// When the source published them (files without `[[source]]` tables).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub date: String,
    /// Anything a reader of the figures should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The catalog file the entry was read from.
    #[serde(default)]
    pub file: String,
}

impl VmSize {
    /// The cache-path IOPS cap: the total if published, else per core x cores.
    pub fn cache_iops_total(&self) -> Option<f64> {
        self.cache_iops
            .or_else(|| Some(self.cache_iops_per_core? * f64::from(self.cores?)))
    }

    /// The cache-path MiB/s cap: the total if published, else per core x cores.
    pub fn cache_mibps_total(&self) -> Option<f64> {
        self.cache_mibps
            .or_else(|| Some(self.cache_mibps_per_core? * f64::from(self.cores?)))
    }

    /// The monthly price: as published, else the hourly price x [`HOURS_PER_MONTH`].
    pub fn monthly_usd(&self) -> Option<f64> {
        self.price_usd_month
            .or_else(|| self.price_usd_hour.map(|h| h * HOURS_PER_MONTH))
    }

    /// The most data disks, and whether that is the guide's "usually 2 x cores" rule rather
    /// than a published figure.
    pub fn disk_limit(&self) -> Option<(u32, bool)> {
        match (self.max_data_disks, self.cores) {
            (Some(n), _) => Some((n, false)),
            (None, Some(cores)) => Some((cores * 2, true)),
            (None, None) => None,
        }
    }

    /// Whether it bursts above its uncached caps.
    pub fn bursts(&self) -> bool {
        self.burst_uncached_iops.is_some() || self.burst_uncached_mibps.is_some()
    }
}

impl DiskTier {
    /// Whether it is a formula (scaled or provisioned) the planner must size.
    pub fn is_formula(&self) -> bool {
        self.kind != DiskKind::Fixed && self.size_gib.is_none()
    }

    /// Whether it has a credit bucket.
    pub fn has_credit_burst(&self) -> bool {
        self.burst_kind == Some(BurstKind::Credit)
    }

    /// The IOPS credit bucket of a tier that credit-bursts above its baseline: (baseline IOPS,
    /// burst IOPS, bucket size in IOs). The size is the published bucket (`bucket_ios`, gp2's
    /// 5.4 million) or `burst_minutes` at the burst rate over the baseline (Azure's 30
    /// minutes); `None` for a tier that does not burst so, or whose baseline reaches its burst
    /// (gp2 from 1,000 GiB).
    pub fn iops_credit_bucket(&self) -> Option<(f64, f64, f64)> {
        if !self.has_credit_burst() {
            return None;
        }
        let (baseline, burst) = (self.iops?, self.burst_iops?);
        if burst <= baseline {
            return None;
        }
        let size = match self.bucket_ios {
            Some(ios) => ios,
            None => (burst - baseline) * self.burst_minutes? * 60.0,
        };
        Some((baseline, burst, size))
    }

    /// Whether it is priced: a fixed price, or the per-GiB price of a formula.
    pub fn is_priced(&self) -> bool {
        self.price_usd_month.is_some() || self.price_usd_gib_month.is_some()
    }
}
