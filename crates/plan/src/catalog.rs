//! The catalog: published limits and prices of disk tiers and VM sizes, read from TOML data
//! files (the built-in ones in `crates/plan/catalog/`, plus any the user adds).
//!
//! Every figure is optional because sources leave gaps; a missing figure stays missing here and
//! the planner reports when one limits an answer. Parsing takes text, not paths, so this crate
//! does no IO: the CLI reads `--catalog FILE` and hands the text over.

use crate::{CatalogProblem, PlanError};
use serde::{Deserialize, Serialize};

/// The built-in catalog files, as (file name, text).
pub const BUILTIN_FILES: [(&str, &str); 2] = [
    ("azure.toml", include_str!("../catalog/azure.toml")),
    (
        "digitalocean.toml",
        include_str!("../catalog/digitalocean.toml"),
    ),
];

/// A disk tier: one volume's caps, size and price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskTier {
    /// Short name used on the command line, e.g. `P30`.
    pub id: String,
    /// Other names accepted for it, e.g. `S30`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Human name, e.g. "Azure Premium SSD P30".
    pub name: String,
    /// Provider, e.g. `azure`; disks are only paired with VMs of the same cloud.
    pub cloud: String,
    /// Needs a VM size with premium-storage support.
    #[serde(default)]
    pub premium: bool,
    /// Capacity in GiB.
    pub size_gib: Option<f64>,
    /// Provisioned IOPS cap of one disk.
    pub iops: Option<f64>,
    /// Provisioned bandwidth cap of one disk, MiB/s.
    pub mibps: Option<f64>,
    /// Monthly price in USD, as published.
    pub price_usd_month: Option<f64>,
    /// Where the figures come from.
    pub source: String,
    /// When the source published them.
    pub date: String,
    /// Anything a reader of the figures should know (derivations, caveats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The catalog file the entry was read from.
    #[serde(default)]
    pub file: String,
}

/// A VM size: its disk-path caps (uncached and host-cache) and its shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmSize {
    /// Full size name, e.g. `Standard_DS13`.
    pub id: String,
    /// Other names accepted for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Size family for `--family`, e.g. `DS`, `GS`.
    pub family: String,
    /// Provider, e.g. `azure`.
    pub cloud: String,
    /// Can attach premium disks.
    #[serde(default)]
    pub premium_storage: bool,
    /// vCPU cores.
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
    /// Where the figures come from.
    pub source: String,
    /// When the source published them.
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

    /// The most data disks, and whether that is the guide's "usually 2 x cores" rule rather
    /// than a published figure.
    pub fn disk_limit(&self) -> Option<(u32, bool)> {
        match (self.max_data_disks, self.cores) {
            (Some(n), _) => Some((n, false)),
            (None, Some(cores)) => Some((cores * 2, true)),
            (None, None) => None,
        }
    }
}

/// One catalog file's content.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    disk: Vec<DiskTier>,
    #[serde(default)]
    vm: Vec<VmSize>,
}

/// All known disk tiers and VM sizes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Catalog {
    /// Disk tiers in file order.
    pub disks: Vec<DiskTier>,
    /// VM sizes in file order.
    pub vms: Vec<VmSize>,
}

impl Catalog {
    /// The built-in catalog.
    pub fn builtin() -> Catalog {
        let mut catalog = Catalog::default();
        for (name, text) in BUILTIN_FILES {
            // The built-in files are tested to parse; an error here is a build defect.
            catalog
                .add_file(name, text)
                .unwrap_or_else(|e| panic!("built-in catalog {name}: {e}"));
        }
        catalog
    }

