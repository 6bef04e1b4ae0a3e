//! Which of a worker's files the next IO goes to (fio's `file_service_type` and `openfiles`),
//! and the files below an `opendir` folder.
//!
//! fio keeps at most `openfiles` files open and services only those; a file leaves once its
//! share of the IO is done (its region covered) and the next file takes its place. diskmeter
//! opens every descriptor before the clock starts (opening is not measured work), and keeps
//! fio's order of service: the same window of files, the same rule for leaving it.

use crate::skew::SkewSampler;
use crate::RunError;
use diskmeter_workload::files::FileService;
use diskmeter_workload::JobSpec;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// Picks the file of each IO for one worker. Built only when the job's choice is not the
/// default (round robin, one IO each, every file in service): the default stays a counter
/// in the offset generator.
#[derive(Debug, Clone)]
pub struct FileChooser {
    kind: Kind,
    /// IOs on the chosen file before choosing again.
    every: u32,
    left_on_current: u32,
    current: usize,
    /// The files in service (indices), at most `openfiles`.
    active: Vec<usize>,
    /// The next file to take into service when one leaves.
    next_pending: usize,
    /// Bytes done on each file since it entered service, and its region's length.
    done_bytes: Vec<u64>,
    region_bytes: Vec<u64>,
    /// Files leave service when done (an `openfiles` window or `sequential`).
    windowed: bool,
    rng: Xoshiro256PlusPlus,
    skew: Option<SkewSampler>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    RoundRobin,
    Random,
    Sequential,
    Skewed,
}

impl FileChooser {
    /// The chooser for `job` over files with these regions, or `None` when the default
    /// round robin applies.
    pub fn for_regions(
        job: &JobSpec,
        regions: &[crate::offsets::FileRegion],
        seed: u64,
    ) -> Option<FileChooser> {
        let region_bytes: Vec<u64> = regions.iter().map(|r| r.len_bytes).collect();
        FileChooser::for_job(job, &region_bytes, seed)
    }

    /// The chooser for `job` over files with these region lengths, or `None` when the
    /// default round robin applies.
    pub fn for_job(job: &JobSpec, region_bytes: &[u64], seed: u64) -> Option<FileChooser> {
        let files = region_bytes.len();
        let openfiles = job
            .files
            .openfiles
            .map_or(files, |n| (n as usize).clamp(1, files.max(1)));
        let (kind, every) = match &job.files.file_service {
            FileService::RoundRobin { every } => (Kind::RoundRobin, *every),
            FileService::Random { every } => (Kind::Random, *every),
            FileService::Sequential => (Kind::Sequential, u32::MAX),
            FileService::Skewed(_) => (Kind::Skewed, 1),
        };
        let windowed = openfiles < files || kind == Kind::Sequential;
        if files <= 1 || (kind == Kind::RoundRobin && every <= 1 && !windowed) {
            return None;
        }
        let in_service = if kind == Kind::Sequential {
            1
        } else {
            openfiles
        };
        let skew = match &job.files.file_service {
            FileService::Skewed(distribution) => Some(SkewSampler::new(
                distribution.clone(),
                in_service as u64,
                // Files are the units here: `zoned_abs` sizes count files.
                1,
                seed ^ 0x1d8e_4e27_c47d_124f,
            )),
            _ => None,
        };
        Some(FileChooser {
            kind,
            every: every.max(1),
            left_on_current: 0,
            // A round robin's first step lands on the first file.
            current: in_service - 1,
            active: (0..in_service).collect(),
            next_pending: in_service % files,
            done_bytes: vec![0; files],
            region_bytes: region_bytes.to_vec(),
            windowed,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x3c6e_f372_fe94_f82b),
            skew,
        })
    }

    /// The file of the next IO of `len_bytes`.
    pub fn next(&mut self, len_bytes: u64) -> usize {
        if self.left_on_current == 0 {
            let slot = match self.kind {
                Kind::RoundRobin => (self.current + 1) % self.active.len(),
                Kind::Random => {
                    ((self.rng.next_u64() as u128 * self.active.len() as u128) >> 64) as usize
                }
                Kind::Sequential => 0,
                Kind::Skewed => self
                    .skew
                    .as_mut()
                    .map_or(0, |s| s.next_block() as usize)
                    .min(self.active.len() - 1),
            };
            self.current = slot;
            self.left_on_current = self.every;
        }
        self.left_on_current -= 1;
        let file = self.active[self.current];
        self.done_bytes[file] += len_bytes;
        if self.windowed && self.done_bytes[file] >= self.region_bytes[file] {
            // Done: the next file not in service takes its place (fio closes the file and
            // opens the next), and the choice starts over.
            self.done_bytes[file] = 0;
            let files = self.region_bytes.len();
            let mut candidate = self.next_pending;
            for _ in 0..files {
                if !self.active.contains(&candidate) || candidate == file {
                    break;
                }
                candidate = (candidate + 1) % files;
            }
            self.active[self.current] = candidate;
            self.next_pending = (candidate + 1) % files;
            self.left_on_current = 0;
        }
        file
    }
}

