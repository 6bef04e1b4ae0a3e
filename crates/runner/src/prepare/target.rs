//! One target's part of the plan: its size (`filesize`, `fill_device`) and its region, layout
//! and refusals ([`plan_target`]); what a job's region and `zoned_abs` zones came to on its
//! targets ([`check_regions`]).

use super::*;
use diskmeter_units::format_bytes_binary;
use diskmeter_workload::ZonesPastEnd;
use std::collections::HashMap;

/// Where each file or device is in the plan's list of targets, by path and kind: a job of
/// many files finds whether one is already planned without reading the whole list (a search
/// per file was quadratic: fio's filecreate example, 16 jobs of 31,250 files, took hours
/// to plan; found by fuzzing).
#[derive(Debug, Default)]
pub(super) struct TargetIndex {
    entries: HashMap<(PathBuf, TargetKind), Vec<usize>>,
}

impl TargetIndex {
    /// Notes that `targets[index]` is `path` of `kind`.
    pub(super) fn add(&mut self, path: &std::path::Path, kind: TargetKind, index: usize) {
        self.entries
            .entry((path.to_path_buf(), kind))
            .or_default()
            .push(index);
    }

    /// The indices of `path` of `kind` in the list, in the order they were added.
    pub(super) fn of(&self, path: &std::path::Path, kind: TargetKind) -> &[usize] {
        self.entries
            .get(&(path.to_path_buf(), kind))
            .map_or(&[], Vec::as_slice)
    }
}

/// A file's size from `filesize` (drawn from its range, seeded by the job and the file) or,
/// for `fill_device`, its share of the free space of the folder's filesystem; `None` when
/// neither applies.
pub(super) fn file_size(
    job: &JobSpec,
    files: usize,
    file_index: usize,
    path: &std::path::Path,
) -> Result<Option<u64>, RunError> {
    let bs = job.max_bs_bytes().max(1);
    if let Some((low, high)) = job.filesize_bytes {
        let span = high - low;
        let size = if span == 0 {
            low
        } else {
            let mut state = job_seed(job) ^ (file_index as u64 + 1).wrapping_mul(0x9e37_79b9);
            state ^= state >> 31;
            state = state.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            state ^= state >> 29;
            low + ((state as u128 * (span as u128 + 1)) >> 64) as u64
        };
        return Ok(Some((size / bs * bs).max(bs.min(low))));
    }
    if !job.fill_device || job.ioengine == EngineKind::Null {
        return Ok(None);
    }
    if safety::probe_target(path).is_ok_and(|p| p.kind == TargetKind::BlockDevice) {
        // A device is filled by writing all of it; its size is known.
        return Ok(None);
    }
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let stat = rustix::fs::statvfs(folder).map_err(|e| RunError::Target {
        path: path.to_path_buf(),
        message: format!(
            "fill_device: cannot read the free space of {}: {e}",
            folder.display()
        ),
    })?;
    let free = stat.f_bavail.saturating_mul(stat.f_frsize);
    Ok(Some((free / files.max(1) as u64 / bs * bs).max(bs)))
}

