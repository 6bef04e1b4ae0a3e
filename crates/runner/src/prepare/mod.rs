//! Preparing a run (named `prepare`, apart from the `diskmeter-plan` planner): resolution of
//! job specs into a serialisable run plan: which files, which byte ranges, how many workers,
//! which rates. The runner executes only plans; `--dry-run` prints one.
//!
//! Resolving looks at the file system (sizes, device or file, who created a file) but never
//! writes: layout and safety refusals happen on the resolved plan.

use crate::safety::{self, TargetKind};
use crate::RunError;
use diskmeter_workload::{EngineKind, JobSpec, PerDirection};
use serde::Serialize;
use std::path::PathBuf;
use target::{check_regions, file_size, plan_target, TargetIndex};

mod target;

/// One file or device a worker does IO on.
#[derive(Debug, Clone, Serialize)]
pub struct TargetPlan {
    /// Path as given or as named by diskmeter (symlinks are resolved for devices).
    pub path: PathBuf,
    /// File or block device.
    pub kind: TargetKind,
    /// First byte of the region IO goes to.
    pub region_start_bytes: u64,
    /// Length of the region IO goes to.
    pub region_len_bytes: u64,
    /// Size the file must have (region end) when diskmeter lays it out; the device size for devices.
    pub file_size_bytes: u64,
    /// What must happen to the file before IO starts.
    pub preparation: Preparation,
    /// diskmeter created the file (now or in an earlier run): it may rewrite and remove it.
    pub created_by_diskmeter: bool,
    /// What a file diskmeter lays out holds before the run.
    pub contents: FileContents,
}

/// What a file diskmeter creates holds before the job's IO starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileContents {
    /// Written fully with random data, so reads read real data (the default, like fio).
    #[default]
    Written,
    /// Sized but not written (fio `create_on_open`: the job's own writes fill it).
    Sparse,
    /// Empty: the job's writes extend it until the filesystem is full (fio `fill_device`).
    Empty,
    /// Sized, its space reserved as `fallocate` says, not written (fio's `overwrite=0` for a
    /// job that only writes).
    Reserved,
}

/// What the runner does with a target before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Preparation {
    /// Use as it is (a device, a user's file that is only read, or a file of ours of the right size).
    UseExisting,
    /// Create the file and write it fully (diskmeter owns it and may remove it).
    Create,
    /// A file diskmeter created earlier but with the wrong size: write it again.
    Recreate,
}

/// One worker thread: a clone of a job.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerPlan {
    /// Index of the job in the run.
    pub job_index: usize,
    /// Clone number within the job, 0..numjobs.
    pub clone_index: u32,
    /// Reporting group (fio's `groupid`: `stonewall` and `new_group` start a new one).
    pub group_id: u32,
    /// Start order: workers of phase `n` start when every worker of earlier phases has
    /// finished (`stonewall`).
    pub phase: u32,
    /// Targets of this worker (indices into the run's target list).
    pub targets: Vec<usize>,
    /// IOs in flight after clamping to the engine's limit.
    pub iodepth: u32,
    /// IOs per submit call.
    pub submit_batch: u32,
    /// Bytes this worker transfers before stopping (size-based runs); `None` for time-only limits.
    pub io_limit_bytes: Option<u64>,
    /// Time limit after the ramp, nanoseconds.
    pub runtime_ns: Option<u64>,
    /// Seed of this worker's generators (distinct per clone).
    pub seed: u64,
    /// Minimum interval between IOs per direction, nanoseconds (from rate or rate_iops).
    pub rate_period_ns: PerDirection<Option<u64>>,
    /// fio's log files this worker writes (`write_bw_log` and the like).
    pub logs: Vec<crate::logs::LogFile>,
    /// Its CPUs, memory policy and priorities (`cpus_allowed`, `numa_*`, `nice`, `prio`).
    pub placement: crate::placement::Placement,
}

/// Everything the runner will do, resolved.
#[derive(Debug, Clone, Serialize)]
pub struct RunPlan {
    /// The jobs as specified.
    pub jobs: Vec<JobSpec>,
    /// All targets, shared by workers that name the same file.
    pub targets: Vec<TargetPlan>,
    /// One entry per worker thread.
    pub workers: Vec<WorkerPlan>,
    /// Remarks the user should see (clamped depths and the like).
    pub notes: Vec<String>,
    /// Caps every worker of the run shares (the in-engine throttle); unlimited by default.
    pub throttle: crate::ThrottleLimits,
    /// The run is one rank of a run across hosts ([`PlanOptions::files_shared_by_ranks`]).
    pub files_shared_by_ranks: bool,
}

