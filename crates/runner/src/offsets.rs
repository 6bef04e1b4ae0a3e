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

/// fio's random map: one bit per block (the smallest size of the IO's direction), set when
/// an IO covers the block.
/// A full map starts again empty (a new pass, as fio resets its map when a time-based job
/// or a new loop comes back to it).
#[derive(Debug, Clone)]
pub struct BlockMap {
    words: Vec<u64>,
    blocks: u64,
    /// Blocks marked done.
    done: u64,
}

impl BlockMap {
    /// An empty map of `blocks` blocks (at least one).
    pub fn new(blocks: u64) -> Self {
        let blocks = blocks.max(1);
        BlockMap {
            words: vec![0; blocks.div_ceil(64) as usize],
            blocks,
            done: 0,
        }
    }

    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// True when every block is done: the pass is over (in a size-based job's last pass its
    /// file is done, [`OffsetGenerator::with_pass_limit`]).
    pub fn is_full(&self) -> bool {
        self.done >= self.blocks
    }

    /// True when block `b` is not done yet.
    #[inline]
    pub fn is_free(&self, b: u64) -> bool {
        self.words[(b / 64) as usize] & (1 << (b % 64)) == 0
    }

    /// The first free block at or after `from`, else the first from the start (fio's
    /// `axmap_next_free` wraps the same way); `None` when the map is full.
    pub fn next_free(&self, from: u64) -> Option<u64> {
        let from = from % self.blocks;
        self.first_free_from(from)
            .or_else(|| (from > 0).then(|| self.first_free_from(0)).flatten())
    }

    /// The first free block in `from..blocks`, a word at a time.
    fn first_free_from(&self, from: u64) -> Option<u64> {
        let mut word = (from / 64) as usize;
        let mut free = !self.words[word] & (u64::MAX << (from % 64));
        loop {
            if free != 0 {
                let b = word as u64 * 64 + u64::from(free.trailing_zeros());
                return (b < self.blocks).then_some(b);
            }
            word += 1;
            if word == self.words.len() {
                return None;
            }
            free = !self.words[word];
        }
    }

    /// Marks up to `count` blocks from `b` as done, stopping at the first block already done
    /// or the end of the map; returns how many it marked (fio's `axmap_set_nr`).
    pub fn take_run(&mut self, b: u64, count: u64) -> u64 {
        let marked = self.mark_run(b, count);
        self.done += marked;
        marked
    }

    /// [`BlockMap::take_run`] without the count of blocks done.
    fn mark_run(&mut self, b: u64, count: u64) -> u64 {
        let end = b.saturating_add(count).min(self.blocks);
        let mut at = b;
        while at < end {
            let word = (at / 64) as usize;
            let bit = at % 64;
            let span = (64 - bit).min(end - at);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            let taken = self.words[word] & mask;
            if taken != 0 {
                let free = u64::from(taken.trailing_zeros()) - bit;
                if free > 0 {
                    self.words[word] |= ((1u64 << free) - 1) << bit;
                }
                return at + free - b;
            }
            self.words[word] |= mask;
            at += span;
        }
        at - b
    }

