//! A rehearsal's measurement held against its plan, path by path (each disk, the VM's cap,
//! the total), with a three-valued agreement as `check` judges: *agrees* when the measured
//! figure's 95 % interval lies within 5 % of the prediction, *differs* when it lies wholly
//! outside, *within noise* when it straddles the band's edge; and the binding limit each
//! names.

use super::{pieces_per_io, RehearsalSetup, AGREEMENT_PERCENT, BINDING_SHARE};
use crate::model::{group, CapKind};
use diskmeter_units::MIB_F64;
use serde::Serialize;

/// What the rehearsal measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// The run's IOPS over its runtime (ramp excluded).
    pub iops: f64,
    /// The run's MiB/s over its runtime.
    pub mibps: f64,
    /// 95 % half-width of `iops` (batch means of its 1 s rates); `None` with fewer than 4.
    pub iops_half_width: Option<f64>,
    /// 95 % half-width of `mibps`.
    pub mibps_half_width: Option<f64>,
    /// Each disk's IOPS and MiB/s from its device counters (`/sys/block/loopN/stat`) over the
    /// same period; empty when the disks were not emulated (no root).
    pub disks: Vec<MeasuredDisk>,
}

/// One emulated disk's counters over the measured period.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredDisk {
    /// The loop device.
    pub device: String,
    /// Requests completed per second (reads and writes).
    pub iops: f64,
    /// MiB/s (reads and writes).
    pub mibps: f64,
    /// 95 % half-width of `iops` (batch means of its 1 s rates); `None` with fewer than 4.
    pub iops_half_width: Option<f64>,
    /// 95 % half-width of `mibps`.
    pub mibps_half_width: Option<f64>,
}

/// A measured figure against its prediction, three-valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// The measured 95 % interval lies within [`AGREEMENT_PERCENT`] of the prediction.
    Agrees,
    /// The interval straddles an edge of that band: the run cannot tell.
    WithinNoise,
    /// The interval lies wholly outside the band (or the two name different limits).
    Differs,
}

impl Agreement {
    /// `measured` +- `half_width` against `predicted` +- 5 %; with no interval (fewer than 4
    /// one-second samples) the figure itself decides; nothing predicted, nothing to differ.
    pub fn of(measured: f64, half_width: Option<f64>, predicted: Option<f64>) -> Agreement {
        let Some(p) = predicted.filter(|p| *p > 0.0) else {
            return Agreement::Agrees;
        };
        let band = AGREEMENT_PERCENT / 100.0;
        let (low, high) = (p * (1.0 - band), p * (1.0 + band));
        let h = half_width.filter(|h| h.is_finite()).unwrap_or(0.0);
        if measured - h >= low && measured + h <= high {
            Agreement::Agrees
        } else if measured + h < low || measured - h > high {
            Agreement::Differs
        } else {
            Agreement::WithinNoise
        }
    }

    /// "agrees", "within noise", "DIFFERS".
    pub fn word(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees",
            Agreement::WithinNoise => "within noise",
            Agreement::Differs => "DIFFERS",
        }
    }
}

/// One path of the comparison: predicted against measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathComparison {
    /// "disk 1 (/dev/loop0)", "VM cap", "total".
    pub path: String,
    /// The caps on this path, as text ("5,000 IOPS / 200 MiB/s").
    pub caps: String,
    /// IOPS the plan predicts on it.
    pub predicted_iops: Option<f64>,
    /// IOPS measured on it.
    pub measured_iops: f64,
    /// Its 95 % half-width, when known.
    pub measured_iops_half_width: Option<f64>,
    /// (measured - predicted) / predicted, percent.
    pub iops_difference_percent: Option<f64>,
    /// MiB/s the plan predicts.
    pub predicted_mibps: Option<f64>,
    /// MiB/s measured.
    pub measured_mibps: f64,
    /// Its 95 % half-width, when known.
    pub measured_mibps_half_width: Option<f64>,
    /// (measured - predicted) / predicted, percent.
    pub mibps_difference_percent: Option<f64>,
    /// The binding limit the plan names for this path: its cap when that cap is the plan's
    /// binding limit, else how far below its caps the plan puts it.
    pub predicted_limit: String,
    /// The cap the measurement shows binding (traffic at 95 % of it or more), or how far
    /// below its caps the path ran.
    pub measured_limit: String,
    /// The worse of the IOPS and MiB/s agreements.
    pub agreement: Agreement,
}

/// The rehearsal's answer: every path, and whether all agree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The paths: each disk, the VM cap, the total.
    pub paths: Vec<PathComparison>,
    /// The binding limit the plan names.
    pub predicted_limit: String,
    /// The binding limit the measurement shows.
    pub measured_limit: String,
    /// Whether the plan and the measurement name the same binding limit.
    pub same_limit: bool,
    /// The worst path's agreement; differs when the limits differ.
    pub agreement: Agreement,
}