/// Choices from the command line that shape the plan.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// Folder for files diskmeter names itself when a job has no `directory`.
    pub default_directory: Option<PathBuf>,
    /// Caps shared by every worker of the run (`--throttle-iops`, `--throttle-bw`).
    pub throttle: crate::ThrottleLimits,
    /// Run the jobs' `exec_prerun` and `exec_postrun` commands (`--allow-exec`); without it
    /// a job that has them is refused.
    pub allow_exec: bool,
    /// The run is one rank of a run across hosts, whose ranks may share files: each needs a
    /// different end of a shared file and the rank whose region reaches furthest lays it
    /// out first, so a file diskmeter made that is larger than a job's region needs is used
    /// as it is rather than made again at the size needed; and a file a rank finds laid out
    /// is another rank's as much as its own, so it removes only the files it laid out.
    pub files_shared_by_ranks: bool,
}

/// IOs per submit call when the job leaves `iodepth_batch_submit` unset (fio: 1). The queue
/// is refilled whenever a slot frees, so depth is unchanged; measured against fio 3.33 on a
/// virtio disk (bench/RESULTS.md), batches of 4 kept IOPS level (ratio 1.03 at 4k QD 32) at
/// about 0.7x fio's CPU per IO, where batches of 1 cost 0.85x.
pub const DEFAULT_SUBMIT_BATCH: u32 = 4;

/// Refuses a run of more workers or files than a run may have, before any is planned: each
/// job's own `numjobs` and `nrfiles` are within their rows' limits, but a run adds them up,
/// and planning a billion files would exhaust memory before anything could say why.
fn check_counts(jobs: &[JobSpec]) -> Result<(), RunError> {
    use diskmeter_workload::{MAX_FILES_PER_RUN, MAX_WORKERS_PER_RUN};
    let (mut workers, mut files) = (0u64, 0u64);
    for job in jobs {
        let clones = u64::from(job.numjobs);
        let per_clone = (job.nrfiles.max(1) as u64).max(job.filenames.len() as u64);
        workers = workers.saturating_add(clones);
        files = files.saturating_add(clones.saturating_mul(per_clone));
        let refusal = if workers > MAX_WORKERS_PER_RUN {
            format!(
                "the run's jobs make {workers} workers (numjobs) up to this one; a run has at \
                 most {MAX_WORKERS_PER_RUN}, as fio runs at most 4,096 jobs in all"
            )
        } else if files > MAX_FILES_PER_RUN {
            format!(
                "the run's jobs name {files} files (numjobs x nrfiles) up to this one; a run \
                 has at most {MAX_FILES_PER_RUN}, since every file is planned before it starts"
            )
        } else {
            continue;
        };
        return Err(RunError::Job {
            job: job.name.clone(),
            message: refusal,
        });
    }
    Ok(())
}

