//! IO buffers: one aligned allocation cut into `iodepth` equal slots, and what fills them.
//!
//! O_DIRECT needs buffers aligned to the device's logical block size, and io_uring's fixed
//! buffers want one stable memory region to register, so all slots live in a single
//! anonymous mapping, unmapped in `Drop`. Each slot starts on an `align`-byte boundary (the
//! slot stride is the slot length rounded up to the alignment).
//!
//! Slots larger than a page are placed in transparent huge pages (`MADV_HUGEPAGE`, honoured
//! when THP is `always` or `madvise`), so each slot is physically contiguous. Why it matters:
//! the block layer maps every physically contiguous run of a buffer to one segment, and a
//! virtio disk without indirect descriptors spends one ring descriptor per segment. A 64 KiB
//! read into scattered 4 KiB pages takes 18 descriptors, so a 256-entry ring holds only ~14
//! such requests and iodepth=32 never reaches the device (measured on our virtio guest:
//! 13 requests in flight and 16.5k IOPS, against 25 in flight and 24k IOPS for fio, whose
//! buffers happened to be contiguous). With huge pages a slot is one segment.

use std::ptr::NonNull;

use crate::EngineError;

/// What the buffers hold before the first write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BufferFill {
    /// Incompressible pseudo-random bytes (fio's default `refill_buffers`-less content),
    /// so compressing or deduplicating storage cannot flatter the result.
    #[default]
    Random,
    /// All zero bytes (fio `zero_buffers`).
    Zero,
    /// Compressible by about `zero_percent` %: each chunk of a slot (the whole slot when
    /// `chunk_bytes` is 0) is random bytes followed by that share of zeros (fio
    /// `buffer_compress_percentage` and `buffer_compress_chunk`).
    Compressible {
        /// Share of each chunk that is zeros, 0-100.
        zero_percent: u8,
        /// Chunk length in bytes; 0 = the whole slot.
        chunk_bytes: u32,
    },
}

impl BufferFill {
    /// Bytes of random data at the start of each chunk of `chunk_bytes`, for `Compressible`.
    pub fn random_prefix_bytes(zero_percent: u8, chunk_bytes: usize) -> usize {
        chunk_bytes - chunk_bytes * usize::from(zero_percent.min(100)) / 100
    }
}

/// A transparent huge page on x86-64 and arm64 (with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;
/// The base page size assumed for deciding whether a slot spans pages.
const PAGE: usize = 4096;

/// splitmix64's increment: the state after `k` draws is the seed plus `k` times this, which
/// lets a slot's part of the stream be made on its own.
const SPLITMIX_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// `count` slots of `slot_len` bytes in one mapping, each aligned to `align`.
#[derive(Debug)]
pub struct AlignedBuffers {
    /// Start of the first slot (aligned).
    ptr: NonNull<u8>,
    /// Bytes from `ptr` that the slots use.
    len: usize,
    /// The whole mapping, for `munmap`.
    map_base: NonNull<u8>,
    map_len: usize,
    align: usize,
    slot_len: usize,
    stride: usize,
    count: usize,
}

// SAFETY: `AlignedBuffers` owns its allocation exclusively (like a `Box<[u8]>`); nothing else
// holds the pointer, so moving it to another thread or sharing `&` across threads is sound.
unsafe impl Send for AlignedBuffers {}
// SAFETY: all access through `&self` is read-only (see `Send` above).
unsafe impl Sync for AlignedBuffers {}

/// The sizes of the one mapping [`AlignedBuffers::new`] makes; kept apart so what a worker's
/// buffers cost can be known before any is made ([`mapped_bytes`]).
struct MappingShape {
    /// Bytes from one slot's start to the next: the slot length rounded up to the alignment.
    stride: usize,
    /// Bytes the slots use: `stride` x the slot count.
    total: usize,
    /// Slots span pages: they live in huge pages (see the module's documentation).
    huge: bool,
    /// What the first slot's address is a multiple of.
    start_align: usize,
    /// Bytes mapped: `total` rounded up to the page (the huge page when slots span pages),
    /// plus the slack that lets the first slot start on `start_align`.
    map_len: usize,
}

impl MappingShape {
    /// `None` when `align` is not a power of two or a figure overflows.
    fn of(count: usize, slot_len: usize, align: usize) -> Option<MappingShape> {
        if !align.is_power_of_two() {
            return None;
        }
        // A zero-sized layout may not be passed to the allocator: keep at least one stride.
        let stride = slot_len.max(1).checked_next_multiple_of(align)?;
        let total = stride.checked_mul(count.max(1))?;
        let huge = slot_len > PAGE;
        // Align the start to the huge page when slots span pages (so no slot crosses a huge
        // page boundary when strides are powers of two), else to `align` (mmap gives pages).
        let start_align = if huge { align.max(HUGE_PAGE) } else { align };
        let slack = start_align.saturating_sub(PAGE);
        let map_len = total
            .checked_next_multiple_of(if huge { HUGE_PAGE } else { PAGE })?
            .checked_add(slack)?;
        Some(MappingShape {
            stride,
            total,
            huge,
            start_align,
            map_len,
        })
    }
}