fn difference(measured: f64, predicted: Option<f64>) -> Option<f64> {
    predicted
        .filter(|p| *p > 0.0)
        .map(|p| (measured / p - 1.0) * 100.0)
}

/// A cap's name, value and the traffic on it, to find which binds.
struct CapUse {
    name: String,
    value: f64,
    used: f64,
    unit: &'static str,
}

impl CapUse {
    fn new(name: &str, value: Option<f64>, used: f64, unit: &'static str) -> Option<CapUse> {
        value.filter(|v| *v > 0.0).map(|value| CapUse {
            name: name.to_string(),
            value,
            used,
            unit,
        })
    }
}

/// The tightest of `caps` at this traffic: binding at 95 % or more, else the share used.
fn limit_of(caps: &[CapUse]) -> (String, bool) {
    let top = caps
        .iter()
        .max_by(|a, b| (a.used / a.value).total_cmp(&(b.used / b.value)));
    match top {
        Some(c) if c.used >= c.value * BINDING_SHARE => {
            (format!("{} {} {}", c.name, group(c.value), c.unit), true)
        }
        Some(c) => (
            format!(
                "below its caps ({} {}: {} %)",
                c.name,
                c.unit,
                group(c.used / c.value * 100.0)
            ),
            false,
        ),
        None => ("no cap".to_string(), false),
    }
}

fn caps_text(iops: Option<f64>, mibps: Option<f64>) -> String {
    let mut parts = Vec::new();
    if let Some(v) = iops {
        parts.push(format!("{} IOPS", group(v)));
    }
    if let Some(v) = mibps {
        parts.push(format!("{} MiB/s", group(v)));
    }
    if parts.is_empty() {
        "none published".to_string()
    } else {
        parts.join(" / ")
    }
}