    /// Empties the map (a new pass).
    pub fn reset(&mut self) {
        self.words.fill(0);
        self.done = 0;
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
mod tests {
    use super::*;

    #[test]
    fn permutation_covers_every_block_once_per_pass() {
        for n in [1u64, 2, 3, 7, 100, 1000, 4097] {
            let mut p = BlockPermutation::new(n, 42);
            for _pass in 0..3 {
                let mut seen = vec![false; n as usize];
                for _ in 0..n {
                    let b = p.next_block();
                    assert!(!seen[b as usize], "block {b} twice in one pass (n={n})");
                    seen[b as usize] = true;
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn block_map_takes_free_runs_and_finds_the_next_free_block() {
        let mut map = BlockMap::new(200);
        assert_eq!(map.take_run(10, 5), 5);
        // A run stops at the first block done (fio's axmap_set_nr), across words too.
        assert_eq!(map.take_run(60, 100), 100);
        assert_eq!(map.take_run(5, 10), 5);
        assert_eq!(
            map.take_run(195, 10),
            5,
            "a run stops at the end of the map"
        );
        assert_eq!(map.take_run(12, 1), 0);
        assert!(map.is_free(4) && !map.is_free(5) && !map.is_free(159) && map.is_free(160));
        assert_eq!(map.next_free(5), Some(15));
        assert_eq!(map.next_free(60), Some(160));
        assert_eq!(map.next_free(4), Some(4));
        assert_eq!(map.next_free(196), Some(0), "wraps to the start");
        assert_eq!(map.take_run(0, 200), 5);
        assert_eq!(map.take_run(15, 45), 45);
        assert_eq!(map.take_run(160, 35), 35);
        assert_eq!(map.next_free(100), None);
        assert_eq!(map.next_free(0), None);
        map.reset();
        assert_eq!(map.next_free(199), Some(199));
    }

    #[test]
    fn the_shrinking_map_covers_each_block_once_per_pass() {
        let regions = [FileRegion {
            start_bytes: 4096,
            len_bytes: 1 << 20,
        }];
        let sizes = [512u64, 4096, 65536, 1024, 8192];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 512, 3)
            .with_shrinking_map(true, [512, 512]);
        let mut done = vec![0u8; 2048];
        let (mut bytes, mut ios) = (0u64, 0u64);
        while bytes < 1 << 20 {
            let drawn = sizes[(ios % 5) as usize];
            let (file, off, len) = g.next_shrunk((ios % 2) as usize, drawn, 512);
            assert_eq!(file, 0);
            assert!(len <= drawn && len % 512 == 0 && len > 0);
            assert!(off >= 4096 && off + len <= 4096 + (1 << 20));
            for b in (off - 4096) / 512..(off - 4096 + len) / 512 {
                done[b as usize] += 1;
            }
            bytes += len;
            ios += 1;
        }
        assert_eq!(bytes, 1 << 20, "the pass ends exactly full");
        assert!(done.iter().all(|&n| n == 1), "every block exactly once");
        // Shrinking makes the mean IO well below the drawn mean (15,974 bytes).
        assert!(bytes / ios < 12_000, "mean {} bytes", bytes / ios);
        // The next IO starts a new pass.
        let (_, _, len) = g.next_shrunk(0, 8192, 512);
        assert_eq!(len, 8192);
    }

    #[test]
    fn a_size_based_map_ends_each_file_after_its_passes_even_short_of_the_size() {
        // IO sizes not whole blocks (fio's bsrange=1000-9000 blocksize_unaligned): the map
        // of 1000-byte blocks fills before the region's bytes are done, and the file is
        // done then (fio's get_next_rand_block fails on a full map).
        let regions = [
            FileRegion {
                start_bytes: 0,
                len_bytes: 100_000,
            },
            FileRegion {
                start_bytes: 0,
                len_bytes: 50_000,
            },
        ];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 1000, 5)
            .with_shrinking_map(true, [1000, 1000])
            .with_pass_limit(Some(2));
        let mut bytes = [0u64; 2];
        let mut ios = 0u64;
        while !g.exhausted() {
            let drawn = 1000 + (ios * 3_777) % 8001;
            let (file, _, len) = g.next_shrunk(1, drawn, 1);
            bytes[file as usize] += len;
            ios += 1;
            assert!(ios < 10_000, "never exhausted");
        }
        // Two passes of each file, short of 2 x its bytes: most IOs were not whole blocks.
        assert!(bytes[0] < 200_000 && bytes[0] > 100_000, "{bytes:?}");
        assert!(bytes[1] < 100_000 && bytes[1] > 50_000, "{bytes:?}");
        // Without the limit (time-based, io_size) the map starts again.
        let mut g = OffsetGenerator::new(&regions[..1], OffsetPattern::RandomMap, 1000, 5)
            .with_shrinking_map(true, [1000, 1000])
            .with_pass_limit(None);
        for _ in 0..1_000 {
            g.next_shrunk(1, 4500, 1);
        }
        assert!(!g.exhausted());
    }

    #[test]
    fn a_holed_pass_ends_at_the_region_end_unless_the_region_is_the_whole_file() {
        // fio 3.33, rw=write:112k bs=16k size=4m: with offset=120k 32 writes (the pass ends
        // at the region's end); with no offset on a file of the region's size it wraps.
        let pass = |start_bytes: u64, file_size: u64, limit: Option<u64>| {
            let regions = [FileRegion {
                start_bytes,
                len_bytes: 4 << 20,
            }];
            let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1)
                .with_offset_modifier(112 << 10)
                .with_pass_limit(limit)
                .with_file_sizes(&[file_size]);
            let mut ios = 0u64;
            while !g.exhausted() && ios < 256 {
                let (_, at) = g.next(1, 16 << 10, 4096);
                assert_eq!((at - start_bytes) % (128 << 10), 0);
                ios += 1;
            }
            ios
        };
        assert_eq!(pass(120 << 10, (120 << 10) + (4 << 20), Some(1)), 32);
        assert_eq!(
            pass(120 << 10, (120 << 10) + (4 << 20), Some(2)),
            64,
            "loops=2"
        );
        assert_eq!(pass(0, 8 << 20, Some(1)), 32, "a larger file: no wrap");
        assert_eq!(pass(0, 4 << 20, Some(1)), 256, "the whole file wraps");
        assert_eq!(pass(120 << 10, 8 << 20, None), 256, "io_size: passes go on");
    }

    #[test]
    fn a_direction_of_one_size_never_shrinks_beside_a_split() {
        // bssplit=4k/50:64k/50,64k/100: reads shrink on their 4 KiB blocks, the writes are
        // whole 64 KiB blocks of their own map, each once per pass.
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 20,
        }];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 5)
            .with_shrinking_map(true, [4096, 65536]);
        let mut shrunk_reads = 0;
        let mut writes = std::collections::BTreeSet::new();
        for i in 0..16 * 8 {
            let (_, off, len) = g.next_shrunk(0, if i % 2 == 0 { 4096 } else { 65536 }, 4096);
            shrunk_reads += u32::from(len < 4096 || (i % 2 == 1 && len < 65536));
            assert!(off + len <= 1 << 20);
            if i < 16 {
                let (_, off, len) = g.next_shrunk(1, 65536, 65536);
                assert_eq!((len, off % 65536), (65536, 0));
                assert!(writes.insert(off), "each 64 KiB block once per pass");
            }
        }
        assert_eq!(writes.len(), 16);
        assert!(shrunk_reads > 0);
    }

