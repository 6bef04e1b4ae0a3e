//! Front-ends that turn what users already have into diskmeter jobs: fio job files, DiskSpd
//! command lines and Iometer access specifications with the guides' scenario tables.
//!
//! Every error names the file, the line and the option. Nothing here does IO: files and
//! environment variables arrive through [`fio::Sources`].
#![forbid(unsafe_code)]

pub mod diskspd;
pub mod fio;
pub mod iometer;

use thiserror::Error;

/// A problem in a job file, located.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}:{line}: {}{message}", option.as_ref().map(|o| format!("{o}: ")).unwrap_or_default())]
pub struct JobFileError {
    /// The file as named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The option on that line, if the problem is one option.
    pub option: Option<String>,
    /// What is wrong, and what to write instead.
    pub message: String,
    /// A real fio option that diskmeter does not implement (a warning with
    /// `--ignore-unsupported`).
    pub unsupported: bool,
}