/// Every regular file below `folder`, recursively, in name order (fio's `opendir`).
pub fn files_below(job: &JobSpec, folder: &Path) -> Result<Vec<PathBuf>, RunError> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| RunError::Job {
            job: job.name.clone(),
            message: format!("opendir: cannot list {}: {e}", dir.display()),
        })?;
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for path in names {
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => pending.push(path),
                Ok(meta) if meta.is_file() => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    if found.is_empty() {
        return Err(RunError::Job {
            job: job.name.clone(),
            message: format!("opendir: no files below {}", folder.display()),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_workload::apply_option;

    fn chooser(options: &[(&str, &str)], regions: &[u64]) -> Option<FileChooser> {
        let mut job = JobSpec::default();
        for (name, value) in options {
            apply_option(&mut job, name, Some(value)).unwrap();
        }
        FileChooser::for_job(&job, regions, 7)
    }

    fn picks(chooser: &mut FileChooser, n: usize) -> Vec<usize> {
        (0..n).map(|_| chooser.next(4096)).collect()
    }

    #[test]
    fn the_default_round_robin_needs_no_chooser() {
        assert!(chooser(&[], &[8192, 8192]).is_none());
        assert!(chooser(&[("file_service_type", "random")], &[8192]).is_none());
    }

    #[test]
    fn roundrobin_n_switches_after_n_ios() {
        let mut c = chooser(&[("file_service_type", "roundrobin:2")], &[1 << 20; 3]).unwrap();
        assert_eq!(picks(&mut c, 7), [0, 0, 1, 1, 2, 2, 0]);
    }

    #[test]
    fn sequential_finishes_a_file_before_the_next() {
        let mut c = chooser(&[("file_service_type", "sequential")], &[8192, 8192, 4096]).unwrap();
        assert_eq!(picks(&mut c, 6), [0, 0, 1, 1, 2, 0]);
    }

    #[test]
    fn openfiles_keeps_a_window_of_files_in_service() {
        let mut c = chooser(&[("openfiles", "2")], &[8192; 4]).unwrap();
        // Files 0 and 1 in turn until each has covered its region, then 2 and 3.
        assert_eq!(picks(&mut c, 8), [0, 1, 0, 1, 2, 3, 2, 3]);
    }

    #[test]
    fn random_and_skewed_choices_stay_among_the_files() {
        for service in ["random", "random:3", "zipf:1.2", "pareto:0.3", "normal:20"] {
            let mut c = chooser(&[("file_service_type", service)], &[1 << 20; 4]).unwrap();
            let chosen = picks(&mut c, 400);
            assert!(chosen.iter().all(|&f| f < 4), "{service}");
            assert!(chosen.iter().any(|&f| f != chosen[0]), "{service}");
        }
    }
}
