//! Trim IO (`rw=trim`, `randtrim`, `trimwrite`, `trim_*`) and what a job does when an IO fails (`continue_on_error`, `ignore_error`, `error_dump`).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_trim.rs`. The trim
//! modes themselves are [`crate::RwMode`] values; this part holds the error policy and the
//! trims fio mixes into a writing job (`trim_percentage`, `trim_backlog`).
//!
//! The error policy is fio's (`td_error.c`): an error is of the class of its IO (a read's is
//! a read error, a write's or a trim's a write error, `EILSEQ` a verify error); the job goes
//! on after it only when `continue_on_error` names that class and the errno is in the
//! class's `ignore_error` list (by default `EIO` and `EILSEQ`). `ignore_error` also turns its
//! classes on, as in fio.

use serde::{Deserialize, Serialize};

/// The class of an IO error, as fio sorts them for `continue_on_error` and `ignore_error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// A read failed.
    Read,
    /// A write or a trim failed.
    Write,
    /// A verify found bad data (fio reports it as `EILSEQ`).
    Verify,
}

/// Linux's `EIO`.
pub const EIO: i32 = 5;
/// Linux's `EILSEQ`: fio's errno for a verify failure.
pub const EILSEQ: i32 = 84;

/// The classes `continue_on_error` lets a job go on after (fio's bit mask).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ErrorClasses {
    /// Read errors.
    pub read: bool,
    /// Write and trim errors.
    pub write: bool,
    /// Verify errors.
    pub verify: bool,
}

impl ErrorClasses {
    /// fio's `continue_on_error` words: `none`/`0`, `read`, `write`, `io` (read and write),
    /// `verify`, `all`/`1`.
    pub fn parse(word: &str) -> Option<ErrorClasses> {
        let (read, write, verify) = match word {
            "none" | "0" => (false, false, false),
            "read" => (true, false, false),
            "write" => (false, true, false),
            "io" => (true, true, false),
            "verify" => (false, false, true),
            "all" | "1" => (true, true, true),
            _ => return None,
        };
        Some(ErrorClasses {
            read,
            write,
            verify,
        })
    }

    /// The word that gives these classes (fio's spelling).
    pub fn as_str(self) -> &'static str {
        match (self.read, self.write, self.verify) {
            (false, false, false) => "none",
            (true, false, false) => "read",
            (false, true, false) => "write",
            (true, true, false) => "io",
            (false, false, true) => "verify",
            // fio has no word for read+verify or write+verify (only ignore_error makes
            // them); `all` is the nearest that keeps every class on.
            _ => "all",
        }
    }

    /// Whether `class` is on.
    pub fn has(self, class: ErrorClass) -> bool {
        match class {
            ErrorClass::Read => self.read,
            ErrorClass::Write => self.write,
            ErrorClass::Verify => self.verify,
        }
    }

    /// True when any class is on.
    pub fn any(self) -> bool {
        self.read || self.write || self.verify
    }
}

/// fio's `ignore_error` lists: the errnos each class may go on after. An empty list means
/// fio's default, `EIO` and `EILSEQ`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct IgnoreErrors {
    /// Errnos a read may fail with.
    pub read: Vec<i32>,
    /// Errnos a write or trim may fail with.
    pub write: Vec<i32>,
    /// Errnos a verify may fail with.
    pub verify: Vec<i32>,
}

impl IgnoreErrors {
    /// The list of `class`.
    pub fn of(&self, class: ErrorClass) -> &[i32] {
        match class {
            ErrorClass::Read => &self.read,
            ErrorClass::Write => &self.write,
            ErrorClass::Verify => &self.verify,
        }
    }

    /// True when no list was given.
    pub fn is_empty(&self) -> bool {
        self.read.is_empty() && self.write.is_empty() && self.verify.is_empty()
    }
}

/// Why an `ignore_error` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IgnoreErrorProblem {
    /// More than the three lists fio has.
    #[error("at most three lists, READ,WRITE,VERIFY (e.g. ',ENOSPC' for writes)")]
    TooManyLists,
    /// A name that is not an errno diskmeter knows.
    #[error("'{0}' is not an errno name diskmeter knows; give its number instead")]
    UnknownName(String),
    /// Not a name and not a number, or the number 0.
    #[error("'{0}' is not an errno (a name like EIO or a number like 5 or 0x5)")]
    NotAnErrno(String),
}

