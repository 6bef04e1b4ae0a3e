//! The `verify=` kinds (fio's names and aliases) and the running checksum each one computes
//! over a block's data area.
//!
//! Every checksum comes from a maintained crate (RustCrypto's md-5/sha1/sha2/sha3, crc32c,
//! crc32fast, crc, xxhash-rust); the state lives on the stack so checksumming a block never
//! allocates.

use std::fmt;

use crc::{Crc, Table, CRC_16_ARC, CRC_64_XZ, CRC_7_MMC};
use md5::Digest as _;
use serde::{Deserialize, Serialize};

use crate::error::VerifyError;

/// The longest digest any kind stores (sha512, sha3-512), in bytes.
pub const MAX_DIGEST_LEN: usize = 64;

/// What a verified block carries and how it is checked (fio `verify=`).
///
/// The meanings follow fio's HOWTO ("Verification", `verify=str`): every checksum kind writes
/// the verify header (see [`crate::header`]) plus a checksum of the data area; `meta` writes
/// and checks the header alone; `pattern` writes no header and checks the `verify_pattern`
/// bytes; `null` writes data but checks nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyKind {
    /// MD5 (RFC 1321), 16 bytes.
    Md5,
    /// CRC-64/XZ (the ECMA-182 polynomial, reflected), 8 bytes.
    Crc64,
    /// CRC-32C (Castagnoli), hardware-accelerated where the CPU has it, 4 bytes. fio's
    /// `crc32c-intel` is the same kind.
    Crc32c,
    /// CRC-32 (IEEE 802.3, as zlib), 4 bytes.
    Crc32,
    /// CRC-16/ARC (polynomial 0x8005, reflected; the Linux kernel's crc16), 2 bytes.
    Crc16,
    /// CRC-7/MMC (polynomial 0x09; the Linux kernel's crc7), 1 byte.
    Crc7,
    /// XXH32 with seed 0, 4 bytes (fio's `xxhash` is the 32-bit xxHash).
    Xxhash,
    /// SHA-1, 20 bytes.
    Sha1,
    /// SHA-256, 32 bytes.
    Sha256,
    /// SHA-512, 64 bytes.
    Sha512,
    /// SHA3-224, 28 bytes.
    #[serde(rename = "sha3-224")]
    Sha3_224,
    /// SHA3-256, 32 bytes.
    #[serde(rename = "sha3-256")]
    Sha3_256,
    /// SHA3-384, 48 bytes.
    #[serde(rename = "sha3-384")]
    Sha3_384,
    /// SHA3-512, 64 bytes.
    #[serde(rename = "sha3-512")]
    Sha3_512,
    /// The header only (offset, length, generation, seed, header checksum), no data checksum.
    /// fio keeps `meta` for old job files; its header checks happen with every kind.
    Meta,
    /// No header: the block is `verify_pattern` repeated and is checked byte for byte.
    Pattern,
    /// Data is written but never checked ("only pretend to verify").
    Null,
}

/// Every kind with fio's name for it, in fio's HOWTO order (`crc32c-intel` is an alias).
pub const ALL_KINDS: &[VerifyKind] = &[
    VerifyKind::Md5,
    VerifyKind::Crc64,
    VerifyKind::Crc32c,
    VerifyKind::Crc32,
    VerifyKind::Crc16,
    VerifyKind::Crc7,
    VerifyKind::Xxhash,
    VerifyKind::Sha512,
    VerifyKind::Sha256,
    VerifyKind::Sha1,
    VerifyKind::Sha3_224,
    VerifyKind::Sha3_256,
    VerifyKind::Sha3_384,
    VerifyKind::Sha3_512,
    VerifyKind::Meta,
    VerifyKind::Pattern,
    VerifyKind::Null,
];

impl VerifyKind {
    /// Parses fio's `verify=` value (case-insensitive; `crc32c-intel` is `crc32c`; `0` is
    /// fio's "verify off" and is not a kind: the option setter handles it).
    pub fn parse(text: &str) -> Result<VerifyKind, VerifyError> {
        let lower = text.trim().to_ascii_lowercase();
        if lower == "crc32c-intel" {
            return Ok(VerifyKind::Crc32c);
        }
        ALL_KINDS
            .iter()
            .copied()
            .find(|kind| kind.name() == lower)
            .ok_or_else(|| VerifyError::UnknownKind {
                value: text.to_string(),
            })
    }