/// The bytes of memory [`AlignedBuffers::new`] maps (and fills, so they are resident) for
/// `count` slots of `slot_len` bytes aligned to `align`: what one worker's IO buffers cost.
/// `None` when `align` is not a power of two or the figure does not fit in a `usize`.
pub fn mapped_bytes(count: usize, slot_len: usize, align: usize) -> Option<usize> {
    MappingShape::of(count, slot_len, align).map(|shape| shape.map_len)
}

impl AlignedBuffers {
    /// Allocates `count` slots of `slot_len` bytes, each starting on an `align` boundary
    /// (`align` must be a power of two), and fills them as `fill` says.
    pub fn new(
        count: usize,
        slot_len: usize,
        align: usize,
        fill: BufferFill,
        seed: u64,
    ) -> Result<Self, EngineError> {
        let mut buffers = Self::new_unfilled(count, slot_len, align)?;
        buffers.fill(fill, seed);
        Ok(buffers)
    }

    /// Allocates as [`AlignedBuffers::new`] does but leaves the slots zero and untouched, so
    /// they take no memory until used: an engine that moves no data (null) fills a slot with
    /// [`AlignedBuffers::fill_slot`] only when the runner first asks for its bytes.
    pub fn new_unfilled(count: usize, slot_len: usize, align: usize) -> Result<Self, EngineError> {
        let fail = || EngineError::BufferAlloc {
            bytes: count.saturating_mul(slot_len),
            align,
        };
        let MappingShape {
            stride,
            total,
            huge,
            start_align,
            map_len,
        } = MappingShape::of(count, slot_len, align).ok_or_else(fail)?;
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(fail());
        }
        let map_base = NonNull::new(raw.cast::<u8>()).ok_or_else(fail)?;
        let offset = (raw as usize).next_multiple_of(start_align) - raw as usize;
        // SAFETY: mmap returns a page-aligned address, so `offset <= start_align - PAGE`, the
        // slack `map_len` holds beyond `total`: the slots' bytes lie inside the mapping.
        let ptr = unsafe { map_base.add(offset) };
        if huge {
            let advised = total.next_multiple_of(HUGE_PAGE).min(map_len - offset);
            // SAFETY: the range is inside our own mapping. Best effort: without THP the
            // buffers still work, only with more segments per IO.
            unsafe { libc::madvise(ptr.as_ptr().cast(), advised, libc::MADV_HUGEPAGE) };
        }
        Ok(AlignedBuffers {
            ptr,
            len: total,
            map_base,
            map_len,
            align,
            slot_len,
            stride,
            count,
        })
    }

    /// True when [`AlignedBuffers::fill_slot`] can give a slot of these buffers the same
    /// bytes [`AlignedBuffers::fill`] would: slots start on whole 8-byte words of the stream.
    pub fn fills_by_slot(&self) -> bool {
        self.stride.is_multiple_of(8)
    }

    /// Fills slot `i` of buffers made by [`AlignedBuffers::new_unfilled`] with exactly the
    /// bytes [`AlignedBuffers::fill`] gives it (the random stream is jumped to the slot's
    /// first word). Needs [`AlignedBuffers::fills_by_slot`]; panics if `i >= slot_count()`.
    pub fn fill_slot(&mut self, i: usize, fill: BufferFill, seed: u64) {
        debug_assert!(self.fills_by_slot());
        let word = (i * self.stride / 8) as u64;
        let start = seed.wrapping_add(word.wrapping_mul(SPLITMIX_GAMMA));
        let slot_len = self.slot_len;
        let slot = self.slot_mut(i);
        match fill {
            // A fresh mapping is zero already; writing zeros would only make it resident.
            BufferFill::Zero => {}
            BufferFill::Random => fill_random(slot, start),
            BufferFill::Compressible {
                zero_percent,
                chunk_bytes,
            } => {
                fill_random(slot, start);
                let chunk = match chunk_bytes as usize {
                    0 => slot_len,
                    n => n.min(slot_len),
                };
                let random = BufferFill::random_prefix_bytes(zero_percent, chunk);
                for piece in slot.chunks_mut(chunk) {
                    let keep = random.min(piece.len());
                    piece[keep..].fill(0);
                }
            }
        }
    }

    /// Number of slots.
    pub fn slot_count(&self) -> usize {
        self.count
    }

    /// Usable bytes per slot.
    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// The alignment every slot starts on.
    pub fn align(&self) -> usize {
        self.align
    }

    /// The bytes of slot `i`. Panics if `i >= slot_count()`.
    pub fn slot(&self, i: usize) -> &[u8] {
        let p = self.slot_ptr(i);
        // SAFETY: `slot_ptr` checked `i`; the slot's `slot_len` bytes are inside the live,
        // initialised (anonymous memory is zeroed) mapping and `&self` forbids concurrent `&mut`.
        unsafe { std::slice::from_raw_parts(p, self.slot_len) }
    }

    /// The bytes of slot `i`, writable. Panics if `i >= slot_count()`.
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        let p = self.slot_ptr(i);
        // SAFETY: as in `slot`, and `&mut self` makes this the only reference to the slot.
        unsafe { std::slice::from_raw_parts_mut(p, self.slot_len) }
    }

    /// Raw start of slot `i`, for handing to the kernel without creating a Rust reference
    /// (the kernel writes it while the engine holds only `&self`). Panics if out of range.
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        assert!(
            i < self.count,
            "buffer slot {i} out of range ({} slots)",
            self.count
        );
        // SAFETY: `i < count`, so `i * stride` stays inside the allocation of
        // `count * stride` bytes.
        unsafe { self.ptr.as_ptr().add(i * self.stride) }
    }

    /// One `iovec` per slot (in slot order), for io_uring fixed-buffer registration: buffer
    /// index `i` is slot `i`.
    pub fn as_iovecs(&self) -> Vec<libc::iovec> {
        (0..self.count)
            .map(|i| libc::iovec {
                iov_base: self.slot_ptr(i).cast(),
                iov_len: self.slot_len,
            })
            .collect()
    }

    /// Refills every slot; `Random` draws a fresh incompressible stream from `seed`.
    pub fn fill(&mut self, fill: BufferFill, seed: u64) {
        // SAFETY: the whole allocation is initialised and exclusively borrowed through
        // `&mut self`.
        let all = unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) };
        match fill {
            BufferFill::Zero => all.fill(0),
            BufferFill::Random => fill_random(all, seed),
            BufferFill::Compressible {
                zero_percent,
                chunk_bytes,
            } => {
                fill_random(all, seed);
                let slot_len = self.slot_len;
                let chunk = match chunk_bytes as usize {
                    0 => slot_len,
                    n => n.min(slot_len),
                };
                let random = BufferFill::random_prefix_bytes(zero_percent, chunk);
                for i in 0..self.count {
                    // SAFETY: slot `i` is `slot_len` initialised bytes inside the allocation,
                    // exclusively borrowed through `&mut self`.
                    let slot =
                        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), slot_len) };
                    for piece in slot.chunks_mut(chunk) {
                        let keep = random.min(piece.len());
                        piece[keep..].fill(0);
                    }
                }
            }
        }
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: `map_base`/`map_len` are the mapping made in `new`, unmapped exactly once.
        unsafe { libc::munmap(self.map_base.as_ptr().cast(), self.map_len) };
    }
}

