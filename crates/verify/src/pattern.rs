//! `verify_pattern`: fio's pattern syntax (hex `0x..`, decimal numbers, `"quoted strings"`,
//! `%o` for the block's offset, in any sequence) and filling or checking a block with it.
//!
//! The syntax is fio's HOWTO `verify_pattern=str` (and `buffer_pattern=str`, which shares
//! it): "Depending on the width of the pattern, fio will fill 1/2/3/4 bytes of the buffer at
//! the time (it can be either a decimal or a hex number) ... if larger than a 32-bit quantity
//! has to be a hex number", and "%o ... for each block offset will be written", e.g.
//! `0xff%o"abcd"-12`. The byte layouts follow the examples in the comments of fio's
//! `lib/pattern.c` (`parse_and_fill_pattern`), written out in docs/guide/8-options.md: hex digits in the
//! order written (`0xdeadface` is de ad fa ce; an odd count gets a leading 0 nibble; a new
//! `0x` starts a new number, `0xFF0X1` is ff 01); a decimal from INT_MIN to INT_MAX as its 32
//! bits little-endian without high zero bytes (`66` is 42, `-12` is f4 ff ff ff); `%o` the
//! block's file offset as 8 little-endian bytes. fio's `'file'` form (bytes read from a file)
//! is refused: this crate does no IO. The pattern restarts at the start of every block.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::VerifyError;

/// fio's limit on a pattern's length in bytes (`MAX_PATTERN_SIZE`).
pub const MAX_PATTERN_BYTES: usize = 512;

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Fixed bytes (from hex, a decimal or a quoted string).
    Bytes(Vec<u8>),
    /// `%o`: the block's offset, 8 bytes little-endian.
    Offset,
}

/// A parsed `verify_pattern`. Serialised as the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct VerifyPattern {
    text: String,
    pieces: Vec<Piece>,
    len: usize,
}

/// A pattern expanded for one block (its `%o` filled in) and repeated to fill up to
/// [`MAX_PATTERN_BYTES`], so that comparing and copying go in long runs even for a one-byte
/// pattern. Lives on the stack.
pub(crate) struct Expanded {
    bytes: [u8; MAX_PATTERN_BYTES],
    len: usize,
}

impl Expanded {
    /// The repeated pattern.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Whether `bytes`, found at `start` from the start of the block, are the pattern
    /// throughout (compared in runs of the expanded pattern, not byte by byte).
    pub(crate) fn matches(&self, bytes: &[u8], start: usize) -> bool {
        let unit = self.as_bytes();
        let mut phase = start % unit.len();
        let mut rest = bytes;
        while !rest.is_empty() {
            let run = (unit.len() - phase).min(rest.len());
            if rest[..run] != unit[phase..phase + run] {
                return false;
            }
            rest = &rest[run..];
            phase = 0;
        }
        true
    }

    /// The expected byte at `position` from the start of the block.
    pub(crate) fn byte_at(&self, position: usize) -> u8 {
        self.bytes[position % self.len]
    }
}

impl VerifyPattern {
    /// Parses fio's pattern syntax (see the module doc).
    pub fn parse(text: &str) -> Result<VerifyPattern, VerifyError> {
        let mut pieces = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let (piece, after) = parse_piece(text, rest)?;
            pieces.push(piece);
            rest = after.trim_start();
        }
        let len = pieces
            .iter()
            .map(|piece| match piece {
                Piece::Bytes(bytes) => bytes.len(),
                Piece::Offset => 8,
            })
            .sum();
        if len == 0 {
            return Err(VerifyError::EmptyPattern);
        }
        if len > MAX_PATTERN_BYTES {
            return Err(VerifyError::PatternTooLong {
                pattern: text.to_string(),
                len,
                max: MAX_PATTERN_BYTES,
            });
        }
        Ok(VerifyPattern {
            text: text.to_string(),
            pieces,
            len,
        })
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The length of one repetition in bytes (`%o` counts 8).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: an empty pattern does not parse.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the pattern has `%o` (so that a block at another offset has other bytes).
    pub fn has_offset(&self) -> bool {
        self.pieces.contains(&Piece::Offset)
    }

    /// Where the first `%o` sits in the pattern (bytes from its start), if it has one.
    pub fn offset_position(&self) -> Option<usize> {
        let mut at = 0;
        for piece in &self.pieces {
            match piece {
                Piece::Offset => return Some(at),
                Piece::Bytes(bytes) => at += bytes.len(),
            }
        }
        None
    }

    /// The pattern for the block at `block_offset`, repeated to fill the expansion buffer.
    pub(crate) fn expand(&self, block_offset: u64) -> Expanded {
        let mut bytes = [0u8; MAX_PATTERN_BYTES];
        let mut at = 0;
        for piece in &self.pieces {
            let source: &[u8] = match piece {
                Piece::Bytes(b) => b,
                Piece::Offset => &block_offset.to_le_bytes(),
            };
            bytes[at..at + source.len()].copy_from_slice(source);
            at += source.len();
        }
        let repeats = MAX_PATTERN_BYTES / self.len;
        for copy in 1..repeats {
            bytes.copy_within(0..self.len, copy * self.len);
        }
        Expanded {
            bytes,
            len: repeats * self.len,
        }
    }