    /// fio's name for the kind.
    pub fn name(self) -> &'static str {
        match self {
            VerifyKind::Md5 => "md5",
            VerifyKind::Crc64 => "crc64",
            VerifyKind::Crc32c => "crc32c",
            VerifyKind::Crc32 => "crc32",
            VerifyKind::Crc16 => "crc16",
            VerifyKind::Crc7 => "crc7",
            VerifyKind::Xxhash => "xxhash",
            VerifyKind::Sha1 => "sha1",
            VerifyKind::Sha256 => "sha256",
            VerifyKind::Sha512 => "sha512",
            VerifyKind::Sha3_224 => "sha3-224",
            VerifyKind::Sha3_256 => "sha3-256",
            VerifyKind::Sha3_384 => "sha3-384",
            VerifyKind::Sha3_512 => "sha3-512",
            VerifyKind::Meta => "meta",
            VerifyKind::Pattern => "pattern",
            VerifyKind::Null => "null",
        }
    }

    /// How many checksum bytes the header stores for this kind (0 for meta, pattern, null).
    pub fn digest_len(self) -> usize {
        match self {
            VerifyKind::Md5 => 16,
            VerifyKind::Crc64 => 8,
            VerifyKind::Crc32c | VerifyKind::Crc32 | VerifyKind::Xxhash => 4,
            VerifyKind::Crc16 => 2,
            VerifyKind::Crc7 => 1,
            VerifyKind::Sha1 => 20,
            VerifyKind::Sha256 | VerifyKind::Sha3_256 => 32,
            VerifyKind::Sha512 | VerifyKind::Sha3_512 => 64,
            VerifyKind::Sha3_224 => 28,
            VerifyKind::Sha3_384 => 48,
            VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::Null => 0,
        }
    }

    /// Whether blocks of this kind carry the verify header (all but `pattern` and `null`).
    pub fn has_header(self) -> bool {
        !matches!(self, VerifyKind::Pattern | VerifyKind::Null)
    }

    /// The number stored in the header's kind byte (stable: part of the on-disk layout).
    pub(crate) fn code(self) -> u8 {
        ALL_KINDS
            .iter()
            .position(|kind| *kind == self)
            .map_or(0, |index| index as u8 + 1)
    }

    /// The kind whose header code is `code`, if any.
    pub(crate) fn from_code(code: u8) -> Option<VerifyKind> {
        let index = usize::from(code).checked_sub(1)?;
        ALL_KINDS.get(index).copied()
    }
}

impl fmt::Display for VerifyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A computed checksum: up to [`MAX_DIGEST_LEN`] bytes, kept inline (no allocation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DigestBytes {
    len: u8,
    bytes: [u8; MAX_DIGEST_LEN],
}

impl DigestBytes {
    /// A digest holding `bytes` (at most [`MAX_DIGEST_LEN`]; longer input is cut).
    pub fn new(bytes: &[u8]) -> DigestBytes {
        let len = bytes.len().min(MAX_DIGEST_LEN);
        let mut out = [0u8; MAX_DIGEST_LEN];
        out[..len].copy_from_slice(&bytes[..len]);
        DigestBytes {
            len: len as u8,
            bytes: out,
        }
    }

    /// The checksum bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Debug for DigestBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DigestBytes({self})")
    }
}

impl fmt::Display for DigestBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.as_bytes() {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

static CRC64: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_XZ);
static CRC16: Crc<u16, Table<16>> = Crc::<u16, Table<16>>::new(&CRC_16_ARC);
static CRC7: Crc<u8, Table<16>> = Crc::<u8, Table<16>>::new(&CRC_7_MMC);

