//! Checking one interval and, when it is bad, saying what kind of bad: the sector-by-sector
//! comparison that tells flipped bits from a torn write, and the header comparison that tells
//! a lost write from a misdirected one.
//!
//! The happy path costs one checksum and one header decode. Only a failed interval is compared
//! byte by byte with what its write should have put there, regenerated from the header read
//! back (when it is valid) or from the stamp the runner expected.

use crate::header::{Header, HeaderFault, FIXED_HEADER_BYTES};
use crate::kind::{VerifyKind, MAX_DIGEST_LEN};
use crate::mismatch::Failure;
use crate::pattern::Expanded;
use crate::payload;
use crate::verifier::{GenerationCheck, Stamp, Verifier};

/// The unit of the torn-write analysis: a torn write leaves whole sectors of one write and
/// whole sectors of another.
pub const SECTOR_BYTES: usize = 512;

/// At most this many differing bits in a 512-byte sector count as flipped bits; more mean the
/// sector holds another write's data (two unrelated sectors differ in about 2048 bits).
pub const FLIPPED_BITS_PER_SECTOR: u32 = 64;

/// One interval of a block being checked.
pub(crate) struct IntervalView<'a> {
    pub(crate) verifier: &'a Verifier,
    pub(crate) block: &'a [u8],
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) expected: &'a Stamp,
    pub(crate) generations: GenerationCheck,
}

impl IntervalView<'_> {
    fn bytes(&self) -> &[u8] {
        &self.block[self.start..self.start + self.len]
    }

    fn file_offset(&self) -> u64 {
        self.expected.offset + self.start as u64
    }
}

/// Checks one interval: `None` when it is good, else what is wrong.
pub(crate) fn classify_interval(view: &IntervalView<'_>) -> Option<Failure> {
    let setup = view.verifier.setup();
    let interval = view.bytes();
    if setup.kind == VerifyKind::Pattern {
        let pattern = setup.pattern.as_ref()?;
        let expanded = pattern.expand(view.expected.offset);
        if expanded.matches(interval, view.start) {
            return None;
        }
        if interval.iter().all(|byte| *byte == 0) {
            return Some(Failure::Unwritten);
        }
        if let Some(found_offset) = pattern_offset_elsewhere(view) {
            return Some(Failure::Misdirected {
                found_offset,
                found_generation: None,
            });
        }
        let analysis = analyse(view, &Source::Pattern(&expanded), None);
        return Some(
            analysis
                .verdict(view, None)
                .unwrap_or_else(|| analysis.corrupt(view)),
        );
    }
    let at = setup.header_offset_bytes as usize;
    let Some(header_bytes) = interval.get(at..) else {
        return Some(Failure::BadHeader {
            fault: HeaderFault::Short {
                needed: (at + view.verifier.header_len()) as u32,
                found: interval.len() as u32,
            },
        });
    };
    match Header::decode(header_bytes, setup.kind) {
        Ok(header) => check_against_header(view, &header),
        Err(fault @ HeaderFault::Short { .. }) => Some(Failure::BadHeader { fault }),
        Err(fault) => {
            if interval.iter().all(|byte| *byte == 0) {
                return Some(Failure::Unwritten);
            }
            let key = payload::key(
                view.expected.seed,
                view.file_offset(),
                view.expected.generation,
            );
            let expanded = setup
                .pattern
                .as_ref()
                .map(|pattern| pattern.expand(view.expected.offset));
            let source = match &expanded {
                Some(expanded) => Source::Pattern(expanded),
                None => Source::Stream(key),
            };
            let expected_header = expected_header(view);
            let analysis = analyse(view, &source, Some(&expected_header));
            Some(
                analysis
                    .verdict(view, None)
                    .unwrap_or(Failure::BadHeader { fault }),
            )
        }
    }
}

/// For `verify=pattern` with `%o`: the other block offset whose pattern the whole interval
/// is, read from where the block's first `%o` was written, if it is one.
fn pattern_offset_elsewhere(view: &IntervalView<'_>) -> Option<u64> {
    let pattern = view.verifier.setup().pattern.as_ref()?;
    let at = pattern.offset_position()?;
    let bytes = view.block.get(at..at + 8)?;
    let found_offset = u64::from_le_bytes(bytes.try_into().ok()?);
    if found_offset == view.expected.offset {
        return None;
    }
    pattern
        .expand(found_offset)
        .matches(view.bytes(), view.start)
        .then_some(found_offset)
}

