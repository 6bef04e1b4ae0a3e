//! Why a verify setting cannot be used: an unknown kind, a malformed `verify_pattern`, or a
//! layout (interval, header offset, block size) that cannot hold the header.

use thiserror::Error;

/// Why a `verify=` value, a `verify_pattern` or a verify layout cannot be used. The option
/// parser puts the file, line and option in front.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VerifyError {
    /// A `verify=` value that is none of fio's kinds.
    #[error(
        "'{value}' is not a verify kind (md5, crc64, crc32c, crc32c-intel, crc32, crc16, crc7, \
         xxhash, sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, sha3-512, meta, pattern, null)"
    )]
    UnknownKind {
        /// The value as written.
        value: String,
    },

    /// A `verify_pattern` piece that is not a number, a quoted string or `%o`.
    #[error("verify_pattern '{pattern}': cannot read '{rest}' (expected 0x hex, a decimal number, a \"quoted string\" or %o)")]
    BadPattern {
        /// The whole pattern as written.
        pattern: String,
        /// The part from where reading stopped.
        rest: String,
    },

    /// A decimal `verify_pattern` piece outside fio's range (a C int).
    #[error("verify_pattern '{pattern}': the number '{number}' is outside -2147483648..2147483647, fio's range for decimals (use 0x hex for longer patterns)")]
    PatternNumberTooLarge {
        /// The whole pattern as written.
        pattern: String,
        /// The number as written.
        number: String,
    },

    /// fio's `'file'` form, which reads the pattern from a file at run time.
    #[error("verify_pattern '{pattern}': the 'file' form (pattern bytes read from a file) is not supported for verify_pattern; write the bytes as 0x hex")]
    PatternFile {
        /// The whole pattern as written.
        pattern: String,
    },

    /// A quoted string in `verify_pattern` with no closing quote.
    #[error("verify_pattern '{pattern}': a quoted string has no closing quote")]
    UnclosedQuote {
        /// The whole pattern as written.
        pattern: String,
    },

    /// An empty `verify_pattern` (or one that expands to no bytes).
    #[error("verify_pattern is empty")]
    EmptyPattern,

    /// A `verify_pattern` longer than fio's limit.
    #[error("verify_pattern '{pattern}' is {len} bytes; fio's limit is {max} bytes")]
    PatternTooLong {
        /// The whole pattern as written.
        pattern: String,
        /// Its length in bytes (with `%o` as 8 bytes).
        len: usize,
        /// The limit.
        max: usize,
    },

    /// `verify=pattern` with no `verify_pattern` to check.
    #[error("verify=pattern needs verify_pattern (the bytes to check)")]
    PatternKindWithoutPattern,

    /// A verify interval too short for the header (plus `verify_offset`).
    #[error("verify_interval {interval_bytes} bytes cannot hold the {header_bytes}-byte verify header at verify_offset {header_offset_bytes}")]
    IntervalTooShort {
        /// The interval (or block size when verify_interval is unset).
        interval_bytes: u64,
        /// The header length for this kind.
        header_bytes: u64,
        /// Where the header goes in each interval.
        header_offset_bytes: u64,
    },

    /// A verify interval of 0 bytes.
    #[error("verify_interval must be at least 1 byte")]
    ZeroInterval,

    /// A block size that is not a multiple of verify_interval (fio: "blocksize should divide
    /// this evenly").
    #[error("block size {block_bytes} is not a multiple of verify_interval {interval_bytes} (fio requires the block size to divide evenly)")]
    BlockNotMultipleOfInterval {
        /// The block size.
        block_bytes: u64,
        /// The interval.
        interval_bytes: u64,
    },
}
