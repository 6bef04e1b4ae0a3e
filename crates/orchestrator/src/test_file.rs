//! Where a suite's or a sweep's test file goes when the user names a folder or nothing, and
//! how large a suite's file is by default: decisions that read the file system (is the
//! target a folder, how much space is free), so they live here rather than in the pure
//! `diskmeter_suites`; and what a read file's [`Warmth`] means before a cached-read suite.

use crate::Warmth;
use std::path::{Path, PathBuf};

/// A suite's default test file size: CrystalDiskMark's default, small enough for any
/// machine, and with direct IO (every suite's default) no page cache can serve it.
const DEFAULT_SUITE_FILE_BYTES: u64 = 1 << 30;

/// The target the user `given`: a folder means the file `file_name` in it; none means
/// `file_name` in the current folder; anything else (a file, a device) is the target.
pub fn test_file(given: Option<&str>, file_name: &str) -> PathBuf {
    match given {
        None => PathBuf::from(file_name),
        Some(path) if Path::new(path).is_dir() => Path::new(path).join(file_name),
        Some(path) => PathBuf::from(path),
    }
}

/// A suite's test file size when the user gives none: 1 GiB, or a quarter of the free
/// space of the file's folder when that is less (at least 64 MiB), in whole MiB.
pub fn default_suite_file_bytes(file: &Path) -> u64 {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let free = rustix::fs::statvfs(folder)
        .map(|s| s.f_bavail.saturating_mul(s.f_frsize))
        .unwrap_or(u64::MAX);
    let quarter = (free / 4) >> 20 << 20;
    DEFAULT_SUITE_FILE_BYTES.min(quarter.max(64 << 20))
}

impl Warmth {
    /// What this warmth means for a suite that reads `file` from a cached volume, as a note
    /// before it starts; none when the history cannot tell.
    pub fn note(&self, file: &Path) -> Option<String> {
        match self {
            Warmth::Warm(warmup) => Some(format!(
                "{} was warmed in this boot (history run {}): cached reads come from the host \
                 cache",
                file.display(),
                warmup.run_id.map_or("-".to_string(), |id| id.to_string())
            )),
            Warmth::Cold { last } => Some(format!(
                "{} has not been warmed since the last boot{}: reads that the guide serves \
                 from a warm host cache will come from the disk (warm it first: `diskmeter \
                 suite warmup {}`, or add --warmup)",
                file.display(),
                if last.is_some() {
                    " (its last warm-up was in an earlier boot)"
                } else {
                    ""
                },
                file.display()
            )),
            Warmth::Unknown => None,
        }
    }
}