/// Resolves `jobs` into a plan. Reads file metadata; writes nothing.
pub fn resolve(jobs: &[JobSpec], options: &PlanOptions) -> Result<RunPlan, RunError> {
    // A replay becomes a job on the log's files, with the log's directions and sizes.
    let mut scans = Vec::with_capacity(jobs.len());
    let mut planned_jobs = Vec::with_capacity(jobs.len());
    for job in jobs {
        let (planned, scan) = crate::replay::plan_job(job)?;
        planned_jobs.push(planned);
        scans.push(scan);
    }
    let jobs = &planned_jobs[..];
    check_counts(jobs)?;
    let mut plan = RunPlan {
        jobs: jobs.to_vec(),
        targets: Vec::new(),
        workers: Vec::new(),
        notes: Vec::new(),
        throttle: options.throttle,
        files_shared_by_ranks: options.files_shared_by_ranks,
    };
    plan.notes.extend(options.throttle.checked_notes()?);
    let (mut group_id, mut phase) = (0u32, 0u32);
    let mut index = TargetIndex::default();
    // Every file a job or clone has taken so far (fio's "already allocated" list).
    let mut allocated = std::collections::HashSet::new();
    for (job_index, job) in jobs.iter().enumerate() {
        // fio: stonewall and new_group start a new group unless this is the first job;
        // stonewall also waits for every job before it.
        if job_index > 0 && (job.stonewall || job.new_group) {
            group_id += 1;
        }
        if job_index > 0 && job.stonewall {
            phase += 1;
        }
        plan.notes
            .extend(diskmeter_workload::fio_reading_notes(job));
        let caps = diskmeter_engine::capabilities_of(engine_choice(job.ioengine));
        let iodepth = match caps.max_iodepth {
            Some(max) if job.iodepth > max => {
                plan.notes.push(format!(
                    "job {}: the {} engine keeps {max} IO in flight per worker; iodepth={} has no effect (use numjobs)",
                    job.name,
                    job.ioengine.as_str(),
                    job.iodepth
                ));
                max
            }
            _ => job.iodepth,
        };
        diskmeter_engine::check_capabilities(
            engine_choice(job.ioengine),
            job.fixedbufs,
            job.registerfiles,
        )
        .map_err(|e| RunError::Job {
            job: job.name.clone(),
            message: e.to_string(),
        })?;
        crate::engine_options::check_job(job)?;
        crate::exec::check(job, options.allow_exec)?;
        let submit_batch = match job.iodepth_batch_submit {
            0 => DEFAULT_SUBMIT_BATCH.min(iodepth),
            n => n.min(iodepth),
        };
        // fio's opendir: every file below the folder joins the job's filename list.
        let opened_dir;
        let job = match &job.files.opendir {
            Some(folder) => {
                opened_dir = JobSpec {
                    filenames: job
                        .filenames
                        .iter()
                        .cloned()
                        .chain(crate::file_service::files_below(job, folder)?)
                        .collect(),
                    ..job.clone()
                };
                &opened_dir
            }
            None => job,
        };
        let shared_paths = !job.filenames.is_empty();
        let mut shared_targets: Option<Vec<usize>> = None;
        for clone_index in 0..job.numjobs {
            let mut no_io = false;
            // fio's offset_increment: each clone's region starts further in.
            let clone_job;
            let job = if job.offset_increment_bytes > 0 {
                clone_job = JobSpec {
                    offset_bytes: job.offset_bytes.saturating_add(
                        job.offset_increment_bytes
                            .saturating_mul(u64::from(clone_index)),
                    ),
                    ..job.clone()
                };
                &clone_job
            } else {
                job
            };
            let targets = if shared_paths && job.offset_increment_bytes == 0 {
                // fio: clones of a job with an explicit filename share the file.
                if shared_targets.is_none() {
                    shared_targets = Some(resolve_targets(
                        &mut plan.targets,
                        &mut index,
                        job,
                        &job.filenames,
                        options,
                    )?);
                }
                shared_targets.clone().unwrap_or_default()
            } else if shared_paths {
                resolve_targets(&mut plan.targets, &mut index, job, &job.filenames, options)?
            } else {
                let dir = job
                    .directory
                    .clone()
                    .or_else(|| options.default_directory.clone())
                    .unwrap_or_else(|| PathBuf::from("."));
                // fio's filename_format.
                let paths: Vec<PathBuf> = (0..job.nrfiles.max(1))
                    .map(|file| dir.join(job.files.file_name(&job.name, clone_index, file)))
                    .collect();
                let paths = match clone_files(clone_index, paths, &allocated) {
                    CloneFiles::Own(paths) => paths,
                    CloneFiles::None(paths) => {
                        plan.notes.push(format!(
                            "job {} clone {clone_index}: every file it names ({}) is taken by an \
                             earlier job or clone, so as in fio it does no IO (fio's clones \
                             leave out files already allocated; put $jobnum in \
                             filename_format to give each clone its own)",
                            job.name,
                            paths[0].display()
                        ));
                        no_io = true;
                        paths
                    }
                };
                resolve_targets(&mut plan.targets, &mut index, job, &paths, options)?
            };
            for &t in &targets {
                allocated.insert(plan.targets[t].path.clone());
            }
            crate::engine_options::check_targets(job, &targets, &plan.targets)?;
            crate::zbd::check_targets(job, &targets, &plan.targets)?;
            check_regions(job, &targets, &plan.targets, &mut plan.notes)?;
            let region_total: u64 = targets
                .iter()
                .map(|&t| plan.targets[t].region_len_bytes)
                .sum();
            if let Some(scan) = &scans[job_index] {
                crate::replay::check_reach(job, scan, &targets, &plan.targets)?;
            }
            let io_limit_bytes = if job.time_based || scans[job_index].is_some() {
                // A replay ends with its log.
                None
            } else {
                Some(io_limit(job, &targets, &plan.targets, region_total))
            };
            // fio's create_only: the files are laid out and the job does no IO.
            let (io_limit_bytes, runtime_ns) = if job.files.create_only || no_io {
                (Some(0), Some(0))
            } else {
                (io_limit_bytes, job.runtime_ns)
            };
            let rate_period_ns = PerDirection {
                read: rate_period(job, diskmeter_workload::Direction::Read),
                write: rate_period(job, diskmeter_workload::Direction::Write),
            };
            // fio numbers log files by thread over the whole run, from 1.
            let logs = crate::logs::log_files(job, plan.workers.len() + 1);
            let placement = crate::placement::for_worker(job, plan.workers.len() + 1)?;
            plan.workers.push(WorkerPlan {
                job_index,
                clone_index,
                group_id,
                phase,
                targets,
                iodepth,
                submit_batch,
                io_limit_bytes,
                runtime_ns,
                seed: job_seed(job)
                    ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(clone_index as u64 + 1)),
                rate_period_ns,
                logs,
                placement,
            });
        }
    }
    for (job, scan) in jobs.iter().zip(&scans) {
        if let Some(scan) = scan {
            plan.notes.push(crate::replay::describe(job, scan));
        }
    }
    crate::monitor::check_groups(&plan)?;
    Ok(plan)
}

