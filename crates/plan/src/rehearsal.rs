//! A rehearsal's arithmetic (`plan --rehearse`): what to build and run from a plan's
//! evaluation ([`setup`]), and the plan's prediction held against what the rehearsal measured,
//! per path: each disk of the stripe, the VM's cap, the total ([`compare`]). Pure: the
//! building and the running are the emulate and orchestrator crates'.
//!
//! The stripe is btrfs raid0, whose stripe is fixed at 64 KiB: a plan that advises another
//! chunk is rehearsed at 64 KiB, and the setup says so. An IO larger than the chunk is split
//! at chunk boundaries, so a disk sees more, smaller IOs than the application issues
//! ([`pieces_per_io`]); the per-disk prediction counts them, as the disks' counters do.

use crate::model::{group, CapKind, PointPrediction};
use crate::planner::Evaluation;
use crate::PlanError;
use serde::Serialize;

mod agreement;
pub use agreement::{compare, Agreement, Comparison, Measured, MeasuredDisk, PathComparison};

/// btrfs raid0's stripe (chunk) per device, KiB: fixed by btrfs (`BTRFS_STRIPE_LEN`).
pub const BTRFS_CHUNK_KIB: u32 = 64;

/// Measured and predicted agree when they differ by at most this share of the prediction.
pub const AGREEMENT_PERCENT: f64 = 5.0;

/// A cap counts as binding in a measurement when the traffic on it is at least this share of
/// it (the same 5 % as agreement).
pub const BINDING_SHARE: f64 = 0.95;

/// The workload the rehearsal runs: the requirement's IO sizes, mix and rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RehearsalWorkload {
    /// Read IO size, bytes.
    pub read_bs_bytes: u64,
    /// Write IO size, bytes.
    pub write_bs_bytes: u64,
    /// Share of IOs that are reads, 0 to 1.
    pub read_fraction: f64,
    /// Share of IOs at random offsets, 0 to 1 (1 unless the requirement says `random=`).
    pub random_fraction: f64,
    /// The rate the run is paced at (the requirement's IOPS); `None`: as fast as the caps allow.
    pub rate_iops: Option<f64>,
    /// IOs kept in flight.
    pub queue_depth: u32,
    /// Where the queue depth comes from.
    pub queue_depth_basis: String,
}

/// What to build and run for a rehearsal of one evaluated configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RehearsalSetup {
    /// `Standard_D8s_v5 + 4 x P30 (cache ReadOnly)`.
    pub configuration: String,
    /// Disks in the stripe.
    pub disk_count: u32,
    /// Each disk's IOPS cap.
    pub disk_iops: Option<f64>,
    /// Each disk's MiB/s cap.
    pub disk_mibps: Option<f64>,
    /// The VM's uncached IOPS cap (the in-engine cap).
    pub vm_iops: Option<f64>,
    /// The VM's uncached MiB/s cap.
    pub vm_mibps: Option<f64>,
    /// The stripe chunk the plan advises, KiB (64 for one disk).
    pub planned_chunk_kib: u32,
    /// The chunk the rehearsal stripes at, KiB (btrfs's).
    pub chunk_kib: u32,
    /// The workload.
    pub workload: RehearsalWorkload,
    /// The prediction the rehearsal is held against.
    pub prediction: PointPrediction,
    /// What the reader must know: a chunk other than the plan's, caps not emulated.
    pub notes: Vec<String>,
}

fn refused(reason: impl Into<String>) -> PlanError {
    PlanError::Rehearsal(reason.into())
}

