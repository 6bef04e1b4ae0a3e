//! What a failed check found: which interval, what class of failure, and the expected and
//! found values that show it.
//!
//! The classes are the ones a storage stack produces (see docs/guide/8-options.md, "Data
//! verification"): flipped bits (media or transfer corruption), a torn write (part of the
//! interval from another write), a lost write (an older, complete and valid version came
//! back), a misdirected write (a valid block that belongs at another offset), an unwritten
//! interval (all zeros), a block of another job, a damaged header, and data that differs
//! throughout.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::header::HeaderFault;
use crate::kind::DigestBytes;

/// The first failed interval of a block, with a count of all failed intervals in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// File offset of the failed interval's first byte.
    pub offset: u64,
    /// The interval's length in bytes.
    pub len: u32,
    /// What is wrong with it.
    pub failure: Failure,
    /// How many intervals of the block failed (this one is the first).
    pub bad_intervals: u32,
    /// How many intervals the block has.
    pub intervals: u32,
}

/// What is wrong with one interval. Offsets are file offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A few bits differ from what was written, in scattered places (at most
    /// [`crate::FLIPPED_BITS_PER_SECTOR`] per 512-byte sector): corruption in the media or on
    /// the way.
    FlippedBits {
        /// The first byte that differs.
        at: u64,
        /// How many bits differ in the interval.
        bits: u64,
        /// The byte that was written there.
        expected: u8,
        /// The byte read back.
        found: u8,
    },
    /// Some 512-byte sectors hold what was written and others hold data of another write:
    /// the write was torn (only part of it reached the medium).
    Torn {
        /// The first sector from the other write.
        at: u64,
        /// How many bytes (whole sectors) came from the other write.
        foreign_bytes: u64,
        /// The generation in the header read back (the older write when the header's
        /// sector is the torn one).
        header_generation: Option<u64>,
    },
    /// A complete, valid interval of an older generation: the last write never landed.
    LostWrite {
        /// The generation the runner wrote last.
        expected_generation: u64,
        /// The generation read back.
        found_generation: u64,
    },
    /// A complete, valid interval of a newer generation than the runner expects: its record
    /// of writes is behind (e.g. a verify state from an earlier point).
    NewerGeneration {
        /// The generation the runner expects.
        expected_generation: u64,
        /// The generation read back.
        found_generation: u64,
    },
    /// A complete, valid interval whose header (or, for `verify=pattern`, whose `%o`) names
    /// another offset: a write meant for `found_offset` landed here.
    Misdirected {
        /// The offset the interval was written for.
        found_offset: u64,
        /// Its generation (`None` for `verify=pattern`, which has no header).
        found_generation: Option<u64>,
    },
    /// A complete, valid interval written by another job (another verify seed).
    OtherJob {
        /// This job's seed.
        expected_seed: u64,
        /// The seed read back.
        found_seed: u64,
        /// The writer's job number.
        found_job: u32,
    },
    /// The interval reads back as all zeros: never written, discarded, or a lost write over
    /// a fresh area.
    Unwritten,
    /// The header is damaged or missing and the data does not match what was written either.
    BadHeader {
        /// What is wrong with the header.
        fault: HeaderFault,
    },
    /// The header is valid but the data's checksum is not, and no sector-level explanation
    /// (flipped bits, torn) fits.
    Checksum {
        /// The checksum stored in the header.
        expected: DigestBytes,
        /// The checksum of the data read back.
        found: DigestBytes,
    },
    /// The data differs from what was written throughout (every sector), with no valid
    /// header to say whose it is.
    Corrupt {
        /// The first byte that differs.
        at: u64,
        /// The byte that was written there.
        expected: u8,
        /// The byte read back.
        found: u8,
    },
}

/// The class of a [`Failure`], for counting (its name is the results' key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// [`Failure::FlippedBits`].
    FlippedBits,
    /// [`Failure::Torn`].
    Torn,
    /// [`Failure::LostWrite`].
    LostWrite,
    /// [`Failure::NewerGeneration`].
    NewerGeneration,
    /// [`Failure::Misdirected`].
    Misdirected,
    /// [`Failure::OtherJob`].
    OtherJob,
    /// [`Failure::Unwritten`].
    Unwritten,
    /// [`Failure::BadHeader`].
    BadHeader,
    /// [`Failure::Checksum`].
    Checksum,
    /// [`Failure::Corrupt`].
    Corrupt,
}

