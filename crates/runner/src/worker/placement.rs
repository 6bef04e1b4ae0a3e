//! Where a worker's offsets come from: its offset generator over the targets' regions (or
//! a strided zone of them, `zones.rs`), with the job's pattern, alignment grid, random share
//! and `rw=...:N` modifier, and fio's `rw_sequencer=identical`, under which the worker
//! repeats each offset itself; and whether the job keeps fio's shrinking random map.

use super::{Shape, WorkerContext};
use crate::file_service::FileChooser;
use crate::offsets::{FileRegion, OffsetGenerator, OffsetPattern};
use crate::prepare::TargetPlan;
use diskmeter_workload::{BlockSizeSpread, Direction, JobSpec, RandomDistribution};
use std::sync::Arc;

/// The offset generator of a worker: its targets' regions, the job's pattern, and the grid
/// random offsets fall on.
pub(super) fn offsets_for(ctx: &WorkerContext<'_>, shape: &Shape) -> OffsetGenerator {
    let regions: Vec<FileRegion> = ctx.targets.iter().map(|(_, t)| region_of(t)).collect();
    let file_sizes: Vec<u64> = ctx.targets.iter().map(|(_, t)| t.file_size_bytes).collect();
    offsets_for_regions(ctx, shape, &regions)
        .with_pass_limit(pass_limit(ctx))
        .with_file_sizes(&file_sizes)
}

/// How many times a file's random map may fill before the file is done: `loops` for a
/// size-based job, none for a time-based one or one given `io_size` (fio's `keep_running`
/// starts another pass until `io_size` is done). Strided zones keep no limit (their
/// regions move).
fn pass_limit(ctx: &WorkerContext<'_>) -> Option<u64> {
    let job = ctx.job;
    (ctx.plan.io_limit_bytes.is_some() && job.io_size_bytes.is_none() && !job.time_based)
        .then(|| u64::from(job.loops.max(1)))
}

/// `N` of `rw=rand...:N` when `rw_sequencer=identical` repeats each random offset N times.
pub(super) fn identical_every(job: &JobSpec) -> Option<u64> {
    let identical = job.control.rw_sequencer == diskmeter_workload::control::Sequencer::Identical;
    (identical && job.rw.is_random() && job.rw_offset_modifier > 1)
        .then_some(job.rw_offset_modifier as u64)
}

/// The offset pattern of `job`: fio's random map unless `norandommap`, a `blockalign` or a
/// skewed distribution turns it off.
fn pattern_of(job: &JobSpec) -> OffsetPattern {
    let no_map = job.norandommap
        || job.blockalign_bytes.read.is_some()
        || job.blockalign_bytes.write.is_some();
    match (job.rw.is_random(), job.random_distribution.clone(), no_map) {
        (false, _, _) => OffsetPattern::Sequential,
        (true, RandomDistribution::Uniform, false) => OffsetPattern::RandomMap,
        (true, RandomDistribution::Uniform, true) => OffsetPattern::Uniform,
        (true, skewed, _) => OffsetPattern::Skewed(skewed),
    }
}

/// True when the job's random IO keeps fio's bitmap and shrinks IOs to the free run at their
/// offset: the random map is on and a direction's sizes vary (`bssplit`, `bsrange`), so an
/// IO may cover more than one of its direction's smallest blocks. Fixed sizes keep the
/// permutation: each IO is one block of its direction (fio marks in the direction's own
/// `min_bs`, so `bs=4k,64k` shrinks nothing there either). Left out:
/// trims (a trimwrite's write must cover its trim), `rw_sequencer=identical` (it repeats
/// offsets on purpose) and emulated zoned devices (zones place writes themselves).
pub(super) fn shrinks(job: &JobSpec, sized: &JobSpec, issues: [bool; 2]) -> bool {
    if pattern_of(job) != OffsetPattern::RandomMap
        || super::trims::Trims::active_for(job)
        || identical_every(job).is_some()
        || job.control.zbd_zones().is_some()
    {
        return false;
    }
    Direction::BOTH
        .into_iter()
        .filter(|d| issues[d.index()])
        .any(|d| !matches!(sized.bs_spread.get_ref(d), BlockSizeSpread::Fixed))
}

/// The block of each direction's random map: its alignment (its smallest size); a direction
/// the job does not do takes the other's, so no map is kept for it.
fn map_blocks(issues: [bool; 2], align: [u64; 2]) -> [u64; 2] {
    match issues {
        [true, false] => [align[0]; 2],
        [false, true] => [align[1]; 2],
        _ => align,
    }
}

/// The grid random offsets fall on: the smallest alignment of the directions the job does.
fn grid_of(issues: [bool; 2], align: [u64; 2]) -> u64 {
    Direction::BOTH
        .into_iter()
        .filter(|d| issues[d.index()])
        .map(|d| align[d.index()])
        .min()
        .unwrap_or(4096)
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
    let grid = grid_of(shape.issues, shape.align);
    let pattern = pattern_of(job);
    // Under rw_sequencer=identical the worker repeats offsets itself; the generator gives
    // a new random one each time it is asked.
    let modifier = match identical_every(job) {
        Some(_) => 0,
        None => job.rw_offset_modifier,
    };
    let mut offsets = OffsetGenerator::new(regions, pattern, grid, ctx.plan.seed)
        .with_shrinking_map(shape.shrinks, map_blocks(shape.issues, shape.align))
        .with_random_percent(job.percentage_random)
        .with_offset_modifier(modifier)
        .with_file_chooser(FileChooser::for_regions(job, regions, ctx.plan.seed));
    if let Some(shared) = &ctx.shared_positions {
        offsets = offsets.with_shared_positions(Arc::clone(shared));
    }
    offsets
}
