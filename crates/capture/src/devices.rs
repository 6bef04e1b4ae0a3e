//! Which devices a capture watches, and what each one sits on.
//!
//! Selection follows iostat: devices named on the command line (whole disks or partitions,
//! by kernel name or /dev path), or by default every whole disk (`/sys/block/*`) that has done
//! IO since boot. Stacks are resolved only where the kernel says what is below a device:
//! `/sys/class/block/NAME/slaves/` (device-mapper, md), a partition's parent disk, and a loop
//! device's backing file (`/sys/block/loopN/loop/backing_file`), whose own device is the
//! one the file lives on.

use crate::procfs::DiskLine;
use crate::CaptureError;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How a device rests on the one below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The kernel lists the lower device in `slaves/` (a device-mapper or md member).
    Slave,
    /// The device is a partition of the lower one.
    Partition,
    /// A loop device over this file, which lives on the lower device.
    BackingFile(PathBuf),
}

/// One step down a stack: `device` sits on `sits_on`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackLink {
    /// The upper device.
    pub device: String,
    /// The lower device; `None` when a loop's backing file is on a filesystem with no block
    /// device (tmpfs, overlay) or could not be found.
    pub sits_on: Option<String>,
    /// How.
    pub via: Via,
}

impl std::fmt::Display for StackLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lower = self.sits_on.as_deref().unwrap_or("no block device");
        match &self.via {
            Via::Slave => write!(f, "{} sits on {lower} (dm/md member)", self.device),
            Via::Partition => write!(f, "{} is a partition of {lower}", self.device),
            Via::BackingFile(file) => write!(
                f,
                "{} sits on {lower} (loop over {})",
                self.device,
                file.display()
            ),
        }
    }
}

/// The devices to watch, in /proc/diskstats order: `requested` (kernel names or /dev
/// paths, each once), or when none is given every whole disk under `sys_root/block` with IO
/// since boot.
pub fn select_devices(
    requested: &[String],
    lines: &[DiskLine],
    sys_root: &Path,
) -> Result<Vec<String>, CaptureError> {
    if requested.is_empty() {
        let active: Vec<String> = lines
            .iter()
            .filter(|l| l.counters.has_activity())
            .filter(|l| sys_root.join("block").join(&l.name).exists())
            .map(|l| l.name.clone())
            .collect();
        if active.is_empty() {
            return Err(CaptureError::NoActiveDevice);
        }
        return Ok(active);
    }
    let mut chosen = Vec::new();
    for name in requested {
        let kernel_name = kernel_name(name);
        if !lines.iter().any(|l| l.name == kernel_name) {
            return Err(CaptureError::UnknownDevice {
                name: name.clone(),
                known: lines.iter().map(|l| l.name.clone()).collect(),
            });
        }
        if !chosen.contains(&kernel_name) {
            chosen.push(kernel_name);
        }
    }
    Ok(chosen)
}

/// The kernel's name for `name`: `loop3` stays, `/dev/loop3` loses its folder, and a link
/// such as `/dev/mapper/vg-lv` or `/dev/disk/by-id/...` is followed to `dm-0` or `sda`.
pub fn kernel_name(name: &str) -> String {
    let path = Path::new(name);
    if path.is_absolute() {
        if let Ok(real) = std::fs::canonicalize(path) {
            if let Some(file) = real.file_name() {
                return file.to_string_lossy().into_owned();
            }
        }
    }
    name.strip_prefix("/dev/").unwrap_or(name).to_string()
}

/// Everything `device` sits on, top down, as far as the kernel tells (at most 8 levels, so a
/// loop whose file lives on itself cannot go round for ever).
pub fn device_stack(device: &str, sys_root: &Path) -> Vec<StackLink> {
    let mut links = Vec::new();
    let mut pending = vec![(device.to_string(), 0)];
    while let Some((upper, depth)) = pending.pop() {
        if depth >= 8 {
            continue;
        }
        for link in links_below(&upper, sys_root) {
            if let Some(lower) = &link.sits_on {
                if !links.iter().any(|l: &StackLink| &l.device == lower) {
                    pending.push((lower.clone(), depth + 1));
                }
            }
            links.push(link);
        }
    }
    links
}

fn links_below(device: &str, sys_root: &Path) -> Vec<StackLink> {
    let node = sys_root.join("class/block").join(device);
    let mut links = Vec::new();
    if let Ok(entries) = std::fs::read_dir(node.join("slaves")) {
        let mut slaves: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        slaves.sort();
        links.extend(slaves.into_iter().map(|lower| StackLink {
            device: device.to_string(),
            sits_on: Some(lower),
            via: Via::Slave,
        }));
    }
    if node.join("partition").exists() {
        // /sys/class/block/vda1 links to .../block/vda/vda1: the parent folder is the disk.
        let parent = std::fs::canonicalize(&node).ok().and_then(|real| {
            real.parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
        });
        links.push(StackLink {
            device: device.to_string(),
            sits_on: parent,
            via: Via::Partition,
        });
    }
    if let Ok(text) = std::fs::read_to_string(node.join("loop/backing_file")) {
        let file = PathBuf::from(text.trim_end_matches('\n'));
        links.push(StackLink {
            device: device.to_string(),
            sits_on: device_holding(&file, sys_root),
            via: Via::BackingFile(file),
        });
    }
    links
}

