//! Facts about the machine and the target's device that explain a result later: the kernel,
//! CPU and memory, and for the device under the target its model, size, block sizes,
//! scheduler and rotational flag, with the filesystem and mount options when the target is a
//! file. Read from /proc and /sys; a fact that cannot be read is left empty, never guessed.

use serde::{Deserialize, Serialize};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What was true of the host and the target's device when a run was saved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostFacts {
    /// `uname -r`.
    pub kernel: String,
    /// The first "model name" of /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpu_count: u32,
    /// MemTotal, bytes.
    pub memory_bytes: u64,
    /// The device under the target (None when it could not be found, e.g. tmpfs).
    pub device: Option<DeviceFacts>,
    /// The filesystem holding the target file (None for a block device).
    pub filesystem: Option<FilesystemFacts>,
}

/// The block device a run's target is on (the whole disk for a partition).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceFacts {
    /// Kernel name, e.g. "nvme0n1", "vda", "loop3".
    pub name: String,
    /// /sys/block/NAME/device/model (vendor and model when both exist); empty when absent.
    pub model: String,
    /// Size, bytes.
    pub size_bytes: u64,
    /// Logical block size, bytes.
    pub logical_block_bytes: u32,
    /// Physical block size, bytes.
    pub physical_block_bytes: u32,
    /// The active IO scheduler ("none", "mq-deadline", ...).
    pub scheduler: String,
    /// The kernel's rotational flag.
    pub rotational: bool,
}

/// The mount a target file lives on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilesystemFacts {
    /// Filesystem type, e.g. "ext4", "xfs", "tmpfs".
    pub fs_type: String,
    /// Mount point.
    pub mount_point: String,
    /// The mount's options and the superblock's, as /proc/self/mountinfo lists them.
    pub options: String,
    /// The mounted source, e.g. "/dev/vda1".
    pub source: String,
}

impl HostFacts {
    /// Collects the facts for a run on `target` (a file, a folder or a block device; the file
    /// need not exist any more: its folder is used).
    pub fn collect(target: &Path) -> HostFacts {
        let existing = existing_ancestor(target);
        let metadata = existing.as_deref().and_then(|p| std::fs::metadata(p).ok());
        let (device_number, filesystem) = match &metadata {
            Some(m) if m.file_type().is_block_device() => (Some(m.rdev()), None),
            Some(m) => (
                Some(m.dev()),
                existing.as_deref().and_then(|p| filesystem_of(p, m.dev())),
            ),
            None => (None, None),
        };
        HostFacts {
            kernel: read_trimmed("/proc/sys/kernel/osrelease"),
            cpu_model: cpu_model(),
            cpu_count: std::thread::available_parallelism().map_or(0, |n| n.get() as u32),
            memory_bytes: memory_bytes(),
            device: device_number.and_then(device_facts),
            filesystem,
        }
    }

    /// One line for listings, e.g. "6.1.0 | 2 x Intel Xeon | 24.0 GiB | vda (virtio, none)".
    pub fn one_line(&self) -> String {
        let mut parts = vec![
            format!("kernel {}", self.kernel),
            format!("{} x {}", self.cpu_count, self.cpu_model),
            format!("{:.1} GiB", self.memory_bytes as f64 / (1u64 << 30) as f64),
        ];
        if let Some(device) = &self.device {
            parts.push(format!(
                "{}{} ({:.1} GiB, {}/{} B blocks, {}, {})",
                device.name,
                if device.model.is_empty() {
                    String::new()
                } else {
                    format!(" {}", device.model)
                },
                device.size_bytes as f64 / (1u64 << 30) as f64,
                device.logical_block_bytes,
                device.physical_block_bytes,
                device.scheduler,
                if device.rotational {
                    "rotational"
                } else {
                    "non-rotational"
                }
            ));
        }
        if let Some(fs) = &self.filesystem {
            parts.push(format!(
                "{} on {} ({})",
                fs.fs_type, fs.mount_point, fs.options
            ));
        }
        parts.join(" | ")
    }
}