pub(super) fn plan_target(
    job: &JobSpec,
    probe: safety::TargetProbe,
    per_file_size: Option<u64>,
    keep_larger: bool,
) -> Result<TargetPlan, RunError> {
    let bs = job.max_bs_bytes().max(1);
    let target_err = |message: String| RunError::Target {
        path: probe.path.clone(),
        message,
    };
    // Offsets and sizes come from the job as written: their sum can pass 2^64 bytes.
    let end_of = |start: u64, len: u64| {
        start.checked_add(len).ok_or_else(|| {
            target_err(format!(
                "offset {start} plus {len} bytes ends past the largest file or device \
                 (2^64 bytes)"
            ))
        })
    };
    // fio's size=N% and offset=N%: shares of the existing file or device, on block bounds.
    let by_share = job.size_percent.is_some() || job.offset_percent.is_some();
    let (mut start, per_file_size) = if by_share {
        let Some(existing) = probe.existing_size_bytes.filter(|&n| n > 0) else {
            return Err(target_err(
                "size or offset as a percentage needs an existing file or device".to_string(),
            ));
        };
        let share = |p: f64| ((existing as f64 * p / 100.0) as u64) / bs * bs;
        // fio's offset_align: a percentage offset rounds up to a multiple of it.
        let offset_share = |p: f64| match job.control.offset_align_bytes {
            0 => share(p),
            align => ((existing as f64 * p / 100.0) as u64)
                .div_ceil(align)
                .saturating_mul(align),
        };
        let start = end_of(job.offset_bytes, job.offset_percent.map_or(0, offset_share))?;
        let size = match job.size_percent {
            Some(p) => Some(share(p).min(existing.saturating_sub(start))),
            None => per_file_size,
        };
        (start, size)
    } else {
        (job.offset_bytes, per_file_size)
    };
    let fresh = job.fill_device || job.create_on_open;
    let (region_len, file_size, preparation) = match (probe.kind, probe.existing_size_bytes) {
        (TargetKind::BlockDevice, Some(device_size)) => {
            if start >= device_size {
                return Err(target_err(format!(
                    "offset {start} is past the end of the device ({device_size} bytes)"
                )));
            }
            let len = per_file_size
                .unwrap_or(device_size - start)
                .min(device_size - start);
            (len, device_size, Preparation::UseExisting)
        }
        (TargetKind::Virtual, _) | (TargetKind::BlockDevice, None) => {
            return Err(target_err("could not read the device size".to_string()))
        }
        // fio's file_append: the region starts at the file's current end and the job's
        // writes grow the file; what is already in it is never touched.
        (TargetKind::File, Some(existing)) if job.files.file_append => {
            let Some(len) = per_file_size else {
                return Err(target_err(
                    "file_append needs a size: how much to append (e.g. --size=1g)".to_string(),
                ));
            };
            start = end_of(start, existing)?;
            end_of(start, len)?;
            (len, existing, Preparation::UseExisting)
        }
        // DiskSpd's -f: at most this much of a file that is there; one that ends sooner is
        // used as it is (DiskSpd warns and does the same), never laid out larger.
        (TargetKind::File, Some(existing))
            if job.size_capped_by_target && !fresh && per_file_size.is_some() =>
        {
            let size = per_file_size.unwrap_or(existing);
            if start >= existing {
                return Err(target_err(format!(
                    "the file has {existing} bytes, nothing to do past offset {start}"
                )));
            }
            (
                size.min(existing - start),
                existing,
                Preparation::UseExisting,
            )
        }
        (TargetKind::File, Some(existing)) => {
            let len = match per_file_size {
                Some(size) => size,
                None if existing > start => existing - start,
                None => {
                    return Err(target_err(format!(
                    "the file has {existing} bytes, nothing to do past offset {start}; set --size"
                )))
                }
            };
            let needed = end_of(start, len)?;
            let preparation = if probe.created_by_diskmeter {
                // A region given as shares of the file never resizes it; files that start
                // sparse or empty start so every time.
                if fresh {
                    Preparation::Recreate
                } else if existing == needed || ((by_share || keep_larger) && needed <= existing) {
                    Preparation::UseExisting
                } else {
                    Preparation::Recreate
                }
            } else if existing < needed {
                return Err(target_err(format!(
                    "the file has {existing} bytes but the job needs {needed}; it was not created by diskmeter, so it is not resized (lower --size, or name a file that does not exist yet: diskmeter creates its own)"
                )));
            } else {
                Preparation::UseExisting
            };
            let file_size = if probe.created_by_diskmeter && !by_share {
                needed
            } else {
                existing
            };
            (len, file_size, preparation)
        }
        (TargetKind::File, None) => {
            if !job.files.allow_file_create {
                return Err(target_err(
                    "does not exist, and the job says allow_file_create=0".to_string(),
                ));
            }
            let Some(len) = per_file_size else {
                return Err(RunError::Job {
                    job: job.name.clone(),
                    message: format!(
                        "{} does not exist and no size was given; set --size (e.g. --size=1g)",
                        probe.path.display()
                    ),
                });
            };
            (len, end_of(start, len)?, Preparation::Create)
        }
    };
    if region_len < bs {
        return Err(target_err(format!(
            "the region ({region_len} bytes) is smaller than one block ({bs} bytes)"
        )));
    }
    Ok(TargetPlan {
        created_by_diskmeter: probe.kind == TargetKind::File
            && (probe.created_by_diskmeter || preparation != Preparation::UseExisting),
        path: probe.path,
        kind: probe.kind,
        region_start_bytes: start,
        region_len_bytes: region_len,
        file_size_bytes: file_size,
        preparation,
        contents: if job.fill_device {
            FileContents::Empty
        } else if job.create_on_open && !job.rw.reads() {
            // A job that reads needs data to read: reading holes would measure nothing.
            FileContents::Sparse
        } else if job.files.overwrite == Some(false) && !job.rw.reads() {
            FileContents::Reserved
        } else {
            FileContents::Written
        },
    })
}

