//! Where the next IO goes: sequential positions (with fio's `rw=write:N` holes, or one
//! position shared by all workers for DiskSpd's `-si`), a full-period random permutation of
//! the blocks (fio's default random map: every block once per pass), plain uniform offsets
//! (`norandommap`) or skewed ones (`random_distribution`, in `skew.rs`). Also the read/write
//! choice of mixed jobs.
//!
//! Jobs whose IO sizes vary (`bssplit`, `bsrange`) keep fio's random map itself instead of the
//! permutation: a bitmap of the blocks done ([`BlockMap`], as fio's `lib/axmap.c`), an offset
//! whose block is done moving to the next free block and an IO shrinking to the free run at
//! its offset (fio's `io_u.c`: `get_next_rand_offset`, `mark_random_map`). The permutation
//! stays for fixed sizes, where no IO can cover a block done and nothing ever shrinks.
//!
//! The permutation is counter-based: pass `p` maps the counter `i` through a keyed bijection
//! on `k` bits (xorshift and odd multiplies are both invertible modulo 2^k) and skips values
//! at or beyond the block count ("cycle walking"). Each block comes up exactly once per pass,
//! with no memory per block, at well under 2 bijections per IO on average.

pub use crate::block_map::BlockMap;
use crate::file_service::FileChooser;
use crate::skew::SkewSampler;
use diskmeter_workload::RandomDistribution;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The byte range of one file that a worker does IO in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRegion {
    /// First byte.
    pub start_bytes: u64,
    /// Length in bytes.
    pub len_bytes: u64,
}

/// A permutation of `0..n` that changes every pass.
#[derive(Debug, Clone)]
pub struct BlockPermutation {
    n: u64,
    bits: u32,
    mask: u64,
    counter: u64,
    key: [u64; 3],
    rng: Xoshiro256PlusPlus,
}

impl BlockPermutation {
    /// A permutation of `0..n` (n >= 1) seeded by `seed`.
    pub fn new(n: u64, seed: u64) -> Self {
        let n = n.max(1);
        let bits = (64 - (n - 1).leading_zeros()).max(2);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let key = [rng.next_u64(), rng.next_u64() | 1, rng.next_u64() | 1];
        BlockPermutation {
            n,
            bits,
            mask,
            counter: 0,
            key,
            rng,
        }
    }

    fn mix(&self, mut x: u64) -> u64 {
        let half = (self.bits / 2).max(1);
        x = (x ^ self.key[0]) & self.mask;
        x ^= x >> half;
        x = x.wrapping_mul(self.key[1]) & self.mask;
        x ^= x >> half;
        x = x.wrapping_mul(self.key[2]) & self.mask;
        x ^= x >> half;
        x
    }

    /// The next block of the current pass; a new pass (new order) starts after `n` blocks.
    pub fn next_block(&mut self) -> u64 {
        loop {
            if self.counter > self.mask {
                self.counter = 0;
                self.key = [
                    self.rng.next_u64(),
                    self.rng.next_u64() | 1,
                    self.rng.next_u64() | 1,
                ];
            }
            let candidate = self.mix(self.counter);
            self.counter += 1;
            if candidate < self.n {
                return candidate;
            }
        }
    }
}

/// How offsets are chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum OffsetPattern {
    /// Each file is walked from its region start, wrapping at the end.
    Sequential,
    /// Every block once per pass, in a new random order each pass.
    RandomMap,
    /// Uniform random blocks with repeats (fio `norandommap`).
    Uniform,
    /// Blocks drawn from a skewed distribution, with repeats (fio `random_distribution`;
    /// fio too turns the random map off for these).
    Skewed(RandomDistribution),
}

/// [`OffsetPattern`] without the distribution's parameters (the samplers keep those): what
/// each IO looks at, cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sequential,
    RandomMap,
    /// The random map with fio's bitmap: offsets move to free blocks, IOs shrink.
    Shrinking,
    Uniform,
    Skewed,
}

impl Mode {
    fn of(pattern: &OffsetPattern) -> Mode {
        match pattern {
            OffsetPattern::Sequential => Mode::Sequential,
            OffsetPattern::RandomMap => Mode::RandomMap,
            OffsetPattern::Uniform => Mode::Uniform,
            OffsetPattern::Skewed(_) => Mode::Skewed,
        }
    }
}