fn existing_ancestor(target: &Path) -> Option<PathBuf> {
    let absolute = if target.is_absolute() {
        target.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(target)
    };
    absolute
        .ancestors()
        .find(|p| p.exists())
        .map(Path::to_path_buf)
}

fn read_trimmed(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// MemTotal, bytes; 0 when /proc/meminfo cannot be read.
fn memory_bytes() -> u64 {
    diskmeter_capture::procfs::ProcFiles::new("/proc")
        .memory()
        .map_or(0, |m| m.total_bytes)
}

/// Linux's dev_t encoding (glibc's gnu_dev_major/minor).
fn major_minor(dev: u64) -> (u64, u64) {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff);
    (major, minor)
}

fn device_facts(dev: u64) -> Option<DeviceFacts> {
    let (major, minor) = major_minor(dev);
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    // A partition's queue settings live on its parent disk.
    let disk = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    let name = disk.file_name()?.to_string_lossy().into_owned();
    let number = |file: &str| read_trimmed(disk.join(file)).parse::<u64>().unwrap_or(0);
    let vendor = read_trimmed(disk.join("device/vendor"));
    let model = read_trimmed(disk.join("device/model"));
    let scheduler_line = read_trimmed(disk.join("queue/scheduler"));
    let scheduler = scheduler_line
        .split_whitespace()
        .find(|s| s.starts_with('['))
        .map(|s| s.trim_matches(['[', ']']).to_string())
        .unwrap_or(scheduler_line);
    Some(DeviceFacts {
        name,
        model: [vendor, model]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        size_bytes: number("size") * 512,
        logical_block_bytes: number("queue/logical_block_size") as u32,
        physical_block_bytes: number("queue/physical_block_size") as u32,
        scheduler,
        rotational: number("queue/rotational") == 1,
    })
}

/// The mountinfo entry with `dev`'s major:minor whose mount point is the longest prefix of
/// `path` (bind mounts share a device).
fn filesystem_of(path: &Path, dev: u64) -> Option<FilesystemFacts> {
    let (major, minor) = major_minor(dev);
    let wanted = format!("{major}:{minor}");
    let path = std::fs::canonicalize(path).ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines()
        .filter_map(|line| {
            // id parent major:minor root mount-point options [optional...] - type source super
            let (left, right) = line.split_once(" - ")?;
            let fields: Vec<&str> = left.split(' ').collect();
            let right: Vec<&str> = right.split(' ').collect();
            if fields.get(2) != Some(&wanted.as_str()) {
                return None;
            }
            let mount_point = unescape(fields.get(4)?);
            if !path.starts_with(&mount_point) {
                return None;
            }
            Some(FilesystemFacts {
                fs_type: right.first()?.to_string(),
                source: right.get(1).map(|s| unescape(s)).unwrap_or_default(),
                options: [fields.get(5).copied(), right.get(2).copied()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(","),
                mount_point,
            })
        })
        .max_by_key(|fs| fs.mount_point.len())
}

/// mountinfo escapes space, tab, newline and backslash as octal.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let code: String = chars.by_ref().take(3).collect();
            match u8::from_str_radix(&code, 8) {
                Ok(byte) => out.push(byte as char),
                Err(_) => {
                    out.push('\\');
                    out.push_str(&code);
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_a_file_in_the_temp_folder_name_its_filesystem() {
        let dir = tempfile::tempdir().unwrap();
        let facts = HostFacts::collect(&dir.path().join("not-yet-created.dat"));
        assert!(!facts.kernel.is_empty());
        assert!(facts.cpu_count >= 1);
        assert!(facts.memory_bytes > 0);
        let fs = facts.filesystem.expect("the temp folder is on a mount");
        assert!(!fs.fs_type.is_empty());
        assert!(dir.path().starts_with(&fs.mount_point) || fs.mount_point == "/");
    }

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape(r"/mnt/with\040space"), "/mnt/with space");
    }

    #[test]
    fn dev_t_splits_like_glibc() {
        // 259:3 (an NVMe partition) and 7:0 (loop0).
        assert_eq!(major_minor((259 << 8) | 3), (259, 3));
        assert_eq!(major_minor(7 << 8), (7, 0));
    }
}
