//! A striped volume of emulated disks for `plan --rehearse`: N loop devices, each capped on its
//! own by the emulation's cgroup, made into one btrfs raid0 filesystem (these machines have no
//! md or device-mapper), mounted in a temporary folder, with one preallocated `nodatacow` file
//! (`chattr +C` on the empty file before it is written) so that direct IO to the file goes
//! straight to the loop devices in btrfs's fixed 64 KiB stripe, with no copy-on-write or
//! checksum IO of its own.
//!
//! Metadata is raid0 too: raid1 or single metadata takes space on some disks only, and btrfs
//! then stripes the later data chunks over the disks that have room left, so the file would
//! not be spread evenly (measured: two of four disks carried half again as many IOs).
//!
//! [`StripedVolume`] is a guard: dropping it (the end of the rehearsal, an error, Ctrl-C)
//! unmounts the filesystem, removes the mount folder and then the emulation (cgroup, loop
//! devices, backing files). A rehearsal killed outright leaves its mount behind; the next
//! [`create`] unmounts those whose process is gone, before the emulation's own sweep.

use crate::{system, EmulateError, EmulatedDisk, EmulationSpec, EphemeralEmulation};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The prefix of a rehearsal's mount folder: `.diskmeter-rehearse-PID`.
const MOUNT_PREFIX: &str = ".diskmeter-rehearse-";

/// The name of the striped file inside the mount.
const FILE_NAME: &str = "rehearse.img";

/// A mounted btrfs raid0 over emulated disks, and its file; removed on drop.
pub struct StripedVolume {
    emulation: Option<EphemeralEmulation>,
    mount: PathBuf,
    mounted: bool,
    file: PathBuf,
    file_bytes: u64,
}

impl StripedVolume {
    /// The striped file to run on.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The file's size, bytes.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The emulated disks, in stripe order.
    pub fn disks(&self) -> Vec<EmulatedDisk> {
        self.emulation
            .as_ref()
            .map(|e| e.0.disks())
            .unwrap_or_default()
    }

    /// Moves this process into the disks' cgroup, so its IO to them is throttled. Call after
    /// [`create`]: the file is written before, unthrottled.
    pub fn enter(&self) -> Result<(), EmulateError> {
        match &self.emulation {
            Some(e) => crate::enter(&e.0),
            None => Ok(()),
        }
    }
}

impl Drop for StripedVolume {
    fn drop(&mut self) {
        if self.mounted {
            unmount(&self.mount);
        }
        let _ = std::fs::remove_dir(&self.mount);
        // The emulation last: its loop devices are busy while mounted.
        self.emulation.take();
    }
}

fn unmount(mount: &Path) {
    let done = Command::new("umount").arg(mount).output();
    if !done.is_ok_and(|o| o.status.success()) {
        // Busy (a process still has the file open): detach it now, freed when released.
        let _ = Command::new("umount").arg("-l").arg(mount).output();
    }
}

fn run(what: &str, command: &mut Command) -> Result<(), EmulateError> {
    let out = command
        .output()
        .map_err(|e| system(format!("cannot run {what}"), e))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(crate::losetup_refused(
            format!("{what} failed"),
            &out.stderr,
        ))
    }
}

/// Makes `spec.disks` emulated disks (the emulation named in `spec`, owned by this process),
/// a btrfs raid0 over them mounted in `spec.dir`, and a `nodatacow` file of half their summed
/// size, written out so reads reach the disks. A failure part-way removes what was made.
pub fn create(spec: &EmulationSpec) -> Result<StripedVolume, EmulateError> {
    sweep_orphan_mounts(&spec.dir);
    let emulation = EphemeralEmulation(crate::create(spec)?);
    let dir = spec.dir.canonicalize().unwrap_or_else(|_| spec.dir.clone());
    let mount = dir.join(format!("{MOUNT_PREFIX}{}", std::process::id()));
    let mut volume = StripedVolume {
        emulation: Some(emulation),
        file: mount.join(FILE_NAME),
        mount,
        mounted: false,
        // Half the raw size: room for btrfs's metadata and chunk rounding on every disk, so
        // the file's chunks all span every disk.
        file_bytes: (spec.size_bytes * u64::from(spec.disks) / 2) >> 20 << 20,
    };
    let devices: Vec<PathBuf> = volume.disks().into_iter().map(|d| d.device).collect();
    run(
        "mkfs.btrfs (btrfs-progs)",
        Command::new("mkfs.btrfs")
            .args(["-f", "-q", "-d", "raid0", "-m", "raid0"])
            .args(&devices),
    )?;
    std::fs::create_dir(&volume.mount)
        .map_err(|e| system(format!("cannot create {}", volume.mount.display()), e))?;
    run(
        "mount",
        Command::new("mount")
            .args(["-t", "btrfs"])
            .arg(&devices[0])
            .arg(&volume.mount),
    )?;
    volume.mounted = true;
    std::fs::File::create(&volume.file)
        .map_err(|e| system(format!("cannot create {}", volume.file.display()), e))?;
    run(
        "chattr +C",
        Command::new("chattr").arg("+C").arg(&volume.file),
    )?;
    run(
        "fallocate",
        Command::new("fallocate")
            .arg("-l")
            .arg(volume.file_bytes.to_string())
            .arg(&volume.file),
    )?;
    // Preallocated extents read as zeros without IO: write them, so reads reach the disks.
    run(
        "dd",
        Command::new("dd")
            .arg("if=/dev/zero")
            .arg(format!("of={}", volume.file.display()))
            .args(["bs=1M", "oflag=direct", "conv=notrunc,fsync", "status=none"])
            .arg(format!("count={}", volume.file_bytes >> 20)),
    )?;
    Ok(volume)
}

/// Unmounts and removes the mount folders in `dir` of rehearsals whose process is gone.
fn sweep_orphan_mounts(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(MOUNT_PREFIX) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            unmount(&entry.path());
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// A block device's completed requests and bytes, reads and writes together, from
/// `/sys/block/NAME/stat` (fields 1, 3, 5 and 7: requests and sectors of 512 bytes).
pub fn device_counters(device: &Path) -> Option<(u64, u64)> {
    let name = device.file_name()?.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(format!("/sys/block/{name}/stat")).ok()?;
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let at = |i: usize| fields.get(i).copied().unwrap_or(0);
    Some((at(0) + at(4), (at(2) + at(6)) * 512))
}
