//! What a job's writes carry beyond the engine's initial fill: fio's `buffer_pattern` (the
//! slots hold the pattern, set once before the clock starts) and `dedupe_percentage` (each
//! write's data generated from a seed, repeated for the share of writes that are duplicates).
//!
//! Duplicates follow fio's `dedupe_mode`: `repeat` gives the last unique write's data again,
//! `working_set` one of a fixed set of buffers chosen at random, the set being
//! `dedupe_working_set_percentage` % of the region's blocks. With `dedupe_global` the set is
//! the same for every job, so duplicates match across jobs. Unique writes are never repeated
//! by chance: their seeds come from a counter.
//!
//! Nothing here runs when the options are off: the IO loop checks one `Option`.
//!
//! Also fio's `lockmem`: memory pinned for a worker's life, so the page cache has less.

use crate::prepare::TargetPlan;
use diskmeter_engine::{fill_random, IoEngine};
use diskmeter_workload::files::DedupeMode;
use diskmeter_workload::JobSpec;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Runs `build` (a worker's engine) once fio's `lockmem` is pinned, and hands back both: the
/// memory stays pinned for as long as the caller keeps it (the worker's life). A failure to
/// pin is the result's error.
pub fn with_lockmem<T>(
    job: &JobSpec,
    build: impl FnOnce() -> Result<T, crate::RunError>,
) -> (
    Result<T, crate::RunError>,
    Option<diskmeter_engine::sys::LockedMemory>,
) {
    match lock_job_memory(job) {
        Ok(locked) => (build(), locked),
        Err(error) => (Err(error), None),
    }
}

/// fio's `lockmem`: pins the job's amount of memory for as long as the result is kept;
/// `None` when the job asks for none.
pub fn lock_job_memory(
    job: &JobSpec,
) -> Result<Option<diskmeter_engine::sys::LockedMemory>, crate::RunError> {
    if job.files.lockmem_bytes == 0 {
        return Ok(None);
    }
    let bytes = usize::try_from(job.files.lockmem_bytes).unwrap_or(usize::MAX);
    diskmeter_engine::sys::lock_memory(bytes)
        .map(Some)
        .map_err(|e| crate::RunError::Job {
            job: job.name.clone(),
            message: format!(
                "lockmem: cannot pin {} bytes ({e}); lower lockmem or raise the memlock limit \
                 (ulimit -l)",
                job.files.lockmem_bytes
            ),
        })
}

/// Whether writes are stamped per sector (fio's `scramble_buffers`, on by default): not for
/// zeros, fully compressible buffers, or when the job turns it off.
pub fn scrambles(job: &JobSpec) -> bool {
    job.files.scramble_buffers && !job.zero_buffers && job.buffer_compress_percentage != Some(100)
}

/// fio's `buffer_pattern`: every one of the engine's `slots` holds the pattern from the
/// start (before the clock starts; writes then only stamp or keep it).
pub fn fill_slots_with_pattern<E: IoEngine + ?Sized>(engine: &mut E, job: &JobSpec, slots: u32) {
    if let Some(pattern) = &job.files.buffer_pattern {
        for slot in 0..slots {
            fill_pattern(engine.buffer_mut(slot), pattern);
        }
    }
}

/// Fills `buffer` with `pattern` repeated from its first byte (fio's `buffer_pattern`).
pub fn fill_pattern(buffer: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for piece in buffer.chunks_mut(pattern.len()) {
        piece.copy_from_slice(&pattern[..piece.len()]);
    }
}

/// One worker's generator of write data for `dedupe_percentage`.
#[derive(Debug)]
pub struct DedupeFill {
    percent: u64,
    mode: DedupeMode,
    /// Buffers in the working set (at least 1).
    working_set: u64,
    /// Seeds of the working set: `set_base ^ index`.
    set_base: u64,
    /// Seeds of unique writes: `unique_base ^ counter`.
    unique_base: u64,
    unique_count: u64,
    last_unique_seed: u64,
    /// The pattern or compressible shape of every buffer: zeros after this many random
    /// bytes of each chunk (`buffer_compress_percentage`), or a pattern instead of random.
    compress: Option<(usize, usize)>,
    pattern: Option<Vec<u8>>,
    rng: Xoshiro256PlusPlus,
}

impl DedupeFill {
    /// The generator of a worker of `job` on `targets` (their regions together), boxed for
    /// the worker; `None` when the job does not dedupe.
    pub fn for_worker(
        job: &JobSpec,
        targets: &[(std::os::fd::RawFd, &TargetPlan)],
        seed: u64,
    ) -> Option<Box<DedupeFill>> {
        let region_bytes = targets.iter().map(|(_, t)| t.region_len_bytes).sum();
        DedupeFill::for_job(job, region_bytes, seed).map(Box::new)
    }

    /// The generator for `job`'s worker with `seed`, over a region of `region_bytes`; `None`
    /// when the job does not dedupe.
    pub fn for_job(job: &JobSpec, region_bytes: u64, seed: u64) -> Option<DedupeFill> {
        if !job.files.dedupes() {
            return None;
        }
        let bs = job.max_bs_bytes().max(1);
        let blocks = (region_bytes / bs).max(1);
        let working_set =
            (blocks * u64::from(job.files.dedupe_working_set_percentage) / 100).max(1);
        // dedupe_global: the set does not depend on the job, so every job's duplicates
        // repeat the same buffers.
        let set_base = if job.files.dedupe_global {
            0x243f_6a88_85a3_08d3
        } else {
            seed ^ 0x1319_8a2e_0370_7344
        };
        let compress = job.buffer_compress_percentage.map(|percent| {
            let chunk = match job.buffer_compress_chunk_bytes {
                0 => bs as usize,
                n => n as usize,
            };
            (
                chunk.max(1),
                diskmeter_engine::BufferFill::random_prefix_bytes(percent, chunk.max(1)),
            )
        });
        let unique_base = seed ^ 0xa409_3822_299f_31d0;
        Some(DedupeFill {
            percent: u64::from(job.files.dedupe_percentage.unwrap_or(0)),
            mode: job.files.dedupe_mode,
            working_set,
            set_base,
            unique_base,
            unique_count: 0,
            last_unique_seed: unique_base,
            compress,
            pattern: job.files.buffer_pattern.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x0827_3bde_0b6f_0c4e),
        })
    }

    /// Fills one write's buffer: a duplicate of earlier data for `dedupe_percentage` % of
    /// the writes, unique data for the others. Returns whether it was a duplicate.
    pub fn fill(&mut self, buffer: &mut [u8]) -> bool {
        let draw = ((self.rng.next_u64() as u128 * 100) >> 64) as u64;
        let duplicate = draw < self.percent;
        let seed = if duplicate {
            match self.mode {
                DedupeMode::Repeat => self.last_unique_seed,
                DedupeMode::WorkingSet => {
                    let index =
                        ((self.rng.next_u64() as u128 * self.working_set as u128) >> 64) as u64;
                    self.set_base ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                }
            }
        } else {
            self.unique_count += 1;
            let seed = self.unique_base ^ self.unique_count.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            self.last_unique_seed = seed;
            seed
        };
        fill_random(buffer, seed);
        if let Some(pattern) = &self.pattern {
            // The pattern's bytes at the start, then the seeded data, so duplicates stay
            // equal and unique writes stay unique.
            let keep = pattern.len().min(buffer.len());
            buffer[..keep].copy_from_slice(&pattern[..keep]);
        }
        if let Some((chunk, random)) = self.compress {
            for piece in buffer.chunks_mut(chunk) {
                let keep = random.min(piece.len());
                piece[keep..].fill(0);
            }
        }
        duplicate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_jobs::job;
    use std::collections::HashSet;

    fn distinct_blocks(fill: &mut DedupeFill, writes: usize) -> usize {
        let mut seen = HashSet::new();
        let mut buffer = vec![0u8; 4096];
        for _ in 0..writes {
            fill.fill(&mut buffer);
            seen.insert(buffer.clone());
        }
        seen.len()
    }

    #[test]
    fn no_dedupe_means_no_generator() {
        assert!(DedupeFill::for_job(&job(&[]), 1 << 20, 1).is_none());
        assert!(DedupeFill::for_job(&job(&[("dedupe_percentage", "0")]), 1 << 20, 1).is_none());
    }

    #[test]
    fn dedupe_percentage_makes_that_share_of_writes_duplicates() {
        let mut fill =
            DedupeFill::for_job(&job(&[("dedupe_percentage", "50")]), 4 << 20, 1).unwrap();
        let distinct = distinct_blocks(&mut fill, 1000);
        // About half unique (binomial, 1000 draws: within a few percent).
        assert!((430..=570).contains(&distinct), "{distinct}");
        let mut all =
            DedupeFill::for_job(&job(&[("dedupe_percentage", "100")]), 4 << 20, 1).unwrap();
        assert_eq!(distinct_blocks(&mut all, 100), 1);
    }

    #[test]
    fn working_set_duplicates_come_from_a_set_of_that_size() {
        let options = [
            ("dedupe_percentage", "100"),
            ("dedupe_mode", "working_set"),
            ("dedupe_working_set_percentage", "10"),
        ];
        // 100 blocks of 4 KiB, 10 % of them: at most 10 different buffers.
        let mut fill = DedupeFill::for_job(&job(&options), 100 * 4096, 3).unwrap();
        let distinct = distinct_blocks(&mut fill, 500);
        assert!((5..=10).contains(&distinct), "{distinct}");
    }

    #[test]
    fn dedupe_global_shares_the_working_set_between_jobs() {
        let options = [
            ("dedupe_percentage", "100"),
            ("dedupe_mode", "working_set"),
            ("dedupe_working_set_percentage", "1"),
            ("dedupe_global", "1"),
        ];
        let mut a = DedupeFill::for_job(&job(&options), 100 * 4096, 1).unwrap();
        let mut b = DedupeFill::for_job(&job(&options), 100 * 4096, 2).unwrap();
        let (mut x, mut y) = (vec![0u8; 4096], vec![0u8; 4096]);
        a.fill(&mut x);
        b.fill(&mut y);
        assert_eq!(x, y);
    }

    #[test]
    fn patterns_repeat_from_the_first_byte() {
        let mut buffer = [0u8; 7];
        fill_pattern(&mut buffer, b"abc");
        assert_eq!(&buffer, b"abcabca");
    }
}
