//! How a job's files are named, created, opened and laid out (`filename_format`, `openfiles`, `file_service_type`, `fallocate`, `overwrite`, `lockfile`, ...) and what data its write buffers hold (`buffer_pattern`, `dedupe_*`).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_files.rs`. Meanings
//! are fio's (HOWTO, "Target file/device" and "Buffers and memory"), checked against fio 3.33
//! by running it: the names `filename_format` gives (`$clientuid` is empty outside fio's
//! client/server mode) and the bytes `buffer_pattern` writes.

pub use crate::byte_pattern::{parse_byte_pattern, show_byte_pattern};
use crate::patterns::{PatternError, RandomDistribution};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use thiserror::Error;

/// fio's default `filename_format`.
pub const DEFAULT_FILENAME_FORMAT: &str = "$jobname.$jobnum.$filenum";

/// A job's file handling and buffer contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileOptions {
    /// How diskmeter names the files it creates (fio `filename_format`); `None` = fio's
    /// `$jobname.$jobnum.$filenum`.
    pub filename_format: Option<String>,
    /// Files a worker keeps in service at once (fio `openfiles`); `None` = all of them.
    pub openfiles: Option<u32>,
    /// Which file the next IO goes to (fio `file_service_type`).
    pub file_service: FileService,
    /// Lay the files of jobs out one after another (fio `create_serialize`, default on).
    pub create_serialize: bool,
    /// fsync a file diskmeter laid out before the run (fio `create_fsync`, default on).
    pub create_fsync: bool,
    /// Lay the files out, then do no IO (fio `create_only`).
    pub create_only: bool,
    /// How a file's space is reserved when diskmeter lays it out (fio `fallocate`).
    pub fallocate: Fallocate,
    /// fio `overwrite`: `Some(true)` writes a new file fully before a writing job (fio's
    /// "overwrite existing data"), `Some(false)` only reserves its space when the job only
    /// writes (fio's default); `None` = diskmeter's own default, every file written fully.
    pub overwrite: Option<bool>,
    /// How workers sharing a file take turns (fio `lockfile`).
    pub lockfile: LockFile,
    /// Read the files into the page cache before the job starts (fio `pre_read`).
    pub pre_read: bool,
    /// Files that do not exist may be created (fio `allow_file_create`, default on).
    pub allow_file_create: bool,
    /// IO goes past the current end of each file instead of into it (fio `file_append`).
    pub file_append: bool,
    /// fsync a file the job wrote when the job closes it (fio `fsync_on_close`).
    pub fsync_on_close: bool,
    /// sync_file_range(2) after every N writes (fio `sync_file_range=FLAGS:N`).
    pub sync_file_range: Option<SyncFileRange>,
    /// posix_fadvise hint given when a file is opened (fio `fadvise_hint`).
    pub fadvise_hint: FadviseHint,
    /// Every file below this folder is a target (fio `opendir`).
    pub opendir: Option<PathBuf>,
    /// Write buffers hold this byte pattern, repeated (fio `buffer_pattern`).
    pub buffer_pattern: Option<Vec<u8>>,
    /// Stamp every written 512-byte sector so no two writes are equal (fio
    /// `scramble_buffers`, default on).
    pub scramble_buffers: bool,
    /// Share of writes whose buffer repeats an earlier one, 0-100 (fio `dedupe_percentage`).
    pub dedupe_percentage: Option<u8>,
    /// Which earlier buffer a duplicate repeats (fio `dedupe_mode`).
    pub dedupe_mode: DedupeMode,
    /// `dedupe_mode=working_set`: the duplicates come from this share of the region's
    /// blocks, percent (fio `dedupe_working_set_percentage`, 5).
    pub dedupe_working_set_percentage: u8,
    /// Duplicates repeat buffers of every job, not only the job's own (fio `dedupe_global`).
    pub dedupe_global: bool,
    /// What fio would allocate IO buffers with (fio `mem`, `iomem`); see [`MemKind`].
    pub mem: MemKind,
    /// Huge page size for `mem=mmaphuge`/`shmhuge`, bytes (fio `hugepage-size`, 2 MiB).
    pub hugepage_size_bytes: u64,
    /// Memory to lock per worker before the run, bytes (fio `lockmem`); 0 = none.
    pub lockmem_bytes: u64,
}

impl Default for FileOptions {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().files
    }
}

