//! The [`Verifier`]: lays a block out in verify intervals, fills a block before it is written
//! and checks it after it is read back.
//!
//! A block (one IO) is cut into intervals of `verify_interval` bytes (the whole block when
//! unset). Each interval gets its data (the `verify_pattern`, or the seeded stream of
//! [`crate::payload`]) and, for kinds with a header, the header at `verify_offset` within the
//! interval holding the checksum of the rest. fio swaps the header with the data at
//! `verify_offset`; diskmeter writes the header there directly, which leaves the same bytes
//! in place of fio's header and needs no swap back.

use serde::{Deserialize, Serialize};

use crate::classify::{classify_interval, IntervalView};
use crate::error::VerifyError;
use crate::header::{header_len, Header};
use crate::kind::{Hasher, VerifyKind};
use crate::mismatch::Mismatch;
use crate::pattern::VerifyPattern;
use crate::payload;

/// How a job verifies: the parsed `verify`, `verify_interval`, `verify_offset` and
/// `verify_pattern`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifySetup {
    /// `verify=`.
    pub kind: VerifyKind,
    /// `verify_interval` in bytes; `None` is fio's default, the block size.
    pub interval_bytes: Option<u32>,
    /// `verify_offset` in bytes: where the header sits within each interval (fio default 0).
    pub header_offset_bytes: u32,
    /// `verify_pattern`; `None` fills with the seeded pseudo-random stream.
    pub pattern: Option<VerifyPattern>,
}

/// Who wrote a block and where: the values stamped into (and expected from) each interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// File offset of the block's first byte.
    pub offset: u64,
    /// Which write of this offset this is, as the runner counts (a lost write shows as an
    /// older generation).
    pub generation: u64,
    /// The job's verify seed (from `randseed` or the job's seed).
    pub seed: u64,
    /// The job's number.
    pub job: u32,
}

/// Fills and checks blocks for one [`VerifySetup`]. Cheap to share: it holds no buffers.
#[derive(Debug, Clone)]
pub struct Verifier {
    setup: VerifySetup,
    header_len: usize,
}

/// Whether [`Verifier::check`] compares the generation (a lost write shows only when it does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerationCheck {
    /// The header's generation must equal the stamp's.
    Exact,
    /// Any generation is accepted (e.g. `verify_only` without a saved verify state, where the
    /// runner does not know how often each block was written).
    Any,
}

impl Verifier {
    /// Checks the setup (verify=pattern needs a pattern; the header must fit in an interval
    /// at verify_offset) and makes a verifier.
    pub fn new(setup: VerifySetup) -> Result<Verifier, VerifyError> {
        if setup.kind == VerifyKind::Pattern && setup.pattern.is_none() {
            return Err(VerifyError::PatternKindWithoutPattern);
        }
        if setup.interval_bytes == Some(0) {
            return Err(VerifyError::ZeroInterval);
        }
        let header_len = header_len(setup.kind);
        if let Some(interval) = setup.interval_bytes {
            check_fits(interval as usize, header_len, setup.header_offset_bytes)?;
        }
        Ok(Verifier { setup, header_len })
    }

    /// The setup this verifier applies.
    pub fn setup(&self) -> &VerifySetup {
        &self.setup
    }

    /// The header length in bytes (0 for pattern and null).
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// Checks that blocks of `block_bytes` can be verified: a multiple of the interval, each
    /// interval long enough for the header at verify_offset. The runner calls it for every
    /// block size a job can issue, before the run.
    pub fn check_block_len(&self, block_bytes: u64) -> Result<(), VerifyError> {
        let interval = self.interval_for(block_bytes as usize);
        if !block_bytes.is_multiple_of(interval as u64) {
            return Err(VerifyError::BlockNotMultipleOfInterval {
                block_bytes,
                interval_bytes: interval as u64,
            });
        }
        check_fits(interval, self.header_len, self.setup.header_offset_bytes)
    }

    /// The interval length used for blocks of `block_len` bytes.
    fn interval_for(&self, block_len: usize) -> usize {
        match self.setup.interval_bytes {
            Some(interval) => (interval as usize).min(block_len).max(1),
            None => block_len.max(1),
        }
    }

    /// The intervals of a block: (start within the block, length). A short tail that cannot
    /// hold a header joins the interval before it (blocks that passed
    /// [`Verifier::check_block_len`] have none).
    fn intervals(&self, block_len: usize) -> impl Iterator<Item = (usize, usize)> {
        let interval = self.interval_for(block_len);
        let minimum = self.header_len + self.setup.header_offset_bytes as usize;
        let full = block_len / interval;
        let tail = block_len % interval;
        let (count, last_len) = if tail == 0 {
            (full, interval)
        } else if tail >= minimum || full == 0 {
            (full + 1, tail)
        } else {
            (full, interval + tail)
        };
        (0..count).map(move |index| {
            let len = if index + 1 == count {
                last_len
            } else {
                interval
            };
            (index * interval, len)
        })
    }

