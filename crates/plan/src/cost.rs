//! What a configuration costs, by component, and the documents its figures come from.

use crate::catalog::Catalog;
use crate::model::Configuration;
use serde::Serialize;

/// The monthly cost of a configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    /// The VM's monthly price, USD.
    pub vm_usd: Option<f64>,
    /// All disks' monthly price, USD.
    pub disks_usd: Option<f64>,
    /// The sum, when every part has a price.
    pub total_usd: Option<f64>,
    /// What has no price in the catalog.
    pub missing: Vec<String>,
    /// The price's components, as a reader checks them: "Standard_D8s_v5 $0.384/h x 730 h
    /// = $280.32", "4 x gp3 at $28.00 (100 GiB x $0.08 + 3,000 IOPS x $0.005 + ...)".
    pub parts: Vec<String>,
}

pub(crate) fn cost(config: &Configuration) -> Cost {
    let mut missing = Vec::new();
    let mut parts = Vec::new();
    let vm_usd = config.vm.and_then(|vm| {
        let monthly = vm.monthly_usd();
        match (monthly, vm.price_usd_month, vm.price_usd_hour) {
            (None, _, _) => missing.push(vm.id.clone()),
            (Some(m), None, Some(h)) => parts.push(format!(
                "{} ${h}/h x {} h = ${m:.2}",
                vm.id,
                crate::catalog::HOURS_PER_MONTH,
            )),
            (Some(m), _, _) => parts.push(format!("{} ${m:.2} a month", vm.id)),
        }
        monthly
    });
    if let Some(each) = config.disk.price_usd_month {
        parts.push(format!(
            "{} x {} at ${each:.2} a month{}",
            config.disk_count,
            config.disk.id,
            crate::sizing::price_text(config.disk)
        ));
    }
    let disks_usd = config
        .disk
        .price_usd_month
        .map(|p| p * f64::from(config.disk_count));
    if disks_usd.is_none() {
        missing.push(config.disk.id.clone());
    }
    let total_usd = match (config.vm.is_some(), vm_usd, disks_usd) {
        (true, Some(v), Some(d)) => Some(round_cents(v + d)),
        (false, _, Some(d)) => Some(round_cents(d)),
        _ => None,
    };
    Cost {
        vm_usd,
        disks_usd: disks_usd.map(round_cents),
        total_usd,
        missing,
        parts,
    }
}

fn round_cents(usd: f64) -> f64 {
    (usd * 100.0).round() / 100.0
}

/// What a source line of [`sources`] says a document gives: `"{id} {figure}: {citation}"`.
pub const CITED_FIGURES: [&str; 4] = ["limits", "price", "latency class", "bursting"];

/// Where a configuration's figures come from, one line per document:
/// `"{entry id} {figure}: {citation}"`, the figure one of [`CITED_FIGURES`].
pub fn sources(catalog: &Catalog, config: &Configuration) -> Vec<String> {
    let [limits, price, latency, bursting] = CITED_FIGURES;
    let mut out: Vec<String> = Vec::new();
    let mut add = |id: &str, figure: &str, file: &str, cited: Option<&String>| {
        if let Some(cited) = cited {
            let line = format!("{id} {figure}: {}", catalog.cite(file, cited));
            if !out.contains(&line) {
                out.push(line);
            }
        }
    };
    let d = config.disk;
    add(&d.id, limits, &d.file, Some(&d.source));
    add(&d.id, price, &d.file, d.price_source.as_ref());
    add(&d.id, latency, &d.file, d.latency_source.as_ref());
    add(&d.id, bursting, &d.file, d.burst_source.as_ref());
    if let Some(vm) = config.vm {
        add(&vm.id, limits, &vm.file, Some(&vm.source));
        add(&vm.id, price, &vm.file, vm.price_source.as_ref());
    }
    out
}
