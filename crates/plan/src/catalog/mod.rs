//! The catalog: published limits and prices of disk tiers and VM sizes, read from TOML data
//! files (the built-in ones in `crates/plan/catalog/`, plus any the user adds).
//!
//! The built-in files come in two slices: `current` (what Azure, AWS, Google Cloud and
//! DigitalOcean sell today, one file per provider, each figure citing a `[[source]]` with its
//! date) and `guides` (the 2019 Azure and DigitalOcean figures the guides' worked examples
//! use, kept so those examples still come out as printed). A plan reads one slice; user files
//! (`--catalog FILE`) add or override entries on top of it. Parsing takes text, not paths, so
//! this crate does no IO: the CLI reads `--catalog FILE` and hands the text over.

mod entries;

pub use entries::{
    BurstKind, BurstRefill, DiskKind, DiskTier, LatencyClass, Source, VmSize, HOURS_PER_MONTH,
};

use crate::{CatalogProblem, PlanError};
use serde::{Deserialize, Serialize};

/// A built-in slice of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slice {
    /// What the clouds sell today (the default).
    #[default]
    Current,
    /// The guides' own 2019 figures (Azure DS/GS/D sizes, P/S tiers; DigitalOcean volumes).
    Guides,
}

impl Slice {
    /// Every slice, by name.
    pub const ALL: [(&'static str, Slice); 2] =
        [("current", Slice::Current), ("guides", Slice::Guides)];

    /// The slice named `name`.
    pub fn parse(name: &str) -> Option<Slice> {
        Slice::ALL
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
            .map(|(_, s)| *s)
    }

    /// Its built-in files, as (file name, text).
    pub fn files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Slice::Current => &CURRENT_FILES,
            Slice::Guides => &GUIDES_FILES,
        }
    }
}

/// The current slice's files, one per provider.
pub const CURRENT_FILES: [(&str, &str); 4] = [
    (
        "current/azure.toml",
        include_str!("../../catalog/current/azure.toml"),
    ),
    (
        "current/aws.toml",
        include_str!("../../catalog/current/aws.toml"),
    ),
    (
        "current/gcp.toml",
        include_str!("../../catalog/current/gcp.toml"),
    ),
    (
        "current/digitalocean.toml",
        include_str!("../../catalog/current/digitalocean.toml"),
    ),
];

/// The guides' slice's files.
pub const GUIDES_FILES: [(&str, &str); 2] = [
    (
        "guides/azure.toml",
        include_str!("../../catalog/guides/azure.toml"),
    ),
    (
        "guides/digitalocean.toml",
        include_str!("../../catalog/guides/digitalocean.toml"),
    ),
];

/// One catalog file's content.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    source: Vec<Source>,
    #[serde(default)]
    disk: Vec<DiskTier>,
    #[serde(default)]
    vm: Vec<VmSize>,
}

/// All known disk tiers and VM sizes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Catalog {
    /// The documents the figures come from, in file order.
    pub sources: Vec<Source>,
    /// Disk tiers in file order.
    pub disks: Vec<DiskTier>,
    /// VM sizes in file order.
    pub vms: Vec<VmSize>,
}

impl Catalog {
    /// The built-in catalog's current slice.
    pub fn builtin() -> Catalog {
        Catalog::builtin_slice(Slice::Current)
    }