/// A running checksum of one kind, fed the data area piece by piece (the header may sit in
/// the middle of it, at `verify_offset`).
// The sha512/sha3 states are larger than the CRCs'; boxing them would allocate per block,
// which is what this type exists to avoid.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Hasher {
    Md5(md5::Md5),
    Crc64(crc::Digest<'static, u64, Table<16>>),
    Crc32c(u32),
    Crc32(crc32fast::Hasher),
    Crc16(crc::Digest<'static, u16, Table<16>>),
    Crc7(crc::Digest<'static, u8, Table<16>>),
    Xxhash(xxhash_rust::xxh32::Xxh32),
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
    Sha3_224(sha3::Sha3_224),
    Sha3_256(sha3::Sha3_256),
    Sha3_384(sha3::Sha3_384),
    Sha3_512(sha3::Sha3_512),
    None,
}

impl Hasher {
    /// A fresh checksum of `kind` (kinds without a checksum give one that ignores its input).
    pub(crate) fn new(kind: VerifyKind) -> Hasher {
        match kind {
            VerifyKind::Md5 => Hasher::Md5(md5::Md5::new()),
            VerifyKind::Crc64 => Hasher::Crc64(CRC64.digest()),
            VerifyKind::Crc32c => Hasher::Crc32c(0),
            VerifyKind::Crc32 => Hasher::Crc32(crc32fast::Hasher::new()),
            VerifyKind::Crc16 => Hasher::Crc16(CRC16.digest()),
            VerifyKind::Crc7 => Hasher::Crc7(CRC7.digest()),
            VerifyKind::Xxhash => Hasher::Xxhash(xxhash_rust::xxh32::Xxh32::new(0)),
            VerifyKind::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            VerifyKind::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            VerifyKind::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
            VerifyKind::Sha3_224 => Hasher::Sha3_224(sha3::Sha3_224::new()),
            VerifyKind::Sha3_256 => Hasher::Sha3_256(sha3::Sha3_256::new()),
            VerifyKind::Sha3_384 => Hasher::Sha3_384(sha3::Sha3_384::new()),
            VerifyKind::Sha3_512 => Hasher::Sha3_512(sha3::Sha3_512::new()),
            VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::Null => Hasher::None,
        }
    }

    /// Feeds the next piece of the data area.
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Crc64(h) => h.update(data),
            Hasher::Crc32c(crc) => *crc = crc32c::crc32c_append(*crc, data),
            Hasher::Crc32(h) => h.update(data),
            Hasher::Crc16(h) => h.update(data),
            Hasher::Crc7(h) => h.update(data),
            Hasher::Xxhash(h) => h.update(data),
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
            Hasher::Sha3_224(h) => h.update(data),
            Hasher::Sha3_256(h) => h.update(data),
            Hasher::Sha3_384(h) => h.update(data),
            Hasher::Sha3_512(h) => h.update(data),
            Hasher::None => {}
        }
    }

    /// The finished checksum, big-endian for the CRCs and xxhash (as their usual hex form).
    pub(crate) fn finish(self) -> DigestBytes {
        match self {
            Hasher::Md5(h) => DigestBytes::new(&h.finalize()),
            Hasher::Crc64(h) => DigestBytes::new(&h.finalize().to_be_bytes()),
            Hasher::Crc32c(crc) => DigestBytes::new(&crc.to_be_bytes()),
            Hasher::Crc32(h) => DigestBytes::new(&h.finalize().to_be_bytes()),
            Hasher::Crc16(h) => DigestBytes::new(&h.finalize().to_be_bytes()),
            Hasher::Crc7(h) => DigestBytes::new(&[h.finalize()]),
            Hasher::Xxhash(h) => DigestBytes::new(&h.digest().to_be_bytes()),
            Hasher::Sha1(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha256(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha512(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha3_224(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha3_256(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha3_384(h) => DigestBytes::new(&h.finalize()),
            Hasher::Sha3_512(h) => DigestBytes::new(&h.finalize()),
            Hasher::None => DigestBytes::new(&[]),
        }
    }
}

/// The checksum of `kind` over `data` in one piece.
pub fn digest(kind: VerifyKind, data: &[u8]) -> DigestBytes {
    let mut hasher = Hasher::new(kind);
    hasher.update(data);
    hasher.finish()
}
