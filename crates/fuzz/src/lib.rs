//! Fuzzing on stable Rust: every parser diskmeter reads user input with gets millions of
//! generated inputs, each checked for panics, hangs and broken promises.
//!
//! One [`Target`] per kind of input ([`targets`]): a generator that builds inputs from the
//! grammar (the real option names, switches, keys and units) and by mutating seed inputs, and
//! a check that calls the same functions the command line calls, up to the point where IO
//! would start. A returned error is the right answer to a malformed input; the check also
//! holds the project's promises about errors (a message, and for files the file and line).
//! [`campaign`] runs a target over many inputs on several threads, catching panics, spotting
//! hangs and saving every failing input so `diskmeter-fuzz replay` runs it again.
//!
//! An input is a pure function of the campaign's seed, the target and its index, and its
//! saved form is what the target's check reads (a job-file bundle, an argument list, a
//! log), so a failure found in a campaign of millions is a file that fails on its own.
#![forbid(unsafe_code)]

pub mod campaign;
pub mod dryrun;
pub mod gen;
pub mod mutate;
pub mod options;
pub mod seeds;
pub mod targets;

pub use campaign::{run, Failure, FailureKind, Report, Settings};
pub use gen::Gen;

/// What a parser made of one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It took the input.
    Accepted,
    /// It refused the input with this message (the right answer to a malformed input).
    Refused(String),
    /// It broke a promise the project makes about its answers: what, and how.
    Broken(String),
}

/// One kind of input: how to make one, and how to check what the parser does with it.
pub trait Target: Send + Sync {
    /// The name campaigns and saved files use (`jobfile`, `diskspd`, ...).
    fn name(&self) -> &'static str;
    /// The extension of a saved input.
    fn extension(&self) -> &'static str;
    /// A new input, in its saved form.
    fn generate(&self, g: &mut Gen) -> Vec<u8>;
    /// Runs the parser (and what the command does with its answer short of IO) on `input`.
    fn check(&self, input: &[u8]) -> Verdict;
}

/// The verdict of an error: refused with its message, or broken when the message is empty.
pub(crate) fn refused(message: String) -> Verdict {
    if message.trim().is_empty() {
        Verdict::Broken("an error with an empty message".to_string())
    } else {
        Verdict::Refused(message)
    }
}