    /// One built-in slice.
    pub fn builtin_slice(slice: Slice) -> Catalog {
        let mut catalog = Catalog::default();
        for (name, text) in slice.files() {
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
        let cited = |id: &str, field: &'static str, source: Option<&String>| {
            check_source(file_name, &parsed.source, id, field, source)
        };
        for disk in &parsed.disk {
            cited(&disk.id, "source", Some(&disk.source))?;
            cited(&disk.id, "price_source", disk.price_source.as_ref())?;
            cited(&disk.id, "latency_source", disk.latency_source.as_ref())?;
            cited(&disk.id, "burst_source", disk.burst_source.as_ref())?;
        }
        for vm in &parsed.vm {
            cited(&vm.id, "source", Some(&vm.source))?;
            cited(&vm.id, "price_source", vm.price_source.as_ref())?;
        }
        for mut source in parsed.source {
            source.file = file_name.to_string();
            self.sources
                .retain(|s| !(s.file == source.file && s.id == source.id));
            self.sources.push(source);
        }
        for mut disk in parsed.disk {
            check_entry(
                file_name,
                &disk.id,
                disk_numbers(&disk),
                disk_formula_numbers(&disk),
            )?;
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
            check_entry(file_name, &vm.id, vm_numbers(&vm), Vec::new())?;
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

    /// The `[[source]]` an entry of `file` cites as `id`, when its file has one by that id.
    pub fn source(&self, file: &str, id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.file == file && s.id == id)
    }

    /// "title (url), published DATE, read DATE" for a citation of an entry of `file`; the
    /// citation itself when it names no `[[source]]` (a free-text source).
    pub fn cite(&self, file: &str, id: &str) -> String {
        match self.source(file, id) {
            Some(s) => format!(
                "{} ({}), published {}, read {}",
                s.title, s.url, s.published, s.read
            ),
            None => id.to_string(),
        }
    }

    /// Disk types as volumes a measured device can be named after (`sweep`): fixed tiers as
    /// they are; a provisioned type, or a scaled one whose limits do not grow with its size
    /// (DigitalOcean volumes), as its smallest volume with what comes free with it (gp3:
    /// 3,000 IOPS, 125 MiB/s). A scaled type whose limits grow with its size (gp2, pd-ssd)
    /// has no one volume to be named after and is left out.
    pub fn named_volumes(&self) -> Vec<DiskTier> {
        self.disks
            .iter()
            .filter_map(|d| {
                if !d.is_formula() {
                    return Some(d.clone());
                }
                let grows = |per_gib: Option<f64>| per_gib.is_some_and(|p| p > 0.0);
                if d.kind == DiskKind::Scaled && (grows(d.iops_per_gib) || grows(d.mibps_per_gib)) {
                    return None;
                }
                crate::sizing::smallest(d)
            })
            .collect()
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
        ("max_size_gib", d.max_size_gib),
        ("iops_max", d.iops_max),
        ("mibps_max", d.mibps_max),
        ("burst_iops", d.burst_iops),
        ("burst_mibps", d.burst_mibps),
        ("burst_minutes", d.burst_minutes),
        ("bucket_ios", d.bucket_ios),
    ]
}

/// Figures of a formula that may be zero (nothing free, no floor).
fn disk_formula_numbers(d: &DiskTier) -> Vec<(&'static str, Option<f64>)> {
    let mut numbers = vec![
        ("min_size_gib", d.min_size_gib),
        ("iops_free", d.iops_free),
        ("iops_per_gib", d.iops_per_gib),
        ("iops_min", d.iops_min),
        ("iops_max_per_gib", d.iops_max_per_gib),
        ("mibps_free", d.mibps_free),
        ("mibps_per_gib", d.mibps_per_gib),
        ("mibps_min", d.mibps_min),
        ("mibps_max_per_iops", d.mibps_max_per_iops),
        ("mibps_per_iops", d.mibps_per_iops),
        ("burst_mibps_per_gib", d.burst_mibps_per_gib),
        ("bucket_mib_per_gib", d.bucket_mib_per_gib),
        ("price_usd_gib_month", d.price_usd_gib_month),
        ("price_usd_iops_month", d.price_usd_iops_month),
        ("price_usd_mibps_month", d.price_usd_mibps_month),
    ];
    for [up_to, usd] in &d.price_iops_tiers {
        numbers.push(("price_iops_tiers", Some(*up_to)));
        numbers.push(("price_iops_tiers", Some(*usd)));
    }
    numbers
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
        ("price_usd_hour", v.price_usd_hour),
        ("burst_uncached_iops", v.burst_uncached_iops),
        ("burst_uncached_mibps", v.burst_uncached_mibps),
        ("burst_minutes", v.burst_minutes),
        ("cores", v.cores.map(f64::from)),
        ("max_data_disks", v.max_data_disks.map(f64::from)),
        ("max_stripe_disks", v.max_stripe_disks.map(f64::from)),
    ]
}

/// In a file with `[[source]]` tables, every citation must name one of them (so every figure
/// leads to a document and its date); a file without them cites in free text.
fn check_source(
    file: &str,
    sources: &[Source],
    id: &str,
    field: &'static str,
    cited: Option<&String>,
) -> Result<(), PlanError> {
    match cited {
        Some(cited) if !sources.is_empty() && !sources.iter().any(|s| &s.id == cited) => {
            Err(PlanError::Catalog {
                file: file.to_string(),
                problem: CatalogProblem::UnknownSource {
                    id: id.to_string(),
                    field,
                    cited: cited.clone(),
                },
            })
        }
        _ => Ok(()),
    }
}

/// Caps and prices (`positive`) must be positive and finite: a zero cap would make every
/// plan fail for a reason no reader could see. A formula's figures (`at_least_zero`: a free
/// allowance, a per-GiB rate, a price component) may be zero, never negative or infinite.
fn check_entry(
    file: &str,
    id: &str,
    positive: Vec<(&'static str, Option<f64>)>,
    at_least_zero: Vec<(&'static str, Option<f64>)>,
) -> Result<(), PlanError> {
    let bad = |problem| {
        Err(PlanError::Catalog {
            file: file.to_string(),
            problem,
        })
    };
    if id.trim().is_empty() {
        return bad(CatalogProblem::EmptyId);
    }
    let numbers = (positive.into_iter().map(|n| (n, true)))
        .chain(at_least_zero.into_iter().map(|n| (n, false)));
    for ((field, value), strictly) in numbers {
        let Some(v) = value else { continue };
        if strictly && !(v.is_finite() && v > 0.0) {
            return bad(CatalogProblem::NotPositive {
                id: id.to_string(),
                field,
                value: v,
            });
        }
        if !(v.is_finite() && v >= 0.0) {
            return bad(CatalogProblem::Negative {
                id: id.to_string(),
                field,
                value: v,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalog_parses_with_the_guides_figures() {
        let c = Catalog::builtin_slice(Slice::Guides);
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
        let mut c = Catalog::builtin_slice(Slice::Guides);
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
        let c = Catalog::builtin_slice(Slice::Guides);
        let e = c.disk("P31").unwrap_err().to_string();
        assert!(e.contains("P31") && e.contains("P30"), "{e}");
        let e = c.vm("DS99").unwrap_err().to_string();
        assert!(e.contains("Standard_DS13"), "{e}");
    }
}