/// A job's trim settings and its IO-error policy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TrimOptions {
    /// The error classes the job goes on after (fio `continue_on_error`; `ignore_error`
    /// turns on the classes it lists).
    pub continue_on_error: ErrorClasses,
    /// The errnos each class goes on after (fio `ignore_error`).
    pub ignore_error: IgnoreErrors,
    /// Describe every error, the ones the job went on after too (fio `error_dump`).
    pub error_dump: bool,
    /// Share of the blocks of a `trim_backlog` batch that are trimmed, percent (fio
    /// `trim_percentage`).
    pub trim_percentage: u8,
    /// After every N written blocks, trim some of them (fio `trim_backlog`); 0 = never.
    pub trim_backlog: u64,
    /// Most blocks trimmed per backlog pass (fio `trim_backlog_batch`); 0 = the whole share.
    pub trim_backlog_batch: u64,
    /// Size of a trim, bytes: fio's third `bs` value (`bs=4k,4k,64k`); `None` = the write
    /// size, as fio.
    pub bs_bytes: Option<u64>,
}

impl TrimOptions {
    /// Whether a job goes on after an IO of `class` failed with `errno` (fio's
    /// `td_non_fatal_error`).
    pub fn continues_after(&self, class: ErrorClass, errno: i32) -> bool {
        if !self.continue_on_error.has(class) {
            return false;
        }
        match self.ignore_error.of(class) {
            [] => errno == EIO || errno == EILSEQ,
            list => list.contains(&errno),
        }
    }

    /// Whether the job ever goes on after an error (fio then reports `total_err` and
    /// `first_error`).
    pub fn continues_on_errors(&self) -> bool {
        self.continue_on_error.any()
    }

    /// The size of a trim-only job's IOs: the third `bs` value, else `write_bs_bytes`.
    pub fn trim_bs_bytes(&self, write_bs_bytes: u64) -> u64 {
        self.bs_bytes.unwrap_or(write_bs_bytes)
    }

    /// Whether the job mixes trims into its writes (fio `trim_backlog` with a
    /// `trim_percentage`).
    pub fn backlog_trims(&self) -> bool {
        self.trim_backlog > 0 && self.trim_percentage > 0
    }

    /// Parses fio's `ignore_error`: up to three comma-separated lists (reads, writes,
    /// verifies), each of errno names (`EIO`) or numbers (`5`, `0x5`, `-5`) separated by
    /// ':'; an empty list leaves its class alone. Sets the lists and turns their classes on.
    pub fn set_ignore_error(&mut self, text: &str) -> Result<(), IgnoreErrorProblem> {
        let lists: Vec<&str> = text.trim().split(',').collect();
        if lists.len() > 3 {
            return Err(IgnoreErrorProblem::TooManyLists);
        }
        // Every list is read before any is stored, so a refused value changes nothing.
        let mut parsed = Vec::with_capacity(lists.len());
        for list in &lists {
            let mut errnos = Vec::new();
            // fio stops a list at its first empty entry.
            for entry in list.split(':').map(str::trim).take_while(|e| !e.is_empty()) {
                errnos.push(parse_errno(entry)?);
            }
            parsed.push(errnos);
        }
        for (k, errnos) in parsed.into_iter().enumerate() {
            if errnos.is_empty() {
                continue;
            }
            let classes = &mut self.continue_on_error;
            match k {
                0 => (self.ignore_error.read, classes.read) = (errnos, true),
                1 => (self.ignore_error.write, classes.write) = (errnos, true),
                _ => (self.ignore_error.verify, classes.verify) = (errnos, true),
            }
        }
        Ok(())
    }

