//! The memory guard: a step whose IO buffers would not fit in the memory the machine has
//! available is refused before any file is laid out or any IO issued. Without it such a
//! job is killed by the kernel part way (its results lost with it) or pushes the host into
//! swap, and then measures the swap device instead of the target.
//!
//! What is counted is what the engines really map: each worker's engine makes one mapping of
//! `iodepth` slots, each as long as the job's largest block size over the directions it
//! issues (`bs`, `bsrange`, `bssplit`, a replayed log's largest IO), rounded up to the
//! buffer alignment and the mapping's pages ([`diskmeter_engine::mapped_bytes`]). The engine
//! fills the mapping when it is made, so all of it is resident from the start (the null
//! engine fills a slot when it is first used, so a null job that writes reaches the same; a
//! read-only null job stays below what is counted, which errs on the safe side). `lockmem`
//! pins that much more per worker. Workers of one stonewall phase run at the same time, so
//! their needs add up; phases run one after another, so a step needs its largest phase.
//! The figure it is held against is the kernel's `MemAvailable` (/proc/meminfo): memory a
//! new workload can get without swapping, page cache that can be dropped included.

use crate::prepare::RunPlan;
use diskmeter_units::format_bytes_binary;

/// The alignment the guard assumes for buffer slots: the runner's floor, which is also the
/// logical block size of almost every device (a device with larger blocks costs a little
/// more than counted, never less than a slot's length).
const ASSUMED_ALIGN_BYTES: usize = 4096;

/// What one job's workers in a phase hold in IO buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobBuffers {
    /// The job's name.
    pub job: String,
    /// IOs in flight per worker (buffer slots), after the engine's clamp.
    pub iodepth: u32,
    /// Bytes per slot: the job's largest block size.
    pub block_bytes: u64,
    /// Workers of the job in the phase (its `numjobs`).
    pub workers: u32,
    /// Memory each worker pins with `lockmem`.
    pub lockmem_bytes: u64,
    /// Everything the job's workers map and pin, bytes.
    pub bytes: u64,
}

impl std::fmt::Display for JobBuffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "iodepth {} x bs {} x numjobs {}",
            self.iodepth,
            whole_size(self.block_bytes),
            self.workers
        )?;
        if self.lockmem_bytes > 0 {
            write!(
                f,
                ", and lockmem {} x {}",
                whole_size(self.lockmem_bytes),
                self.workers
            )?;
        }
        Ok(())
    }
}

/// Why a step is refused: its IO buffers need more memory than is available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(self))]
pub struct MemoryShortfall {
    /// The jobs that run at the same time in the phase that needs the most.
    pub jobs: Vec<JobBuffers>,
    /// What they need together, bytes.
    pub needed_bytes: u64,
    /// `MemAvailable`, bytes.
    pub available_bytes: u64,
}

fn describe(shortfall: &MemoryShortfall) -> String {
    let (who, parts) = match shortfall.jobs.as_slice() {
        [one] => (
            format!("job {}: its IO buffers need", one.job),
            one.to_string(),
        ),
        jobs => {
            let names: Vec<&str> = jobs.iter().map(|j| j.job.as_str()).collect();
            let parts: Vec<String> = jobs.iter().map(|j| format!("{}: {j}", j.job)).collect();
            (
                format!(
                    "jobs {}, which run at the same time: their IO buffers need",
                    names.join(", ")
                ),
                parts.join("; "),
            )
        }
    };
    format!(
        "{who} {} ({parts}), more than the {} available (MemAvailable); lower iodepth, bs or \
         numjobs",
        format_bytes_binary(shortfall.needed_bytes),
        format_bytes_binary(shortfall.available_bytes)
    )
}

/// A size as a whole number of its largest unit where it is one (`4 MiB`, `6 KiB`), else
/// with decimals (`1.50 KiB`).
fn whole_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let unit = UNITS.iter().enumerate().rev().find(|(i, _)| {
        let step = 1u64 << (10 * (i + 1));
        bytes >= step && bytes.is_multiple_of(step)
    });
    match unit {
        Some((i, name)) => format!("{} {name}", bytes >> (10 * (i + 1))),
        None if bytes < 1024 => format!("{bytes} B"),
        None => format_bytes_binary(bytes),
    }
}

/// The IO buffers of each stonewall phase of `plan`, by job, in phase order.
pub fn buffer_needs(plan: &RunPlan) -> Vec<Vec<JobBuffers>> {
    let mut phases: Vec<Vec<JobBuffers>> = Vec::new();
    for worker in &plan.workers {
        let phase = worker.phase as usize;
        if phases.len() <= phase {
            phases.resize_with(phase + 1, Vec::new);
        }
        let job = &plan.jobs[worker.job_index];
        let block_bytes = job.max_bs_bytes();
        let mapped = usize::try_from(block_bytes)
            .ok()
            .and_then(|slot| {
                diskmeter_engine::mapped_bytes(worker.iodepth as usize, slot, ASSUMED_ALIGN_BYTES)
            })
            .map_or(u64::MAX, |bytes| bytes as u64);
        let bytes = mapped.saturating_add(job.files.lockmem_bytes);
        let jobs = &mut phases[phase];
        match jobs.iter_mut().find(|j| j.job == job.name) {
            Some(entry) => {
                entry.workers += 1;
                entry.bytes = entry.bytes.saturating_add(bytes);
            }
            None => jobs.push(JobBuffers {
                job: job.name.clone(),
                iodepth: worker.iodepth,
                block_bytes,
                workers: 1,
                lockmem_bytes: job.files.lockmem_bytes,
                bytes,
            }),
        }
    }
    phases
}

/// Refuses `plan` when the phase that needs the most buffer memory needs more than
/// `available_bytes`.
pub fn check_memory(plan: &RunPlan, available_bytes: u64) -> Result<(), MemoryShortfall> {
    let largest = buffer_needs(plan)
        .into_iter()
        .map(|jobs| {
            let needed = jobs.iter().fold(0u64, |sum, j| sum.saturating_add(j.bytes));
            (needed, jobs)
        })
        .max_by_key(|(needed, _)| *needed);
    match largest {
        Some((needed_bytes, jobs)) if needed_bytes > available_bytes => Err(MemoryShortfall {
            jobs,
            needed_bytes,
            available_bytes,
        }),
        _ => Ok(()),
    }
}

/// `MemAvailable` from /proc/meminfo, in bytes; `None` where the kernel does not say (then
/// nothing is refused).
/// The file is read and parsed where every /proc file is: the capture crate's `procfs`.
pub fn available_memory_bytes() -> Option<u64> {
    diskmeter_capture::procfs::ProcFiles::new("/proc").mem_available()
}

/// The `MemAvailable:   23163412 kB` line of a /proc/meminfo text, in bytes.
#[cfg(test)]
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    diskmeter_capture::procfs::parse_mem_available(meminfo)
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
