//! Reading the kernel's counters from a proc root (`/proc`, or a folder of fixture files in
//! tests): the parsers, one module per kind of file, and [`ProcFiles`], which reads them.

mod diskstats;
mod system;

pub use diskstats::{parse_diskstats, DiskCounters, DiskLine};
pub use system::{
    parse_mem_available, parse_meminfo, parse_pressure, parse_stat_cpu, parse_uptime, CpuTimes,
    IoPressure, MemInfo,
};

use crate::CaptureError;
use std::path::{Path, PathBuf};

/// The files of one proc root.
#[derive(Debug, Clone)]
pub struct ProcFiles {
    root: PathBuf,
}

impl ProcFiles {
    /// The files under `root` (`/proc` on a live system).
    pub fn new(root: impl Into<PathBuf>) -> ProcFiles {
        ProcFiles { root: root.into() }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every device line of `diskstats`.
    pub fn diskstats(&self) -> Result<Vec<DiskLine>, CaptureError> {
        let path = self.root.join("diskstats");
        parse_diskstats(&read(&path)?, &path)
    }

    /// The `cpu` line of `stat`.
    pub fn cpu(&self) -> Result<CpuTimes, CaptureError> {
        let path = self.root.join("stat");
        parse_stat_cpu(&read(&path)?, &path)
    }

    /// `meminfo`.
    pub fn memory(&self) -> Result<MemInfo, CaptureError> {
        let path = self.root.join("meminfo");
        parse_meminfo(&read(&path)?, &path)
    }

    /// `MemAvailable` from `meminfo` ([`parse_mem_available`]); `None` when the file cannot be
    /// read or does not say.
    pub fn mem_available(&self) -> Option<u64> {
        let text = std::fs::read_to_string(self.root.join("meminfo")).ok()?;
        parse_mem_available(&text)
    }

    /// `pressure/io`, or `None` where the kernel has no PSI (no file before 4.20; a file that
    /// refuses reads with EOPNOTSUPP when booted with `psi=0`).
    pub fn io_pressure(&self) -> Result<Option<IoPressure>, CaptureError> {
        let path = self.root.join("pressure/io");
        match std::fs::read_to_string(&path) {
            Ok(text) => parse_pressure(&text, &path).map(Some),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::Unsupported
                    || e.raw_os_error() == Some(95) =>
            {
                Ok(None)
            }
            Err(source) => Err(CaptureError::Read { path, source }),
        }
    }

    /// `uptime`, nanoseconds at 1/100 s resolution.
    pub fn uptime_ns(&self) -> Result<u64, CaptureError> {
        let path = self.root.join("uptime");
        parse_uptime(&read(&path)?, &path)
    }
}

fn read(path: &Path) -> Result<String, CaptureError> {
    std::fs::read_to_string(path).map_err(|source| CaptureError::Read {
        path: path.to_path_buf(),
        source,
    })
}