impl FailureClass {
    /// Every class, in the order results list them.
    pub const ALL: [FailureClass; 10] = [
        FailureClass::FlippedBits,
        FailureClass::Torn,
        FailureClass::LostWrite,
        FailureClass::NewerGeneration,
        FailureClass::Misdirected,
        FailureClass::OtherJob,
        FailureClass::Unwritten,
        FailureClass::BadHeader,
        FailureClass::Checksum,
        FailureClass::Corrupt,
    ];

    /// The class's name in results (snake_case).
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::FlippedBits => "flipped_bits",
            FailureClass::Torn => "torn",
            FailureClass::LostWrite => "lost_write",
            FailureClass::NewerGeneration => "newer_generation",
            FailureClass::Misdirected => "misdirected",
            FailureClass::OtherJob => "other_job",
            FailureClass::Unwritten => "unwritten",
            FailureClass::BadHeader => "bad_header",
            FailureClass::Checksum => "checksum",
            FailureClass::Corrupt => "corrupt",
        }
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Failure {
    /// The failure's class.
    pub fn class(&self) -> FailureClass {
        match self {
            Failure::FlippedBits { .. } => FailureClass::FlippedBits,
            Failure::Torn { .. } => FailureClass::Torn,
            Failure::LostWrite { .. } => FailureClass::LostWrite,
            Failure::NewerGeneration { .. } => FailureClass::NewerGeneration,
            Failure::Misdirected { .. } => FailureClass::Misdirected,
            Failure::OtherJob { .. } => FailureClass::OtherJob,
            Failure::Unwritten => FailureClass::Unwritten,
            Failure::BadHeader { .. } => FailureClass::BadHeader,
            Failure::Checksum { .. } => FailureClass::Checksum,
            Failure::Corrupt { .. } => FailureClass::Corrupt,
        }
    }
}

impl Mismatch {
    /// The failure's class.
    pub fn class(&self) -> FailureClass {
        self.failure.class()
    }

    /// Where the damage is: the first differing byte of flipped bits or corrupt data, the
    /// first foreign sector of a torn write, else the failed interval's start (a lost,
    /// misdirected or unwritten interval is wrong as a whole).
    pub fn damage_offset(&self) -> u64 {
        match self.failure {
            Failure::FlippedBits { at, .. }
            | Failure::Torn { at, .. }
            | Failure::Corrupt { at, .. } => at,
            _ => self.offset,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::FlippedBits {
                at,
                bits,
                expected,
                found,
            } => write!(
                f,
                "flipped bits: {bits} bit(s) differ, first at offset {at}: expected {expected:#04x}, found {found:#04x}"
            ),
            Failure::Torn {
                at,
                foreign_bytes,
                header_generation,
            } => {
                write!(
                    f,
                    "torn write: {foreign_bytes} bytes from another write, first at offset {at}"
                )?;
                if let Some(generation) = header_generation {
                    write!(f, " (header generation {generation})")?;
                }
                Ok(())
            }
            Failure::LostWrite {
                expected_generation,
                found_generation,
            } => write!(
                f,
                "lost write: expected generation {expected_generation}, found older generation {found_generation}"
            ),
            Failure::NewerGeneration {
                expected_generation,
                found_generation,
            } => write!(
                f,
                "newer generation than recorded: expected {expected_generation}, found {found_generation}"
            ),
            Failure::Misdirected {
                found_offset,
                found_generation,
            } => {
                write!(
                    f,
                    "misdirected write: found the block written for offset {found_offset}"
                )?;
                if let Some(generation) = found_generation {
                    write!(f, " (generation {generation})")?;
                }
                Ok(())
            }
            Failure::OtherJob {
                expected_seed,
                found_seed,
                found_job,
            } => write!(
                f,
                "written by another job: expected seed {expected_seed:#x}, found seed {found_seed:#x} (job {found_job})"
            ),
            Failure::Unwritten => f.write_str("unwritten: reads back as all zeros"),
            Failure::BadHeader { fault } => write!(f, "bad header: {fault}"),
            Failure::Checksum { expected, found } => write!(
                f,
                "checksum mismatch: expected {expected}, found {found}"
            ),
            Failure::Corrupt {
                at,
                expected,
                found,
            } => write!(
                f,
                "corrupt: data differs throughout, first at offset {at}: expected {expected:#04x}, found {found:#04x}"
            ),
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "verify failed at offset {} (interval of {} bytes): {}",
            self.offset, self.len, self.failure
        )?;
        if self.bad_intervals > 1 {
            write!(
                f,
                "; {} of {} intervals in the block failed",
                self.bad_intervals, self.intervals
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Mismatch {}