    #[test]
    fn without_the_shrinking_map_lengths_are_kept() {
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 20,
        }];
        for pattern in [OffsetPattern::RandomMap, OffsetPattern::Uniform] {
            let mut g = OffsetGenerator::new(&regions, pattern, 512, 3);
            assert!((0..5000).all(|_| g.next_shrunk(0, 65536, 512).2 == 65536));
        }
    }

    #[test]
    fn passes_differ() {
        let mut p = BlockPermutation::new(1000, 7);
        let first: Vec<u64> = (0..1000).map(|_| p.next_block()).collect();
        let second: Vec<u64> = (0..1000).map(|_| p.next_block()).collect();
        assert_ne!(first, second);
    }

    #[test]
    fn random_offsets_are_aligned_and_inside_the_region() {
        let regions = [FileRegion {
            start_bytes: 8192,
            len_bytes: 1 << 20,
        }];
        for pattern in [OffsetPattern::RandomMap, OffsetPattern::Uniform] {
            let mut g = OffsetGenerator::new(&regions, pattern, 4096, 1);
            for _ in 0..10_000 {
                let (file, off) = g.next(0, 65536, 65536);
                assert_eq!(file, 0);
                assert_eq!((off - 8192) % 65536, 0);
                assert!(off + 65536 <= 8192 + (1 << 20));
            }
        }
    }

    #[test]
    fn percentage_random_mixes_random_jumps_with_sequential_runs() {
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 30,
        }];
        for percent in [0u8, 60, 100] {
            let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 9)
                .with_random_percent(percent);
            let mut end = g.next(0, 4096, 4096).1 + 4096;
            let mut jumps = 0;
            for _ in 0..20_000 {
                let (_, off) = g.next(0, 4096, 4096);
                if off != end {
                    jumps += 1;
                }
                end = off + 4096;
            }
            let share = f64::from(jumps) / 20_000.0 * 100.0;
            assert!(
                (share - f64::from(percent)).abs() < 1.5,
                "{percent}%: {share}% random"
            );
        }
    }

    #[test]
    fn sequential_wraps_and_files_alternate() {
        let regions = [
            FileRegion {
                start_bytes: 0,
                len_bytes: 8192,
            },
            FileRegion {
                start_bytes: 0,
                len_bytes: 8192,
            },
        ];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1);
        let got: Vec<(u32, u64)> = (0..6).map(|_| g.next(0, 4096, 4096)).collect();
        assert_eq!(
            got,
            vec![(0, 0), (1, 0), (0, 4096), (1, 4096), (0, 0), (1, 0)]
        );
    }

    #[test]
    fn offset_modifier_gives_runs_and_holes() {
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 30,
        }];
        // rw=randread:8: a jump every 8th IO, sequential in between.
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::RandomMap, 4096, 4)
            .with_offset_modifier(8);
        let got: Vec<u64> = (0..64).map(|_| g.next(0, 4096, 4096).1).collect();
        for (i, pair) in got.windows(2).enumerate() {
            let sequential = pair[1] == pair[0] + 4096;
            assert_eq!(sequential, (i + 1) % 8 != 0, "IO {}", i + 1);
        }
        // rw=write:4k: every IO skips 4 KiB after itself.
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 4)
            .with_offset_modifier(4096);
        let got: Vec<u64> = (0..4).map(|_| g.next(0, 4096, 4096).1).collect();
        assert_eq!(got, vec![0, 8192, 16384, 24576]);
    }

    #[test]
    fn a_negative_skip_reads_backwards_like_fio() {
        // fio 3.33, bs=4k rw=read:-8k size=32k: 0, 24k, 20k, 16k, 12k, 8k, 4k, 0
        // (its write_iolog for the same job).
        let regions = [FileRegion {
            start_bytes: 1 << 20,
            len_bytes: 32 << 10,
        }];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 4)
            .with_offset_modifier(-8192);
        let got: Vec<u64> = (0..9)
            .map(|_| g.next(0, 4096, 4096).1 - (1 << 20))
            .collect();
        let k = 1024;
        assert_eq!(
            got,
            vec![0, 24 * k, 20 * k, 16 * k, 12 * k, 8 * k, 4 * k, 0, 24 * k]
        );
    }

    #[test]
    fn random_offsets_follow_blockalign_not_the_block_size() {
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 24,
        }];
        let mut g = OffsetGenerator::new(&regions, OffsetPattern::Uniform, 512, 6);
        let offsets: Vec<u64> = (0..10_000).map(|_| g.next(0, 8192, 512).1).collect();
        assert!(offsets.iter().all(|o| o % 512 == 0 && o + 8192 <= 1 << 24));
        assert!(offsets.iter().any(|o| o % 8192 != 0), "not on 8 KiB blocks");
    }

    #[test]
    fn shared_positions_interleave_workers_on_one_sequence() {
        let regions = [FileRegion {
            start_bytes: 0,
            len_bytes: 1 << 20,
        }];
        let shared: Arc<[AtomicU64]> = vec![AtomicU64::new(0)].into();
        let mut a = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 1)
            .with_shared_positions(Arc::clone(&shared));
        let mut b = OffsetGenerator::new(&regions, OffsetPattern::Sequential, 4096, 2)
            .with_shared_positions(shared);
        let got: Vec<u64> = (0..3)
            .flat_map(|_| [a.next(0, 4096, 4096).1, b.next(0, 4096, 4096).1])
            .collect();
        assert_eq!(got, vec![0, 4096, 8192, 12288, 16384, 20480]);
    }

    #[test]
    fn mix_holds_within_half_a_percent() {
        for percent in [0u8, 1, 30, 50, 70, 99, 100] {
            let mut m = MixChooser::new(percent, 3);
            let reads = (0..10_000).filter(|_| m.next_is_read()).count() as f64;
            assert!(
                (reads / 100.0 - percent as f64).abs() <= 0.5,
                "{percent}: {reads}"
            );
        }
    }
}