/// The block device the filesystem holding `file` is on, by its device number.
fn device_holding(file: &Path, sys_root: &Path) -> Option<String> {
    let dev = std::fs::metadata(file).ok()?.dev();
    // glibc's gnu_dev_major / gnu_dev_minor encoding of a 64-bit dev_t.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let link = sys_root.join(format!("dev/block/{major}:{minor}"));
    let real = std::fs::canonicalize(link).ok()?;
    Some(real.file_name()?.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procfs::parse_diskstats;

    const DISKSTATS: &str = "\
 254 0 vda 100 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0
 254 1 vda1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254 2 vda2 100 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0
 7 0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 253 0 dm-0 7 0 56 1 0 0 0 0 0 1 1 0 0 0 0 0 0
";

    /// A /sys tree as the kernel lays it out: block/ for whole disks, class/block/ links
    /// into devices/, partitions inside their disk's folder, a dm device with slaves/.
    fn sys_tree() -> tempfile::TempDir {
        let sys = tempfile::tempdir().unwrap();
        let root = sys.path();
        let devices = root.join("devices/virtual/block");
        for dir in ["vda/vda1", "vda/vda2", "loop0", "dm-0/slaves"] {
            std::fs::create_dir_all(devices.join(dir)).unwrap();
        }
        std::fs::write(devices.join("vda/vda1/partition"), "1\n").unwrap();
        std::fs::write(devices.join("vda/vda2/partition"), "2\n").unwrap();
        std::os::unix::fs::symlink("../../vda/vda2", devices.join("dm-0/slaves/vda2")).unwrap();
        std::fs::create_dir_all(root.join("class/block")).unwrap();
        std::fs::create_dir_all(root.join("block")).unwrap();
        for (name, place) in [
            ("vda", "vda"),
            ("vda1", "vda/vda1"),
            ("vda2", "vda/vda2"),
            ("loop0", "loop0"),
            ("dm-0", "dm-0"),
        ] {
            let target = root.join("devices/virtual/block").join(place);
            std::os::unix::fs::symlink(&target, root.join("class/block").join(name)).unwrap();
            if !place.contains('/') {
                std::os::unix::fs::symlink(&target, root.join("block").join(name)).unwrap();
            }
        }
        sys
    }

    fn lines() -> Vec<DiskLine> {
        parse_diskstats(DISKSTATS, Path::new("/proc/diskstats")).unwrap()
    }

    #[test]
    fn by_default_whole_disks_with_io_since_boot_are_watched() {
        let sys = sys_tree();
        let chosen = select_devices(&[], &lines(), sys.path()).unwrap();
        // vda2 has IO but is a partition; loop0 has none.
        assert_eq!(chosen, ["vda", "dm-0"]);
    }

    #[test]
    fn named_devices_may_be_partitions_or_dev_paths_and_count_once() {
        let sys = sys_tree();
        let asked = ["/dev/vda1".to_string(), "loop0".into(), "vda1".into()];
        let chosen = select_devices(&asked, &lines(), sys.path()).unwrap();
        assert_eq!(chosen, ["vda1", "loop0"]);
    }

    #[test]
    fn an_unknown_device_is_refused_with_the_ones_there_are() {
        let sys = sys_tree();
        let error = select_devices(&["sdz".to_string()], &lines(), sys.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no block device 'sdz' in /proc/diskstats (devices here: vda, vda1, vda2, loop0, dm-0)"
        );
    }

    #[test]
    fn a_dm_device_sits_on_its_slave_and_that_partition_on_its_disk() {
        let sys = sys_tree();
        let stack = device_stack("dm-0", sys.path());
        assert_eq!(
            stack,
            [
                StackLink {
                    device: "dm-0".into(),
                    sits_on: Some("vda2".into()),
                    via: Via::Slave
                },
                StackLink {
                    device: "vda2".into(),
                    sits_on: Some("vda".into()),
                    via: Via::Partition
                },
            ]
        );
        assert_eq!(stack[0].to_string(), "dm-0 sits on vda2 (dm/md member)");
        assert_eq!(stack[1].to_string(), "vda2 is a partition of vda");
        assert!(device_stack("vda", sys.path()).is_empty());
    }

    #[test]
    fn a_loop_device_sits_on_the_device_its_backing_file_lives_on() {
        let sys = sys_tree();
        let backing = sys.path().join("backing.img");
        std::fs::write(&backing, b"x").unwrap();
        let loop_dir = sys.path().join("devices/virtual/block/loop0/loop");
        std::fs::create_dir_all(&loop_dir).unwrap();
        std::fs::write(
            loop_dir.join("backing_file"),
            format!("{}\n", backing.display()),
        )
        .unwrap();
        // Whatever holds the temp folder: give its device number a /sys/dev/block entry.
        let dev = std::fs::metadata(&backing).unwrap().dev();
        let (major, minor) = (
            ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff),
            (dev & 0xff) | ((dev >> 12) & !0xff),
        );
        std::fs::create_dir_all(sys.path().join("dev/block")).unwrap();
        std::os::unix::fs::symlink(
            sys.path().join("devices/virtual/block/vda"),
            sys.path().join(format!("dev/block/{major}:{minor}")),
        )
        .unwrap();
        let stack = device_stack("loop0", sys.path());
        assert_eq!(stack.len(), 1);
        assert_eq!(stack[0].sits_on.as_deref(), Some("vda"));
        assert_eq!(stack[0].via, Via::BackingFile(backing.clone()));
        std::fs::remove_file(sys.path().join(format!("dev/block/{major}:{minor}"))).unwrap();
        let unknown = device_stack("loop0", sys.path());
        assert_eq!(unknown[0].sits_on, None);
        assert!(unknown[0]
            .to_string()
            .starts_with("loop0 sits on no block device"));
    }
}