/// Holds `setup`'s prediction against `measured`: per disk (when the disks were emulated), the
/// VM cap, the total; each with the limit the plan names and the one the measurement shows.
pub fn compare(setup: &RehearsalSetup, measured: &Measured) -> Comparison {
    let w = &setup.workload;
    let p = &setup.prediction;
    let delivered = match (p.required_iops, p.capacity_iops) {
        (Some(r), Some(c)) => Some(r.min(c)),
        (r, c) => r.or(c),
    };
    let mean_bytes = w.read_fraction * w.read_bs_bytes as f64
        + (1.0 - w.read_fraction) * w.write_bs_bytes as f64;
    let pieces = w.read_fraction * pieces_per_io(w.read_bs_bytes, setup.chunk_kib)
        + (1.0 - w.read_fraction) * pieces_per_io(w.write_bs_bytes, setup.chunk_kib);
    let total_mibps = delivered.map(|x| x * mean_bytes / MIB_F64);
    let n = f64::from(setup.disk_count.max(1));
    let plan_limit = p.limit.as_ref();
    // A demand within 5 % of the capacity runs its cap at 95 % or more: the cap binds, by the
    // same rule the measurement is read with.
    let at_cap = match (p.required_iops, p.capacity_iops) {
        (Some(r), Some(c)) => r >= c * BINDING_SHARE,
        (None, _) => true,
        (Some(_), None) => false,
    };
    let named = |kinds: &[CapKind]| match plan_limit {
        Some(l) if at_cap && kinds.contains(&l.kind) => {
            let per = if matches!(l.kind, CapKind::DiskIops | CapKind::DiskMibps) {
                l.value / n
            } else {
                l.value
            };
            format!("{} {} {}", l.kind.label(), group(per), l.kind.unit())
        }
        _ => "not binding".to_string(),
    };
    // A disk counts the requests it was sent after the kernel merged neighbours: an IO larger
    // than the chunk lands on a disk as adjacent pieces, and sequential IOs lie side by side,
    // so there the same bytes may arrive in fewer, larger requests (a CI run of 2026-11-29:
    // 1 MiB reads gave one disk 586 requests a second of 340 KiB, the others 3,189 of 64 KiB,
    // all at 199 MiB/s). Its IO count is judged only for random IOs no larger than a chunk;
    // otherwise it is shown and the bytes are judged.
    let largest_bs = w.read_bs_bytes.max(w.write_bs_bytes);
    let disk_counts_ios =
        w.random_fraction >= 1.0 && largest_bs <= u64::from(setup.chunk_kib) * 1024;
    let mut paths = Vec::new();
    let mut measured_binding: Vec<String> = Vec::new();
    for (i, disk) in measured.disks.iter().enumerate() {
        let predicted_iops = delivered.map(|x| x * pieces / n);
        let predicted_mibps = total_mibps.map(|m| m / n);
        let uses: Vec<CapUse> = [
            CapUse::new("disk cap", setup.disk_iops, disk.iops, "IOPS"),
            CapUse::new("disk cap", setup.disk_mibps, disk.mibps, "MiB/s"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let (measured_limit, binds) = limit_of(&uses);
        if binds && i == 0 {
            measured_binding.push(measured_limit.clone());
        }
        let mut path = row(
            format!("disk {} ({})", i + 1, disk.device),
            caps_text(setup.disk_iops, setup.disk_mibps),
            (predicted_iops, disk.iops, disk.iops_half_width),
            (predicted_mibps, disk.mibps, disk.mibps_half_width),
            named(&[CapKind::DiskIops, CapKind::DiskMibps]),
            measured_limit,
        );
        if !disk_counts_ios {
            path.agreement = Agreement::of(disk.mibps, disk.mibps_half_width, predicted_mibps);
        }
        paths.push(path);
    }
    if measured.disks.is_empty() {
        // Not emulated (no root): the disks' summed caps were one in-engine cap, so the
        // total's share of each disk is what a disk carried.
        let uses: Vec<CapUse> = [
            CapUse::new(
                "disk cap",
                setup.disk_iops,
                measured.iops * pieces / n,
                "IOPS",
            ),
            CapUse::new("disk cap", setup.disk_mibps, measured.mibps / n, "MiB/s"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if let (limit, true) = limit_of(&uses) {
            measured_binding.push(limit);
        }
    }
    let vm_uses: Vec<CapUse> = [
        CapUse::new("VM uncached cap", setup.vm_iops, measured.iops, "IOPS"),
        CapUse::new("VM uncached cap", setup.vm_mibps, measured.mibps, "MiB/s"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (vm_limit, vm_binds) = limit_of(&vm_uses);
    if vm_binds {
        measured_binding.push(vm_limit.clone());
    }
    if setup.vm_iops.is_some() || setup.vm_mibps.is_some() {
        paths.push(row(
            "VM cap (in-engine)".to_string(),
            caps_text(setup.vm_iops, setup.vm_mibps),
            (delivered, measured.iops, measured.iops_half_width),
            (total_mibps, measured.mibps, measured.mibps_half_width),
            named(&[CapKind::VmUncachedIops, CapKind::VmUncachedMibps]),
            vm_limit,
        ));
    }
    let paced = w.rate_iops.filter(|r| measured.iops >= r * BINDING_SHARE);
    let measured_limit = match (measured_binding.first(), paced) {
        (Some(limit), _) => limit.clone(),
        (None, Some(rate)) => format!("the demand ({} IOPS, paced)", group(rate)),
        (None, None) => "none found: below every cap and below the demand".to_string(),
    };
    let predicted_limit = match (plan_limit, p.required_iops) {
        (Some(l), _) if at_cap => {
            let per = if matches!(l.kind, CapKind::DiskIops | CapKind::DiskMibps) {
                l.value / n
            } else {
                l.value
            };
            format!("{} {} {}", l.kind.label(), group(per), l.kind.unit())
        }
        (_, Some(r)) => format!("the demand ({} IOPS, paced)", group(r)),
        (_, None) => "no cap".to_string(),
    };
    paths.push(row(
        "total".to_string(),
        p.capacity_text(),
        (delivered, measured.iops, measured.iops_half_width),
        (total_mibps, measured.mibps, measured.mibps_half_width),
        predicted_limit.clone(),
        measured_limit.clone(),
    ));
    let same_limit = predicted_limit == measured_limit;
    let worst = paths.iter().map(|r| r.agreement).max();
    let agreement = if same_limit {
        worst.unwrap_or(Agreement::Agrees)
    } else {
        Agreement::Differs
    };
    Comparison {
        paths,
        predicted_limit,
        measured_limit,
        same_limit,
        agreement,
    }
}

fn row(
    path: String,
    caps: String,
    iops: (Option<f64>, f64, Option<f64>),
    mibps: (Option<f64>, f64, Option<f64>),
    predicted_limit: String,
    measured_limit: String,
) -> PathComparison {
    let iops_difference_percent = difference(iops.1, iops.0);
    let mibps_difference_percent = difference(mibps.1, mibps.0);
    PathComparison {
        path,
        caps,
        predicted_iops: iops.0,
        measured_iops: iops.1,
        measured_iops_half_width: iops.2,
        iops_difference_percent,
        predicted_mibps: mibps.0,
        measured_mibps: mibps.1,
        measured_mibps_half_width: mibps.2,
        mibps_difference_percent,
        predicted_limit,
        measured_limit,
        agreement: Agreement::of(iops.1, iops.2, iops.0)
            .max(Agreement::of(mibps.1, mibps.2, mibps.0)),
    }
}