/// Fills `buf` with splitmix64 output: fast (one multiply-xorshift chain per 8 bytes) and
/// statistically good enough that no compressor finds structure in it.
pub fn fill_random(buf: &mut [u8], seed: u64) {
    let mut state = seed;
    let mut chunks = buf.chunks_exact_mut(8);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    let tail = chunks.into_remainder();
    let last = splitmix64(&mut state).to_le_bytes();
    let n = tail.len();
    tail.copy_from_slice(&last[..n]);
}

/// One step of splitmix64 (Steele, Lea, Flood 2014), the seeding generator of xoshiro.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(SPLITMIX_GAMMA);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod compress_tests {
    use super::*;

    #[test]
    fn compressible_slots_are_random_then_zero_per_chunk() {
        let fill = BufferFill::Compressible {
            zero_percent: 75,
            chunk_bytes: 512,
        };
        let b = AlignedBuffers::new(2, 4096, 4096, fill, 3).unwrap();
        let slot = unsafe { std::slice::from_raw_parts(b.slot_ptr(1), 4096) };
        let zeros = slot.iter().filter(|&&x| x == 0).count();
        // 3/4 zeros, plus the few random bytes that happen to be zero.
        assert!((3072..3072 + 16).contains(&zeros), "{zeros}");
        for chunk in slot.chunks(512) {
            assert!(chunk[128..].iter().all(|&x| x == 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let mut b = AlignedBuffers::new(5, 5000, 4096, BufferFill::Zero, 0).unwrap();
        assert_eq!(b.slot_count(), 5);
        for i in 0..5 {
            assert_eq!(b.slot_ptr(i) as usize % 4096, 0);
            assert_eq!(b.slot(i).len(), 5000);
            assert!(b.slot(i).iter().all(|&x| x == 0));
            b.slot_mut(i).fill(i as u8 + 1);
        }
        for i in 0..5 {
            assert!(b.slot(i).iter().all(|&x| x == i as u8 + 1));
        }
        let iov = b.as_iovecs();
        assert_eq!(iov.len(), 5);
        assert_eq!(iov[3].iov_base as usize, b.slot_ptr(3) as usize);
        assert_eq!(iov[3].iov_len, 5000);
    }

    #[test]
    fn multi_page_slots_start_on_a_huge_page_and_stay_inside_the_mapping() {
        let mut b = AlignedBuffers::new(32, 64 << 10, 4096, BufferFill::Random, 1).unwrap();
        assert_eq!(b.slot_ptr(0) as usize % HUGE_PAGE, 0);
        b.slot_mut(31).fill(9);
        assert!(b.slot(31).iter().all(|&x| x == 9));
        // A large alignment is honoured too.
        let b = AlignedBuffers::new(3, 8192, 1 << 22, BufferFill::Zero, 0).unwrap();
        assert_eq!(b.slot_ptr(0) as usize % (1 << 22), 0);
        assert_eq!(b.align(), 1 << 22);
    }

    #[test]
    fn random_fill_is_seeded_and_incompressible_looking() {
        let a = AlignedBuffers::new(2, 4096, 4096, BufferFill::Random, 7).unwrap();
        let b = AlignedBuffers::new(2, 4096, 4096, BufferFill::Random, 7).unwrap();
        let c = AlignedBuffers::new(2, 4096, 4096, BufferFill::Random, 8).unwrap();
        assert_eq!(a.slot(1), b.slot(1));
        assert_ne!(a.slot(1), c.slot(1));
        assert_ne!(a.slot(0), a.slot(1));
        // Every byte value shows up in 8 KiB of good random data; a crude but cheap check.
        let mut seen = [false; 256];
        a.slot(0)
            .iter()
            .chain(a.slot(1))
            .for_each(|&x| seen[x as usize] = true);
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn odd_lengths_fill_the_tail() {
        let mut buf = [0u8; 13];
        fill_random(&mut buf, 1);
        assert!(buf[8..].iter().any(|&x| x != 0));
    }

    #[test]
    fn bad_alignment_is_an_error() {
        let err = AlignedBuffers::new(1, 4096, 3000, BufferFill::Zero, 0).unwrap_err();
        assert!(matches!(err, EngineError::BufferAlloc { align: 3000, .. }));
        // Zero-sized requests still give a valid (empty-slot) allocation.
        let b = AlignedBuffers::new(0, 0, 512, BufferFill::Random, 0).unwrap();
        assert_eq!(b.slot_count(), 0);
    }

    #[test]
    fn mapped_bytes_is_what_new_maps() {
        // One 4 KiB page per 4 KiB slot.
        assert_eq!(mapped_bytes(32, 4096, 4096), Some(32 * 4096));
        // Slots over a page live in huge pages: whole 2 MiB units plus the slack that lets
        // the first slot start on one; an odd slot length takes whole alignment units (5 x
        // 8 KiB fit in one huge page).
        assert_eq!(mapped_bytes(5, 5000, 4096), Some(2 * HUGE_PAGE - PAGE));
        assert_eq!(
            mapped_bytes(4096, 4 << 20, 4096),
            Some(4096 * (4 << 20) + HUGE_PAGE - PAGE)
        );
        for (count, slot_len, align) in [(3, 8192, 1 << 22), (32, 64 << 10, 4096), (1, 512, 512)] {
            let b = AlignedBuffers::new(count, slot_len, align, BufferFill::Zero, 0).unwrap();
            assert_eq!(mapped_bytes(count, slot_len, align), Some(b.map_len));
        }
        assert_eq!(mapped_bytes(1, 4096, 3000), None);
        assert_eq!(mapped_bytes(usize::MAX, 1 << 20, 4096), None);
    }

    #[test]
    fn slots_filled_one_by_one_hold_what_a_whole_fill_gives() {
        let fills = [
            BufferFill::Random,
            BufferFill::Zero,
            BufferFill::Compressible {
                zero_percent: 40,
                chunk_bytes: 1000,
            },
        ];
        for (slot_len, align) in [(4096, 4096), (5000, 4096), (100, 8), (64 << 10, 4096)] {
            for fill in fills {
                let whole = AlignedBuffers::new(5, slot_len, align, fill, 11).unwrap();
                let mut lazy = AlignedBuffers::new_unfilled(5, slot_len, align).unwrap();
                assert!(lazy.fills_by_slot());
                for i in [3, 0, 4, 1, 2] {
                    lazy.fill_slot(i, fill, 11);
                    assert_eq!(lazy.slot(i), whole.slot(i), "{slot_len} {fill:?} slot {i}");
                }
            }
        }
    }
}
