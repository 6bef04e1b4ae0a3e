//! `diskmeter catalog list|show`: the planner's catalog as text, every entry with the
//! documents its figures come from.

use crate::plan::{opt, usd};
use diskmeter_plan::catalog::{DiskKind, HOURS_PER_MONTH};
use diskmeter_plan::{Catalog, DiskTier, Entry, VmSize};
use std::fmt::Write;

/// `diskmeter catalog list`.
pub fn catalog_list(catalog: &Catalog) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Disk types");
    let _ = writeln!(
        out,
        "  {:<21} {:<13} {:<12} {:<16} {:>9} {:>8} {:>8} {:>14}",
        "id", "cloud", "kind", "latency class", "size GiB", "IOPS", "MiB/s", "price"
    );
    for d in &catalog.disks {
        let formula = d.is_formula();
        let figure = |fixed: Option<f64>, max: Option<f64>| {
            if formula {
                max.map_or("-".to_string(), |m| format!("<={}", opt(Some(m), "")))
            } else {
                opt(fixed, "")
            }
        };
        let _ = writeln!(
            out,
            "  {:<21} {:<13} {:<12} {:<16} {:>9} {:>8} {:>8} {:>14}",
            d.id,
            d.cloud,
            kind(d.kind),
            d.latency_class
                .map_or("-", |c| c.label().split(" (").next().unwrap_or("-")),
            figure(d.size_gib, d.max_size_gib),
            figure(d.iops, d.iops_max),
            figure(d.mibps, d.mibps_max),
            disk_price(d)
        );
    }
    let _ = writeln!(out, "\nVM sizes (uncached and cache-path caps)");
    let _ = writeln!(
        out,
        "  {:<22} {:<13} {:<12} {:>5} {:>6} {:>9} {:>7} {:>10} {:>7} {:>10}",
        "id",
        "cloud",
        "family",
        "cores",
        "disks",
        "unc IOPS",
        "MiB/s",
        "cache IOPS",
        "MiB/s",
        "$/month"
    );
    for v in &catalog.vms {
        let _ = writeln!(
            out,
            "  {:<22} {:<13} {:<12} {:>5} {:>6} {:>9} {:>7} {:>10} {:>7} {:>10}",
            v.id,
            v.cloud,
            v.family,
            v.cores.map_or("-".to_string(), |c| c.to_string()),
            v.max_data_disks.map_or("-".to_string(), |c| c.to_string()),
            opt(v.uncached_iops, ""),
            opt(v.uncached_mibps, ""),
            opt(v.cache_iops_total(), ""),
            opt(v.cache_mibps_total(), ""),
            v.monthly_usd().map_or("-".to_string(), usd)
        );
    }
    let _ = writeln!(
        out,
        "\n'-' = not published in the sources the catalog cites; '<=' = the most a scaled or \
         provisioned type gives (the planner sizes it); `diskmeter catalog show ID` gives every \
         figure and its sources."
    );
    out
}

fn kind(kind: DiskKind) -> &'static str {
    match kind {
        DiskKind::Fixed => "fixed",
        DiskKind::Scaled => "scaled",
        DiskKind::Provisioned => "provisioned",
    }
}

/// "$135.17" a month for a fixed tier, "$0.08/GiB" for a formula; "-" without a price.
fn disk_price(d: &DiskTier) -> String {
    match (d.price_usd_month, d.price_usd_gib_month) {
        (Some(p), _) => usd(p),
        (None, Some(g)) => format!("${g}/GiB"),
        (None, None) => "-".to_string(),
    }
}

/// `catalog show`'s view of a disk type or a VM size.
pub fn entry(catalog: &Catalog, entry: Entry) -> String {
    match entry {
        Entry::Disk(d) => disk_entry(catalog, d),
        Entry::Vm(v) => vm_entry(catalog, v),
    }
}

