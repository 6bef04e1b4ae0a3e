//! Test files a killed diskmeter left behind, found and removed by the next run.
//!
//! A session writes down the test files it means to remove (those its steps create, or re-use
//! as diskmeter's, and remove at their end, and the batch's shared files) *before* they are
//! made, in one record per process: `state/files/PID-START.json` in the user's data folder
//! (`diskmeter_history::data_folder`), with the process's start time (from /proc/PID/stat)
//! and the boot it belongs to, so a pid reused by another process is not mistaken for the
//! owner. The record goes when the session ends, its files removed or kept as asked.
//!
//! A record that outlives its process (SIGKILL, power loss, an exit on a second Ctrl-C)
//! is swept by the next diskmeter run: each of its files that still exists, is a regular
//! file and still carries diskmeter's `user.diskmeter` mark is removed (nothing diskmeter did
//! not create is ever touched; files kept with `--keep` or `unlink=0` are never recorded),
//! unless a running diskmeter's record names it too; then the record goes. As
//! orphaned emulations are swept (`diskmeter_emulate`). A record that cannot be read (cut
//! short by a power loss) names no file, and goes once the process its name gives is gone.
//!
//! Sweeps and the writing of records take turns on one lock (`flock` on `state/files.lock`,
//! beside the records' folder): a sweep never removes a file whose new owner is writing it down, and
//! since every session sweeps before it plans, no plan counts on a leftover that a sweep
//! running beside it then removes.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One process's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    /// The process.
    pid: u32,
    /// Its start time, clock ticks since boot (field 22 of /proc/PID/stat).
    start_ticks: u64,
    /// The boot it ran in (/proc/sys/kernel/random/boot_id).
    boot_id: String,
    /// The test files it means to remove, absolute.
    files: Vec<PathBuf>,
}

/// Where the records are kept.
fn records_folder() -> Option<PathBuf> {
    Some(
        diskmeter_history::data_folder()?
            .join("state")
            .join("files"),
    )
}

/// Holds the records' lock (see the module's documentation) until dropped; `None` when the
/// folder cannot be made or locked (then records and sweeps go on unlocked: a sweep still
/// removes only marked files of processes that are gone).
fn lock_records(folder: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(folder).ok()?;
    let mut lock_path = folder.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(lock_path))
        .ok()?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).ok()?;
    Some(lock)
}

/// The start time of process `pid` in clock ticks since boot, if it exists.
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after its end.
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 3 (state) is the first after the name; field 22 (starttime) the 20th.
    after_name.split_whitespace().nth(19)?.parse().ok()
}

impl Record {
    /// Whether the process that wrote it is still running.
    fn owner_alive(&self, boot_id: &str) -> bool {
        self.boot_id == boot_id && start_ticks(self.pid) == Some(self.start_ticks)
    }
}

/// This process's record of the test files it will remove; dropping it removes the record
/// (when the session has removed or kept its files).
pub(crate) struct FileRecord {
    /// The record file; `None` when there is no data folder (then nothing is recorded).
    path: Option<PathBuf>,
    record: Record,
    written: bool,
}

impl FileRecord {
    /// An empty record for this process; nothing is written until a file is added.
    pub(crate) fn new() -> FileRecord {
        let pid = std::process::id();
        let start_ticks = start_ticks(pid).unwrap_or(0);
        FileRecord {
            path: records_folder().map(|folder| folder.join(format!("{pid}-{start_ticks}.json"))),
            record: Record {
                pid,
                start_ticks,
                boot_id: crate::history::boot_id().unwrap_or_default(),
                files: Vec::new(),
            },
            written: false,
        }
    }

    /// Adds `files` (before they are made) and writes the record down. A record that cannot
    /// be written costs only the sweep after a kill: the run goes on.
    pub(crate) fn add(&mut self, files: impl IntoIterator<Item = PathBuf>) {
        let mut changed = false;
        for file in files {
            let file = std::path::absolute(&file).unwrap_or(file);
            if !self.record.files.contains(&file) {
                self.record.files.push(file);
                changed = true;
            }
        }
        if !changed {
            return;
        }
        if let Some(path) = &self.path {
            let _lock = path.parent().and_then(lock_records);
            self.written |= write_whole(path, &self.record).is_ok();
        }
    }
}

impl Drop for FileRecord {
    fn drop(&mut self) {
        if let (Some(path), true) = (&self.path, self.written) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Writes the record under a private name, flushed to the disk, and renames it, so a reader
/// never sees half and the record outlives a power loss that comes after the files it names.
fn write_whole(path: &Path, record: &Record) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let mut private = path.as_os_str().to_owned();
    private.push(".tmp");
    let private = PathBuf::from(private);
    let text = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    let mut file = std::fs::File::create(&private)?;
    file.write_all(&text)?;
    file.sync_all()?;
    std::fs::rename(&private, path)
}

/// Removes the test files of diskmeters that were killed before they could (see the
/// module's documentation) and returns them.
pub(crate) fn sweep() -> Vec<PathBuf> {
    let Some(folder) = records_folder() else {
        return Vec::new();
    };
    let _lock = lock_records(&folder);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let boot_id = crate::history::boot_id().unwrap_or_default();
    let mut live_files = HashSet::new();
    let mut orphans = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            // A half-written record of a killed process.
            if path.extension().is_some_and(|e| e == "tmp") && !writer_alive(&path) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let Some(record) = std::fs::read(&path)
            .ok()
            .and_then(|text| serde_json::from_slice::<Record>(&text).ok())
        else {
            // Unreadable: it names no file to remove, and goes with its writer.
            if !writer_alive(&path) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        };
        if record.owner_alive(&boot_id) {
            live_files.extend(record.files);
        } else {
            orphans.push((path, record));
        }
    }
    let mut removed = Vec::new();
    for (path, record) in orphans {
        let mut done = true;
        for file in &record.files {
            if live_files.contains(file) {
                continue;
            }
            match diskmeter_runner::layout::remove_if_ours(file) {
                Ok(true) => removed.push(file.clone()),
                Ok(false) => {}
                // Kept for the next sweep to try again.
                Err(_) => done = false,
            }
        }
        if done {
            let _ = std::fs::remove_file(&path);
        }
    }
    removed
}

/// Whether the process that names the record or private file `path` (`PID-START.json`,
/// `PID-START.json.tmp`) runs.
fn writer_alive(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some((pid, ticks)) = name.as_deref().and_then(|n| n.split_once('-')) else {
        return false;
    };
    let ticks = ticks.split('.').next().unwrap_or("");
    match (pid.parse::<u32>(), ticks.parse::<u64>()) {
        (Ok(pid), Ok(ticks)) => start_ticks(pid) == Some(ticks),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_start_time_and_is_alive_by_its_record() {
        let ticks = start_ticks(std::process::id()).expect("/proc/self/stat");
        let boot = crate::history::boot_id().unwrap_or_default();
        let me = Record {
            pid: std::process::id(),
            start_ticks: ticks,
            boot_id: boot.clone(),
            files: Vec::new(),
        };
        assert!(me.owner_alive(&boot));
        // The same pid with another start time is another process (a reused pid).
        let reused = Record {
            start_ticks: ticks + 1,
            ..me.clone()
        };
        assert!(!reused.owner_alive(&boot));
        let other_boot = Record {
            boot_id: "another boot".into(),
            ..me
        };
        assert!(!other_boot.owner_alive(&boot));
    }
}