impl FileOptions {
    /// The option fields hold placeholders, which [`crate::JobSpec::default`] replaces with
    /// the rows' defaults (as for `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        FileOptions {
            filename_format: None,
            openfiles: None,
            file_service: Default::default(),
            create_serialize: false,
            create_fsync: false,
            create_only: false,
            fallocate: Fallocate::Native,
            overwrite: None,
            lockfile: LockFile::None,
            pre_read: false,
            allow_file_create: false,
            file_append: false,
            fsync_on_close: false,
            sync_file_range: None,
            fadvise_hint: FadviseHint::Pattern,
            opendir: None,
            buffer_pattern: None,
            scramble_buffers: false,
            dedupe_percentage: None,
            dedupe_mode: DedupeMode::Repeat,
            dedupe_working_set_percentage: 0,
            dedupe_global: false,
            mem: MemKind::Malloc,
            hugepage_size_bytes: 0,
            lockmem_bytes: 0,
        }
    }
}

impl FileOptions {
    /// The name of file `file_number` of clone `job_number` of job `job_name`, from
    /// `filename_format`: `$jobname`, `$jobnum`, `$filenum` and `$clientuid` (empty: diskmeter
    /// has no client/server mode, and fio leaves it empty outside it) are replaced; anything
    /// else is kept as written, as fio does.
    pub fn file_name(&self, job_name: &str, job_number: u32, file_number: u32) -> String {
        let format = self
            .filename_format
            .as_deref()
            .unwrap_or(DEFAULT_FILENAME_FORMAT);
        // Longest names first is not needed: no variable is a prefix of another.
        format
            .replace("$jobname", job_name)
            .replace("$jobnum", &job_number.to_string())
            .replace("$filenum", &file_number.to_string())
            .replace("$clientuid", "")
    }

    /// True when write buffers are generated per write (dedupe): the IO loop fills them.
    pub fn dedupes(&self) -> bool {
        self.dedupe_percentage.is_some_and(|p| p > 0)
    }
}

/// fio's `file_service_type`: how a worker with several files picks the next IO's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FileService {
    /// Each file in turn, switching after `every` IOs (fio `roundrobin[:N]`, the default).
    RoundRobin {
        /// IOs on a file before the next one.
        every: u32,
    },
    /// A file chosen uniformly, kept for `every` IOs (fio `random[:N]`).
    Random {
        /// IOs on a file before the next draw.
        every: u32,
    },
    /// One file until its region is done, then the next (fio `sequential`).
    Sequential,
    /// A file drawn from a skewed distribution over the files (fio `zipf:THETA`,
    /// `pareto:H`, `normal:DEV`/`gauss:DEV`), a new draw every IO.
    Skewed(RandomDistribution),
}

impl Default for FileService {
    fn default() -> Self {
        FileService::RoundRobin { every: 1 }
    }
}

impl FileService {
    /// Parses fio's `file_service_type` value.
    pub fn parse(text: &str) -> Result<FileService, FilesError> {
        let (kind, number) = match text.split_once(':') {
            Some((kind, number)) => (kind, Some(number)),
            None => (text, None),
        };
        let every = || -> Result<u32, FilesError> {
            match number {
                None => Ok(1),
                Some(n) => n
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| FilesError::ServiceCount {
                        text: n.to_string(),
                    }),
            }
        };
        Ok(match kind {
            "roundrobin" => FileService::RoundRobin { every: every()? },
            "random" => FileService::Random { every: every()? },
            "sequential" => {
                every()?;
                FileService::Sequential
            }
            "zipf" | "pareto" | "normal" | "gauss" => {
                FileService::Skewed(RandomDistribution::parse(text)?)
            }
            other => {
                return Err(FilesError::ServiceKind {
                    name: other.to_string(),
                })
            }
        })
    }

    /// fio's spelling, parseable again.
    pub fn show(&self) -> String {
        match self {
            FileService::RoundRobin { every: 1 } => "roundrobin".to_string(),
            FileService::RoundRobin { every } => format!("roundrobin:{every}"),
            FileService::Random { every: 1 } => "random".to_string(),
            FileService::Random { every } => format!("random:{every}"),
            FileService::Sequential => "sequential".to_string(),
            FileService::Skewed(distribution) => distribution.show(),
        }
    }
}

/// fio's `sync_file_range=FLAGS[:N]`: which `SYNC_FILE_RANGE_*` flags, after how many writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncFileRange {
    /// `wait_before`: wait for writeback already under way first.
    pub wait_before: bool,
    /// `write`: start writeback of the dirty pages.
    pub write: bool,
    /// `wait_after`: wait for the writeback to finish.
    pub wait_after: bool,
    /// Writes between calls (1 when no `:N` is given, as fio).
    pub every: u32,
}