/// The rehearsal of `evaluation`: its configuration's caps, the requirement's workload at the
/// plan's queue depth, the chunk. Refused (with the reason) where the rehearsal could not
/// stand for the plan: no IO size, cache hits or local SSD IO (no host cache is emulated), a
/// configuration that cannot be built.
pub fn setup(evaluation: &Evaluation) -> Result<RehearsalSetup, PlanError> {
    let demand = &evaluation.demand;
    if !evaluation.possible {
        return Err(refused(
            "the configuration cannot be built (see the plan): nothing to rehearse",
        ));
    }
    let Some((read_bs_bytes, write_bs_bytes)) = demand.io_sizes() else {
        return Err(refused(
            "the requirement has no IO size: give bs= in --workload (e.g. bs=8k)",
        ));
    };
    if demand.local_fraction > 0.0
        || (evaluation.cache != crate::HostCache::None && demand.cache_hit_fraction > 0.0)
    {
        return Err(refused(
            "the host cache and the local SSD are not emulated: give cache-hit=0 and local=0, \
             or --cache None, to rehearse the disk path",
        ));
    }
    let prediction = evaluation
        .points
        .iter()
        .find(|p| matches!(p.basis, crate::model::Basis::Iops { .. }))
        .cloned()
        .ok_or_else(|| refused("the plan has no IOPS point to rehearse"))?;
    let cap = |kind: CapKind| {
        evaluation
            .caps
            .iter()
            .find(|c| c.kind == kind)
            .and_then(|c| c.value)
    };
    let n = f64::from(evaluation.disk_count.max(1));
    let advice = &evaluation.queue_depth;
    let (queue_depth, queue_depth_basis) = match demand.queue_depth {
        Some(qd) => (qd.max(1), format!("qd={qd} of the requirement")),
        None => (
            advice.for_peak.1.max(1),
            format!(
                "the plan's stripe rule: 16 per disk x {} disks",
                evaluation.disk_count
            ),
        ),
    };
    let planned_chunk_kib = evaluation
        .stripe
        .as_ref()
        .map_or(BTRFS_CHUNK_KIB, |s| s.stripe_kib);
    let mut notes = Vec::new();
    if planned_chunk_kib != BTRFS_CHUNK_KIB {
        notes.push(format!(
            "the plan advises a {planned_chunk_kib} KiB stripe; btrfs raid0's is fixed at \
             {BTRFS_CHUNK_KIB} KiB, so the rehearsal stripes at {BTRFS_CHUNK_KIB} KiB: an IO \
             is split into {BTRFS_CHUNK_KIB} KiB pieces where the plan's stripe would cut \
             {planned_chunk_kib} KiB ones ({} pieces per {} IO instead of {})",
            group(pieces_per_io(
                read_bs_bytes.max(write_bs_bytes),
                BTRFS_CHUNK_KIB
            )),
            io_size_text(read_bs_bytes.max(write_bs_bytes)),
            group(pieces_per_io(
                read_bs_bytes.max(write_bs_bytes),
                planned_chunk_kib
            )),
        ));
    }
    if evaluation.burst.is_some() {
        notes.push(
            "burst credits are not emulated: the rehearsal runs at the sustained caps".into(),
        );
    }
    let (disk_iops, disk_mibps) = (cap(CapKind::DiskIops), cap(CapKind::DiskMibps));
    Ok(RehearsalSetup {
        configuration: evaluation.configuration.clone(),
        disk_count: evaluation.disk_count,
        disk_iops: disk_iops.map(|v| v / n),
        disk_mibps: disk_mibps.map(|v| v / n),
        vm_iops: cap(CapKind::VmUncachedIops),
        vm_mibps: cap(CapKind::VmUncachedMibps),
        planned_chunk_kib,
        chunk_kib: BTRFS_CHUNK_KIB,
        workload: RehearsalWorkload {
            read_bs_bytes,
            write_bs_bytes,
            read_fraction: demand.read_fraction,
            random_fraction: demand.random_fraction.unwrap_or(1.0),
            rate_iops: prediction.required_iops,
            queue_depth,
            queue_depth_basis,
        },
        prediction,
        notes,
    })
}

/// What `plan --rehearse` builds and runs: the answer's configuration ([`evaluation_of`]),
/// its [`setup`], and the scale (`--rehearse-size`, `--rehearse-time`: [`parse_scale`]).
pub fn prepare(
    catalog: &crate::Catalog,
    demand: &crate::Demand,
    answer: &crate::Answer,
    request: &crate::Request,
    size: &str,
    time: &str,
) -> Result<(RehearsalSetup, u64, std::time::Duration), PlanError> {
    let (disk_bytes, runtime) = parse_scale(size, time)?;
    let evaluation = evaluation_of(catalog, demand, answer, request)?;
    Ok((setup(&evaluation)?, disk_bytes, runtime))
}

/// `--rehearse-size` (each disk, default 1 GiB) and `--rehearse-time` (the measured runtime,
/// default 20 s), read as fio reads sizes and times; a disk under 256 MiB is too small for
/// btrfs's chunks on every disk, a runtime under 2 s too short to measure.
pub fn parse_scale(size: &str, time: &str) -> Result<(u64, std::time::Duration), PlanError> {
    use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
    let size_bytes = parse_size(size, KbBase::Binary)
        .map_err(|e| refused(format!("--rehearse-size {size}: {e}")))?;
    if size_bytes < 256 << 20 {
        return Err(refused(format!(
            "--rehearse-size {size}: at least 256m per disk (btrfs raid0 needs room for its chunks on every disk)"
        )));
    }
    let ns = parse_time_ns(time, TimeUnit::Seconds)
        .map_err(|e| refused(format!("--rehearse-time {time}: {e}")))?;
    if ns < 2_000_000_000 {
        return Err(refused(format!("--rehearse-time {time}: at least 2s")));
    }
    Ok((size_bytes, std::time::Duration::from_nanos(ns)))
}