/// How many bytes a size-based worker does, as fio counts them (fio's `setup_files` and
/// `do_io`): `io_size` when given; else each target's region in whole blocks of the job's
/// smallest block size (fio does the whole blocks inside a size that is not a multiple of
/// them: 999,424 bytes of `size=1000000 bs=4k`), once per loop. With `filesize`, `size`
/// says how much IO to do, but no more than the files hold (fio lowers `size` to the files'
/// total). Random writes without a random map are not bounded by the blocks (an offset may
/// repeat), so they do `size` itself, as fio does.
fn io_limit(job: &JobSpec, targets: &[usize], planned: &[TargetPlan], region_total: u64) -> u64 {
    if let Some(io_size) = job.io_size_bytes {
        return io_size;
    }
    let loops = u64::from(job.loops.max(1));
    if job.rw.is_random() && job.norandommap && job.rw.writes() {
        return job
            .filesize_bytes
            .and(job.size_bytes)
            .map_or(region_total, |size| size.min(region_total))
            .saturating_mul(loops);
    }
    let min_bs = smallest_bs_bytes(job);
    let whole_blocks: u64 = targets
        .iter()
        .map(|&t| planned[t].region_len_bytes / min_bs * min_bs)
        .sum();
    match job.filesize_bytes.and(job.size_bytes) {
        Some(size) => size.min(whole_blocks),
        None => whole_blocks.saturating_mul(loops),
    }
}

/// fio's `td_min_bs`: the smallest block size of the directions the job issues.
fn smallest_bs_bytes(job: &JobSpec) -> u64 {
    let mut min = u64::MAX;
    for direction in diskmeter_workload::Direction::BOTH {
        let issues = match direction {
            diskmeter_workload::Direction::Read => job.rw.reads(),
            diskmeter_workload::Direction::Write => job.rw.writes(),
        };
        if issues {
            min = min.min(job.bs_bounds(direction).0);
        }
    }
    if min == u64::MAX {
        min = job.bs_bounds(diskmeter_workload::Direction::Read).0;
    }
    min.max(1)
}

/// The files a clone of a job does IO on.
enum CloneFiles {
    /// Its own (all it names, or those no earlier job or clone has).
    Own(Vec<PathBuf>),
    /// None: every file it names is allocated already, so it does no IO (the paths are kept
    /// for its report).
    None(Vec<PathBuf>),
}

/// fio's `add_file`: a clone (numjobs' second worker on) leaves out each file another job
/// or clone already has, unless it exists and is not a regular file (a device), and does no
/// IO when none is left. fio 3.33 on the null engine: with `numjobs=2` and
/// `filename_format=shared.$filenum`, the first clone does the file and the second nothing.
fn clone_files(
    clone_index: u32,
    paths: Vec<PathBuf>,
    allocated: &std::collections::HashSet<PathBuf>,
) -> CloneFiles {
    if clone_index == 0 {
        return CloneFiles::Own(paths);
    }
    let device_like = |p: &PathBuf| std::fs::metadata(p).is_ok_and(|m| !m.is_file());
    let own: Vec<PathBuf> = paths
        .iter()
        .filter(|p| !allocated.contains(*p) || device_like(p))
        .cloned()
        .collect();
    if own.is_empty() {
        CloneFiles::None(paths)
    } else {
        CloneFiles::Own(own)
    }
}

