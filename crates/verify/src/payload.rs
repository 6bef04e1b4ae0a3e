//! The data a verified interval carries when no `verify_pattern` is set: a stream of
//! pseudo-random bytes that is a pure function of (seed, interval offset, generation), so a
//! check can regenerate any byte of what should be there without storing it.
//!
//! Word `k` of an interval is wyrand's output function (Wang Yi's wyhash family: one
//! 64x64->128-bit multiply, high and low halves folded) applied to `key + k * P0`:
//! counter-based, so any word can be computed on its own (the classification of a failed
//! block compares sector by sector), and cheap (one multiply per 8 bytes), so filling runs
//! well above device speed. The key itself is derived with SplitMix64's output function
//! (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014).

/// SplitMix64's increment (the golden ratio in 64 bits).
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// wyrand's increment.
const WY_P0: u64 = 0xa076_1d64_78bd_642f;
/// wyrand's multiplier mask.
const WY_P1: u64 = 0xe703_7ed1_a0b4_28db;

/// SplitMix64's output function.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream key of the interval at `offset` written as `generation` by the job with `seed`.
pub(crate) fn key(seed: u64, offset: u64, generation: u64) -> u64 {
    mix(seed ^ mix(offset.wrapping_add(GAMMA) ^ mix(generation.wrapping_mul(GAMMA))))
}

/// Word `index` of the stream with `key`.
#[inline(always)]
fn word(key: u64, index: u64) -> u64 {
    let state = key.wrapping_add(index.wrapping_mul(WY_P0));
    let product = u128::from(state) * u128::from(state ^ WY_P1);
    (product >> 64) as u64 ^ product as u64
}

/// Fills `interval` with the stream of `key`.
pub(crate) fn fill(interval: &mut [u8], key: u64) {
    let mut chunks = interval.chunks_exact_mut(8);
    let mut index = 0u64;
    for chunk in &mut chunks {
        chunk.copy_from_slice(&word(key, index).to_le_bytes());
        index += 1;
    }
    let tail = chunks.into_remainder();
    let last = word(key, index).to_le_bytes();
    tail.copy_from_slice(&last[..tail.len()]);
}

/// Byte `position` of the stream with `key`.
pub(crate) fn byte_at(key: u64, position: usize) -> u8 {
    word(key, (position / 8) as u64).to_le_bytes()[position % 8]
}
