//! fio-style data verification, pure (no IO): what a verified block carries, how it is filled
//! before a write and checked after a read, and what a failed check found.
//!
//! - [`VerifyKind`]: every `verify=` kind of fio's HOWTO (md5, crc64, crc32c, crc32c-intel,
//!   crc32, crc16, crc7, xxhash, sha1, sha256, sha512, sha3-224/256/384/512, meta, pattern,
//!   null), each checksum from a maintained crate.
//! - [`VerifyPattern`]: `verify_pattern` in fio's syntax (hex, decimal, quoted strings, `%o`).
//! - [`header`]: the header layout (magic, offset, length, generation, seed, job, header crc).
//! - [`Verifier`]: lays a block out in `verify_interval`s with the header at `verify_offset`,
//!   [`Verifier::fill`]s it for a write and [`Verifier::check`]s it after the read, returning
//!   a [`Mismatch`] classified as flipped bits, torn, lost, misdirected, unwritten, another
//!   job's, bad header, checksum or corrupt, with offset, expected and found.
//!
//! Filling and checking allocate nothing per block (a failed check allocates its report);
//! the runner calls them on every IO. The user-facing description is docs/guide/8-options.md, "Data
//! verification".
#![forbid(unsafe_code)]

mod classify;
mod error;
pub mod header;
mod kind;
mod mismatch;
mod pattern;
mod payload;
mod verifier;

pub use classify::{FLIPPED_BITS_PER_SECTOR, SECTOR_BYTES};
pub use error::VerifyError;
pub use header::{HeaderFault, FIXED_HEADER_BYTES};
pub use kind::{digest, DigestBytes, VerifyKind, ALL_KINDS, MAX_DIGEST_LEN};
pub use mismatch::{Failure, FailureClass, Mismatch};
pub use pattern::{VerifyPattern, MAX_PATTERN_BYTES};
pub use verifier::{GenerationCheck, Stamp, Verifier, VerifySetup};

#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;