/// `diskmeter catalog show ID` for a disk type: every figure it has, then its sources.
pub fn disk_entry(catalog: &Catalog, d: &DiskTier) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", d.id, d.name);
    let per = |v: Option<f64>, unit: &str| opt(v, unit).replace('-', "");
    let mut rows = vec![
        ("cloud", d.cloud.clone()),
        ("aliases", d.aliases.join(", ")),
        ("kind", kind(d.kind).to_string()),
        ("premium", d.premium.to_string()),
        (
            "latency class",
            d.latency_class
                .map_or(String::new(), |c| c.label().to_string()),
        ),
        ("size", per(d.size_gib, " GiB")),
        ("IOPS cap", per(d.iops, "")),
        ("bandwidth cap", per(d.mibps, " MiB/s")),
        ("sizes", range(d.min_size_gib, d.max_size_gib, " GiB")),
        ("IOPS free", per(d.iops_free, "")),
        ("IOPS per GiB", per(d.iops_per_gib, "")),
        ("IOPS floor", per(d.iops_min, "")),
        ("IOPS most", per(d.iops_max, "")),
        ("IOPS most per GiB", per(d.iops_max_per_gib, "")),
        ("MiB/s free", per(d.mibps_free, "")),
        ("MiB/s per GiB", per(d.mibps_per_gib, "")),
        ("MiB/s floor", per(d.mibps_min, "")),
        ("MiB/s most", per(d.mibps_max, "")),
        ("MiB/s most per IOPS", per(d.mibps_max_per_iops, "")),
        ("MiB/s per IOPS", per(d.mibps_per_iops, "")),
        (
            "bursts",
            d.burst_kind
                .map_or(String::new(), |k| format!("{k:?}").to_lowercase()),
        ),
        ("burst IOPS", per(d.burst_iops, "")),
        ("burst bandwidth", per(d.burst_mibps, " MiB/s")),
        ("burst MiB/s per GiB", per(d.burst_mibps_per_gib, "")),
        ("burst minutes", per(d.burst_minutes, " min")),
        ("IO-credit bucket", per(d.bucket_ios, " IOs")),
        ("price", disk_price(d).replace('-', "")),
        (
            "price per IOPS",
            per(d.price_usd_iops_month, " USD a month"),
        ),
        (
            "price per MiB/s",
            per(d.price_usd_mibps_month, " USD a month"),
        ),
    ];
    if !d.price_iops_tiers.is_empty() {
        let tiers: Vec<String> = (d.price_iops_tiers.iter())
            .map(|[up_to, usd]| format!("up to {up_to}: ${usd}"))
            .collect();
        rows.push(("IOPS price tiers", tiers.join(", ")));
    }
    rows.extend([
        ("notes", d.notes.clone().unwrap_or_default()),
        ("file", d.file.clone()),
    ]);
    entry_rows(&mut out, &rows);
    let sources = [
        ("limits", Some(&d.source)),
        ("price", d.price_source.as_ref()),
        ("latency class", d.latency_source.as_ref()),
        ("bursting", d.burst_source.as_ref()),
    ];
    source_rows(&mut out, catalog, &d.file, &d.date, &sources);
    out
}

/// `diskmeter catalog show ID` for a VM size.
pub fn vm_entry(catalog: &Catalog, v: &VmSize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} (family {})", v.id, v.family);
    let count = |c: Option<u32>| c.map_or(String::new(), |c| c.to_string());
    let per = |v: Option<f64>, unit: &str| opt(v, unit).replace('-', "");
    let price = match (v.price_usd_month, v.price_usd_hour) {
        (Some(m), _) => format!("{} a month", usd(m)),
        (None, Some(h)) => format!(
            "${h} an hour ({} a month at {HOURS_PER_MONTH} h)",
            usd(h * HOURS_PER_MONTH)
        ),
        (None, None) => String::new(),
    };
    let rows = [
        ("cloud", v.cloud.clone()),
        ("aliases", v.aliases.join(", ")),
        ("premium storage", v.premium_storage.to_string()),
        ("cores", count(v.cores)),
        ("memory", per(v.memory_gib, " GiB")),
        ("local SSD", per(v.local_ssd_gib, " GiB")),
        ("max data disks", count(v.max_data_disks)),
        ("widest stripe", count(v.max_stripe_disks)),
        ("uncached IOPS cap", per(v.uncached_iops, "")),
        ("uncached bandwidth cap", per(v.uncached_mibps, " MiB/s")),
        ("burst IOPS cap", per(v.burst_uncached_iops, "")),
        ("burst bandwidth cap", per(v.burst_uncached_mibps, " MiB/s")),
        ("burst minutes", per(v.burst_minutes, " min")),
        (
            "burst refill",
            v.burst_refill
                .map_or(String::new(), |r| format!("{r:?}").to_lowercase()),
        ),
        ("cache-path IOPS cap", per(v.cache_iops_total(), "")),
        (
            "cache-path bandwidth cap",
            per(v.cache_mibps_total(), " MiB/s"),
        ),
        ("cache size", per(v.cache_size_gib, " GiB")),
        ("price", price),
        ("notes", v.notes.clone().unwrap_or_default()),
        ("file", v.file.clone()),
    ];
    entry_rows(&mut out, &rows);
    let sources = [
        ("limits", Some(&v.source)),
        ("price", v.price_source.as_ref()),
    ];
    source_rows(&mut out, catalog, &v.file, &v.date, &sources);
    out
}

fn range(low: Option<f64>, high: Option<f64>, unit: &str) -> String {
    match (low, high) {
        (Some(l), Some(h)) => format!("{} to {}{unit}", opt(Some(l), ""), opt(Some(h), "")),
        _ => String::new(),
    }
}

fn entry_rows(out: &mut String, rows: &[(&str, String)]) {
    for (name, value) in rows {
        if !value.is_empty() {
            let _ = writeln!(out, "  {name:<25} {value}");
        }
    }
}

/// "source (limits)  title (url), published ..., read ..." per citation; a free-text source
/// with its date.
fn source_rows(
    out: &mut String,
    catalog: &Catalog,
    file: &str,
    date: &str,
    sources: &[(&str, Option<&String>)],
) {
    for (what, cited) in sources {
        let Some(cited) = cited else { continue };
        let mut text = catalog.cite(file, cited);
        if catalog.source(file, cited).is_none() && !date.is_empty() {
            text = format!("{text} ({date})");
        }
        let _ = writeln!(out, "  {:<25} {text}", format!("source ({what})"));
    }
}
