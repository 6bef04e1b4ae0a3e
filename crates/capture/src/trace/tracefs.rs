//! tracefs, the kernel's tracing filesystem: finding (or mounting) it, and a private tracing
//! instance (`instances/diskmeter-PID`) with its own ring buffer, events, filters and clock,
//! so that nothing else using tracefs (another tracer, `perf`, `trace-cmd`) is disturbed.
//! The instance is removed when it is dropped; instances left by a process that was killed
//! are removed when the next one is created.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::TraceError;

/// Where tracefs is mounted on current systems, and where it is mounted when it is not.
const TRACEFS: &str = "/sys/kernel/tracing";
/// Where older systems reach it, inside debugfs.
const DEBUGFS_TRACING: &str = "/sys/kernel/debug/tracing";
/// The prefix of this tool's instances; the pid follows.
const INSTANCE_PREFIX: &str = "diskmeter-";
/// The tracepoints this tracer enables.
pub const EVENTS: [&str; 2] = ["block/block_rq_issue", "block/block_rq_complete"];

/// The tracefs root: mounted already, or mounted now at /sys/kernel/tracing (left mounted,
/// as systemd mounts it at boot: another tracer may use it by the time this one ends).
pub fn find_or_mount() -> Result<PathBuf, TraceError> {
    for root in [TRACEFS, DEBUGFS_TRACING] {
        if Path::new(root).join("instances").is_dir() {
            return Ok(PathBuf::from(root));
        }
    }
    let status = std::process::Command::new("mount")
        .args(["-t", "tracefs", "tracefs", TRACEFS])
        .stderr(std::process::Stdio::piped())
        .output();
    let failure = match status {
        Ok(out) if out.status.success() && Path::new(TRACEFS).join("instances").is_dir() => {
            return Ok(PathBuf::from(TRACEFS))
        }
        Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
        Err(e) => format!("cannot run mount: {e}"),
    };
    Err(TraceError::NoTracefs { reason: failure })
}

/// A tracing instance owned by this process, removed on drop.
#[derive(Debug)]
pub struct Instance {
    path: PathBuf,
    removed: bool,
}

impl Instance {
    /// Creates `instances/diskmeter-PID` (`-N` appended for a second instance of the same
    /// process) under `root`, first removing instances whose process is gone.
    pub fn create(root: &Path) -> Result<Instance, TraceError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let instances = root.join("instances");
        remove_stale(&instances);
        let pid = std::process::id();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let name = match n {
                0 => format!("{INSTANCE_PREFIX}{pid}"),
                n => format!("{INSTANCE_PREFIX}{pid}-{n}"),
            };
            let path = instances.join(name);
            match fs::create_dir(&path) {
                Ok(()) => {
                    return Ok(Instance {
                        path,
                        removed: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(TraceError::Tracefs {
                        action: "create the tracing instance",
                        path,
                        source,
                    })
                }
            }
        }
    }

    /// The instance's folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `value` to the instance's file `file` (`events/block/block_rq_issue/filter`).
    pub fn write(&self, file: &str, value: &str) -> Result<(), TraceError> {
        let path = self.path.join(file);
        fs::write(&path, value).map_err(|source| TraceError::Tracefs {
            action: "write",
            path,
            source,
        })
    }

    /// Events the ring buffer lost so far: the per-CPU `overrun` (overwritten before they
    /// were read) plus `dropped events` (refused while the buffer was full), over all CPUs.
    pub fn ring_lost_events(&self) -> u64 {
        let Ok(cpus) = fs::read_dir(self.path.join("per_cpu")) else {
            return 0;
        };
        cpus.flatten()
            .filter_map(|cpu| fs::read_to_string(cpu.path().join("stats")).ok())
            .map(|stats| parse_lost(&stats))
            .sum()
    }

    /// Removes the instance: the kernel disables its events and frees its buffer. Files of
    /// the instance must be closed first (an open `trace_pipe` makes it busy).
    pub fn remove(mut self) -> Result<(), TraceError> {
        self.removed = true;
        remove_instance(&self.path).map_err(|source| TraceError::Tracefs {
            action: "remove the tracing instance",
            path: self.path.clone(),
            source,
        })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if !self.removed {
            let _ = remove_instance(&self.path);
        }
    }
}

/// `rmdir` of the instance; a busy instance (a reader still closing `trace_pipe`) gets a few
/// more tries over ~0.5 s.
fn remove_instance(path: &Path) -> io::Result<()> {
    let mut tries = 0;
    loop {
        match fs::remove_dir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) if tries < 10 => {
                let _ = e;
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Removes `diskmeter-PID[-N]` instances whose process no longer runs (it was killed before
/// it could remove them); instances of live processes are theirs.
fn remove_stale(instances: &Path) {
    let Ok(entries) = fs::read_dir(instances) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = owner_pid(&name) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = remove_instance(&entry.path());
        }
    }
}

/// The pid in an instance name of this tool (`diskmeter-123` or `diskmeter-123-2`).
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(INSTANCE_PREFIX)?;
    rest.split('-').next()?.parse().ok()
}

/// `overrun` + `dropped events` of one CPU's `stats` file.
fn parse_lost(stats: &str) -> u64 {
    stats
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(key, _)| matches!(key.trim(), "overrun" | "dropped events"))
        .filter_map(|(_, value)| value.trim().parse::<u64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_events_are_overruns_plus_dropped_events() {
        let stats = "entries: 12\noverrun: 30\ncommit overrun: 0\nbytes: 4096\noldest event ts:  9143.507024\nnow ts:  9144.146455\ndropped events: 4\nread events: 1542\n";
        assert_eq!(parse_lost(stats), 34);
    }

    #[test]
    fn only_this_tools_instance_names_have_an_owner() {
        assert_eq!(owner_pid("diskmeter-123"), Some(123));
        assert_eq!(owner_pid("diskmeter-123-4"), Some(123));
        assert_eq!(owner_pid("diskmeter-x"), None);
        assert_eq!(owner_pid("perf-123"), None);
    }
}