    /// Adds the entries of one TOML catalog file. An entry whose id (or alias) matches an
    /// existing one replaces it whole, so a user file can correct or extend a figure.
    pub fn add_file(&mut self, file_name: &str, text: &str) -> Result<(), PlanError> {
        let parsed: CatalogFile = toml::from_str(text).map_err(|e| PlanError::Catalog {
            file: file_name.to_string(),
            problem: CatalogProblem::Toml(Box::new(e)),
        })?;
        for mut disk in parsed.disk {
            check_entry(file_name, &disk.id, disk_numbers(&disk))?;
            disk.file = file_name.to_string();
            let names = names_of(&disk.id, &disk.aliases);
            match self
                .disks
                .iter()
                .position(|d| matches_any(&d.id, &d.aliases, &names))
            {
                Some(i) => self.disks[i] = disk,
                None => self.disks.push(disk),
            }
        }
        for mut vm in parsed.vm {
            check_entry(file_name, &vm.id, vm_numbers(&vm))?;
            vm.file = file_name.to_string();
            let names = names_of(&vm.id, &vm.aliases);
            match self
                .vms
                .iter()
                .position(|v| matches_any(&v.id, &v.aliases, &names))
            {
                Some(i) => self.vms[i] = vm,
                None => self.vms.push(vm),
            }
        }
        Ok(())
    }

    /// Finds a disk tier by id or alias (case-insensitive).
    pub fn disk(&self, name: &str) -> Result<&DiskTier, PlanError> {
        let key = normalise(name);
        self.disks
            .iter()
            .find(|d| names_of(&d.id, &d.aliases).contains(&key))
            .ok_or_else(|| PlanError::UnknownDisk {
                name: name.to_string(),
                known: self.disks.iter().map(|d| d.id.clone()).collect(),
            })
    }

    /// Finds a VM size by id or alias (case-insensitive, `Standard_` optional).
    pub fn vm(&self, name: &str) -> Result<&VmSize, PlanError> {
        let key = normalise(name);
        self.vms
            .iter()
            .find(|v| names_of(&v.id, &v.aliases).contains(&key))
            .ok_or_else(|| PlanError::UnknownVm {
                name: name.to_string(),
                known: self.vms.iter().map(|v| v.id.clone()).collect(),
            })
    }

    /// Finds a disk tier, else a VM size, by id or alias (`diskmeter catalog show ID`).
    pub fn entry(&self, name: &str) -> Result<Entry<'_>, PlanError> {
        if let Ok(disk) = self.disk(name) {
            return Ok(Entry::Disk(disk));
        }
        if let Ok(vm) = self.vm(name) {
            return Ok(Entry::Vm(vm));
        }
        let disks = self.disks.iter().map(|d| d.id.clone());
        Err(PlanError::UnknownEntry {
            name: name.to_string(),
            known: disks.chain(self.vms.iter().map(|v| v.id.clone())).collect(),
        })
    }
}