    /// Fills `block` (the whole buffer of one write) for the write described by `stamp`:
    /// data, then each interval's header with its checksum. Allocates nothing. Filling a
    /// buffer with the stamp a check expected also gives the expected contents of a failed
    /// block (what `verify_dump` writes beside the found ones).
    pub fn fill(&self, block: &mut [u8], stamp: &Stamp) {
        if let Some(pattern) = &self.setup.pattern {
            pattern.fill(block, stamp.offset);
        }
        let block_len = block.len();
        for (start, len) in self.intervals(block_len) {
            let interval = &mut block[start..start + len];
            let interval_offset = stamp.offset + start as u64;
            if self.setup.pattern.is_none() {
                payload::fill(
                    interval,
                    payload::key(stamp.seed, interval_offset, stamp.generation),
                );
            }
            // A block too short for the layout (refused by check_block_len) gets no header;
            // its check reports that rather than this panicking.
            let room = self.setup.header_offset_bytes as usize + self.header_len;
            if self.setup.kind.has_header() && interval.len() >= room {
                self.write_header(interval, interval_offset, block_len, stamp);
            }
        }
    }

    /// Writes the header of one interval over its data (at verify_offset).
    fn write_header(
        &self,
        interval: &mut [u8],
        interval_offset: u64,
        block_len: usize,
        stamp: &Stamp,
    ) {
        let at = self.setup.header_offset_bytes as usize;
        let digest = self.data_digest(interval);
        let header = Header {
            kind: self.setup.kind,
            interval_len: interval.len() as u32,
            job: stamp.job,
            offset: interval_offset,
            generation: stamp.generation,
            seed: stamp.seed,
            block_len: block_len as u32,
            digest,
        };
        header.encode(&mut interval[at..at + self.header_len]);
    }

    /// The checksum of an interval outside its header.
    pub(crate) fn data_digest(&self, interval: &[u8]) -> crate::DigestBytes {
        let at = (self.setup.header_offset_bytes as usize).min(interval.len());
        let end = (at + self.header_len).min(interval.len());
        let mut hasher = Hasher::new(self.setup.kind);
        hasher.update(&interval[..at]);
        hasher.update(&interval[end..]);
        hasher.finish()
    }

    /// Checks `block` as read back against the write described by `expected`, comparing
    /// generations exactly. Returns the first failed interval, classified, with the count of
    /// failed intervals; allocates only when the block is bad.
    pub fn check(&self, block: &[u8], expected: &Stamp) -> Result<(), Box<Mismatch>> {
        self.check_with(block, expected, GenerationCheck::Exact)
    }

    /// [`Verifier::check`] with a choice of how the generation is compared.
    pub fn check_with(
        &self,
        block: &[u8],
        expected: &Stamp,
        generations: GenerationCheck,
    ) -> Result<(), Box<Mismatch>> {
        if self.setup.kind == VerifyKind::Null {
            return Ok(());
        }
        let mut first: Option<Mismatch> = None;
        let mut bad = 0u32;
        let mut count = 0u32;
        for (start, len) in self.intervals(block.len()) {
            count += 1;
            let view = IntervalView {
                verifier: self,
                block,
                start,
                len,
                expected,
                generations,
            };
            if let Some(failure) = classify_interval(&view) {
                bad += 1;
                if first.is_none() {
                    first = Some(Mismatch {
                        offset: expected.offset + start as u64,
                        len: len as u32,
                        failure,
                        bad_intervals: 0,
                        intervals: 0,
                    });
                }
            }
        }
        match first {
            None => Ok(()),
            Some(mut mismatch) => {
                mismatch.bad_intervals = bad;
                mismatch.intervals = count;
                Err(Box::new(mismatch))
            }
        }
    }
}

/// Whether a header of `header_len` fits in `interval` bytes at `header_offset`.
fn check_fits(interval: usize, header_len: usize, header_offset: u32) -> Result<(), VerifyError> {
    if header_len > 0 && header_offset as usize + header_len > interval {
        return Err(VerifyError::IntervalTooShort {
            interval_bytes: interval as u64,
            header_bytes: header_len as u64,
            header_offset_bytes: u64::from(header_offset),
        });
    }
    Ok(())
}