impl SyncFileRange {
    /// Parses fio's `wait_before,write,wait_after` (one or more, ',' between) and `:N`.
    pub fn parse(text: &str) -> Result<SyncFileRange, FilesError> {
        let (words, every) = match text.rsplit_once(':') {
            Some((words, n)) => (
                words,
                n.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| FilesError::ServiceCount {
                        text: n.to_string(),
                    })?,
            ),
            None => (text, 1),
        };
        let mut range = SyncFileRange {
            wait_before: false,
            write: false,
            wait_after: false,
            every,
        };
        for word in words.split([',', ':']).map(str::trim) {
            match word {
                "wait_before" => range.wait_before = true,
                "write" => range.write = true,
                "wait_after" => range.wait_after = true,
                other => {
                    return Err(FilesError::SyncFileRangeFlag {
                        word: other.to_string(),
                    })
                }
            }
        }
        Ok(range)
    }

    /// The `SYNC_FILE_RANGE_*` bits of Linux's ABI (`WAIT_BEFORE` 1, `WRITE` 2,
    /// `WAIT_AFTER` 4).
    pub fn linux_flags(&self) -> u32 {
        u32::from(self.wait_before) | u32::from(self.write) << 1 | u32::from(self.wait_after) << 2
    }

    /// fio's spelling, parseable again.
    pub fn show(&self) -> String {
        let words: Vec<&str> = [
            (self.wait_before, "wait_before"),
            (self.write, "write"),
            (self.wait_after, "wait_after"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, word)| *word)
        .collect();
        format!("{}:{}", words.join(","), self.every)
    }
}

/// fio's `fallocate`: how the space of a file diskmeter lays out is reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fallocate {
    /// No reservation (`none`, `0`).
    None,
    /// fallocate(2) with no flags where the filesystem has it (`native`, the default).
    Native,
    /// posix_fallocate(3) (`posix`, `1`): emulated by writing where fallocate is missing.
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE (`keep`): blocks reserved, size unchanged.
    Keep,
    /// ftruncate(2) to the final size only (`truncate`): a sparse file.
    Truncate,
}

impl Fallocate {
    /// fio's words (`0` is `none`, `1` is `posix`).
    pub fn parse(text: &str) -> Option<Fallocate> {
        Some(match text {
            "none" | "0" => Fallocate::None,
            "native" => Fallocate::Native,
            "posix" | "1" => Fallocate::Posix,
            "keep" => Fallocate::Keep,
            "truncate" => Fallocate::Truncate,
            _ => return None,
        })
    }

    /// fio's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Fallocate::None => "none",
            Fallocate::Native => "native",
            Fallocate::Posix => "posix",
            Fallocate::Keep => "keep",
            Fallocate::Truncate => "truncate",
        }
    }
}

/// fio's `lockfile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockFile {
    /// No locking (the default).
    None,
    /// One IO at a time on the file across the workers sharing it.
    Exclusive,
    /// Reads together, a write alone.
    ReadWrite,
}

impl LockFile {
    /// fio's word.
    pub fn as_str(self) -> &'static str {
        match self {
            LockFile::None => "none",
            LockFile::Exclusive => "exclusive",
            LockFile::ReadWrite => "readwrite",
        }
    }
}

/// fio's `fadvise_hint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FadviseHint {
    /// No hint (`0`).
    Off,
    /// The job's pattern: POSIX_FADV_SEQUENTIAL or POSIX_FADV_RANDOM (`1`, the default).
    Pattern,
    /// POSIX_FADV_RANDOM (`random`).
    Random,
    /// POSIX_FADV_SEQUENTIAL (`sequential`).
    Sequential,
}

impl FadviseHint {
    /// fio's word.
    pub fn as_str(self) -> &'static str {
        match self {
            FadviseHint::Off => "0",
            FadviseHint::Pattern => "1",
            FadviseHint::Random => "random",
            FadviseHint::Sequential => "sequential",
        }
    }
}

/// fio's `dedupe_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeMode {
    /// A duplicate repeats the last unique buffer (`repeat`, the default).
    Repeat,
    /// A duplicate repeats one of a fixed set of buffers, chosen at random (`working_set`).
    WorkingSet,
}

impl DedupeMode {
    /// fio's word.
    pub fn as_str(self) -> &'static str {
        match self {
            DedupeMode::Repeat => "repeat",
            DedupeMode::WorkingSet => "working_set",
        }
    }
}

/// fio's `mem`/`iomem`: what fio allocates IO buffers with. Accepted and kept: diskmeter
/// always uses one aligned anonymous mapping per worker (O_DIRECT alignment, io_uring
/// registration), in transparent huge pages when an IO spans pages, whatever the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemKind {
    /// malloc(3) (the default).
    Malloc,
    /// A System V shared memory segment.
    Shm,
    /// A shared memory segment in huge pages.
    ShmHuge,
    /// mmap(2), anonymous (or of a file: `mmap:PATH`).
    Mmap,
    /// mmap(2) in huge pages.
    MmapHuge,
    /// mmap(2) with MAP_SHARED.
    MmapShared,
}

