//! The verify header: what each verified interval carries so that a read-back can tell a good
//! block from a flipped bit, a torn write, a lost write or a misdirected one.
//!
//! Layout (all integers little-endian), 48 bytes plus the kind's checksum:
//!
//! | bytes  | field          | meaning                                                     |
//! |--------|----------------|-------------------------------------------------------------|
//! | 0..4   | magic          | `dmVH`: this is a diskmeter verify header                   |
//! | 4      | layout version | 1                                                           |
//! | 5      | kind           | the `verify=` kind's code                                   |
//! | 6..8   | header length  | 48 + checksum length                                        |
//! | 8..12  | interval length| bytes this header covers (verify_interval or the block)     |
//! | 12..16 | job            | the job's number                                            |
//! | 16..24 | offset         | file offset of the interval's first byte                    |
//! | 24..32 | generation     | which write of this offset this is (the runner's count)     |
//! | 32..40 | seed           | the job's verify seed (also seeds the data)                 |
//! | 40..44 | block length   | length of the IO that wrote this interval                   |
//! | 44..48 | header crc     | CRC-32C of bytes 0..44 and the checksum bytes               |
//! | 48..   | checksum       | the kind's checksum of the interval outside the header      |
//!
//! It plays the part of fio's `struct verify_header` (magic, verify type, length, seed,
//! offset, time, thread, numberio, header crc32) with the same purpose; the layout is
//! diskmeter's own and not readable by fio.

use crate::kind::{DigestBytes, VerifyKind};

/// The magic bytes that open every header.
pub const MAGIC: [u8; 4] = *b"dmVH";
/// The header layout version written by this crate.
pub const LAYOUT_VERSION: u8 = 1;
/// The header's length before the checksum, in bytes.
pub const FIXED_HEADER_BYTES: usize = 48;
/// Where the header crc sits (it covers the bytes before it and the checksum after it).
const CRC_AT: usize = 44;

/// The header length for `kind` (fixed part plus checksum), 0 for kinds without a header.
pub fn header_len(kind: VerifyKind) -> usize {
    if kind.has_header() {
        FIXED_HEADER_BYTES + kind.digest_len()
    } else {
        0
    }
}

/// What one header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The kind that wrote it.
    pub kind: VerifyKind,
    /// Bytes the header covers.
    pub interval_len: u32,
    /// The writing job's number.
    pub job: u32,
    /// File offset of the interval's first byte.
    pub offset: u64,
    /// Which write of this offset it is.
    pub generation: u64,
    /// The job's verify seed.
    pub seed: u64,
    /// Length of the IO that wrote the interval.
    pub block_len: u32,
    /// The checksum of the interval outside the header.
    pub digest: DigestBytes,
}

/// Why the bytes where a header should be are not a valid header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderFault {
    /// The magic is not `dmVH`: no header was ever written here, or it was overwritten.
    Magic {
        /// The four bytes found, as a little-endian number.
        found: u32,
    },
    /// A layout version this crate does not read.
    Version {
        /// The version byte found.
        found: u8,
    },
    /// The header names another verify kind (or an unknown code).
    Kind {
        /// The kind expected.
        expected: VerifyKind,
        /// The code found.
        found_code: u8,
    },
    /// The header-length field disagrees with the kind.
    Length {
        /// The length the kind implies.
        expected: u16,
        /// The length found.
        found: u16,
    },
    /// The header crc does not match its bytes.
    Crc {
        /// The crc computed over the found bytes.
        expected: u32,
        /// The crc stored.
        found: u32,
    },
    /// The interval is too short to hold a header at `verify_offset` (a block shorter than
    /// the layout allows; [`crate::Verifier::check_block_len`] refuses such sizes up front).
    Short {
        /// Bytes the header needs from the interval's start.
        needed: u32,
        /// Bytes the interval has.
        found: u32,
    },
    /// The interval-length field disagrees with the interval being checked.
    IntervalLength {
        /// The interval's length.
        expected: u32,
        /// The length found.
        found: u32,
    },
}