struct FileCursor {
    region: FileRegion,
    /// Where the next sequential IO of each direction starts (reads, writes): as fio's
    /// per-direction `last_pos`, a read continues from the previous read, not from a write.
    next_sequential: [u64; 2],
    permutation: Option<BlockPermutation>,
    skew: Option<SkewSampler>,
    /// The blocks done, for [`Mode::Shrinking`]: one map, or one per direction when their
    /// blocks differ (see [`OffsetGenerator::with_shrinking_map`]).
    maps: Vec<BlockMap>,
    /// How many times one of its maps filled (see [`OffsetGenerator::with_pass_limit`]).
    passes: u64,
    /// How many holed sequential passes of each direction reached the region's end.
    holed_passes: [u64; 2],
    /// A holed sequential pass wraps inside itself, as fio's `get_next_seq_offset` does when
    /// the position reaches the file's size: the region starts at 0 and runs to the file's
    /// end (see [`OffsetGenerator::with_file_sizes`]).
    holes_wrap: bool,
}

/// Generates (file index, offset) pairs for one worker.
pub struct OffsetGenerator {
    files: Vec<FileCursor>,
    mode: Mode,
    grid_bytes: u64,
    next_file: usize,
    rng: Xoshiro256PlusPlus,
    random_percent: u8,
    /// fio `rw=randread:N`: a new random offset every N IOs (0 or 1 = every IO).
    random_every: u64,
    ios: u64,
    /// fio `rw=write:N`: bytes skipped after each sequential IO; negative (`rw=read:-8k`)
    /// moves back from the end of each IO, so the job runs backwards.
    skip_bytes: i64,
    /// DiskSpd `-si`: one sequential position per file, shared by every worker of the job.
    shared: Option<Arc<[AtomicU64]>>,
    /// fio's `file_service_type` and `openfiles` when not the default round robin.
    chooser: Option<Box<FileChooser>>,
    /// Under the shrinking map: each direction's block, bytes, and which of a file's maps
    /// it uses.
    map_block_bytes: [u64; 2],
    map_of: [usize; 2],
    /// Under the shrinking map of a size-based job: the passes each file's map gives
    /// before the file is done (see [`OffsetGenerator::with_pass_limit`]).
    pass_limit: Option<u64>,
    /// Files done under `pass_limit`.
    files_done: usize,
}