    /// Fills `block` (the whole IO buffer of the block at `block_offset`) with the pattern.
    pub fn fill(&self, block: &mut [u8], block_offset: u64) {
        let expanded = self.expand(block_offset);
        let unit = expanded.as_bytes();
        let head = unit.len().min(block.len());
        block[..head].copy_from_slice(&unit[..head]);
        // Doubling copies: each pass copies what is already filled, so a 1 MiB block takes
        // about 11 passes of memcpy.
        let mut filled = head;
        while filled < block.len() {
            let step = filled.min(block.len() - filled);
            // Keep the repetition aligned to the unit so the phase stays right.
            let step = step - step % unit.len();
            let step = if step == 0 {
                unit.len().min(block.len() - filled)
            } else {
                step
            };
            block.copy_within(0..step, filled);
            filled += step;
        }
    }

    /// The first position in `block` whose byte is not the pattern's, if any.
    pub fn first_difference(&self, block: &[u8], block_offset: u64) -> Option<usize> {
        let expanded = self.expand(block_offset);
        let unit = expanded.as_bytes();
        for (index, chunk) in block.chunks(unit.len()).enumerate() {
            if chunk != &unit[..chunk.len()] {
                let within = chunk
                    .iter()
                    .zip(unit)
                    .position(|(found, expected)| found != expected)
                    .unwrap_or(0);
                return Some(index * unit.len() + within);
            }
        }
        None
    }
}

impl fmt::Display for VerifyPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl TryFrom<String> for VerifyPattern {
    type Error = VerifyError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        VerifyPattern::parse(&text)
    }
}

impl From<VerifyPattern> for String {
    fn from(pattern: VerifyPattern) -> String {
        pattern.text
    }
}

/// Reads one piece from the front of `rest`; `whole` is the pattern for error messages.
fn parse_piece<'a>(whole: &str, rest: &'a str) -> Result<(Piece, &'a str), VerifyError> {
    let bad = || VerifyError::BadPattern {
        pattern: whole.to_string(),
        rest: rest.to_string(),
    };
    if let Some(after) = rest.strip_prefix("%o") {
        return Ok((Piece::Offset, after));
    }
    if rest.starts_with('\'') {
        return Err(VerifyError::PatternFile {
            pattern: whole.to_string(),
        });
    }
    if let Some(after) = rest.strip_prefix('"') {
        let end = after.find('"').ok_or_else(|| VerifyError::UnclosedQuote {
            pattern: whole.to_string(),
        })?;
        return Ok((
            Piece::Bytes(after.as_bytes()[..end].to_vec()),
            &after[end + 1..],
        ));
    }
    if let Some(after) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        let digits_len = run_before_next_hex(after, |c| c.is_ascii_hexdigit());
        if digits_len == 0 {
            return Err(bad());
        }
        let digits = &after[..digits_len];
        let mut bytes = Vec::with_capacity(digits_len.div_ceil(2));
        // An odd digit count gets a leading zero nibble: 0xabc is 0a bc.
        let mut nibbles = digits.chars().filter_map(|c| c.to_digit(16));
        if digits_len % 2 == 1 {
            bytes.push(nibbles.next().unwrap_or(0) as u8);
        }
        while let (Some(high), Some(low)) = (nibbles.next(), nibbles.next()) {
            bytes.push((high * 16 + low) as u8);
        }
        return Ok((Piece::Bytes(bytes), &after[digits_len..]));
    }
    let sign_len = usize::from(rest.starts_with('-'));
    let digits_len = run_before_next_hex(&rest[sign_len..], |c| c.is_ascii_digit());
    if digits_len == 0 {
        return Err(bad());
    }
    let number = &rest[..sign_len + digits_len];
    // fio reads decimals as a C int: INT_MIN to INT_MAX.
    let value = number
        .parse::<i32>()
        .map_err(|_| VerifyError::PatternNumberTooLarge {
            pattern: whole.to_string(),
            number: number.to_string(),
        })?;
    Ok((
        Piece::Bytes(decimal_bytes(value)),
        &rest[sign_len + digits_len..],
    ))
}

/// The length of the run of characters `allowed` at the start of `text`, leaving out a final
/// `0` that opens the next `0x` number (fio reads `0xff0x14` as ff 14 and `-100xab` as -10
/// then ab).
fn run_before_next_hex(text: &str, allowed: impl Fn(char) -> bool) -> usize {
    let len = text.find(|c: char| !allowed(c)).unwrap_or(text.len());
    let next_is_x = text[len..].starts_with(['x', 'X']);
    if next_is_x && text[..len].ends_with('0') {
        len - 1
    } else {
        len
    }
}

/// A decimal as fio stores it: its 32 bits (two's complement for negatives) little-endian,
/// without the high zero bytes (`66` is 42, `-1024` is 00 fc ff ff, `0` is one 00 byte).
fn decimal_bytes(value: i32) -> Vec<u8> {
    let bits = value as u32;
    let width = (4 - bits.leading_zeros() as usize / 8).max(1);
    bits.to_le_bytes()[..width].to_vec()
}