/// The evaluation a rehearsal builds: the answer's own, or with `--optimize` the cheapest
/// configuration's (evaluated again, as `--vm V --disks NxT` would be).
pub fn evaluation_of(
    catalog: &crate::Catalog,
    demand: &crate::Demand,
    answer: &crate::Answer,
    request: &crate::Request,
) -> Result<Evaluation, PlanError> {
    match answer {
        crate::Answer::Evaluation(e) => Ok((**e).clone()),
        crate::Answer::IoSizes(_) => Err(refused(
            "--io-sizes tabulates caps and has no workload: rehearse a --workload instead",
        )),
        crate::Answer::Optimisation(o) => {
            let best = (o.priced.first().or(o.unpriced.first()))
                .ok_or_else(|| refused("nothing meets the requirement: nothing to rehearse"))?;
            let disks = format!("{}x{}", best.disk_count, best.disk);
            let cache = best.cache.to_string();
            let again = crate::Request {
                vm: best.vm.as_deref(),
                disks: Some(&disks),
                cache: Some(&cache),
                optimize: None,
                family: None,
                cloud: None,
                io_sizes: None,
                ..request.clone()
            };
            match crate::answer(catalog, demand, &again)? {
                crate::Answer::Evaluation(e) => Ok(*e),
                _ => Err(refused("the cheapest configuration could not be evaluated")),
            }
        }
    }
}

/// `8 KiB`, `1 MiB`: an IO size for a note.
fn io_size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", group(bytes as f64 / 1024.0))
    }
}