impl OffsetGenerator {
    /// A generator over `regions`, with random offsets on a grid of `grid_bytes` (the smallest
    /// block size of the job).
    pub fn new(regions: &[FileRegion], pattern: OffsetPattern, grid_bytes: u64, seed: u64) -> Self {
        let grid_bytes = grid_bytes.max(1);
        let files = regions
            .iter()
            .enumerate()
            .map(|(i, &region)| FileCursor {
                region,
                next_sequential: [0; 2],
                permutation: (pattern == OffsetPattern::RandomMap).then(|| {
                    BlockPermutation::new(
                        (region.len_bytes / grid_bytes).max(1),
                        seed ^ (i as u64).wrapping_mul(0xa076_1d64_78bd_642f),
                    )
                }),
                skew: match &pattern {
                    OffsetPattern::Skewed(distribution) => Some(SkewSampler::new(
                        distribution.clone(),
                        (region.len_bytes / grid_bytes).max(1),
                        grid_bytes,
                        seed ^ (i as u64).wrapping_mul(0xe703_7ed1_a0b4_28db),
                    )),
                    _ => None,
                },
                maps: Vec::new(),
                passes: 0,
                holed_passes: [0; 2],
                holes_wrap: true,
            })
            .collect();
        OffsetGenerator {
            files,
            mode: Mode::of(&pattern),
            grid_bytes,
            next_file: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5851_f42d_4c95_7f2d),
            random_percent: 100,
            random_every: 1,
            ios: 0,
            skip_bytes: 0,
            shared: None,
            chooser: None,
            map_block_bytes: [grid_bytes; 2],
            map_of: [0; 2],
            pass_limit: None,
            files_done: 0,
        }
    }

    /// Ends a file when its shrinking map has filled `passes` times (a size-based job,
    /// `loops` passes; `None` for a time-based one or one with `io_size`, whose map starts
    /// again): fio's `get_next_rand_block` finds no free block in a full map and the file
    /// is done, and the job with it when every file is, even when IOs of sizes not whole
    /// blocks (`blocksize_unaligned`) have done fewer bytes than the size (fio's
    /// `keep_running` stops a job whose files are done). Without the shrinking map it
    /// changes nothing: the size's bytes fill the map exactly.
    pub fn with_pass_limit(mut self, passes: Option<u64>) -> Self {
        self.pass_limit = passes.map(|p| p.max(1));
        self
    }

    /// The size of each file (in the order of the regions): under a pass limit, holed
    /// sequential IO (`rw=write:112k`) in a region that does not start at 0 and run to the
    /// file's end ends its pass at the region's end instead of wrapping, as fio 3.33: its
    /// `get_next_seq_offset` wraps only a position (inside the region) past the file's size,
    /// and a position past `io_size` ends the file (`__get_next_offset`).
    pub fn with_file_sizes(mut self, file_size_bytes: &[u64]) -> Self {
        for (cursor, &size) in self.files.iter_mut().zip(file_size_bytes) {
            let region = cursor.region;
            cursor.holes_wrap = region.start_bytes == 0 && region.len_bytes >= size;
        }
        self
    }

    /// True when every file is done (see [`OffsetGenerator::with_pass_limit`]): the job
    /// issues no more IO.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.files_done > 0 && self.files_done == self.files.len()
    }

    /// True when file `i` is done under the pass limit.
    fn file_done(&self, i: usize) -> bool {
        let cursor = &self.files[i];
        self.pass_limit.is_some_and(|limit| {
            cursor.passes >= limit || cursor.holed_passes.iter().any(|&p| p >= limit)
        })
    }

    /// Keeps fio's random map as a bitmap (for jobs whose IO sizes vary): a random offset
    /// whose block is done moves to the next free block, and [`OffsetGenerator::next_shrunk`]
    /// shrinks each IO to the free run at its offset. A block is the direction's smallest
    /// size, `block_bytes` (reads, writes), as fio's `mark_random_map` counts in `min_bs` of
    /// the IO's direction; where the two differ each direction keeps a map of its own (fio
    /// shares one bitmap in both units, which no IO size could make sense of). Only a
    /// [`OffsetPattern::RandomMap`] generator changes; the permutation it had is dropped.
    pub fn with_shrinking_map(mut self, on: bool, block_bytes: [u64; 2]) -> Self {
        if on && self.mode == Mode::RandomMap {
            self.mode = Mode::Shrinking;
            let block_bytes = block_bytes.map(|b| b.max(1));
            self.map_block_bytes = block_bytes;
            self.map_of = if block_bytes[0] == block_bytes[1] {
                [0, 0]
            } else {
                [0, 1]
            };
            let kinds = if self.map_of[1] == 0 { 1 } else { 2 };
            for cursor in &mut self.files {
                cursor.permutation = None;
                cursor.maps = (0..kinds)
                    .map(|d| BlockMap::new(cursor.region.len_bytes / block_bytes[d]))
                    .collect();
            }
        }
        self
    }

    /// Picks files as `chooser` says instead of one IO each in turn.
    pub fn with_file_chooser(mut self, chooser: Option<FileChooser>) -> Self {
        self.chooser = chooser.map(Box::new);
        self
    }

    /// Applies fio's `rw=...:N` suffix: for a random pattern a new random offset every `n`
    /// IOs (sequential in between), for a sequential one `n` bytes skipped after each IO
    /// (a negative `n` steps back: backwards IO).
    pub fn with_offset_modifier(mut self, n: i64) -> Self {
        if self.mode == Mode::Sequential {
            self.skip_bytes = n;
        } else {
            self.random_every = n.max(1) as u64;
        }
        self
    }

    /// Shares sequential positions with other generators (DiskSpd `-si`): one counter per file.
    pub fn with_shared_positions(mut self, shared: Arc<[AtomicU64]>) -> Self {
        if shared.len() >= self.files.len() {
            self.shared = Some(shared);
        }
        self
    }

    /// Makes only `percent` % of a random pattern's IOs random; the others continue from the
    /// end of the previous IO in the same file (fio `percentage_random`, DiskSpd `-rs`).
    pub fn with_random_percent(mut self, percent: u8) -> Self {
        self.random_percent = percent.min(100);
        self
    }

    /// The file and byte offset of the next IO of `len_bytes`, random offsets on multiples of
    /// `align_bytes` (files taken round-robin), for direction `direction` (0 reads, 1 writes:
    /// sequential IO continues from the end of the previous IO of the same direction).
    #[inline]
    pub fn next(&mut self, direction: usize, len_bytes: u64, align_bytes: u64) -> (u32, u64) {
        let (file, offset, _) = self.next_shrunk(direction, len_bytes, align_bytes);
        (file, offset)
    }

    /// [`OffsetGenerator::next`], with the IO's length: under the shrinking map (see
    /// [`OffsetGenerator::with_shrinking_map`]) a random IO covers only the free run of
    /// blocks at its offset (whole blocks of the map, at least one), as fio's `mark_random_map`;
    /// otherwise the length is `len_bytes`.
    pub fn next_shrunk(
        &mut self,
        direction: usize,
        len_bytes: u64,
        align_bytes: u64,
    ) -> (u32, u64, u64) {
        let mut len_bytes = len_bytes;
        let d = direction.min(1);
        let file_index = match &mut self.chooser {
            None => {
                let file_index = self.next_file;
                self.next_file = if self.next_file + 1 == self.files.len() {
                    0
                } else {
                    self.next_file + 1
                };
                file_index
            }
            Some(chooser) => chooser.next(len_bytes),
        };
        // A file done under the pass limit takes no more IO: the next one that is not.
        let file_index = if self.files_done > 0 && !self.exhausted() {
            let n = self.files.len();
            (0..n)
                .map(|k| (file_index + k) % n)
                .find(|&i| !self.file_done(i))
                .unwrap_or(file_index)
        } else {
            file_index
        };
        let grid = self.grid_bytes;
        let align = align_bytes.max(1);
        let io_number = self.ios;
        self.ios += 1;
        let mode = match self.mode {
            Mode::Sequential => Mode::Sequential,
            _ if self.random_every > 1 && !io_number.is_multiple_of(self.random_every) => {
                Mode::Sequential
            }
            _ if self.random_percent == 100 => self.mode,
            _ if bounded(self.rng.next_u64(), 100) < u64::from(self.random_percent) => self.mode,
            _ => Mode::Sequential,
        };
        let cursor = &mut self.files[file_index];
        let region = cursor.region;
        let relative = match mode {
            Mode::Sequential => match &self.shared {
                Some(shared) => {
                    // DiskSpd's shared position only ever moves forward.
                    let step = len_bytes + self.skip_bytes.max(0) as u64;
                    let at = shared[file_index].fetch_add(step, Ordering::Relaxed);
                    let span = region.len_bytes.max(1);
                    let at = at % span;
                    if at + len_bytes > region.len_bytes {
                        0
                    } else {
                        at
                    }
                }
                None => {
                    if cursor.next_sequential[d] + len_bytes > region.len_bytes {
                        cursor.next_sequential[d] = 0;
                    }
                    let at = cursor.next_sequential[d];
                    let next = next_sequential(at, len_bytes, self.skip_bytes, region.len_bytes);
                    cursor.next_sequential[d] = next;
                    if self.skip_bytes > 0
                        && !cursor.holes_wrap
                        && next + len_bytes > region.len_bytes
                    {
                        // The holed pass is over at the region's end (fio: the file is done);
                        // the first direction to end its last pass ends the file.
                        cursor.holed_passes[d] += 1;
                        if self.pass_limit == Some(cursor.holed_passes[d])
                            && cursor.holed_passes[1 - d] < cursor.holed_passes[d]
                        {
                            self.files_done += 1;
                        }
                    }
                    at
                }
            },
            Mode::RandomMap => {
                let block = cursor.permutation.as_mut().map_or(0, |p| p.next_block());
                let at = fit(block * grid, len_bytes, align, region.len_bytes);
                cursor.next_sequential[d] = at + len_bytes;
                at
            }
            Mode::Shrinking => match cursor.maps.get_mut(self.map_of[d]) {
                Some(map) => {
                    // fio draws a block, then takes the next free one; a full map is a new
                    // pass.
                    let unit = self.map_block_bytes[d];
                    let drawn = bounded(self.rng.next_u64(), map.blocks());
                    let block = match map.next_free(drawn) {
                        Some(block) => block,
                        None => {
                            map.reset();
                            drawn
                        }
                    };
                    let run = map.take_run(block, len_bytes.div_ceil(unit)).max(1);
                    len_bytes = len_bytes.min(run * unit);
                    if map.is_full() {
                        cursor.passes += 1;
                        if self.pass_limit == Some(cursor.passes) {
                            self.files_done += 1;
                        }
                    }
                    let at = fit(block * unit, len_bytes, align, region.len_bytes);
                    cursor.next_sequential[d] = at + len_bytes;
                    at
                }
                None => 0,
            },
            Mode::Uniform => {
                let blocks = (region.len_bytes / grid).max(1);
                let block = bounded(self.rng.next_u64(), blocks);
                let at = fit(block * grid, len_bytes, align, region.len_bytes);
                cursor.next_sequential[d] = at + len_bytes;
                at
            }
            Mode::Skewed => {
                let block = cursor.skew.as_mut().map_or(0, |s| s.next_block());
                let at = fit(block * grid, len_bytes, align, region.len_bytes);
                cursor.next_sequential[d] = at + len_bytes;
                at
            }
        };
        (file_index as u32, region.start_bytes + relative, len_bytes)
    }
}