    /// `ignore_error` as fio writes it (`,ENOSPC`); `None` when no list was given.
    pub fn ignore_error_text(&self) -> Option<String> {
        if self.ignore_error.is_empty() {
            return None;
        }
        let list = |errnos: &[i32]| {
            errnos
                .iter()
                .map(|&e| errno_name(e).map_or_else(|| e.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(":")
        };
        let mut text = [
            list(&self.ignore_error.read),
            list(&self.ignore_error.write),
            list(&self.ignore_error.verify),
        ]
        .join(",");
        while text.ends_with(',') {
            text.pop();
        }
        Some(text)
    }
}

/// One errno as fio reads it: a name starting with `E`, or a number (decimal, `0x` hex,
/// a sign ignored); 0 is refused.
fn parse_errno(entry: &str) -> Result<i32, IgnoreErrorProblem> {
    if entry.starts_with('E') {
        return errno_number(entry).ok_or_else(|| IgnoreErrorProblem::UnknownName(entry.into()));
    }
    let digits = entry.trim_start_matches(['-', '+']);
    let parsed = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i32::from_str_radix(hex, 16),
        None => digits.parse::<i32>(),
    };
    match parsed {
        Ok(n) if n != 0 => Ok(n),
        _ => Err(IgnoreErrorProblem::NotAnErrno(entry.into())),
    }
}

/// Linux's errno numbers by name (asm-generic, as on x86-64 and arm64): the ones IO can
/// end with. Data, not logic.
const ERRNO_NAMES: &[(&str, i32)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("ESRCH", 3),
    ("EINTR", 4),
    ("EIO", 5),
    ("ENXIO", 6),
    ("E2BIG", 7),
    ("ENOEXEC", 8),
    ("EBADF", 9),
    ("ECHILD", 10),
    ("EAGAIN", 11),
    ("EWOULDBLOCK", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EFAULT", 14),
    ("ENOTBLK", 15),
    ("EBUSY", 16),
    ("EEXIST", 17),
    ("EXDEV", 18),
    ("ENODEV", 19),
    ("ENOTDIR", 20),
    ("EISDIR", 21),
    ("EINVAL", 22),
    ("ENFILE", 23),
    ("EMFILE", 24),
    ("ENOTTY", 25),
    ("ETXTBSY", 26),
    ("EFBIG", 27),
    ("ENOSPC", 28),
    ("ESPIPE", 29),
    ("EROFS", 30),
    ("EMLINK", 31),
    ("EPIPE", 32),
    ("EDOM", 33),
    ("ERANGE", 34),
    ("EDEADLK", 35),
    ("ENAMETOOLONG", 36),
    ("ENOLCK", 37),
    ("ENOSYS", 38),
    ("ENOTEMPTY", 39),
    ("ELOOP", 40),
    ("ENOMSG", 42),
    ("EIDRM", 43),
    ("ENOSTR", 60),
    ("ENODATA", 61),
    ("ETIME", 62),
    ("ENOSR", 63),
    ("ENOLINK", 67),
    ("EPROTO", 71),
    ("EBADMSG", 74),
    ("EOVERFLOW", 75),
    ("EILSEQ", 84),
    ("EUSERS", 87),
    ("EOPNOTSUPP", 95),
    ("ENOTSUP", 95),
    ("ENOBUFS", 105),
    ("ENOTCONN", 107),
    ("ETIMEDOUT", 110),
    ("ECONNREFUSED", 111),
    ("EHOSTDOWN", 112),
    ("EHOSTUNREACH", 113),
    ("EALREADY", 114),
    ("EINPROGRESS", 115),
    ("ESTALE", 116),
    ("EUCLEAN", 117),
    ("EREMOTEIO", 121),
    ("EDQUOT", 122),
    ("ENOMEDIUM", 123),
    ("EMEDIUMTYPE", 124),
    ("ECANCELED", 125),
    ("ENOKEY", 126),
    ("EKEYEXPIRED", 127),
    ("EKEYREVOKED", 128),
    ("EKEYREJECTED", 129),
];

/// The errno called `name` (`ENOSPC` = 28).
pub fn errno_number(name: &str) -> Option<i32> {
    ERRNO_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, e)| *e)
}

/// The name of errno `errno` (the first name listed for it).
pub fn errno_name(errno: i32) -> Option<&'static str> {
    ERRNO_NAMES
        .iter()
        .find(|(_, e)| *e == errno)
        .map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_default_list_is_eio_and_eilseq() {
        let mut trim = TrimOptions::default();
        assert!(!trim.continues_after(ErrorClass::Read, EIO));
        trim.continue_on_error = ErrorClasses::parse("read").unwrap();
        assert!(trim.continues_after(ErrorClass::Read, EIO));
        assert!(trim.continues_after(ErrorClass::Read, EILSEQ));
        assert!(!trim.continues_after(ErrorClass::Read, 28));
        assert!(!trim.continues_after(ErrorClass::Write, EIO));
    }

    #[test]
    fn ignore_error_sets_lists_and_turns_their_classes_on() {
        let mut trim = TrimOptions::default();
        trim.set_ignore_error(",ENOSPC:0x7a").unwrap();
        assert_eq!(trim.ignore_error.write, vec![28, 122]);
        assert!(trim.continue_on_error.write && !trim.continue_on_error.read);
        assert!(trim.continues_after(ErrorClass::Write, 28));
        assert!(!trim.continues_after(ErrorClass::Write, EIO));
        assert_eq!(trim.ignore_error_text().unwrap(), ",ENOSPC:EDQUOT");
        trim.set_ignore_error("-5,,EILSEQ").unwrap();
        assert_eq!(trim.ignore_error.read, vec![5]);
        assert_eq!(trim.ignore_error.verify, vec![84]);
        assert_eq!(
            trim.set_ignore_error("EFOO"),
            Err(IgnoreErrorProblem::UnknownName("EFOO".into()))
        );
        assert!(trim.set_ignore_error("0").is_err());
        assert!(trim.set_ignore_error("x").is_err());
        assert_eq!(
            trim.set_ignore_error("5,5,5,5"),
            Err(IgnoreErrorProblem::TooManyLists)
        );
    }

    #[test]
    fn continue_on_error_words() {
        for word in ["none", "read", "write", "io", "verify", "all"] {
            assert_eq!(ErrorClasses::parse(word).unwrap().as_str(), word);
        }
        assert_eq!(ErrorClasses::parse("1"), ErrorClasses::parse("all"));
        assert_eq!(ErrorClasses::parse("0"), ErrorClasses::parse("none"));
        assert_eq!(ErrorClasses::parse("sometimes"), None);
    }
}