/// How many pieces a stripe at `chunk_kib` cuts an IO of `bytes` into, on average, for IOs
/// aligned to their size (fio's and diskmeter's default `blockalign`): one, plus the chunk
/// boundaries it crosses, (bytes - gcd(bytes, chunk)) / chunk. 8 KiB at 64 KiB: 1; 1 MiB:
/// 16; 96 KiB: 2.
pub fn pieces_per_io(bytes: u64, chunk_kib: u32) -> f64 {
    let chunk = u64::from(chunk_kib) * 1024;
    if bytes == 0 || chunk == 0 {
        return 1.0;
    }
    let (mut a, mut b) = (bytes, chunk);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    1.0 + (bytes - a) as f64 / chunk as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, Configuration, Demand, HostCache};

    fn evaluation(vm: &str, workload: &str) -> Evaluation {
        let catalog = Catalog::builtin();
        let demand = Demand::default().adjusted(Some(workload), None).unwrap();
        let config = Configuration {
            vm: Some(catalog.vm(vm).unwrap()),
            disk: catalog.disk("P30").unwrap(),
            disk_count: 4,
            cache: HostCache::None,
        };
        crate::evaluate(&catalog, &config, &demand).unwrap()
    }

    #[test]
    fn pieces_follow_the_chunk_boundaries() {
        assert_eq!(pieces_per_io(8 << 10, 64), 1.0);
        assert_eq!(pieces_per_io(64 << 10, 64), 1.0);
        assert_eq!(pieces_per_io(1 << 20, 64), 16.0);
        assert_eq!(pieces_per_io(96 << 10, 64), 2.0);
        assert_eq!(pieces_per_io(1 << 20, 256), 4.0);
    }

    #[test]
    fn a_vm_cap_below_the_disks_binds_in_the_plan_and_the_measurement() {
        let e = evaluation("Standard_D8s_v5", "iops=16000,bs=8k,read=100%");
        let s = setup(&e).unwrap();
        assert_eq!((s.vm_iops, s.disk_iops), (Some(12_800.0), Some(5_000.0)));
        assert_eq!(s.workload.queue_depth, 64);
        assert!(s.notes.is_empty());
        let disk = |device: &str| MeasuredDisk {
            device: device.into(),
            iops: 3_200.0,
            mibps: 25.0,
            iops_half_width: Some(20.0),
            mibps_half_width: Some(0.2),
        };
        let measured = Measured {
            iops: 12_790.0,
            mibps: 99.9,
            iops_half_width: Some(2.0),
            mibps_half_width: Some(0.1),
            disks: vec![disk("/dev/loop0"), disk("/dev/loop1")],
        };
        let c = compare(&s, &measured);
        assert_eq!(c.predicted_limit, "VM uncached cap 12,800 IOPS");
        assert_eq!(c.measured_limit, c.predicted_limit);
        assert_eq!(c.agreement, Agreement::Agrees, "{c:#?}");
        let total = c.paths.last().unwrap();
        assert!(total.iops_difference_percent.unwrap().abs() < 0.1);
        // Half the measured rate: neither the figures nor the limit agree.
        let slow = Measured {
            iops: 6_400.0,
            mibps: 50.0,
            ..measured
        };
        assert_eq!(compare(&s, &slow).agreement, Agreement::Differs);
    }

    #[test]
    fn a_chunk_other_than_btrfs_s_is_named_and_large_ios_are_split() {
        let e = evaluation("Standard_D8s_v5", "mibps=1000,bs=1m,read=100%,random=0");
        let s = setup(&e).unwrap();
        assert_eq!((s.planned_chunk_kib, s.chunk_kib), (256, 64));
        assert!(
            s.notes[0].contains("16 pieces per 1 MiB IO instead of 4"),
            "{:?}",
            s.notes
        );
        let measured = Measured {
            iops: 290.0,
            mibps: 290.0,
            iops_half_width: None,
            mibps_half_width: None,
            disks: vec![MeasuredDisk {
                device: "/dev/loop0".into(),
                iops: 1_160.0,
                mibps: 72.5,
                iops_half_width: None,
                mibps_half_width: None,
            }],
        };
        let c = compare(&s, &measured);
        // Without emulated disks the summed disk caps were one in-engine cap: at 800 MiB/s
        // over 4 disks, the disks' bandwidth binds.
        let alone = Measured {
            iops: 800.0,
            mibps: 800.0,
            iops_half_width: None,
            mibps_half_width: None,
            disks: Vec::new(),
        };
        let four = evaluation("Standard_D64s_v5", "mibps=1000,bs=1m,read=100%,random=0");
        let c4 = compare(&setup(&four).unwrap(), &alone);
        assert_eq!(c4.measured_limit, "disk cap 200 MiB/s");
        assert_eq!(c4.predicted_limit, c4.measured_limit);
        // 290 IOs of 1 MiB a second over 4 disks: 16 pieces each, 1,160 per disk.
        assert_eq!(c.paths[0].predicted_iops, Some(1_160.0));
    }

    #[test]
    fn a_demand_at_the_capacity_names_the_cap_and_one_below_it_the_demand() {
        let measured = |iops: f64| Measured {
            iops,
            mibps: iops * 8.0 / 1024.0,
            iops_half_width: None,
            mibps_half_width: None,
            disks: Vec::new(),
        };
        // 4 x P30 on a D64s_v5: 20,000 IOPS of disks. Asked 19,500: the disks bind.
        let e = evaluation("Standard_D64s_v5", "iops=19500,bs=8k");
        let c = compare(&setup(&e).unwrap(), &measured(19_500.0));
        assert_eq!(c.predicted_limit, "disk cap 5,000 IOPS");
        assert_eq!(c.measured_limit, c.predicted_limit);
        // Asked 2,000: the demand, and no path names a cap.
        let e = evaluation("Standard_D64s_v5", "iops=2000,bs=8k");
        let c = compare(&setup(&e).unwrap(), &measured(2_000.0));
        assert_eq!(c.predicted_limit, "the demand (2,000 IOPS, paced)");
        assert_eq!(
            (c.measured_limit.as_str(), c.agreement),
            (c.predicted_limit.as_str(), Agreement::Agrees)
        );
        assert_eq!(c.paths[0].predicted_limit, "not binding");
    }

    #[test]
    fn an_interval_across_the_band_s_edge_is_within_noise() {
        let p = Some(1_000.0);
        assert_eq!(Agreement::of(1_010.0, Some(20.0), p), Agreement::Agrees);
        assert_eq!(
            Agreement::of(1_040.0, Some(20.0), p),
            Agreement::WithinNoise
        );
        assert_eq!(Agreement::of(1_080.0, Some(20.0), p), Agreement::Differs);
        assert_eq!(Agreement::of(940.0, None, p), Agreement::Differs);
        assert_eq!(Agreement::of(5.0, None, None), Agreement::Agrees);
    }

    #[test]
    fn refusals_say_why() {
        let mut e = evaluation("Standard_D8s_v5", "iops=1000");
        let no_size = setup(&e).unwrap_err().to_string();
        assert!(no_size.contains("bs="), "{no_size}");
        e = evaluation("Standard_D8s_v5", "iops=1000,bs=8k,local=0.5");
        assert!(setup(&e).unwrap_err().to_string().contains("local"));
    }
}