/// Where the sequential IO after one of `len` bytes at `at` starts, `skip` bytes after
/// its end. Going backwards past the region's start wraps to `skip` before the region's
/// end, as fio does: `rw=read:-8k` with 4 KiB blocks reads 0, then end - 8k, end - 12k, ...
#[inline]
fn next_sequential(at: u64, len: u64, skip: i64, region_len: u64) -> u64 {
    if skip >= 0 {
        return at + len + skip as u64;
    }
    let back = skip.unsigned_abs();
    match (at + len).checked_sub(back) {
        Some(next) => next,
        None => region_len.saturating_sub(back),
    }
}

/// Aligns `offset` down to `align` and keeps `offset + len` inside the region.
fn fit(offset: u64, len: u64, align: u64, region_len: u64) -> u64 {
    let aligned = offset - offset % align;
    if aligned + len <= region_len {
        aligned
    } else {
        let last = region_len.saturating_sub(len);
        last - last % align
    }
}

/// A uniform value in `0..n` from 64 random bits (Lemire's multiply-shift; bias < n / 2^64).
fn bounded(random: u64, n: u64) -> u64 {
    ((random as u128 * n as u128) >> 64) as u64
}

/// Chooses read or write per IO of a mixed job so the mix holds both on average and at
/// any moment: a random draw, overridden when the running share strays more than half a
/// percentage point from the target (fio draws at random; the override keeps short runs honest).
pub struct MixChooser {
    read_percent: u64,
    reads: u64,
    total: u64,
    rng: Xoshiro256PlusPlus,
}

impl MixChooser {
    /// A chooser issuing `read_percent` % reads.
    pub fn new(read_percent: u8, seed: u64) -> Self {
        MixChooser {
            read_percent: read_percent.min(100) as u64,
            reads: 0,
            total: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x2545_f491_4f6c_dd1d),
        }
    }

    /// True when the next IO is a read.
    pub fn next_is_read(&mut self) -> bool {
        let mut read = bounded(self.rng.next_u64(), 100) < self.read_percent;
        // Scaled by 200 to compare shares in half-percent steps without floats.
        let share = self.reads * 200;
        let target = self.total * self.read_percent * 2;
        if self.total >= 100 {
            if read && share > target + self.total {
                read = false;
            } else if !read && share + self.total < target {
                read = true;
            }
        }
        self.total += 1;
        self.reads += read as u64;
        read
    }
}

#[cfg(test)]
#[path = "offsets_tests.rs"]
mod tests;
