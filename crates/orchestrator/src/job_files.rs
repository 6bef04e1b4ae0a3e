//! Where fio job files come from when a command runs them: the file system, the process
//! environment and this machine ([`FileSources`], the IO that `diskmeter_jobfile`'s parser
//! leaves to its caller).

use diskmeter_jobfile::fio::{IncludeError, Sources};
use std::path::Path;

/// Files from disk, `include` relative to the including file's folder, variables from the
/// process environment, and fio's built-ins from this machine.
pub struct FileSources;

impl Sources for FileSources {
    fn include(&self, from: &str, path: &str) -> Result<(String, String), IncludeError> {
        let resolved = match Path::new(from).parent() {
            Some(dir) if Path::new(path).is_relative() => dir.join(path),
            _ => Path::new(path).to_path_buf(),
        };
        let name = resolved.display().to_string();
        std::fs::read_to_string(&resolved)
            .map(|text| (name.clone(), text))
            .map_err(|source| IncludeError::Read { path: name, source })
    }

    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn builtin(&self, name: &str) -> Option<u64> {
        match name {
            "ncpus" => std::thread::available_parallelism()
                .ok()
                .map(|n| n.get() as u64),
            "pagesize" => Some(4096),
            "mb_memory" => diskmeter_capture::procfs::ProcFiles::new("/proc")
                .memory()
                .ok()
                .map(|m| m.total_bytes / diskmeter_units::MIB),
            _ => None,
        }
    }
}