impl MemKind {
    /// fio's word (before any `:PATH`).
    pub fn parse(text: &str) -> Option<MemKind> {
        Some(match text {
            "malloc" => MemKind::Malloc,
            "shm" => MemKind::Shm,
            "shmhuge" => MemKind::ShmHuge,
            "mmap" => MemKind::Mmap,
            "mmaphuge" => MemKind::MmapHuge,
            "mmapshared" => MemKind::MmapShared,
            _ => return None,
        })
    }

    /// fio's word.
    pub fn as_str(self) -> &'static str {
        match self {
            MemKind::Malloc => "malloc",
            MemKind::Shm => "shm",
            MemKind::ShmHuge => "shmhuge",
            MemKind::Mmap => "mmap",
            MemKind::MmapHuge => "mmaphuge",
            MemKind::MmapShared => "mmapshared",
        }
    }

    /// True for the kinds that ask for huge pages.
    pub fn huge(self) -> bool {
        matches!(self, MemKind::ShmHuge | MemKind::MmapHuge)
    }
}

/// Why a files or buffer option's value cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FilesError {
    /// `file_service_type=WORD` with a word fio does not know.
    #[error("unknown file service type '{name}'; use roundrobin, random, sequential, zipf, pareto, normal or gauss (with :N)")]
    ServiceKind {
        /// The word as written.
        name: String,
    },
    /// The `:N` of `roundrobin:N`, `random:N` is not a positive whole number.
    #[error("'{text}' after ':' must be a whole number of IOs, at least 1")]
    ServiceCount {
        /// The text after ':'.
        text: String,
    },
    /// A distribution's parameters (`zipf:THETA`).
    #[error(transparent)]
    Distribution(#[from] PatternError),
    /// A piece of a byte pattern that is neither hex, a number nor a quoted string.
    #[error("cannot read '{piece}' in the pattern: write 0x-prefixed hex (0xdeadbeef), a decimal number or a \"quoted string\"")]
    PatternPiece {
        /// The unreadable rest of the pattern.
        piece: String,
    },
    /// A `sync_file_range` word fio does not know.
    #[error("unknown sync_file_range flag '{word}'; use wait_before, write and/or wait_after (',' between), then :N writes")]
    SyncFileRangeFlag {
        /// The word as written.
        word: String,
    },
    /// An empty pattern.
    #[error("the pattern is empty")]
    EmptyPattern,
    /// fio's `'file'` form of a pattern.
    #[error("a pattern read from a file ('{path}') is not supported: diskmeter keeps job parsing free of file reads; write the bytes as 0x-prefixed hex")]
    PatternFile {
        /// The file named.
        path: String,
    },
    /// `mem=mmap:PATH` and the like: buffers in a named file or huge page mount.
    #[error("buffers in a named file ('{path}') are not supported: diskmeter's buffers are anonymous memory; leave the path out")]
    MemFile {
        /// The file named.
        path: String,
    },
    /// An `opendir` that is empty.
    #[error("the folder can't be empty")]
    EmptyFolder,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filename_format_replaces_fios_variables_as_fio_3_33_names_files() {
        let mut files = FileOptions::default();
        assert_eq!(files.file_name("gamma", 1, 0), "gamma.1.0");
        files.filename_format = Some("f.$jobname.$jobnum.$filenum".to_string());
        assert_eq!(files.file_name("alpha", 0, 1), "f.alpha.0.1");
        files.filename_format = Some("g-$clientuid-$jobnum".to_string());
        assert_eq!(files.file_name("beta", 1, 1), "g--1");
        files.filename_format = Some("shared.$filenum".to_string());
        assert_eq!(files.file_name("delta", 1, 1), "shared.1");
    }

    #[test]
    fn file_service_types_read_fios_forms() {
        assert_eq!(
            FileService::parse("roundrobin").unwrap(),
            FileService::default()
        );
        assert_eq!(
            FileService::parse("random:4").unwrap(),
            FileService::Random { every: 4 }
        );
        assert_eq!(
            FileService::parse("sequential").unwrap(),
            FileService::Sequential
        );
        assert!(matches!(
            FileService::parse("zipf:1.2").unwrap(),
            FileService::Skewed(RandomDistribution::Zipf { .. })
        ));
        assert!(FileService::parse("random:0").is_err());
        let range = SyncFileRange::parse("wait_before,write:8").unwrap();
        assert!(range.wait_before && range.write && !range.wait_after);
        assert_eq!(range.every, 8);
        assert_eq!(SyncFileRange::parse(&range.show()).unwrap(), range);
        assert_eq!(SyncFileRange::parse("write").unwrap().every, 1);
        assert!(SyncFileRange::parse("bogus:3").is_err());
        assert!(FileService::parse("lru").is_err());
        for text in ["roundrobin:3", "random", "sequential", "pareto:0.3"] {
            let parsed = FileService::parse(text).unwrap();
            assert_eq!(FileService::parse(&parsed.show()).unwrap(), parsed);
        }
    }
}