/// The job's seed: `randseed`, or with `randrepeat=0` mixed with the clock so every run
/// draws a new sequence.
fn job_seed(job: &JobSpec) -> u64 {
    if job.randrepeat {
        return job.randseed;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    job.randseed ^ now.wrapping_mul(0xd605_bbb5_8c8a_bbf7)
}

fn rate_period(job: &JobSpec, direction: diskmeter_workload::Direction) -> Option<u64> {
    if let Some(iops) = job.rate_iops.get(direction).filter(|&r| r > 0) {
        return Some(1_000_000_000 / iops.max(1));
    }
    job.rate_bytes_per_sec
        .get(direction)
        .filter(|&r| r > 0)
        .map(|bytes_per_sec| {
            let bs = job.bs_bytes.get(direction) as u128;
            ((bs * 1_000_000_000) / bytes_per_sec as u128).max(1) as u64
        })
}

/// Resolves one job's paths into target entries (re-using entries already planned for the same path).
fn resolve_targets(
    targets: &mut Vec<TargetPlan>,
    index: &mut TargetIndex,
    job: &JobSpec,
    paths: &[PathBuf],
    options: &PlanOptions,
) -> Result<Vec<usize>, RunError> {
    let even_share = job.size_bytes.map(|s| s / paths.len().max(1) as u64);
    let mut indices = Vec::with_capacity(paths.len());
    for (file_index, path) in paths.iter().enumerate() {
        let per_file_size = file_size(job, paths.len(), file_index, path)?.or(even_share);
        if job.ioengine == EngineKind::Null
            && (job.size_percent.is_some() || job.offset_percent.is_some())
        {
            return Err(RunError::Job {
                job: job.name.clone(),
                message: "size or offset as a percentage needs a file or device to take it from; \
                          the null engine has none"
                    .to_string(),
            });
        }
        if job.ioengine == EngineKind::Null {
            // fio's null engine is diskless: nothing is opened, created or checked.
            let Some(len) = per_file_size else {
                return Err(RunError::Job {
                    job: job.name.clone(),
                    message: "the null engine needs --size (it has no file to take it from)"
                        .to_string(),
                });
            };
            let end = job
                .offset_bytes
                .checked_add(len)
                .ok_or_else(|| RunError::Target {
                    path: path.clone(),
                    message: format!(
                    "offset {} plus {len} bytes ends past the largest file or device (2^64 bytes)",
                    job.offset_bytes
                ),
                })?;
            index.add(path, TargetKind::Virtual, targets.len());
            targets.push(TargetPlan {
                path: path.clone(),
                kind: TargetKind::Virtual,
                region_start_bytes: job.offset_bytes,
                region_len_bytes: len,
                file_size_bytes: end,
                preparation: Preparation::UseExisting,
                created_by_diskmeter: false,
                contents: FileContents::Written,
            });
            indices.push(targets.len() - 1);
            continue;
        }
        let probe = safety::probe_target(path).map_err(|source| RunError::Probe {
            path: path.clone(),
            source,
        })?;
        let mut target = plan_target(job, probe, per_file_size, options.files_shared_by_ranks)?;
        let planned = index.of(&target.path, target.kind);
        if let Some(&first) = planned.first() {
            let same_region = |t: &TargetPlan| {
                t.region_start_bytes == target.region_start_bytes
                    && t.region_len_bytes == target.region_len_bytes
            };
            if let Some(&same) = planned.iter().find(|&&i| same_region(&targets[i])) {
                indices.push(same);
                continue;
            }
            // Another job uses another part of the same file or device (the usual way to
            // split a device): its own region, while the first entry lays the file out to
            // the largest end any job needs.
            // plan_target checked that the region ends within 2^64 bytes.
            let end = target.region_start_bytes + target.region_len_bytes;
            let owner = &mut targets[first];
            if owner.created_by_diskmeter
                && owner.kind == TargetKind::File
                && end > owner.file_size_bytes
            {
                owner.file_size_bytes = end;
                if owner.preparation == Preparation::UseExisting {
                    owner.preparation = Preparation::Recreate;
                }
            }
            target.preparation = Preparation::UseExisting;
            target.created_by_diskmeter = owner.created_by_diskmeter;
            target.file_size_bytes = owner.file_size_bytes;
        }
        index.add(&target.path, target.kind, targets.len());
        targets.push(target);
        indices.push(targets.len() - 1);
    }
    Ok(indices)
}

/// The engine crate's name for a workload engine kind.
pub fn engine_choice(kind: EngineKind) -> diskmeter_engine::EngineChoice {
    match kind {
        EngineKind::IoUring => diskmeter_engine::EngineChoice::IoUring,
        EngineKind::Libaio => diskmeter_engine::EngineChoice::Libaio,
        EngineKind::Psync => diskmeter_engine::EngineChoice::Psync,
        EngineKind::Null => diskmeter_engine::EngineChoice::Null,
    }
}

#[cfg(test)]
mod tests;
