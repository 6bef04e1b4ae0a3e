//! Where a worker's offsets come from: its offset generator over the targets' regions (or
//! a strided zone of them, `zones.rs`), with the job's pattern, alignment grid, random share
//! and `rw=...:N` modifier, and fio's `rw_sequencer=identical`, under which the worker
//! repeats each offset itself.

use super::{Shape, WorkerContext};
use crate::file_service::FileChooser;
use crate::offsets::{FileRegion, OffsetGenerator, OffsetPattern};
use crate::plan::TargetPlan;
use diskmeter_workload::{Direction, JobSpec, RandomDistribution};
use std::sync::Arc;

/// The offset generator of a worker: its targets' regions, the job's pattern, and the grid
/// random offsets fall on.
pub(super) fn offsets_for(ctx: &WorkerContext<'_>, shape: &Shape) -> OffsetGenerator {
    let regions: Vec<FileRegion> = ctx.targets.iter().map(|(_, t)| region_of(t)).collect();
    offsets_for_regions(ctx, shape, &regions)
}

/// `N` of `rw=rand...:N` when `rw_sequencer=identical` repeats each random offset N times.
pub(super) fn identical_every(job: &JobSpec) -> Option<u64> {
    let identical = job.control.rw_sequencer == diskmeter_workload::control::Sequencer::Identical;
    (identical && job.rw.is_random() && job.rw_offset_modifier > 1)
        .then_some(job.rw_offset_modifier as u64)
}

/// A target's region.
pub(super) fn region_of(target: &TargetPlan) -> FileRegion {
    FileRegion {
        start_bytes: target.region_start_bytes,
        len_bytes: target.region_len_bytes,
    }
}

/// [`offsets_for`] over `regions` instead of the targets' own (a strided zone).
pub(super) fn offsets_for_regions(
    ctx: &WorkerContext<'_>,
    shape: &Shape,
    regions: &[FileRegion],
) -> OffsetGenerator {
    let job = ctx.job;
    let grid = Direction::BOTH
        .into_iter()
        .filter(|d| shape.issues[d.index()])
        .map(|d| shape.align[d.index()])
        .min()
        .unwrap_or(4096);
    let no_map = job.norandommap
        || job.blockalign_bytes.read.is_some()
        || job.blockalign_bytes.write.is_some();
    let pattern = match (job.rw.is_random(), job.random_distribution.clone(), no_map) {
        (false, _, _) => OffsetPattern::Sequential,
        (true, RandomDistribution::Uniform, false) => OffsetPattern::RandomMap,
        (true, RandomDistribution::Uniform, true) => OffsetPattern::Uniform,
        (true, skewed, _) => OffsetPattern::Skewed(skewed),
    };
    // Under rw_sequencer=identical the worker repeats offsets itself; the generator gives
    // a new random one each time it is asked.
    let modifier = match identical_every(job) {
        Some(_) => 0,
        None => job.rw_offset_modifier,
    };
    let mut offsets = OffsetGenerator::new(regions, pattern, grid, ctx.plan.seed)
        .with_random_percent(job.percentage_random)
        .with_offset_modifier(modifier)
        .with_file_chooser(FileChooser::for_regions(job, regions, ctx.plan.seed));
    if let Some(shared) = &ctx.shared_positions {
        offsets = offsets.with_shared_positions(Arc::clone(shared));
    }
    offsets
}