impl std::fmt::Display for HeaderFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderFault::Magic { found } => write!(
                f,
                "no header magic (expected {:#010x}, found {found:#010x})",
                u32::from_le_bytes(MAGIC)
            ),
            HeaderFault::Version { found } => {
                write!(f, "layout version {found}, expected {LAYOUT_VERSION}")
            }
            HeaderFault::Kind {
                expected,
                found_code,
            } => match VerifyKind::from_code(*found_code) {
                Some(found) => write!(f, "written with verify={found}, expected {expected}"),
                None => write!(f, "unknown kind code {found_code}, expected {expected}"),
            },
            HeaderFault::Length { expected, found } => {
                write!(f, "header length {found}, expected {expected}")
            }
            HeaderFault::Crc { expected, found } => write!(
                f,
                "header crc mismatch (computed {expected:#010x}, stored {found:#010x})"
            ),
            HeaderFault::Short { needed, found } => write!(
                f,
                "the interval has {found} bytes, the header needs {needed}"
            ),
            HeaderFault::IntervalLength { expected, found } => {
                write!(f, "header covers {found} bytes, expected {expected}")
            }
        }
    }
}

impl Header {
    /// Writes the header into the first [`header_len`] bytes of `out`.
    ///
    /// # Panics
    /// When `out` is shorter than that (the caller sizes it from [`header_len`]).
    pub fn encode(&self, out: &mut [u8]) {
        let len = header_len(self.kind);
        let out = &mut out[..len];
        out[0..4].copy_from_slice(&MAGIC);
        out[4] = LAYOUT_VERSION;
        out[5] = self.kind.code();
        out[6..8].copy_from_slice(&(len as u16).to_le_bytes());
        out[8..12].copy_from_slice(&self.interval_len.to_le_bytes());
        out[12..16].copy_from_slice(&self.job.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..32].copy_from_slice(&self.generation.to_le_bytes());
        out[32..40].copy_from_slice(&self.seed.to_le_bytes());
        out[40..44].copy_from_slice(&self.block_len.to_le_bytes());
        out[FIXED_HEADER_BYTES..].copy_from_slice(self.digest.as_bytes());
        let crc = header_crc(out);
        out[CRC_AT..FIXED_HEADER_BYTES].copy_from_slice(&crc.to_le_bytes());
    }

    /// Reads a header of `kind` from the start of `bytes`.
    pub fn decode(bytes: &[u8], kind: VerifyKind) -> Result<Header, HeaderFault> {
        let len = header_len(kind);
        let bytes = bytes.get(..len).ok_or(HeaderFault::Short {
            needed: len as u32,
            found: bytes.len() as u32,
        })?;
        let magic: [u8; 4] = bytes[0..4].try_into().unwrap_or_default();
        if magic != MAGIC {
            return Err(HeaderFault::Magic {
                found: u32::from_le_bytes(magic),
            });
        }
        if bytes[4] != LAYOUT_VERSION {
            return Err(HeaderFault::Version { found: bytes[4] });
        }
        // The crc first: a flipped bit in the kind or length is a damaged header, not a
        // header of another kind.
        let stored = read_u32(bytes, CRC_AT);
        let computed = header_crc(bytes);
        if stored != computed {
            return Err(HeaderFault::Crc {
                expected: computed,
                found: stored,
            });
        }
        if bytes[5] != kind.code() {
            return Err(HeaderFault::Kind {
                expected: kind,
                found_code: bytes[5],
            });
        }
        let found_len = u16::from_le_bytes([bytes[6], bytes[7]]);
        if usize::from(found_len) != len {
            return Err(HeaderFault::Length {
                expected: len as u16,
                found: found_len,
            });
        }
        Ok(Header {
            kind,
            interval_len: read_u32(bytes, 8),
            job: read_u32(bytes, 12),
            offset: read_u64(bytes, 16),
            generation: read_u64(bytes, 24),
            seed: read_u64(bytes, 32),
            block_len: read_u32(bytes, 40),
            digest: DigestBytes::new(&bytes[FIXED_HEADER_BYTES..]),
        })
    }
}

/// The header crc: CRC-32C of the fixed fields before it and of the checksum after it.
fn header_crc(header: &[u8]) -> u32 {
    let crc = crc32c::crc32c(&header[..CRC_AT]);
    crc32c::crc32c_append(crc, &header[FIXED_HEADER_BYTES..])
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}
