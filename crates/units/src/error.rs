//! `UnitError`: every way a size, time, number, percentage or CPU list can fail to parse.
//!
//! Each message quotes the text as given and says what was expected, so a front-end can put
//! the option name in front of it (`bs=4q: '4q' is not a size: ...`) and be done.

use thiserror::Error;

/// Why a piece of text is not the value an option needs.
///
/// `what` names the expected kind with its article ("a size", "a time", "an integer") so the
/// messages read as sentences.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UnitError {
    /// The value is empty (or only blanks), e.g. `bs=`.
    #[error("empty value: expected {what}")]
    Empty {
        /// The expected kind, e.g. "a size".
        what: &'static str,
    },

    /// The value does not start with a digit, e.g. `bs=k4` or `runtime=ten`.
    #[error("'{text}' is not {what}: it must start with a number{example}")]
    NoNumber {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
        /// A short example (with a leading " (e.g. ...)"), or empty.
        example: &'static str,
    },

    /// A minus sign: sizes, times and counts are never negative (fio would wrap them to huge values).
    #[error("'{text}' is not {what}: negative values are not allowed")]
    Negative {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
    },

    /// A fraction such as `1.5m`: fio's parser stops at the '.' and silently uses the integer
    /// part with no unit, so diskmeter refuses rather than guess.
    #[error("'{text}' is not {what}: fractions are not allowed ({hint})")]
    Fraction {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
        /// How to write the value with a smaller unit.
        hint: String,
    },

    /// A percentage (`50%`) where an absolute value is needed. fio reads a share of the
    /// target for `size`, `offset`, `io_size` and `offset_increment`; the callers take it for
    /// `size` and `offset` and report this error for the others.
    #[error("'{text}' is a percentage; {what} in absolute units is needed here (e.g. 10g)")]
    Percent {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
    },

    /// The value does not fit in 64 bits once its unit is applied.
    #[error("'{text}' is too large for {what}")]
    Overflow {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
    },

    /// Any other malformed value; `reason` says what is wrong and how to write it.
    #[error("'{text}' is not {what}: {reason}")]
    Malformed {
        /// The text as given.
        text: String,
        /// The expected kind.
        what: &'static str,
        /// What is wrong, in a few words.
        reason: String,
    },
}