/// Checks a job's resolved targets against what it asked: notes each target that a capped
/// size (DiskSpd's `-f`) left smaller, and fits `zoned_abs` zones to each region: fio's rule
/// refuses a zone with IO past the end, DiskSpd's drops it and re-weights the rest (noted with
/// the zones used).
pub(super) fn check_regions(
    job: &JobSpec,
    targets: &[usize],
    planned: &[TargetPlan],
    notes: &mut Vec<String>,
) -> Result<(), RunError> {
    let mut note = |text: String| {
        if !notes.contains(&text) {
            notes.push(text);
        }
    };
    let asked = job.size_bytes.map(|s| s / targets.len().max(1) as u64);
    for target in targets.iter().map(|&t| &planned[t]) {
        if let Some(asked) =
            asked.filter(|&a| job.size_capped_by_target && a > target.region_len_bytes)
        {
            note(format!(
                "job {}: {} ends {} in, before the {} from offset {} that -f/MaxFileSize \
                 allows; IO covers the {} there, the file as it is (as DiskSpd does)",
                job.name,
                target.path.display(),
                format_bytes_binary(target.region_start_bytes + target.region_len_bytes),
                format_bytes_binary(asked),
                target.region_start_bytes,
                format_bytes_binary(target.region_len_bytes),
            ));
        }
        let diskmeter_workload::RandomDistribution::ZonedAbs { zones, past_end } =
            &job.random_distribution
        else {
            continue;
        };
        if !job.rw.is_random() {
            continue;
        }
        let fitted = diskmeter_workload::fit_abs_zones(
            zones,
            target.region_len_bytes,
            job.max_bs_bytes().max(1),
            *past_end,
        )
        .map_err(|e| RunError::Job {
            job: job.name.clone(),
            message: format!(
                "{} on {}: {e}",
                match past_end {
                    ZonesPastEnd::Refused => "random_distribution=zoned_abs",
                    ZonesPastEnd::Reweighted => "-rdabs (random_distribution=zoned_abs)",
                },
                target.path.display()
            ),
        })?;
        let total: u32 = fitted.iter().map(|z| u32::from(z.access_percent)).sum();
        // Zones cut at the end are DiskSpd's open last range as often as not: only dropped
        // zones change the shares.
        if total < 100 {
            let shown: Vec<String> = fitted
                .iter()
                .map(|z| {
                    format!(
                        "{:.1}% in {}..{}",
                        f64::from(z.access_percent) * 100.0 / f64::from(total),
                        z.start_bytes,
                        z.start_bytes + z.len_bytes
                    )
                })
                .collect();
            note(format!(
                "job {}: {} has {} for the random ranges; ranges past it are dropped and \
                 the rest re-weighted, as DiskSpd does: {}",
                job.name,
                target.path.display(),
                format_bytes_binary(target.region_len_bytes),
                shown.join(", ")
            ));
        }
    }
    Ok(())
}