/// A disk tier or a VM size: serialised as the one it is.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum Entry<'c> {
    /// A disk tier.
    Disk(&'c DiskTier),
    /// A VM size.
    Vm(&'c VmSize),
}

/// Lower case, without a `standard_` prefix, spaces, `-` or `_`: `Standard_DS14_v2` and
/// `ds14v2` are the same size, `standard-1tb` and `Standard-1TB` the same disk.
fn normalise(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let bare = lower.strip_prefix("standard_").unwrap_or(&lower);
    bare.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .collect()
}

fn names_of(id: &str, aliases: &[String]) -> Vec<String> {
    std::iter::once(id)
        .chain(aliases.iter().map(String::as_str))
        .map(normalise)
        .collect()
}

fn matches_any(id: &str, aliases: &[String], names: &[String]) -> bool {
    names_of(id, aliases).iter().any(|n| names.contains(n))
}

fn disk_numbers(d: &DiskTier) -> Vec<(&'static str, Option<f64>)> {
    vec![
        ("size_gib", d.size_gib),
        ("iops", d.iops),
        ("mibps", d.mibps),
        ("price_usd_month", d.price_usd_month),
    ]
}

fn vm_numbers(v: &VmSize) -> Vec<(&'static str, Option<f64>)> {
    vec![
        ("memory_gib", v.memory_gib),
        ("local_ssd_gib", v.local_ssd_gib),
        ("uncached_iops", v.uncached_iops),
        ("uncached_mibps", v.uncached_mibps),
        ("cache_iops", v.cache_iops),
        ("cache_mibps", v.cache_mibps),
        ("cache_iops_per_core", v.cache_iops_per_core),
        ("cache_mibps_per_core", v.cache_mibps_per_core),
        ("cache_size_gib", v.cache_size_gib),
        ("price_usd_month", v.price_usd_month),
        ("cores", v.cores.map(f64::from)),
        ("max_data_disks", v.max_data_disks.map(f64::from)),
        ("max_stripe_disks", v.max_stripe_disks.map(f64::from)),
    ]
}

/// Caps and prices must be positive and finite: a zero cap would make every plan fail for a
/// reason no reader could see.
fn check_entry(
    file: &str,
    id: &str,
    numbers: Vec<(&'static str, Option<f64>)>,
) -> Result<(), PlanError> {
    if id.trim().is_empty() {
        return Err(PlanError::Catalog {
            file: file.to_string(),
            problem: CatalogProblem::EmptyId,
        });
    }
    for (field, value) in numbers {
        if let Some(v) = value {
            if !(v.is_finite() && v > 0.0) {
                return Err(PlanError::Catalog {
                    file: file.to_string(),
                    problem: CatalogProblem::NotPositive {
                        id: id.to_string(),
                        field,
                        value: v,
                    },
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalog_parses_with_the_guides_figures() {
        let c = Catalog::builtin();
        let p30 = c.disk("p30").unwrap();
        assert_eq!((p30.iops, p30.mibps), (Some(5000.0), Some(200.0)));
        let ds14 = c.vm("Standard_DS14").unwrap();
        assert_eq!(ds14.cache_iops_total(), Some(64_000.0));
        assert_eq!(ds14.cache_mibps_total(), Some(528.0));
        assert_eq!(c.vm("ds14 v2").unwrap().id, "Standard_DS14_v2");
        assert_eq!(c.disk("S30").unwrap().id, "Standard-1TB");
        for d in &c.disks {
            assert!(!d.source.is_empty() && !d.date.is_empty(), "{}", d.id);
        }
        for v in &c.vms {
            assert!(!v.source.is_empty() && !v.date.is_empty(), "{}", v.id);
        }
    }

    #[test]
    fn user_file_overrides_by_id_or_alias_and_adds() {
        let mut c = Catalog::builtin();
        let n = c.disks.len();
        c.add_file(
            "mine.toml",
            r#"
[[disk]]
id = "S30"
name = "my standard"
cloud = "azure"
iops = 600
source = "my test"
date = "2026-11-23"

[[disk]]
id = "ebs-gp3"
name = "gp3"
cloud = "aws"
iops = 3000
mibps = 125
source = "my test"
date = "2026-11-23"
"#,
        )
        .unwrap();
        assert_eq!(c.disks.len(), n + 1);
        let s30 = c.disk("S30").unwrap();
        assert_eq!(
            (s30.iops, s30.mibps, s30.file.as_str()),
            (Some(600.0), None, "mine.toml")
        );
        assert!(
            c.disk("Standard-1TB").is_err(),
            "the override replaced the whole entry"
        );
    }

    #[test]
    fn bad_files_name_the_file_and_the_problem() {
        let mut c = Catalog::default();
        let e = c.add_file("x.toml", "[[disk]]\nid = \"a\"\n").unwrap_err();
        assert!(e.to_string().starts_with("catalog x.toml:"), "{e}");
        let e = c
            .add_file(
                "y.toml",
                "[[vm]]\nid=\"v\"\nfamily=\"F\"\ncloud=\"c\"\nuncached_iops=0\nsource=\"s\"\ndate=\"d\"\n",
            )
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("uncached_iops = 0 must be a positive"),
            "{e}"
        );
        let e = c
            .add_file("z.toml", "[[disk]]\nid=\"a\"\nspeed=3\n")
            .unwrap_err();
        assert!(e.to_string().contains("speed"), "{e}");
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let c = Catalog::builtin();
        let e = c.disk("P31").unwrap_err().to_string();
        assert!(e.contains("P31") && e.contains("P30"), "{e}");
        let e = c.vm("DS99").unwrap_err().to_string();
        assert!(e.contains("Standard_DS13"), "{e}");
    }
}