/// An interval with a valid header: its checksum, then whose block it is.
fn check_against_header(view: &IntervalView<'_>, header: &Header) -> Option<Failure> {
    let setup = view.verifier.setup();
    if header.interval_len as usize != view.len {
        return Some(Failure::BadHeader {
            fault: HeaderFault::IntervalLength {
                expected: view.len as u32,
                found: header.interval_len,
            },
        });
    }
    if setup.kind != VerifyKind::Meta {
        let found = view.verifier.data_digest(view.bytes());
        if found != header.digest {
            // The data disagrees with its own header: compare it with what that header's
            // write put there.
            let expanded = setup
                .pattern
                .as_ref()
                .map(|pattern| pattern.expand(view.expected.offset));
            let source = match &expanded {
                Some(expanded) => Source::Pattern(expanded),
                None => Source::Stream(payload::key(header.seed, header.offset, header.generation)),
            };
            let analysis = analyse(view, &source, None);
            return Some(analysis.verdict(view, Some(header.generation)).unwrap_or(
                Failure::Checksum {
                    expected: header.digest,
                    found,
                },
            ));
        }
    }
    let expected = view.expected;
    if header.offset != view.file_offset() {
        return Some(Failure::Misdirected {
            found_offset: header.offset,
            found_generation: Some(header.generation),
        });
    }
    if header.seed != expected.seed {
        return Some(Failure::OtherJob {
            expected_seed: expected.seed,
            found_seed: header.seed,
            found_job: header.job,
        });
    }
    if view.generations == GenerationCheck::Exact && header.generation != expected.generation {
        return Some(if header.generation < expected.generation {
            Failure::LostWrite {
                expected_generation: expected.generation,
                found_generation: header.generation,
            }
        } else {
            Failure::NewerGeneration {
                expected_generation: expected.generation,
                found_generation: header.generation,
            }
        });
    }
    None
}

/// The header the expected write would have put in this interval, with the checksum of the
/// data as found (equal to the written one when the data is intact).
fn expected_header(view: &IntervalView<'_>) -> ([u8; FIXED_HEADER_BYTES + MAX_DIGEST_LEN], usize) {
    let verifier = view.verifier;
    let header = Header {
        kind: verifier.setup().kind,
        interval_len: view.len as u32,
        job: view.expected.job,
        offset: view.file_offset(),
        generation: view.expected.generation,
        seed: view.expected.seed,
        block_len: view.block.len() as u32,
        digest: verifier.data_digest(view.bytes()),
    };
    let mut bytes = [0u8; FIXED_HEADER_BYTES + MAX_DIGEST_LEN];
    header.encode(&mut bytes);
    (bytes, verifier.header_len())
}

/// Where the expected data bytes come from.
enum Source<'a> {
    /// The seeded stream with this key.
    Stream(u64),
    /// The verify_pattern as expanded for the block.
    Pattern(&'a Expanded),
}

/// The sector-by-sector comparison of an interval with what should be there.
#[derive(Debug, Default)]
struct Analysis {
    matching_sectors: u32,
    flipped_sectors: u32,
    foreign_sectors: u32,
    foreign_bytes: u64,
    first_foreign: Option<usize>,
    differing_bits: u64,
    first_difference: Option<(usize, u8, u8)>,
}

/// Compares the interval with the expected data; the header region is compared with
/// `expected_header` when given and skipped otherwise (a valid header is its own write's).
fn analyse(
    view: &IntervalView<'_>,
    source: &Source<'_>,
    expected_header: Option<&([u8; FIXED_HEADER_BYTES + MAX_DIGEST_LEN], usize)>,
) -> Analysis {
    let header_at = view.verifier.setup().header_offset_bytes as usize;
    let header_len = view.verifier.header_len();
    let interval = view.bytes();
    let mut analysis = Analysis::default();
    for (sector_index, sector) in interval.chunks(SECTOR_BYTES).enumerate() {
        let sector_start = sector_index * SECTOR_BYTES;
        let mut bits = 0u32;
        for (index, found) in sector.iter().enumerate() {
            let position = sector_start + index;
            let in_header = position >= header_at && position < header_at + header_len;
            let expected = if in_header {
                match expected_header {
                    Some((bytes, _)) => bytes[position - header_at],
                    None => continue,
                }
            } else {
                match source {
                    Source::Stream(key) => payload::byte_at(*key, position),
                    Source::Pattern(expanded) => expanded.byte_at(view.start + position),
                }
            };
            let differ = (expected ^ found).count_ones();
            if differ > 0 {
                bits += differ;
                if analysis.first_difference.is_none() {
                    analysis.first_difference = Some((position, expected, *found));
                }
            }
        }
        analysis.differing_bits += u64::from(bits);
        if bits == 0 {
            analysis.matching_sectors += 1;
        } else if bits <= FLIPPED_BITS_PER_SECTOR {
            analysis.flipped_sectors += 1;
        } else {
            analysis.foreign_sectors += 1;
            analysis.foreign_bytes += sector.len() as u64;
            analysis.first_foreign.get_or_insert(sector_start);
        }
    }
    analysis
}

impl Analysis {
    /// Torn when some sectors are another write's and some are this one's; flipped bits
    /// when the differences are few per sector; `None` when neither fits (all sectors
    /// foreign, or no difference at all).
    fn verdict(&self, view: &IntervalView<'_>, header_generation: Option<u64>) -> Option<Failure> {
        let offset = view.file_offset();
        if self.foreign_sectors > 0 {
            if self.matching_sectors + self.flipped_sectors == 0 {
                return None;
            }
            return Some(Failure::Torn {
                at: offset + self.first_foreign.unwrap_or(0) as u64,
                foreign_bytes: self.foreign_bytes,
                header_generation,
            });
        }
        let (position, expected, found) = self.first_difference?;
        Some(Failure::FlippedBits {
            at: offset + position as u64,
            bits: self.differing_bits,
            expected,
            found,
        })
    }

    /// Data that differs throughout, at its first difference.
    fn corrupt(&self, view: &IntervalView<'_>) -> Failure {
        let (position, expected, found) = self.first_difference.unwrap_or((0, 0, 0));
        Failure::Corrupt {
            at: view.file_offset() + position as u64,
            expected,
            found,
        }
    }
}
